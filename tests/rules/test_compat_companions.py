"""checks/compat_companions.py: a companion with compiled ops built for another TensorFlow, judged
from compat_matrix.json `companion_pins` (each release's METADATA Requires-Dist as read from the
registry's wheels by tools/companion_pins.py), so a report that only names versions is enough."""

from __future__ import annotations

from snapshots import RuleModules, _pkg, apple_silicon, snap

from tfdoctor.knowledge import companions
from tfdoctor.model import Severity

check = RuleModules("compat_companions")
ARM = ["cp311-cp311-macosx_12_0_arm64"]


def mac(*packages: tuple[str, str]) -> list:
    """What a report states: names and versions, no METADATA (requires_dist unknown)."""
    return check.run(snap(apple_silicon(packages=[_pkg(n, v, ARM) for n, v in packages])))


def test_tensorflow_text_built_for_the_previous_minor_is_the_cause_and_names_the_release_that_fits():
    (f,) = mac(("tensorflow", "2.16.1"), ("tensorflow-text", "2.15.0"))
    assert f.code == "compat.companion-built-for" and f.severity is Severity.ERROR
    assert f.title.startswith("tensorflow-text 2.15.0 is built for TensorFlow <2.16,>=2.15.0; 2.16.1 is installed")
    assert f.remediation.commands[-1].endswith("tensorflow-text==2.16.1")


def test_a_release_stated_without_its_patch_is_the_registrys_release():
    # "tensorflow 2.7 and tensorflow-io 0.21" (tensorflow/io#1554): the registry's 0.21.0
    (f,) = mac(("tensorflow", "2.7"), ("tensorflow-io", "0.21"))
    assert f.code == "compat.companion-built-for" and "built for TensorFlow <2.7.0,>=2.6.0; 2.7 is installed" in f.title
    assert companions.built_for("tensorflow-io", "0.21").tensorflow == companions.built_for("tensorflow-io", "0.21.0").tensorflow


def test_a_companion_with_no_release_for_this_tensorflow_says_so_and_moves_nothing():
    (f,) = mac(("tensorflow", "2.19.1"), ("tensorflow-io", "0.37.1"))
    assert "built for TensorFlow <2.17.0,>=2.16.0" in f.title
    assert f.remediation.commands == () and "No tensorflow-io release is built for TensorFlow 2.19.1" in f.remediation.text


def test_companions_built_for_the_installed_tensorflow_are_quiet():
    assert mac(("tensorflow", "2.19.0"), ("tensorflow-decision-forests", "1.12.0")) == []
    assert mac(("tensorflow", "2.15.1"), ("tensorflow-text", "2.15.0")) == []
    assert mac(("tensorflow-text", "2.15.0")) == []  # no TensorFlow stated: nothing to compare


def test_tensorflow_addons_custom_ops_are_built_for_one_minor_its_python_ops_for_more():
    # tensorflow_addons/utils/resource_loader.py of 0.20.0: ABI compatibility >=2.12.0,<2.13.0
    (f,) = mac(("tensorflow", "2.15.0"), ("tensorflow-addons", "0.20.0"))
    assert f.severity is Severity.WARNING and "its Python ops still run" in f.title
    assert f.evidence["source"].endswith("tensorflow_addons/utils/resource_loader.py")
    assert f.remediation.commands[-1].endswith("tensorflow-addons==0.23.0")
    assert mac(("tensorflow", "2.15.1"), ("tensorflow-addons", "0.23.0")) == []
    assert mac(("tensorflow", "2.2.0"), ("tensorflow-addons", "0.8.3")) == []  # 0.8 names no range: no claim


def test_tensorflow_probability_refuses_a_tensorflow_older_than_its_import_check_requires():
    """TFP's METADATA names no TensorFlow; its _ensure_tf_install does (required_tensorflow_version,
    read from each wheel: 0.25.0 needs 2.18, 0.24.0 needs 2.16), as GPflow's users met it with
    tensorflow-macos 2.16.2, the last tensorflow-macos."""
    (f,) = mac(("tensorflow-macos", "2.16.2"), ("tensorflow-probability", "0.25.0"))
    assert f.severity is Severity.ERROR and f.title == (
        "tensorflow-probability 0.25.0 requires TensorFlow >=2.18 when imported; 2.16.2 is installed: "
        "it refuses to import")
    assert f.remediation.commands[-1].endswith("tensorflow-probability==0.24.0")
    assert f.evidence["source"].endswith("tensorflow_probability/python/__init__.py")
    assert mac(("tensorflow", "2.16.1"), ("tensorflow-probability", "0.24.0")) == []
    assert mac(("tensorflow", "2.19.0"), ("tensorflow-probability", "0.23.0")) == []  # a floor only


def test_a_nightly_or_candidate_is_its_release_line():
    # a tf-nightly 2.2.0.dev is the 2.2 line, outside tensorflow-addons 0.9's >=2.1.0,<2.2.0
    assert not companions.built_for("tensorflow-addons", "0.9.1").fits("2.2.0.dev20200310")
    assert companions.built_for("tensorflow-text", "2.15.0").fits("2.15.0rc1")


def test_the_pins_section_says_where_it_was_read_and_covers_every_release():
    from tfdoctor.knowledge.kernels import bundled_section

    section = bundled_section(companions.SECTION)
    assert section["read_on"] >= "2026-11-27" and "METADATA" in section["source"]
    assert set(companions.packages()) == {"tensorflow-text", "tensorflow-io", "tensorflow-decision-forests",
                                          "tensorflow-addons", "tensorflow-probability"}
    assert str(companions.built_for("tensorflow-io", "0.37.1").tensorflow) == "<2.17.0,>=2.16.0"  # its extra
    assert companions.built_for("tensorflow-decision-forests", "1.12.0").fits("2.19.0")


def test_the_tool_keeps_only_tensorflows_requirements_and_prefers_a_mac_wheel():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import companion_pins

    kept = [r for r in ("tensorflow<2.21,>=2.20.0", "tensorflow-datasets>=3.2.0; extra == \"tests\"",
                        "tensorflow-io-gcs-filesystem ==0.37.1", "tensorflow-macos (~=2.13.0)", "tf-keras ~=2.16")
            if companion_pins._TENSORFLOW.match(r)]
    assert kept == ["tensorflow<2.21,>=2.20.0", "tensorflow-macos (~=2.13.0)", "tf-keras ~=2.16"]
    files = [{"filename": n} for n in ("tensorflow_text-2.15.0-cp311-cp311-manylinux_2_17_x86_64.whl",
                                       "tensorflow_text-2.15.0-cp311-cp311-macosx_10_9_x86_64.whl",
                                       "tensorflow_text-2.15.0-cp311-cp311-macosx_11_0_arm64.whl")]
    assert companion_pins.wheel_of(files, "2.15.0")["filename"].endswith("macosx_11_0_arm64.whl")


def test_the_tool_reads_tensorflow_addons_abi_range_from_its_code():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import companion_pins

    # tensorflow_addons/utils/resource_loader.py, 0.9.1 and (with the bounds' kind named) later
    assert companion_pins.abi_requirement('MIN_TF_VERSION_FOR_ABI_COMPATIBILITY = "2.1.0"\n'
                                          'MAX_TF_VERSION_FOR_ABI_COMPATIBILITY = "2.2.0"\n') == "tensorflow>=2.1.0,<2.2.0"
    assert companion_pins.abi_requirement('INCLUSIVE_MIN_TF_VERSION_FOR_ABI_COMPATIBILITY = "2.15.0"\n'
                                          'EXCLUSIVE_MAX_TF_VERSION_FOR_ABI_COMPATIBILITY = "2.16.0"\n') == "tensorflow>=2.15.0,<2.16.0"
    assert companion_pins.abi_requirement('MIN_TF_VERSION = "2.3.0"\nMAX_TF_VERSION = "2.5.0"\n') is None


def test_the_tool_reads_tensorflow_probabilitys_import_check():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    import companion_pins

    # tensorflow_probability/python/__init__.py of 0.25.0, as in the wheel: the commented line is not it
    code = ("def _ensure_tf_install():\n  required_tensorflow_version = '2.18'\n"
            "#   required_tensorflow_version = '1.15'  # Needed internally -- DisableOnExport\n")
    assert companion_pins.import_requirement(code) == "tensorflow>=2.18"
    assert companion_pins.import_requirement('  required_tensorflow_version = "1.14"\n') == "tensorflow>=1.14"
    assert companion_pins.import_requirement("#   required_tensorflow_version = '1.15'\n") is None
