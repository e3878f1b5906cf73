"""Runs inside the TensorFlow test venv with simgpu loaded; prints one JSON line.

    <tf venv python> tests/simgpu/async_timing.py

Shows what asynchronous streams do to timing: a MatMul pinned to the simulated GPU returns as
soon as it is queued, so `time.time()` around one call (as the forum recipes in the seed
articles do) measures dispatch only, while tfdoctor's timing (model_measure.timed: back-to-back
calls closed by a read-back) measures the device's work. The plugin counts its true busy time
(simgpu_busy_ns), read here through ctypes from the already loaded library.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

import tensorflow as tf  # noqa: E402

from tfdoctor.inside.model import measure as model_measure  # noqa: E402
from tfdoctor.inside.model.state import Budget  # noqa: E402

N = int(os.environ.get("ASYNC_TIMING_N", "640"))


def main() -> None:
    lib = ctypes.CDLL(os.environ["TF_PLUGGABLE_DEVICE_LIBRARY_PATH"])
    lib.simgpu_busy_ns.restype = ctypes.c_uint64
    lib.simgpu_kernel_launches.restype = ctypes.c_int64
    with tf.device("/GPU:0"):
        a = tf.identity(tf.random.stateless_normal((N, N), [1, 2]))
        call = lambda: tf.matmul(a, a)  # noqa: E731
        call().numpy()
        # The seeds' recipe: time.time() around one call (five times, the median of each, so
        # one preempted dispatch on a busy machine does not decide).
        naives, naive_busies = [], []
        for _ in range(5):
            before = lib.simgpu_busy_ns()
            started = time.time()
            out = call()
            naives.append(time.time() - started)
            out.numpy()
            naive_busies.append((lib.simgpu_busy_ns() - before) / 1e9)
        naive = sorted(naives)[2]
        naive_busy = sorted(naive_busies)[2]
        # tfdoctor's timing, and the device's true busy time per call in each of its repeats
        # (sampled at every read-back that closes a repeat; every launch is one such MatMul,
        # the read-back's Sum runs on the CPU).
        marks = []
        read_back = model_measure.read_back

        def marked_read_back(tf_, value):
            result = read_back(tf_, value)
            marks.append((lib.simgpu_busy_ns(), lib.simgpu_kernel_launches()))
            return result

        model_measure.read_back = marked_read_back
        measured = model_measure.timed(tf, call, Budget(30.0),
                                       {"repeat_s": 1.0, "repeats": 5})
        model_measure.read_back = read_back
        repeats = len(measured["times_s"])
        window = marks[-repeats - 1:]
        per_repeat = [(b2 - b1) / 1e9 / (n2 - n1) for (b1, n1), (b2, n2) in zip(window, window[1:])]
        busy = sorted(per_repeat)[len(per_repeat) // 2] if repeats % 2 else \
            sum(sorted(per_repeat)[repeats // 2 - 1:repeats // 2 + 1]) / 2.0
        calls = window[-1][1] - window[0][1]
    print("ASYNC-TIMING:" + json.dumps({"busy_s": busy, "naive_s": naive, "calls": calls,
                                        "naive_busy_s": naive_busy,
                                        "tfdoctor_s": measured["median_s"],
                                        "device": out.device}))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
