"""Shared test helpers: the tfdoctor CLI run as a user runs it (a subprocess)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
for _width in ("COLUMNS", "LINES"):  # pytest-xdist's workers set COLUMNS=80: a width only where a test sets it
    os.environ.pop(_width, None)
sys.path.insert(0, str(Path(__file__).resolve().parent))
# The suite runs as from a terminal, whatever started it: `nohup` ignores SIGHUP and a background
# job of a shell without job control ignores SIGINT, an ignored signal is inherited by every
# process a test starts, and tfdoctor rightly keeps a signal its parent ignored (so a test that
# sends Ctrl-C to `tfdoctor fix` would wait for an exit that never comes).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that runs TensorFlow is slow: `-m "not slow"` leaves out every `tf` test too."""
    for item in items:
        if item.get_closest_marker("tf"):
            item.add_marker(pytest.mark.slow)


@dataclass
class CliRun:
    code: int
    stdout: str
    stderr: str


def run_tfdoctor(*args: str, env: dict | None = None, timeout: float = 120, stdin: str | None = None) -> CliRun:
    """`python -m tfdoctor ARGS` in a subprocess, with colours off as in a pipe (`stdin`: what
    standard input holds; else none)."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    given = {"input": stdin} if stdin is not None else {}
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", *args], capture_output=True,
                          text=True, env=full_env, timeout=timeout, **given)
    return CliRun(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def tfdoctor():
    return run_tfdoctor


def assert_no_traceback(run: CliRun) -> None:
    for text in (run.stdout, run.stderr):
        assert "Traceback (most recent call last)" not in text, text
