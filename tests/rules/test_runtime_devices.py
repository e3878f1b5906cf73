"""runtime.ok, runtime.no-gpu, runtime.gpu-placement, runtime.memory-growth,
runtime.optimizer-slowdown and runtime.gpu-libraries (checks/runtime_devices.py): what TensorFlow
showed once it imported, on snapshots of real Mac situations (texts from the issues each test names;
the shared runtime fixtures are in tests/rules/test_runtime.py)."""

from __future__ import annotations

from snapshots import RuleModules, apple_silicon, linux_cpu, merge, snap

from rules.test_runtime import HEALTHY_MAC, PY, codes, mac
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.model import Severity

check = RuleModules("runtime_import", "runtime_crash", "runtime_devices")
devices = check.modules[2]


def runtime_findings(s):
    return check.run(s)


def test_healthy_mac_is_one_ok_finding():
    findings = runtime_findings(mac(HEALTHY_MAC))
    assert codes(findings) == ["runtime.ok"]
    ok = findings[0]
    assert "2.19.1" in ok.title and "GPU:0" in ok.title and "Keras 3.10.0" in ok.title
    assert ok.evidence["metal_device"] == "Apple M2"


def test_no_gpu_with_metal_installed():
    rt = merge(HEALTHY_MAC, {"physical_devices": [HEALTHY_MAC["physical_devices"][0]],
                             "placements": [HEALTHY_MAC["placements"][0]]})
    findings = runtime_findings(mac(rt))
    assert codes(findings) == ["runtime.no-gpu", "runtime.ok"]
    no_gpu = findings[0]
    assert no_gpu.severity is Severity.ERROR
    assert "libmetal_plugin.dylib" in no_gpu.title
    assert no_gpu.remediation.commands


def test_gpu_listed_but_op_ran_on_cpu():
    rt = merge(HEALTHY_MAC, {})
    rt["placements"][1]["device"] = "/job:localhost/replica:0/task:0/device:CPU:0"
    findings = runtime_findings(mac(rt))
    assert codes(findings) == ["runtime.gpu-placement", "runtime.ok"]
    assert findings[0].title == "A matmul pinned to GPU:0 ran on CPU:0"


def test_memory_growth_after_initialisation():
    rt = merge(HEALTHY_MAC, {})
    rt["physical_devices"][1].update(
        memory_growth=False,
        memory_growth_error="RuntimeError: Physical devices cannot be modified after being initialized")
    findings = runtime_findings(mac(rt))
    assert codes(findings) == ["runtime.memory-growth", "runtime.ok"]
    growth = findings[0]
    assert "cannot be modified after being initialized" in growth.title
    assert "export TF_FORCE_GPU_ALLOW_GROWTH=true" in growth.remediation.commands


OPTIMIZER_LINE = ("WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs "
                  "slowly on M1/M2 Macs, please use the legacy Keras optimizer instead, located at "
                  "`tf.keras.optimizers.legacy.Adam`.")
KERAS2_OPTIMIZER_LOG = {"tf_version": "2.13.0",
                        "keras": {"version": "2.13.1", "tf_keras_resolved_version": "2.13.1", "is_keras3": False},
                        "log": {"optimizer_slowdown": ["tf.keras.optimizers.Adam"],
                                "events": [{"kind": "optimizer-slowdown", "line": OPTIMIZER_LINE}]}}


def test_optimizer_log_line_on_a_working_metal_gpu_is_information():
    """tensorflow-macos 2.13 + tensorflow-metal 1.0 on an M2 (keras-team/tf-keras#35): Keras 2.11-2.15
    prints the line on every Apple-silicon Mac; without a measured impact it is no warning."""
    findings = runtime_findings(mac(merge(HEALTHY_MAC, KERAS2_OPTIMIZER_LOG)))
    assert codes(findings) == ["runtime.optimizer-slowdown", "runtime.ok"]
    slow = findings[0]
    assert slow.severity is Severity.INFO and "no training probe measured its impact" in slow.title
    assert slow.remediation.link == devices.OPTIMIZER_ISSUE
    assert "tf.keras.optimizers.legacy.Adam" in slow.remediation.text
    assert slow.remediation.commands and "tensorflow-metal==" in slow.remediation.commands[0]


def test_optimizer_log_line_is_a_warning_when_the_training_probe_measured_the_gpu_slower():
    from rules.test_probe import facts, run

    s = mac(merge(HEALTHY_MAC, KERAS2_OPTIMIZER_LOG))
    s.probes = facts(run("train", "CPU:0", 64, [10.0, 10.2, 9.9, 10.1, 10.0]),
                     run("train", "GPU:0", 64, [30.0, 30.5, 29.8, 30.2, 30.1]), workloads=("train",))
    report = diagnose(s)
    slow = next(f for f in report.findings if f.code == "runtime.optimizer-slowdown")
    assert slow.severity is Severity.WARNING and "measured the GPU slower" in slow.title
    assert report.diagnosis() is slow  # it explains probe.gpu-slower
    assert any(f.code == "probe.gpu-slower" for f in report.consequences(slow))


def test_optimizer_log_line_without_a_metal_gpu_in_use_says_nothing():
    """The line is printed on any Mac, also with no Metal plugin: it cannot be the diagnosis."""
    no_plugin = merge(HEALTHY_MAC, {**KERAS2_OPTIMIZER_LOG, "plugins": [], "physical_devices": [
        {"name": "/physical_device:CPU:0", "device_type": "CPU"}], "placements": []})
    s = mac(no_plugin, packages=[p for p in apple_silicon()["packages"] if p["name"] != "tensorflow-metal"],
            plugins=[])
    assert "runtime.optimizer-slowdown" not in codes(runtime_findings(s))


def test_apple_silicon_without_any_metal_plugin_lists_no_gpu_because_of_it():
    """TensorFlow imported, no GPU listed, no plugin installed: compat.no-metal is the cause."""
    rt = merge(HEALTHY_MAC, {"plugins": [], "placements": [], "physical_devices": [
        {"name": "/physical_device:CPU:0", "device_type": "CPU"}]})
    s = mac(rt, packages=[p for p in apple_silicon()["packages"] if p["name"] != "tensorflow-metal"],
            plugins=[])
    no_gpu = next(f for f in runtime_findings(s) if f.code == "runtime.no-gpu")
    assert no_gpu.severity is Severity.WARNING and "no Metal plugin" in no_gpu.title
    assert no_gpu.remediation.commands == (f"{PY} -m pip install -- tensorflow-metal==1.2.0",)
    report = diagnose(s)
    assert report.diagnosis().code == "compat.no-metal"
    assert [f.code for f in report.explained_by(no_gpu)] == ["compat.no-metal"]


def test_gpu_libraries_missing_on_linux():
    rt = {"outcome": "ok", "stage": "done", "tf_version": "2.15.0", "physical_devices":
          [{"name": "/physical_device:CPU:0", "device_type": "CPU"}],
          "log": {"gpu_libraries_missing": True,
                  "library_failures": [{"library": "libcudnn.so.8", "error": "cannot open"}]}}
    findings = runtime_findings(snap(linux_cpu(runtime=rt)))
    assert codes(findings) == ["runtime.gpu-libraries", "runtime.ok"]
    assert findings[0].severity is Severity.WARNING
    assert "runtime.no-gpu" in findings[0].explains
