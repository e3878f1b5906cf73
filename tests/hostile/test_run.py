"""Issue 22 class 5: what `tfdoctor run -- CMD` starts may not outlive it. tfdoctor killed with
SIGKILL while the command runs; a grandchild that calls setsid() and clears its environment; a
command that kills tfdoctor's supervisor; a command stopped with SIGSTOP when SIGTERM reaches
tfdoctor. Real processes: small Python scripts that write their pids to a file; every wait is
bounded; afterwards no recorded process may be alive (before: each of them stayed, or tfdoctor
waited forever)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from faults import alive, read_pids

from tfdoctor.gather import supervised_run

pytestmark = pytest.mark.slow  # tfdoctor run killed and escaped, waited for

PY = sys.executable
MAIN_ONLY = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                               reason="signals need the main thread")

NOTE = """
import os, subprocess, sys, time
PIDS = {pids!r}
def note(pid):
    with open(PIDS, "a") as handle:
        handle.write("%d\\n" % pid)
def hidden_grandchild():
    # Leaves the process group and the session, drops the run's environment (its token), and
    # is orphaned by a double fork: neither group, session nor token finds it.
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.close(r)
            os.write(w, b"%d\\n" % os.getpid())
            os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)"], {{}})
        os._exit(0)
    os.close(w)
    pid = int(os.read(r, 64))
    note(pid)
    return pid
"""


def write(tmp_path: Path, body: str) -> tuple[list[str], Path]:
    pids = tmp_path / "pids"
    path = tmp_path / "cmd.py"
    path.write_text(NOTE.format(pids=str(pids)) + textwrap.dedent(body), encoding="utf-8")
    return [PY, str(path)], pids


def wait_pids(pids: Path, count: int, bound: float = 60) -> list[int]:
    deadline = time.monotonic() + bound
    while len(read_pids(pids)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    found = read_pids(pids)
    assert len(found) >= count, f"the command did not start its processes: {found}"
    return found


def gone_within(pids: list[int], bound: float) -> list[int]:
    """The pids still alive after `bound` seconds (killed here, so that no test leaks them)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    left = [p for p in pids if alive(p)]
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def start_cli(argv: list[str], tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen([PY, "-m", "tfdoctor", "run", "--json", "--", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "NO_COLOR": "1"}, cwd=tmp_path)


def test_tfdoctor_killed_outright_takes_the_command_and_its_descendants(tmp_path):
    argv, pids = write(tmp_path, """
        note(os.getpid())
        hidden_grandchild()
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        note(child.pid)
        time.sleep(300)
    """)
    proc = start_cli(argv, tmp_path)
    try:
        found = wait_pids(pids, 3, bound=60)
        proc.kill()  # SIGKILL: tfdoctor cleans up nothing itself
        proc.wait(timeout=10)
        assert gone_within(found, 30) == []
    finally:
        proc.kill()
        proc.wait(timeout=10)
        gone_within(read_pids(pids), 0)


def test_a_setsid_grandchild_without_the_token_is_killed_at_the_end(tmp_path):
    argv, pids = write(tmp_path, """
        note(os.getpid())
        hidden_grandchild()
        print("parent done", flush=True)
    """)
    out = io.BytesIO()
    result = supervised_run.run(argv, timeout=60, stdout=out, stderr=io.BytesIO())
    found = read_pids(pids)
    assert len(found) == 2 and out.getvalue() == b"parent done\n"
    # exited, not stopped at the timeout: tfdoctor did not wait for the grandchild's 300 s
    assert result.facts.outcome == "exited" and result.facts.returncode == 0
    assert gone_within(found, 30) == []
    assert result.facts.leftovers_killed >= 1


def test_a_command_that_kills_its_supervisor_is_noticed_and_its_tree_killed(tmp_path):
    argv, pids = write(tmp_path, f"""
        note(os.getpid())
        hidden_grandchild()
        time.sleep(0.5)
        if os.getppid() == {os.getpid()}:
            sys.exit("no supervisor between tfdoctor and the command")
        os.kill(os.getppid(), 9)
        time.sleep(300)
        open(PIDS + ".done", "w").close()
    """)
    result = supervised_run.run(argv, timeout=600, stdout=io.BytesIO(), stderr=io.BytesIO())
    assert not Path(str(pids) + ".done").exists(), "tfdoctor waited for the command"
    found = read_pids(pids)
    assert len(found) == 2
    assert gone_within(found, 30) == []
    assert not result.facts.ok and "supervisor" in result.facts.message


def test_a_stopped_command_and_sigterm_end_promptly(tmp_path):
    argv, pids = write(tmp_path, """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        note(os.getpid())
        hidden_grandchild()
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        note(child.pid)
        time.sleep(300)
    """)
    proc = start_cli(argv, tmp_path)
    try:
        found = wait_pids(pids, 3, bound=60)
        os.kill(found[0], signal.SIGSTOP)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        try:  # the grace, then SIGKILL; the command itself would sleep for 300 s
            out, _ = proc.communicate(timeout=supervised_run.GRACE_S + 120)
        except subprocess.TimeoutExpired:
            pytest.fail("tfdoctor did not exit after SIGTERM with the command stopped")
        assert proc.returncode in (1, 128 + signal.SIGTERM, -signal.SIGTERM)
        assert gone_within(found, 30) == []
        assert b"Traceback" not in out
    finally:
        proc.kill()
        proc.wait(timeout=10)
        gone_within(read_pids(pids), 0)


@MAIN_ONLY
def test_stopped_command_gets_sigcont_sigterm_then_sigkill_after_the_grace(tmp_path):
    """In-process, with a short grace: the stopped command is continued and terminated; one that
    ignores SIGTERM is killed when the grace is over."""
    argv, pids = write(tmp_path, """
        import signal
        signal.signal(signal.SIGTERM, lambda *_: open(PIDS + ".term", "w").close())
        note(os.getpid())
        time.sleep(300)
    """)

    def stop_then_terminate() -> None:
        found = wait_pids(pids, 1)
        os.kill(found[0], signal.SIGSTOP)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=stop_then_terminate)
    sender.start()
    # a grace of 3 s: on a busy machine (the CI's two cores) the continued command may need more
    # than half a second to run its handler before the SIGKILL
    result = supervised_run.run(argv, timeout=60, grace=3.0, stdout=io.BytesIO(), stderr=io.BytesIO())
    sender.join(timeout=10)
    assert result.facts.forwarded == ["SIGTERM"]
    assert Path(str(pids) + ".term").exists(), "SIGTERM did not reach the continued command"
    assert result.facts.outcome == "signal" and result.facts.signal == "SIGKILL"
    assert result.facts.killed_after_grace  # after the 3 s grace, not at the 60 s timeout
    assert gone_within(read_pids(pids), 30) == []
