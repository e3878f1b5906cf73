"""compat.tf-metal-mismatch (checks/compat_pairing.py) and the pair's verdict that compat.ok
headlines (tfdoctor/advice/pair_verdict.py), on snapshots of real situations; the wheels for this Python
and macOS floors are tests/rules/test_compat_platform.py's. Both rule modules run together here,
as the engine runs them.

Facts used to build them, so no expectation is copied from tfdoctor's own output:
- wheel tags, Python tags and Requires-Dist: tests/data/reference/tf_wheels_2026-11.json.gz (records
  of tensorflow, tensorflow-macos, tensorflow-metal; e.g. every tensorflow-metal from 0.5.1 to
  1.2.0 is tagged macosx_12_0, tensorflow-metal 1.1.0 has cp39-cp311, 1.2.0 cp39-cp312, no
  cp313 anywhere, x86_64 metal wheels end at 1.0.0);
- Apple's table (tensorflow-metal 1.2.0 METADATA, quoted in compat_matrix.json apple_table):
  '|v2.13|v1.0.0|12.1+|...', '|v2.14-v2.18|v1.1.0|12.1+||';
- runtime reports: tensorflow/tensorflow#81987 and #84167 (1.1.0 fails with 2.18),
  tensorflow/tensorflow#126360 (1.2.0 works on 2.18.1 and 2.19, fails on 2.20), #126384 (fails
  on 2.21); tests/facts/mac_facts.json metal.compat_matrix_tested (2.19.0 + 1.1.0 fails to
  import) and metal.no_wheel_past_cp312.
"""


from __future__ import annotations

from typing import Any

import pytest
from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, merge, metal_plugin, snap

from tfdoctor.advice.installs import install_commands, machine_recommendation, short_source, venv_command
from tfdoctor.knowledge.matrix import load_matrix
from tfdoctor.model import Severity
from tfdoctor.render.matrix import matrix_rows

compat = RuleModules("compat_pairing", "compat_platform")
installation = RuleModules("install")

PY = "/Users/ada/venvs/tf/bin/python"
PIP = f"{PY} -m pip"
ISSUE_81987 = "https://github.com/tensorflow/tensorflow/issues/81987"
ISSUE_84167 = "https://github.com/tensorflow/tensorflow/issues/84167"
PR_126360 = "https://github.com/tensorflow/tensorflow/pull/126360"
PR_126384 = "https://github.com/tensorflow/tensorflow/pull/126384"


def cp(python: str) -> str:
    return "cp" + python.replace(".", "")


def mac(tf: str | None, metal: str | None, python: str = "3.11", dist: str = "tensorflow",
        macos: str = "14.5", extra: list[dict[str, Any]] = (), **overrides: Any) -> dict[str, Any]:
    """An Apple-silicon venv with `dist`==`tf` and tensorflow-metal==`metal` (None: absent), as pip
    installs them: macosx_12_0_arm64 wheels of the given Python (tags from the reference)."""
    tag = f"{cp(python)}-{cp(python)}-macosx_12_0_arm64"
    packages = []
    if tf:
        packages.append(_pkg(dist, tf, [tag]))
    if metal:
        packages.append(_pkg("tensorflow-metal", metal, [tag], ["wheel~=0.35", "six>=1.15.0"]))
    packages += list(extra)
    base = apple_silicon(packages=packages, plugins=[metal_plugin()] if metal else [])
    base = merge(base, {"python": {"version": f"{python}.4"},
                        "host": {"macos_version": macos, "macos_version_reported": macos}})
    return merge(base, overrides)


def run(data: dict[str, Any]):
    return compat.run(snap(data))


def one(data: dict[str, Any]):
    # compat.stale-knowledge (a release newer than the matrix knows) is said beside the verdict;
    # tests/rules/test_compat_platform.py tests it
    findings = [f for f in run(data) if f.code != "compat.stale-knowledge"]
    assert len(findings) == 1, [(f.code, f.title) for f in findings]
    return findings[0]



# ---------------------------------------------------------------------------------------------
# healthy machines


def test_m_series_healthy_pair_is_ok_with_its_source():
    """tests/snapshots.py apple_silicon(): tensorflow 2.19.1 + tensorflow-metal 1.2.0, Python 3.11,
    macOS 14.5: reported to work in tensorflow/tensorflow#126360."""
    f = one(apple_silicon())
    assert f.code == "compat.ok" and f.severity is Severity.OK
    assert f.title == "tensorflow 2.19.1 + tensorflow-metal 1.2.0: known to work (tensorflow/tensorflow#126360)"




# Apple's table rows (tensorflow-metal 1.2.0 METADATA) with a release of each minor that has
# arm64 wheels for Python 3.9 (reference records): the code-carrying distribution on arm64 is
# tensorflow-macos up to 2.15.0 (tensorflow 2.13-2.15.0 being a thin shim onto it), tensorflow from 2.15.1.
DOCUMENTED = [
    ("tensorflow-macos", "2.5.0", "0.1.2", "|v2.5 |v0.1.2|"),
    ("tensorflow-macos", "2.6.0", "0.2.0", "|v2.6 |v0.2.0|"),
    ("tensorflow-macos", "2.7.0", "0.3.0", "|v2.7 |v0.3.0|"),
    ("tensorflow-macos", "2.8.0", "0.4.0", "|v2.8 |v0.4.0|"),
    ("tensorflow-macos", "2.9.2", "0.5.0", "|v2.9 |v0.5.0|"),
    ("tensorflow-macos", "2.10.0", "0.6.0", "|v2.10|v0.6.0|"),
    ("tensorflow-macos", "2.11.0", "0.7.0", "|v2.11|v0.7.0|"),
    ("tensorflow-macos", "2.12.0", "0.8.0", "|v2.12|v0.8.0|"),
    ("tensorflow-macos", "2.13.0", "1.0.0", "|v2.13|v1.0.0|"),
    ("tensorflow-macos", "2.14.1", "1.1.0", "|v2.14-v2.18|v1.1.0|"),
    ("tensorflow-macos", "2.15.0", "1.1.0", "|v2.14-v2.18|v1.1.0|"),
    ("tensorflow", "2.16.2", "1.1.0", "|v2.14-v2.18|v1.1.0|"),
    ("tensorflow", "2.17.1", "1.1.0", "|v2.14-v2.18|v1.1.0|"),
]


@pytest.mark.parametrize("dist,tf,metal,row", DOCUMENTED)
def test_every_documented_pair_is_ok(dist, tf, metal, row):
    f = one(mac(tf, metal, python="3.9", dist=dist))
    assert f.code == "compat.ok" and f.severity is Severity.OK
    assert f"{dist} {tf} + tensorflow-metal {metal}: documented in Apple's table ({row}" in f.title


@pytest.mark.parametrize("tf", ["2.18.1", "2.19.0", "2.19.1"])
def test_reported_working_pairs_are_ok(tf):
    """PR 126360: 'The same plugin works on 2.18.1 and 2.19.'"""
    f = one(mac(tf, "1.2.0", python="3.12"))
    assert f.code == "compat.ok" and "known to work (" in f.title
    assert "tensorflow/tensorflow#126360" in f.title


def test_tensorflow_2_13_thin_shim_pairs_through_tensorflow_macos():
    """`pip install -- tensorflow==2.13.0` on arm64 installs the thin tensorflow wheel and
    tensorflow-macos 2.13.0 (Requires-Dist 'tensorflow-macos (==2.13.0) ; platform_system ==
    "Darwin" and platform_machine == "arm64"', reference records)."""
    data = mac("2.13.0", "1.0.0", dist="tensorflow-macos", extra=[
        _pkg("tensorflow", "2.13.0", ["cp311-cp311-macosx_12_0_arm64"],
             ['tensorflow-macos (==2.13.0) ; platform_system == "Darwin" and platform_machine == "arm64"'])])
    f = one(data)
    assert f.code == "compat.ok" and f.title.startswith("tensorflow-macos 2.13.0 + tensorflow-metal 1.0.0")



# ---------------------------------------------------------------------------------------------
# bad pairs


@pytest.mark.parametrize("tf,metal,python,sources,fix", [
    ("2.18.0", "1.1.0", "3.11", {ISSUE_81987, ISSUE_84167}, ("tensorflow==2.18.1", "tensorflow-metal==1.2.0")),
    ("2.18.1", "1.1.0", "3.11", {ISSUE_81987, ISSUE_84167}, ("tensorflow-metal==1.2.0",)),
    ("2.20.0", "1.2.0", "3.12", {PR_126360, PR_126384}, ("'tensorflow==2.19.*'", "tensorflow-metal==1.2.0")),
    ("2.21.0", "1.2.0", "3.12", {PR_126360, PR_126384}, ("'tensorflow==2.19.*'", "tensorflow-metal==1.2.0")),
])
def test_every_known_broken_pair_is_an_error_with_its_runtime_evidence(tf, metal, python, sources, fix):
    f = one(mac(tf, metal, python=python))
    assert f.code == "compat.tf-metal-mismatch" and f.severity is Severity.ERROR
    assert "known not to load together" in f.title
    assert f.evidence["status"] == "known-broken"
    assert set(f.evidence["sources"]) == sources
    quotes = [q for r in f.evidence["runtime_reports"] for q in r["quotes"]]
    assert quotes and all(q["text"] and q["source"] for q in quotes)
    assert {"runtime.plugin-load-failed", "runtime.no-gpu"} <= set(f.explains)
    assert f.remediation.commands == (f"{PIP} install -- {' '.join(fix)}",)


def test_quoted_failure_names_the_plugin_loader():
    """tensorflow/tensorflow#81987 shows the failure at `_ll.load_library(_plugin_dir)`."""
    f = one(mac("2.18.0", "1.1.0"))
    texts = " ".join(q["text"] for r in f.evidence["runtime_reports"] for q in r["quotes"])
    assert "_ll.load_library(_plugin_dir)" in texts


def test_a_pair_no_table_names_that_the_binary_loads_is_ok_and_says_so():
    """tensorflow-metal 1.2.0 is named by no table row and no report covers 2.18.0, but its
    binary resolves every symbol against tensorflow 2.18.0 (metal_load_check; the reference's
    load_check agrees): not an error, and the headline says it was not tested at run time."""
    f = one(mac("2.18.0", "1.2.0"))
    assert f.code == "compat.ok"
    assert "loads (binary load check)" in f.title and "not tested at run time" in f.title


def test_metal_that_predates_tensorflow_cannot_load_and_the_binary_says_which_symbol():
    """2.19.0 + 1.1.0 fails to import (mac_facts metal.compat_matrix_tested); the plugin binary
    needs a tsl symbol tensorflow 2.19 no longer exports (reference load_check, reason a)."""
    f = one(mac("2.19.1", "1.1.0"))
    assert f.code == "compat.tf-metal-mismatch" and f.severity is Severity.ERROR and f.basis == "reported"
    assert f.title == ("tensorflow 2.19.1 + tensorflow-metal 1.1.0 cannot load: libmetal_plugin.dylib "
                       "needs `__ZN3tsl8internal10LogMessageC1EPKcii` from _pywrap_tensorflow_internal.so, "
                       "which tensorflow 2.19.1 does not export")
    assert f.evidence["load_check"]["plugin_wheel"].startswith("tensorflow_metal-1.1.0-")
    assert f.evidence["metal_made_for"]["apple_table_rows"][0].startswith("|v2.14-v2.18|v1.1.0|")
    assert f.remediation.commands == (f"{PIP} install -- tensorflow-metal==1.2.0",)


def test_a_pair_the_binaries_do_not_cover_falls_back_to_the_era(monkeypatch):
    """tensorflow-metal 1.2.0 with tensorflow 2.15.0 where no binary facts cover the pair: the
    release dates decide, and say they are an inference."""
    import tfdoctor.advice.pair_verdict as module

    monkeypatch.setattr(module, "binary_check", lambda arch="arm64", **kw: (lambda tf, metal: None))
    monkeypatch.setattr(module, "load_check", lambda *args, **kwargs: None)
    f = one(mac("2.15.0", "1.2.0", python="3.11"))
    assert f.title.startswith("tensorflow-metal 1.2.0 postdates tensorflow 2.15.0") and "inferred" in f.title
    assert f.basis == "inferred" and f.severity is Severity.ERROR


def test_metal_newer_than_tensorflow_fix_depends_on_python():
    """tensorflow-macos 2.11.0 with tensorflow-metal 1.1.0 (made for 2.14-2.18) cannot load; the
    fix is the plugin of 2.11 where its wheels fit the Python (0.7.0 on 3.10), else the pair."""
    f = one(mac("2.11.0", "1.1.0", dist="tensorflow-macos", python="3.10"))
    assert f.code == "compat.tf-metal-mismatch" and "cannot load" in f.title
    assert f.remediation.commands == (f"{PIP} install -- tensorflow-metal==0.7.0",)
    f11 = one(mac("2.11.0", "1.1.0", dist="tensorflow-macos", python="3.11"))
    # the pair is tensorflow's: tensorflow-macos goes in the same command, or both would be installed
    assert f11.remediation.commands[-1] == (f"{PIP} uninstall -y -- tensorflow-macos && "
                                            f"{PIP} install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0")


def test_a_pair_judged_where_the_python_is_unknown_is_the_verdict_every_python_shares():
    """A report that states the pair but not the Python: its Python is unknown, not one without
    wheels. A verdict the same for every Python the release has wheels for stands; an install is
    named only when one pair fits them all."""
    def unknown_python(data: dict[str, Any]) -> dict[str, Any]:
        data["python"]["version"] = ""
        data["unknown"] = ["packages"]
        return data
    broken = [f for f in run(unknown_python(mac("2.18.0", "1.1.0"))) if f.code == "compat.tf-metal-mismatch"]
    assert len(broken) == 1 and broken[0].evidence["python"] == "unknown: the same for Python 3.9-3.12"
    assert "tensorflow==2.18.1 tensorflow-metal==1.2.0" in " ".join(broken[0].remediation.commands)
    (newest,) = [f for f in run(unknown_python(mac("2.20.0", "1.2.0"))) if f.code == "compat.tf-metal-mismatch"]
    assert newest.remediation.commands == () and "python3 --version" in newest.remediation.text  # 3.13: no pair
    assert not [f for f in run(unknown_python(mac("2.16.1", "1.1.0"))) if f.code == "compat.tf-metal-mismatch"]
    # a minor stated without its patch stands for its releases: "TensorFlow 2.16" (first release
    # 2.16.1) with tensorflow-metal 0.8.0 fails with every one of them
    (minor,) = [f for f in run(unknown_python(mac("2.16", "0.8.0"))) if f.code == "compat.tf-metal-mismatch"]
    assert minor.title.startswith("tensorflow-metal 0.8.0 predates tensorflow 2.16")
    # ... and is no problem where a release of it fits: the binaries of 2.9.0 load metal 0.4.0, as
    # for "2.9.0" stated whole
    for stated in ("2.9", "2.9.0"):
        assert not [f for f in run(unknown_python(mac(stated, "0.4.0", dist="tensorflow-macos")))
                    if f.code == "compat.tf-metal-mismatch" and f.severity >= Severity.WARNING], stated


def test_a_pair_judged_where_the_chip_is_unknown_names_no_intel_pair():
    """tensorflow 2.18.0 + tensorflow-metal 1.1.0 does not load on any Mac, so the verdict stands
    where the report names no chip; its fix is not the Intel pair (tensorflow 2.13 + metal 1.0.0,
    the last with x86_64 wheels) that an unstated chip used to be taken for, but the way to learn
    the architecture."""
    unstated = merge(mac("2.18.0", "1.1.0"), {"host": {"hw_arm64": None, "chip": None},
                                              "python": {"process_arch": "", "binary": {"archs": []}}})
    f = one(unstated)
    assert f.code == "compat.tf-metal-mismatch" and "known not to load" in f.title
    assert not f.remediation.commands and "uname -m" in f.remediation.text
    assert one(mac("2.18.0", "1.1.0")).remediation.commands[-1].endswith("tensorflow==2.18.1 tensorflow-metal==1.2.0")


def test_metal_version_unknown_to_the_matrix():
    f = one(mac("2.19.1", "1.3.0"))
    assert f.code == "compat.tf-metal-mismatch" and f.severity is Severity.WARNING
    assert "not in tfdoctor's matrix" in f.detail
    stale = [f for f in RuleModules("compat_knowledge").run(snap(mac("2.19.1", "1.3.0")))
             if f.code == "compat.stale-knowledge"]
    assert [f.severity for f in stale] == [Severity.INFO]  # and how to refresh it


def test_two_tensorflows_cannot_be_paired_and_installation_explains_it():
    """A warning only, and no compat.ok beside it: that rule lives in checks/compat_platform.py, so
    this module's warning does not silence it as a summary rule; it stays silent by itself."""
    data = mac("2.19.1", "1.2.0", extra=[_pkg("tensorflow-macos", "2.12.0", ["cp311-cp311-macosx_12_0_arm64"],
                                                ["numpy (<1.24,>=1.22)"])])
    s = snap(data)
    (f,) = compat.run(s)
    assert f.code == "compat.tf-metal-mismatch" and f.severity is Severity.WARNING
    (multiple,) = installation.run(s)
    assert multiple.code == "install.multiple-tensorflow" and f.code in multiple.explains


# ---------------------------------------------------------------------------------------------
# a translated Python: the pair is judged for the hardware's architecture

ROSETTA = {"host": {"cpu_brand": "VirtualApple @ 2.50GHz processor"},
           "python": {"process_arch": "x86_64", "translated": True}}
"""mac_facts rosetta.proc_translated_1, rosetta.cpuid_brand_virtualapple: a universal2 python.org
Python started translated (route.universal2_intel64)."""


def test_a_translated_python_gets_the_pair_named_but_no_install_into_it():
    """pip under Rosetta installs x86_64 wheels, and an arm64 plugin installed with `arch -arm64`
    still cannot load into the process as it runs (the what-if finds arch.plugin-mismatch): the
    pair waits for the native Python the architecture finding asks for."""
    s = snap(merge(mac("2.18.0", "1.1.0"), ROSETTA))
    (f,) = compat.run(s)
    assert "tensorflow==2.18.1 + tensorflow-metal==1.2.0" in f.remediation.text
    assert f.remediation.commands == ()


# ---------------------------------------------------------------------------------------------
# helpers used by the findings and by `tfdoctor matrix`


def test_install_commands_uninstall_another_tensorflow_first():
    s = snap(mac("2.12.0", "0.8.0", dist="tensorflow-macos"))
    (switch,) = install_commands(s, ("tensorflow==2.19.*", "tensorflow-metal==1.2.0"))
    assert switch == f"{PIP} uninstall -y -- tensorflow-macos && {PIP} install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0"
    assert [c.action for c in switch.changes] == ["uninstall", "install"]
    assert install_commands(s, ("tensorflow-metal==1.0.0",)) == [f"{PIP} install -- tensorflow-metal==1.0.0"]


def test_venv_command_and_short_sources():
    assert venv_command("3.12", ("tensorflow==2.19.*",)) == \
        "python3.12 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip install -- 'tensorflow==2.19.*'"
    assert short_source(PR_126360) == "tensorflow/tensorflow#126360"
    assert short_source(ISSUE_81987) == "tensorflow/tensorflow#81987"


def test_matrix_rows_show_pairs_statuses_and_pins():
    rows = {r["tensorflow"]: r for r in matrix_rows(load_matrix())}
    assert list(rows)[0] == "2.5" and list(rows)[-1] == "2.22"
    r18 = rows["2.18"]
    metals = {x["tensorflow_metal"]: x["status"] for x in r18["tensorflow_metal"]}
    assert metals == {"1.2.0": "loads-untested (2.18.0, 2.18.0rc0, 2.18.0rc1, 2.18.0rc2), known-working (2.18.1)",
                      "1.1.0": "known-broken"}  # 2.18.0: the plugin binary resolves; 2.18.1: reported
    assert r18["numpy"] == "<2.1.0,>=1.26.0" and r18["min_macos"] == "12.0" and r18["metal_min_macos"] == "12.1"
    assert rows["2.15"]["tensorflow_macos_shims"] == {"2.15.1": "self-shim"}
    assert rows["2.15"]["code"] == {"tensorflow-macos": ["2.15.0", "2.15.0rc0", "2.15.0rc1"], "tensorflow": ["2.15.1"]}
    assert rows["2.21"]["python"] == ["3.10", "3.11", "3.12", "3.13"]


def test_machine_recommendation_on_linux_mac_and_python_3_13():
    m = load_matrix()
    linux = machine_recommendation(snap(linux_cpu()), m)
    # the user's choice is kept: tensorflow-cpu is installed, so nothing is to be installed
    assert linux["metal"] is False and linux["requirements"] == ["tensorflow-cpu"]
    assert linux["commands"] == [] and "tensorflow-cpu is installed already" in linux["notes"][0]
    assert "no Metal pairing for Linux" in linux["reason"]
    mac_rec = machine_recommendation(snap(apple_silicon()), m)
    assert mac_rec["requirements"] == ["tensorflow==2.19.*", "tensorflow-metal==1.2.0"]
    assert mac_rec["commands"] == [f"{PIP} install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0"]
    new = machine_recommendation(snap(mac(None, None, python="3.13")), m)
    assert new["requirements"] == [] and new["commands"][0].startswith("python3.12 -m venv")
    rosetta = machine_recommendation(snap(merge(apple_silicon(), ROSETTA)), m)
    assert rosetta["arch"] == "arm64" and any("Rosetta" in n for n in rosetta["notes"])
    assert rosetta["commands"] == []  # nothing installed into the translated process



def test_healthy_scenarios_give_no_warning_from_any_of_these_checks():
    dependencies = RuleModules("compat_pins")
    for data in (apple_silicon(), linux_cpu()):
        s = snap(data)
        findings = [f for c in (compat, dependencies, installation) for f in c.run(s)]
        assert findings and all(f.severity <= Severity.INFO for f in findings), \
            [(f.code, f.title) for f in findings]
        assert compat.report(s).diagnosis() is None


def test_unreadable_versions_do_not_crash_the_check():
    """A corrupt METADATA leaves a version None or unparsable (target.corrupt-metadata reports it)."""
    data = mac("2.18.0", "1.1.0")
    data["packages"][0]["version"] = None
    assert run(data) == []
    data = mac("2.18.0", "1.1.0")
    data["packages"][1]["version"] = "not a version"
    assert run(data) == []




# ---------------------------------------------------------------------------------------------
# what was observed outranks what tables and dates infer (issue 11, classes 1-3)

GPU_RAN = {"outcome": "ok", "stage": "done", "python": PY, "tf_version": None,
           "physical_devices": [{"name": "/physical_device:GPU:0", "device_type": "GPU"}],
           "placements": [{"requested": "/GPU:0", "correct": True,
                           "device": "/job:localhost/replica:0/task:0/device:GPU:0"}]}


def ran_on_gpu(data: dict[str, Any], tf: str) -> dict[str, Any]:
    return merge(data, {"runtime": {**GPU_RAN, "tf_version": tf}})


@pytest.mark.parametrize("tf,metal", [("2.9.2", "0.5.1"), ("2.11.0", "0.7.1"), ("2.13.0", "1.0.1"),
                                      ("2.5.0", "0.1.1")])


def test_metal_patch_releases_pair_like_their_series(tf, metal):
    """tensorflow-metal 0.5.1, 0.7.1, 1.0.1 (and 0.1.1, before the table's 0.1.2) were cut for the
    TensorFlow minor of their series, which Apple's table documents (reference `pairs`)."""
    f = one(mac(tf, metal, dist="tensorflow-macos", python="3.9"))
    assert f.code == "compat.ok", (f.code, f.title)
    assert "documented in Apple's table" in f.title


def test_an_inferred_mismatch_with_a_gpu_seen_running_is_information():
    """tensorflow-metal 1.3.0 is no release tfdoctor knows (an inference: a warning), but
    TensorFlow ran a matmul on the GPU with it: information."""
    static = one(mac("2.19.1", "1.2.0"))  # a reported-working pair: nothing to say
    assert static.code == "compat.ok"
    data = mac("2.19.1", "1.3.0")
    assert one(data).severity is Severity.WARNING and one(data).basis == "inferred"
    seen = one(ran_on_gpu(data, "2.19.1"))
    assert seen.code == "compat.tf-metal-mismatch" and seen.severity is Severity.INFO
    assert "(yet it ran work on GPU:0 here)" in seen.title and "observed" in seen.evidence


def test_a_reported_failure_contradicted_by_a_gpu_seen_running_is_information():
    """What tfdoctor observed here outranks what reports and the binaries predict."""
    data = mac("2.18.0", "1.1.0")  # tensorflow/tensorflow#81987: fails to load
    assert one(data).severity is Severity.ERROR and one(data).basis == "reported"
    assert one(ran_on_gpu(data, "2.18.0")).severity is Severity.INFO


def test_the_load_check_reads_the_installed_distribution_build():
    """On Intel, tensorflow-metal 0.1.2 loads into tensorflow-macos 2.5.0 but not into Google's
    tensorflow 2.5.0, which lacks TF_AssignVariable and other C-API symbols the plugin imports
    (compat_matrix.json metal_load_check, read from both wheels). The scenario is a working Intel
    Mac running this pair (mrdbourke/m1-machine-learning-test, AMD Radeon Pro 5500M results), so
    the verdict must come from the tensorflow-macos build the user has."""
    import copy
    import json
    from pathlib import Path

    path = Path(__file__).parents[1] / "scenarios" / "healthy_intel_amd5500m_tfmacos250_metal012_m1_ml_test.json"
    recorded = json.loads(path.read_text())["snapshot"]
    [f] = compat.run(snap(copy.deepcopy(recorded)))
    assert f.code == "compat.ok" and "cannot load" not in f.title, f.title
    stock_build = copy.deepcopy(recorded)
    for p in stock_build["packages"]:
        if p["name"] == "tensorflow-macos":
            p["name"] = "tensorflow"
    stock = compat.run(snap(stock_build))
    assert [g.code for g in stock] == ["compat.tf-metal-mismatch"], [(g.code, g.title) for g in stock]
    assert "cannot load" in stock[0].title and "tensorflow 2.5.0 does not export" in stock[0].title
