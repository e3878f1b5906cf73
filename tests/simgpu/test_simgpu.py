"""The simulated PluggableDevice (tests/simgpu) against real TensorFlow.

TensorFlow runs in subprocesses with the cached test venv's interpreter
(tests/support/tfenv.py); this process never imports it.  All runs are started
together when the module's fixture is first used (a few at a time: each one
imports TensorFlow) and every test waits only for the run it checks.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

try:
    from tests.simgpu import build as simgpu_build
    from tests.support import tfenv
except ImportError:  # tests/ itself on sys.path (pytest's rootdir-less import)
    from support import tfenv  # type: ignore[no-redef]

    from simgpu import build as simgpu_build  # type: ignore[no-redef]

pytestmark = [
    pytest.mark.tf,
    pytest.mark.skipif(
        simgpu_build.compiler() is None,
        reason="no C compiler (gcc, or $CC): the simulated GPU plugin is built from C",
    ),
]

PROBE = Path(simgpu_build.__file__).with_name("probe.py")
RESULT_MARK = "SIMGPU-RESULT:"
PARALLEL_RUNS = 3
RUN_TIMEOUT_S = 240


@dataclass(frozen=True)
class Spec:
    scenario: str
    mode: str | None = "ok"  # SIMGPU_MODE; None = no plugin at all
    via: str = "env"  # env | plugins-dir | user-site
    variant: str = "normal"


SPECS = {
    "baseline": Spec("devices", mode=None),
    "ok": Spec("compute", "ok"),
    "ok-plugins-dir": Spec("compute", "ok", via="plugins-dir"),
    "wrong": Spec("compute", "wrong"),
    "slow": Spec("compute", "slow"),
    "nokernels": Spec("compute", "nokernels"),
    "memory-growth": Spec("memory-growth", "ok"),
    "fail-init": Spec("devices", "fail-init"),
    "nodevice": Spec("devices", "nodevice"),
    "fail-create": Spec("first-op", "fail-create"),
    "missing-symbol": Spec("devices", "ok", via="plugins-dir", variant="missing-symbol"),
    "user-site": Spec("devices", "ok", via="user-site"),
}


@dataclass
class Run:
    spec: Spec
    returncode: int
    stdout: str
    stderr: str

    @property
    def result(self) -> dict | None:
        for line in self.stdout.splitlines():
            if line.startswith(RESULT_MARK):
                return json.loads(line[len(RESULT_MARK) :])
        return None

    def describe(self) -> str:
        return (
            f"{self.spec} exited {self.returncode}\n--- stdout\n{self.stdout[-3000:]}"
            f"\n--- stderr\n{self.stderr[-5000:]}"
        )

    def ok_result(self) -> dict:
        assert self.returncode == 0 and self.result is not None, self.describe()
        return self.result


def _execute(name: str, spec: Spec, plugins: dict[str, Path], work: Path) -> Run:
    home = work / name
    home.mkdir()
    userbase = home / "userbase"  # empty unless via == user-site
    python = tfenv.tf_python()
    extra: dict[str, str] = {}
    if spec.mode is not None:
        extra["SIMGPU_MODE"] = spec.mode
        plugin = plugins[spec.variant]
        if spec.via == "env":
            extra["TF_PLUGGABLE_DEVICE_LIBRARY_PATH"] = str(plugin)
        elif spec.via == "plugins-dir":
            env_root = tfenv.throwaway_tf_env(home)
            shutil.copy2(plugin, tfenv.plugins_dir(env_root) / plugin.name)
            python = tfenv.env_python(env_root)
        elif spec.via == "user-site":
            site = tfenv.tf_site_packages()
            user_site = userbase / "lib" / site.parent.name / "site-packages"
            (user_site / "tensorflow-plugins").mkdir(parents=True)
            shutil.copy2(plugin, user_site / "tensorflow-plugins" / plugin.name)
        else:
            raise ValueError(spec.via)
    env = tfenv.tf_subprocess_env(userbase=userbase, extra=extra)
    proc = subprocess.run(
        [str(python), str(PROBE), spec.scenario],
        capture_output=True,
        text=True,
        env=env,
        timeout=RUN_TIMEOUT_S,
        cwd=home,
    )
    return Run(spec, proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Future]:
    work = tmp_path_factory.mktemp("simgpu-runs")
    python = tfenv.tf_python()
    plugins = {
        variant: simgpu_build.build_plugin(python, variant=variant)
        for variant in simgpu_build.VARIANTS
    }
    pool = ThreadPoolExecutor(max_workers=PARALLEL_RUNS, thread_name_prefix="simgpu")
    futures = {
        name: pool.submit(_execute, name, spec, plugins, work)
        for name, spec in SPECS.items()
    }
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


def get(runs: dict[str, Future], name: str) -> Run:
    return runs[name].result()


GPU0 = "/physical_device:GPU:0"


# --------------------------------------------------------------------------
# Build
# --------------------------------------------------------------------------


def test_build_is_cached_per_tensorflow_version(tmp_path):
    python = tfenv.tf_python()
    first = simgpu_build.build_plugin(python, tmp_path)
    assert first.name == "libsimgpu.so" and first.stat().st_size > 0
    mtime = first.stat().st_mtime_ns
    again = simgpu_build.build_plugin(python, tmp_path)
    assert again == first and again.stat().st_mtime_ns == mtime
    assert first.parent.name.startswith(f"simgpu-tf{tfenv.TF_VERSION}-")


# --------------------------------------------------------------------------
# Modes
# --------------------------------------------------------------------------


def test_baseline_without_plugin_lists_no_gpu(runs):
    result = get(runs, "baseline").ok_result()
    assert result["tf_version"] == tfenv.TF_VERSION
    assert result["gpus"] == []


def test_ok_gpu_listed_and_matmul_runs_on_it(runs):
    run = get(runs, "ok")
    result = run.ok_result()
    assert result["gpus"] == [GPU0]
    assert result["details"] == [{"device_name": "SIMGPU"}]
    for case, mm in result["matmul"].items():
        assert mm["device"].endswith("/device:GPU:0"), case
        assert mm["allclose"], (case, mm)
    for case, conv in result["conv2d"].items():
        assert conv["device"].endswith("/device:GPU:0"), case
        assert conv["allclose"], (case, conv)
    assert result["conv2d"]["VALID,s=2"]["shape"] == [2, 4, 5, 4]
    assert result["tf_function_device"].endswith("/device:GPU:0")
    # TF's BFC allocator runs on top of the plugin's allocate callbacks.
    assert set(result["memory_info"]) == {"current", "peak"}
    assert result["memory_info"]["peak"] > 0


def test_ok_tensorflow_logs_the_device_like_metal(runs):
    stderr = get(runs, "ok").stderr
    assert re.search(
        r"Created TensorFlow device \(/job:localhost/replica:0/task:0/device:GPU:0 "
        r"with \d+ MB memory\) -> physical PluggableDevice \(device: 0, name: SIMGPU, "
        r"pci bus id: <undefined>\)",
        stderr,
    ), stderr
    assert "Could not identify NUMA node of platform GPU ID 0, defaulting to 0" in stderr
    assert "Plugin optimizer for device_type GPU is enabled." in stderr


def test_plugin_found_in_site_packages_tensorflow_plugins(runs):
    result = get(runs, "ok-plugins-dir").ok_result()
    assert result["gpus"] == [GPU0]
    assert all(mm["device"].endswith("/device:GPU:0") for mm in result["matmul"].values())
    assert all(mm["allclose"] for mm in result["matmul"].values())


def test_wrong_gpu_disagrees_with_cpu(runs):
    result = get(runs, "wrong").ok_result()
    assert result["gpus"] == [GPU0]
    for case, mm in list(result["matmul"].items()) + list(result["conv2d"].items()):
        assert mm["device"].endswith("/device:GPU:0"), case
        assert not mm["allclose"], (case, mm)
        # perturbed by about 1e-2 relative, not garbage
        assert 1e-3 < mm["max_rel_diff"] < 2e-2, (case, mm)


def test_slow_is_correct_but_much_slower_than_cpu(runs):
    result = get(runs, "slow").ok_result()
    for case, mm in result["matmul"].items():
        assert mm["device"].endswith("/device:GPU:0") and mm["allclose"], case
    timing = result["timing"]
    # every kernel sleeps >= 2 ms, plus 4.2 MFLOP at 1 GFLOP/s for n=128
    assert timing["gpu_s"] >= 0.006, timing
    assert timing["gpu_s"] > 5 * timing["cpu_s"], timing


def test_nokernels_gpu_listed_but_matmul_falls_back_to_cpu(runs):
    result = get(runs, "nokernels").ok_result()
    assert result["gpus"] == [GPU0]
    for case, mm in list(result["matmul"].items()) + list(result["conv2d"].items()):
        assert mm["device"].endswith("/device:CPU:0"), (case, mm)
        assert mm["max_abs_diff"] == 0.0, (case, mm)


def test_memory_growth_set_before_init_and_refused_after(runs):
    result = get(runs, "memory-growth").ok_result()
    assert result["gpus"] == [GPU0]
    assert result["growth_before_init"] is True
    assert result["logical_gpus"] == ["/device:GPU:0"]
    assert result["set_after_init_error"] == {
        "type": "RuntimeError",
        "message": "Physical devices cannot be modified after being initialized",
    }
    assert result["growth_after_init"] is True


def test_fail_init_aborts_inside_import_tensorflow(runs):
    # TensorFlow 2.19 does not log-and-continue when SE_InitPlugin fails: it
    # CHECK-fails in TF_LoadPluggableDeviceLibrary and the process aborts.
    run = get(runs, "fail-init")
    assert run.returncode == -signal.SIGABRT, run.describe()
    assert run.result is None, run.describe()
    assert re.search(
        r"c_api_experimental\.cc:\d+\] Non-OK-status: "
        r"tensorflow::RegisterPluggableDevicePlugin\(lib_handle->lib_handle\)",
        run.stderr,
    ), run.describe()
    assert (
        "Status: INTERNAL: simgpu: could not initialise the simulated GPU "
        "(SIMGPU_MODE=fail-init)" in run.stderr
    ), run.describe()


def test_nodevice_lists_no_gpu_and_tensorflow_logs_why(runs):
    run = get(runs, "nodevice")
    result = run.ok_result()
    assert result["gpus"] == []
    assert re.search(
        r"\] simgpu: no simulated GPU available \(SIMGPU_MODE=nodevice\)", run.stderr
    ), run.describe()
    assert "stream_executor_internal.h" in run.stderr, run.describe()


def test_fail_create_gpu_listed_but_first_op_raises(runs):
    result = get(runs, "fail-create").ok_result()
    assert result["gpus"] == [GPU0]
    first = result["first_op"]
    assert first["ok"] is False
    assert first["type"] == "RuntimeError"
    assert "INTERNAL: simgpu: could not open the simulated GPU" in first["message"]


def test_missing_symbol_fails_import_like_mismatched_metal(runs):
    run = get(runs, "missing-symbol")
    assert run.returncode == 3, run.describe()
    error = run.result["import_error"]
    assert error["type"] == "NotFoundError"
    assert "libsimgpu.so: undefined symbol: TF_SimgpuSymbolThisTensorFlowDoesNotHave" in (
        error["message"]
    )
    # raised from the plugin-directory loop in tensorflow/__init__.py
    assert "_ll.load_library(_plugin_dir)" in error["traceback"]


def test_user_site_plugins_dir_is_loaded_even_inside_a_venv(runs):
    # tensorflow/__init__.py also scans sysconfig's posix_user scheme, which
    # ignores the venv and PYTHONNOUSERSITE: a stray plugin there is global.
    result = get(runs, "user-site").ok_result()
    assert result["gpus"] == [GPU0]
