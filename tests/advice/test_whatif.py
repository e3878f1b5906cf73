"""Advice as data, checked before it is printed (tfdoctor.advice.whatif, tfdoctor.engine.vet).

A remediation's commands carry what they change (tfdoctor.model.Change); the what-if applies the
changes to the snapshot as pip would, and the rules judge the result. The corpus-wide tests hold
every finding of every scenario snapshot, and every fix plan, to "no new error or warning".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, run_tfdoctor
from snapshots import _pkg, apple_silicon, linux_cpu, merge, snap

from tfdoctor.advice.commands import NotARequirement, pip, venv_command
from tfdoctor.advice.installs import install_commands
from tfdoctor.advice.whatif import WouldFail, after
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.engine.vet import WITHHELD, Vet, checked_commands
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge.matrix import load_matrix
from tfdoctor.model import Change, Command, Finding, Remediation, Severity

MATRIX = load_matrix()
SCENARIOS = sorted((REPO / "tests" / "scenarios").glob("*.json"))


def _scenario(path) -> Snapshot:
    return Snapshot.from_dict(json.loads(path.read_text(encoding="utf-8"))["snapshot"])


# --- the corpus: no printed prescription brings a new problem ------------------------------------


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_no_finding_of_a_scenario_prescribes_a_new_problem(path):
    """Every command of every finding, applied to the scenario's snapshot and diagnosed again,
    brings no error or warning the environment did not have; and the what-if could model it."""
    s = _scenario(path)
    report = diagnose(s)
    assert not [f.code for f in report.findings if WITHHELD in f.evidence]
    vet = Vet(s, report.findings, MATRIX)
    for finding in report.findings:
        if finding.remediation and finding.remediation.changes:
            verdict = vet.judge(finding.remediation.changes)
            assert verdict.conclusive and not verdict.wrong, (finding.code, verdict)


@pytest.mark.slow  # every fix plan of every scenario
@pytest.mark.parametrize("in_place", [False, True], ids=["new-env", "in-place"])
def test_no_fix_plan_of_a_scenario_brings_a_new_problem(in_place):
    """Every runnable fix plan (new environment and in place) for every scenario: its goal,
    applied to the snapshot, leaves no error or warning the diagnosis did not already have."""
    from tfdoctor.fix.plan import build_plan

    judged = 0
    for path in SCENARIOS:
        s = _scenario(path)
        report = diagnose(s)
        plan = build_plan(report, MATRIX, in_place=in_place, new_env="/tmp/tf-fixed")
        if plan.blocked or not plan.changes:
            continue
        verdict = Vet(s, report.findings, MATRIX).judge(plan.changes)
        assert verdict.conclusive and not verdict.wrong, (path.stem, plan.goal.requirements, verdict)
        judged += 1
    assert judged >= 20  # the corpus has that many runnable plans: the test judges real ones


# --- the what-if itself ----------------------------------------------------------------------------


def test_installing_tensorflow_beside_tensorflow_cpu_leaves_two_tensorflows():
    """The first thing a new user met: `pip install tensorflow` in a tensorflow-cpu venv."""
    s = snap(linux_cpu())
    result = after(s, [Change("install", requirements=("tensorflow",))], MATRIX)
    assert {p.key for p in result.tensorflow_distributions()} == {"tensorflow-cpu", "tensorflow"}
    assert result.runtime is None and result.probes is None  # the old observations are unknown now
    verdict = Vet(s, diagnose(s).findings, MATRIX).judge([Change("install", requirements=("tensorflow",))])
    assert verdict.wrong and "install.multiple-tensorflow" in verdict.new_problems


def test_an_install_moves_the_dependencies_the_new_release_pins():
    """tensorflow 2.19 pins numpy<2.2; pip moves an installed numpy 2.3 into the pin."""
    data = apple_silicon()
    data["packages"] = [p for p in data["packages"] if p["name"] != "numpy"] + [_pkg("numpy", "2.3.0", [])]
    result = after(snap(data), [Change("install", requirements=("tensorflow==2.19.1",), options=("--upgrade",))], MATRIX)
    numpy = result.package("numpy")
    assert numpy.version and numpy.version.startswith(("1.", "2.0", "2.1"))
    no_deps = after(snap(data), [Change("install", requirements=("tensorflow==2.19.1",),
                                        options=("--force-reinstall", "--no-deps"))], MATRIX)
    assert no_deps.package("numpy").version == "2.3.0"


def test_a_plugin_release_without_a_wheel_for_this_python_would_fail():
    """tensorflow-metal 1.1.0 has no cp312 wheel (compat_matrix.json): pip would refuse it."""
    s = snap(apple_silicon(python={"version": "3.12.4"}))
    with pytest.raises(WouldFail):
        after(s, [Change("install", requirements=("tensorflow-metal==1.1.0",))], MATRIX)
    verdict = Vet(s, [], MATRIX).judge([Change("install", requirements=("tensorflow-metal==1.1.0",))])
    assert verdict.new_problems == ("log.pip-no-matching-distribution",)


def test_a_report_without_the_pythons_architecture_installs_for_the_macs_own():
    """A report states the Python (3.10) and an Apple M1, not what the Python runs as: pip is
    modelled on the Mac's arm64 (the recommendation's own assumption), not refused for an empty
    architecture; with neither known, which wheel pip picks is not modelled (nor refused)."""
    report = {"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"},
              "python": {"version": "3.10.17", "implementation": "cpython", "executable": "python3"},
              "unknown": ["packages", "python-arch"]}
    pair = [Change("install", requirements=("tensorflow==2.19.*", "tensorflow-metal==1.2.0"))]
    assert after(snap(report), pair, MATRIX).package("tensorflow-metal").version == "1.2.0"
    report["host"] = {"system": "Darwin"}
    assert after(snap(report), pair, MATRIX) is None


def test_a_bare_force_reinstall_upgrades_and_a_pinned_one_does_not():
    """`pip install --force-reinstall tensorflow` installs the newest release, not the installed one."""
    s = snap(apple_silicon(packages=[_pkg("tensorflow", "2.15.0", []), _pkg("tensorflow-metal", "1.1.0", [])]))
    bare = after(s, [Change("install", requirements=("tensorflow",), options=("--force-reinstall", "--no-deps"))], MATRIX)
    pinned = after(s, [Change("install", requirements=("tensorflow==2.15.0",),
                              options=("--force-reinstall", "--no-deps"))], MATRIX)
    assert bare.package("tensorflow").version != "2.15.0" and pinned.package("tensorflow").version == "2.15.0"


def test_a_new_environment_starts_empty_with_the_python_asked_for():
    s = snap(apple_silicon(python={"version": "3.13.1"}))
    command = venv_command("3.12", ("tensorflow==2.19.*", "tensorflow-metal==1.2.0"))
    result = after(s, command.changes, MATRIX)
    assert result.python.version == "3.12.0" and result.python.prefix.endswith("venvs/tf")
    assert {p.key for p in result.packages} >= {"tensorflow", "tensorflow-metal", "numpy", "keras"}
    assert result.package("tensorflow").version == "2.19.1"


def test_variables_are_set_and_unset_in_the_what_if():
    s = snap(apple_silicon(env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"}))
    result = after(s, [Change("set-env", variable="TF_USE_LEGACY_KERAS", value="1"),
                       Change("unset-env", variable="TF_XLA_FLAGS")], MATRIX)
    assert result.env == {"TF_USE_LEGACY_KERAS": "1"}


def test_an_unparseable_requirement_is_not_modelled():
    s = snap(apple_silicon())
    assert after(s, [Change("install", requirements=("tensorflow===",))], MATRIX) is None
    assert Vet(s, [], MATRIX).judge([Change("install", requirements=("tensorflow===",))]).conclusive is False


# --- the vet: a wrong prescription is not printed ---------------------------------------------------


def test_a_rule_whose_command_would_install_a_second_tensorflow_gets_it_withheld():
    s = snap(linux_cpu())
    bad = Finding("x.demo", Severity.WARNING, "demo", {}, Remediation("install it", (pip(s, "install", "tensorflow"),
                                                                                   "tfdoctor check")))
    kept = Vet(s, diagnose(s).findings, MATRIX).vetted(bad)
    assert kept.remediation.commands == ("tfdoctor check",)  # read-only commands stay
    assert kept.evidence[WITHHELD]["would_find"] == ["install.multiple-tensorflow"]
    assert "withheld" in kept.remediation.text


def test_the_recommendation_for_this_machine_keeps_tensorflow_cpu():
    """`tfdoctor matrix --for-this-machine` in a tensorflow-cpu venv no longer prescribes
    `pip install tensorflow` (done as written, it installed a second TensorFlow)."""
    from tfdoctor.advice.installs import machine_recommendation

    s = snap(linux_cpu())
    machine = machine_recommendation(s, MATRIX)
    assert machine["requirements"] == ["tensorflow-cpu"] and machine["commands"] == []
    kept, verdict = checked_commands(s, [pip(s, "install", "tensorflow")], MATRIX)
    assert kept == [] and verdict.new_problems == ("install.multiple-tensorflow",)


def test_tensorflow_and_cuda_is_kept_as_the_user_chose_it():
    s = snap(linux_cpu(packages=[_pkg("tensorflow", "2.19.1", []), _pkg("nvidia-cudnn-cu12", "9.3.0.75", [])]))
    from tfdoctor.advice.installs import recommended_requirements

    assert recommended_requirements(s).requirements == ("tensorflow[and-cuda]",)


def test_an_installed_tensorflow_gpu_is_kept_as_the_build_that_carries_the_gpu_now():
    """Unpinned, tensorflow-gpu is 2.12.0, whose install only raises ('The "tensorflow-gpu" package
    has been removed!'): the choice it stands for is `tensorflow` (GPU from 2.1; with NVIDIA's wheels,
    its and-cuda extra)."""
    from tfdoctor.advice.installs import recommended_requirements

    gpu = snap(linux_cpu(packages=[_pkg("tensorflow-gpu", "1.15.5", [])]))
    assert recommended_requirements(gpu).requirements == ("tensorflow",)
    cuda = snap(linux_cpu(packages=[_pkg("tensorflow-gpu", "2.10.1", []), _pkg("nvidia-cudnn-cu12", "9.3.0.75", [])]))
    assert recommended_requirements(cuda).requirements == ("tensorflow[and-cuda]",)


# --- commands as data: quoting and names -------------------------------------------------------------


def test_requirements_follow_a_double_dash_and_values_are_quoted():
    s = snap(merge(linux_cpu(), {"python": {"executable": "/home/ada/my envs/$(touch x)/bin/python"}}))
    command = pip(s, "install", "--upgrade", "numpy<2")
    assert command == "'/home/ada/my envs/$(touch x)/bin/python' -m pip install --upgrade -- 'numpy<2'"
    assert command.changes == (Change("install", requirements=("numpy<2",), options=("--upgrade",)),)


@pytest.mark.parametrize("name", ["--index-url=http://evil", "$(touch x)", "-e .", "`id`", ""])
def test_a_name_that_is_not_a_requirement_never_reaches_a_command(name):
    with pytest.raises(NotARequirement):
        pip(snap(linux_cpu()), "install", "numpy", name)


def test_an_externally_managed_python_gets_a_venv_instead_of_pip_install():
    """PEP 668: Debian's and Homebrew's python3 refuse `pip install` outside a venv."""
    s = snap(merge(linux_cpu(), {"python": {"externally_managed": True}}))
    command = pip(s, "install", "tensorflow-cpu")
    assert command.startswith("/usr/bin/python3 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip install")
    assert [c.action for c in command.changes] == ["new-env", "install"]
    inside = snap(merge(linux_cpu(), {"python": {"externally_managed": True, "prefix": "/home/ada/v",
                                                 "base_prefix": "/usr"}}))
    assert pip(inside, "install", "tensorflow-cpu").startswith("/usr/bin/python3 -m pip install")  # a venv may


def test_a_switch_of_distribution_is_one_command_that_says_so():
    s = snap(apple_silicon(packages=[_pkg("tensorflow-macos", "2.12.0", []), _pkg("tensorflow-metal", "0.8.0", [])]))
    (command,) = install_commands(s, ("tensorflow==2.19.*", "tensorflow-metal==1.2.0"))
    assert command.startswith("/Users/ada/venvs/tf/bin/python -m pip uninstall -y -- tensorflow-macos && ")
    assert isinstance(command, Command) and [c.action for c in command.changes] == ["uninstall", "install"]


SYSTEM_PYTHON = Path("/usr/bin/python3")


@pytest.mark.skipif(not SYSTEM_PYTHON.exists() or not list(Path("/usr/lib").glob("python3*/EXTERNALLY-MANAGED")),
                    reason="this machine's /usr/bin/python3 is not externally managed (PEP 668)")
def test_a_real_externally_managed_python_is_told_to_make_a_venv():
    """Debian's python3 refuses `pip install` (PEP 668): the collector reads EXTERNALLY-MANAGED
    and every install tfdoctor prescribes for it goes into a new venv."""
    run = run_tfdoctor("check", "--python", str(SYSTEM_PYTHON), "--no-runtime", "--no-probes", "--json")
    report = json.loads(run.stdout)
    assert report["snapshot"]["python"]["externally_managed"] is True
    commands = [c for f in report["findings"] if f["remediation"] for c in f["remediation"]["commands"]]
    installs = [c for c in commands if " -m pip install" in c]
    assert installs and all(c.startswith(f"{SYSTEM_PYTHON} -m venv ") for c in installs)


# --- advice acts on the environment the evidence came from ----------------------------------------


def _with_log(data: dict, name: str) -> Snapshot:
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    s = snap(data)
    s.log = keep.read(LOGS / name, identity=WHO)
    return s


def test_a_log_from_another_environment_changes_nothing_here():
    """A Mac plugin error (macOS paths, Python 3.8) checked on a healthy Linux tensorflow-cpu
    venv: the advice is to find that environment and diagnose it, never an install here."""
    from tfdoctor.engine.vet import ELSEWHERE

    report = diagnose(_with_log(linux_cpu(), "metal_plugin_symbol_assign_update.txt"))
    (f,) = [x for x in report.findings if x.code == "log.symbol-not-found-plugin"]
    assert not f.remediation.changes and " -m pip " not in " ".join(f.remediation.commands)
    assert any(c.startswith("tfdoctor check --python PYTHON --log ") for c in f.remediation.commands)
    assert any("Darwin" in r for r in f.evidence[ELSEWHERE]) and any("3.8" in r for r in f.evidence[ELSEWHERE])


def test_a_log_from_this_environment_keeps_its_advice():
    """The same text with the Mac and the Python 3.8 it names: the pair is installed here."""
    from tfdoctor.engine.vet import ELSEWHERE

    data = apple_silicon(python={"version": "3.8.16"})
    report = diagnose(_with_log(data, "metal_plugin_symbol_assign_update.txt"))
    (f,) = [x for x in report.findings if x.code == "log.symbol-not-found-plugin"]
    assert ELSEWHERE not in f.evidence and f.remediation.changes


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_command_that_changes_an_environment_says_what_it_changes(path):
    """A pip install/uninstall or a new venv is never plain text: the what-if must be able to
    judge it (a command built by hand as a string would escape the check)."""
    for f in diagnose(_scenario(path)).findings:
        for command in f.remediation.commands if f.remediation else ():
            if " -m pip install" in command or " -m pip uninstall" in command or " -m venv " in command:
                assert isinstance(command, Command) and command.changes, (f.code, command)
