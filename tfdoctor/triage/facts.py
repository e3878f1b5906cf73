"""A bug report read into facts: `read_report(text)` runs every reader over the laid-out report,
adds what follows from the facts, and finds where they disagree.

Rules of evidence: a fact not in the report is not a fact; prose is "stated", pasted output is
"read", a conclusion from a path or another fact is "inferred"; a quoted reply's facts are kept
with "(quoted)" in their source. Nothing the report names is run, opened or fetched.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot, canonicalize_name
from tfdoctor.triage import (read_conda, read_crash, read_dumps, read_paths, read_pip, read_printed,
                             read_prose, read_session, read_system, read_template, read_tflog,
                             read_tfdoctor, read_variables)
from tfdoctor.triage.conclusions import conclusions
from tfdoctor.triage.contradictions import contradictions
from tfdoctor.triage.evidence import (FACT_NAMES, LISTING_SOURCES, PACKAGE, Contradiction, Fact,
                                      Found, surest)
from tfdoctor.triage.layout import Document, lay_out

__all__ = ["FACT_NAMES", "Contradiction", "Fact", "ReportFacts", "read_report"]


@dataclass
class ReportFacts:
    """Everything read from one report: its facts (conclusions included), where they disagree,
    whether a whole package list was pasted, and how the text was read."""

    facts: list[Fact]
    contradictions: list[Contradiction]
    package_list: bool
    """A complete listing (pip list, pip freeze, conda list, conda env export, tfdoctor collect or
    its report) was pasted in the reporter's own text."""
    notes: list[str] = field(default_factory=list)
    """How the report was read: what was left out (past 1 MB, a cut listing) and why."""
    collected: Snapshot | None = None
    """A tfdoctor snapshot pasted whole: the environment as tfdoctor itself read it."""

    def first(self, name: str) -> Fact | None:
        """The surest fact of that name (read > stated > inferred), earliest line first."""
        return surest(self.facts, name)

    def packages(self) -> dict[str, Fact]:
        """Canonical distribution name -> the surest fact of its version."""
        return _best(fact for fact in self.facts if fact.name.startswith(PACKAGE))

    def listed(self) -> dict[str, Fact]:
        """Like `packages`, from the complete listings in the reporter's own text only."""
        return _best(fact for fact in self.facts if fact.name.startswith(PACKAGE)
                     and fact.source in LISTING_SOURCES)

    def unnamed_tensorflow(self) -> Fact | None:
        """A TensorFlow version stated without its distribution ("TensorFlow 2.12"), when no
        distribution of TensorFlow is named anywhere and no complete listing says what is
        installed: the snapshot calls it `tensorflow`."""
        named = {canonicalize_name(name) for name in TENSORFLOW_DISTRIBUTIONS}
        if self.package_list or named.intersection(self.packages()):
            return None
        return surest((f for f in self.facts if not f.quoted), "tensorflow_version")


def _best(facts: Iterable[Fact]) -> dict[str, Fact]:
    """Per distribution, the surest fact that gives a version; one without (a name said, `name @
    file://...`) only where none gives it."""
    best: dict[str, Fact] = {}
    for fact in facts:
        key = fact.name[len(PACKAGE):]
        if key not in best or (not fact.value, fact.rank()) < (not best[key].value, best[key].rank()):
            best[key] = fact
    return best


Reader = Callable[[Document, Found], None]
READERS: tuple[tuple[str, Reader], ...] = (
    ("issue template", read_template.read),
    ("environment dump", read_dumps.read),
    ("conda", read_conda.read),
    ("pip", read_pip.read),
    ("system tools", read_system.read),
    ("command output", read_session.read),
    ("TensorFlow log", read_tflog.read),
    ("crash report", read_crash.read),
    ("printed values", read_printed.read),
    ("paths", read_paths.read),
    ("environment variables", read_variables.read),
    ("prose", read_prose.read),  # last: it skips what the others took as output or fields
)


def read_report(text: str) -> ReportFacts:
    """Every fact a bug report gives, with its provenance, its contradictions and notes."""
    doc = lay_out(text)
    found = Found()
    for note in doc.notes:
        found.note(note)
    collected = read_tfdoctor.Collected()
    _guarded("tfdoctor", lambda d, f: read_tfdoctor.read(d, f, collected), doc, found)
    if collected.consumed:
        doc = replace(doc, lines=tuple(line for line in doc.lines if line.number not in collected.consumed))
    for what, reader in READERS:
        _guarded(what, reader, doc, found)
    facts = found.facts + conclusions(found.facts)
    report = ReportFacts(facts, contradictions(facts), bool(found.listings), found.notes,
                         collected.snapshot)
    tensorflow = report.unnamed_tensorflow()
    if tensorflow is not None:
        report.notes.append(
            f"TensorFlow {tensorflow.value} (line {tensorflow.line}) is stated without its "
            f"distribution (tensorflow, tensorflow-macos...): the snapshot names it tensorflow")
    return report


def _guarded(what: str, reader: Reader, doc: Document, found: Found) -> None:
    """A reader that fails on some text loses its own facts, never the others' (as a crashing
    rule becomes check.crashed)."""
    try:
        reader(doc, found)
    except Exception as exc:  # noqa: BLE001 - hostile text must not end the reading
        found.note(f"the {what} reader failed on this report ({type(exc).__name__}); "
                   "its facts are missing")

