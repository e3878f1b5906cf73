"""The install.* rules (checks/install.py) on snapshots built from registry facts
(tests/data/reference/tf_wheels_2026-11.json.gz gives the Requires-Dist quoted here)."""

from __future__ import annotations

from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, merge, snap

from tfdoctor.model import Severity

installation = RuleModules("install")
PY = "/Users/ada/venvs/tf/bin/python"


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
    (command,) = finding.remediation.commands  # both removed, then one installed, in one command
    assert command.startswith(f"{command.split()[0]} -m pip uninstall -y -- tensorflow tensorflow-macos && ")
    assert [c.action for c in command.changes] == ["uninstall", "install"]


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


def test_a_reports_tensorflow_2_15_beside_tensorflow_macos_2_15_is_the_thin_shim_and_its_target():
    """A `pip list | grep tensorflow` pasted into a report (AlexanderVNikitin/tsgm style: names and
    versions, no Requires-Dist): tensorflow 2.13-2.15 for macOS arm64 is a thin wheel onto
    tensorflow-macos of the same version (compat_matrix.json), so the pair is one TensorFlow."""
    named = [{"name": "tensorflow", "version": "2.15.0"}, {"name": "tensorflow-macos", "version": "2.15.0"}]
    data = apple_silicon(packages=named, python={"site_packages": []})
    del data["python"]["process_arch"]  # the report does not say: the Mac's own arm64 chooses
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.ok"
    two = apple_silicon(packages=[{"name": "tensorflow", "version": "2.19.1"},
                                  {"name": "tensorflow-macos", "version": "2.12.0"}], python={"site_packages": []})
    assert [f.code for f in installation.run(snap(two))] == ["install.multiple-tensorflow"]


def test_metal_without_tensorflow():
    data = apple_silicon(packages=[p for p in apple_silicon()["packages"] if p["name"] != "tensorflow"])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.metal-without-tensorflow"
    assert finding.evidence["tensorflow_metal"] == "1.2.0"
    assert "tensorflow" in " ".join(finding.remediation.commands)
    # a report that names the plugin and not TensorFlow (no listing): TensorFlow is unknown, not absent
    named = apple_silicon(packages=[{"name": "tensorflow-metal", "version": "1.2.0"}], python={"site_packages": []})
    assert "install.metal-without-tensorflow" not in [f.code for f in installation.run(snap(named))]


def test_no_tensorflow_on_linux_gives_install_command():
    data = linux_cpu(packages=[])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.no-tensorflow"
    assert finding.remediation.commands == ("/usr/bin/python3 -m pip install -- tensorflow",)


# tensorflow_macos-2.15.1-cp311-cp311-macosx_12_0_arm64.whl: 2159 bytes, Requires-Dist (extras
# dropped) from tests/data/reference/tf_wheels_2026-11.json.gz records; compat_matrix.json gives its
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
        "/Users/ada/venvs/tf/bin/python -m pip uninstall -y -- tensorflow-macos",
        "/Users/ada/venvs/tf/bin/python -m pip install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0")
    assert "runtime.not-installed" in finding.explains
    from tfdoctor.derived.providers import providers

    assert providers(snap(data)) == ([], [])


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
    `pip install -U -- tensorflow-macos` then replaces that with the 2.15.1 self-shim."""
    data = apple_silicon(packages=[
        _pkg("tensorflow", "2.15.0", ARM64_311,
             ['tensorflow-macos ==2.15.0 ; platform_system == "Darwin" and platform_machine == "arm64"']),
        _pkg("tensorflow-macos", "2.15.1", ARM64_311, TF_MACOS_2_15_1)])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.self-shim"
    assert finding.evidence["shims_onto_it"] == {"tensorflow": "2.15.0"}
    assert finding.remediation.commands[0].endswith("pip uninstall -y -- tensorflow tensorflow-macos")


def test_self_shim_beside_a_real_tensorflow_is_harmless():
    """tensorflow 2.15.1's arm64 wheel is a full build (reference: pins, no shim requirement)."""
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.1", ARM64_311, ["numpy (<2.0.0,>=1.23.5)"]),
                                   _pkg("tensorflow-macos", "2.15.1", ARM64_311, TF_MACOS_2_15_1)])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.ok" and finding.title == "tensorflow 2.15.1"
    assert finding.evidence["self_shims"] == {"tensorflow-macos": "2.15.1"}


def test_rosetta_python_without_tensorflow_is_offered_the_arm64_pair():
    """The fix for a translated Python is an arm64 one; the advice names the arm64 pair, not
    the x86_64 pair (tensorflow 2.13 + metal 1.0.0) that would only work under Rosetta, and
    installs nothing into the translated process (pip there picks x86_64 wheels)."""
    data = apple_silicon(packages=[], python={"process_arch": "x86_64", "translated": True})
    (finding,) = installation.run(snap(data))
    assert "tensorflow-metal" in finding.remediation.text and "1.2.0" in finding.remediation.text
    assert finding.remediation.commands == ()


def test_unreadable_macos_version_does_not_crash_the_advice():
    data = apple_silicon(packages=[], host={"macos_version": ":"})
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.no-tensorflow" and finding.remediation.commands


def test_intel_mac_upgrade_to_tensorflow_213_is_two_tensorflows():
    """tensorflow-macos 2.12 was the last x86_64 release; `pip install -- tensorflow==2.13` on an
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


def test_thin_tensorflow_213_without_tensorflow_macos_is_a_hollow_shim():
    """`poetry add tensorflow==2.13.0` on an M2 installs only the thin arm64 wheel, whose code is
    in tensorflow-macos (tensorflow/tensorflow#61477, python-poetry/poetry#8271): Requires-Dist of
    tensorflow 2.13.0's arm64 wheel per the reference records."""
    data = apple_silicon(packages=[
        _pkg("tensorflow", "2.13.0", ARM64_311,
             ['tensorflow-macos ==2.13.0 ; platform_system == "Darwin" and platform_machine == "arm64"'])],
        plugins=[])
    (finding,) = installation.run(snap(data))
    assert finding.code == "install.shim-target-missing" and finding.severity is Severity.ERROR
    # the code the shim names, and on Apple silicon the plugin that goes with it
    assert finding.remediation.commands == (
        "/Users/ada/venvs/tf/bin/python -m pip install -- tensorflow-macos==2.13.0 tensorflow-metal==1.1.0",)
    assert "runtime.import-failed" in finding.explains


# tensorflow-metal-plugin 0.4.1 (IPNP-BIPN, sdist only) requires tensorflow==2.21.* (its PKG-INFO);
# both it and Apple's wheel install -- tensorflow-plugins/libmetal_plugin.dylib (compat_matrix.json
# metal_plugins, read from both archives).
THIRD_PARTY = _pkg("tensorflow-metal-plugin", "0.4.1", ["cp311-cp311-macosx_15_0_arm64"], ["tensorflow==2.21.*"])


def test_both_metal_plugins_installed_is_an_error_and_the_fix_reinstalls_one():
    data = apple_silicon()
    data["packages"].append(THIRD_PARTY)
    found = {f.code: f for f in installation.run(snap(data))}
    f = found["install.two-metal-plugins"]
    assert f.severity is Severity.ERROR and "install.ok" not in found
    assert f.evidence["installed"] == {"tensorflow-metal": "1.2.0", "tensorflow-metal-plugin": "0.4.1"}
    (conflict,) = f.evidence["matrix"]
    assert conflict["id"] == "two-metal-plugins-installed"
    assert "https://github.com/pleonard212/pix-plot/issues/268" in conflict["sources"]
    assert f.remediation.commands == (
        f"{PY} -m pip uninstall -y -- tensorflow-metal tensorflow-metal-plugin",
        f"{PY} -m pip install -- tensorflow-metal==1.2.0")
    assert "runtime.import-crashed" in f.explains


def test_one_metal_plugin_is_not_two():
    data = apple_silicon()
    data["packages"] = [p for p in data["packages"] if p["name"] != "tensorflow-metal"] + [THIRD_PARTY]
    assert "install.two-metal-plugins" not in [f.code for f in installation.run(snap(data))]


def test_package_requiring_tensorflow_beside_tensorflow_macos_212():
    """tensorflow-text 2.12.1 requires 'tensorflow (<2.13,>=2.12.0)' on macOS (its METADATA);
    with only tensorflow-macos 2.12.0 installed, pip would add a second TensorFlow."""
    data = apple_silicon(packages=[
        _pkg("tensorflow-macos", "2.12.0", ARM64_311, ["numpy<1.24,>=1.22"]),
        _pkg("tensorflow-text", "2.12.1", ARM64_311, ["tensorflow (<2.13,>=2.12.0)"])])
    found = {f.code: f for f in installation.run(snap(data))}
    f = found["install.requires-tensorflow-name"]
    assert f.severity is Severity.WARNING and "install.multiple-tensorflow" in f.explains
    assert f.evidence["require_tensorflow"] == [
        {"package": "tensorflow-text 2.12.1", "requires": "tensorflow<2.13,>=2.12.0"}]
    assert f.remediation.commands == (
        f"{PY} -m pip install --no-deps --force-reinstall -- tensorflow-text==2.12.1",)


def test_requiring_tensorflow_is_fine_from_213_where_tensorflow_is_a_shim_on_macos():
    data = apple_silicon(packages=[
        _pkg("tensorflow-macos", "2.13.0", ARM64_311),
        _pkg("tensorflow-text", "2.13.0", ARM64_311, ["tensorflow (<2.14,>=2.13.0)"])])
    assert "install.requires-tensorflow-name" not in [f.code for f in installation.run(snap(data))]


def test_conda_tensorflow_deps_without_tensorflow_says_what_deps_is():
    """`conda install -c apple tensorflow-deps` (Apple's recipe) installs TensorFlow's dependencies
    only; conda-meta records it (no dist-info), so only conda's own records show it."""
    conda = {"prefix": "/Users/ada/miniforge3/envs/tf", "root": "/Users/ada/miniforge3", "subdir": "osx-arm64",
             "packages": [{"name": "tensorflow-deps", "version": "2.9.0", "build": "0",
                           "channel": "https://conda.anaconda.org/apple/osx-arm64", "subdir": "osx-arm64"}]}
    data = apple_silicon(packages=[], plugins=[], python={"conda": conda})
    (f,) = installation.run(snap(data))
    assert f.code == "install.no-tensorflow"
    assert f.evidence["conda_tensorflow_deps"]["version"] == "2.9.0"
    assert f.remediation.text.startswith("The apple channel's tensorflow-deps 2.9.0 installs")


def test_a_package_list_read_from_no_site_directory_is_not_a_list_of_what_is_installed():
    """A snapshot written from a report (or by a collector that read no site-packages) lists what
    was mentioned, without the directories a reading names: it says nothing of TensorFlow, so
    neither 'not installed' nor 'no wheel for this Python' is concluded from it (issue 26, class 9).
    The same list read from site-packages is a reading and still concludes."""
    from tfdoctor.engine.diagnose import diagnose

    said = apple_silicon(packages=[_pkg("tensorflow-hub", "0.16.1", ["py3-none-any"])],
                         python={"version": "3.7.16", "site_packages": []})
    report = diagnose(snap(said))
    assert not {"install.no-tensorflow", "compat.no-wheel-for-python"} & {f.code for f in report.findings}
    read = apple_silicon(packages=[_pkg("tensorflow-hub", "0.16.1", ["py3-none-any"])], python={"version": "3.7.16"})
    assert "install.no-tensorflow" in {f.code for f in diagnose(snap(read)).findings}



def test_a_pasted_listing_says_tensorflow_is_absent_only_in_a_report_about_tensorflow(tmp_path):
    """A pasted `pip list` shows the installers (pip, setuptools): a listing, so what it lacks is
    absent, in a report about TensorFlow. The same listing pasted into a report whose text never
    names TensorFlow (another framework's crash) says nothing of TensorFlow."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    listing = [_pkg("numpy", "1.26.4", ["cp311-cp311-macosx_11_0_arm64"]), _pkg("pip", "24.0", ["py3-none-any"]),
               _pkg("setuptools", "69.0.3", ["py3-none-any"])]

    def codes_with(text: str):
        s = snap(apple_silicon(packages=listing, python={"site_packages": []}))
        (tmp_path / "posted.md").write_text(text, encoding="utf-8")
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        return {f.code for f in diagnose(s).findings}

    assert "install.no-tensorflow" in codes_with(">>> import tensorflow as tf\n")
    assert "install.no-tensorflow" not in codes_with(">>> import mlx.core as mx\nzsh: abort      python3\n")


# ---------------------------------------------------------------------------------------------
# pip's resolver refusing a package that depends on `tensorflow` (log.pip-depends-on-tensorflow)

ARM64_39 = ["cp39-cp39-macosx_11_0_arm64"]


with_log_rules = RuleModules("install", "log_install", "log_tensorflow_name")


def _run(data: dict, name: str) -> dict:
    """The install and install-log findings, by code, with the real text `name` pasted."""
    from log_cases import LOGS, SOURCES, WHO

    from tfdoctor.logtext import keep

    assert name in SOURCES
    s = snap(data)
    s.log = keep.read(LOGS / name, identity=WHO)
    return {f.code: f for f in with_log_rules.run(s)}


def _with_log(data: dict, name: str):
    found = _run(data, name)
    assert found["log.pip-depends-on-tensorflow"].severity is Severity.ERROR  # explained by the rule
    return [found["install.requires-tensorflow-name"]]


def _not_for_the_name(data: dict, name: str) -> None:
    """The resolver's line is a conflict of requirements here (information), not the name."""
    found = _run(data, name)
    assert "install.requires-tensorflow-name" not in found
    assert found["log.pip-depends-on-tensorflow"].severity is Severity.INFO


def _m2(*packages: dict, unknown: bool = False) -> dict:
    data = apple_silicon(python={"version": "3.9.13"}, packages=list(packages))
    if unknown:  # a report: the list names what was mentioned, nothing more
        data["python"]["site_packages"] = []
        data["unknown"] = ["packages"]
    return data


def test_pips_refusal_of_a_package_needing_tensorflow_beside_tensorflow_macos_2_9_is_observed():
    """tensorflow/models#10783: an M2 with tensorflow-macos 2.9.2, pip says 'tf-models-official
    2.10.0 depends on tensorflow~=2.10.0'. The line is this finding observed, from a report whose
    package list is not complete too; the fix installs the package without its dependencies."""
    for unknown in (False, True):
        (f,) = _with_log(_m2(_pkg("tensorflow-macos", "2.9.2", ARM64_39), unknown=unknown),
                         "pip_conflict_tf_models_official.txt")
        assert f.severity is Severity.ERROR and "log.pip-depends-on-tensorflow" in f.explains
        assert f.title.startswith("pip cannot install tf-models-official 2.10.0: it depends on "
                                  "`tensorflow~=2.10.0`, while TensorFlow here is tensorflow-macos 2.9.2")
        assert f.evidence["refused_by_pip"][0]["why"] == "tensorflow-macos"
        assert f.remediation.commands == (f"{PY} -m pip install --no-deps -- tf-models-official==2.10.0",)


def _pips_story(data: dict, name: str, code: str = "log.pip-depends-on-tensorflow"):
    """Without tensorflow-macos installed, no installed package requires `tensorflow`: pip's
    refusal is the log's own finding (the cause), not the install rule's."""
    found = _run(data, name)
    assert "install.requires-tensorflow-name" not in found
    assert found[code].severity is Severity.ERROR
    return found[code]


def test_on_apple_silicon_a_range_without_an_arm64_tensorflow_wheel_is_pips_refusal_of_the_name():
    """spotify/basic-pitch#60 (an M1 Mac mini): 'basic-pitch 0.2.0 depends on tensorflow<2.10 and
    >=2.4.1'; `tensorflow` has macOS arm64 wheels only from 2.13 (compat_matrix.json)."""
    f = _pips_story(_m2(unknown=True), "pip_conflict_basic_pitch.txt")
    assert f.evidence["why"] == "no-arm64-wheel" and f.evidence["line"] == 9
    assert f.title == ("pip refused basic-pitch 0.2.0: it depends on `tensorflow<2.10,>=2.4.1`, and no release "
                       "of it in that range has a macOS arm64 wheel (before 2.13 TensorFlow there was "
                       "tensorflow-macos)")
    assert "move to a release of basic-pitch that accepts TensorFlow 2.13 or later" in f.remediation.text
    assert f.remediation.commands[-1] == f"{PY} -m pip install --no-deps -- basic-pitch==0.2.0"


def test_a_report_that_says_a_package_requires_tensorflow_on_apple_silicon_is_the_name_reported():
    """logictensornetworks/logictensornetworks#32 in words: 'The `tensorflow` dependency doesn't
    work on Apple Silicon machines (which need `tensorflow-macos`)'. No package or version to name:
    the way out is a TensorFlow whose `tensorflow` has arm64 wheels. On an Intel Mac, not this."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    f = _pips_story(_m2(unknown=True), "said_tensorflow_name.txt")
    assert f.evidence["why"] == "before-arm64-wheels" and f.evidence["said"] is True
    assert f.title.startswith("the report says a package requires the distribution `tensorflow`")
    assert "tensorflow==" in " ".join(f.remediation.commands)
    s = snap(_m2(unknown=True))
    s.log = keep.read(LOGS / "said_tensorflow_name.txt", identity=WHO)
    assert diagnose(s).diagnosis().basis == "reported"
    intel = _m2(unknown=True)
    intel["host"].update(hw_arm64=False, chip="Intel Core i7", cpu_brand="Intel(R) Core(TM) i7")
    intel["python"]["process_arch"] = "x86_64"
    assert _run(intel, "said_tensorflow_name.txt")["log.pip-depends-on-tensorflow"].severity is Severity.INFO
    beside = _run(_m2(_pkg("tensorflow-macos", "2.9.2", ARM64_39), unknown=True), "said_tensorflow_name.txt")
    assert beside["install.requires-tensorflow-name"].title.startswith("The report says a package requires")


def test_words_in_a_report_that_names_no_chip_are_read_as_apple_silicon_may_be():
    """A snapshot written from a report says 'Darwin' and nothing of the chip: the chip is unknown,
    not Intel, and the words are the name's story. Beside a tensorflow-macos of no stated version,
    the words that the install fails put it before 2.13 (from 2.13 on, tensorflow-macos comes
    with the `tensorflow` wheel a requirement asks for): the installed distribution is the story."""
    written = {"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": {"system": "Darwin"}}
    f = _pips_story(written, "said_tensorflow_name.txt")
    assert f.evidence["why"] == "before-arm64-wheels" and f.evidence["said"] is True
    beside = _run({**written, "packages": [{"name": "tensorflow-macos", "version": ""}]}, "said_tensorflow_name.txt")
    assert beside["install.requires-tensorflow-name"].severity is Severity.ERROR
    assert beside["install.requires-tensorflow-name"].title.startswith("The report says a package requires")


def test_a_resolver_line_about_tensorflow_is_not_this_on_linux_nor_where_tensorflow_is_installed_nor_on_intel():
    _not_for_the_name(linux_cpu(), "pip_conflict_basic_pitch.txt")
    _not_for_the_name(apple_silicon(), "pip_conflict_basic_pitch.txt")  # tensorflow 2.19.1 installed
    intel = _m2(_pkg("tensorflow-macos", "2.9.2", ["cp39-cp39-macosx_10_15_x86_64"]))
    intel["host"].update(hw_arm64=False, chip="Intel Core i7", cpu_brand="Intel(R) Core(TM) i7")
    intel["python"]["process_arch"] = "x86_64"
    _not_for_the_name(intel, "pip_conflict_tf_models_official.txt")


def test_a_range_only_an_arm64_tensorflow_meets_is_not_refused_for_the_name(tmp_path):
    # "depends on tensorflow>=2.13": every release it admits has arm64 wheels, so pip's conflict is
    # elsewhere. A range that admits releases before 2.13 too (no bound, ">=1.9.0"), refused by a
    # pip on Apple silicon, was refused before 2.13, when TensorFlow there was tensorflow-macos.
    from log_cases import WHO

    from tfdoctor.logtext import keep

    def found(requirement: str, data: dict) -> dict:
        (tmp_path / "pip.txt").write_text(f"The conflict is caused by:\n    some-tool 1.4.0 depends on {requirement}\n")
        s = snap(data)
        s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
        return {f.code: f for f in with_log_rules.run(s)}

    later = found("tensorflow>=2.13", _m2(unknown=True))
    assert "install.requires-tensorflow-name" not in later
    assert later["log.pip-depends-on-tensorflow"].severity is Severity.INFO
    for requirement in ("tensorflow", "tensorflow>=1.9.0"):
        earlier = found(requirement, _m2(unknown=True))
        assert "install.requires-tensorflow-name" not in earlier
        f = earlier["log.pip-depends-on-tensorflow"]
        assert f.evidence["why"] == "before-arm64-wheels" and f.severity is Severity.ERROR
        assert f.title.endswith("pip found no macOS arm64 wheel of it (they exist from 2.13 on)")
        assert "tensorflow==" in " ".join(f.remediation.commands)  # the newest arm64 release it admits
    rosetta = _m2(unknown=True)
    rosetta["python"].update(process_arch="x86_64", translated=True)  # pip finds the x86_64 wheels there
    assert "install.requires-tensorflow-name" not in found("tensorflow", rosetta)


def test_pips_single_refusal_naming_the_package_is_the_same_evidence(tmp_path):
    """pip's other form for one candidate (factory.py _report_single_requirement_conflict, the
    line spotify/basic-pitch#60 shows after pinning basic-pitch==0.2.0): 'Could not find a version
    that satisfies the requirement tensorflow<2.10,>=2.4.1 (from basic-pitch)'. A range with an
    arm64 wheel for another Python only is the Python's story (log.pip-no-matching-distribution)."""
    from log_cases import WHO

    from tfdoctor.logtext import keep

    def found(data: dict, requirement: str) -> dict:
        (tmp_path / "pip.txt").write_text(
            f"ERROR: Could not find a version that satisfies the requirement {requirement} (from versions: none)\n")
        s = snap(data)
        s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
        return {f.code: f for f in with_log_rules.run(s)}

    refused = found(_m2(_pkg("tensorflow-macos", "2.9.2", ARM64_39)), "tensorflow<2.10,>=2.4.1 (from basic-pitch)")
    f = refused["install.requires-tensorflow-name"]
    assert "log.pip-no-matching-distribution" in f.explains
    assert f.title.startswith("pip cannot install basic-pitch: it depends on `tensorflow<2.10,>=2.4.1`")
    assert f.remediation.commands == (f"{PY} -m pip install --no-deps -- basic-pitch",)
    # tensorflow 2.14.0's arm64 wheels are for Python 3.9-3.11 (compat_matrix.json): on 3.12 it is the Python
    py312 = merge(_m2(unknown=True), {"python": {"version": "3.12.4"}})
    assert "install.requires-tensorflow-name" not in found(py312, "tensorflow==2.14.0 (from some-tool)")
    assert "install.requires-tensorflow-name" not in found(_m2(unknown=True), "tensorflow==2.9.0 (from -r requirements.txt (line 2))")
    # a release of which no tensorflow-macos exists either (the 2.4 era had only Apple's fork):
    # the version is what pip cannot find, not the name
    assert "install.requires-tensorflow-name" not in found(_m2(unknown=True), "tensorflow==2.4.0 (from murre)")
    f = found(_m2(unknown=True), "tensorflow==2.9.0 (from some-tool)")["log.pip-no-matching-distribution"]
    assert f.title.startswith("pip refused some-tool: it depends on `tensorflow==2.9.0`, and no release of it")
    assert f.evidence["why"] == "no-arm64-wheel"


def test_a_report_that_states_no_python_still_gets_the_install_rules(tmp_path):
    """The install rules read the package list, not the interpreter: a report that names
    tensorflow-macos 2.11.0 and pastes pip's refusal, but states no Python version (keras-tuner
    style), is judged (the module needs no Python section)."""
    from log_cases import WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    data = apple_silicon(packages=[{"name": "tensorflow-macos", "version": "2.11.0"}])
    del data["python"]
    (tmp_path / "pip.txt").write_text(
        "ERROR: Could not find a version that satisfies the requirement tensorflow>=2.0 (from keras-tuner) "
        "(from versions: none)\nERROR: No matching distribution found for tensorflow>=2.0\n")
    s = snap(data)
    s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
    assert diagnose(s).diagnosis().code == "install.requires-tensorflow-name"


def test_a_gpu_build_beside_tensorflow_is_a_second_tensorflow():
    """tensorflow-gpu (TensorFlow 1.x to 2.11), AMD's tensorflow-rocm and intel-tensorflow each
    install the `tensorflow` import package too: beside `tensorflow`, one overwrites the other (before
    2.1 a dependency that requires `tensorflow` puts the CPU-only build over the GPU one)."""
    for other in ("tensorflow-gpu", "tensorflow-rocm", "intel-tensorflow"):
        named = [{"name": "tensorflow", "version": "1.15.4"}, {"name": other, "version": "1.15.4"}]
        data = linux_cpu(packages=named, python={"site_packages": []})
        (finding,) = installation.run(snap(data))
        assert finding.code == "install.multiple-tensorflow", other
        assert finding.evidence["providers"] == {"tensorflow": "1.15.4", other: "1.15.4"}


def test_two_tensorflows_named_without_versions_keep_the_one_pip_can_still_install():
    """A report says "I have both tensorflow and tensorflow-gpu installed", no versions: unpinned,
    tensorflow-gpu is 2.12.0, whose install only raises ('The "tensorflow-gpu" package has been
    removed!'), so the one to keep is `tensorflow`, which carries the GPU from 2.1."""
    named = [{"name": "tensorflow", "version": None}, {"name": "tensorflow-gpu", "version": None}]
    (finding,) = installation.run(snap(linux_cpu(packages=named, python={"site_packages": []})))
    assert finding.code == "install.multiple-tensorflow"
    assert finding.remediation.commands[-1].endswith("install -- tensorflow")


def test_from_2_1_tensorflow_gpu_of_the_same_version_is_the_same_build():
    same = [{"name": "tensorflow", "version": "2.4.1"}, {"name": "tensorflow-gpu", "version": "2.4.1"}]
    (finding,) = installation.run(snap(linux_cpu(packages=same, python={"site_packages": []})))
    assert finding.code == "install.ok"
    other = [{"name": "tensorflow", "version": "2.4.1"}, {"name": "tensorflow-gpu", "version": "2.3.0"}]
    (finding,) = installation.run(snap(linux_cpu(packages=other, python={"site_packages": []})))
    assert finding.code == "install.multiple-tensorflow"


def test_a_gpu_build_alone_is_tensorflow_installed():
    alone = [{"name": "tensorflow-gpu", "version": "2.4.1"}, {"name": "numpy", "version": "1.19.5"}]
    (finding,) = installation.run(snap(linux_cpu(packages=alone, python={"site_packages": []})))
    assert finding.code == "install.ok" and "tensorflow-gpu 2.4.1" in finding.title
