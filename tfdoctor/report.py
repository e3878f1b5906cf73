"""Combine findings into a diagnosis: root causes first, the symptoms they explain under them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from tfdoctor import __version__
from tfdoctor.model import Check, Finding, Severity
from tfdoctor.snapshot import Snapshot

REPORT_SCHEMA_VERSION = 1

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


@dataclass(frozen=True)
class AreaStatus:
    """One line of the summary: a check's area, the worst severity it found, and the finding
    that headlines it (the first of that severity)."""

    check: str
    area: str
    severity: Severity
    headline: str
    finding: Finding


@dataclass
class Report:
    snapshot: Snapshot
    findings: list[Finding]
    checks: Sequence[Check]

    def problems(self) -> list[Finding]:
        return [f for f in self.findings if f.severity >= Severity.WARNING]

    def explained_by(self, finding: Finding) -> list[Finding]:
        """The present problems that name this finding's code as one of their consequences."""
        return [
            other
            for other in self.problems()
            if other is not finding and finding.code in other.explains
        ]

    def root_causes(self) -> list[Finding]:
        """Problems that no other present problem explains, worst first."""
        roots = [f for f in self.problems() if not self.explained_by(f)]
        return sorted(roots, key=lambda f: (-f.severity.rank, -len(self.consequences(f))))

    def consequences(self, finding: Finding) -> list[Finding]:
        return [f for f in self.problems() if f is not finding and f.code in finding.explains]

    def diagnosis(self) -> Finding | None:
        roots = self.root_causes()
        return roots[0] if roots else None

    def areas(self) -> list[AreaStatus]:
        lines = []
        for check in self.checks:
            own = [f for f in self.findings if f.check == check.name]
            if not own:  # it had nothing to say here (e.g. no TensorFlow to check the pins of)
                continue
            worst = max(f.severity for f in own)
            top = next(f for f in own if f.severity == worst)
            lines.append(AreaStatus(check.name, check.area, worst, top.title, top))
        for name in sorted({f.check for f in self.findings} - {c.name for c in self.checks}):
            own = [f for f in self.findings if f.check == name]
            top = max(own, key=lambda f: f.severity.rank)
            lines.append(AreaStatus(name, "tfdoctor", top.severity, top.title, top))
        return lines

    def counts(self) -> dict[str, int]:
        return {s.value: sum(1 for f in self.findings if f.severity == s) for s in Severity}

    def exit_code(self, fail_on: Severity) -> int:
        return EXIT_PROBLEMS if any(f.severity >= fail_on for f in self.findings) else EXIT_OK

    def to_dict(self, fail_on: Severity) -> dict[str, Any]:
        diagnosis = self.diagnosis()
        return {
            "schema": "tfdoctor-report",
            "schema_version": REPORT_SCHEMA_VERSION,
            "tfdoctor_version": __version__,
            "exit_code": self.exit_code(fail_on),
            "fail_on": fail_on.value,
            "counts": self.counts(),
            "diagnosis": diagnosis.to_dict() if diagnosis else None,
            "root_causes": [f.code for f in self.root_causes()],
            "areas": [
                {"check": a.check, "area": a.area, "severity": a.severity.value, "headline": a.headline}
                for a in self.areas()
            ],
            "findings": [
                {**f.to_dict(), "explained_by": [o.code for o in self.explained_by(f)]}
                for f in self.findings
            ],
            "snapshot": self.snapshot.to_dict(),
        }
