"""tfdoctor end to end against real TensorFlow with the simulated GPU (tests/simgpu) in each
mode: `tfdoctor check` / `tfdoctor probe` run as a user runs them, on a throwaway environment
whose tensorflow-plugins/ holds the plugin, as tensorflow-metal's does on a Mac."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliRun, assert_no_traceback
from simgpu import build as simgpu_build
from support import tfenv

pytestmark = [
    pytest.mark.tf,
    pytest.mark.skipif(simgpu_build.compiler() is None, reason="no C compiler for the simulated GPU"),
]


@pytest.fixture(scope="module")
def plugin() -> Path:
    return simgpu_build.build_plugin(tfenv.tf_python())


def doctor(tmp_path: Path, plugin: Path, mode: str, *args: str, pth: str | None = None,
           user_tmp: Path | None = None) -> tuple[CliRun, dict]:
    env_dir = tfenv.throwaway_tf_env(tmp_path)
    shutil.copy(plugin, tfenv.plugins_dir(env_dir) / plugin.name)
    if pth:
        (tfenv.env_site_packages(env_dir) / "zz_user_startup.pth").write_text(pth)
    env = {**tfenv.tf_subprocess_env(), "SIMGPU_MODE": mode, "NO_COLOR": "1"}
    if user_tmp is not None:
        env["TMPDIR"] = str(user_tmp)
        env["HOME"] = str(user_tmp.parent / "home")
        (user_tmp.parent / "home").mkdir()
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", *args, "--python",
                           str(tfenv.env_python(env_dir)), "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    run = CliRun(proc.returncode, proc.stdout, proc.stderr)
    assert_no_traceback(run)
    return run, json.loads(proc.stdout)


def codes(doc: dict, severity: str | None = None) -> set[str]:
    return {f["code"] for f in doc["findings"] if severity is None or f["severity"] == severity}


def test_ok_mode_gpu_listed_used_and_agreeing(tmp_path, plugin):
    user_tmp = tmp_path / "user-tmp"
    user_tmp.mkdir()
    run, doc = doctor(tmp_path, plugin, "ok", "check", user_tmp=user_tmp)
    # Nothing is left in the user's temporary directory (TensorFlow's autograph writes a file
    # per traced function and only removes them at an interpreter exit the child skips), and
    # nothing is written in the home directory (Keras creates ~/.keras/keras.json on import).
    assert list(user_tmp.iterdir()) == []
    assert list((tmp_path / "home").iterdir()) == []
    snap = doc["snapshot"]
    gpus = [d for d in snap["runtime"]["physical_devices"] if d["device_type"] == "GPU"]
    assert len(gpus) == 1 and gpus[0]["memory_growth"] is True  # set before init, read back
    assert "runtime.ok" in codes(doc)
    gpu_runs = [r for r in snap["probes"]["runs"] if r["device"] == "GPU:0" and r["timing"]]
    assert gpu_runs and all(r["on_device"] and r["agreement"]["ok"] for r in gpu_runs)
    # Speed: on one CPU the simulated device cannot beat the CPU, so no verdict is asserted
    # here; the "faster" verdict is tested on recorded timings (rules/test_probe.py).
    assert not codes(doc, "error") and run.code == 0


def test_wrong_mode_is_caught_as_disagreement(tmp_path, plugin):
    run, doc = doctor(tmp_path, plugin, "wrong", "check")
    assert doc["diagnosis"]["code"] == "probe.gpu-wrong" and run.code == 1


def test_slow_mode_is_called_slower_after_the_larger_size(tmp_path, plugin):
    run, doc = doctor(tmp_path, plugin, "slow", "probe", "--workload", "matmul", "--size", "256",
                      "--budget", "20")
    slower = [f for f in doc["findings"] if f["code"] == "probe.gpu-slower"]
    assert slower and run.code == 0  # a warning: exit 1 only with --fail-on warning
    sizes = {r["size"] for r in doc["snapshot"]["probes"]["runs"] if r["device"] == "GPU:0"}
    assert len(sizes) == 2  # the default size and the larger one tried before calling it slower


def test_nokernels_mode_is_not_used_and_placement_is_the_root(tmp_path, plugin):
    run, doc = doctor(tmp_path, plugin, "nokernels", "check")
    assert doc["diagnosis"]["code"] == "runtime.gpu-placement"
    assert "probe.gpu-not-used" in codes(doc)
    assert doc["root_causes"] == ["runtime.gpu-placement"] and run.code == 1


def test_fail_init_mode_names_the_plugin(tmp_path, plugin):
    """TF 2.19 aborts the process when a PluggableDevice's SE_InitPlugin fails."""
    run, doc = doctor(tmp_path, plugin, "fail-init", "check")
    diagnosis = doc["diagnosis"]
    assert diagnosis["code"] == "runtime.import-crashed" and "SIGABRT" in diagnosis["title"]
    assert plugin.name in diagnosis["title"]
    assert any(plugin.name in c for c in diagnosis["remediation"]["commands"])
    assert run.code == 1


def test_memory_growth_after_initialisation_is_reported(tmp_path, plugin):
    """A start-up hook that initialises TensorFlow first (a .pth line, as a sitecustomize or a
    notebook extension might) makes the child's set_memory_growth fail with TF's real error."""
    hook = "import tensorflow as tf; tf.constant(1.0) + 1\n"
    run, doc = doctor(tmp_path, plugin, "ok", "check", "--no-probes", pth=hook)
    finding = next(f for f in doc["findings"] if f["code"] == "runtime.memory-growth")
    assert "Physical devices cannot be modified after being initialized" in json.dumps(finding["evidence"])


def test_device_that_cannot_be_created_hangs_and_says_where(tmp_path, plugin):
    """SIMGPU_MODE=fail-create: the GPU is listed, but creating it fails; TensorFlow 2.19 then
    hangs initialising its context. tfdoctor kills the child at --timeout and names the stage
    and the frame it hung in."""
    run, doc = doctor(tmp_path, plugin, "fail-create", "check", "--timeout", "10", "--no-probes")
    diagnosis = doc["diagnosis"]
    assert diagnosis["code"] == "runtime.import-hang" and run.code == 1
    assert "running an op on each device" in diagnosis["title"]
    assert any("ensure_initialized" in frame for frame in diagnosis["evidence"]["python_stack"])
