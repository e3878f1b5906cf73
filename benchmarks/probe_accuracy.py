"""Does the matmul probe measure what the hardware does? Its GFLOP/s against a reference taken by
hand in the same process: many products back to back, timed around one final read-back (no
per-call read-back, so the best a Python loop can show); the median of three such blocks.

Target (issue "micro-probes"): the probe reaches >= 90% of the reference.

Runs inside the TensorFlow interpreter (by default the cached test venv's) as one process; the
probe and the reference alternate, ROUNDS times, so that machine noise hits both alike; prints
each round, the medians and their ratio.

    python benchmarks/probe_accuracy.py [--rounds 7] [--size 1024] [--device cpu|gpu]
                                        [--tf-python PATH]

With --device gpu the device is the GPU TensorFlow lists (set TF_PLUGGABLE_DEVICE_LIBRARY_PATH
for the simulated one; it is synchronous, so it says nothing about asynchronous dispatch).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def inner(rounds: int, size: int, device: str) -> None:
    sys.path.insert(0, str(REPO))
    import tensorflow as tf

    from tfdoctor.inside.probes.run import run_probes  # as the runtime child imports it

    dev = "/GPU:0" if device == "gpu" else "/CPU:0"
    flops = 2.0 * size ** 3
    with tf.device("/CPU:0"):
        a0 = tf.random.stateless_uniform((size, size), seed=[1, 2], minval=-1.0, maxval=1.0)
        b0 = tf.random.stateless_uniform((size, size), seed=[1, 3], minval=-1.0, maxval=1.0)
    with tf.device(dev):
        a, b = tf.identity(a0), tf.identity(b0)

    def block(count: int) -> float:
        with tf.device(dev):
            start = time.perf_counter()
            for _ in range(count):
                c = tf.linalg.matmul(a, b)
            tf.reduce_sum(c).numpy()
            return flops * count / (time.perf_counter() - start) / 1e9

    def reference(count: int) -> float:
        """The median of three blocks of `count` back-to-back products, each timed around one
        read-back, after two warm products."""
        with tf.device(dev):
            for _ in range(2):
                tf.reduce_sum(tf.linalg.matmul(a, b)).numpy()
        return statistics.median(block(count) for _ in range(3))

    config = {"preset": "probe", "workloads": ["matmul"], "devices": device, "size": size,
              "retry": False, "budget_s": 30.0}
    # Size the reference like the probe's measurement: as many products as the probe times in
    # all its repeats (at least 20).
    probe_gf, ref_gf, numbers = [], [], []
    for i in range(rounds):
        result = run_probes(tf, config, progress=lambda message: None)
        run = [r for r in result["runs"] if r["timing"]][-1]
        t = run["timing"]
        count = max(20, t["number"] * len(t["repeats_s"]))
        probe_gf.append(run["gflops"])
        ref_gf.append(reference(count))
        numbers.append((t["number"], len(t["repeats_s"]), count))
        print(f"round {i + 1}: probe {probe_gf[-1]:8.1f} GFLOP/s (median of {t['number']} calls x "
              f"{len(t['repeats_s'])} repeats, IQR {t['iqr_s'] / t['median_s']:.1%} of the median)   "
              f"reference {ref_gf[-1]:8.1f} GFLOP/s (median of 3 x {count} products, one read-back each)   "
              f"ratio {probe_gf[-1] / ref_gf[-1]:.3f}", flush=True)
    p, r = statistics.median(probe_gf), statistics.median(ref_gf)
    ratios = [x / y for x, y in zip(probe_gf, ref_gf)]
    print(f"matmul n={size} on {device.upper()} (TF {tf.__version__}, cpus={os.cpu_count()}): "
          f"median probe {p:.1f} GFLOP/s, median reference {r:.1f} GFLOP/s, "
          f"ratio of medians {p / r:.3f}; per-round ratios min {min(ratios):.3f} "
          f"median {statistics.median(ratios):.3f} max {max(ratios):.3f}  (target >= 0.90)")
    sys.stdout.flush()
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--tf-python", help="interpreter with TensorFlow (default: the test venv)")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.rounds, args.size, args.device)
        return
    from timing import tf_python

    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [tf_python(args.tf_python), __file__, "--inner", "--rounds", str(args.rounds), "--size", str(args.size),
           "--device", args.device]
    sys.exit(subprocess.run(cmd, env=env).returncode)


if __name__ == "__main__":
    main()
