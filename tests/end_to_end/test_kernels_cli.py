"""`tfdoctor check` and the Jupyter kernels a user really has: two kernels registered by
ipykernel itself (`python -m ipykernel install --user`) into a home of their own, one from a
venv with ipykernel, one from a venv deleted afterwards, as happens when a project's venv is
removed and its kernel stays behind."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor
from gather.test_collector import add_dist, make_venv
from support.kernelenv import kernel_env, kernel_python

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def jupyter_home(tmp_path_factory) -> dict:
    """A home with the kernels `good` (the ipykernel venv) and `gone` (a venv since removed),
    and a venv `tf` with TensorFlow's metadata (the environment diagnosed)."""
    root = tmp_path_factory.mktemp("jupyter")
    home = root / "home"
    home.mkdir()
    env = kernel_env(home)
    good = kernel_python()
    subprocess.run([str(good), "-m", "ipykernel", "install", "--user", "--name", "good",
                    "--display-name", "Python (good)"], env=env, check=True, capture_output=True)
    gone_python, gone_site = make_venv(root / "gone")
    site = next((good.parent.parent / "lib").glob("python3*/site-packages"))
    (gone_site / "with_ipykernel.pth").write_text(f"import site; site.addsitedir({str(site)!r})\n")
    subprocess.run([str(gone_python), "-m", "ipykernel", "install", "--user", "--name", "gone"],
                   env=env, check=True, capture_output=True)
    shutil.rmtree(root / "gone")
    tf_python, tf_site = make_venv(root / "tf")
    add_dist(tf_site, "tensorflow-cpu", "2.19.1", tags=("cp311-cp311-manylinux_2_17_x86_64",))
    return {"env": env, "home": home, "good": good, "gone": gone_python, "tf": tf_python}


def check(world: dict, *args: str):
    run = run_tfdoctor("check", "--no-runtime", *args, env=world["env"])
    assert_no_traceback(run)
    return run


def test_kernel_json_is_what_ipykernel_writes(jupyter_home):
    spec = json.loads((jupyter_home["home"] / "jupyter-data" / "kernels" / "gone" / "kernel.json").read_text())
    assert spec["argv"][0] == str(jupyter_home["gone"]) and spec["language"] == "python"


def test_check_lists_the_kernels_and_finds_the_deleted_venv(jupyter_home):
    run = check(jupyter_home, "--python", str(jupyter_home["tf"]))
    assert run.code == 0, run.stdout + run.stderr  # warnings: another environment's kernels
    lines = run.stdout.splitlines()
    listing = lines.index("Jupyter kernels (`tfdoctor check --kernel NAME` diagnoses one):")
    kernels = " ".join(" ".join(lines[listing + 1:listing + 6]).split())  # wrapped at 80 columns
    assert f"gone · {jupyter_home['gone']} · missing" in kernels
    assert f"good · Python (good) · {jupyter_home['good']}" in kernels and "no TensorFlow" in kernels
    assert "(kernel.missing-python)" in run.stdout
    assert f"$ rm -r -- {jupyter_home['home']}/jupyter-data/kernels/gone" in run.stdout
    assert "No Jupyter kernel runs this environment, and kernel good has no" in run.stdout
    assert f"$ {jupyter_home['tf']} -m pip install -- ipykernel" in run.stdout
    assert f"$ {jupyter_home['tf']} -m ipykernel install --user --name tf --display-name 'Python (tf)'" in run.stdout


def test_json_holds_the_kernels_in_the_snapshot(jupyter_home):
    doc = json.loads(check(jupyter_home, "--python", str(jupyter_home["tf"]), "--json").stdout)
    kernels = {k["name"]: k for k in doc["snapshot"]["jupyter"]["kernels"]}
    assert kernels["gone"]["exists"] is False and kernels["gone"]["interpreter"] == str(jupyter_home["gone"])
    good = kernels["good"]
    assert (good["exists"], good["is_target"], good["has_tensorflow"], good["format"]) == (True, False, False, "elf")
    codes = {f["code"]: f for f in doc["findings"]}
    assert codes["kernel.missing-python"]["severity"] == "warning"
    assert codes["kernel.no-tensorflow"]["evidence"]["kernel_of_this_environment"] is None


def test_check_kernel_diagnoses_that_kernels_interpreter(jupyter_home):
    run = check(jupyter_home, "--kernel", "Good", "--json")
    doc = json.loads(run.stdout)
    target = doc["snapshot"]["target"]
    assert (target["python"], target["chosen_by"]) == (str(jupyter_home["good"]), "--kernel")
    assert "Jupyter kernel good (Python (good))" in target["chosen_reason"]
    assert {k["name"]: k["is_target"] for k in doc["snapshot"]["jupyter"]["kernels"]}["good"] is True


@pytest.mark.parametrize("args, said", [
    (("--kernel", "nope"), "--kernel 'nope': no such Jupyter kernel; found gone, good"),
    (("--kernel", "gone"), "--kernel gone starts {gone}, which does not exist"),
    (("--kernel", "good", "--python", "python3"), "--kernel and --python both choose the interpreter"),
])
def test_a_kernel_that_cannot_be_diagnosed_is_a_usage_error(jupyter_home, args, said):
    run = check(jupyter_home, *args)
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.startswith("tfdoctor: error: " + said.format(gone=jupyter_home["gone"]))
    assert len(run.stderr.strip().splitlines()) == 1


def test_check_help_shows_kernel():
    run = run_tfdoctor("check", "--help", env={"COLUMNS": "80"})
    assert "--kernel" in run.stdout and "Jupyter kernel" in run.stdout


def test_kernel_ipykernel_installs_in_an_environment_is_found_there(jupyter_home, tmp_path):
    """`pip install ipykernel` puts share/jupyter/kernels/python3 (argv `python`) into the
    environment: Jupyter run from there starts that environment's own Python."""
    env = {**jupyter_home["env"], "HOME": str(tmp_path), "JUPYTER_DATA_DIR": str(tmp_path / "none")}
    doc = json.loads(run_tfdoctor("check", "--no-runtime", "--python", str(jupyter_home["good"]), "--json",
                                  env=env).stdout)
    (kernel,) = doc["snapshot"]["jupyter"]["kernels"]
    assert (kernel["name"], kernel["argv0"], kernel["resolved_by"], kernel["is_target"]) == (
        "python3", "python", "environment", True)
    assert Path(kernel["spec_dir"]).is_relative_to(jupyter_home["good"].parent.parent)
    assert sys.executable != kernel["interpreter"]
