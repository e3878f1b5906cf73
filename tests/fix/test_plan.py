"""`tfdoctor fix` plans, offline, from the Mac scenario snapshots (real public reports)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfdoctor import codes
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix.document import SCHEMA, OutcomeDoc, plan_document
from tfdoctor.fix.plan import build_plan
from tfdoctor.knowledge import best_pair, keras_releases
from tfdoctor.knowledge.matrix import load_matrix

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def plan_for(name: str, **kw):
    s = Snapshot.from_dict(json.loads((SCENARIOS / f"{name}.json").read_text())["snapshot"])
    return s, build_plan(diagnose(s), load_matrix(), **kw)


def step(plan, kind):
    return next(s for s in plan.steps if s.kind == kind)


def test_rosetta_x86_only_python_stops_at_an_arm64_python():
    _, plan = plan_for("rosetta_homebrew_usr_local")
    assert plan.blocked and plan.goal is None
    [only] = plan.steps
    assert only.kind == "instruction" and not only.runnable
    assert only.answers == (codes.ARCH_ROSETTA, codes.ARCH_X86_ONLY_INTERPRETER, codes.RUNTIME_IMPORT_SIGILL)
    assert only.shell[0].startswith("arch -arm64 /bin/bash -c")
    assert "/opt/homebrew/bin/brew install python@3.11" in only.shell
    assert "arch -arm64 /opt/homebrew/bin/python3.11 -m venv ~/venvs/tf-fixed" in only.shell
    assert not plan.runnable_steps


def test_rosetta_universal2_python_is_started_as_arm64():
    _, plan = plan_for("rosetta_terminal_universal2")
    assert not plan.blocked
    create, install = step(plan, "create-env"), step(plan, "install")
    assert create.command[:2] == ("arch", "-arm64") and create.command[3:5] == ("-m", "venv")
    assert install.command[:2] == ("arch", "-arm64")
    assert plan.goal.arch == "arm64"
    assert install.command[-2:] == ("tensorflow==2.19.*", "tensorflow-metal==1.2.0")


def test_tf_metal_mismatch_takes_the_pair_the_matrix_gives():
    s, plan = plan_for("pair_tf2180_metal110_homebrew39_venv")
    expected = best_pair.pairing(load_matrix(), "2.18.0", "1.1.0", "3.9", "arm64").fix
    assert expected == ("tensorflow==2.18.1", "tensorflow-metal==1.2.0")
    assert plan.goal.requirements == expected
    assert plan.goal.description == "arm64 Python 3.9, tensorflow 2.18.1 with tensorflow-metal 1.2.0, Keras 3"
    assert step(plan, "create-env").command == (s.python.executable, "-m", "venv",
                                                 "/Users/ada/test_tf_latest/.venv-fixed")
    install = step(plan, "install")
    assert install.command == ("/Users/ada/test_tf_latest/.venv-fixed/bin/python", "-m", "pip", "install",
                               "--", "tensorflow==2.18.1", "tensorflow-metal==1.2.0")
    assert codes.COMPAT_TF_METAL_MISMATCH in install.answers
    assert plan.steps[-1].command == ("tfdoctor", "check", "--python",
                                      "/Users/ada/test_tf_latest/.venv-fixed/bin/python")


def test_keras2_expected_gets_tf_keras_pinned_to_the_tensorflow_minor():
    _, plan = plan_for("keras3_env_without_tfkeras")
    pin = keras_releases.tf_keras_requirement(load_matrix(), "2.19.0", "3.11")
    assert pin is not None and pin.requirement == "tf-keras~=2.19.0"
    assert plan.goal.requirements == ("tensorflow==2.19.*", "tensorflow-metal==1.2.0", "tf-keras~=2.19.0")
    assert "Keras 2 (tf-keras~=2.19.0" in plan.goal.description
    assert codes.COMPAT_KERAS3 in step(plan, "install").answers
    assert any("TF_USE_LEGACY_KERAS=1" in n for n in plan.notes)


def test_numpy2_with_tf_built_for_numpy1_moves_to_a_tensorflow_built_for_numpy2():
    _, plan = plan_for("numpy2_with_tf214_static")
    assert codes.COMPAT_NUMPY_ABI in plan.answers
    install = step(plan, "install")
    assert install.command[-2:] == ("tensorflow==2.19.*", "tensorflow-metal==1.2.0")
    # unknown REQUESTED markers: nothing carried, and the likely top-level packages are named
    assert plan.carried == () and not plan.requested_known
    # with them known (the snapshot's REQUESTED facts), numpy is carried at a version 2.19's pin admits
    pins = load_matrix().tf_pins("2.19.0", "3.11")
    s, _ = plan_for("numpy2_with_tf214_static")
    for pkg in s.packages:
        pkg.requested = pkg.key in ("numpy", "tensorflow")
    known = build_plan(diagnose(s), load_matrix())
    assert known.requested_known
    [numpy] = known.carried
    assert numpy in ("numpy==2.3.4", f"numpy{pins['numpy']}")


def test_two_tensorflows_new_env_has_one_and_in_place_removes_both_after_a_restore_record():
    _, plan = plan_for("two_tensorflows_macos_and_tensorflow")
    install = step(plan, "install")
    tf = [a for a in install.command if a.split("==")[0] in ("tensorflow", "tensorflow-macos")]
    assert tf == ["tensorflow==2.19.*"]
    assert codes.INSTALL_MULTIPLE_TENSORFLOW in install.answers
    _, inplace = plan_for("two_tensorflows_macos_and_tensorflow", in_place=True)
    kinds = [s.kind for s in inplace.steps]
    # tf-keras stays (tensorflow-hub needs it) on TensorFlow 2.19, whose tf.keras is Keras 3: the
    # environment's activate script sets TF_USE_LEGACY_KERAS=1, and its undo removes that line
    assert kinds == ["resolve", "save-restore", "uninstall", "install", "set-variable", "verify"]
    variable = step(inplace, "set-variable")
    assert variable.command[-2:] == ("/Users/ada/openvino_env/bin/activate", "export TF_USE_LEGACY_KERAS=1")
    assert "/Users/ada/openvino_env/bin/activate" in variable.undo and "rm -rf" not in variable.undo
    assert step(inplace, "uninstall").command[-4:] == ("-y", "--", "tensorflow", "tensorflow-macos")  # both: they overwrote each other
    assert inplace.restore_record == "/Users/ada/openvino_env/tfdoctor-restore"
    resolve = step(inplace, "resolve").command
    assert resolve[1:6] == ("-m", "pip", "install", "--dry-run", "--ignore-installed")
    install = step(inplace, "install").command
    assert resolve[resolve.index("--"):] == install[install.index("--"):]  # the same set
    exe = "/Users/ada/openvino_env/bin/python"
    assert inplace.env_dir == "/Users/ada/openvino_env"
    assert step(inplace, "install").undo == step(inplace, "uninstall").undo == f"tfdoctor fix --undo --python {exe}"


def test_conda_osx64_stops_at_a_native_conda_environment():
    _, plan = plan_for("rosetta_conda_subdir_osx64")
    assert plan.blocked and "osx-64" in plan.blocked
    [only] = plan.steps
    assert not only.runnable
    assert only.shell[0] == "CONDA_SUBDIR=osx-arm64 conda create -n tf-arm64 python=3.11"
    assert codes.ARCH_CONDA_OSX_64 in only.answers


def test_healthy_snapshot_has_nothing_to_do():
    _, plan = plan_for("healthy_m2_tf2191_metal120_probed")
    assert plan.nothing_to_do and plan.steps == ()


def test_uv_installer_and_json_document():
    _, plan = plan_for("pair_tf2180_metal110_homebrew39_venv", installer="uv", new_env="/tmp/x")
    assert step(plan, "create-env").command[:2] == ("uv", "venv")
    assert step(plan, "install").command[:5] == ("uv", "pip", "install", "--python", "/tmp/x/bin/python")
    doc = plan_document(plan, OutcomeDoc("planned", 0))
    assert doc["schema"] == SCHEMA == "tfdoctor.fix-plan" and doc["schema_version"] == 2
    assert json.loads(json.dumps(doc))["steps"][1]["answers"]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "tfdoctor", "fix", *args], capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.slow  # tfdoctor fix subprocesses
def test_cli_snapshot_plan_json_and_bad_input():
    run = _cli("--snapshot", str(SCENARIOS / "rosetta_conda_subdir_osx64.json"), "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["blocked"]
    for args in (("--snapshot", "/nonexistent.json"), ("--in-place",), ("--in-place", "--new-env", "x", "--yes")):
        bad = _cli(*args)
        assert bad.returncode == 2
        assert bad.stderr.startswith("tfdoctor: error: ") and bad.stderr.count("\n") == 1
        assert "Traceback" not in bad.stderr


# --- conda environments ------------------------------------------------------------------------


def test_tensorflow_deps_only_for_the_old_tensorflow_macos_releases():
    from tfdoctor.fix.conda import tensorflow_deps_requirement

    assert tensorflow_deps_requirement("2.5.0") == "tensorflow-deps==2.5.0"
    assert tensorflow_deps_requirement("2.8.0") == "tensorflow-deps==2.8.0"
    assert tensorflow_deps_requirement("2.10.1") == "tensorflow-deps==2.10.0"
    # 2.11 and 2.12: Apple's guide installed it unpinned, which gives the last one
    assert tensorflow_deps_requirement("2.12.0") == "tensorflow-deps==2.10.0"
    for newer in ("2.13.0", "2.19.0", "2.4.0", None, "garbage"):
        assert tensorflow_deps_requirement(newer) is None, newer


def test_conda_env_with_an_old_pair_is_rebuilt_by_conda_with_tensorflow_deps():
    s, plan = plan_for("numpy_abi_api_0xe_numpy_0xd_tfmacos250")
    assert s.python.conda is not None and plan.installer == "conda" and not plan.blocked
    env = "/Users/ada/miniforge3/envs/tf25-fixed"
    assert plan.env == env
    assert plan.goal.requirements == ("tensorflow-macos==2.8.*", "tensorflow-metal==0.4.0")
    assert [st.kind for st in plan.steps] == ["create-env", "install", "verify"]
    assert step(plan, "create-env").command == ("conda", "create", "-y", "-p", env, "python=3.9", "pip",
                                                "-c", "apple", "tensorflow-deps=2.8.0")
    assert step(plan, "create-env").undo == f"conda env remove -y -p {env}"
    assert step(plan, "install").command == (f"{env}/bin/python", "-m", "pip", "install", "--",
                                             "tensorflow-macos==2.8.*", "tensorflow-metal==0.4.0")
    assert plan.steps[-1].command == ("tfdoctor", "check", "--python", f"{env}/bin/python")
    assert all(st.runnable for st in plan.steps)


def test_conda_env_with_a_new_pair_needs_no_tensorflow_deps_and_prefers_mamba():
    _, plan = plan_for("pair_metal110_tf218_symbol_not_found", conda_tool="mamba")
    assert plan.installer == "mamba"
    create = step(plan, "create-env")
    assert create.command == ("mamba", "create", "-y", "-p", "/opt/miniconda3/envs/metal-fixed",
                              "python=3.10", "pip")
    assert "tensorflow-deps" not in " ".join(create.command)
    assert step(plan, "install").command[-2:] == ("tensorflow==2.18.1", "tensorflow-metal==1.2.0")


def test_conda_env_without_conda_on_path_is_printed_for_the_user_and_never_run():
    from tfdoctor.fix import apply as fix_apply

    _, plan = plan_for("numpy_abi_api_0xe_numpy_0xd_tfmacos250", conda_tool=None)
    assert plan.blocked and "neither conda nor mamba" in plan.blocked
    assert step(plan, "create-env").command[0] == "conda"
    assert not any(st.runnable for st in plan.steps if st.kind != "verify")
    assert plan.runnable_steps == ()
    with pytest.raises(fix_apply.FixRefused, match="only you can take"):
        fix_apply.apply(plan, lambda _line: None)


def test_conda_in_place_installs_tensorflow_deps_with_conda_after_the_restore_record():
    _, plan = plan_for("numpy_abi_api_0xe_numpy_0xd_tfmacos250", in_place=True)
    kinds = [(st.kind, st.command[0]) for st in plan.steps]
    assert [k for k, _ in kinds[:2]] == ["resolve", "save-restore"] and kinds[-1][0] == "verify"
    conda_install = plan.steps[2]
    assert conda_install.command == ("conda", "install", "-y", "-p", "/Users/ada/miniforge3/envs/tf25",
                                     "-c", "apple", "tensorflow-deps=2.8.0")
    assert conda_install.undo == ("conda remove -y -p /Users/ada/miniforge3/envs/tf25 tensorflow-deps && "
                                  "tfdoctor fix --undo --python /Users/ada/miniforge3/envs/tf25/bin/python")
    pip_install = plan.steps[-2]
    assert pip_install.command[1:5] == ("-m", "pip", "install", "--")


def test_conda_osx64_scenarios_all_stop_at_a_native_environment():
    for name in ("conda_osx64_anaconda_base_tf2110_sigill", "conda_osx64_anaconda_no_tensorflow_macos",
                 "conda_osx64_miniconda_tensorflow_deps_not_found", "rosetta_conda_osx64_intel_installer"):
        _, plan = plan_for(name)
        assert plan.blocked and not plan.runnable_steps, name
        assert all("conda create" not in " ".join(st.command) for st in plan.steps), name


# --- --json against its schema ------------------------------------------------------------------


SCHEMA_FILE = Path(__file__).resolve().parents[2] / "tfdoctor" / "schemas" / "fix-plan.schema.json"


@pytest.mark.slow  # a tfdoctor fix subprocess per scenario
def test_fix_json_validates_against_the_shipped_fix_plan_schema():
    import jsonschema

    from tfdoctor.render.schemas import SCHEMAS

    schema = json.loads(SCHEMA_FILE.read_text())
    assert schema == SCHEMAS["fix-plan"]()
    assert json.loads(subprocess.run([sys.executable, "-m", "tfdoctor", "schema", "fix-plan"],
                                     capture_output=True, text=True, timeout=60).stdout) == schema
    properties = set(schema["$defs"]["PlanDoc"]["properties"])
    seen_kinds = set()
    for name in ("rosetta_homebrew_usr_local", "pair_tf2180_metal110_homebrew39_venv",
                 "numpy_abi_api_0xe_numpy_0xd_tfmacos250", "healthy_m2_tf2191_metal120_probed",
                 "numpy2_with_tf214_static"):
        run = _cli("--snapshot", str(SCENARIOS / f"{name}.json"), "--json")
        assert run.returncode == 0, run.stderr
        doc = json.loads(run.stdout)
        jsonschema.validate(doc, schema)
        assert set(doc) == properties, name  # every field written, none unlisted
        assert doc["applied"] is None  # a plan only printed was not applied
        seen_kinds |= {st["kind"] for st in doc["steps"]}
        broken = json.loads(run.stdout)
        broken["mode"] = "sideways"
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)
    assert {"instruction", "create-env", "install", "verify"} <= seen_kinds
    doc = json.loads(_cli("--snapshot", str(SCENARIOS / "two_tensorflows_macos_and_tensorflow.json"),
                          "--json").stdout)
    jsonschema.validate(doc, schema)
    assert doc["not_carried"][0]["name"] == "tensorflow-hub" and "REQUESTED" in doc["not_carried"][0]["why"]


@pytest.mark.parametrize("name", ["rosetta_homebrew_usr_local", "rosetta_conda_subdir_osx64",
                                  "pair_tf2180_metal110_homebrew39_venv", "keras3_env_without_tfkeras"])
def test_every_line_of_a_plan_is_a_shell_command_to_paste(name):
    """Issue 21 item 5: a `$` line is a shell command; what comes next is a command too."""
    import shlex

    for s in plan_for(name)[1].steps:
        for line in s.display():
            words = shlex.split(line, comments=True)
            assert words and not words[0].endswith(":"), line
