"""What a call costs, for tests that compare the costs of sizes (never a wall-clock limit): the
best of a few rounds of processor time, so that other processes on a shared machine, and the
timer's resolution, do not count."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence


def seconds(call: Callable[[], object], min_seconds: float, rounds: int = 3) -> float:
    """The best per-call processor time of `rounds` rounds, each repeating the call for
    `min_seconds`."""
    best = float("inf")
    for _ in range(rounds):
        loops, start = 0, time.process_time()
        while True:
            call()
            loops += 1
            elapsed = time.process_time() - start
            if elapsed >= min_seconds:
                break
        best = min(best, elapsed / loops)
    return best


def costs(calls: Sequence[Callable[[], object]], min_seconds: float) -> list[float]:
    """seconds() of each call, in order (the garbage collector off meanwhile): a sweep of sizes
    times each size once, also a middle one that two ratios share."""
    gc.collect()
    gc.disable()
    try:
        return [seconds(call, min_seconds) for call in calls]
    finally:
        gc.enable()


def cost_ratio(small: Callable[[], object], large: Callable[[], object], min_seconds: float) -> float:
    """How many times `small` the call `large` costs (the garbage collector off meanwhile)."""
    large_s, small_s = costs([large, small], min_seconds)
    return large_s / small_s
