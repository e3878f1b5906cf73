"""The runtime child against real TensorFlow (tensorflow-cpu 2.19.1 in the cached test venv),
broken for real in throwaway environments: a plugin built with gcc that needs a TensorFlow symbol
that does not exist, a file in tensorflow-plugins/ that is not a library, and
TF_PLUGGABLE_DEVICE_LIBRARY_PATH naming a missing or a broken library. With the simulated GPU
plugin (tests/simgpu) when it builds: memory growth, placement on GPU:0, a GPU without kernels,
and a plugin whose initialisation fails. The shared venv is never modified."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import tfenv

pytestmark = pytest.mark.tf

CODE_IN_TEXT = re.compile(r"\((runtime\.[a-z-]+)\)")
TIMEOUT = 60.0
MISSING_SYMBOL = "TF_TfdoctorSymbolThatDoesNotExist"

BROKEN_PLUGIN_C = f"""
/* Needs a TensorFlow C API symbol no TensorFlow exports, as tensorflow-metal built for another
   TensorFlow does: dlopen (RTLD_NOW) fails with "undefined symbol". */
extern void {MISSING_SYMBOL}(void);
void SE_InitPlugin(void *params, void *status) {{ (void)params; (void)status; {MISSING_SYMBOL}(); }}
"""


@pytest.fixture(scope="module")
def tf_python() -> Path:
    return tfenv.tf_python()


@pytest.fixture
def tf_env(tmp_path, tf_python) -> Path:
    """A throwaway venv sharing the cached TensorFlow, with its own empty tensorflow-plugins/."""
    return tfenv.throwaway_tf_env(tmp_path)


@pytest.fixture(scope="module")
def broken_plugin(tmp_path_factory) -> Path:
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("plugin")
    (out / "broken.c").write_text(BROKEN_PLUGIN_C)
    lib = out / "libbroken_plugin.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-o", str(lib), str(out / "broken.c")], check=True)
    return lib


def check(python: Path, *args: str, extra_env: dict[str, str] | None = None):
    env = tfenv.tf_subprocess_env(extra={"NO_COLOR": "1", **(extra_env or {})})
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--python", str(python),
                           "--timeout", f"{TIMEOUT:g}", *args],
                          capture_output=True, text=True, env=env, timeout=TIMEOUT + 120)
    for text in (proc.stdout, proc.stderr):
        assert "Traceback (most recent call last)" not in text, text[-3000:]
    return proc


def runtime_findings(report: dict) -> list[dict]:
    return [f for f in report["findings"] if f["check"] == "runtime"]


def test_healthy_tensorflow(tf_python):
    proc = check(tf_python, "--json")
    assert proc.returncode == 0, proc.stdout[-3000:]
    report = json.loads(proc.stdout)
    (ok,) = runtime_findings(report)
    assert ok["code"] == "runtime.ok" and ok["severity"] == "ok"
    rt = report["snapshot"]["runtime"]
    assert rt["outcome"] == "ok" and rt["stage"] == "done"
    assert rt["tf_version"] == tfenv.TF_VERSION
    assert "/physical_device:CPU:0" in [d["name"] for d in rt["physical_devices"]]
    cpu = next(p for p in rt["placements"] if p["requested"] == "/CPU:0")
    assert cpu["device"].endswith("device:CPU:0") and cpu["correct"] is True
    assert rt["keras"]["version"] and rt["keras"]["is_keras3"] is True
    assert rt["build_info"]["is_cuda_build"] == "False"
    assert rt["import_s"] > 0 and rt["log"]["cpu_instructions_missing"] == []


def test_plugin_needing_a_missing_symbol(tf_env, broken_plugin):
    """Real TensorFlow raises NotFoundError: ...: undefined symbol: ... at import."""
    target = tfenv.plugins_dir(tf_env) / broken_plugin.name
    shutil.copy(broken_plugin, target)
    proc = check(tfenv.env_python(tf_env), "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    (finding,) = runtime_findings(report)
    assert finding["code"] == "runtime.plugin-load-failed"
    assert finding["evidence"]["symbol"] == MISSING_SYMBOL
    assert finding["evidence"]["plugin"] == str(target)
    assert finding["evidence"]["exception"] == "NotFoundError"
    assert set(finding["explains"]) <= {f["code"] for f in report["findings"]}  # only present codes
    assert any(c.startswith("mv ") and str(target) in c for c in finding["remediation"]["commands"])
    assert report["snapshot"]["runtime"]["outcome"] == "import-error"


def test_file_in_plugins_dir_that_is_not_a_library(tf_env):
    target = tfenv.plugins_dir(tf_env) / "libgarbage.so"
    target.write_bytes(b"this is not an ELF file\n" * 10)
    proc = check(tfenv.env_python(tf_env))
    assert proc.returncode == 1
    assert "runtime.plugin-load-failed" in CODE_IN_TEXT.findall(proc.stdout), proc.stdout
    assert "libgarbage.so" in proc.stdout


def test_pluggable_device_path_missing(tf_env, tmp_path):
    missing = tmp_path / "nowhere" / "libmissing_plugin.so"
    proc = check(tfenv.env_python(tf_env), "--json",
                 extra_env={"TF_PLUGGABLE_DEVICE_LIBRARY_PATH": str(missing)})
    assert proc.returncode == 1
    (finding,) = runtime_findings(json.loads(proc.stdout))
    assert finding["code"] == "runtime.plugin-load-failed"
    assert finding["evidence"]["configured_by"] == "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"
    assert "unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH" in finding["remediation"]["commands"]


def test_pluggable_device_path_broken(tf_env, broken_plugin):
    proc = check(tfenv.env_python(tf_env), "--json",
                 extra_env={"TF_PLUGGABLE_DEVICE_LIBRARY_PATH": str(broken_plugin)})
    assert proc.returncode == 1
    (finding,) = runtime_findings(json.loads(proc.stdout))
    assert finding["code"] == "runtime.plugin-load-failed"
    assert finding["evidence"]["symbol"] == MISSING_SYMBOL
    assert finding["evidence"]["configured_by"] == "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"


# --- a (simulated) GPU -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def simgpu(tf_python) -> Path:
    try:
        from simgpu.build import build_plugin
    except ImportError as exc:
        pytest.skip(f"simulated GPU plugin unavailable: {exc}")
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    return build_plugin(tf_python)


def gpu_env(tf_env: Path, simgpu: Path) -> Path:
    shutil.copy(simgpu, tfenv.plugins_dir(tf_env) / simgpu.name)
    return tfenv.env_python(tf_env)


def test_gpu_memory_growth_and_placement(tf_env, simgpu):
    proc = check(gpu_env(tf_env, simgpu), "--json", extra_env={"SIMGPU_MODE": "ok"})
    assert proc.returncode == 0, proc.stdout[-3000:]
    report = json.loads(proc.stdout)
    assert [f["code"] for f in runtime_findings(report)] == ["runtime.ok"]
    rt = report["snapshot"]["runtime"]
    gpu = next(d for d in rt["physical_devices"] if d["device_type"] == "GPU")
    assert gpu["memory_growth"] is True and gpu["memory_growth_error"] is None
    assert gpu["details"].get("device_name") == "SIMGPU"
    placed = next(p for p in rt["placements"] if p["requested"] == "/GPU:0")
    assert placed["device"].endswith("device:GPU:0") and placed["correct"] is True
    assert "SIMGPU" in rt["log"]["pluggable_devices"]


def test_gpu_without_kernels_runs_ops_on_cpu(tf_env, simgpu):
    proc = check(gpu_env(tf_env, simgpu), extra_env={"SIMGPU_MODE": "nokernels"})
    assert proc.returncode == 1
    assert "runtime.gpu-placement" in CODE_IN_TEXT.findall(proc.stdout), proc.stdout


def test_gpu_plugin_whose_init_fails_aborts_tensorflow(tf_env, simgpu):
    """TensorFlow 2.19 aborts (SIGABRT, 'Non-OK-status: RegisterPluggableDevicePlugin') when a
    plugin's SE_InitPlugin reports an error; faulthandler's stack shows it was loading plugins."""
    proc = check(gpu_env(tf_env, simgpu), "--json", extra_env={"SIMGPU_MODE": "fail-init"})
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    (finding,) = runtime_findings(report)
    assert finding["code"] == "runtime.import-crashed"
    assert finding["evidence"]["signal"] == "SIGABRT"
    assert "libsimgpu.so" in finding["title"]
    assert report["snapshot"]["runtime"]["log"]["fatal"]


# --- which plugin file was loading; entries that are not files; the child's whole document ---

EXIT_PLUGIN_C = """
/* A plugin whose constructor ends the process (exit(0)) while TensorFlow dlopens it: the child
   exits 0 without a result; only the plugin-load watch can say which file did it. */
#include <stdlib.h>
__attribute__((constructor)) static void tfdoctor_exit_at_load(void) { exit(0); }
"""


@pytest.fixture(scope="module")
def exit_plugin(tmp_path_factory) -> Path:
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("exitplugin")
    (out / "exit.c").write_text(EXIT_PLUGIN_C)
    lib = out / "libexit_plugin.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-o", str(lib), str(out / "exit.c")], check=True)
    return lib


def test_plugin_that_exits_at_load_is_named(tf_env, exit_plugin):
    target = tfenv.plugins_dir(tf_env) / exit_plugin.name
    shutil.copy(exit_plugin, target)
    proc = check(tfenv.env_python(tf_env), "--json", "--no-probes")
    rt = json.loads(proc.stdout)["snapshot"]["runtime"]
    assert (rt["outcome"], rt["returncode"], rt["stage"]) == ("no-result", 0, "importing")
    assert rt["loading_plugin"] == str(target)
    assert f"loading the plugin {target}" in rt["message"]


def test_directory_named_like_a_library_is_not_a_file(tf_env):
    """TensorFlow passes a directory named libx.so to dlopen (load_library.py lists names
    only); the facts say it is a directory, statically and at run time."""
    (tfenv.plugins_dir(tf_env) / "libx.so").mkdir()
    proc = check(tfenv.env_python(tf_env), "--json", "--no-probes")
    snapshot = json.loads(proc.stdout)["snapshot"]
    (static,) = [p for p in snapshot["plugins"] if p["name"] == "libx.so"]
    assert (static["kind"], static["file_type"]) == ("not-a-file", "directory")
    (loaded,) = snapshot["runtime"]["plugins"]
    assert (loaded["kind"], loaded["file_type"]) == ("not-a-file", "directory")
    assert snapshot["runtime"]["outcome"] == "import-error"
    assert snapshot["runtime"]["loading_plugin"] is None  # the load returned (with an error)


def test_fifo_in_plugins_dir_hangs_the_import_and_is_named(tf_env):
    """dlopen blocks opening a FIFO without a writer: the import hangs until --timeout, and the
    facts say which file it was opening."""
    fifo = tfenv.plugins_dir(tf_env) / "libfifo.so"
    os.mkfifo(fifo)
    env = tfenv.tf_subprocess_env(extra={"NO_COLOR": "1"})
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--python",
                           str(tfenv.env_python(tf_env)), "--timeout", "20", "--no-probes", "--json"],
                          capture_output=True, text=True, env=env, timeout=20 + 120)
    rt = json.loads(proc.stdout)["snapshot"]["runtime"]
    assert rt["outcome"] == "timeout" and rt["loading_plugin"] == str(fifo)
    assert rt["plugins"][0]["file_type"] == "fifo"


CHILD_ONLY_KEYS = {"schema", "complete", "pid", "python", "probes"}
"""Keys of the runtime child's document about the run itself (python is its version; the parent
records the interpreter's path), or mapped elsewhere (probes: tfdoctor.facts.probes)."""


def test_every_runtime_fact_has_a_field_and_the_env_is_an_allowlist(tf_python, tmp_path):
    from gather.test_collector import unmapped_keys
    from tfdoctor.facts.runtime import RuntimeFacts

    out = tmp_path / "result.json"
    env = tfenv.tf_subprocess_env(extra={"TF_VAR_db_password": "hunter2",
                                         "TF_TOKEN_app_terraform_io": "hunter2",
                                         "TF_CPP_MIN_LOG_LEVEL": "0",
                                         "TFDOCTOR_USER_TF_CPP_MIN_LOG_LEVEL": "2",
                                         "TMPDIR": str(tmp_path)})
    child = Path(__file__).resolve().parents[2] / "tfdoctor" / "inside" / "runtime" / "__main__.py"
    subprocess.run([str(tf_python), str(child), str(out), "--timeout", "60"], env=env,
                   capture_output=True, timeout=90, check=True)
    document = json.loads(out.read_text())
    assert document["complete"] is True
    facts = {k: v for k, v in document.items() if k not in CHILD_ONLY_KEYS}
    assert unmapped_keys(RuntimeFacts, facts) == []
    assert document["env"]["TF_CPP_MIN_LOG_LEVEL"] == "2"  # the user's level, not ours
    assert not [name for name in document["env"] if name.startswith(("TF_VAR_", "TF_TOKEN_"))]
    assert "hunter2" not in out.read_text()
    # No plugin here; TensorFlow's own op libraries load through the same calls.
    assert document["loading_plugin"] is None
    assert all(Path(p).is_file() and "site-packages/tensorflow/" in p for p in document["loaded_plugins"])
