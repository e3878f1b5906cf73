"""A partial snapshot completed by what its pasted text states (`tfdoctor diagnose SNAPSHOT --log
TEXT`): a snapshot built from a report or by hand declares facts unknown (`Snapshot.unknown`: the
Python's architecture, its binary, the macOS, the chip), and the text pasted with it often
settles them ("R.version$arch returned x86_64", a `Successfully installed` line, a platform
string). Each of those the text settles, read as `triage` reads a report, is taken; a fact the
snapshot knows is never replaced, since what the snapshot records outranks what a text says, and
what it does not declare unknown is its author's choice. What was taken is listed, with its
line, so the report shows where it came from; a stranger's paths and names are redacted, as
triage shows them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from tfdoctor.facts.snapshot import PythonFacts, Snapshot
from tfdoctor.gather.snapshot_files import redact_snapshot
from tfdoctor.report.diagnosis import TextFact
from tfdoctor.sanitize.redact import Identity, redact
from tfdoctor.triage.evidence import Fact
from tfdoctor.triage.facts import ReportFacts, read_report
from tfdoctor.triage.snapshot import to_snapshot

_TAKEN_FOR = {
    "python-arch": ("python_arch", "translated"),
    "python-binary": ("python_binary_archs",),
    "macos": ("macos_version", "macos_version_reported"),
    "chip": ("chip", "hw_arm64"),
}
"""Each KNOWABLE fact a text can settle -> the report facts that settle it. The complete package
list and the plugins folder are not among them: a listing in a text may be another environment's
(`pip list` of base, the error from a venv), and an absence proves nothing the snapshot did not
claim; no text lists tensorflow-plugins/."""


@dataclass
class Completed:
    snapshot: Snapshot
    taken: list[TextFact]
    """The facts taken from the text, each with the line it was read from."""


def complete(snapshot: Snapshot, text: str) -> Completed:
    """`snapshot` with each fact it declares unknown (`Snapshot.unknown`) taken from `text` where the
    text settles it (the snapshot given is not changed). A snapshot that knows everything (what
    `collect` gathers) is returned as it is."""
    open_facts = [name for name in snapshot.unknown if name in _TAKEN_FOR]
    if not open_facts or not text.strip():
        return Completed(snapshot, [])
    facts = read_report(text)
    if facts.collected is not None:  # a pasted tfdoctor snapshot is another environment whole
        return Completed(snapshot, [])
    who = Identity.current()
    said = redact_snapshot(to_snapshot(facts), who)
    out = copy.deepcopy(snapshot)
    taken: list[TextFact] = []
    for name in open_facts:
        if _take(out, said, name):
            taken += [_taken(facts, fact) for fact in _TAKEN_FOR[name] if _has(facts, fact)]
    out.unknown = [name for name in out.unknown if name not in open_facts or not _settled(out, name)]
    return Completed(out, [replace(fact, value=redact(fact.value, who)) for fact in taken])


def _take(out: Snapshot, said: Snapshot, knowable: str) -> bool:
    """Copy what settles one KNOWABLE fact from the text's snapshot; whether it did."""
    mac = out.host.system in ("", "Darwin")
    if knowable == "python-arch" and said.python is not None and said.python.process_arch:
        py = _python_of(out)
        py.process_arch, py.translated = said.python.process_arch, said.python.translated
        return True
    if knowable == "python-binary" and said.python is not None and said.python.binary.archs:
        _python_of(out).binary = copy.deepcopy(said.python.binary)
        return True
    if knowable == "macos" and mac and said.host.macos_version:
        out.host.macos_version = said.host.macos_version
        out.host.macos_version_reported = out.host.macos_version_reported or said.host.macos_version_reported
        return True
    if knowable == "chip" and mac and said.host.chip:
        out.host.chip = said.host.chip
        if out.host.hw_arm64 is None:
            out.host.hw_arm64 = said.host.hw_arm64
        out.host.system = out.host.system or said.host.system
        return True
    return False


def _python_of(out: Snapshot) -> PythonFacts:
    if out.python is None:
        out.python = PythonFacts(version="", implementation="", executable="")
    return out.python


def _has(facts: ReportFacts, name: str) -> bool:
    return any(f.name == name and not f.quoted for f in facts.facts)


def _taken(facts: ReportFacts, name: str) -> TextFact:
    fact = min((f for f in facts.facts if f.name == name and not f.quoted), key=Fact.rank)
    return TextFact(name, fact.value, fact.line, fact.how)


def _settled(out: Snapshot, knowable: str) -> bool:
    """Whether the completed snapshot now knows one of KNOWABLE's facts."""
    system = out.host.system
    if knowable == "python-arch":
        return bool(out.python and out.python.process_arch)
    if knowable == "python-binary":
        return bool(out.python and out.python.binary.archs)
    if knowable == "macos":
        return bool(out.host.macos_version) or system not in ("", "Darwin")
    return bool(out.host.chip) or system not in ("", "Darwin")  # chip
