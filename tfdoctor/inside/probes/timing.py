"""How one measurement is timed (warm-up, then autoranged repeats each closed by one read-back
to the host: the method is set out in tfdoctor/inside/probes/run.py's docstring, after GUIDE section 3), and the
time budget of a whole probe run: no repeat starts after its deadline.

Runs inside the diagnosed interpreter: standard library only, Python 3.8+.
"""

from __future__ import annotations

import math
import time
from typing import Any, Dict, List, Tuple

from tfdoctor.inside.shared import probe_stats

__all__ = ["Budget", "time_it"]


class Budget(object):
    """The time a whole probe run may take: no new work starts after `deadline`."""

    def __init__(self, seconds, clock=time.perf_counter):
        self.clock = clock
        self.start = clock()
        self.seconds = seconds
        self.deadline = self.start + seconds

    def left(self):
        return self.deadline - self.clock()

    def elapsed(self):
        return self.clock() - self.start


def time_it(prepared: Any, cfg: Dict[str, Any], budget: Budget, min_repeat_s: float,
            run_deadline: float) -> Tuple[Dict[str, Any], Any, List[float]]:
    """Time `prepared` (a workloads.Prepared) as probes/run.py sets out: warm-up, autorange, then
    repeats, within `run_deadline` (this measurement's share) and `budget` (the whole run's).
    Returns (timing dict, the last output, the values read back: the losses of a training
    step)."""
    clock = time.perf_counter
    step, read = prepared.step, prepared.read
    losses = []
    warm = []
    out = None
    for _ in range(cfg["warmup"]):
        t0 = clock()
        out = step()
        losses.append(read(out))
        warm.append(clock() - t0)
    t0 = clock()
    read(out)
    readback = clock() - t0
    # Autorange: the smallest `number` whose repeat lasts repeat_s, scaled down (never under
    # min_repeat_s) when this measurement's share of the budget cannot afford it.
    left = min(run_deadline, budget.deadline) - clock()
    target = min(cfg["repeat_s"], left / (cfg["repeats"] + 2))
    target = max(min_repeat_s, target)
    per_call = max(warm[-1], 1e-9)
    number = max(1, int(math.ceil(target / per_call)))
    calibration = []
    while True:
        t0 = clock()
        for _ in range(number):
            out = step()
        losses.append(read(out))
        elapsed = clock() - t0
        calibration.append([number, elapsed])
        if elapsed >= target or len(calibration) >= 6 or clock() > budget.deadline:
            break
        number = max(number + 1, int(math.ceil(number * target * 1.1 / max(elapsed, 1e-9))))
    # The last autorange trial ran `number` calls after the warm-up: when it lasted the
    # target it is the first repeat; out of budget it is the one repeat there is time for.
    expected = calibration[-1][1]
    limited = clock() + expected > budget.deadline
    repeats = [expected] if (limited or expected >= target) else []
    while len(repeats) < cfg["repeats"] and not limited:
        now = clock()
        if now + expected > budget.deadline:
            limited = True
            if len(repeats) >= 1:
                break
        elif now + expected > run_deadline and len(repeats) >= cfg["min_repeats"]:
            limited = True
            break
        t0 = clock()
        for _ in range(number):
            out = step()
        losses.append(read(out))
        repeats.append(clock() - t0)
        if limited:
            break
    per_call_s = [r / number for r in repeats]
    timing = {
        "number": number,
        "repeats_s": repeats,
        "per_call_s": per_call_s,
        "warmup_s": warm,
        "first_call_s": warm[0],
        "readback_s": readback,
        "calibration": calibration,
        "repeat_target_s": target,
        "budget_limited": limited,
    }
    timing.update(probe_stats.summary(per_call_s))
    return timing, out, losses
