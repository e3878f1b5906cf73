"""The lint rules, one per module (its docstring is the rule's documentation), registered here."""

from __future__ import annotations

from tfdoctor.lint.results import Rule
from tfdoctor.lint.rules import (
                                 async_timing,
                                 cpu_fallback_layer,
                                 device_config_late,
                                 gpu_hidden,
                                 keras3_api,
                                 no_prefetch,
                                 v2_optimizer,
                                 xla_on_metal,
)

RULES: tuple[Rule, ...] = (
    xla_on_metal.RULE,
    v2_optimizer.RULE,
    no_prefetch.RULE,
    async_timing.RULE,
    device_config_late.RULE,
    gpu_hidden.RULE,
    cpu_fallback_layer.RULE,
    keras3_api.RULE,
)
