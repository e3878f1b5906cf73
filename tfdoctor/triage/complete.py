"""A partial snapshot completed by what its pasted text states (`tfdoctor diagnose SNAPSHOT --log
TEXT`): a snapshot built from a report or by hand leaves facts unknown, and the text pasted with
it often says them ("R.version$arch returned x86_64", a `Successfully installed` line, a platform
string). Each fact the snapshot does not know is taken from the text, read as `triage` reads a
report; a fact the snapshot knows is never replaced, since what the snapshot records outranks
what a text says, and a list the snapshot calls incomplete stays so (a text adds what it shows
present, never what it shows absent). What was taken is listed, with its line, so the report
shows where it came from; a stranger's paths and names in it are redacted, as triage shows them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PythonFacts, Snapshot, canonicalize_name
from tfdoctor.gather.snapshot_files import redact_snapshot
from tfdoctor.report.diagnosis import TextFact
from tfdoctor.sanitize.redact import Identity, redact
from tfdoctor.triage.evidence import PACKAGE, Fact
from tfdoctor.triage.facts import ReportFacts, read_report
from tfdoctor.triage.snapshot import to_snapshot

_HOST = (("system", "os"), ("macos_version", "macos_version"),
         ("macos_version_reported", "macos_version_reported"), ("chip", "chip"),
         ("hw_arm64", "hw_arm64"), ("cpu_brand", "cpu_brand"), ("container", "container"))
"""HostFacts field -> the report fact it is read from."""
_MAC_ONLY = frozenset({"macos_version", "macos_version_reported", "chip", "hw_arm64"})
"""Host fields that mean something only when the snapshot's system is macOS (or not known)."""
_PYTHON = (("version", "python_version"), ("executable", "python_path"), ("prefix", "python_prefix"),
           ("host_program", "python_host"))
"""PythonFacts field -> the report fact it is read from (the architecture goes with `translated`)."""

_TENSORFLOWS = frozenset(canonicalize_name(name) for name in TENSORFLOW_DISTRIBUTIONS)


@dataclass
class Completed:
    snapshot: Snapshot
    taken: list[TextFact]
    """The facts taken from the text, each with the line it was read from."""


def complete(snapshot: Snapshot, text: str) -> Completed:
    """`snapshot` with each fact it leaves unknown taken from `text` where the text states it
    (the snapshot given is not changed). A snapshot that knows everything (what `collect`
    gathers) is returned as it is."""
    if not _partial(snapshot) or not text.strip():
        return Completed(snapshot, [])
    facts = read_report(text)
    if facts.collected is not None:  # a pasted tfdoctor snapshot is another environment whole
        return Completed(snapshot, [])
    who = Identity.current()
    said = redact_snapshot(to_snapshot(facts), who)
    out = copy.deepcopy(snapshot)
    taken = _host(out, said, facts) + _python(out, said, facts) + _packages(out, said, facts)
    out.unknown = [name for name in out.unknown if not _settled(out, name)]
    return Completed(out, [replace(fact, value=redact(fact.value, who)) for fact in taken])


def _partial(snapshot: Snapshot) -> bool:
    """Whether the snapshot leaves facts unknown: a report's or a hand-written one."""
    return bool(snapshot.unknown) or snapshot.python is None or not snapshot.host.system


def _taken(facts: ReportFacts, name: str, value: object) -> list[TextFact]:
    fact = next((f for f in sorted(facts.facts, key=Fact.rank) if f.name == name and not f.quoted), None)
    shown = "true" if value is True else "false" if value is False else str(value)
    return [TextFact(name, shown, fact.line if fact else 0, fact.how if fact else "inferred")]


def _host(out: Snapshot, said: Snapshot, facts: ReportFacts) -> list[TextFact]:
    taken: list[TextFact] = []
    chip_known = bool(out.host.chip)  # a chip the snapshot names decides hw_arm64 already
    for field_name, fact_name in _HOST:
        if field_name in _MAC_ONLY and out.host.system not in ("", "Darwin"):
            continue
        if field_name == "hw_arm64" and chip_known:
            continue
        mine, theirs = getattr(out.host, field_name), getattr(said.host, field_name)
        if mine in (None, "") and theirs not in (None, ""):
            setattr(out.host, field_name, theirs)
            taken += _taken(facts, fact_name, theirs)
    return taken


def _python(out: Snapshot, said: Snapshot, facts: ReportFacts) -> list[TextFact]:
    if said.python is None:
        return []
    if out.python is None:
        out.python = PythonFacts(version="", implementation="", executable="")
    mine, theirs, taken = out.python, said.python, []
    for field_name, fact_name in _PYTHON:
        if not getattr(mine, field_name) and getattr(theirs, field_name):
            setattr(mine, field_name, getattr(theirs, field_name))
            taken += _taken(facts, fact_name, getattr(theirs, field_name))
    if not mine.process_arch and theirs.process_arch:
        mine.process_arch, mine.translated = theirs.process_arch, theirs.translated
        taken += _taken(facts, "python_arch", theirs.process_arch)
    if not mine.binary.archs and theirs.binary.archs:
        mine.binary = copy.deepcopy(theirs.binary)
        taken += _taken(facts, "python_binary_archs", " ".join(theirs.binary.archs))
    if mine.conda is None and theirs.conda is not None:
        mine.conda = copy.deepcopy(theirs.conda)
        if theirs.conda.subdir:
            taken += _taken(facts, "conda_subdir", theirs.conda.subdir)
    return taken


def _packages(out: Snapshot, said: Snapshot, facts: ReportFacts) -> list[TextFact]:
    """Distributions the text names that the snapshot does not, where its list is not complete.
    The list stays incomplete: a listing in the text may be another environment's (`pip list` of
    base, the error from a venv), and what is absent from it proves nothing the snapshot's author
    did not claim. A TensorFlow the snapshot names is the TensorFlow: the text's other name for it
    (a version said without its distribution, which triage calls `tensorflow`) is not a second one."""
    if "packages" not in out.unknown:
        return []
    has_tensorflow = any(p.key in _TENSORFLOWS for p in out.packages)
    taken = []
    for package in said.packages:
        if has_tensorflow and package.key in _TENSORFLOWS:
            continue
        if out.package(package.name) is None:
            out.packages.append(copy.deepcopy(package))
            taken += _taken(facts, PACKAGE + package.key, package.version or "")
    return taken


def _settled(out: Snapshot, knowable: str) -> bool:
    """Whether the completed snapshot now knows one of KNOWABLE's facts."""
    system = out.host.system
    if knowable == "python-arch":
        return bool(out.python and out.python.process_arch)
    if knowable == "python-binary":
        return bool(out.python and out.python.binary.archs)
    if knowable == "macos":
        return bool(out.host.macos_version) or system not in ("", "Darwin")
    if knowable == "chip":
        return bool(out.host.chip) or system not in ("", "Darwin")
    return False  # packages: settled in _packages or not at all; plugins: no text lists them
