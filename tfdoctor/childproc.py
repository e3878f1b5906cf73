"""Run a script in the diagnosed interpreter, in its own process group, with a hard timeout.

A broken TensorFlow install crashes (SIGILL, SIGSEGV), aborts or hangs inside the interpreter it
is installed in; the doctor must survive all of these and say which one happened. The child
writes its result to a file of its own (never mixed with whatever the environment prints), its
stderr goes to a file so that megabytes of logging cannot block it, and on timeout the whole
process group is killed so nothing is left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

STDERR_KEEP = 64 * 1024
"""Bytes of stderr kept from each end: enough for a traceback and TensorFlow's log lines."""
STDERR_TAIL = 8000
"""Characters of a child's stderr kept in the facts (all of the bounded stderr is parsed)."""


@dataclass(frozen=True)
class ChildResult:
    """How the child ended, and what it said."""

    returncode: int | None
    timed_out: bool
    duration_s: float
    result: Any
    """The parsed JSON result document, or None."""
    result_error: str | None
    """Why there is no result: "missing" or "malformed: ...", None when there is one."""
    stderr: str
    stderr_bytes: int

    @property
    def signal_name(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


def run_child(
    python: str,
    script: Path,
    args: Sequence[str] = (),
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    tick: Callable[[Path, float], bool | None] | None = None,
    tick_interval: float = 0.2,
) -> ChildResult:
    """Run `python script RESULT_FILE *args` and collect its JSON result file.

    Raises OSError only when the interpreter cannot be started at all (no such file, not
    executable); every way a started child can end is described by the ChildResult.
    `tick(result_path, elapsed_s)`, when given, is called every `tick_interval` seconds while the
    child runs (to show progress from a result file the child rewrites as it goes); when it
    returns True the child is treated as timed out (a deadline that depends on the child's
    progress); an exception it raises propagates only after the process group has been killed.
    """
    with tempfile.TemporaryDirectory(prefix="tfdoctor-") as tmp:
        result_path = Path(tmp) / "result.json"
        stderr_path = Path(tmp) / "stderr.txt"
        # The child's own temporary files (TensorFlow's autograph writes one per traced
        # function and deletes it at interpreter exit, which the runtime child skips) go in a
        # directory removed with this one: tfdoctor leaves nothing behind in the user's /tmp.
        child_tmp = Path(tmp) / "tmp"
        child_tmp.mkdir()
        # No .pyc files either: neither beside tfdoctor's scripts (a foreign interpreter would
        # leave __pycache__ in tfdoctor's package) nor in the user's site-packages.
        child_env = {**(os.environ if env is None else env), "TMPDIR": str(child_tmp),
                     "TEMP": str(child_tmp), "TMP": str(child_tmp), "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.monotonic()
        with open(stderr_path, "wb") as stderr_file:
            proc = subprocess.Popen(
                [python, str(script), str(result_path), *args],
                stdin=subprocess.DEVNULL,
                stdout=stderr_file,
                stderr=stderr_file,
                env=child_env,
                start_new_session=True,
            )
            timed_out = False
            returncode: int | None = None
            try:
                returncode = _wait(proc, started, timeout, result_path, tick, tick_interval)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
            except BaseException:
                _kill_group(proc, quiet=True)
                raise
        duration = time.monotonic() - started
        # Descendants (a TensorFlow thread pool never outlives its process, but a child's own
        # subprocess could) are killed with the group even after a normal exit.
        _kill_group(proc, quiet=True)
        stderr, stderr_bytes = _read_bounded(stderr_path)
        result, result_error = _read_result(result_path)
    return ChildResult(returncode, timed_out, duration, result, result_error, stderr, stderr_bytes)


def _wait(proc: subprocess.Popen, started: float, timeout: float, result_path: Path,
          tick: Callable[[Path, float], bool | None] | None, interval: float) -> int:
    """proc's return code; subprocess.TimeoutExpired once `timeout` has passed since `started`."""
    if tick is None:
        # A blocking wait with a timer, not Popen.wait(timeout), which polls with sleeps of up to
        # 50 ms: the static collector finishes in well under 100 ms, so polling would add half.
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()

        timer = threading.Timer(timeout, expire)
        timer.start()
        try:
            returncode = proc.wait()
        finally:
            timer.cancel()
        if expired.is_set():
            raise subprocess.TimeoutExpired(proc.args, timeout)
        return returncode
    deadline = started + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        try:
            return proc.wait(timeout=min(interval, remaining))
        except subprocess.TimeoutExpired:
            if tick(result_path, time.monotonic() - started):
                raise


def _kill_group(proc: subprocess.Popen, quiet: bool = False) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        if not quiet:
            proc.kill()
    if proc.returncode is None:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def _read_bounded(path: Path) -> tuple[str, int]:
    size = path.stat().st_size
    with open(path, "rb") as handle:
        if size <= 2 * STDERR_KEEP:
            data = handle.read()
        else:
            head = handle.read(STDERR_KEEP)
            handle.seek(size - STDERR_KEEP)
            data = head + b"\n[... %d bytes cut ...]\n" % (size - 2 * STDERR_KEEP) + handle.read()
    return data.decode("utf-8", "replace"), size


def _read_result(path: Path) -> tuple[Any, str | None]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        return None, f"unreadable: {exc}"
    try:
        return json.loads(text), None
    except ValueError as exc:
        return None, f"malformed: {exc}"
