"""The `LintEnv` of a diagnosed environment, from its snapshot: which TensorFlow, which Keras
`tf.keras` resolves to, which tensorflow-metal. Kept apart from the rules so they stay pure."""

from __future__ import annotations

from typing import Any

from tfdoctor.facts.versions import parse_version
from tfdoctor.lint.results import LintEnv

LEGACY_TRUE = ("true", "True", "1")
"""TF_USE_LEGACY_KERAS values TensorFlow honours (tensorflow/python/util/lazy_loader.py of
tensorflow 2.19.1, KerasLazyLoader._initialize)."""


def keras_major(tensorflow: str | None, tf_keras_installed: bool, use_legacy_keras: str | None) -> int | None:
    """2 or 3: TensorFlow 2.16+ ships Keras 3, and tf.keras is tf-keras (Keras 2) only with
    TF_USE_LEGACY_KERAS set and tf-keras installed; None when TensorFlow's version is unknown."""
    version = parse_version(tensorflow)
    if version is None:
        return None
    if (version.major, version.minor) < (2, 16):
        return 2
    return 2 if tf_keras_installed and (use_legacy_keras or "") in LEGACY_TRUE else 3


def from_snapshot(snapshot: Any) -> LintEnv:
    """LintEnv of a tfdoctor.facts.snapshot.Snapshot (TensorFlow distribution with code, metal plugin,
    Keras from tf-keras and TF_USE_LEGACY_KERAS)."""
    tensorflow = None
    for dist in snapshot.tensorflow_distributions():
        if dist.version:
            tensorflow = dist.version
            if dist.key != "tensorflow":  # tensorflow-macos carries the code under a shim
                break
    metal = snapshot.package("tensorflow-metal")
    return LintEnv(tensorflow, keras_major(tensorflow, snapshot.package("tf-keras") is not None,
                                           snapshot.env.get("TF_USE_LEGACY_KERAS")),
                   metal.version if metal is not None else None)


def include_hints(skipped: dict[str, str]) -> list[str]:
    """How to lint for what the environment lacks: a script meant for a Mac, linted from an
    environment without tensorflow-metal (or without TensorFlow), names the options that supply it."""
    from tfdoctor.knowledge.kernels import releases

    reasons = " ".join(skipped.values())
    hints = []
    if "no tensorflow-metal" in reasons:
        newest = next(iter(releases()), "1.2.0")
        hints.append(f"to lint for a Mac with tensorflow-metal: tfdoctor lint --plugin {newest} PATH...")
    if "version unknown" in reasons:
        hints.append("to lint for a TensorFlow and Keras: tfdoctor lint --tensorflow 2.19.1 --keras 3 PATH...")
    return hints
