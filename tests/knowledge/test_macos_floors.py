"""compat_matrix.json `macos_floors` (tools/macos_floors.py): the macOS every TensorFlow wheel for
macOS needs, from its platform tag and from its binaries' LC_BUILD_VERSION, held against the
reference wheel facts (../shared/reference/tf_wheels_2026-11.json) and against the binaries read
by tools/binary_facts.py (`metal_load_check.tensorflow_min_macos`) wherever both speak."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tfdoctor.knowledge import macos_floors

REPO = Path(__file__).resolve().parents[2]
REFERENCE_PATH = REPO.parent / "shared" / "reference" / "tf_wheels_2026-11.json"
sys.path.insert(0, str(REPO / "tools"))

import macos_floors as tool


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return json.loads((REPO / "compat_matrix.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def ref() -> dict[str, Any]:
    if not REFERENCE_PATH.is_file():
        pytest.skip(f"reference dataset not found at {REFERENCE_PATH} (shared/ is cloned beside the repo in CI)")
    return json.loads(REFERENCE_PATH.read_text(encoding="utf-8"))


def rows(raw: dict[str, Any], package: str, version: str, arch: str) -> list[dict[str, Any]]:
    return raw["macos_floors"]["releases"].get(package, {}).get(version, {}).get(arch, [])


def test_the_section_says_where_and_when_its_facts_were_read(raw):
    section = raw["macos_floors"]
    assert section["read_on"] >= "2026-11-21" and "registry" in section["source"]
    assert "LC_BUILD_VERSION" in section["about"]


def test_every_release_since_tensorflow_1_has_a_floor_on_intel_macs(raw):
    """TensorFlow published macOS wheels for x86_64 from 0.12 to 2.16 (every minor between)."""
    versions = raw["macos_floors"]["releases"]["tensorflow"]
    minors = {".".join(v.split(".")[:2]) for v, arches in versions.items() if arches.get("x86_64")}
    for minor in ["0.12"] + [f"1.{n}" for n in range(16)] + [f"2.{n}" for n in range(17)]:
        assert minor in minors, minor
    assert rows(raw, "tensorflow", "1.15.0", "x86_64")[0]["tag"] == "10.11"
    # cp35 is macosx_10_6_intel; cp36/cp37 carry macosx_10_6_intel.macosx_10_9_x86_64 (the higher one kept)
    assert {(r["platform_tag"], tuple(r["python"])) for r in rows(raw, "tensorflow", "2.0.1", "x86_64")} == {
        ("macosx_10_6_intel", ("cp35",)), ("macosx_10_9_x86_64", ("cp36", "cp37"))}
    assert rows(raw, "tensorflow-gpu", "1.1.0", "x86_64")[0]["tag"] == "10.11"


def test_tags_and_pythons_agree_with_the_reference(ref, raw):
    """Per release: the reference's macOS platform tags and Python tags are the section's."""
    compared = 0
    for row in ref["tf_minor_table"]:
        for official in row["tensorflow_official"] or ():
            for arch in ("arm64", "x86_64"):
                theirs = official.get(f"macos_{arch}")
                if not theirs:
                    continue
                ours = rows(raw, "tensorflow", official["version"], arch)
                if "platform_tags" in theirs:  # index file names (< 2.12)
                    assert {r["platform_tag"] for r in ours} == set(theirs["platform_tags"]), official["version"]
                else:  # wheels read (2.12 on)
                    assert {r["tag"] for r in ours} == set(theirs["min_macos"]), official["version"]
                assert {p for r in ours for p in r["python"]} == set(theirs["python_tags"]), official["version"]
                compared += 1
        for macos in row["tensorflow_macos"] or ():
            for arch, theirs in macos["arches"].items():
                ours = rows(raw, "tensorflow-macos", macos["version"], arch)
                assert sorted({r["tag"] for r in ours}) == sorted(theirs["min_macos"]), macos["version"]
                assert {p for r in ours for p in r["python"]} == set(theirs["python_tags"]), macos["version"]
                compared += 1
    assert compared > 50  # every release the reference lists (2.5 on), not a handful


def test_binaries_agree_with_the_binary_facts_section(raw):
    """Two readers of the same Mach-O files, tools/binary_facts.py and tools/macos_floors.py."""
    read = raw["metal_load_check"]["tensorflow_min_macos"]
    compared = 0
    for arch, builds in read.items():
        for key, minos in builds.items():
            package, version = key.split(" ")
            assert minos in {r["binaries"] for r in rows(raw, package, version, arch)}, (arch, key)
            compared += 1
    assert compared > 100


def test_a_tag_looser_than_the_binaries_is_raised_to_them():
    """TensorFlow 2.0.1's cp36 wheel is tagged macosx_10_9 (with 10_6_intel), its libraries are
    built for 10.14; 1.0.0's tag and binaries agree on 10.11."""
    loose = macos_floors.wheel_floor("tensorflow", "2.0.1", "x86_64", "3.6")
    assert (loose.tag, loose.built_for, loose.needs) == ("10.9", "10.14", "10.14")
    agreed = macos_floors.wheel_floor("tensorflow", "1.0.0", "x86_64", "3.5")
    assert (agreed.tag, agreed.built_for, agreed.needs) == ("10.11", None, "10.11")


def test_on_apple_silicon_only_the_tag_is_a_floor():
    """tensorflow-macos 2.5.0's arm64 binaries are built for 12.0, its tag says 11.0, and it ran
    on 11.4 (tests/scenarios/healthy_m1_tfmacos250_metal011_bigsur_114.json)."""
    floor = macos_floors.wheel_floor("tensorflow-macos", "2.5.0", "arm64", "3.8")
    assert (floor.tag, floor.binaries, floor.built_for, floor.needs) == ("11.0", "12.0", None, "11.0")


def test_a_wheel_the_registry_never_served_has_no_registry_floor():
    """TomHeaven/tensorflow-osx-build#18: a TensorFlow 2.2 built by someone else, tagged macosx_10_13."""
    assert macos_floors.wheel_floor("tensorflow", "2.2.0", "x86_64", "3.7",
                                    ("cp37-cp37m-macosx_10_13_x86_64",)) is None
    served = macos_floors.wheel_floor("tensorflow", "2.2.0", "x86_64", "3.7", ("cp37-cp37m-macosx_10_11_x86_64",))
    assert served is not None and served.tag == "10.11"


def test_the_tool_reads_tags_as_pip_does():
    assert tool.tag_floor("macosx_10_6_intel") == "10.6" and tool.tag_floor("macosx_12_0_arm64") == "12.0"
    assert tool.tag_floor("manylinux2014_x86_64") is None
    wheel = tool.WheelRef("tensorflow", "2.0.1", "x86_64",
                          "tensorflow-2.0.1-cp37-cp37m-macosx_10_6_intel.macosx_10_9_x86_64.whl", "", 0)
    assert tool.arch_tags(wheel) == ["macosx_10_6_intel", "macosx_10_9_x86_64"]
    assert tool.python_tags(wheel) == ["cp37"]


def test_python_arrival_is_the_first_release_with_a_wheel_for_it():
    """tensorflow-macos's arm64 wheels start at 2.5.0 (cp38, cp39); cp311 comes with 2.12.0;
    tensorflow's arm64 wheels start at 2.13.0 with cp311 in them; no release has cp314 on x86_64."""
    late = macos_floors.python_arrival("tensorflow-macos", "cp311", "arm64")
    assert (late.first_release, late.release, late.before[0], late.before[-1]) == ("2.5.0", "2.12.0", "2.5.0", "2.11.0")
    assert macos_floors.python_arrival("tensorflow", "cp311", "arm64").before == ()
    never = macos_floors.python_arrival("tensorflow", "cp314", "x86_64")
    assert never.release is None and never.before
    assert macos_floors.python_arrival("tensorflow-gpu", "cp38", "arm64") is None



def test_the_first_release_for_an_architecture_is_the_oldest_with_its_wheel(ref):
    """Of every TensorFlow distribution, the registry's first macOS arm64 wheel is tensorflow-macos
    2.5.0 and its first x86_64 one tensorflow 0.12.0; the reference's own file lists agree."""
    assert macos_floors.first_release_for("arm64") == ("tensorflow-macos", "2.5.0")
    assert macos_floors.first_release_for("x86_64") == ("tensorflow", "0.12.0")
    assert macos_floors.first_release_for("ppc") is None
    from packaging.version import Version
    arm64 = [Version(r["version"]) for r in ref["records"] if r["package"] in macos_floors.RELEASE_PACKAGES
             and not r["is_prerelease"] and any(t.startswith("macosx_") and t.endswith("_arm64")
                                                for t in r["platform_tags"])]
    assert min(arm64) == Version("2.5.0")


def test_a_macos_below_every_release_for_a_python_names_the_one_that_asks_least():
    """Python 3.7 wheels start at 1.13.1, tagged macosx_10_11 with binaries built for 10.12 (so
    10.11 runs none); 1.4.0's cp36 binaries are
    built for 10.11. On Apple silicon Python 3.12 wheels start at 2.16.1, tagged 12.0."""
    facts = macos_floors.below_every_release("10.11.6", "3.7", "x86_64")
    assert (facts["least_demanding"], facts["needs"]) == ("tensorflow 1.13.1", "10.12")
    assert facts["by"] == "binaries built for it; wheel tag 10.11"
    assert facts["runs_on_this_macos"] == {"package": "tensorflow", "version": "1.4.0", "python": "3.6"}
    assert macos_floors.below_every_release("10.12.6", "3.7", "x86_64") is None
    arm = macos_floors.below_every_release("11.7", "3.12", "arm64")
    assert (arm["least_demanding"], arm["needs"], arm["by"]) == ("tensorflow 2.16.1", "12.0", "wheel tag")
    assert macos_floors.below_every_release("10.11.6", "3.14", "x86_64") is None  # no wheel at all: not a floor
