"""Runs inside the TensorFlow test venv; prints one result line as JSON.

    <tf venv python> tests/simgpu/probe.py SCENARIO

The test process never imports TensorFlow; it runs this script with the
cached venv's interpreter (see tests/support/tfenv.py) and reads the line
starting with ``SIMGPU-RESULT:`` from stdout.  Scenarios:

  devices        import TensorFlow, list physical GPUs and their details
  compute        devices + MatMul (all transpose combinations) and Conv2D
                 pinned to /GPU:0 and /CPU:0, a tf.function, memory info,
                 and a small MatMul timing on each device
  memory-growth  set_memory_growth before initialisation, read it back,
                 initialise, then try to change it again
  first-op       devices + run one op (initialises the eager context)

If ``import tensorflow`` raises, the result is ``{"import_error": ...}`` and
the exit status 3.  (A plugin whose SE_InitPlugin fails makes TensorFlow 2.19
abort the process instead: then there is no result line at all.)
"""

from __future__ import annotations

import json
import sys
import time
import traceback

MARK = "SIMGPU-RESULT:"


def emit(result: dict) -> None:
    sys.stdout.write(MARK + json.dumps(result) + "\n")
    sys.stdout.flush()


def _import_tf():
    try:
        import tensorflow as tf
    except Exception as exc:  # noqa: BLE001 - report whatever TF raises
        emit(
            {
                "import_error": {
                    "type": type(exc).__name__,
                    "module": type(exc).__module__,
                    "message": str(exc),
                    "traceback": traceback.format_exc(),
                }
            }
        )
        sys.exit(3)
    return tf


def _devices(tf) -> dict:
    gpus = tf.config.list_physical_devices("GPU")
    return {
        "tf_version": tf.__version__,
        "gpus": [d.name for d in gpus],
        "details": [tf.config.experimental.get_device_details(d) for d in gpus],
    }


def _compare(np, gpu_value, cpu_value) -> dict:
    g = gpu_value.numpy()
    c = cpu_value.numpy()
    diff = np.abs(g - c)
    scale = np.maximum(np.abs(c), 1e-6)
    return {
        "device": gpu_value.device,
        "shape": list(g.shape),
        "max_abs_diff": float(diff.max()),
        "max_rel_diff": float((diff / scale).max()),
        "allclose": bool(np.allclose(g, c, rtol=1e-5, atol=1e-5)),
    }


def _on(tf, device: str, fn):
    with tf.device(device):
        return fn()


def _best_time(tf, device: str, fn, reps: int = 5) -> float:
    with tf.device(device):
        fn().numpy()  # warm up (kernel lookup, first allocation)
        best = float("inf")
        for _ in range(reps):
            start = time.perf_counter()
            fn().numpy()
            best = min(best, time.perf_counter() - start)
    return best


def scenario_compute(tf) -> dict:
    import numpy as np

    out = _devices(tf)
    rs = np.random.RandomState(0)
    matmuls = {}
    for ta in (False, True):
        for tb in (False, True):
            a = rs.rand(*((30, 20) if ta else (20, 30))).astype(np.float32)
            b = rs.rand(*((17, 30) if tb else (30, 17))).astype(np.float32)

            def mm(a=a, b=b, ta=ta, tb=tb):
                return tf.linalg.matmul(a, b, transpose_a=ta, transpose_b=tb)

            matmuls[f"ta={int(ta)},tb={int(tb)}"] = _compare(
                np, _on(tf, "/GPU:0", mm), _on(tf, "/CPU:0", mm)
            )
    out["matmul"] = matmuls

    convs = {}
    x = rs.rand(2, 9, 11, 3).astype(np.float32)
    f = rs.rand(3, 3, 3, 4).astype(np.float32)
    for padding, stride in (("SAME", 1), ("VALID", 2)):

        def conv(padding=padding, stride=stride):
            return tf.nn.conv2d(x, f, strides=stride, padding=padding)

        convs[f"{padding},s={stride}"] = _compare(
            np, _on(tf, "/GPU:0", conv), _on(tf, "/CPU:0", conv)
        )
    out["conv2d"] = convs

    @tf.function
    def dense_relu(x, w):
        return tf.nn.relu(tf.linalg.matmul(x, w))

    w = rs.rand(8, 4).astype(np.float32)
    out["tf_function_device"] = _on(
        tf, "/GPU:0", lambda: dense_relu(tf.constant(rs.rand(5, 8).astype(np.float32)), w)
    ).device

    if out["gpus"]:
        out["memory_info"] = tf.config.experimental.get_memory_info("GPU:0")

    n = 128
    a = tf.constant(rs.rand(n, n).astype(np.float32))
    b = tf.constant(rs.rand(n, n).astype(np.float32))
    out["timing"] = {
        "n": n,
        "gpu_s": _best_time(tf, "/GPU:0", lambda: tf.linalg.matmul(a, b)),
        "cpu_s": _best_time(tf, "/CPU:0", lambda: tf.linalg.matmul(a, b)),
    }
    return out


def scenario_memory_growth(tf) -> dict:
    out = _devices(tf)
    gpu = tf.config.list_physical_devices("GPU")[0]
    tf.config.experimental.set_memory_growth(gpu, True)
    out["growth_before_init"] = tf.config.experimental.get_memory_growth(gpu)
    out["logical_gpus"] = [d.name for d in tf.config.list_logical_devices("GPU")]
    try:
        tf.config.experimental.set_memory_growth(gpu, False)
        out["set_after_init_error"] = None
    except Exception as exc:  # noqa: BLE001
        out["set_after_init_error"] = {"type": type(exc).__name__, "message": str(exc)}
    out["growth_after_init"] = tf.config.experimental.get_memory_growth(gpu)
    return out


def scenario_first_op(tf) -> dict:
    out = _devices(tf)
    try:
        value = tf.constant(1.0) + 1.0
        out["first_op"] = {"ok": True, "device": value.device}
    except Exception as exc:  # noqa: BLE001
        out["first_op"] = {"ok": False, "type": type(exc).__name__, "message": str(exc)}
    return out


SCENARIOS = {
    "devices": _devices,
    "compute": scenario_compute,
    "memory-growth": scenario_memory_growth,
    "first-op": scenario_first_op,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] not in SCENARIOS:
        sys.stderr.write(f"usage: probe.py {{{','.join(SCENARIOS)}}}\n")
        return 2
    tf = _import_tf()
    emit(SCENARIOS[argv[1]](tf))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
