"""Issue 15, termination: nothing tfdoctor starts may outlive it. A `tensorflow` whose import
starts a grandchild in the group and a double-forked orphan that left the group with setsid(),
then hangs; tfdoctor gets SIGTERM (a CI timeout), SIGHUP (a closed terminal) or SIGKILL, or
reaches its own --timeout. Afterwards no process of the run may be alive and no temporary
directory left (before: the child, its descendants and /tmp/tfdoctor-* stayed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import alive, read_pids, site_packages

pytestmark = pytest.mark.slow  # tfdoctor subprocesses signalled, waited for

EVIL = '''
import os, time
def note():
    with open(os.environ["EVIL_PIDS"], "a") as handle:
        handle.write("%d\\n" % os.getpid())
note()
if os.fork() == 0:          # a grandchild that stays in the process group
    note()
    time.sleep(300)
    os._exit(0)
if os.fork() == 0:          # an orphan that leaves the group and the session
    os.setsid()
    if os.fork() == 0:
        note()
        time.sleep(300)
    os._exit(0)
time.sleep(300)
'''


@pytest.fixture(scope="module")
def evil_python(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("evil") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = site_packages(venv)
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(EVIL)
    return venv / "bin" / "python"


def start(evil_python: Path, tmp_path: Path, timeout: float) -> tuple[subprocess.Popen, Path, Path]:
    pids, tmpdir = tmp_path / "pids", tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "EVIL_PIDS": str(pids), "TMPDIR": str(tmpdir), "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tfdoctor", "check", "--python", str(evil_python),
                             "--no-probes", "--timeout", f"{timeout:g}", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 30
    while len(read_pids(pids)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(read_pids(pids)) == 3, "the fake did not start its processes"
    return proc, pids, tmpdir


def assert_nothing_left(pids: Path, tmpdir: Path) -> None:
    deadline = time.monotonic() + 30  # returns as soon as all are gone
    while (any(alive(p) for p in read_pids(pids)) or list(tmpdir.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in read_pids(pids) if alive(p)] == []
    assert list(tmpdir.iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=lambda s: signal.Signals(s).name)
def test_tfdoctor_killed_leaves_nothing(evil_python, tmp_path, signum):
    proc, pids, tmpdir = start(evil_python, tmp_path, 60)
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == -signum  # it dies of the signal, as a shell expects
    assert b"Traceback" not in err
    assert_nothing_left(pids, tmpdir)


def test_own_timeout_leaves_nothing(evil_python, tmp_path):
    proc, pids, tmpdir = start(evil_python, tmp_path, 2)
    out, _err = proc.communicate(timeout=30)
    assert proc.returncode == 1 and b"runtime.import-hang" in out
    assert_nothing_left(pids, tmpdir)


ESCAPE_AND_EXIT = '''
import json, os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[2], "a") as handle:
            handle.write("%d\\n" % os.getpid())
        time.sleep(300)
    os._exit(0)
for _ in range(100):  # until the orphan has recorded itself
    if os.path.exists(sys.argv[2]) and open(sys.argv[2]).read().strip():
        break
    time.sleep(0.05)
with open(sys.argv[1], "w") as handle:
    json.dump({"ok": True}, handle)
'''


def test_escaped_orphan_of_a_child_that_exits_normally_is_killed(tmp_path):
    """The child finishes normally, but left a double-forked orphan in a session of its own:
    run_child must not return with it alive (the process-group kill alone misses it)."""
    from tfdoctor.child.process import run_child

    script, pids = tmp_path / "escape.py", tmp_path / "pids"
    script.write_text(ESCAPE_AND_EXIT)
    child = run_child(sys.executable, script, [str(pids)], timeout=20)
    assert child.returncode == 0 and child.result == {"ok": True}
    assert len(read_pids(pids)) == 1
    deadline = time.monotonic() + 30
    while any(alive(p) for p in read_pids(pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in read_pids(pids) if alive(p)] == []


# --- the static collector, started before tfdoctor has parsed its command line ------------------


@pytest.fixture(scope="module")
def hanging_site_python(tmp_path_factory) -> Path:
    """A venv whose site start-up (a .pth file: every interpreter with site enabled runs it)
    starts the same grandchild and escaped orphan as EVIL, then hangs: the static collector
    never gets control."""
    venv = tmp_path_factory.mktemp("hanging-site") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    evil = venv / "evil_site.py"
    evil.write_text(EVIL)
    (site_packages(venv) / "zz_evil.pth").write_text(f"import runpy; runpy.run_path({str(evil)!r})\n")
    return venv / "bin" / "python"


def start_static(python: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, Path, Path]:
    pids, tmpdir = tmp_path / "pids", tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "EVIL_PIDS": str(pids), "TMPDIR": str(tmpdir), "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tfdoctor", "check", "--python", str(python),
                             "--no-runtime", "--no-probes", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return proc, pids, tmpdir


def wait_for_pids(pids: Path, count: int = 3) -> None:
    deadline = time.monotonic() + 30
    while len(read_pids(pids)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(read_pids(pids)) >= count, "the fake did not start its processes"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: signal.Signals(s).name)
def test_killed_while_the_early_collector_hangs_leaves_nothing(hanging_site_python, tmp_path, signum):
    proc, pids, tmpdir = start_static(hanging_site_python, tmp_path)
    wait_for_pids(pids)
    proc.send_signal(signum)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == -signum
    assert b"Traceback" not in err
    assert_nothing_left(pids, tmpdir)


def test_usage_error_calls_off_the_early_collector(hanging_site_python, tmp_path):
    """`--only nonsense` is a usage error found after the collector was started: tfdoctor exits
    2 at once, as quickly as with a Python whose start-up does not hang (not after the
    collector's 30 s), and its children and files are gone *before* it exits (not cleaned up
    afterwards by the supervisor that saw it go)."""
    def usage_error(python: Path, where: Path) -> tuple[float, Path, Path]:
        where.mkdir()
        started = time.monotonic()
        proc, pids, tmpdir = start_static(python, where, "--only", "nonsense")
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 2 and b"nonsense" in err, err
        return time.monotonic() - started, pids, tmpdir

    quick, _, _ = usage_error(Path(sys.executable), tmp_path / "quick")
    seconds, pids, tmpdir = usage_error(hanging_site_python, tmp_path / "hanging")
    assert seconds < 4 * quick, f"{seconds:.1f} s against {quick:.1f} s"  # waiting: 30 s more
    assert [p for p in read_pids(pids) if alive(p)] == []
    assert list(tmpdir.iterdir()) == []


def test_early_collector_times_out_like_the_late_one(hanging_site_python, tmp_path):
    proc, pids, tmpdir = start_static(hanging_site_python, tmp_path, "--timeout", "2", "--json")
    out, _err = proc.communicate(timeout=60)
    target = json.loads(out)["snapshot"]["target"]
    assert proc.returncode == 2 and target["problem"] == "timeout" and target["started"] is False
    assert_nothing_left(pids, tmpdir)
