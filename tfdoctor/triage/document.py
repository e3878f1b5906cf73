"""What `tfdoctor triage --json` prints, as dataclasses, so its JSON Schema (`tfdoctor schema
triage`) is derived from the code that writes it. Every value read from a report is redacted
(home paths, user and host names, credentials) before it is kept here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import FindingDoc, Unjudged
from tfdoctor.sanitize.redact import Identity, redact
from tfdoctor.triage.outcome import Triaged

SCHEMA_VERSION = 1


@dataclass
class FactDoc:
    name: str
    value: str
    line: int
    """The report's line it was read from (1-based)."""
    how: Literal["stated", "read", "inferred"]
    source: str


@dataclass
class ContradictionDoc:
    name: str
    facts: list[FactDoc]
    why: str


@dataclass
class QuestionDoc:
    command: str
    """Run where the report's error happened; its output decides between `separates`."""
    fact: str
    separates: list[str]


@dataclass
class TriageDoc:
    schema: Literal["tfdoctor-triage"]
    schema_version: int
    name: str
    cause: str
    """The diagnosis (a finding code), or "(no diagnosis)"."""
    root_causes: list[str]
    explains_text: list[str]
    """Findings that explain the pasted text itself (its log.* findings and their causes)."""
    findings: list[FindingDoc]
    facts: list[FactDoc]
    contradictions: list[ContradictionDoc]
    unknown: list[str]
    """Facts the report does not settle (tfdoctor.facts.unknown names)."""
    unjudged: list[Unjudged]
    questions: list[QuestionDoc]
    notes: list[str] = field(default_factory=list)


@dataclass
class TriageBatchDoc:
    schema: Literal["tfdoctor-triage-batch"]
    schema_version: int
    reports: list[TriageDoc]
    unread: list[str] = field(default_factory=list)
    """Entries that were no report (a JSON Lines line without text), with why."""


@dataclass
class SummaryLine:
    name: str
    cause: str
    questions: list[str]


@dataclass
class TriageSummaryDoc:
    schema: Literal["tfdoctor-triage-summary"]
    schema_version: int
    reports: list[SummaryLine]
    counts: dict[str, int]
    """Reports per cause, most first."""
    unread: list[str] = field(default_factory=list)


def document(t: Triaged, fail_on: Severity, who: Identity) -> TriageDoc:
    def fact(f) -> FactDoc:  # noqa: ANN001 - a tfdoctor.triage.facts.Fact
        return FactDoc(f.name, redact(f.value, who), f.line, f.how, f.source)

    report = t.report.document(fail_on)
    return TriageDoc(
        "tfdoctor-triage", SCHEMA_VERSION, redact(t.name, who), t.cause, report.root_causes,
        t.explains_text(), report.findings, [fact(f) for f in t.facts.facts],
        [ContradictionDoc(c.name, [fact(f) for f in c.facts], redact(c.why, who)) for c in t.facts.contradictions],
        list(t.snapshot.unknown), list(t.report.unjudged),
        [QuestionDoc(q.command, q.fact, list(q.separates)) for q in t.questions],
        [redact(n, who) for n in getattr(t.facts, "notes", [])])
