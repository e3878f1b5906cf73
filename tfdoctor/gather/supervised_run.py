"""`tfdoctor run -- CMD ARGS...` as a library: run the user's own command under supervision.

The command runs as given (an argv list, never through a shell) in a session of its own. Its
stdout and stderr pass through to ours live, chunk by chunk, while a bounded copy is recorded
(head and tail) for tfdoctor.logtext to recognise. SIGINT, SIGTERM and SIGHUP that reach tfdoctor
are forwarded to the command's process group (the third one as SIGKILL). With a timeout the group gets SIGTERM, a grace
period, then SIGKILL. Peak memory is the sampled resident size of the whole process tree. At the
end every process of the run is gone: the group, the descendants, and anything carrying the
run's token in its environment (a grandchild that left the group with setsid()).

With `placement=True` TensorFlow is asked to log where it places every op: TF_CPP_VMODULE=placer=1
turns on the VLOG(1) in tensorflow/core/common_runtime/placer.cc (`LogDeviceAssignment`:
"NAME(OP) placed on: DEVICE"; verified against tensorflow-cpu 2.19.1 here, where it logs both
graph nodes and eager ops, which TensorFlow runs as one-node functions), and
TF_CPP_MIN_LOG_LEVEL=0 lets INFO lines through. Scripts that call
tf.debugging.set_log_device_placement(True) print "NAME: (OP): DEVICE" and "Executing op OP in
device DEVICE" (eager/execute.cc): both forms are counted. Placement lines are counted per op and
device, not recorded, so a long run's log stays small.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, Any, Mapping, Sequence

from tfdoctor.child.supervisor import TOKEN_VAR, stop_processes
from tfdoctor.facts.run import OpPlacement, RunFacts
from tfdoctor.sanitize.redact import mask_secrets

RECORD_LIMIT = 4 * 1024 * 1024
"""Bytes of output recorded at most (half head, half tail); the rest passes through unrecorded."""
GRACE_S = 5.0
SAMPLE_S = 0.1
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP")
ESCALATE_AFTER = 3
"""The third forwarded signal is sent as SIGKILL (a Ctrl-C the command ignores twice)."""
MAX_OPS = 200

_PLACED = re.compile(r"(?:^|\] )(?P<node>[^\s()]*)\((?P<op>[A-Za-z0-9_>]+)\) placed on: (?P<device>\S+)")
_LOGGED = re.compile(r"^(?P<node>[^\s:]+): \((?P<op>[A-Za-z0-9_>]+)\): (?P<device>/\S+)$")
_EXECUTING = re.compile(r"Executing op (?P<op>[A-Za-z0-9_>]+) in device (?P<device>\S+)")
_BOOKKEEPING = frozenset({"_Arg", "_Retval", "_DeviceArg", "_DeviceRetval", "NoOp", "Const", "Identity",
                          "_EagerConst", "IdentityN"})
"""Ops every function has, placed wherever their neighbours are: not worth reporting."""


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
    facts = RunFacts(argv=[mask_secrets(a) for a in argv], outcome="failed-to-start", timeout_s=timeout,
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
    recorder = _Recorder(record_limit)
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=child_env, start_new_session=True)
    except FileNotFoundError:
        facts.outcome, facts.message = "not-found", f"{argv[0]}: command not found"
        return RunResult(facts, b"")
    except PermissionError:
        facts.outcome, facts.message = "not-executable", f"{argv[0]}: permission denied"
        return RunResult(facts, b"")
    except OSError as exc:
        facts.message = f"{argv[0]}: {exc.strerror or exc}"
        return RunResult(facts, b"")
    readers = [threading.Thread(target=_pump, args=(proc.stdout, out, recorder), daemon=True),
               threading.Thread(target=_pump, args=(proc.stderr, err, recorder), daemon=True)]
    for t in readers:
        t.start()
    sampler = _Sampler(proc.pid)
    sampler.start()
    with _Forwarding(proc.pid, facts.forwarded):
        returncode = _wait(proc, timeout, grace, facts)
    facts.wall_s = round(time.monotonic() - started, 3)
    sampler.stop()
    facts.leftovers_killed = _sweep(proc.pid, token)
    for t in readers:
        t.join(timeout=2)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    if facts.outcome != "timeout":
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


def _wait(proc: subprocess.Popen, timeout: float | None, grace: float, facts: RunFacts) -> int | None:
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            break
        try:
            return proc.wait(timeout=0.1 if left is None else min(0.1, left))
        except subprocess.TimeoutExpired:
            continue
    facts.outcome = "timeout"
    _killpg(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        facts.killed_after_grace = True
        _killpg(proc.pid, signal.SIGKILL)
        return proc.wait()


def _killpg(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except OSError:
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Forwarding:
    """Signals that reach tfdoctor go to the command's process group (in the main thread only,
    where Python lets handlers be set); the old handlers come back afterwards."""

    def __init__(self, pgid: int, record: list[str]) -> None:
        self.pgid, self.record, self.saved = pgid, record, {}

    def _forward(self, signum: int, _frame: Any) -> None:
        self.record.append(_signal_name(signum))
        # The third time the user asks, a command that ignores the signal is killed outright.
        _killpg(self.pgid, signal.SIGKILL if len(self.record) >= ESCALATE_AFTER else signum)

    def __enter__(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for name in FORWARDED:
            signum = getattr(signal, name, None)
            if signum is not None:
                self.saved[signum] = signal.signal(signum, self._forward)

    def __exit__(self, *_exc: Any) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)


def _pump(pipe: IO[bytes] | None, sink: IO[bytes], recorder: "_Recorder") -> None:
    """Copy a pipe to our stream as it comes, and to the recorder."""
    if pipe is None:
        return
    fd = pipe.fileno()
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        try:
            sink.write(chunk)
            sink.flush()
        except (OSError, ValueError):
            pass  # our own output closed (a pager quit): keep recording
        recorder.feed(chunk)


class _Recorder:
    """Head and tail of everything the command printed, placement lines counted instead."""

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1024)
        self.head = bytearray()
        self.tail = bytearray()
        self.skipped = 0
        self.total = 0
        self.partial = b""
        self.lock = threading.Lock()
        self.counts: dict[tuple[str, str], int] = {}

    def feed(self, chunk: bytes) -> None:
        with self.lock:
            self.total += len(chunk)
            lines = (self.partial + chunk).split(b"\n")
            self.partial = lines.pop()
            if len(self.partial) > 65536:
                lines.append(self.partial)
                self.partial = b""
            for line in lines:
                if b"placed on: " in line or b"Executing op " in line or b"): /" in line:
                    if self._placement(line.decode("utf-8", "replace")):
                        continue
                self._keep(line + b"\n")

    def _placement(self, line: str) -> bool:
        m = _PLACED.search(line) or _EXECUTING.search(line) or _LOGGED.match(line.strip())
        if not m:
            return False
        op, device = m["op"], _device_type(m["device"])
        if op not in _BOOKKEEPING and device:
            key = (op, device)
            self.counts[key] = self.counts.get(key, 0) + 1
        return True

    def _keep(self, data: bytes) -> None:
        if len(self.head) < self.half:
            room = self.half - len(self.head)
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.half:
                cut = len(self.tail) - self.half
                del self.tail[:cut]
                self.skipped += cut

    def data(self) -> bytes:
        with self.lock:
            if self.partial:
                self._keep(self.partial)
                self.partial = b""
            gap = b"" if not self.skipped else b"\n[... %d bytes not recorded ...]\n" % self.skipped
            return bytes(self.head) + gap + bytes(self.tail)

    def placements(self) -> tuple[list[OpPlacement], list[OpPlacement]]:
        ranked = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        cpu = [OpPlacement(op, dev, n) for (op, dev), n in ranked if dev == "CPU"][:MAX_OPS]
        gpu = [OpPlacement(op, dev, n) for (op, dev), n in ranked if dev != "CPU"][:MAX_OPS]
        return cpu, gpu


def _device_type(device: str) -> str:
    """"/job:localhost/replica:0/task:0/device:GPU:0" -> "GPU"."""
    m = re.search(r"device:([A-Za-z_]+):\d+", device)
    return m.group(1).upper() if m else ""


class _Sampler(threading.Thread):
    """Peak resident memory and process count of the command's tree, sampled."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.processes = pid, None, 0
        self.stopped = threading.Event()

    def run(self) -> None:
        try:
            import psutil
        except ImportError:
            return
        try:
            root = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self.stopped.is_set():
            try:
                tree = [root] + root.children(recursive=True)
            except psutil.Error:
                return
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


def _sweep(pgid: int, token: str) -> int:
    """Kill what is left of the run: its process group and every process with its token (a
    descendant that left the group). Returns how many were still alive."""
    try:
        import psutil
    except ImportError:
        _killpg(pgid, signal.SIGKILL)
        return 0
    me = os.getpid()
    killed: set[int] = set()
    for _round in range(20):
        found = []
        for proc in psutil.process_iter():
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
