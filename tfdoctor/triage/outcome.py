"""One report triaged: its facts (tfdoctor.triage.facts), the snapshot they make (what the report
does not state stays unknown), the pasted text read by the same signatures as `--log`, the
diagnosis by the same rules as `check`, and the questions that would decide what is still open.
Nothing the report names is opened, run or fetched."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tfdoctor import codes
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.logtext import keep
from tfdoctor.gather.snapshot_files import COLLECT_SUMMARY
from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import Report
from tfdoctor.sanitize.redact import Identity
from tfdoctor.triage.facts import ReportFacts, read_report
from tfdoctor.triage.questions import UNDECIDED, Question, questions
from tfdoctor.triage.snapshot import to_snapshot

MAX_REPORT_BYTES = 1 << 20
"""A report is read up to 1 MiB (issue bodies are far smaller; the rest is said to be cut)."""


@dataclass
class Triaged:
    name: str
    facts: ReportFacts
    snapshot: Snapshot
    report: Report
    questions: list[Question]

    @property
    def cause(self) -> str:
        found = self.report.diagnosis()
        return found.code if found else UNDECIDED

    def explains_text(self) -> list[str]:
        """Codes of the findings that explain the pasted text (its log.* findings and what they
        are explained by), apart from what the stated environment alone gives."""
        from_text = [f for f in self.report.findings if f.code.startswith("log.") and f.severity.rank >= 2]
        causes = {c.code for f in from_text for c in self.report.explained_by(f)}
        return sorted({f.code for f in from_text} | causes)


def report_text(data: bytes) -> str:
    """A report given as bytes, as it is read: its first MAX_REPORT_BYTES, in any encoding."""
    return data[:MAX_REPORT_BYTES].decode("utf-8", "replace")


def triage_text(name: str, data: bytes, identity: Identity | None = None) -> Triaged:
    """Triage one report given as bytes (any encoding, cut at MAX_REPORT_BYTES)."""
    text = report_text(data)
    facts = read_report(text)
    snapshot = to_snapshot(facts)
    if facts.collected is None:
        snapshot.log = keep.from_bytes(data, name, limit=MAX_REPORT_BYTES, identity=identity)
    else:  # a pasted `tfdoctor collect`: its own log, and whatever was pasted around it
        rest = _without_collected(text)
        if rest.strip() and snapshot.log is None:
            snapshot.log = keep.from_bytes(rest.encode(), name, limit=MAX_REPORT_BYTES, identity=identity)
    if not _ABOUT_TENSORFLOW.search(text) and "packages" not in snapshot.unknown:
        # a report that never names TensorFlow says nothing of it by not listing it
        snapshot.unknown = [*snapshot.unknown, "packages"]
    report = _in_the_background(diagnose(snapshot))
    found = report.diagnosis()
    return Triaged(name, facts, snapshot, report, questions(snapshot, found.code if found else UNDECIDED))


_ABOUT_TENSORFLOW = re.compile(r"tensorflow|\bkeras\b|\btf\.|\btf-", re.IGNORECASE)
NOT_TENSORFLOWS = frozenset({codes.LOG_NETWORK_ERROR})
"""Pasted errors that are not TensorFlow's (the network), whatever the environment shows."""


def _in_the_background(report: Report) -> Report:
    """When the error a report brings is recognised as not TensorFlow's (and nothing in the text
    is TensorFlow's), what the stated environment alone gives is background: information."""
    from_text = [f for f in report.findings if f.code.startswith("log.") and f.severity >= Severity.WARNING]
    alien = [f for f in report.findings if f.code in NOT_TENSORFLOWS]
    if not alien or from_text:
        return report
    quiet = [replace(f, severity=Severity.INFO, detail=(f.detail + " " if f.detail else "") +
                     f"Background: the report's error is {alien[0].code}, not TensorFlow's.")
             if f.severity >= Severity.WARNING else f for f in report.findings]
    return replace(report, findings=quiet)


_COLLECTED_BLOCK = re.compile(r"<details><summary>" + re.escape(COLLECT_SUMMARY) + r"</summary>"
                              r"[^<]*(?:<(?!/?details>)[^<]*)*</details>")
"""A pasted `tfdoctor collect` block, to its closing tag; never past another <details> (where the
next block's own scan starts), so a report of many unclosed blocks is read once."""


def _without_collected(text: str) -> str:
    """The report around a pasted `tfdoctor collect` (its snapshot's strings are not error text)."""
    if text.lstrip().startswith("{"):
        return ""
    return _COLLECTED_BLOCK.sub("", text)
