"""tfdoctor.triage.snapshot: a report's facts as a Snapshot, holding what the report states and
listing in `unknown` every KNOWABLE fact it does not settle; nothing invented."""

from __future__ import annotations

from pathlib import Path

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.unknown import KNOWABLE
from tfdoctor.triage.facts import read_report
from tfdoctor.triage.snapshot import to_snapshot

DATA = Path(__file__).resolve().parents[1] / "data" / "triage"


def test_an_empty_report_knows_nothing():
    snapshot = to_snapshot(read_report("It does not work. Help!"))
    assert snapshot.unknown == list(KNOWABLE)
    assert snapshot.python is None and snapshot.packages == []
    assert snapshot.target.python == "python3" and snapshot.target.ok is True
    assert snapshot.host.system == "" and snapshot.host.hw_arm64 is None


def test_a_tensorflow_version_without_a_distribution_becomes_tensorflow_and_says_so():
    report = read_report("TensorFlow 2.12.0 on macOS 13.1")
    snapshot = to_snapshot(report)
    assert [(p.name, p.version) for p in snapshot.packages] == [("tensorflow", "2.12.0")]
    assert any("without its distribution" in note for note in report.notes)


def test_a_named_distribution_or_a_whole_listing_keeps_the_bare_version_out():
    named = to_snapshot(read_report("TensorFlow 2.12.0, tensorflow-macos 2.12.0"))
    assert [p.name for p in named.packages] == ["tensorflow-macos"]
    listing = read_report("TensorFlow 2.12\n\n```\nPackage Version\n------- -------\nnumpy   1.24.3\n```")
    assert [p.name for p in to_snapshot(listing).packages] == ["numpy"]
    assert not any("without its distribution" in note for note in listing.notes)


def test_a_whole_listing_is_the_truth_about_what_is_installed():
    text = ("I installed tensorflow-metal 1.0.1 too.\n\n```\nPackage          Version\n"
            "---------------- -------\ntensorflow-macos 2.13.0\n```")
    snapshot = to_snapshot(read_report(text))
    assert [(p.name, p.version) for p in snapshot.packages] == [("tensorflow-macos", "2.13.0")]
    assert "packages" not in snapshot.unknown


def test_a_belief_about_the_architecture_does_not_settle_it():
    snapshot = to_snapshot(read_report("M1 Max, native arm64 Python 3.11"))
    assert snapshot.python.process_arch == "" and "python-arch" in snapshot.unknown
    assert snapshot.host.chip == "Apple M1 Max" and snapshot.host.hw_arm64 is True


def test_quoted_facts_stay_out_of_the_reporters_snapshot():
    snapshot = to_snapshot(read_report((DATA / "quoted_reply.md").read_text()))
    assert snapshot.host.chip == "Apple M2" and snapshot.host.macos_version == "13.4"
    assert snapshot.python.version == "3.11.4"


def test_the_rosetta_conda_becomes_an_osx_64_conda_environment():
    snapshot = to_snapshot(read_report((DATA / "conda_info_osx64_on_m2.md").read_text()))
    conda = snapshot.python.conda
    assert (conda.subdir, conda.prefix, conda.root) == ("osx-64", "/Users/<user>/anaconda3", "/Users/<user>/anaconda3")
    assert {(p.name, p.channel) for p in conda.packages} >= {("tensorflow", "pypi"), ("bzip2", None)}
    assert snapshot.python.process_arch == "x86_64" and snapshot.python.translated is True
    assert "arch.conda-osx-64" in {f.code for f in diagnose(snapshot).findings}


def test_the_interpreter_path_becomes_the_target():
    snapshot = to_snapshot(read_report((DATA / "rosetta_terminal_session.md").read_text()))
    assert snapshot.target.python == "/usr/local/bin/python3"
    assert snapshot.python.binary.archs == ["x86_64"] and "python-binary" not in snapshot.unknown


def test_a_linux_report_has_no_macos_or_chip_to_ask_for():
    snapshot = to_snapshot(read_report((DATA / "docker_amd64_on_arm.md").read_text()))
    assert snapshot.host.system == "Linux" and snapshot.host.container == "docker"
    assert "macos" not in snapshot.unknown and "chip" not in snapshot.unknown


def test_a_version_is_completed_by_a_longer_one_that_agrees():
    text = ("Python 3.11.4 on macOS 14\n```\n  Downloading tensorflow-2.15.0-cp311-cp311-macosx_10_15_x86_64.whl (239 MB)\n```\n"
            "```\nProductVersion: 14.2.1\n```\n")
    snapshot = to_snapshot(read_report(text))
    assert snapshot.python.version == "3.11.4" and snapshot.host.macos_version == "14.2.1"


def test_a_report_snapshot_learns_from_its_text_only_what_it_does_not_know():
    from tfdoctor.triage.snapshot import complete

    partial = to_snapshot(read_report("MacBook Air M2, macOS 13.4"))  # the report's fields: no Python facts
    assert "python-arch" in partial.unknown and partial.host.chip == "Apple M2"
    told = read_report("M1 Pro here\n$ conda env config vars set CONDA_SUBDIR=osx-64\n")
    assert complete(partial, told) == ["python-arch"]
    assert partial.python.process_arch == "x86_64" and partial.python.conda.subdir == "osx-64"
    assert partial.host.chip == "Apple M2" and "python-arch" not in partial.unknown  # known facts stay
    assert diagnose(partial).diagnosis().code == "arch.conda-osx-64"


def test_a_gathered_snapshot_is_not_completed_from_a_text():
    from tfdoctor.triage.snapshot import complete

    collected = to_snapshot(read_report("M1, macOS 14.2, python 3.11"))
    collected.python.process_arch, collected.unknown = "arm64", []  # as tfdoctor collect writes it
    assert complete(collected, read_report("$ conda env config vars set CONDA_SUBDIR=osx-64\n")) == []
    assert collected.python.process_arch == "arm64"
