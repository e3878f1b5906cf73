"""tfdoctor/facts/written_versions.py and its use when a snapshot is loaded: versions as the
bug reports the blind corpora and the seeds quote them write them ("2.6.0 (conda-forge)", "tf2.4
for mac", "0.1 alpha"), read as the version they name; a version only asked for is not installed."""

from __future__ import annotations

import pytest

from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.written_versions import read_written


@pytest.mark.parametrize("written, version", [
    ("2.6.0 (conda-forge)", "2.6.0"),
    ("tf2.4 for mac (latest release at the time)", "2.4"),
    ("0.1 alpha (ML Compute)", "0.1a0"),
    ("0.1alpha3", "0.1alpha3"),  # PEP 440 already: as it is
    ("2.13.0 (v2.13.0-rc2-7-g1cb1a030a62)", "2.13.0"),  # tf.version.GIT_VERSION beside it: one release
    ("2.13.0.dev20230406 installs", "2.13.0.dev20230406"),
    ("3.1.0 (pinned in requirements_3.9_arm64.txt)", "3.1.0"),  # a number inside a file name is no version
    ("2.9.0, 2.9.1, 2.10.0 (2.8.0 worked)", None),  # several: none of them is the one
    ("2.11 (was 2.10 the day before)", None),
    ("installed (version not stated)", None),
    ("2.4 a fork", "2.4"),
    ("pre-release (TF r2.4rc0)", "2.4rc0"),  # a TensorFlow branch name, r2.4
])
def test_a_written_version_is_the_one_version_it_names(written, version):
    assert read_written(written).version == version and read_written(written).installed


@pytest.mark.parametrize("written", ["2.12 (requested)", "2.12 (attempted)", "requested by requirements.txt",
                                     "0.2.3 tried, failed to install"])
def test_a_version_only_asked_for_is_not_installed(written):
    assert not read_written(written).installed


def test_asked_for_and_installed_is_installed():
    assert read_written("1.2.0 requested (1.1.3 installs)").installed


@pytest.mark.parametrize("text", ["2.16.1", "1.0 ; rm -rf /", "$(reboot)"])
def test_versions_and_what_is_not_prose_are_left_as_they_are(text):
    assert read_written(text).version == text


def test_a_number_too_long_for_a_version_is_none():
    assert read_written("1" + "0" * 5000).version is None


def _hand_made(packages: dict, tfdoctor_version: str = "") -> Snapshot:
    return Snapshot.from_dict({"schema_version": 1, "tfdoctor_version": tfdoctor_version,
                               "target": {"python": "python3", "ok": True},
                               "packages": [{"name": n, "version": v} for n, v in packages.items()]})


def test_a_snapshot_written_from_a_report_reads_its_versions_as_words():
    s = _hand_made({"tensorflow": "2.6.0 (conda-forge)", "tensorflow-metal": "0.6.0", "tf-nightly": "2.12 (requested)"})
    assert [(p.name, p.version) for p in s.packages] == [("tensorflow", "2.6.0"), ("tensorflow-metal", "0.6.0")]


def test_a_snapshot_tfdoctor_gathered_keeps_what_the_metadata_said():
    s = _hand_made({"tensorflow": "2.6.0 (conda-forge)", "tf-nightly": "2.12 (requested)"}, tfdoctor_version="0.1.0")
    assert [p.version for p in s.packages] == ["2.6.0 (conda-forge)", "2.12 (requested)"]


def test_apple_s_fork_named_by_its_repository_or_framework_is_the_fork():
    """Reports name Apple's 2020-21 fork by where it came from or what it runs on, not by its wheel's
    number: "tensorflow (apple/tensorflow_macos)", "Apple ML Compute fork (Nov 2020 release)". That
    is the fork's distribution at the TensorFlow it says it is (2.4.0rc0), or the version written
    where that is one of the fork's; a plugin-era number beside such words is not believed."""
    s = _hand_made({"tensorflow (apple/tensorflow_macos)": "2.4.0-rc0",
                    "tensorflow_macos": "Apple ML Compute fork (Nov 2020 release)",
                    "tensorflow-macos": "0.1 alpha (ML Compute)", "tensorflow-metal": "0.1.0 (ML Compute era)"})
    assert [(p.key, p.version) for p in s.packages] == [
        ("tensorflow-macos", "2.4.0-rc0"), ("tensorflow-macos", "2.4.0rc0"), ("tensorflow-macos", "0.1a0"),
        ("tensorflow-metal", "0.1.0")]
    assert [(p.key, p.version) for p in _hand_made({"tensorflow-macos": "2.9.0 (not the ML Compute fork)"}).packages] \
        == [("tensorflow-macos", "2.4.0rc0")]


def test_the_fork_as_written_is_the_fork_the_knowledge_knows():
    from packaging.version import Version

    from tfdoctor.facts.written_versions import FORK_AS_WRITTEN, PLUGIN_ERA
    from tfdoctor.knowledge import eras

    assert FORK_AS_WRITTEN == (eras.FORK_PACKAGE, eras.FORK_BASE)
    assert Version(PLUGIN_ERA) == Version(eras.PLUGIN_ERA_FROM)


def test_a_specifier_admits_a_floor_only_where_its_upper_bounds_leave_room():
    from tfdoctor.facts.versions import admits_from

    assert not admits_from("~=1.19.2", "1.24") and not admits_from(">=1.16.0,<1.19.0", "1.24")
    assert not admits_from("<2.0.0,>=1.23.5", "2.0") and not admits_from("==1.19.*", "1.24")
    assert not admits_from("<=1.23.5", "1.24") and not admits_from("==1.23.5", "1.24")
    assert admits_from(">=1.23.5", "2.0") and admits_from("<2.2,>=1.26", "2.0") and admits_from("~=1.26", "1.24")
    assert admits_from("~=1.19.2", "1.19") and admits_from("not a specifier", "1.24")
