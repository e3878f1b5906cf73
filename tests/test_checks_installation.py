"""Installation and binary-consistency checks on snapshots built from registry facts
(../shared/reference/tf_wheels_2026-11.json gives the Requires-Dist quoted here)."""

from __future__ import annotations

from snapshots import _pkg, apple_silicon, linux_cpu, metal_plugin, snap
from tfdoctor.checks import binaries, installation
from tfdoctor.model import Severity


def test_one_tensorflow_is_ok():
    (finding,) = installation.run(snap(apple_silicon()))
    assert finding.code == "install.ok" and "tensorflow 2.19.1" in finding.title


def test_tensorflow_and_tensorflow_macos_both_installed():
    """tensorflow-macos 2.12.0 (full build) left behind, then tensorflow 2.19.1 installed over it."""
    data = apple_silicon()
    data["packages"].append(_pkg("tensorflow-macos", "2.12.0", ["cp311-cp311-macosx_12_0_arm64"],
                                 ["numpy<1.24,>=1.22"]))
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.multiple-tensorflow" and finding.severity is Severity.ERROR
    assert finding.evidence["providers"] == {"tensorflow": "2.19.1", "tensorflow-macos": "2.12.0"}
    uninstall = finding.remediation.commands[0]
    assert uninstall.endswith("-m pip uninstall -y tensorflow tensorflow-macos")


def test_tensorflow_macos_216_shim_is_not_a_second_tensorflow():
    """tensorflow-macos 2.16.2 Requires-Dist: 'tensorflow ==2.16.2 ; platform_system == "Darwin"
    and platform_machine == "arm64"' (reference records): a shim, not a second copy."""
    data = apple_silicon(packages=[
        _pkg("tensorflow", "2.16.2", ["cp311-cp311-macosx_12_0_arm64"]),
        _pkg("tensorflow-macos", "2.16.2", ["cp311-cp311-macosx_12_0_arm64"],
             ['tensorflow ==2.16.2 ; platform_system == "Darwin" and platform_machine == "arm64"']),
    ])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.ok"
    assert finding.evidence["tensorflow_distributions"] == {"tensorflow": "2.16.2", "tensorflow-macos": "2.16.2"}


def test_metal_without_tensorflow():
    data = apple_silicon(packages=[p for p in apple_silicon()["packages"] if p["name"] != "tensorflow"])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.metal-without-tensorflow"
    assert finding.evidence["tensorflow_metal"] == "1.2.0"
    assert "tensorflow" in " ".join(finding.remediation.commands)


def test_no_tensorflow_on_linux_gives_install_command():
    data = linux_cpu(packages=[])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.no-tensorflow"
    assert finding.remediation.commands == ("/usr/bin/python3 -m pip install tensorflow",)


def _with_binary(pkg: dict, path: str, fmt: str, archs: list[str]) -> dict:
    return {**pkg, "binaries": [{"path": path, "format": fmt, "archs": archs}]}


def test_x86_64_wheel_in_arm64_environment():
    """numpy's extension module is an x86_64 Mach-O (a pip run under Rosetta filled the env)."""
    data = apple_silicon()
    data["packages"].append(_with_binary(
        _pkg("numpy", "1.26.4", ["cp311-cp311-macosx_10_9_x86_64"]),
        "numpy/core/_multiarray_umath.cpython-311-darwin.so", "mach-o", ["x86_64"]))
    findings = binaries.run(snap(data))
    assert [f.code for f in findings] == ["arch.wheel-mismatch"]
    assert findings[0].evidence["packages"][0]["name"] == "numpy"
    assert "--force-reinstall" in findings[0].remediation.commands[0]


def test_wheel_tag_lines_alone_are_not_trusted():
    """tensorflow-macos 2.12.0's arm64 wheel says 'Tag: ...macosx_12_0_x86_64' inside WHEEL
    (reference contradictions_and_surprises); its libraries are arm64, so nothing is wrong."""
    data = apple_silicon()
    data["packages"].append(_with_binary(
        _pkg("tensorflow-macos", "2.12.0", ["cp311-cp311-macosx_12_0_x86_64"]),
        "tensorflow/python/_pywrap_tensorflow_internal.so", "mach-o", ["arm64"]))
    assert [f.code for f in binaries.run(snap(data))] == ["arch.binaries-match"]


def test_universal2_and_pure_wheels_fit_both_arches():
    data = apple_silicon()
    data["packages"] += [_with_binary(_pkg("markupsafe", "3.0.2", ["cp311-cp311-macosx_10_9_universal2"]),
                                      "markupsafe/_speedups.cpython-311-darwin.so", "mach-o-fat",
                                      ["x86_64", "arm64"]),
                         _pkg("six", "1.16.0", ["py2-none-any", "py3-none-any"])]
    assert [f.code for f in binaries.run(snap(data))] == ["arch.binaries-match"]


def test_x86_64_metal_plugin_in_arm64_python():
    """tensorflow-metal 1.0.0's macosx_12_0_x86_64 wheel ships an x86_64 libmetal_plugin.dylib
    (tests/data/binheads)."""
    findings = binaries.run(snap(apple_silicon(plugins=[metal_plugin(arch="x86_64")])))
    assert [f.code for f in findings] == ["arch.plugin-mismatch"]
    assert "runtime.plugin-load-failed" in findings[0].explains


def test_elf_file_in_mac_plugin_dir():
    findings = binaries.run(snap(apple_silicon(plugins=[{**metal_plugin(), "format": "elf", "archs": ["arm64"]}])))
    assert findings[0].code == "arch.plugin-mismatch"


# tensorflow_macos-2.15.1-cp311-cp311-macosx_12_0_arm64.whl: 2159 bytes, Requires-Dist (extras
# dropped) from ../shared/reference/tf_wheels_2026-11.json records; compat_matrix.json gives its
# arm64 wheels kind "self-shim" (known_quirks tensorflow-macos-2.15.1-self-shim).
TF_MACOS_2_15_1 = [
    'tensorflow-macos ==2.15.1 ; platform_system == "Darwin" and platform_machine == "arm64"',
    'tensorflow-cpu-aws ==2.15.1 ; platform_system == "Linux" and (platform_machine == "arm64" or platform_machine == "aarch64")',
    'tensorflow-intel ==2.15.1 ; platform_system == "Windows"',
]
ARM64_311 = ["cp311-cp311-macosx_12_0_arm64"]


def test_tensorflow_macos_2_15_1_alone_is_a_self_shim():
    data = apple_silicon(packages=[_pkg("tensorflow-macos", "2.15.1", ARM64_311, TF_MACOS_2_15_1)], plugins=[])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.self-shim" and finding.severity is Severity.ERROR
    (why,) = finding.evidence["self_shims"]
    assert why["matrix_kind"] == "self-shim" and why["requires_itself"] == [
        'tensorflow-macos==2.15.1; platform_system == "Darwin" and platform_machine == "arm64"']
    assert finding.remediation.commands == (
        "/Users/ada/venvs/tf/bin/python -m pip uninstall -y tensorflow-macos",
        "/Users/ada/venvs/tf/bin/python -m pip install 'tensorflow==2.19.*' tensorflow-metal==1.2.0")
    assert "runtime.not-installed" in finding.explains
    assert installation.providers(snap(data)) == ([], [])


def test_self_shim_is_known_from_the_matrix_without_metadata():
    """Unreadable METADATA (no Requires-Dist): the matrix's wheel kind alone identifies it."""
    data = apple_silicon(packages=[_pkg("tensorflow-macos", "2.15.1", ARM64_311)])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.self-shim"
    assert "requires_itself" not in finding.evidence["self_shims"][0]


def test_self_shim_is_known_from_metadata_for_a_release_the_matrix_lacks():
    """A release newer than the matrix that, like 2.15.1, requires only itself on Darwin/arm64."""
    requires = [r.replace("2.15.1", "2.15.9") for r in TF_MACOS_2_15_1]
    data = apple_silicon(packages=[_pkg("tensorflow-macos", "2.15.9", ARM64_311, requires)])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.self-shim"
    assert "matrix_kind" not in finding.evidence["self_shims"][0]


def test_full_tensorflow_macos_2_15_0_is_not_a_self_shim():
    data = apple_silicon(packages=[_pkg("tensorflow-macos", "2.15.0", ARM64_311, ["numpy (<2.0.0,>=1.23.5)"])])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.ok" and "self_shims" not in finding.evidence


def test_thin_tensorflow_onto_an_upgraded_self_shim_installs_nothing():
    """tensorflow 2.15.0's arm64 wheel requires tensorflow-macos ==2.15.0 (reference records);
    `pip install -U tensorflow-macos` then replaces that with the 2.15.1 self-shim."""
    data = apple_silicon(packages=[
        _pkg("tensorflow", "2.15.0", ARM64_311,
             ['tensorflow-macos ==2.15.0 ; platform_system == "Darwin" and platform_machine == "arm64"']),
        _pkg("tensorflow-macos", "2.15.1", ARM64_311, TF_MACOS_2_15_1)])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.self-shim"
    assert finding.evidence["shims_onto_it"] == {"tensorflow": "2.15.0"}
    assert finding.remediation.commands[0].endswith("pip uninstall -y tensorflow tensorflow-macos")


def test_self_shim_beside_a_real_tensorflow_is_harmless():
    """tensorflow 2.15.1's arm64 wheel is a full build (reference: pins, no shim requirement)."""
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.1", ARM64_311, ["numpy (<2.0.0,>=1.23.5)"]),
                                   _pkg("tensorflow-macos", "2.15.1", ARM64_311, TF_MACOS_2_15_1)])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.ok" and finding.title == "tensorflow 2.15.1"
    assert finding.evidence["self_shims"] == {"tensorflow-macos": "2.15.1"}


def test_rosetta_python_without_tensorflow_is_offered_the_arm64_pair():
    """The fix for a translated Python is an arm64 one; the install advice must match it, not
    the x86_64 pair (tensorflow 2.13 + metal 1.0.0) that would only work under Rosetta."""
    data = apple_silicon(packages=[], python={"process_arch": "x86_64", "translated": True})
    (finding,) = installation.run(snap(data))
    assert "tensorflow-metal==1.2.0" in finding.remediation.commands[0]


def test_unreadable_macos_version_does_not_crash_the_advice():
    data = apple_silicon(packages=[], host={"macos_version": ":"})
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.no-tensorflow" and finding.remediation.commands


def test_intel_mac_upgrade_to_tensorflow_213_is_two_tensorflows():
    """tensorflow-macos 2.12 was the last x86_64 release; `pip install tensorflow==2.13` on an
    Intel Mac adds the full official wheel. Its Requires-Dist names tensorflow-macos only for
    Darwin/arm64 (reference records), so on x86_64 it is a second TensorFlow, not a shim."""
    data = apple_silicon(
        host={"hw_arm64": False, "chip": "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"},
        python={"process_arch": "x86_64", "translated": False},
        packages=[_pkg("tensorflow-macos", "2.12.0", ["cp310-cp310-macosx_10_15_x86_64"]),
                  _pkg("tensorflow", "2.13.0", ["cp310-cp310-macosx_10_15_x86_64"],
                       ['tensorflow-macos ==2.13.0 ; platform_system == "Darwin" and platform_machine == "arm64"'])])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.multiple-tensorflow"
