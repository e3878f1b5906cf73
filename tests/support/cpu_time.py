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
    return min(_round(call, min_seconds) for _ in range(rounds))


def _round(call: Callable[[], object], min_seconds: float) -> float:
    """One round: the per-call processor time of the call repeated for `min_seconds`."""
    loops, start = 0, time.process_time()
    while True:
        call()
        loops += 1
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            return elapsed / loops


def costs(calls: Sequence[Callable[[], object]], min_seconds: float, rounds: int = 3) -> list[float]:
    """The best per-call processor time of each call (the garbage collector off meanwhile), the
    rounds taken in turn, every call once a round: a burst of load on a shared machine (the other
    test worker's memory-heavy test) then falls on every size alike, not on one size's rounds and
    so on the ratio. A sweep times each size once, also a middle one that two ratios share."""
    gc.collect()
    gc.disable()
    try:
        best = [float("inf")] * len(calls)
        for _ in range(rounds):
            for i, call in enumerate(calls):
                best[i] = min(best[i], _round(call, min_seconds))
        return best
    finally:
        gc.enable()


def cost_ratio(small: Callable[[], object], large: Callable[[], object], min_seconds: float) -> float:
    """How many times `small` the call `large` costs (the garbage collector off meanwhile)."""
    large_s, small_s = costs([large, small], min_seconds)
    return large_s / small_s
