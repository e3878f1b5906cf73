"""The arch.* rules on installed binaries (checks/arch_binaries.py): headers read from RECORD,
not WHEEL tags, decide; snapshots from registry facts (tests/data/binheads/SOURCES.md)."""

from __future__ import annotations

from snapshots import RuleModules, _pkg, apple_silicon, metal_plugin, snap

binaries = RuleModules("arch_binaries")


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


def _with_log(data: dict, name: str):
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    s = snap(data)
    s.log = keep.read(LOGS / name, identity=WHO)
    return s


def test_a_foreign_wheel_explains_the_users_error_about_its_own_binary():
    """The error the user brought (tensorflow/tensorflow#57483) names the x86_64 library this
    finding found: the wheel is the cause, the error its consequence."""
    data = apple_silicon()
    data["packages"].append(_with_binary(
        _pkg("tensorflow", "2.10.0", ["cp310-cp310-macosx_10_14_x86_64"]),
        "tensorflow/python/_pywrap_tensorflow.so", "mach-o", ["x86_64"]))
    (f,) = binaries.run(_with_log(data, "arch_incompatible_pywrap.txt"))
    assert f.code == "arch.wheel-mismatch" and "log.arch-mismatch" in f.explains


def test_a_foreign_wheel_does_not_explain_an_error_about_another_packages_binary():
    data = apple_silicon()
    data["packages"].append(_with_binary(
        _pkg("numpy", "1.26.4", ["cp311-cp311-macosx_10_9_x86_64"]),
        "numpy/core/_multiarray_umath.cpython-311-darwin.so", "mach-o", ["x86_64"]))
    (f,) = binaries.run(_with_log(data, "arch_incompatible_pywrap.txt"))
    assert f.code == "arch.wheel-mismatch" and "log.arch-mismatch" not in f.explains
