"""`collect --format markdown` opens with the versions a maintainer asks for, as PyTorch's
collect_env gives them (issue 29): the OS and its distribution, libc, the compilers, how Python
was built, pip and conda. Gathered by the real collector in the diagnosed interpreter on this
machine, and compared with what this test reads itself; nothing of the user's home or name."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor

from tfdoctor.inside.collector import build as collect_build


def versions_block(markdown: str) -> dict[str, str]:
    """The `Key: value` lines of the first ```text block."""
    block = markdown.split("```text\n", 1)[1].split("\n```", 1)[0]
    return dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)


def os_release_name() -> str | None:
    for path in collect_build.OS_RELEASE:
        if os.path.exists(path):
            for line in Path(path).read_text().splitlines():
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    return None


def test_the_versions_of_this_machine_as_the_collector_reads_them():
    run = run_tfdoctor("collect", "--format", "markdown", "--no-runtime", "--python", sys.executable)
    assert run.code == 0, run.stderr
    assert_no_traceback(run)
    said = versions_block(run.stdout)
    if platform.system() == "Linux":
        assert said["OS"] == f"{os_release_name() or 'Linux'} ({platform.machine()})"
        lib, version = platform.libc_ver()
        assert said["Libc version"] == (f"{lib} {version}" if lib else "Could not collect")
    assert said["Kernel"] == f"{platform.system()} {platform.release()}"
    gcc = shutil.which("gcc")
    if gcc:
        first = subprocess.run([gcc, "--version"], capture_output=True, text=True,
                               check=True).stdout.splitlines()[0]
        assert said["GCC version"] == first
    else:
        assert said["GCC version"] == "Could not collect (not on PATH)"
    bits = 64 if sys.maxsize > 2**32 else 32
    assert said["Python version"] == f"{platform.python_version()} (cpython, {bits}-bit runtime)"
    assert said["Python build"].startswith(platform.python_compiler())
    assert said["Python platform"] == platform.platform()
    assert said["Python executable"] == f"{sys.executable} ({platform.machine()})"
    assert said["pip version"] == metadata.version("pip")
    assert said["conda version"] == "N/A (not a conda environment)"


def test_nothing_of_the_users_home_or_name(tmp_path):
    """A compiler in the user's home, whose --version names the user: the block and the folded
    snapshot say neither the home nor the name (`collect` redacts unless --no-redact)."""
    home = tmp_path / "home" / "adalovelace"
    tools = home / "bin"
    tools.mkdir(parents=True)
    gcc = tools / "gcc"
    gcc.write_text(f"#!/bin/sh\necho 'gcc (built by adalovelace, {home}/src) 13.2.0'\n")
    gcc.chmod(0o755)
    run = run_tfdoctor("collect", "--format", "markdown", "--no-runtime", "--python", sys.executable,
                       env={"HOME": str(home), "USER": "adalovelace", "LOGNAME": "adalovelace",
                            "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"})
    assert run.code == 0, run.stderr
    assert versions_block(run.stdout)["GCC version"] == "gcc (built by <user>, ~/src) 13.2.0"
    assert "adalovelace" not in run.stdout.lower()
    assert str(home) not in run.stdout


def test_apples_compiler_shims_are_not_run_without_the_command_line_tools(tmp_path):
    """/usr/bin/clang on a Mac without the Command Line Tools opens an install dialog: with no
    developer directory (no xcode-select here), the shim is named and not run."""
    if not os.path.exists("/usr/bin/gcc"):
        pytest.skip("no /usr/bin/gcc to stand for Apple's shim")
    found = collect_build.compilers("Darwin", {"PATH": "/usr/bin"})
    gcc = next(c for c in found if c["name"] == "gcc")
    assert gcc["version"] is None and "Command Line Tools" in gcc["error"]
    linux = next(c for c in collect_build.compilers("Linux", {"PATH": "/usr/bin"}) if c["name"] == "gcc")
    assert linux["version"] and linux["error"] is None


def test_conda_version_is_read_from_the_roots_records(tmp_path):
    meta = tmp_path / "miniforge3" / "conda-meta"
    meta.mkdir(parents=True)
    for name in ("conda-libmamba-solver-23.7.0-pyhd8ed1ab_0.json", "conda-23.7.4-py311h6eaebdd_0.json",
                 "conda-package-handling-2.2.0-pyh38be061_0.json", "python-3.11.5-h47c9636_0.json"):
        (meta / name).write_text("{}")
    assert collect_build.conda_version(str(tmp_path / "miniforge3")) == "23.7.4"
    assert collect_build.conda_version(str(tmp_path / "nowhere")) is None
