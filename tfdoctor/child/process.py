"""Run a script in the diagnosed interpreter, in its own process group, with a hard timeout, and
leave nothing behind whatever happens to it or to tfdoctor.

A broken TensorFlow install crashes (SIGILL, SIGSEGV), aborts or hangs inside the interpreter it
is installed in; the doctor must survive all of these and say which one happened. The child
writes its result to a file of its own (never mixed with whatever the environment prints), its
stderr goes to a file so that megabytes of logging cannot block it.

The child runs under a small supervisor (tfdoctor.child.supervisor) that kills its whole tree,
even descendants that left its process group, and cleans up should tfdoctor be killed outright;
tfdoctor itself turns SIGTERM and SIGHUP into the same clean-up (then dies of that signal:
Terminated, die_of). The child's files are untrusted input, read by tfdoctor.child.files.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from tfdoctor.child.files import read_bounded_fd, read_json_file, stderr_tampered
from tfdoctor.child.supervisor import Supervisor
from tfdoctor.child.tree import TOKEN_VAR

STDERR_KEEP = 64 * 1024
"""Bytes of stderr kept from each end: enough for a traceback and TensorFlow's log lines."""


@dataclass(frozen=True)
class ChildResult:
    """How the child ended, and what it said."""

    returncode: int | None
    timed_out: bool
    duration_s: float
    result: Any
    """The parsed JSON result document, or None."""
    result_error: str | None
    """Why there is no result: "missing", "malformed: ...", "unreadable: ...", None when there
    is one."""
    stderr: str
    stderr_bytes: int
    pid: int | None = None
    """The child's process id (None when not known): its result document must name it."""

    @property
    def signal_name(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


class Terminated(SystemExit):
    """tfdoctor received SIGTERM or SIGHUP while a child ran. Raised once the child's tree and
    temporary directory are gone, so that every `with` block on the way up cleans up too; the
    entry point then dies of the signal (die_of); uncaught, it exits with 128 + signal."""

    def __init__(self, signum: int, previous: Any = None) -> None:
        super().__init__(128 + signum)
        self.signum = signum
        self.previous = previous
        """The handler installed before run_child (SIG_DFL, or the program's own)."""


def run_child(
    python: str,
    script: Path,
    args: Sequence[str] = (),
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    tick: Callable[[Path, float], bool | None] | None = None,
    tick_interval: float = 0.2,
    also_remove: Sequence[str | Path] = (),
) -> ChildResult:
    """Run `python script RESULT_FILE *args` and collect its JSON result file.

    `also_remove`: directories of the caller's that the supervisor removes should tfdoctor be
    killed outright (a private copy of the script, say); the caller removes them otherwise.

    Raises OSError only when the interpreter cannot be started at all (no such file, not
    executable); every way a started child can end is described by the ChildResult.
    `tick(result_path, elapsed_s)`, when given, is called every `tick_interval` seconds while the
    child runs (to show progress from a result file the child rewrites as it goes); when it
    returns True the child is treated as timed out (a deadline that depends on the child's
    progress); an exception it raises propagates only after the child's tree has been killed.
    """
    tmp = tempfile.mkdtemp(prefix="tfdoctor-")
    try:
        with terminate_on_signals():
            return _run(python, script, args, tmp, timeout, env, tick, tick_interval,
                        [tmp, *map(str, also_remove)])
    except Terminated as stop:
        _remove(tmp)
        if callable(stop.previous):  # the program's own handler decides (restored already)
            stop.previous(stop.signum, None)
        raise
    finally:
        _remove(tmp)


def die_of(stop: Terminated) -> None:
    """End the process by the signal that Terminated stands for, as a shell and a CI runner
    expect (exit status 128 + signal, WIFSIGNALED); exit with that code if it is blocked."""
    signal.signal(stop.signum, signal.SIG_DFL)
    os.kill(os.getpid(), stop.signum)
    sys.exit(128 + stop.signum)


def _run(python: str, script: Path, args: Sequence[str], tmp: str, timeout: float,
         env: Mapping[str, str] | None, tick: Callable[[Path, float], bool | None] | None,
         interval: float, owned: list[str]) -> ChildResult:
    result_path = Path(tmp) / "result.json"
    # The child's own temporary files (TensorFlow's autograph writes one per traced function
    # and deletes it at interpreter exit, which the runtime child skips) go in a directory
    # removed with this one: tfdoctor leaves nothing behind in the user's /tmp.
    child_tmp = Path(tmp) / "tmp"
    child_tmp.mkdir()
    # No .pyc files either: neither beside tfdoctor's scripts (a foreign interpreter would
    # leave __pycache__ in tfdoctor's package) nor in the user's site-packages.
    child_env = {**(os.environ if env is None else env), "TMPDIR": str(child_tmp),
                 "TEMP": str(child_tmp), "TMP": str(child_tmp), "PYTHONDONTWRITEBYTECODE": "1",
                 TOKEN_VAR: os.urandom(16).hex()}  # what secrets.token_hex does, without its imports
    # tfdoctor keeps its own descriptors of the directory and the stderr file: the child may
    # rename, delete or replace the paths, never what is read.
    dir_fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    stderr_fd = os.open("stderr.txt", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=dir_fd)
    try:
        supervisor = Supervisor.start([python, str(script), str(result_path), *args],
                                      child_env, stderr_fd, owned)
        returncode: int | None = None
        timed_out = False
        try:
            returncode = supervisor.wait(
                timeout, None if tick is None else (lambda elapsed: tick(result_path, elapsed)),
                interval)
        except TimeoutError:
            timed_out = True
            returncode = supervisor.kill()
        except BaseException:
            supervisor.kill()
            raise
        duration = supervisor.duration()
        stderr, stderr_bytes = read_bounded_fd(stderr_fd, STDERR_KEEP)
        result, result_error = read_json_file(result_path, dir_fd=dir_fd)
        tampered = stderr_tampered(dir_fd, stderr_fd)
        if tampered:  # what the child wrote cannot be trusted either
            result, result_error = None, f"unreadable: {tampered}"
    finally:
        os.close(stderr_fd)
        os.close(dir_fd)
    return ChildResult(returncode, timed_out, duration, result, result_error, stderr, stderr_bytes,
                       supervisor.pid)


def _remove(tmp: str) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


class terminate_on_signals:
    """SIGTERM and SIGHUP raise Terminated while a child runs (main thread only: elsewhere
    Python cannot install handlers, and the supervisor still cleans up when tfdoctor dies)."""

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

    def __enter__(self) -> None:
        self.saved: dict[int, Any] = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in self.SIGNALS:
            previous = signal.getsignal(signum)
            if previous is signal.SIG_IGN:
                continue  # nohup: the user asked for this signal to be ignored
            self.saved[signum] = previous
            signal.signal(signum, self._raise)

    def _raise(self, signum: int, _frame: Any) -> None:
        raise Terminated(signum, self.saved.get(signum))

    def __exit__(self, *_exc: Any) -> None:
        for signum, previous in self.saved.items():
            signal.signal(signum, previous)
