"""Fault injection without TensorFlow: `tfdoctor check` (a subprocess, as users run it) against
throwaway venvs whose `tensorflow` crashes, hangs, floods stderr or raises the real error texts
(tests/faults/). Each must give its finding code and exit code 1 (a hang: stopped at the timeout,
long before the fake's own sleep would end), with no Python traceback from tfdoctor and no process
left behind. The table is in tests/README.md."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import BY_NAME, FAULTS, PIDFILE_VAR, alive, make_fake_env, read_pids
from rich.console import Console

from tfdoctor.gather.runtime import gather_runtime

pytestmark = pytest.mark.slow  # a venv and a tfdoctor subprocess per fault

CODE_IN_TEXT = re.compile(r"\((runtime\.[a-z-]+)\)")


def run_check(python: Path, *args: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """`tfdoctor check`; waiting for the hanging fake's 600 s sleep would overrun the guard."""
    return subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--python", str(python),
                           "--timeout", f"{timeout:g}", *args],
                          capture_output=True, text=True, env=env, timeout=timeout + 120)


def fault_env(pidfile: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"}
    env.update(NO_COLOR="1", **{PIDFILE_VAR: str(pidfile)})
    return env


def assert_clean(proc: subprocess.CompletedProcess) -> None:
    for text in (proc.stdout, proc.stderr):
        assert "Traceback (most recent call last)" not in text, text[-3000:]
    assert "tfdoctor failed" not in proc.stderr


def assert_nothing_left(pidfile: Path) -> None:
    pids = read_pids(pidfile)
    assert pids, "the fake never ran"
    deadline = time.monotonic() + 30  # the kernel may take a moment to tear a killed process down
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in pids if alive(p)] == []


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_fault_text_report(fault, tmp_path):
    """The first screen a user sees: the finding code, exit 1, nothing left running."""
    python = make_fake_env(tmp_path, fault)
    pidfile = tmp_path / "pids"
    proc = run_check(python, env=fault_env(pidfile), timeout=fault.timeout)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = set(CODE_IN_TEXT.findall(proc.stdout))
    assert fault.code in found, proc.stdout
    assert found <= {fault.code}, f"unexpected runtime codes {found}"
    assert_clean(proc)
    assert_nothing_left(pidfile)


@pytest.mark.parametrize("fault", [f for f in FAULTS if f.name != "hang"], ids=lambda f: f.name)
def test_fault_json_report(fault, tmp_path):
    """--json: only JSON on stdout, the facts say how the child ended, the fix is a command."""
    python = make_fake_env(tmp_path, fault)
    pidfile = tmp_path / "pids"
    proc = run_check(python, "--json", env=fault_env(pidfile), timeout=fault.timeout)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["exit_code"] == 1
    runtime = report["snapshot"]["runtime"]
    assert runtime["outcome"] == fault.outcome, runtime["message"]
    findings = [f for f in report["findings"] if f["check"] == "runtime"]
    assert [f["code"] for f in findings] == [fault.code]
    fix = findings[0]["remediation"]
    assert fix and fix["commands"], findings[0]
    if fault.fix_contains:
        assert any(fault.fix_contains in c for c in fix["commands"]), fix["commands"]
    # not a terminal: no spinner, only one line per stage (issue 21), never a traceback
    assert all(line.startswith("tfdoctor: ") for line in proc.stderr.splitlines()), proc.stderr
    assert_nothing_left(pidfile)


def test_signal_facts(tmp_path):
    python = make_fake_env(tmp_path, BY_NAME["segv"])
    facts = gather_runtime(str(python), 10)
    assert (facts.outcome, facts.signal, facts.stage) == ("signal", "SIGSEGV", "importing")
    assert facts.log.python_fatal == "Segmentation fault"
    assert facts.log.python_stack and "tensorflow/__init__.py" in facts.log.python_stack[0]
    assert facts.stage_s["importing"] >= facts.stage_s["started"]


def test_flood_is_bounded(tmp_path):
    python = make_fake_env(tmp_path, BY_NAME["stderr_flood"])
    facts = gather_runtime(str(python), 30)
    assert facts.outcome == "import-error"  # read while it came, not stopped at the timeout
    assert facts.stderr_bytes >= 8 * 1024 * 1024
    assert len(facts.stderr_tail) <= 8000
    assert len(facts.log.events) <= 200


def test_hang_kills_the_whole_group_and_dumps_the_stack(tmp_path, monkeypatch):
    pidfile = tmp_path / "pids"
    monkeypatch.setenv(PIDFILE_VAR, str(pidfile))
    python = make_fake_env(tmp_path, BY_NAME["hang"])
    facts = gather_runtime(str(python), 3)
    assert facts.outcome == "timeout" and facts.stage == "importing"
    # faulthandler's dump, written just before the kill, says where it hung.
    assert facts.log.python_fatal == "Timeout"
    assert any("tensorflow/__init__.py" in frame for frame in facts.log.python_stack)
    pids = read_pids(pidfile)
    assert len(pids) == 2  # the child and the grandchild it started
    assert_nothing_left(pidfile)


def test_hang_with_probes_on_still_dumps_the_stack(tmp_path):
    """With the speed probes asked for (the default `check`), the child's hard limit is longer
    (by twice the probe budget and 10 s), but a hang before the probes is killed at --timeout,
    as without probes (the two waits compared, not timed against a clock), and must still say
    where it hung."""
    from tfdoctor.gather.runtime import inspect

    python = make_fake_env(tmp_path, BY_NAME["hang"])
    started = time.monotonic()
    gather_runtime(str(python), 3)
    without_probes = time.monotonic() - started
    started = time.monotonic()
    found = inspect(str(python), 3, probes={"preset": "check"})
    with_probes = time.monotonic() - started
    assert with_probes < 2 * without_probes, (without_probes, with_probes)  # the hard limit: 4x+
    assert found.runtime.outcome == "timeout" and found.runtime.stage == "importing"
    assert any("tensorflow/__init__.py" in frame for frame in found.runtime.log.python_stack)
    assert found.probes.outcome == "not-run"


def test_spinner_on_a_terminal_and_nothing_on_stdout(tmp_path, capsys):
    python = make_fake_env(tmp_path, BY_NAME["hang"])
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    facts = gather_runtime(str(python), 1.5, progress=console)
    assert facts.outcome == "timeout"
    assert "Importing TensorFlow in a child process" in screen.getvalue()
    assert capsys.readouterr().out == ""


def test_no_spinner_when_not_a_terminal(tmp_path):
    python = make_fake_env(tmp_path, BY_NAME["sigill"])
    screen = io.StringIO()
    gather_runtime(str(python), 10, progress=Console(file=screen, force_terminal=False))
    assert screen.getvalue() == ""


def test_interpreter_that_cannot_start(tmp_path):
    facts = gather_runtime(str(tmp_path / "no-such-python"), 5)
    assert facts.outcome == "not-started"


def test_the_probes_progress_adds_up_before_any_probe_has_written_its_figures():
    """`check`'s progress in the probes: seconds in, the budget, and what is left, from the first
    line on (before any probe has written its elapsed time, nothing is spent and all is left), so
    the figures add up on every line (tests/screens/test_fix80.py reads them)."""
    from tfdoctor.gather.runtime import _limit

    assert _limit("probes", {}, 3.0, 60.0, 6.0) == (0.0, "budget 6 s, 6 s left")
    assert _limit("probes", {"probes": {"elapsed_s": 2.4}}, 3.0, 60.0, 6.0) == (2.0, "budget 6 s, 4 s left")
    assert _limit("import", {}, 3.0, 60.0, 6.0) == (3.0, "timeout 60 s")
