"""Issue 28 classes 5 and 6: the interpreter a command asks, as the user names it and as it answers.

Class 5: an interpreter that cannot answer (it exits non-zero, prints garbage, or hangs) is never
taken for an environment without TensorFlow: every command that asks one says it could not, exit
2 (before: lint said "tensorflow-metal none" and ops listed the newest kernels, exit 0; collect and
matrix exit 0; check and probe exit 1). Class 6: `--python` is read as a shell reads a command: a
name with a slash is a path from the current directory, a bare name is looked up on PATH (before:
`./mypython` ran the `mypython` PATH has, and a bare name of a file here ran that file).
The fake interpreters are shell scripts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor

pytestmark = pytest.mark.slow  # interpreters that hang or lie, run as subprocesses

SAYS = "could not examine"

FAILING = "#!/bin/sh\necho 'garbage: no python here'\nexit 1\n"
HANGING = "#!/bin/sh\nsleep 600\n"
GARBAGE_COLLECTOR = (f"#!/bin/sh\n# answers the one-line check, then prints garbage for the collector\n"
                     f"if [ \"$1\" = \"-s\" ]; then exec {sys.executable} \"$@\"; fi\n"
                     "echo '{{{{ not json'\nexit 3\n")


def fake(tmp_path: Path, name: str, body: str) -> str:
    """An interpreter named `python` (so that `run -- PYTHON script.py` asks it) in a folder of
    its own."""
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "python"
    path.write_text(body)
    path.chmod(0o755)
    return str(path)


def commands(python: str, script: str) -> dict[str, list[str]]:
    """Every command that asks an interpreter, asking `python` (--timeout 1 where there is one:
    the one-line check then waits 1 s, elsewhere 10 s)."""
    return {
        "check": ["check", "--python", python, "--no-runtime", "--timeout", "1"],
        "check --json": ["check", "--python", python, "--json", "--timeout", "1"],
        "probe": ["probe", "--python", python, "--timeout", "1"],
        "probe --model": ["probe", "--python", python, "--model", "mymodels:build", "--timeout", "1"],
        "collect": ["collect", "--python", python, "--no-runtime", "--timeout", "1"],
        "lint": ["lint", script, "--python", python],
        "ops": ["ops", "--python", python],
        "matrix --for-this-machine": ["matrix", "--for-this-machine", "--python", python],
        "run": ["run", "--", python, script],
        "fix --dry-run": ["fix", "--dry-run", "--python", python],
        "fix --undo": ["fix", "--undo", "--python", python],
    }


def started(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tfdoctor", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "NO_COLOR": "1", "COLUMNS": "4000"})


def said_it_could_not(name: str, proc: subprocess.Popen, stdout: str, stderr: str) -> None:
    assert proc.returncode == 2, (name, proc.returncode, stdout[-2000:], stderr[-2000:])
    assert "Traceback" not in stdout + stderr, (name, stderr)
    if name.startswith(("check", "probe")):  # the report's diagnosis says so
        assert "target.unusable" in stdout, (name, stdout[-2000:])
        if name == "check --json":
            assert json.loads(stdout)["exit_code"] == 2
    else:
        assert SAYS in stderr, (name, stderr)
    if name in ("lint", "ops"):
        assert "tensorflow-metal" not in stdout, (name, stdout)  # no environment it never saw
    if name == "run":
        assert "ran" not in stdout and "the command was not run" in stderr


@pytest.mark.parametrize("kind", ["failing", "garbage-collector", "hanging"])
def test_every_command_says_the_interpreter_could_not_answer(tmp_path, kind):
    python = fake(tmp_path, kind, {"failing": FAILING, "garbage-collector": GARBAGE_COLLECTOR,
                                   "hanging": HANGING}[kind])
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nprint('ran')\n")
    asked = commands(python, str(script))
    running = {name: started(args, tmp_path) for name, args in asked.items()}  # together: hangs overlap
    for name, proc in running.items():
        try:
            stdout, stderr = proc.communicate(timeout=240)
        finally:
            proc.kill()
        said_it_could_not(name, proc, stdout, stderr)


def test_a_working_interpreter_is_still_diagnosed(tmp_path):
    """The same commands with tfdoctor's own interpreter answer as before (not exit 2)."""
    script = tmp_path / "train.py"
    script.write_text("print('ran')\n")
    for name in ("lint", "ops", "matrix --for-this-machine"):
        run = run_tfdoctor(*commands(sys.executable, str(script))[name])
        assert run.code in (0, 1), (name, run.stderr)
        assert_no_traceback(run)


# --- class 6: --python as a shell user types it ---------------------------------------------------


@pytest.fixture
def two_pythons(tmp_path):
    """`mypython` twice: in the working directory a wrapper of a real Python, on PATH one that
    cannot answer."""
    work, bin_dir = tmp_path / "work", tmp_path / "bin"
    work.mkdir()
    bin_dir.mkdir()
    mine = work / "mypython"
    mine.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    on_path = bin_dir / "mypython"
    on_path.write_text(FAILING)
    for path in (mine, on_path):
        path.chmod(0o755)
    return work, {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                  "NO_COLOR": "1"}


def check_json(args: list[str], cwd: Path, env: dict) -> tuple[int, dict | None, str]:
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--no-runtime", "--json", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout.strip() else None, proc.stderr


@pytest.mark.parametrize("given", ["./mypython", "../work/mypython"])
def test_a_name_with_a_slash_is_a_path_from_here(two_pythons, given):
    work, env = two_pythons
    code, doc, stderr = check_json(["--python", given], work, env)
    assert doc is not None, stderr
    assert code in (0, 1), (code, stderr, doc["diagnosis"])  # the wrapper here answers
    assert doc["snapshot"]["target"]["python"] == str(work / given)


def test_a_bare_name_is_looked_up_on_path(two_pythons):
    work, env = two_pythons
    code, doc, stderr = check_json(["--python", "mypython"], work, env)
    assert code == 2 and doc is not None, stderr
    assert doc["diagnosis"]["code"] == "target.unusable"  # PATH's mypython, which cannot answer
    assert str(work.parent / "bin" / "mypython") in json.dumps(doc["diagnosis"])


def test_a_bare_name_only_here_is_not_run(tmp_path):
    """A shell would not run `mypython` from the working directory: neither does tfdoctor, and
    it says how to name it."""
    (tmp_path / "mypython").write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    (tmp_path / "mypython").chmod(0o755)
    env = {**os.environ, "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    code, doc, stderr = check_json(["--python", "mypython"], tmp_path, env)
    assert code == 2 and doc is None
    assert stderr.startswith("tfdoctor: error: --python 'mypython': no such command on PATH (a file here: "
                             "give ./mypython)"), stderr


def test_a_venv_folder_here_by_its_bare_name(tmp_path):
    """`--python venv` where PATH has no `venv`: the environment folder here, as the README says."""
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    code, doc, stderr = check_json(["--python", "venv"], tmp_path, env)
    assert code in (0, 1) and doc is not None, stderr
    assert any(f["code"] == "target.ok" for f in doc["findings"])
