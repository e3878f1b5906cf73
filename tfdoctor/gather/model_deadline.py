"""When the model probe's child is stopped (issue 28): what `--timeout` and `--budget` mean.

`--timeout` is the allowance for importing TensorFlow and loading the model; `--budget` is the
time the probe measures for, from the moment the model is loaded (the child starts no measurement
after it). A call or training step running when the budget ends may finish within a grace of a
quarter of the budget (at least GRACE_MIN_S); a child still running then is stopped. So a model
function that hangs is stopped at `--timeout`, and nothing runs longer than
timeout + budget + grace. The child says where it is in its result file ("stage"): the deadline
is decided from what it last wrote, looked at every tick (tfdoctor.child.process.run_child).
"""

from __future__ import annotations

from dataclasses import dataclass, field

GRACE_FRACTION = 0.25
GRACE_MIN_S = 5.0
NOT_LOADED = frozenset({None, "started", "imported"})
"""The child's stages before the model is loaded (tfdoctor/inside/model/__main__.py writes "loaded"
once it is)."""


@dataclass
class ModelDeadline:
    timeout: float
    """Seconds for importing TensorFlow and loading the model."""
    budget: float
    """Seconds of measuring once the model is loaded."""
    loaded_at: float | None = field(default=None)
    """Seconds from the child's start at which it was first seen past loading."""

    @property
    def grace(self) -> float:
        return max(GRACE_MIN_S, GRACE_FRACTION * self.budget)

    @property
    def hard_limit(self) -> float:
        """The longest the child may run in all."""
        return self.timeout + self.budget + self.grace

    def passed(self, stage: str | None, elapsed: float) -> bool:
        """Whether a child that has run `elapsed` seconds and last wrote `stage` must stop."""
        if self.loaded_at is None and stage not in NOT_LOADED:
            self.loaded_at = min(elapsed, self.timeout)
        if self.loaded_at is None:
            return elapsed > self.timeout
        return elapsed > self.loaded_at + self.budget + self.grace

    def limit(self) -> tuple[float, str]:
        """The limit that applies now, in seconds from the child's start, and what it bounds."""
        if self.loaded_at is None:
            return self.timeout, "--timeout, for importing TensorFlow and loading the model"
        return (self.loaded_at + self.budget + self.grace,
                f"the budget of {self.budget:g} s after loading, and {self.grace:g} s for a call in flight")
