"""The README's set-up works verbatim on a fresh machine whose python3 refuses installs outside
a venv (PEP 668), .ci/run runs exactly the README's test command (issue 21 item 2), and what
the README counts is what the code has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    """The one-line sh blocks of the README's set-up section, in order."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme[readme.index("## Set-up on a fresh machine"):readme.index("\n## ", readme.index("## Set-up") + 3)]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", setup, re.S)]


def test_ci_runs_exactly_the_readmes_test_command():
    test_command = next(c for c in readme_commands() if "pytest" in c)
    assert test_command.startswith("python3 -m venv .venv && ")  # installs nothing outside it
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    marker = script.index("# README: test command")
    assert script[marker + 1] == test_command
    assert script[marker + 1:] == [test_command]  # nothing after it: its status is CI's


def test_setup_commands_never_pip_install_outside_a_venv():
    """PEP 668: a bare `python3 -m pip install` fails on Homebrew's and Debian's Pythons."""
    commands = readme_commands()
    assert len(commands) >= 2
    for command in commands:
        for step in command.split("&&"):
            assert not re.match(r"\s*(python3?|pip3?)\s+(-m\s+pip\s+)?install", step.strip()), command
    install, tests = commands[0], next(c for c in commands if "pytest" in c)
    assert install.startswith("python3 -m venv .tfdoctor && .tfdoctor/bin/python -m pip install")
    assert tests.startswith("python3 -m venv .venv && .venv/bin/python -m pip install")
    assert ".venv/bin/python -m pytest" in tests
    ignored = (REPO / ".gitignore").read_text().splitlines()
    assert ".tfdoctor/" in ignored and ".venv/" in ignored


def test_readme_says_how_long_and_how_to_get_the_apple_extra():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "25 min 34 s was measured" in " ".join(readme.split()) and "eleven minutes" not in readme  # as measured, loaded
    assert 'pip install "tfdoctor[apple]"' not in readme  # not on PyPI
    assert '-m pip install ".[apple]"' in readme


PEP668_PYTHON3 = """#!/bin/sh
# python3 as Homebrew's and Debian's: pip refuses to install outside a virtual environment
if [ "$1 $2 $3" = "-m pip install" ]; then
    echo "error: externally-managed-environment" >&2
    exit 1
fi
exec {real} "$@"
"""


@pytest.mark.slow
def test_the_setup_command_works_verbatim_with_a_pep668_python3(tmp_path):
    """The README's first command, word for word, in a fresh copy of the checkout, with a
    python3 first on PATH that refuses `python3 -m pip install` (PEP 668) and a TensorFlow-less
    venv active: it installs, runs, and diagnoses the active venv. Then its command that puts
    `tfdoctor` alone on PATH: `tfdoctor run -- python` runs the active venv's python (with
    `.tfdoctor/bin` on PATH it ran tfdoctor's own)."""
    import os
    import shutil
    import subprocess
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(PEP668_PYTHON3.format(real=sys.executable))
    (bin_dir / "python3").chmod(0o755)
    clone = tmp_path / "tfdoctor"
    shutil.copytree(REPO, clone, ignore=shutil.ignore_patterns(
        ".git", "*.egg-info", "build", "dist", "__pycache__", ".pytest_cache", ".venv", ".tfdoctor",
        "benchmarks"))
    active = tmp_path / "tf"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(active)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{active / 'bin'}{os.pathsep}{env['PATH']}",
               VIRTUAL_ENV=str(active), NO_COLOR="1", COLUMNS="400")
    refused = subprocess.run(["python3", "-m", "pip", "install", "-q", "."], cwd=clone, env=env,
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "externally-managed" in refused.stderr
    install = readme_commands()[0]
    run = subprocess.run(["sh", "-c", install], cwd=clone, env=env, capture_output=True,
                         text=True, timeout=600)
    if run.returncode != 0 and "No matching distribution" in run.stderr:
        pytest.skip("pip could not reach a package index to install tfdoctor's dependencies")
    assert run.returncode == 1, run.stderr  # TensorFlow is not installed in the active venv
    first = run.stdout.splitlines()[0]
    assert first.startswith(f"tfdoctor 0.1.0 · {active / 'bin' / 'python'} (VIRTUAL_ENV={active} "
                            "is active; tfdoctor itself runs from "), first
    assert str(clone / ".tfdoctor") in first

    link = next(c for c in readme_commands() if "ln -s" in c)
    home = tmp_path / "home"
    home.mkdir()
    env.update(HOME=str(home), PATH=f"{home / '.local' / 'bin'}{os.pathsep}{env['PATH']}")
    subprocess.run(["sh", "-c", link], cwd=clone, env=env, check=True)
    which = "import sys; print('python is', sys.executable)"
    run = subprocess.run(["sh", "-c", f'tfdoctor run -- python -c "{which}"'], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300, check=False)
    assert f"python is {active / 'bin' / 'python'}" in run.stdout.splitlines(), run.stdout + run.stderr


def test_readme_counts_the_signatures():
    from tfdoctor.logtext.catalog import SIGNATURES

    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert f"recognises {len(SIGNATURES)} real messages" in readme
