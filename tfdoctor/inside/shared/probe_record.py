"""The plain-data record of a probe run: one measurement's fields, device names as TensorFlow
spells them reduced to "GPU:0", error text kept short, and numbers made safe for strict JSON.

Runs inside the diagnosed interpreter: standard library only, Python 3.8+.
"""

from __future__ import annotations

import math

__all__ = ["TEXT_LIMIT", "text", "describe", "short_device", "on_device", "finite_or_none",
           "sanitize", "new_run"]

TEXT_LIMIT = 2000


def text(value, limit=TEXT_LIMIT):
    value = str(value)
    return value if len(value) <= limit else value[:limit] + "..."


def describe(exc):
    return "%s: %s" % (type(exc).__name__, text(exc))


def short_device(name):
    """"/job:localhost/replica:0/task:0/device:GPU:0" or "/physical_device:GPU:0" -> "GPU:0"."""
    if not name:
        return name
    tail = str(name).rsplit("/", 1)[-1]
    for prefix in ("device:", "physical_device:"):
        if tail.startswith(prefix):
            tail = tail[len(prefix):]
    return tail.upper()


def on_device(placed, wanted):
    return bool(placed) and short_device(placed) == wanted.upper()


def finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


def sanitize(value):
    """`value` with every non-finite float replaced by None (strict JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return dict((k, sanitize(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    return value


def new_run(workload, device, size, role, skipped=None):
    return {
        "workload": workload, "device": device, "size": size, "role": role, "shape": "",
        "flops": None, "samples": None, "inputs": {}, "placed_on": None, "on_device": None,
        "placement": {}, "timing": None, "gflops": None, "samples_per_s": None,
        "agreement": None, "loss_first": None, "loss_last": None, "loss_finite": None,
        "optimizer": None, "error": None, "error_type": None, "error_phase": None,
        "error_traceback": [], "skipped": skipped, "duration_s": None,
    }
