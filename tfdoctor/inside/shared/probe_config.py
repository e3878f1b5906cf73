"""How hard the speed probes try: the presets (`tfdoctor check`, `probe`, `probe --sweep`),
every configuration key with its default, and the tolerances of the agreement with the CPU. The
workloads' own sizes and tolerances are gathered here from their definitions (workloads.py).

Runs inside the diagnosed interpreter: standard library only, Python 3.8+. Imported by the probes
and by tfdoctor.gather.probes, which checks a configuration before it starts a child.
"""

from __future__ import annotations

import json
import math

from tfdoctor.inside.shared.workloads import KINDS

__all__ = ["SCHEMA", "WORKLOADS", "DEFAULT_SIZE", "SWEEP_SIZES", "RETRY_FACTOR", "MAX_SIZE",
           "TOLERANCE", "FLOAT32_EPS", "KINK_FACTOR", "GRADIENT_FLOOR", "GRADIENT_CEILING",
           "gradient_tolerance", "PRESETS", "DEFAULTS",
           "resolve_config"]

SCHEMA = 1
WORKLOADS = tuple(KINDS)

DEFAULT_SIZE = {name: kind.default_size for name, kind in KINDS.items()}
"""The size each workload is measured at: matmul n (n x n @ n x n), conv and train batch size."""
SWEEP_SIZES = {name: list(kind.sweep_sizes) for name, kind in KINDS.items()}
RETRY_FACTOR = {name: kind.retry_factor for name, kind in KINDS.items()}
"""The larger size tried when the GPU does not win: matmul 2x n (8x the work), 4x the batch."""
MAX_SIZE = {name: kind.max_size for name, kind in KINDS.items()}

TOLERANCE = {name: kind.tolerance for name, kind in KINDS.items()}
"""Largest relative L2 error ||gpu - cpu|| / ||cpu|| accepted as agreement. Two correct float32
results differ by reordered sums: about eps * sqrt(k) = 6e-8 * 32 ~ 2e-6 for a length-1024 dot
product (a few 1e-6 at 4096), so 1e-4 leaves a 25-50x headroom for matmul. Convolutions may use
Winograd or FFT algorithms, whose float32 error is around 1e-5..1e-4, hence 1e-3; the training
step chains convolutions, a softmax and their gradients, also 1e-3. A kernel bug (wrong indexing,
a lost term, half precision where float32 was asked) gives errors of 1e-2 and more."""

FLOAT32_EPS = 2.0 ** -23
KINK_FACTOR = 30.0
GRADIENT_FLOOR = 0.05
GRADIENT_CEILING = 0.3
"""The training step's gradients pass through ReLU and max-pooling, whose derivatives jump: a
rounding difference of relative size d in the forward pass flips the activations that sit within
d of a kink, and each flip moves a conv layer's gradient by a whole term. So two correct devices
put the gradients about sqrt(d) apart while their logits stay d apart, and even at the smallest d
one flip moves a variable's gradient by a fixed amount. Measured on the CPU alone
(benchmarks/gradient_kinks.py, batch 16, 30-40 seeds per d from 1e-7 to 1e-4, four runs): the
worst variable's gradient moved by at most 0.009 at d <= 1e-6 (one flip: up to 11.6 x sqrt(logits
error) at d = 1e-7) and 0.025 at d = 1e-4 (2.3 x sqrt). Hence max(GRADIENT_FLOOR, KINK_FACTOR x
sqrt(d)), at least five times what was seen, capped at GRADIENT_CEILING: a backward kernel bug
(wrong indexing, a filter flipped) moves a variable's gradient by about its own size, a relative
error near 1."""


def gradient_tolerance(base, logits_error):
    """Tolerance of each variable's gradient in the training step, given how far apart the two
    devices put the logits of the same forward pass; never below the workload's own."""
    d = max(logits_error or 0.0, FLOAT32_EPS)
    return max(base, min(GRADIENT_CEILING, max(GRADIENT_FLOOR, KINK_FACTOR * math.sqrt(d))))


PRESETS = {
    # `tfdoctor check`: the three workloads at their default sizes in about 2 s on a 2-core CPU;
    # with a GPU and retries the budget stops them at 6 s, so that `check` stays within a bare
    # `import tensorflow` + 8 s (benchmarks/check_with_probes.py).
    # 6 repeats: one repeat disturbed by another process still leaves the rank test at p = 0.03.
    "check": {"repeats": 6, "repeat_s": 0.05, "budget_s": 6.0},
    # `tfdoctor probe`: more repeats, longer repeats.
    "probe": {"repeats": 7, "repeat_s": 0.1, "budget_s": 30.0},
    # `tfdoctor probe --sweep`
    "sweep": {"repeats": 5, "repeat_s": 0.05, "budget_s": 120.0, "sweep": True},
}

DEFAULTS = {
    "preset": "probe",
    "workloads": list(WORKLOADS),
    "devices": "all",
    "size": None,
    "sizes": dict(DEFAULT_SIZE),
    "repeats": 7,
    "min_repeats": 3,
    "warmup": 2,
    "repeat_s": 0.1,
    "min_repeat_s": 0.01,
    "budget_s": 30.0,
    "sweep": False,
    "sweep_sizes": dict((k, list(v)) for k, v in SWEEP_SIZES.items()),
    "retry": True,
    "retry_factor": dict(RETRY_FACTOR),
    "tolerance": dict(TOLERANCE),
    "seed": 20240611,
}
"""Every configuration key, with its default (the "probe" preset). `config` given to run_probes
may set any of them; "preset" picks a set of defaults first."""

def resolve_config(config):
    """The full configuration: DEFAULTS, then the preset, then `config` (unknown keys are
    ignored, bad values raise ValueError)."""
    config = dict(config or {})
    preset = config.get("preset") or DEFAULTS["preset"]
    if preset not in PRESETS:
        raise ValueError("unknown preset %r (known: %s)" % (preset, ", ".join(sorted(PRESETS))))
    cfg = json.loads(json.dumps(DEFAULTS))
    cfg.update(json.loads(json.dumps(PRESETS[preset])))
    for key, value in config.items():
        if key not in DEFAULTS or value is None and key != "size":
            continue
        if isinstance(cfg.get(key), dict) and isinstance(value, dict):
            cfg[key].update(value)
        else:
            cfg[key] = value
    cfg["preset"] = preset
    workloads = cfg["workloads"]
    if isinstance(workloads, str):
        workloads = list(WORKLOADS) if workloads == "all" else [workloads]
    if not workloads or any(w not in WORKLOADS for w in workloads):
        raise ValueError("workloads must be among %s or 'all', not %r" % (", ".join(WORKLOADS), workloads))
    cfg["workloads"] = [w for w in WORKLOADS if w in workloads]
    if cfg["devices"] not in ("cpu", "gpu", "all"):
        raise ValueError("devices must be cpu, gpu or all, not %r" % (cfg["devices"],))
    if cfg["size"] is not None:
        cfg["size"] = int(cfg["size"])
        if cfg["size"] < 1:
            raise ValueError("size must be positive")
        for w in cfg["workloads"]:
            cfg["sizes"][w] = cfg["size"]
    cfg["repeats"] = max(1, int(cfg["repeats"]))
    cfg["min_repeats"] = max(1, min(int(cfg["min_repeats"]), cfg["repeats"]))
    cfg["warmup"] = max(2, int(cfg["warmup"]))
    cfg["repeat_s"] = float(cfg["repeat_s"])
    cfg["min_repeat_s"] = min(float(cfg["min_repeat_s"]), cfg["repeat_s"])
    cfg["budget_s"] = float(cfg["budget_s"])
    if cfg["budget_s"] <= 0 or cfg["repeat_s"] <= 0:
        raise ValueError("budget_s and repeat_s must be positive")
    cfg["sweep"] = bool(cfg["sweep"])
    cfg["retry"] = bool(cfg["retry"])
    cfg["seed"] = int(cfg["seed"])
    return cfg
