"""The small supervisor between tfdoctor and a child: both ends of its pipe protocol.

Nothing the child starts may outlive tfdoctor (issue 15), so tfdoctor.child.process runs the child
under a supervisor (this module, run by tfdoctor's own Python as `python -I -S -c`, see
`Supervisor.start`), which:
- marks the child's environment with a per-run token and, at the end, kills the whole tree
  (tfdoctor.child.tree: the group, the descendants it recorded, every process carrying the token,
  which finds descendants that left the process group with setsid() and double-forked orphans);
- on Linux, is also a child subreaper (PR_SET_CHILD_SUBREAPER), so orphans are its children;
- watches tfdoctor through a pipe: when tfdoctor dies, even by SIGKILL, the pipe closes and the
  supervisor kills the child's whole tree and removes the temporary directory.
A command may kill or stop its supervisor: tfdoctor then kills the supervisor and the child's
group, and (Linux) reaps what is left as orphans of its own (tfdoctor.child.reaper).

The protocol, one line per message: tfdoctor sends the JSON configuration, the supervisor
answers "started PID" or "error ERRNO MESSAGE"; tfdoctor may send "kill"; the supervisor ends
with "exit RETURNCODE SECONDS" (nothing when tfdoctor is gone). Not to be confused with
tfdoctor.gather.supervised_run, which runs the user's own command for `tfdoctor run`.
"""

from __future__ import annotations

import marshal
import os
import select
import signal
import subprocess
import sys
import threading
import time

from tfdoctor.child import reaper
from tfdoctor.child.tree import TOKEN_VAR, exists, kill_tree, record_descendants

TYPE_CHECKING = False
if TYPE_CHECKING:  # the supervisor process imports no more than it needs (it is on the clock)
    from typing import Callable

LOOK_S = 0.5
"""How often tfdoctor looks whether a silent supervisor was stopped."""


# --- tfdoctor's side -----------------------------------------------------------------------------


class Supervisor:
    """tfdoctor's side of the supervisor: a pipe each way, one line per message."""

    def __init__(self, proc: subprocess.Popen, pid: int, started: float) -> None:
        self.proc = proc
        self.pid = pid
        self.started = started
        self.ended: float | None = None
        self.returncode: int | None = None
        self.leftovers = 0
        """Processes of the child's tree still alive after it ended (killed by the supervisor)."""
        self.lost = False
        """The supervisor ended without reporting (killed, by the child perhaps)."""
        self._buffer = b""

    @classmethod
    def start(cls, argv: list[str], env: dict[str, str], stderr_fd: int, owned: list[str], *,
              stdout_fd: int | None = None, stdin_fd: int | None = None,
              watch_parent: bool = False) -> "Supervisor":
        """`stdout_fd` (default: `stderr_fd`) and `stdin_fd` (default: /dev/null) become the
        child's; the supervisor closes its copies once the child has them. `watch_parent`
        (`tfdoctor run`): on Linux the supervisor gets SIGTERM when tfdoctor dies and the child
        SIGKILL when the supervisor dies (PR_SET_PDEATHSIG), and the supervisor records the
        child's descendants as they come, so that one that left its group, session and
        environment is still killed at the end (macOS has no subreaper)."""
        boot = (f"import sys; sys.path[:0] = {_import_paths()!r}; "
                "from tfdoctor.child.supervisor import supervise; supervise()")
        proc = reaper.started(lambda: subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", boot], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True,
            pass_fds=tuple(fd for fd in (stderr_fd, stdout_fd, stdin_fd) if fd is not None)))
        config = {"argv": argv, "env": env, "stderr_fd": stderr_fd, "owned": owned,
                  "parent": os.getpid(), "stdout_fd": stdout_fd, "stdin_fd": stdin_fd,
                  "watch_parent": watch_parent}
        assert proc.stdin is not None
        try:
            proc.stdin.write(marshal.dumps(config).hex().encode() + b"\n")
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
        """The next line from the supervisor; "" at EOF or when it is stopped (SIGSTOP from the
        command: it would never answer); TimeoutError after `deadline`."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            wait = LOOK_S if deadline is None else min(LOOK_S, max(0.0, deadline - time.monotonic()))
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready and _stopped(self.proc.pid):
                return ""
            if not ready and deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError
            if not ready:
                continue
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

    def wait_until(self, deadline: float) -> int | None:
        """The child's return code once it has ended (None: unknown, see `lost`); TimeoutError
        at `deadline` (monotonic) while it runs."""
        return self._ended(self._line(deadline))

    def _ended(self, reply: str) -> int | None:
        self.ended = time.monotonic()
        if reply.startswith("exit "):
            parts = reply.split()
            self.returncode = int(parts[1])
            self.ended = self.started + float(parts[2])
            self.leftovers = int(parts[3]) if len(parts) > 3 else 0
        elif self.pid:
            self.lost = True
            self.proc.kill()  # killed or stopped by the command: its tree comes to tfdoctor
            try:  # the child's group at least goes at once
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
        reaper.ended(self.proc)
        # A supervisor killed by the command left orphans; on Linux they are tfdoctor's now.
        self.leftovers += reaper.kill_orphans()


def _stopped(pid: int) -> bool:
    """Whether process `pid` is stopped (SIGSTOP, or traced)."""
    import psutil

    try:
        return psutil.Process(pid).status() in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)
    except psutil.Error:
        return False


# --- the supervisor process (tfdoctor's own Python, `python -I -S -c`) ---------------------------


def supervise() -> None:
    """Start the child, report its pid and its end; kill its whole tree when it ends, when told
    to, or when tfdoctor goes away (stdin closes), and then remove the temporary directory."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)  # the terminal's signals are tfdoctor's to handle
    reaper.become_subreaper()  # orphans of the child's tree stay findable as descendants
    line = _read_line(0).strip()
    if not line:
        os._exit(0)  # tfdoctor went away (or called the run off) before sending anything
    config = marshal.loads(bytes.fromhex(line.decode("ascii")))
    token = config["env"][TOKEN_VAR]
    out = sys.stdout.buffer
    watch = bool(config.get("watch_parent"))
    done = threading.Event()
    # Only a note: the handler runs in the main thread wherever it is interrupted, possibly inside
    # done.wait() holding the event's lock, so a done.set() here could deadlock (it did, about
    # once in 15 runs under load: the tree outlived tfdoctor). The wait below looks at the note.
    terminated: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: terminated.append(signum))
    if watch:
        _parent_death_signal(signal.SIGTERM)  # tfdoctor dies: SIGTERM here, then the clean-up
        if os.getppid() != config["parent"]:
            os._exit(0)  # tfdoctor died before the line above: nothing started yet

    def say(text: str) -> None:
        try:
            out.write(text.encode() + b"\n")
            out.flush()
        except OSError:
            pass

    stdin_fd, stdout_fd = config.get("stdin_fd"), config.get("stdout_fd")
    try:
        child = subprocess.Popen(config["argv"], stdin=subprocess.DEVNULL if stdin_fd is None else stdin_fd,
                                 stdout=config["stderr_fd"] if stdout_fd is None else stdout_fd,
                                 stderr=config["stderr_fd"], env=config["env"], start_new_session=True,
                                 preexec_fn=_child_death_signal() if watch else None)
    except OSError as exc:
        say(f"error {exc.errno or 0} {exc.strerror or exc}")
        return
    finally:
        for fd in {config["stderr_fd"], stdout_fd, stdin_fd} - {None}:
            try:
                os.close(fd)  # the child's now: an end of file reaches tfdoctor when its tree is gone
            except OSError:
                pass
    started = time.monotonic()
    say(f"started {child.pid}")
    import psutil  # noqa: F401 - imported while the child runs, not while its clean-up is waited for
    ended: list[float] = []
    told: list[bytes] = []
    seen: dict = {}

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
    if watch:
        threading.Thread(target=record_descendants, args=(seen, done), daemon=True).start()
    while not terminated and not done.wait(0.05):
        pass
    done.set()  # from here, not from the handler: stops record_descendants
    parent_gone = told[:1] == [b""]  # decided now: tfdoctor closes the pipe once it has read "exit"
    leftovers = kill_tree(child, token, list(seen.values()))
    child.wait()
    seconds = (ended[0] if ended else time.monotonic()) - started
    if parent_gone or not exists(config["parent"]):
        import shutil

        for path in config["owned"]:  # tfdoctor died without cleaning up
            shutil.rmtree(path, ignore_errors=True)
    else:
        say(f"exit {child.returncode} {seconds:.6f} {leftovers}")
    os._exit(0)  # not a normal exit: a daemon thread may still be reading stdin


_PATHS: list[str] = []


def _import_paths() -> list[str]:
    """Where the supervisor finds tfdoctor and psutil (found, not imported: psutil is the
    supervisor's to import)."""
    if not _PATHS:
        import importlib.util
        from pathlib import Path

        spec = importlib.util.find_spec("psutil")
        origin = spec.origin if spec is not None and spec.origin else None
        _PATHS.append(str(Path(__file__).resolve().parents[2]))
        if origin is not None:
            _PATHS.append(str(Path(origin).resolve().parents[1]))
    return list(_PATHS)


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


def _parent_death_signal(signum: int) -> None:
    """Linux: `signum` to this process when the thread that started it ends (PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signum), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child_death_signal() -> Callable[[], None] | None:
    """For the child (run between fork and exec): SIGKILL when this supervisor dies, so that a
    command that kills its supervisor goes with it (Linux; None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def set_it() -> None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the supervisor died before the call above
            os._exit(1)

    return set_it
