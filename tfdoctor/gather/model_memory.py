"""Does the user's model leak memory? The trend of the process's memory over the model child's
training steps, judged after the warm-up steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfdoctor.facts.user_model import MemoryTrend

LEAK_MIN_BYTES_PER_STEP = 64 * 1024
"""Smallest steady growth per training step called a leak: allocator caches and Python objects
move the resident set by a few pages now and then, not by 64 KiB on every step."""
LEAK_MIN_TOTAL_BYTES = 1 << 20
LEAK_WARMUP_STEPS = 3
"""Steps whose growth is not judged (at least; a third of the steps when there are more): the
first steps build kernels, caches and slot variables, and allocators grow their pools."""
LEAK_MIN_JUDGED = 6


def slope(values: Sequence[float]) -> float:
    """Least-squares slope of values against their index."""
    n = len(values)
    mean_x = (n - 1) / 2.0
    mean_y = sum(values) / n
    sxx = sum((i - mean_x) ** 2 for i in range(n))
    return sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values)) / sxx if sxx else 0.0


def memory_trend(raw: Mapping[str, Any] | None) -> MemoryTrend | None:
    """Steady growth of the process's memory across training steps, after the warm-up steps: a
    leak when it grows by LEAK_MIN_BYTES_PER_STEP or more per step (least squares), by at least
    LEAK_MIN_TOTAL_BYTES overall, on most steps (not one jump), and no slower in the later
    half of the steps than in the earlier (not a cache filling up)."""
    if not raw:
        return None
    steps = raw.get("steps") or []
    process = [int(s["process_bytes"]) for s in steps if s.get("process_bytes") is not None]
    device = [int(s["device_current"]) for s in steps if s.get("device_current") is not None]
    warmup = max(LEAK_WARMUP_STEPS, len(process) // 3)
    judged = process[warmup:]
    rate = growth = None
    leak = False
    message = (f"too few steps to judge ({len(process)}; "
               f"{LEAK_WARMUP_STEPS + LEAK_MIN_JUDGED} needed)")
    if not process and raw.get("stopped") == "budget":
        message = "not measured: the budget ran out before the memory steps"
    if len(judged) >= LEAK_MIN_JUDGED:
        rate = slope(judged)
        growth = judged[-1] - judged[0]
        rising = sum(1 for a, b in zip(judged, judged[1:]) if b > a) / (len(judged) - 1)
        half = len(judged) // 2
        # Steady: the later half grows about as fast as the earlier (caches that fill up
        # and stop, as TensorFlow's allocators do in the first steps, slow down).
        steady = slope(judged[half:]) >= 0.5 * slope(judged[:half + 1])
        leak = (rate >= LEAK_MIN_BYTES_PER_STEP and growth >= LEAK_MIN_TOTAL_BYTES
                and rising >= 0.6 and steady)
        message = (f"memory grows by {rate / 1024:.0f} KiB per training step "
                   f"({growth / 2 ** 20:.1f} MiB over {len(judged)} steps)" if leak else
                   f"no steady growth ({rate / 1024:+.0f} KiB per step over {len(judged)} steps)")
    return MemoryTrend(str(raw.get("device")), raw.get("source"), process, device, rate, growth,
                       leak, message, raw.get("error"), raw.get("stopped"))
