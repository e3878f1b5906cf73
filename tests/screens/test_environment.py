"""The environment the user means (issue 21 item 1): tfdoctor installed in a venv of its own, as
the README's set-up does, diagnoses the activated environment, and its first line says which
and why."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def tfdoctor_venv(tmp_path_factory) -> Path:
    """A venv with tfdoctor installed in it (the checkout and this interpreter's dependencies
    on its path through a .pth file, as an editable install puts them)."""
    venv = _venv(tmp_path_factory.mktemp("own") / ".tfdoctor")
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "tfdoctor_checkout.pth").write_text(
        f"{REPO}\n{sysconfig.get_paths()['purelib']}\n")
    return venv


def first_lines(venv: Path, env: dict[str, str], *args: str) -> tuple[int, str, str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH")}
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "tfdoctor", "check",
                           "--no-runtime", "--no-probes", *args], capture_output=True, text=True,
                          timeout=120, env={**base, "NO_COLOR": "1", "COLUMNS": "400", **env})
    return proc.returncode, proc.stdout, proc.stderr


def header(stdout: str) -> str:
    """The report's first line (400 columns wide, so unwrapped)."""
    return stdout.splitlines()[0]


def test_activated_venv_is_diagnosed_not_tfdoctors_own(tfdoctor_venv, tmp_path):
    project = _venv(tmp_path / "tf")  # the user's environment, TensorFlow not (yet) in it
    code, stdout, stderr = first_lines(tfdoctor_venv, {
        "VIRTUAL_ENV": str(project), "PATH": f"{project / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    assert code == 1, stderr
    first = header(stdout)
    assert first.startswith(f"tfdoctor 0.1.0 · {project / 'bin' / 'python'} ("), first
    assert f"VIRTUAL_ENV={project} is active" in first  # the why
    assert str(tfdoctor_venv) in first  # tfdoctor's own, named as where it runs, not diagnosed
    assert f"$ {project / 'bin' / 'python'} -m pip install" in stdout
    assert str(tfdoctor_venv / "bin") not in stdout.split("\n", 1)[1]


def test_conda_prefix_when_no_venv_is_active(tfdoctor_venv, tmp_path):
    conda = _venv(tmp_path / "miniforge3" / "envs" / "tf")
    code, stdout, _ = first_lines(tfdoctor_venv, {"CONDA_PREFIX": str(conda)})
    assert header(stdout).startswith(f"tfdoctor 0.1.0 · {conda / 'bin' / 'python'} "
                                             f"(CONDA_PREFIX={conda} is active")


def test_nothing_active_diagnoses_tfdoctors_own_and_says_why(tfdoctor_venv):
    code, stdout, _ = first_lines(tfdoctor_venv, {})
    first = header(stdout)
    assert f"· {tfdoctor_venv / 'bin' / 'python'}" in first
    assert "(no VIRTUAL_ENV or CONDA_PREFIX is active: the Python tfdoctor runs in)" in first


def test_gitignore_keeps_the_readme_venv_out_of_git():
    assert ".tfdoctor/" in (REPO / ".gitignore").read_text().splitlines()


def test_every_python_option_says_what_the_default_really_is():
    """`--python`'s help said "default: this one" while the default is the active environment
    (issue 29): every command says how tfdoctor.gather.interpreter.choose_target picks, in the
    same words (run first tries the command's own python)."""
    import typer

    from tfdoctor.cli.main import load_app
    from tfdoctor.gather.interpreter import TOOL_MARKERS

    helps = {name: " ".join(p.help.split())
             for name, command in typer.main.get_command(load_app()).commands.items()
             for p in command.params if "--python" in p.opts}
    assert {"check", "collect", "probe", "lint", "ops", "run", "matrix", "fix"} <= set(helps)
    default = helps["check"].split("Default: ", 1)[1]
    assert all(text.endswith(default) for text in helps.values()), helps
    assert "this one" not in default
    assert default.index("VIRTUAL_ENV") < default.index("CONDA_PREFIX") < default.index(
        "the Python tfdoctor runs in") < default.index("first python3 on PATH")
    for _marker, kind in TOOL_MARKERS:
        assert kind in default
    assert helps["run"].startswith(helps["check"].split(" Default: ")[0] + " Default: the command's own")
