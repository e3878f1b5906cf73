"""Issue 28 class 4: nothing outlives tfdoctor, whatever a command does to its supervisor.

A process tfdoctor starts (the command of `tfdoctor run`, the collector, the runtime child, the
model child) forks an escaper that leaves the session, drops the run's environment (the token the
sweep looks for) and SIGKILLs the supervisor; only then does it fork a grandchild and exit, so
that no look at the supervisor's tree could ever have seen the grandchild. Before: the escaper and
the grandchild stayed alive after tfdoctor exited (re-parented to init). Now tfdoctor is the subreaper of everything it
starts (Linux) and kills what a dead supervisor left. A supervisor stopped with SIGSTOP ended the
run too: before, tfdoctor waited for it forever.

Every process of a scenario carries a marker in its environment; after tfdoctor exits, /proc is
searched for it: a live process with the marker is one that outlived tfdoctor.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from faults import alive

pytestmark = [pytest.mark.slow,  # every supervisor run with an escaper, waited for
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="the subreaper and /proc are Linux's (macOS: see README)")]

PY = sys.executable
MARK = "TFDOCTOR_TEST_ESCAPER"

ESCAPER = """
import os, sys, time
supervisor, notes = int(sys.argv[1]), sys.argv[2]
def note(text):
    with open(notes, "a") as handle:
        handle.write(text + "\\n")
note("escaper %d" % os.getpid())
note("supervisor %d" % supervisor)
os.kill(supervisor, {signal})
if os.fork() == 0:  # born after the supervisor was gone: no look at its tree saw it
    os.setsid()
    note("grandchild %d" % os.getpid())
    time.sleep(300)
    os._exit(0)
os._exit(0)
"""


def escape_code(notes: Path, mark: str, signum: int = signal.SIGKILL) -> str:
    """Python for a child of tfdoctor's supervisor: start the escaper (own session, an
    environment of nothing but the marker), then wait to be killed."""
    return textwrap.dedent(f"""
        import os, sys, time
        supervisor = os.getppid()
        if os.fork() == 0:
            os.setsid()
            os.execve({PY!r}, [{PY!r}, "-c", {ESCAPER.format(signal=int(signum))!r}, str(supervisor),
                      {str(notes)!r}], {{{MARK!r}: {mark!r}}})
        time.sleep(300)
    """)


def marked(mark: str) -> list[int]:
    """Live processes whose environment holds the marker."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if f"{MARK}={mark}".encode() in environ.split(b"\0") and alive(int(entry)):
            found.append(int(entry))
    return found


def noted(notes: Path) -> dict[str, int]:
    lines = notes.read_text().split("\n") if notes.exists() else []
    return {kind: int(pid) for kind, pid in (line.split() for line in lines if line)}


def run_cli(args: list[str], cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "tfdoctor", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "NO_COLOR": "1"}, check=False)


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def assert_nothing_outlived(mark: str, notes: Path, done: subprocess.CompletedProcess) -> None:
    seen = noted(notes)
    left = marked(mark)
    kill_all(left)  # no test leaks them
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode != 3, done.stderr
    # (the grandchild, born once the supervisor is gone, may never be: tfdoctor can be quicker)
    assert {"escaper", "supervisor"} <= set(seen), (seen, done.stderr[-2000:])
    assert not alive(seen["supervisor"])
    assert left == [], f"outlived tfdoctor: {left} of {seen}"


def test_a_command_that_kills_its_supervisor_leaves_nothing(tmp_path):
    mark, notes = uuid.uuid4().hex, tmp_path / "notes"
    (tmp_path / "cmd.py").write_text(escape_code(notes, mark))
    done = run_cli(["run", "--json", "--", PY, "cmd.py"], tmp_path)
    assert_nothing_outlived(mark, notes, done)
    assert "supervisor was killed or stopped" in done.stdout


def fake_python(tmp_path: Path, script: str, notes: Path, mark: str) -> str:
    """An interpreter that is a real Python, except for tfdoctor's `script`, which escapes."""
    (tmp_path / "escape.py").write_text(escape_code(notes, mark))
    fake = tmp_path / "python"
    fake.write_text(textwrap.dedent(f"""\
        #!{PY}
        import os, sys
        if len(sys.argv) > 1 and sys.argv[1].endswith({script!r}):
            os.execv({PY!r}, [{PY!r}, {str(tmp_path / 'escape.py')!r}])
        os.execv({PY!r}, [{PY!r}, *sys.argv[1:]])
    """))
    fake.chmod(0o755)
    return str(fake)


@pytest.mark.parametrize("script, args", [
    ("collector/__main__.py", ["check", "--no-runtime"]),
    ("runtime/__main__.py", ["check", "--no-probes"]),
    ("model/__main__.py", ["probe", "--model", "mymodels:build", "--budget", "5"]),
])
def test_a_child_that_kills_its_supervisor_leaves_nothing(tmp_path, script, args):
    """The collector, the runtime child and the model child run the diagnosed interpreter's
    code too: the same escape from each leaves nothing once tfdoctor has exited."""
    mark, notes = uuid.uuid4().hex, tmp_path / "notes"
    python = fake_python(tmp_path, script, notes, mark)
    done = run_cli([*args, "--python", python, "--timeout", "30"], tmp_path)
    assert_nothing_outlived(mark, notes, done)


def test_a_command_that_stops_its_supervisor_ends_the_run(tmp_path):
    """SIGSTOP cannot be handled: the supervisor would never answer. tfdoctor notices, ends the
    run as it does for a killed supervisor, and leaves nothing."""
    mark, notes = uuid.uuid4().hex, tmp_path / "notes"
    (tmp_path / "cmd.py").write_text(escape_code(notes, mark, signal.SIGSTOP))
    started = time.monotonic()
    done = run_cli(["run", "--json", "--", PY, "cmd.py"], tmp_path, timeout=120)
    seen = noted(notes)
    try:
        assert time.monotonic() - started < 60, "tfdoctor waited for a stopped supervisor"
        assert_nothing_outlived(mark, notes, done)
        assert "supervisor was killed or stopped" in done.stdout
    finally:
        kill_all(seen.values())
