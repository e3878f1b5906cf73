"""compat.no-wheel-for-python, compat.no-metal, compat.macos-too-old and compat.ok
(checks/compat_platform.py): which wheels exist for this Python, architecture and macOS, and the
all-clear of the whole pairing. Snapshots are built as tests/rules/test_compat_pairing.py builds
them, from the same recorded facts (its docstring lists them: wheel tags and Python tags from
tests/data/reference/tf_wheels_2026-11.json.gz, Apple's table from the tensorflow-metal 1.2.0
METADATA, tests/facts/mac_facts.json); both rule modules run together, as the engine runs them.
"""

from __future__ import annotations

from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, merge, snap

from rules.test_compat_pairing import PIP, ROSETTA, compat, mac, one, ran_on_gpu, run
from tfdoctor.advice.installs import machine_recommendation
from tfdoctor.knowledge.matrix import load_matrix
from tfdoctor.model import Severity

architecture = RuleModules("arch_interpreter")
installation = RuleModules("install")

# ---------------------------------------------------------------------------------------------
# off macOS there is nothing to pair


def test_linux_has_no_metal_pairing_and_no_warning():
    f = one(linux_cpu())
    assert f.code == "compat.ok" and "tensorflow-cpu 2.19.1 on Linux" in f.title
    assert "macOS-only" in f.title


# ---------------------------------------------------------------------------------------------
# wheels for this Python


def test_python_3_13_has_no_metal_wheel():
    """No tensorflow-metal release has a cp313 wheel (mac_facts metal.no_wheel_past_cp312);
    tensorflow 2.20.0 has one."""
    f = one(mac("2.20.0", None, python="3.13"))
    assert f.code == "compat.no-wheel-for-python" and f.severity is Severity.ERROR
    assert f.title == "no tensorflow-metal wheel for Python 3.13 (arm64): create a Python 3.12 environment"
    assert f.remediation.commands == (
        "python3.12 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip install -- 'tensorflow==2.19.*' "
        "tensorflow-metal==1.2.0",)
    assert "runtime.no-gpu" in f.explains and "install.no-tensorflow" not in f.explains


def test_python_3_13_without_tensorflow_explains_no_tensorflow():
    s = snap(mac(None, None, python="3.13"))
    (f,) = compat.run(s)
    assert f.code == "compat.no-wheel-for-python" and "install.no-tensorflow" in f.explains
    assert "tensorflow==2.21.*" in f.remediation.text  # the CPU-only alternative, not run by a script
    assert len(f.remediation.commands) == 1
    (missing,) = installation.run(s)
    assert missing.code == "install.no-tensorflow" and not missing.remediation.commands


def test_python_3_14_has_no_tensorflow_wheel_either():
    """tensorflow 2.21.0 wheels stop at cp313 (reference records)."""
    f = one(mac(None, None, python="3.14"))
    assert f.title.startswith("no TensorFlow wheel and no tensorflow-metal wheel for Python 3.14 (arm64)")


def test_metal_1_1_0_has_no_wheel_for_python_3_12():
    """tensorflow-metal 1.1.0: cp39, cp310, cp311 only (reference); found in a 3.12 environment
    it was copied or forced there."""
    f = one(mac("2.17.1", "1.1.0", python="3.12"))
    assert f.code == "compat.no-wheel-for-python" and f.severity is Severity.WARNING
    assert f.title == "tensorflow-metal 1.1.0 has no wheel for Python 3.12 (only 3.9-3.11)"
    assert f.remediation.commands == (f"{PIP} install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0",)


def test_tensorflow_2_15_on_python_3_12_has_no_plugin():
    """`pip install -- tensorflow-metal==1.1.0` (Apple's plugin for 2.14-2.18) finds no cp312 wheel;
    only 1.2.0 has one, and it goes with 2.16.2 and 2.18.1/2.19 (reports), not with 2.15."""
    f = one(mac("2.15.0", None, python="3.12"))
    assert f.code == "compat.no-wheel-for-python" and f.severity is Severity.WARNING
    assert "tensorflow-metal 1.1.0" in f.title and "3.9-3.11 only" in f.title
    assert f.remediation.commands == (f"{PIP} install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0",)


INTEL = {"host": {"hw_arm64": False, "chip": None, "cpu_brand": "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz",
                  "cpu_flags": ["avx", "avx2"]},
         "python": {"process_arch": "x86_64", "translated": None}}


def test_intel_mac_metal_wheels_end_at_1_0_0():
    """tensorflow-metal x86_64 wheels exist for 0.1.0-1.0.0 only (reference); 1.1.0 is arm64-only."""
    data = merge(mac("2.16.2", "1.1.0"), INTEL)
    data["packages"][0]["wheel_tags"] = ["cp311-cp311-macosx_10_15_x86_64"]
    f = one(data)
    assert f.code == "compat.no-wheel-for-python" and f.severity is Severity.ERROR
    assert f.title == ("tensorflow-metal 1.1.0 has no x86_64 wheel: Intel Macs had tensorflow-metal "
                       "wheels only up to 1.0.0")
    assert f.remediation.commands == (f"{PIP} install -- 'tensorflow==2.13.*' tensorflow-metal==1.0.0",)


UNSTATED_CHIP = {"host": {"hw_arm64": None, "chip": None, "cpu_brand": None},
                 "python": {"process_arch": "", "translated": None, "binary": {"archs": []}}}
"""A report that names neither the chip nor the Python's architecture (tfdoctor diagnose of a
snapshot built from it): unknown, not an Intel Mac."""


def test_an_unstated_chip_is_not_an_intel_mac():
    """A working setup as reported: tensorflow-macos 2.15.0, tensorflow-metal 1.1.0, Python 3.10,
    no chip named. 1.1.0 has arm64 wheels only, so the Intel route's 'no x86_64 wheel' is
    no verdict for an unstated chip; one every architecture shares still stands (Python 3.13: no
    tensorflow-metal wheel on either), with the way to learn the architecture for its fix."""
    assert not [f for f in run(merge(mac("2.15.0", "1.1.0", python="3.10", dist="tensorflow-macos"), UNSTATED_CHIP))
                if f.severity in (Severity.WARNING, Severity.ERROR)]
    intel = merge(mac("2.15.0", "1.1.0", python="3.10", dist="tensorflow-macos"), INTEL)
    assert one(intel).code == "compat.no-wheel-for-python"  # stated: the Intel route holds
    f = one(merge(mac(None, None, python="3.13"), UNSTATED_CHIP))
    assert f.code == "compat.no-wheel-for-python" and "uname -m" in f.remediation.text and not f.remediation.commands


def test_intel_mac_python_3_12_moves_to_3_11():
    f = one(merge(mac(None, None, python="3.12"), INTEL))
    assert f.title == "no tensorflow-metal wheel for Python 3.12 (x86_64): create a Python 3.11 environment"
    assert f.remediation.commands == (
        "python3.11 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip install -- 'tensorflow==2.13.*' "
        "tensorflow-metal==1.0.0",)


def test_intel_mac_with_a_working_tensorflow_is_not_an_error_for_want_of_metal():
    """On an Intel Mac the Metal GPU is an option (as for compat.no-metal): an installed TensorFlow
    on a Python no tensorflow-metal wheel fits is a warning; below macOS 12, where no Python would
    bring the plugin, information. A TensorFlow before 2.5 (TomHeaven/tensorflow-osx-build#18: an
    Intel Mac on macOS 10.13.6, Homebrew Python 3.7, a custom TensorFlow 2.2 build) predates the
    plugin: no Metal finding at all (the era's own question is its wheels)."""
    data = merge(mac("2.16.1", None, python="3.12"), INTEL)
    data["packages"][0]["wheel_tags"] = ["cp312-cp312-macosx_10_15_x86_64"]
    assert one(data).severity is Severity.WARNING
    below_12 = merge(mac("2.16.2", None, python="3.12", macos="11.7"), INTEL)
    below_12["packages"][0]["wheel_tags"] = ["cp312-cp312-macosx_10_15_x86_64"]
    f = one(below_12)
    assert f.severity is Severity.INFO and "tensorflow-metal needs macOS 12, this Mac runs 11.7" in f.title
    assert f.remediation.commands == ()
    old = merge(mac("2.2.0", None, python="3.7", macos="10.13.6"), INTEL)
    old["packages"][0]["wheel_tags"] = ["cp37-cp37m-macosx_10_13_x86_64"]
    assert not [f for f in run(old) if f.code in ("compat.no-wheel-for-python", "compat.no-metal")]


def test_rosetta_uses_the_hardware_arch():
    """Under Rosetta the pair is judged for arm64 (the fix is an arm64 Python), so a 3.11
    interpreter does not get a 'no wheel' finding; the architecture check owns the problem."""
    assert one(merge(apple_silicon(), ROSETTA)).code == "compat.ok"


def test_rosetta_python_3_13_is_explained_by_the_rosetta_finding():
    data = merge(mac("2.20.0", None, python="3.13"), ROSETTA)
    s = snap(data)
    (f,) = compat.run(s)
    assert f.code == "compat.no-wheel-for-python" and "(arm64)" in f.title
    arch = [x for x in architecture.run(s) if x.code == "arch.rosetta"]
    assert arch and f.code in arch[0].explains


# ---------------------------------------------------------------------------------------------
# macOS


def test_macos_12_0_is_too_old_for_metal_1_2_0_by_apples_table():
    """The 1.2.0 wheels are tagged macosx_12_0 (reference), Apple's table asks 12.1+ (rows for
    TF 2.18, which 1.2.0 is inferred to serve; compat_matrix.json known_quirks
    metal-min-macos-table-vs-tags)."""
    f = one(mac("2.19.1", "1.2.0", macos="12.0"))
    assert f.code == "compat.macos-too-old" and f.severity is Severity.ERROR
    assert f.title == ("macOS 12.0 is too old: tensorflow-metal 1.2.0 needs 12.1 (Apple's table; its "
                       "wheel tag allows 12.0, so pip installed it anyway)")
    floors = {(r["needs"], r["source"].split(" ")[0]) for r in f.evidence["requirements"]}
    assert ("12.0", "wheel") in floors and ("12.1", "Apple's") in floors
    assert f.remediation.commands == (f"{PIP} uninstall -y -- tensorflow-metal",)
    assert "Update macOS to 12.1" in f.remediation.text


def test_macos_12_1_is_enough():
    assert one(mac("2.19.1", "1.2.0", macos="12.1")).code == "compat.ok"


def test_macos_11_is_too_old_for_the_tensorflow_wheel_too():
    """tensorflow 2.19.1 arm64 wheels are macosx_12_0 (reference)."""
    f = one(mac("2.19.1", "1.2.0", macos="11.7"))
    assert "tensorflow 2.19.1 needs 12.0 (wheel tag)" in f.title
    assert "tensorflow-metal 1.2.0 needs 12.1 (Apple's table)" in f.title
    assert f.remediation.commands == ()  # no pair supports macOS 11.7 on 3.11: update macOS


def test_unknown_macos_gives_no_macos_finding():
    assert one(mac("2.19.1", "1.2.0", macos=None)).code == "compat.ok"


def test_unreadable_macos_version_is_treated_as_unknown():
    f = one(mac("2.19.1", "1.2.0", macos=":"))
    assert f.code == "compat.ok"
    assert machine_recommendation(snap(mac(None, None, macos="junk")), load_matrix())["requirements"] == [
        "tensorflow==2.19.*", "tensorflow-metal==1.2.0"]


def test_apple_table_macos_floor_yields_to_a_gpu_seen_running():
    """tensorflow-metal 0.1.1's wheel is tagged macosx_11_0; Apple's table asks 12.0 for TF 2.5
    (reference); jzhangc/git_tf2_experiments ran it on 11.4."""
    data = mac("2.5.0", "0.1.1", dist="tensorflow-macos", python="3.8", macos="11.4")
    found = {f.code: f for f in run(data)}
    assert found["compat.macos-too-old"].severity is Severity.ERROR
    found = {f.code: f for f in run(ran_on_gpu(data, "2.5.0"))}
    assert found["compat.macos-too-old"].severity is Severity.INFO


# ---------------------------------------------------------------------------------------------
# no plugin installed


def test_tensorflow_2_20_without_metal_points_to_the_working_pair():
    f = one(mac("2.20.0", None))
    assert f.code == "compat.no-metal" and "no release is known to work" in f.title
    assert f.remediation.commands == (f"{PIP} install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0",)


def test_no_metal_on_apple_silicon_is_the_cause_of_an_idle_gpu():
    f = one(mac("2.19.1", None, python="3.11"))
    assert f.code == "compat.no-metal" and f.severity is Severity.WARNING
    assert "runtime.no-gpu" in f.explains
    assert f.remediation.commands == (f"{PIP} install -- tensorflow-metal==1.2.0",)
    intel = one(merge(mac("2.19.1", None), INTEL))
    assert intel.severity is not Severity.WARNING


def _reported(tensorflow: str, python: str, code: str, log: str | None = None) -> list:
    """`code`'s findings for a report that names TensorFlow but pastes no listing (no pip, no
    site-packages), with a pasted text from tests/data/logs where given."""
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    data = mac(tensorflow, None, python=python)
    data["python"]["site_packages"] = []
    data["packages"] = [{"name": "tensorflow", "version": tensorflow}]
    s = snap(data)
    if log:
        s.log = keep.read(LOGS / log, identity=WHO)
    return [f for f in compat.run(s) if f.code == code]


def test_a_plugin_a_report_does_not_name_is_unknown_until_the_gpu_is_seen_missing():
    """A report names TensorFlow but pastes no listing: tensorflow-metal it does not mention is
    unknown, not absent. The GPU seen missing (the tensorflow.org guide's 'Num GPUs Available:  0',
    frankkramer-lab/MIScnn#32) makes the missing plugin the finding."""
    assert _reported("2.19.1", "3.11", "compat.no-metal") == []
    (seen,) = _reported("2.19.1", "3.11", "compat.no-metal", "num_gpus_available_zero.txt")
    assert seen.severity is Severity.WARNING and "tensorflow-metal==1.2.0" in " ".join(seen.remediation.commands)


def test_a_plugin_without_a_wheel_for_this_python_is_a_report_finding_only_where_the_gpu_is_wanted():
    """tensorflow 2.16.1 on Python 3.12: the plugin made for it (tensorflow-metal 1.1.0) has no cp312
    wheel. A report that lists no packages and never asks for the GPU (a Keras import error) is
    told nothing about the plugin; one that sees the GPU missing is."""
    assert _reported("2.16.1", "3.12", "compat.no-wheel-for-python") == []
    (seen,) = _reported("2.16.1", "3.12", "compat.no-wheel-for-python", "num_gpus_available_zero.txt")
    assert "no tensorflow-metal for tensorflow 2.16.1 on Python 3.12" in seen.title
    listed = mac("2.16.1", None, python="3.12")  # a listing read: the plugin is known to be absent
    assert [f.code for f in run(listed)][0] == "compat.no-wheel-for-python"


def test_a_third_party_metal_plugin_is_a_metal_plugin_here_too():
    """With only IPNP-BIPN's tensorflow-metal-plugin 0.4.1 installed (its PKG-INFO requires
    tensorflow==2.21.*; wheel tag macosx_15_0_arm64, recorded in compat_matrix.json metal_plugins),
    no rule here calls the GPU idle or wheel-less (the same Mac without it gets
    compat.no-wheel-for-python): compat_third_party judges that plugin."""
    packages = [_pkg("tensorflow", "2.21.0", ["cp313-cp313-macosx_12_0_arm64"]),
                _pkg("tensorflow-metal-plugin", "0.4.1", ["cp313-cp313-macosx_15_0_arm64"], ["tensorflow==2.21.*"])]
    data = merge(mac(None, None, python="3.13", macos="15.1"), {"packages": packages})
    without = merge(mac(None, None, python="3.13", macos="15.1"), {"packages": packages[:1]})
    assert run(without)[0].code == "compat.no-wheel-for-python"  # the same Mac without the plugin
    assert [f.code for f in run(data)] == ["compat.ok"]




def test_a_loader_error_from_a_system_framework_is_the_logs_not_the_tables():
    """What the error shows is observed: log.macos-too-old is the cause, and compat.macos-too-old
    (what the tables say of installed versions) neither repeats nor explains it; a macOS at least
    the one the library was built for means the error came from elsewhere (information)."""
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    def with_log(data):
        s = snap(data)
        s.log = keep.read(LOGS / "dyld_system_symbol_macos_too_old.txt", identity=WHO)
        return {f.code: f for f in RuleModules("compat_platform", "log_libraries").run(s)}

    old = with_log(mac(None, None, macos="11.6"))
    assert "compat.macos-too-old" not in old
    assert old["log.macos-too-old"].severity is Severity.ERROR
    assert old["log.macos-too-old"].title.startswith("macOS 11.6 is too old: a library needs _OBJC_CLASS_$_MPSGraph")
    assert "built for macOS 12.0 or later" in old["log.macos-too-old"].title
    new = with_log(mac(None, None, macos="14.5"))["log.macos-too-old"]
    assert new.severity is Severity.INFO and "came from another machine or an older macOS" in new.title


def test_pip_finding_no_tensorflow_where_every_admitted_release_needs_a_newer_macos_is_that_macos(tmp_path):
    """pip's refusal (its template, filled: a requirement on tensorflow>=1.13.0 on OS X 10.10.5,
    Python 3.5). TensorFlow 1.13.1's cp35 wheel is tagged macosx_10_11 with binaries built for
    10.12; the later 10.6-tagged ones' binaries are built for 10.14 (compat_matrix.json
    macos_floors). The macOS is the cause; on 10.12 the same refusal is not the macOS's."""
    from log_cases import WHO

    from tfdoctor.logtext import keep

    def found(macos: str) -> dict:
        (tmp_path / "pip.txt").write_text(
            "ERROR: Could not find a version that satisfies the requirement tensorflow>=1.13.0 (from some-tool) "
            "(from versions: none)\nERROR: No matching distribution found for tensorflow>=1.13.0 (from some-tool)\n")
        data = merge(mac(None, None, python="3.5.6", macos=macos), INTEL)
        s = snap(data)
        s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
        return {f.code: f for f in RuleModules("compat_platform", "log_install").run(s)}

    f = found("10.10.5")["compat.macos-too-old"]
    assert f.title == ("macOS 10.10.5 is too old for tensorflow>=1.13.0: tensorflow>=1.13.0 needs macOS 10.12 or "
                       "later for Python 3.5 (x86_64); this Mac runs 10.10.5")
    assert "log.pip-no-matching-distribution" in f.explains and f.severity is Severity.ERROR
    assert "compat.macos-too-old" not in found("10.12.6")


# ---------------------------------------------------------------------------------------------
# old releases on old macOS: the floor from the registry's wheels (compat_matrix.json macos_floors)


def intel(tf: str, python: str, macos: str, tags: list[str] | None = None) -> dict:
    """An Intel Mac with the registry's tensorflow `tf` for `python` (tags as the index lists them)."""
    data = merge(mac(tf, None, python=python, macos=macos), INTEL)
    data["packages"][0]["wheel_tags"] = tags if tags is not None else []
    return data


def macos_finding(data: dict):
    return next((f for f in run(data) if f.code == "compat.macos-too-old"), None)


def test_tensorflow_1_on_a_macos_below_its_wheel_tag_is_too_old():
    """tensorflow 1.15.0's wheels are tagged macosx_10_11_x86_64; tensorflow/tensorflow#3034: a
    binary built for a newer OS X than the Mac's fails with a libSystem symbol missing."""
    f = macos_finding(intel("1.15.0", "3.7", "10.10.5", ["cp37-cp37m-macosx_10_11_x86_64"]))
    assert f is not None and f.severity is Severity.ERROR
    assert "tensorflow 1.15.0 needs 10.14" in f.title
    assert any(r["needs"] == "10.11" and r["source"].startswith("wheel tag macosx_10_11_x86_64")
               for r in f.evidence["too_old_for"])


def test_a_build_made_for_a_newer_macos_than_its_tag_is_a_warning():
    """tensorflow 2.2.0 is tagged macosx_10_11 but its libraries are built for 10.14; on 10.13 pip
    installs it and import may fail (tensorflow/tensorflow#38601, TensorFlow 2.2 on 10.13.6)."""
    f = macos_finding(intel("2.2.0", "3.7", "10.13.6", ["cp37-cp37m-macosx_10_11_x86_64"]))
    assert f is not None and f.severity is Severity.WARNING
    assert f.title == ("macOS 10.13.6 is too old: tensorflow 2.2.0 needs 10.14 (its binaries were built "
                       "for it; its wheel tag allows 10.11, so pip installs it)")


def test_a_report_that_names_no_wheel_is_judged_by_the_wheels_of_its_python():
    """A report states TensorFlow 1.15.0, Python 3.7 and macOS 10.10: no WHEEL file to read."""
    f = macos_finding(intel("1.15.0", "3.7", "10.10"))
    assert f is not None and f.severity is Severity.ERROR


def test_old_releases_at_or_above_their_floor_get_no_macos_finding():
    assert macos_finding(intel("1.15.0", "3.7", "10.14.6", ["cp37-cp37m-macosx_10_11_x86_64"])) is None
    assert macos_finding(intel("2.2.0", "3.8", "10.15.7")) is None
    assert macos_finding(intel("1.0.0", "3.6", "10.11")) is None


def test_an_unknown_python_is_judged_by_the_floor_every_wheel_of_the_release_shares():
    """A report that states no Python version: its Python is unknown, not without wheels. Below the
    floor all of a release's wheels share, macOS is too old whatever the Python (no pair is
    recommended: which fits depends on it); between the floors of different Pythons it is unknown."""
    def unknown_python(data: dict) -> dict:
        data["python"]["version"] = ""
        data["unknown"] = ["packages"]
        return data
    f = macos_finding(unknown_python(mac("2.12.0", "1.0.0", dist="tensorflow-macos", macos="11.6")))
    assert f is not None and "tensorflow-macos 2.12.0 needs 12.0 (wheel tag)" in f.title
    assert f.evidence["recommended_for_this_macos"] == "Python unknown" and f.remediation.commands == ()
    # tensorflow 1.15.4 on x86_64: tagged macosx_10_6 for cp35 and 10_9 for cp36/cp37, all built for 10.14
    assert macos_finding(intel("1.15.4", "3.7", "10.8")).severity is Severity.ERROR  # below 3.7's tag
    shared = macos_finding(unknown_python(intel("1.15.4", "3.7", "10.8")))  # above cp35's tag: binaries only
    assert shared.severity is Severity.WARNING and "its wheel tag allows 10.6" in shared.title
    assert macos_finding(unknown_python(intel("1.15.4", "3.7", "10.5"))).severity is Severity.ERROR


def test_a_metal_version_the_matrix_does_not_know_needs_what_every_release_needs():
    """"tensorflow-metal 2.6" (a TensorFlow version said of the plugin) or a release newer than the
    matrix: no release of it asks less than Apple's table's 12.0 (the lowest row; tags from 11.0)."""
    f = macos_finding(mac("2.19.1", "2.6", macos="11.6"))
    assert f is not None and "tensorflow-metal (every release) needs 12.0 (Apple's table" in f.title
    assert macos_finding(mac("2.19.1", "2.6", macos="12.1")) is None


def test_a_build_made_for_a_newer_macos_that_imported_here_is_information():
    data = intel("2.2.0", "3.7", "10.13.6", ["cp37-cp37m-macosx_10_11_x86_64"])
    data["runtime"] = {"outcome": "ok", "message": "TensorFlow 2.2.0 imported", "stage": "done",
                       "tf_version": "2.2.0"}
    f = macos_finding(data)
    assert f is not None and f.severity is Severity.INFO and f.title.endswith("(yet it imported here)")


def test_pip_refusing_an_exact_release_never_built_for_this_python(tmp_path):
    """pip's template 'No matching distribution found for {requirement}' (resolvelib factory) for
    tensorflow==2.3.0, whose macOS wheels are cp35-cp38 (compat_matrix.json macos_floors, from the
    registry's file list): on Python 3.9 the release has no wheel, whatever the chip; on 3.8 it
    has one and the refusal is something else."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def report(python: str, system: str = "Darwin"):
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": {"system": system},
                  "python": {"version": python, "implementation": "cpython", "executable": "python3"},
                  "unknown": ["packages"]})
        (tmp_path / "posted.md").write_text("ERROR: No matching distribution found for tensorflow==2.3.0\n",
                                            encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        return diagnose(s)

    found = report("3.9.7").diagnosis()
    assert found.code == "compat.no-wheel-for-python" and "3.5-3.8" in found.title
    assert "log.pip-no-matching-distribution" in found.explains
    assert "compat.no-wheel-for-python" not in {f.code for f in report("3.8.10").findings}
    # a report that does not say its OS is no other OS's: the release's Pythons are still known
    assert report("3.9.7", system="").diagnosis().code == "compat.no-wheel-for-python"
    # on Linux the release's Pythons are the same (test_a_release_refused_on_linux_or_windows_...)
    assert report("3.9.7", system="Linux").diagnosis().code == "compat.no-wheel-for-python"


def test_uv_finding_no_wheel_with_this_pythons_abi_tag(tmp_path):
    """uv's resolver says it itself: 'tensorflow-macos<=2.15.0 has no wheels with a matching Python
    ABI tag (e.g., cp312)' (spotify/basic-pitch#203, CPython 3.12). The registry's file list says
    which Pythons the newest release in range was built for. A platform tag is not the Python's
    story, nor is a package that is not TensorFlow."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def report(text: str | None = None):
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
                  "host": {"system": "Darwin", "hw_arm64": True}, "unknown": ["packages"],
                  "python": {"version": "3.12.12", "implementation": "cpython", "executable": "python3"}})
        if text is not None:
            (tmp_path / "posted.md").write_text(text, encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md" if text else LOGS / "uv_no_abi_tag_tensorflow_macos.txt", identity=WHO)
        return diagnose(s)

    found = report().diagnosis()
    assert found.code == "compat.no-wheel-for-python" and found.evidence["python"] == "3.12"
    assert found.title == "uv found no tensorflow-macos<=2.15.0 wheel for Python 3.12: tensorflow-macos 2.15.0 was built for Python 3.9-3.11"
    assert "log.pip-no-matching-distribution" in found.explains
    platform = "Because tensorflow==2.9.0 has no wheels with a matching platform tag (e.g., `macosx_15_0_arm64`)\n"
    assert "compat.no-wheel-for-python" not in {f.code for f in report(platform).findings}
    other = "Because faiss-cpu==1.8.0.post1 has no wheels with a matching Python\n      ABI tag (e.g., `cp313`)\n"
    assert "compat.no-wheel-for-python" not in {f.code for f in report(other).findings}


def test_a_refusal_pip_printed_outranks_the_route_the_tables_infer(tmp_path):
    """`pip install tensorflow-macos==2.12.0` on Python 3.12, refused: the report states the package
    (the command names it) and the chip not. The tables' route speaks of the plugin each
    architecture would lack; what pip printed says the package itself has no cp312 wheel (2.12.0:
    cp38-cp311). Observed, it is the finding."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Darwin", "macos_version": "13.4"}, "unknown": ["packages", "chip", "python-arch"],
              "python": {"version": "3.12", "implementation": "cpython", "executable": "python3"},
              "packages": [_pkg("tensorflow-macos", "2.12.0", [])]})
    (tmp_path / "posted.md").write_text(
        "ERROR: Could not find a version that satisfies the requirement tensorflow-macos==2.12.0 (from versions: "
        "2.16.1, 2.16.2)\nERROR: No matching distribution found for tensorflow-macos==2.12.0\n", encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    found = diagnose(s).diagnosis()
    assert found.code == "compat.no-wheel-for-python"
    assert found.title == "No tensorflow-macos 2.12.0 wheel for Python 3.12: it was built for 3.8-3.11"


def _pip_refused(tmp_path, requirement: str, python: str, system: str, hw_arm64: bool | None,
                 available: str = "none"):
    """The diagnosis of a report of `system` whose pasted text is pip refusing `requirement`
    ('Could not find a version that satisfies the requirement ... (from versions: ...)')."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    host = {"system": system} | ({} if hw_arm64 is None else {"hw_arm64": hw_arm64})
    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": host,
              "python": {"version": python, "implementation": "cpython", "executable": "python3"},
              "unknown": ["packages"]})
    (tmp_path / "posted.md").write_text(
        f"ERROR: Could not find a version that satisfies the requirement {requirement} (from versions: "
        f"{available})\nERROR: No matching distribution found for {requirement}\n", encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    return diagnose(s)


def test_a_release_refused_on_linux_or_windows_is_judged_by_its_pythons(tmp_path):
    """`tensorflow==2.7.0` refused on Python 3.12 under Windows or Linux: TensorFlow builds a release
    for one range of Pythons on every OS (2.7.0: cp37-cp39), so the Mac's wheels of the release say
    which; a Python in that range gets no such claim, and an ARM machine of another OS (whose
    wheels, where any, were not the Mac's) none at all; nor a 1.x release, whose Pythons differed by OS."""
    def report(system: str, python: str, hw_arm64: bool | None = None, version: str = "2.7.0"):
        refused = _pip_refused(tmp_path, f"tensorflow=={version}", python, system, hw_arm64)
        return {f.code: f for f in refused.findings}

    for system in ("Windows", "Linux"):
        found = report(system, "3.12.0")["compat.no-wheel-for-python"]
        assert found.title == "No tensorflow 2.7.0 wheel for Python 3.12: it was built for 3.7-3.9"
        assert f"the release's macOS wheels stand for its Pythons on {system}" in found.evidence["source"]
        assert "compat.no-wheel-for-python" not in report(system, "3.9.7")
    assert "compat.no-wheel-for-python" not in report("Linux", "3.12.0", hw_arm64=True)
    # 1.x releases had other Pythons on other OSes (1.0.1: cp36 on Linux, none on the Mac)
    assert "compat.no-wheel-for-python" not in report("Linux", "3.6.9", version="1.0.1")
    assert "compat.no-wheel-for-python" in report("Darwin", "3.6.9", version="1.0.1")


def test_pip_finding_no_release_at_all_ran_before_this_pythons_wheels(tmp_path):
    """pip's 'Could not find a version that satisfies the requirement {req} (from versions: none)':
    no release fitted at all. tensorflow-macos has arm64 wheels from 2.5.0 but cp311 ones only from
    2.12.0, tensorflow cp312 ones only from 2.16.1 (macos_floors, the registry's file list), so a pip
    on those Pythons that found none ran before they were published. A Python every release had
    (3.9 for tensorflow-macos) says nothing of the sort; nor does a pip that listed versions."""
    def report(python: str, package: str, available: str = "none", arm64: bool | None = True):
        return _pip_refused(tmp_path, package, python, "Darwin", arm64, available)

    found = report("3.11.2", "tensorflow-macos").diagnosis()
    assert found.code == "compat.no-wheel-for-python" and "only from 2.12.0 on (2.5.0 to 2.11.0 have none)" in found.title
    assert found.evidence["since"] == "2.12.0" and "Python 3.10 with tensorflow-macos 2.11.0" in found.remediation.text
    assert "log.pip-no-matching-distribution" in found.explains
    assert report("3.12.1", "tensorflow").diagnosis().evidence["since"] == "2.16.1"
    assert report("3.14.0", "tensorflow").diagnosis().title.startswith("No tensorflow wheel for Python 3.14 (arm64) in any release")
    assert report("3.13.1", "tensorflow==2.21.0").diagnosis().code != "compat.no-wheel-for-python"  # cp313 came in 2.20.0
    for quiet in (report("3.9.7", "tensorflow-macos"), report("3.11.2", "tensorflow-macos", "2.12.0, 2.13.0"),
                  report("3.11.2", "tensorflow-macos", arm64=None)):
        assert "compat.no-wheel-for-python" not in {f.code for f in quiet.findings}


def test_the_ml_compute_forks_installer_refusing_a_python_that_is_not_3_8():
    """apple/tensorflow_macos#279: install_venv.sh's refusal ('python executable ... not version
    3.8'); the fork bundles cp38 wheels only, so the Python is the cause, named from the rejected
    path (Versions/3.9) and ahead of the fork's own era finding."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"},
              "python": {"version": "3.9.0", "implementation": "cpython", "executable": "python3"},
              "unknown": ["packages"]})
    s.log = keep.read(LOGS / "mlcompute_installer_python39.txt", identity=WHO)
    found = diagnose(s).diagnosis()
    assert found.code == "compat.no-wheel-for-python" and "Python 3.9" in found.title and "3.8" in found.title
    assert "log.mlcompute-fork" in found.explains


def test_a_macos_below_every_release_for_its_python_is_too_old_whatever_the_version():
    """macOS 10.11.6 and Python 3.7: every release with a cp37 wheel was built for 10.12 or later,
    so which one does not matter. A warning for an environment read without TensorFlow (what pip
    can install will not run); information where a report names a range it tried ("1.9-1.13"),
    for then where its TensorFlow came from is unknown (conda and community builds have other floors)."""
    for tf, severity in ((None, Severity.WARNING), ("1.9-1.13", Severity.INFO)):
        f = macos_finding(merge(mac(tf, None, python="3.7.0", macos="10.11.6"), INTEL))
        assert f is not None and f.severity is severity and f.basis == "table"
        assert f.title == ("macOS 10.11.6 is too old for any TensorFlow for Python 3.7 (x86_64): the one that "
                           "asks least, tensorflow 1.13.1, needs 10.12 (binaries built for it; wheel tag 10.11)")
        assert f.remediation.text == ("Update macOS to 10.12 or later, or stay on this macOS with tensorflow 1.4.0 "
                                      "in a Python 3.6 environment, the newest release whose wheels run on it")
    assert macos_finding(merge(mac(None, None, python="3.7.0", macos="10.12.6"), INTEL)) is None
    no_arch = mac(None, None, python="3.12.0", macos="11.7")
    no_arch["python"].pop("process_arch", None)
    no_arch["host"]["hw_arm64"] = None  # macOS 11 or later on an unstated chip: which wheels pip takes is unknown
    assert macos_finding(no_arch) is None
    assert macos_finding(mac(None, None, python="3.12.0", macos="11.7")).title.startswith(
        "macOS 11.7 is too old for any TensorFlow for Python 3.12 (arm64)")
