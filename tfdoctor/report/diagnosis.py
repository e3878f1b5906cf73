"""Combine findings into a diagnosis: root causes first, the symptoms they explain under them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Sequence

from tfdoctor import __version__, codes
from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import BASES, Change, Finding, Severity
from tfdoctor.report.areas import Area, area_of

if TYPE_CHECKING:
    from tfdoctor.derived import Derived

REPORT_SCHEMA_VERSION = 1

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT): the shell's 128 + 2."""


@dataclass(frozen=True)
class AreaStatus:
    """One line of the summary: an area, the worst severity found in it, and the finding that
    headlines it (the first of that severity)."""

    check: str
    area: str
    severity: Severity
    headline: str
    finding: Finding


SeverityName = Literal["ok", "info", "warning", "error"]


def _asked(f: Finding) -> bool:
    """A finding about the error the user brought (--log, `tfdoctor run`): among equals, the
    answer to the question asked leads."""
    return f.code.startswith("log.")


_NOT_A_DIAGNOSIS = frozenset({codes.LOG_NOT_RECOGNISED, codes.LOG_UNREADABLE})
"""What a text that names no known failure gives: it says nothing of the text's cause."""


def _basis_rank(f: Finding) -> int:
    return BASES.index(f.basis) if f.basis in BASES else 0


@dataclass
class RemediationDoc:
    text: str
    commands: list[str]
    link: str | None = None
    code: list[str] = field(default_factory=list)
    """Lines of the user's code to change: not shell commands."""
    changes: list[Change] = field(default_factory=list)
    """What the commands do to environments, as data (checked by the what-if before printing)."""


@dataclass
class FindingDoc:
    """A finding as `--json` prints it; `explained_by` names the present findings it is a
    consequence of."""

    code: str
    severity: SeverityName
    title: str
    detail: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    remediation: RemediationDoc | None = None
    explains: list[str] = field(default_factory=list)
    check: str = ""
    basis: Literal["observed", "reported", "table", "inferred"] = "observed"
    explained_by: list[str] = field(default_factory=list)
    explains_log: bool = False
    """This finding is the diagnosis of the pasted error text (`log_diagnosis`), whatever the
    environment's own diagnosis is."""


@dataclass
class AreaDoc:
    check: str
    area: str
    severity: SeverityName
    headline: str


@dataclass
class Unjudged:
    """A fact the snapshot does not know, the rules that therefore did not run, and the command
    whose output would let them."""

    fact: str
    what: str
    command: str
    rules: list[str]


@dataclass
class ReportDoc:
    """The document `tfdoctor check --json` prints (its JSON Schema is derived from this)."""

    schema: Literal["tfdoctor-report"]
    schema_version: int
    tfdoctor_version: str
    exit_code: Literal[0, 1, 2]
    fail_on: SeverityName
    counts: dict[str, int]
    diagnosis: FindingDoc | None
    root_causes: list[str]
    areas: list[AreaDoc]
    findings: list[FindingDoc]
    snapshot: Snapshot
    unjudged: list[Unjudged] = field(default_factory=list)
    """Facts the snapshot does not know, the rules that did not run for want of them, and the
    command that would tell."""
    log_diagnosis: str | None = None
    """The code of the finding that explains the pasted error text (--log, `tfdoctor run`): when
    the text and this environment disagree it is not `diagnosis`, and scripts read the two apart."""


def _finding_doc(f: Finding, explained_by: list[str] | None = None,
                 present: set[str] | None = None, explains_log: bool = False) -> FindingDoc:
    """A finding as JSON; `explains` names each code it is the cause of once, and only those
    present in the report (`present`) when given."""
    fix = f.remediation
    explains = [c for c in dict.fromkeys(f.explains) if present is None or c in present]
    return FindingDoc(f.code, f.severity.value, f.title, f.detail, dict(f.evidence),
                      RemediationDoc(fix.text, [str(c) for c in fix.commands], fix.link, list(fix.code),
                                     list(fix.changes)) if fix else None,
                      explains, f.check, f.basis if f.basis in BASES else "observed",
                      explained_by or [], explains_log)


@dataclass
class Report:
    snapshot: Snapshot
    findings: list[Finding]
    sections: Sequence[Area]
    """The areas whose rules ran, in report order."""
    derived: "Derived"
    """The facts the rules were given (renderers read them instead of working them out again)."""
    unjudged: list[Unjudged] = field(default_factory=list)
    """What could not be judged: facts the snapshot does not know (see Snapshot.unknown)."""

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
        """Problems that no other present problem explains: worst first, then what was observed
        before what was reported or read from tables and what was inferred, then the user's own
        error message, then the one that explains most."""
        roots = [f for f in self.problems() if not self.explained_by(f)]
        return sorted(roots, key=lambda f: (-f.severity.rank, _basis_rank(f), not _asked(f),
                                            -len(self.consequences(f))))

    def consequences(self, finding: Finding) -> list[Finding]:
        return [f for f in self.problems() if f is not finding and f.code in finding.explains]

    def diagnosis(self) -> Finding | None:
        roots = self.root_causes()
        return roots[0] if roots else None

    def log_diagnosis(self) -> Finding | None:
        """The finding that explains the pasted text, at any severity: of the findings read from
        it (log.*, not log.not-recognised) and those that name one of them as their consequence,
        the one no other of them explains, ranked as root causes are."""
        read = {f.code for f in self.findings if _asked(f) and f.code not in _NOT_A_DIAGNOSIS}
        about = [f for f in self.findings if f.code in read or read & set(f.explains)]
        roots = [f for f in about if not any(o is not f and f.code in o.explains for o in about)]
        ranked = sorted(roots, key=lambda f: (-f.severity.rank, _basis_rank(f), not _asked(f),
                                              -sum(1 for o in about if o.code in f.explains)))
        return ranked[0] if ranked else None

    def areas(self) -> list[AreaStatus]:
        lines = []
        known = {a.name: a for a in self.sections}
        for name in sorted({f.check for f in self.findings} - set(known)):
            known[name] = area_of(name + ".")
        for area in sorted(known.values(), key=lambda a: (a.order, a.name)):
            own = [f for f in self.findings if f.check == area.name]
            if not own:  # it had nothing to say here (e.g. no TensorFlow to check the pins of)
                continue
            worst = max(f.severity for f in own)
            top = next(f for f in own if f.severity == worst)
            lines.append(AreaStatus(area.name, area.area, worst, top.title, top))
        return lines

    def counts(self) -> dict[str, int]:
        return {s.value: sum(1 for f in self.findings if f.severity == s) for s in Severity}

    def exit_code(self, fail_on: Severity) -> int:
        """2 when the interpreter could not answer (nothing of it was diagnosed: issue 28), else
        1 for a finding at or above `fail_on`, else 0."""
        if not self.snapshot.target.ok:
            return EXIT_USAGE
        return EXIT_PROBLEMS if any(f.severity >= fail_on for f in self.findings) else EXIT_OK

    def document(self, fail_on: Severity) -> ReportDoc:
        diagnosis = self.diagnosis()
        of_log = self.log_diagnosis()
        present = {f.code for f in self.findings}
        return ReportDoc(
            schema="tfdoctor-report",
            schema_version=REPORT_SCHEMA_VERSION,
            tfdoctor_version=__version__,
            exit_code=self.exit_code(fail_on),
            fail_on=fail_on.value,
            counts=self.counts(),
            diagnosis=_finding_doc(diagnosis, [o.code for o in self.explained_by(diagnosis)], present,
                                   diagnosis is of_log)
            if diagnosis else None,
            root_causes=[f.code for f in self.root_causes()],
            areas=[AreaDoc(a.check, a.area, a.severity.value, a.headline) for a in self.areas()],
            findings=[_finding_doc(f, [o.code for o in self.explained_by(f)], present, f is of_log)
                      for f in self.findings],
            snapshot=self.snapshot,
            unjudged=list(self.unjudged),
            log_diagnosis=of_log.code if of_log else None,
        )

    def to_dict(self, fail_on: Severity) -> dict[str, Any]:
        return typed.to_plain(self.document(fail_on))
