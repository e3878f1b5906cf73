"""Run a script in the diagnosed interpreter, in its own process group, with a hard timeout, and
leave nothing behind whatever happens to it or to tfdoctor.

A broken TensorFlow install crashes (SIGILL, SIGSEGV), aborts or hangs inside the interpreter it
is installed in; the doctor must survive all of these and say which one happened. The child
writes its result to a file of its own (never mixed with whatever the environment prints), its
stderr goes to a file so that megabytes of logging cannot block it.

Nothing the child starts may outlive tfdoctor (issue 15), so the child runs under a small
supervisor (this module, run by tfdoctor's own Python, see `_supervise`), which:
- marks the child's environment with a per-run token and, at the end, kills every process that
  carries it (psutil reads other processes' environments on macOS and Linux alike): this finds
  descendants that left the process group with setsid() and double-forked orphans;
- on Linux, is also a child subreaper (PR_SET_CHILD_SUBREAPER), so orphans are its children;
- watches tfdoctor through a pipe: when tfdoctor dies, even by SIGKILL, the pipe closes and the
  supervisor kills the child's whole tree and removes the temporary directory.
tfdoctor itself turns SIGTERM and SIGHUP into the same clean-up (then dies of that signal).

The child's files are untrusted input (it runs whatever the environment imports): the result
is opened without following symlinks and without blocking, must be a regular file, and is read
within size and nesting limits; stderr is read through tfdoctor's own descriptor, head and tail
only; a stderr path replaced by the child, or punched into a sparse file, makes the result
"unreadable" (runtime.bad-output).

Sections: the API (run_child), tfdoctor's side of the supervisor, the supervisor process, the
file readers. (One module because the supervisor runs this very file; see _Supervisor.start.)
"""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from tfdoctor.typed import depth_within

STDERR_KEEP = 64 * 1024
"""Bytes of stderr kept from each end: enough for a traceback and TensorFlow's log lines."""
STDERR_TAIL = 8000
"""Characters of a child's stderr kept in the facts (all of the bounded stderr is parsed)."""
TOKEN_VAR = "TFDOCTOR_RUN_TOKEN"
"""Environment variable that marks every process of one run (inherited by all descendants)."""
MAX_RESULT_BYTES = 32 * 1024 * 1024
"""Far above a real result (the probes' raw timings are a few hundred KB)."""
MAX_RESULT_DEPTH = 64
"""A real result nests about 7 levels."""


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
        with _terminate_on_signals():
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
                 TOKEN_VAR: secrets.token_hex(16)}
    # tfdoctor keeps its own descriptors of the directory and the stderr file: the child may
    # rename, delete or replace the paths, never what is read.
    dir_fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    stderr_fd = os.open("stderr.txt", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=dir_fd)
    try:
        supervisor = _Supervisor.start([python, str(script), str(result_path), *args],
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
        tampered = _stderr_tampered(dir_fd, stderr_fd)
        if tampered:  # what the child wrote cannot be trusted either
            result, result_error = None, f"unreadable: {tampered}"
    finally:
        os.close(stderr_fd)
        os.close(dir_fd)
    return ChildResult(returncode, timed_out, duration, result, result_error, stderr, stderr_bytes,
                       supervisor.pid)


def _remove(tmp: str) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


class _terminate_on_signals:
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


class _Supervisor:
    """tfdoctor's side of the supervisor: a pipe each way, one line per message."""

    def __init__(self, proc: subprocess.Popen, pid: int, started: float) -> None:
        self.proc = proc
        self.pid = pid
        self.started = started
        self.ended: float | None = None
        self.returncode: int | None = None
        self._buffer = b""

    @classmethod
    def start(cls, argv: list[str], env: dict[str, str], stderr_fd: int, owned: list[str]) -> "_Supervisor":
        import psutil

        paths = [str(Path(__file__).resolve().parents[1]), str(Path(psutil.__file__).resolve().parents[1])]
        boot = (f"import sys; sys.path[:0] = {paths!r}; "
                "from tfdoctor.childproc import _supervise; _supervise()")
        proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", boot], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                pass_fds=(stderr_fd,), start_new_session=True)
        config = {"argv": argv, "env": env, "stderr_fd": stderr_fd, "owned": owned,
                  "parent": os.getpid()}
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(config).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            pass
        self = cls(proc, 0, time.monotonic())
        reply = self._line(deadline=time.monotonic() + 60)
        if reply.startswith("started "):
            self.pid = int(reply.split()[1])
            self.started = time.monotonic()
            return self
        self._close()
        if reply.startswith("error "):
            _, number, message = reply.split(" ", 2)
            raise OSError(int(number), message, argv[0])
        raise OSError(f"tfdoctor's supervisor did not start ({reply or 'no reply'})")

    def _line(self, deadline: float | None) -> str:
        """The next line from the supervisor; "" at EOF; TimeoutError after `deadline`."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, 4096)
            if not chunk:
                return ""
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def wait(self, timeout: float, tick: Callable[[float], bool | None] | None,
             interval: float) -> int | None:
        """The child's return code; TimeoutError after `timeout` s or when tick says so."""
        deadline = self.started + timeout
        while True:
            step = deadline if tick is None else min(deadline, time.monotonic() + interval)
            try:
                return self._ended(self._line(step))
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise
                if tick is not None and tick(time.monotonic() - self.started):
                    raise

    def _ended(self, reply: str) -> int | None:
        self.ended = time.monotonic()
        if reply.startswith("exit "):
            _, code, seconds = reply.split()
            self.returncode = int(code)
            self.ended = self.started + float(seconds)
        elif self.pid:
            try:  # the supervisor itself died: its child's group at least goes with it
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
        self._close()
        return self.returncode

    def kill(self) -> int | None:
        """Have the supervisor kill the child's tree; its return code once it is gone."""
        if self.proc.returncode is None and self.proc.stdin is not None:
            try:
                self.proc.stdin.write(b"kill\n")
                self.proc.stdin.flush()
                return self._ended(self._line(time.monotonic() + 10))
            except (OSError, TimeoutError, ValueError):
                pass
        self._close()
        return self.returncode

    def duration(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def _close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# --- the supervisor process (tfdoctor's own Python, `python -I -S -c`) ---------------------------


def _supervise() -> None:
    """Start the child, report its pid and its end; kill its whole tree when it ends, when told
    to, or when tfdoctor goes away (stdin closes), and then remove the temporary directory."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the terminal's signals are tfdoctor's to handle
    _become_subreaper()
    import psutil  # noqa: F401 - imported now, not while the clean-up is waited for
    config = json.loads(_read_line(0))
    token = config["env"][TOKEN_VAR]
    out = sys.stdout.buffer

    def say(text: str) -> None:
        try:
            out.write(text.encode() + b"\n")
            out.flush()
        except OSError:
            pass

    try:
        child = subprocess.Popen(config["argv"], stdin=subprocess.DEVNULL,
                                 stdout=config["stderr_fd"], stderr=config["stderr_fd"],
                                 env=config["env"], start_new_session=True)
    except OSError as exc:
        say(f"error {exc.errno or 0} {exc.strerror or exc}")
        return
    started = time.monotonic()
    say(f"started {child.pid}")
    done = threading.Event()
    ended: list[float] = []
    told: list[bytes] = []
    signal.signal(signal.SIGTERM, lambda *_: done.set())

    def wait_child() -> None:
        child.wait()
        ended.append(time.monotonic())
        done.set()

    def read_parent() -> None:
        try:
            told.append(os.read(0, 64))  # b"kill\n"; b"" when tfdoctor is gone
        except OSError:
            told.append(b"")
        done.set()

    threading.Thread(target=wait_child, daemon=True).start()
    threading.Thread(target=read_parent, daemon=True).start()
    done.wait()
    parent_gone = told[:1] == [b""]  # decided now: tfdoctor closes the pipe once it has read "exit"
    _kill_tree(child, token)
    child.wait()
    seconds = (ended[0] if ended else time.monotonic()) - started
    if parent_gone or not _exists(config["parent"]):
        for path in config["owned"]:  # tfdoctor died without cleaning up
            shutil.rmtree(path, ignore_errors=True)
    else:
        say(f"exit {child.returncode} {seconds:.6f}")
    os._exit(0)  # not a normal exit: a daemon thread may still be reading stdin


def _read_line(fd: int) -> bytes:
    """The configuration line from `fd`, unbuffered: tfdoctor sends nothing after it before it
    has read "started", so no later command can be consumed here."""
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _become_subreaper() -> None:
    """Linux: orphans of the child's tree are re-parented to this process, not to init, so that
    they stay findable as descendants (macOS has no such call: the token sweep finds them)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _kill_tree(child: subprocess.Popen, token: str) -> None:
    """Kill the child's process group, every descendant of this process and every process
    carrying the run's token, until none is left (a process that forks while this runs is found
    in the next round)."""
    import psutil

    me = os.getpid()
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    for _round in range(50):
        found: dict[int, psutil.Process] = {}
        try:
            found.update((p.pid, p) for p in psutil.Process(me).children(recursive=True))
        except psutil.Error:
            pass
        for proc in psutil.process_iter():
            if proc.pid in found or proc.pid == me:
                continue
            try:
                if proc.environ().get(TOKEN_VAR) == token:
                    found[proc.pid] = proc
            except (psutil.Error, OSError):
                continue
        for pid in found:
            if pid != child.pid:
                _reap(pid)  # a zombie re-parented to this subreaper
        live = [p for p in found.values() if _running(p)]
        if not live:
            return
        for action in ("suspend", "kill"):  # stop all first: none can fork a replacement
            for proc in live:
                try:
                    getattr(proc, action)()
                except psutil.Error:
                    pass
        psutil.wait_procs([p for p in live if p.pid != child.pid], timeout=1)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except OSError:  # not our child
        pass


def _running(proc: Any) -> bool:
    import psutil

    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- reading the child's files -------------------------------------------------------------------


def _open_untrusted(name: str | Path, dir_fd: int | None = None) -> int:
    """A descriptor of a file the child may have replaced: no symlink followed, no blocking on a
    FIFO, no controlling terminal taken."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    return os.open(name, flags, dir_fd=dir_fd)


def _stderr_tampered(dir_fd: int, fd: int) -> str | None:
    """How the child tampered with its stderr file, or None: it replaced the path (a symlink to
    /dev/zero, a FIFO, another file) or punched it into a sparse file (ftruncate: no real log
    has gigabytes of holes). A removed file is not tampering: the directory may be gone."""
    mine = os.fstat(fd)
    try:
        now = os.stat("stderr.txt", dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    if stat.S_ISLNK(now.st_mode):
        return "the child replaced its stderr file with a symbolic link"
    if not stat.S_ISREG(now.st_mode):
        return "the child replaced its stderr file with a FIFO, a device or a directory"
    if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
        return "the child replaced its stderr file with another file"
    if mine.st_size > 1 << 20 and getattr(mine, "st_blocks", mine.st_size) * 512 < mine.st_size // 2:
        return f"the child's stderr file is sparse ({mine.st_size} bytes, mostly holes)"
    return None


def read_json_file(path: str | Path, limit: int = MAX_RESULT_BYTES,
                   dir_fd: int | None = None) -> tuple[Any, str | None]:
    """The JSON document in the child's result file, or None and why not ("missing",
    "unreadable: ...", "malformed: ..."), in bounded time and memory whatever the file is."""
    name = Path(path).name if dir_fd is not None else path
    try:
        fd = _open_untrusted(name, dir_fd)
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        import errno

        if exc.errno in (errno.ELOOP, getattr(errno, "EMLINK", -1)):
            return None, "unreadable: a symbolic link, not the file the child writes"
        return None, f"unreadable: {exc.strerror or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "unreadable: not a regular file (a FIFO, a device or a directory)"
        if info.st_size > limit:
            return None, f"unreadable: {info.st_size} bytes, more than the {limit} a result may have"
        raw = _read_at_most(fd, limit + 1)
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    finally:
        os.close(fd)
    if len(raw) > limit:
        return None, f"unreadable: more than the {limit} bytes a result may have"
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except RecursionError:
        return None, "malformed: JSON nested too deeply"
    except ValueError as exc:
        return None, f"malformed: {str(exc)[:200]}"
    if not depth_within(data, MAX_RESULT_DEPTH):
        return None, f"malformed: JSON nested more than {MAX_RESULT_DEPTH} levels"
    return data, None


def _read_at_most(fd: int, count: int) -> bytes:
    chunks = []
    while count > 0:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_bounded_fd(fd: int, keep: int) -> tuple[str, int]:
    """The text of an output file (`keep` bytes from each end, the middle cut), and its size:
    bounded even when the child made it a sparse file of gigabytes."""
    size = os.fstat(fd).st_size
    if size <= 2 * keep:
        data = os.pread(fd, size, 0)
    else:
        data = (os.pread(fd, keep, 0) + b"\n[... %d bytes cut ...]\n" % (size - 2 * keep)
                + os.pread(fd, keep, size - keep))
    return data.replace(b"\x00", b"").decode("utf-8", "replace"), size
