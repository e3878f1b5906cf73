"""The diagnosis vocabulary: severities, remediations, findings and checks.

A check is a small registered object (as in conda's health-check plugins) whose `run` is a pure
function of a fact snapshot; it returns findings (flutter's ValidationResult: a crash becomes a
finding too), each with a remediation made of commands a person or a script can run (brew's
Finding/Remediation).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

if TYPE_CHECKING:
    from tfdoctor.snapshot import Snapshot


class Severity(str, enum.Enum):
    """How bad a finding is; ordered so that `max()` picks the worst."""

    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank >= other.rank


_RANKS = {Severity.OK: 0, Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}


@dataclass(frozen=True)
class Remediation:
    """What to do about a finding: a sentence, the commands to run, and a link where one helps."""

    text: str
    commands: tuple[str, ...] = ()
    link: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "commands": list(self.commands), "link": self.link}


@dataclass(frozen=True)
class Finding:
    """One conclusion drawn from the facts.

    `evidence` holds the facts the conclusion rests on (copied, so a report can show them without
    the snapshot); `explains` lists the codes of other findings that this one is the cause of, so
    the report can lead with root causes instead of symptoms.
    """

    code: str
    severity: Severity
    title: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    remediation: Remediation | None = None
    detail: str = ""
    explains: tuple[str, ...] = ()
    check: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "title": self.title,
            "detail": self.detail,
            "evidence": dict(self.evidence),
            "remediation": self.remediation.to_dict() if self.remediation else None,
            "explains": list(self.explains),
            "check": self.check,
        }


@dataclass(frozen=True)
class CodeDoc:
    """What `tfdoctor explain CODE` prints: the stable meaning of a finding code."""

    title: str
    severity: Severity
    why: str
    fix: str
    link: str | None = None


@dataclass(frozen=True)
class Check:
    """A registered diagnosis: `run(snapshot)` returns findings and never gathers facts itself.

    Built-in and third-party checks register the same way, through the `tfdoctor.checks`
    entry-point group; an entry point names a Check (or a list of them).
    """

    name: str
    area: str
    summary: str
    run: Callable[["Snapshot"], Iterable[Finding]]
    codes: Mapping[str, CodeDoc] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    """Snapshot sections the check reads, e.g. ("runtime",): skipped when they were not gathered."""
    order: int = 100
    """Where its line goes in the report: the built-ins follow the way facts flow (interpreter,
    architecture, installation, compatibility, run time, speed); plugins come after them."""
