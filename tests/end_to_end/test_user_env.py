"""tfdoctor installed as pipx installs it (its own venv, pipx_metadata.json at its root) diagnoses
the environment the user means: the active VIRTUAL_ENV, else the first python3 on PATH; never
its own, and its fixes never name its own interpreter (issue 11 item 7)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def ok(*cmd, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def tool_venv(tmp_path_factory) -> Path:
    """A pipx-style venv with tfdoctor built from a copy of the repository (the shared tree gets
    no build/ or egg-info from this)."""
    root = tmp_path_factory.mktemp("pipx")
    source = root / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", "tests", "benchmarks", "*.egg-info", "build", "dist", "__pycache__", ".pytest_cache"))
    ok(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", root / "dist", source)
    (wheel,) = (root / "dist").glob("tfdoctor-*.whl")
    venv = root / "venvs" / "tfdoctor"
    ok(sys.executable, "-m", "venv", venv)
    ok(venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-deps", wheel)
    # Dependencies from this interpreter's site-packages through a .pth line, as pipx shares
    # pip through pipx_shared.pth: a plain path, so no .pth of that directory (this
    # repository's editable install among them) is processed in the tool venv.
    purelib = ok(venv / "bin" / "python", "-c",
                 "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    system = ok(sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    (Path(purelib) / "tfdoctor_test_deps.pth").write_text(system.stdout.strip() + "\n")
    # What pipx writes at the root of each app's venv (pypa/pipx pipx_metadata_file.py).
    (venv / "pipx_metadata.json").write_text(json.dumps({"pipx_metadata_version": "0.5",
                                                         "main_package": {"package": "tfdoctor"}}))
    where = ok(venv / "bin" / "python", "-c", "import tfdoctor; print(tfdoctor.__file__)",
               cwd=root).stdout
    assert where.startswith(str(venv)), where  # its own copy, not the repository's
    return venv


def run_tool(venv: Path, env: dict[str, str]) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH")}
    proc = subprocess.run([str(venv / "bin" / "tfdoctor"), "check", "--no-runtime", "--no-probes",
                           "--json"], capture_output=True, text=True, timeout=120,
                          env={**base, "NO_COLOR": "1", **env}, cwd=venv.parent)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def all_commands(report: dict) -> list[str]:
    return [c for f in report["findings"] for c in (f.get("remediation") or {}).get("commands", [])]


def test_pipx_install_diagnoses_the_active_venv(tool_venv, tmp_path):
    project = tmp_path / "project"
    ok(sys.executable, "-m", "venv", "--without-pip", project)
    report = run_tool(tool_venv, {"VIRTUAL_ENV": str(project),
                                  "PATH": f"{project / 'bin'}{os.pathsep}{os.environ['PATH']}"})
    target = report["snapshot"]["target"]
    assert (target["chosen_by"], target["tool_env"]) == ("VIRTUAL_ENV", "pipx")
    assert target["python"] == str(project / "bin" / "python")
    assert report["snapshot"]["python"]["prefix"] == str(project)
    assert target["tool_python"].startswith(str(tool_venv))
    commands = all_commands(report)
    assert commands and not any(str(tool_venv) in c for c in commands)  # install.no-tensorflow's fix
    assert any(c.startswith(f"{project / 'bin' / 'python'} -m pip install") for c in commands)


def test_pipx_install_without_an_active_env_takes_python3_from_path(tool_venv, tmp_path):
    other = tmp_path / "other"
    ok(sys.executable, "-m", "venv", "--without-pip", other)
    path = os.pathsep.join([str(tool_venv / "bin"), str(other / "bin"), os.environ["PATH"]])
    report = run_tool(tool_venv, {"PATH": path})
    target = report["snapshot"]["target"]
    assert (target["chosen_by"], target["python"]) == ("PATH", str(other / "bin" / "python3"))
    assert report["snapshot"]["python"]["prefix"] == str(other)
    assert not any(str(tool_venv) in c for c in all_commands(report))
