"""`tfdoctor run -- CMD ARGS...` as a library: run the user's own command under supervision.

The command runs as given (an argv list, never through a shell) in a session of its own, under
the supervisor `check`'s children have (tfdoctor.child.supervisor): it outlives tfdoctor, so
that tfdoctor killed outright (SIGKILL, the OOM killer) still takes the command's whole tree with
it; on Linux it is a subreaper and gets SIGTERM when tfdoctor dies, and the command SIGKILL when
the supervisor dies. Its stdout and stderr pass through to ours live, chunk by chunk, while a
bounded copy is recorded (head and tail) for tfdoctor.logtext to recognise. SIGINT, SIGTERM and
SIGHUP that reach tfdoctor are forwarded, with SIGCONT (a stopped command could not act on them),
to the command's process group and every descendant seen; the third one is sent as SIGKILL, and
after SIGTERM or SIGHUP the tree is killed when the grace period is over. With a timeout the tree
gets SIGTERM, a grace period, then SIGKILL. Peak memory is the sampled resident size of the whole
process tree. At the end every process of the run is gone: the group, the descendants (a
grandchild that left the group with setsid() and dropped its environment included: the
subreaper and the descendants recorded while the command ran find it), and anything carrying the
run's token in its environment. A command that kills its supervisor ends the run: tfdoctor kills
what is left and says so.

What the command prints is recorded by tfdoctor.gather.run_output.
"""

from __future__ import annotations

import math
import os
import secrets
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, Any, Mapping, Sequence

from tfdoctor.child.supervisor import Supervisor
from tfdoctor.child.tree import TOKEN_VAR, stop_processes
from tfdoctor.facts.run import RunFacts
from tfdoctor.gather.run_output import RECORD_LIMIT, Recorder, pump
from tfdoctor.sanitize.redact import mask_argv

GRACE_S = 5.0
SAMPLE_S = 0.1
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP")
ESCALATE_AFTER = 3
"""The third forwarded signal is sent as SIGKILL (a Ctrl-C the command ignores twice)."""
@dataclass
class RunResult:
    facts: RunFacts
    recorded: bytes
    """The bounded copy of stdout and stderr (placement lines left out) for logtext."""


def run(argv: Sequence[str], *, timeout: float | None = None, placement: bool = False,
        env: Mapping[str, str] | None = None, stdout: IO[bytes] | None = None,
        stderr: IO[bytes] | None = None, grace: float = GRACE_S,
        record_limit: int = RECORD_LIMIT) -> RunResult:
    """Run `argv` to its end (or to `timeout` seconds); never raises for the command's sake."""
    argv = [str(a) for a in argv]
    facts = RunFacts(argv=mask_argv(argv), outcome="failed-to-start", timeout_s=timeout,
                     placement=placement)
    if not argv:
        facts.message = "no command given"
        return RunResult(facts, b"")
    problem = _unrunnable(argv[0], env)
    if problem:
        facts.outcome, facts.message = problem
        return RunResult(facts, b"")
    token = secrets.token_hex(8)
    child_env = dict(os.environ if env is None else env)
    child_env[TOKEN_VAR] = token
    if placement:
        child_env["TF_CPP_MIN_LOG_LEVEL"] = "0"
        vmodule = child_env.get("TF_CPP_VMODULE", "")
        if "placer=" not in vmodule:
            child_env["TF_CPP_VMODULE"] = ",".join(p for p in (vmodule, "placer=1") if p)
    out = stdout if stdout is not None else sys.stdout.buffer
    err = stderr if stderr is not None else sys.stderr.buffer
    recorder = Recorder(record_limit)
    started = time.monotonic()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    stdin_fd = _our_stdin()
    try:
        sup = Supervisor.start(argv, child_env, err_w, [], stdout_fd=out_w, stdin_fd=stdin_fd,
                               watch_parent=True)
    except OSError as exc:
        os.close(out_r)
        os.close(err_r)
        if isinstance(exc, FileNotFoundError):
            facts.outcome, facts.message = "not-found", f"{argv[0]}: command not found"
        elif isinstance(exc, PermissionError):
            facts.outcome, facts.message = "not-executable", f"{argv[0]}: permission denied"
        else:
            facts.message = f"{argv[0]}: {exc.strerror or exc}"
        return RunResult(facts, b"")
    finally:
        for fd in (out_w, err_w, stdin_fd):
            if fd is not None:
                os.close(fd)  # the supervisor's and the command's now
    pipes = [os.fdopen(out_r, "rb", buffering=0), os.fdopen(err_r, "rb", buffering=0)]
    readers = [threading.Thread(target=pump, args=(pipes[0], out, recorder), daemon=True),
               threading.Thread(target=pump, args=(pipes[1], err, recorder), daemon=True)]
    for t in readers:
        t.start()
    sampler = _Sampler(sup.proc.pid, sup.pid)
    sampler.start()
    try:
        with _Forwarding(sup.pid, facts.forwarded, sampler) as forwarding:
            returncode = _wait(sup, timeout, grace, facts, forwarding, sampler)
    finally:
        if sup.ended is None:  # an exception on the way (KeyboardInterrupt): no tree left behind
            sup.kill()
        facts.wall_s = round(time.monotonic() - started, 3)
        sampler.stop()
        facts.leftovers_killed = sup.leftovers + _sweep(sup.pid, token, sampler.seen_processes())
        for t in readers:
            t.join(timeout=2)
        for pipe in pipes:
            pipe.close()
    if sup.lost:
        facts.outcome, facts.signal = "signal", "SIGKILL"
        facts.message = ("tfdoctor's supervisor was killed or stopped while the command ran (by the "
                         "command?): tfdoctor killed what was left of the command's process tree")
    elif facts.outcome != "timeout":
        if returncode is not None and returncode < 0:
            facts.outcome, facts.signal = "signal", _signal_name(-returncode)
        else:
            facts.outcome = "exited"
    facts.returncode = returncode
    facts.peak_rss_bytes, facts.peak_processes = sampler.peak, sampler.processes
    facts.output_bytes, facts.recorded_bytes = recorder.total, len(recorder.data())
    facts.cpu_ops, facts.gpu_ops = recorder.placements()
    return RunResult(facts, recorder.data())


def scripts_in(argv: Sequence[str]) -> list[str]:
    """The training scripts a command names (existing .py and .ipynb files), for `tfdoctor lint`."""
    return [a for a in argv[1:] if a.endswith((".py", ".ipynb")) and os.path.isfile(a)]


def _unrunnable(program: str, env: Mapping[str, str] | None) -> tuple[str, str] | None:
    """("not-found" | "not-executable", message) before starting, when it is clear."""
    if os.sep in program:
        if not os.path.exists(program):
            return "not-found", f"{program}: no such file"
        if os.path.isdir(program):
            return "not-executable", f"{program}: is a directory"
        if not os.access(program, os.X_OK):
            return "not-executable", f"{program}: not executable (chmod +x, or run it with its interpreter)"
        return None
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    if shutil.which(program, path=path) is None:
        hint = f" (a file here: run ./{program}, or python {program})" if os.path.isfile(program) else ""
        return "not-found", f"{program}: command not found on PATH{hint}"
    return None


def _our_stdin() -> int | None:
    """A copy of our standard input for the command (None when there is none)."""
    try:
        return os.dup(0)
    except OSError:
        return None


def _wait(sup: Supervisor, timeout: float | None, grace: float, facts: RunFacts,
          forwarding: "_Forwarding", sampler: "_Sampler") -> int | None:
    """The command's return code: at its end, or once the supervisor has killed its tree (at
    the timeout or after SIGTERM/SIGHUP reached tfdoctor, each after the grace period)."""
    deadline = None if timeout is None else sup.started + timeout
    kill_at: float | None = None
    while True:
        now = time.monotonic()
        if forwarding.terminated_at is not None and kill_at is None:
            kill_at = forwarding.terminated_at + grace
        if deadline is not None and now >= deadline and facts.outcome != "timeout":
            facts.outcome = "timeout"
            _signal_tree(sup.pid, sampler, signal.SIGTERM)
            kill_at = min(kill_at or math.inf, now + grace)
        if kill_at is not None and now >= kill_at:
            facts.killed_after_grace = True
            return sup.kill()
        step = min(t for t in (now + 0.1, deadline, kill_at) if t is not None)
        try:
            return sup.wait_until(step)
        except TimeoutError:
            continue


def _killpg(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except OSError:
        pass


def _signal_tree(pgid: int, sampler: "_Sampler", signum: int) -> None:
    """SIGCONT, then `signum`, to the command's group and to every descendant seen (one that
    left the group included)."""
    procs = []
    for proc in sampler.seen_processes():
        try:
            if os.getpgid(proc.pid) != pgid:  # the group's members get it once, from killpg
                procs.append(proc)
        except OSError:
            continue
    for sig in (signal.SIGCONT, signum):
        _killpg(pgid, sig)
        for proc in procs:
            try:
                proc.send_signal(sig)  # psutil: never a reused pid
            except Exception:  # psutil.Error: gone already
                pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Forwarding:
    """Signals that reach tfdoctor go to the command's tree, with SIGCONT first (in the main
    thread only, where Python lets handlers be set); the old handlers come back afterwards.
    After SIGTERM or SIGHUP, `terminated_at` starts the grace period (see _wait)."""

    def __init__(self, pgid: int, record: list[str], sampler: "_Sampler") -> None:
        self.pgid, self.record, self.saved, self.sampler = pgid, record, {}, sampler
        self.terminated_at: float | None = None

    def _forward(self, signum: int, _frame: Any) -> None:
        self.record.append(_signal_name(signum))
        if signum != signal.SIGINT and self.terminated_at is None:
            self.terminated_at = time.monotonic()
        # The third time the user asks, a command that ignores the signal is killed outright.
        _signal_tree(self.pgid, self.sampler, signal.SIGKILL if len(self.record) >= ESCALATE_AFTER else signum)

    def __enter__(self) -> "_Forwarding":
        if threading.current_thread() is not threading.main_thread():
            return self
        for name in FORWARDED:
            signum = getattr(signal, name, None)
            if signum is not None:
                self.saved[signum] = signal.signal(signum, self._forward)
        return self

    def __exit__(self, *_exc: Any) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)


class _Sampler(threading.Thread):
    """Peak resident memory and process count of the command's tree (everything below the
    supervisor `pid`), sampled; every process seen is kept, for the final sweep (a supervisor
    killed by the command no longer has the command's orphans below it)."""

    def __init__(self, pid: int, command: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.command, self.peak, self.processes = pid, command, None, 0
        self.stopped = threading.Event()
        self.seen: dict[int, Any] = {}
        self.lock = threading.RLock()
        """Re-entrant: the signal forwarder reads `seen` from a handler, which may interrupt the
        main thread inside seen_processes (a plain lock would deadlock there)."""

    def seen_processes(self) -> list:
        with self.lock:
            return list(self.seen.values())

    def run(self) -> None:
        try:
            import psutil
        except ImportError:
            return
        try:
            root = psutil.Process(self.pid)
        except psutil.Error:
            return
        try:
            first = psutil.Process(self.command)
            with self.lock:
                self.seen[first.pid] = first
        except psutil.Error:
            pass
        while not self.stopped.is_set():
            try:
                tree = root.children(recursive=True)
            except psutil.Error:
                return
            with self.lock:
                for proc in tree:
                    self.seen.setdefault(proc.pid, proc)
            total = 0
            for proc in tree:
                try:
                    total += proc.memory_info().rss
                except psutil.Error:
                    continue
            self.peak = max(self.peak or 0, total) or self.peak
            self.processes = max(self.processes, len(tree))
            self.stopped.wait(SAMPLE_S)

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=2)


def _sweep(pgid: int, token: str, seen: Sequence[Any] = ()) -> int:
    """Kill what is left of the run: its process group, every process with its token (a
    descendant that left the group) and every process of `seen` still running (psutil
    Processes: a reused pid is told apart). Returns how many were still alive."""
    try:
        import psutil
    except ImportError:
        _killpg(pgid, signal.SIGKILL)
        return 0
    me = os.getpid()
    killed: set[int] = set()
    for _round in range(20):
        found = [p for p in seen if p.pid != me and _alive(p)]
        known = {p.pid for p in found}
        for proc in psutil.process_iter():
            if proc.pid in known:
                continue
            if proc.pid == me:
                continue
            try:
                if os.getpgid(proc.pid) == pgid or proc.environ().get(TOKEN_VAR) == token:
                    if proc.status() != psutil.STATUS_ZOMBIE:
                        found.append(proc)
            except (psutil.Error, OSError):
                continue
        if not found:
            break
        stop_processes(found, wait=found)
        killed.update(p.pid for p in found)
    return len(killed)


def _alive(proc: Any) -> bool:
    import psutil

    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
