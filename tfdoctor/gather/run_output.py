"""What a command `tfdoctor run` supervises prints: passed through to our streams live, chunk by
chunk, while a bounded copy (head and tail) is recorded for tfdoctor.logtext to recognise.

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
import threading
from typing import IO

from tfdoctor.facts.run import OpPlacement

RECORD_LIMIT = 4 * 1024 * 1024
"""Bytes of output recorded at most (half head, half tail); the rest passes through unrecorded."""
MAX_OPS = 200

_PLACED = re.compile(r"(?:^|\] )(?P<node>[^\s()]*)\((?P<op>[A-Za-z0-9_>]+)\) placed on: (?P<device>\S+)")
_LOGGED = re.compile(r"^(?P<node>[^\s:]+): \((?P<op>[A-Za-z0-9_>]+)\): (?P<device>/\S+)$")
_EXECUTING = re.compile(r"Executing op (?P<op>[A-Za-z0-9_>]+) in device (?P<device>\S+)")
_BOOKKEEPING = frozenset({"_Arg", "_Retval", "_DeviceArg", "_DeviceRetval", "NoOp", "Const", "Identity",
                          "_EagerConst", "IdentityN"})
"""Ops every function has, placed wherever their neighbours are: not worth reporting."""


def pump(pipe: IO[bytes] | None, sink: IO[bytes], recorder: "Recorder") -> None:
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


class Recorder:
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
