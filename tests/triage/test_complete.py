"""tfdoctor.triage.complete: a partial snapshot takes from its pasted text only the facts it does not
know; what it knows is never replaced, a whole snapshot is left alone, and what was taken is listed
with its line, redacted as triage shows a stranger's text."""

from __future__ import annotations

import json
from pathlib import Path

from tfdoctor import codes
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import HostFacts, PythonFacts, Snapshot, TargetOutcome
from tfdoctor.facts.unknown import KNOWABLE
from tfdoctor.triage.complete import complete

from tests.conftest import run_tfdoctor
from tests.snapshots import apple_silicon, snap

DATA = Path(__file__).resolve().parents[1] / "data" / "triage"
CONDA_INFO = (DATA / "conda_info_osx64_on_m2.md").read_text()
"""A report of an M2 whose `conda info` says platform osx-64 (an Intel Anaconda) and macOS 13.5.2."""


def _m2_only() -> Snapshot:
    """What a support script knows of that report before reading its paste: the Mac, nothing more."""
    s = Snapshot(target=TargetOutcome(python="python3", ok=True),
                 host=HostFacts(system="Darwin", chip="Apple M2", hw_arm64=True), redacted=True)
    s.unknown = [name for name in KNOWABLE if name != "chip"]
    return s


def test_a_partial_snapshot_takes_the_facts_it_declares_unknown_and_is_diagnosed_by_them():
    before = _m2_only()
    assert diagnose(before).diagnosis() is None  # the Mac alone tells nothing
    done = complete(before, CONDA_INFO)
    py = done.snapshot.python
    assert py is not None and py.process_arch == "x86_64" and py.translated is True
    assert done.snapshot.host.macos_version == "13.5.2"
    assert "python-arch" not in done.snapshot.unknown and "macos" not in done.snapshot.unknown
    assert diagnose(done.snapshot).diagnosis().code == codes.ARCH_ROSETTA
    taken = {f.name: f for f in done.taken}
    assert taken["python_arch"].value == "x86_64" and taken["python_arch"].line > 0
    assert taken["macos_version"].how == "read"
    assert before.python is None and "python-arch" in before.unknown  # the input is not changed


def test_only_what_the_snapshot_declares_unknown_is_taken():
    """The package list stays the snapshot's (a listing in a text may be another environment's),
    and so does every field it does not declare unknown."""
    done = complete(_m2_only(), CONDA_INFO)
    assert done.snapshot.packages == [] and "packages" in done.snapshot.unknown
    assert done.snapshot.python.version == "" and done.snapshot.python.conda is None
    assert {f.name for f in done.taken} <= {"python_arch", "translated", "macos_version",
                                             "macos_version_reported"}
    listing = ("```\nPackage          Version\n---------------- -------\ntensorflow       2.15.0\n"
               "tensorflow-metal 1.1.0\n```\n")
    assert complete(_m2_only(), listing).taken == []


def test_what_the_snapshot_knows_outranks_what_the_text_says():
    s = _m2_only()
    s.python = PythonFacts(version="3.11.5", implementation="CPython", executable="/opt/py/bin/python3",
                           process_arch="arm64", translated=False)
    s.unknown = [name for name in s.unknown if name != "python-arch"]
    done = complete(s, CONDA_INFO)
    assert done.snapshot.python.process_arch == "arm64" and done.snapshot.python.translated is False
    assert done.snapshot.python.executable == "/opt/py/bin/python3"
    assert "python_arch" not in {f.name for f in done.taken}
    assert done.snapshot.host.chip == "Apple M2"


def test_a_whole_snapshot_takes_nothing():
    whole = snap(apple_silicon())
    assert whole.unknown == []
    done = complete(whole, CONDA_INFO)
    assert done.snapshot is whole and done.taken == []


def test_a_linux_snapshot_takes_no_mac_facts():
    s = Snapshot(target=TargetOutcome(python="python3", ok=True), host=HostFacts(system="Linux"))
    s.unknown = ["packages", "python-arch", "python-binary", "plugins"]
    done = complete(s, CONDA_INFO)
    assert done.snapshot.host.macos_version is None and done.snapshot.host.chip is None
    assert done.snapshot.host.hw_arm64 is None


def test_a_strangers_paths_are_redacted_where_they_are_taken():
    s = _m2_only()
    s.unknown.append("chip")
    s.host.chip = None
    text = "I'm on /Users/lee/src with Apple M2 Max, `file $(which python3)`:\n" \
           "/Users/lee/miniforge3/bin/python3: Mach-O 64-bit executable arm64\n"
    done = complete(s, text)
    assert done.snapshot.python.binary.archs == ["arm64"]
    assert "/Users/lee" not in json.dumps(done.snapshot.to_dict())
    assert all("/Users/lee" not in f.value for f in done.taken)


def test_odd_bytes_and_an_empty_text_take_nothing():
    assert complete(_m2_only(), "").taken == []
    done = complete(_m2_only(), "\x00\x1b[31m\udcff" * 1000)
    assert done.taken == [] and done.snapshot.python is None


def test_diagnose_with_a_pasted_text_shows_and_uses_what_it_took(tmp_path):
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(_m2_only().to_dict()))
    log = tmp_path / "report.md"
    log.write_text(CONDA_INFO)
    run = run_tfdoctor("diagnose", str(path), "--log", str(log), "--json")
    doc = json.loads(run.stdout)
    assert doc["diagnosis"]["code"] == codes.ARCH_ROSETTA
    arch = next(f for f in doc["from_text"] if f["name"] == "python_arch")
    assert arch["value"] == "x86_64" and arch["line"] > 0
    assert doc["snapshot"]["python"]["process_arch"] == "x86_64"
    stdin = run_tfdoctor("diagnose", str(path), "--log", "-", stdin=CONDA_INFO)
    assert "from the pasted text" in stdin.stdout and "python_arch=x86_64" in stdin.stdout
    assert "arch.rosetta" in stdin.stdout


def test_a_log_that_is_no_file_is_said_and_never_waited_for(tmp_path):
    """A FIFO (or a terminal) as --log would block a read for the facts: the log's own reading says
    it is no regular file, and the text is not opened (tests/hostile/test_fuzz.py found this kind
    of hang for `check --log`)."""
    import os

    path = tmp_path / "partial.json"
    path.write_text(json.dumps(_m2_only().to_dict()))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    run = run_tfdoctor("diagnose", str(path), "--log", str(fifo), "--json", timeout=60)
    doc = json.loads(run.stdout)
    assert doc["diagnosis"]["code"] == "log.unreadable" and doc["from_text"] == []
