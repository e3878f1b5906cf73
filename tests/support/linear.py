"""Growth proved by ratios, never by seconds: the suite runs on loaded two-core machines, where
an absolute time limit fails for reasons that have nothing to do with the code.

What is compared is the CPU time this process spends (time.process_time: another process busy
on the same core does not inflate it, as it does wall-clock time), the best per-call figure of
a few rounds, each round repeating the call until it has used MIN_CPU_S (timer noise)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

MIN_CPU_S = 0.02
"""CPU time one round repeats its call for, so that even a call of microseconds is measured."""


def cpu_cost(call: Callable[[], object], rounds: int = 3) -> float:
    """The best per-call CPU seconds of `rounds` rounds of `call`."""
    best = float("inf")
    for _ in range(rounds):
        loops, start = 0, time.process_time()
        while True:
            call()
            loops += 1
            used = time.process_time() - start
            if used >= MIN_CPU_S:
                break
        best = min(best, used / loops)
    return best


def cost_ratio(small: Callable[[], object], large: Callable[[], object], rounds: int = 3) -> float:
    """How many times `large` costs `small` in CPU time (the garbage collector held off, as
    its passes land on whichever call happens to allocate when they are due)."""
    gc.collect()
    gc.disable()
    try:
        return cpu_cost(large, rounds) / cpu_cost(small, rounds)
    finally:
        gc.enable()
