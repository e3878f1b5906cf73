"""Facts from importing TensorFlow in an isolated child process (see tfdoctor.runtime)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RuntimeFacts:
    outcome: str
    """How the child ended: "ok", "import-error", "signal", "timeout", "no-result", "bad-output"."""
    message: str = ""
    duration_s: float | None = None
    data: dict[str, Any] = field(default_factory=dict)
    stderr_tail: str = ""
