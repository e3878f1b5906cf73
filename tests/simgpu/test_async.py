"""The simulated GPU's asynchronous streams, against real TensorFlow (cached test venv).

simgpu queues kernels on a worker thread and counts the device's true busy time, as a real
GPU's queue would run them; tests/simgpu/async_timing.py times one MatMul both ways in the
TensorFlow venv (this process never imports TensorFlow).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support import tfenv

from simgpu import build as simgpu_build

pytestmark = [
    pytest.mark.tf,
    pytest.mark.skipif(simgpu_build.compiler() is None, reason="no C compiler for the simulated GPU"),
]

SCRIPT = Path(simgpu_build.__file__).with_name("async_timing.py")


def test_tfdoctor_timing_matches_device_busy_time_and_time_time_does_not(tmp_path):
    python = tfenv.tf_python()
    plugin = simgpu_build.build_plugin(python)
    env = tfenv.tf_subprocess_env(userbase=tmp_path / "userbase", extra={
        "TF_PLUGGABLE_DEVICE_LIBRARY_PATH": str(plugin), "SIMGPU_MODE": "ok",
        "SIMGPU_QUIET": "1", "TF_CPP_MIN_LOG_LEVEL": "2"})
    proc = subprocess.run([str(python), str(SCRIPT)], env=env, capture_output=True, text=True,
                          timeout=180)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("ASYNC-TIMING:")]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    found = json.loads(lines[0].split(":", 1)[1])
    assert found["device"].endswith("GPU:0")
    busy = found["busy_s"]
    assert busy > 0.002  # a 640x640 MatMul keeps the simulated device busy for milliseconds
    # tfdoctor's timing (calls closed by a read-back) is the device's work, within 10 %.
    assert found["tfdoctor_s"] == pytest.approx(busy, rel=0.10), json.dumps(found)
    # time.time() around one call sees only the dispatch: the kernel is still queued.
    assert found["naive_s"] < 0.25 * found["naive_busy_s"], json.dumps(found)
    assert found["calls"] >= 5
