"""The runtime facts model, the parent's classification of how the child ended, and the runtime
check on snapshots of real Mac situations (texts from the issues each test names)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from snapshots import RuleModules, apple_silicon, linux_cpu, merge, snap
from tfdoctor import typed
from tfdoctor.childproc import ChildResult
from tfdoctor.engine import diagnose
from tfdoctor.model import Severity
from tfdoctor.runtime import CHILD, child_env, facts_from_child
from tfdoctor.runtime_facts import RuntimeFacts
from tfdoctor.snapshot import Snapshot

check = RuleModules("runtime_import", "runtime_devices")

PY = "/Users/ada/venvs/tf/bin/python"
SITE = "/Users/ada/venvs/tf/lib/python3.11/site-packages"
METAL = f"{SITE}/tensorflow-plugins/libmetal_plugin.dylib"


def child(result=None, *, returncode=0, timed_out=False, result_error=None, stderr="") -> ChildResult:
    if result is None and result_error is None:
        result_error = "missing"
    return ChildResult(returncode, timed_out, 1.25, result, result_error, stderr, len(stderr))


def doc(stage="done", complete=True, **extra):
    return {"schema": 1, "stage": stage, "complete": complete, "stage_s": {stage: 1.0}, **extra}


HEALTHY_MAC = {
    "outcome": "ok", "stage": "done", "python": PY, "tf_version": "2.19.1", "import_s": 1.9,
    "physical_devices": [
        {"name": "/physical_device:CPU:0", "device_type": "CPU"},
        {"name": "/physical_device:GPU:0", "device_type": "GPU", "memory_growth": True,
         "details": {"device_name": "METAL"}},
    ],
    "logical_devices": [{"name": "/device:CPU:0", "device_type": "CPU"},
                        {"name": "/device:GPU:0", "device_type": "GPU"}],
    "placements": [
        {"requested": "/CPU:0", "device": "/job:localhost/replica:0/task:0/device:CPU:0", "correct": True},
        {"requested": "/GPU:0", "device": "/job:localhost/replica:0/task:0/device:GPU:0", "correct": True},
    ],
    "keras": {"version": "3.10.0", "tf_keras_resolved_version": "3.10.0", "is_keras3": True},
    "plugins": [{"path": METAL, "source": "tensorflow-plugins", "exists": True, "size": 3_000_000}],
    "log": {"metal_device": "Apple M2", "system_memory": "16.00 GB"},
}


def mac(runtime: dict, **overrides) -> Snapshot:
    return snap(apple_silicon(runtime=runtime, **overrides))


def runtime_findings(s: Snapshot):
    return check.run(s)


def codes(findings):
    return [f.code for f in findings]


# --- the model ---------------------------------------------------------------------------------


def test_runtime_facts_round_trip_through_a_snapshot():
    s = mac(HEALTHY_MAC)
    again = Snapshot.loads(json.dumps(s.to_dict()))
    assert again.runtime == s.runtime
    assert again.runtime.gpus[0].memory_growth is True
    assert again.runtime.placements[1].on_requested_device


def test_snapshot_without_runtime_still_loads():
    assert snap(apple_silicon()).runtime is None


# --- the parent's classification -----------------------------------------------------------------


def test_complete_result_is_ok():
    facts = facts_from_child(PY, 60, child(doc(tf_version="2.19.1", import_s=2.0)))
    assert (facts.outcome, facts.stage, facts.tf_version) == ("ok", "done", "2.19.1")
    assert facts.returncode == 0 and facts.timeout_s == 60


def test_import_exception_is_classified_and_parsed():
    err = {"type": "tensorflow.python.framework.errors_impl.NotFoundError",
           "message": "/v/site-packages/tensorflow-plugins/libx.so: undefined symbol: TF_Foo",
           "traceback": ["/v/tensorflow/__init__.py:438 in <module>"], "chain": []}
    facts = facts_from_child(PY, 60, child(doc(import_error=err)))
    assert facts.outcome == "import-error"
    assert "NotFoundError" in facts.message
    assert facts.import_error.kinds() == {"undefined-symbol"}


@pytest.mark.parametrize("returncode, signal", [(-4, "SIGILL"), (-11, "SIGSEGV"), (-7, "SIGBUS"), (-6, "SIGABRT")])
def test_signal_during_import(returncode, signal):
    facts = facts_from_child(PY, 60, child(doc("importing", False), returncode=returncode))
    assert (facts.outcome, facts.signal, facts.stage) == ("signal", signal, "importing")
    assert facts.message == f"killed by {signal} while importing TensorFlow"


def test_timeout_keeps_the_stage():
    facts = facts_from_child(PY, 5, child(doc("devices", False), returncode=None, timed_out=True))
    assert facts.outcome == "timeout"
    assert facts.message == "did not finish within 5 s: stuck running an op on each device"


def test_exit_without_result():
    partial = facts_from_child(PY, 60, child(doc("importing", False), returncode=3, stderr="bye\n"))
    assert partial.outcome == "no-result" and partial.returncode == 3
    assert partial.message.endswith(": bye")
    nothing = facts_from_child(PY, 60, child(None, returncode=1))
    assert nothing.outcome == "no-result" and nothing.stage is None


@pytest.mark.parametrize("result, error", [
    (None, "malformed: Expecting value: line 1 column 1 (char 0)"),
    ({"hello": "world"}, None),
    ([1, 2], None),
    ({"schema": 1, "stage": "done", "complete": True, "physical_devices": "CPU"}, None),
    ({"schema": 1, "stage": "no-such-stage"}, None),
])
def test_bad_output(result, error):
    facts = facts_from_child(PY, 60, child(result, result_error=error))
    assert facts.outcome == "bad-output", facts.message


def test_child_env_turns_logging_up_and_remembers_the_users_level():
    env = child_env({"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/bin"})
    assert env["TF_CPP_MIN_LOG_LEVEL"] == "0"
    assert env["TFDOCTOR_USER_TF_CPP_MIN_LOG_LEVEL"] == "3"


def test_child_script_is_python38_compatible():
    """The child runs inside the diagnosed interpreter, which may be an old tensorflow-macos env."""
    vermin = pytest.importorskip("vermin")
    del vermin
    code = "import sys; from vermin import main; sys.exit(main())"
    proc = subprocess.run([sys.executable, "-c", code, "--target=3.8-", "--no-tips", "--violations",
                           "--eval-annotations", str(CHILD)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the check: healthy and GPU facts ----------------------------------------------------------


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
    assert slow.remediation.link == check.modules[1].OPTIMIZER_ISSUE
    assert "tf.keras.optimizers.legacy.Adam" in slow.remediation.text
    assert slow.remediation.commands and "tensorflow-metal==" in slow.remediation.commands[0]


def test_optimizer_log_line_is_a_warning_when_the_training_probe_measured_the_gpu_slower():
    from test_rules_probe import facts, run

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
    assert no_gpu.remediation.commands == (f"{PY} -m pip install tensorflow-metal==1.2.0",)
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


# --- the check: import failures ----------------------------------------------------------------


def import_error(message: str, type_: str = "tensorflow.python.framework.errors_impl.NotFoundError",
                 stage: str = "done", **extra) -> dict:
    from tfdoctor.logparse import parse

    events = typed.to_plain(parse(message).events)
    return {"outcome": "import-error", "stage": stage, "python": PY,
            "import_error": {"type": type_, "message": message, "events": events,
                             "traceback": [f"{SITE}/tensorflow/__init__.py:437 in <module>",
                                           f"{SITE}/tensorflow/python/framework/load_library.py:151 in load_library"]},
            "plugins": [{"path": METAL, "source": "tensorflow-plugins"}], **extra}


def tf_218_metal_110() -> list:
    pkgs = [p for p in apple_silicon()["packages"] if p["name"] not in ("tensorflow", "tensorflow-metal")]
    return pkgs + [
        {"name": "tensorflow", "version": "2.18.0", "wheel_tags": ["cp311-cp311-macosx_12_0_arm64"]},
        {"name": "tensorflow-metal", "version": "1.1.0", "wheel_tags": ["cp311-cp311-macosx_12_0_arm64"]},
    ]


def test_metal_built_for_another_tensorflow_gets_the_pair_from_the_matrix():
    """tensorflow 2.18.0 + tensorflow-metal 1.1.0 (tensorflow/tensorflow#81987, #84167)."""
    message = (f"dlopen({METAL}, 0x0006): Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii\n"
               f"  Referenced from: <D1B2D5A6-1234-3A1B-9C1D-000000000000> {METAL}\n"
               f"  Expected in:     <8C3B0A1E-1234-3A1B-9C1D-000000000000> {SITE}/tensorflow/python/_pywrap_tensorflow_internal.so")
    findings = runtime_findings(mac(import_error(message), packages=tf_218_metal_110()))
    assert codes(findings) == ["runtime.plugin-load-failed"]
    f = findings[0]
    assert "libmetal_plugin.dylib" in f.title and "__ZN3tsl8internal10LogMessageC1EPKcii" in f.title
    assert f.evidence["tensorflow"] == "tensorflow 2.18.0" and f.evidence["tensorflow_metal"] == "1.1.0"
    assert f.evidence["pair_status"] == "known-broken"
    (command,) = f.remediation.commands
    assert command.startswith(f"{PY} -m pip install --force-reinstall ")
    assert "tensorflow==2.18.1" in command and "tensorflow-metal==1.2.0" in command
    assert "runtime.no-gpu" in f.explains


def test_old_dyld_message_without_uuid():
    """tensorflow/text#654: TF 2.5-era dyld text."""
    message = (f"dlopen({METAL}, 6): Symbol not found: _TF_AssignUpdateVariable\n"
               f"  Referenced from: {METAL}\n  Expected in: flat namespace\n")
    findings = runtime_findings(mac(import_error(message)))
    assert codes(findings) == ["runtime.plugin-load-failed"]
    assert findings[0].evidence["symbol"] == "_TF_AssignUpdateVariable"


def test_library_arch_mismatch_on_mac():
    lib = f"{SITE}/numpy/core/_multiarray_umath.cpython-311-darwin.so"
    message = (f"dlopen({lib}, 0x0002): tried: '{lib}' (mach-o file, but is an incompatible "
               "architecture (have 'x86_64', need 'arm64'))")
    findings = runtime_findings(mac(import_error(message, "ImportError")))
    assert codes(findings) == ["runtime.library-arch-mismatch"]
    f = findings[0]
    assert f.title.startswith("_multiarray_umath.cpython-311-darwin.so is built for x86_64")
    assert "--force-reinstall" in f.remediation.commands[0] and "numpy==2.1.3" in f.remediation.commands[0]


def test_rosetta_explains_the_sigill():
    """An x86_64 Python under Rosetta 2 (sysctl.proc_translated=1) dies with SIGILL importing
    an AVX build: arch.rosetta is the root cause, runtime.import-sigill its consequence."""
    rt = {"outcome": "signal", "signal": "SIGILL", "stage": "importing", "python": PY,
          "returncode": -4, "log": {"python_fatal": "Illegal instruction"}}
    s = mac(rt, python={"process_arch": "x86_64", "translated": True})
    sigill = runtime_findings(s)
    assert codes(sigill) == ["runtime.import-sigill"]
    assert any(c.startswith("arch -arm64") for c in sigill[0].remediation.commands)
    report = diagnose(s)
    findings = report.findings
    assert report.diagnosis().code.startswith("arch.")
    sig = next(f for f in findings if f.code == "runtime.import-sigill")
    assert "arch.rosetta" in [c.code for c in report.explained_by(sig)]


def test_numpy_abort_is_numpy_not_a_generic_crash():
    """Old TensorFlow + older NumPy aborts in bfloat16.cc after numpy's RuntimeError
    (tensorflow/tensorflow#23346)."""
    from tfdoctor.logparse import parse

    stderr = ("RuntimeError: module compiled against API version 0xc but this version of numpy is 0xb\n"
              "ImportError: numpy.core.multiarray failed to import\n"
              "2018-10-29 17:42:25.858222: F tensorflow/python/lib/core/bfloat16.cc:675] Check failed: "
              "PyBfloat16_Type.tp_base != nullptr\n")
    rt = {"outcome": "signal", "signal": "SIGABRT", "stage": "importing",
          "log": typed.to_plain(parse(stderr)), "stderr_tail": stderr}
    findings = runtime_findings(snap(linux_cpu(runtime=rt)))
    assert codes(findings) == ["runtime.numpy-abi"]
    assert "SIGABRT" in findings[0].title


def test_tensorflow_not_installed_is_only_info():
    rt = import_error("No module named 'tensorflow'", "ModuleNotFoundError")
    s = snap(linux_cpu(runtime=rt, packages=[]))
    findings = runtime_findings(s)
    assert codes(findings) == ["runtime.not-installed"]
    assert findings[0].severity is Severity.INFO


def test_every_code_is_documented_and_explainable():
    for code, doc in check.codes.items():
        assert code.startswith("runtime.")
        assert doc.title and doc.why and doc.fix
    required = {"runtime.import-sigill", "runtime.import-crashed", "runtime.import-failed",
                "runtime.plugin-load-failed", "runtime.library-arch-mismatch", "runtime.numpy-abi",
                "runtime.protobuf", "runtime.op-not-registered", "runtime.import-hang",
                "runtime.no-result", "runtime.bad-output", "runtime.no-gpu", "runtime.gpu-placement",
                "runtime.memory-growth", "runtime.optimizer-slowdown", "runtime.ok"}
    assert required <= set(check.codes)
    assert all(r.needs == ("runtime",) for r in check.rules)


def test_runtime_outcome_names_are_known():
    from tfdoctor.runtime_facts import OUTCOMES

    for outcome in OUTCOMES:
        findings = runtime_findings(snap(linux_cpu(runtime={"outcome": outcome, "tf_version": "2.19.1",
                                                            "import_error": None})))
        assert findings, outcome
    assert isinstance(RuntimeFacts(outcome="ok").log.events, list)


# --- robustness: runtime facts from a snapshot file may be anything the schema allows --------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=20,
)


def _paths(node, trail=()):
    out = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.append(trail + (key,))
            out += _paths(value, trail + (key,))
    elif isinstance(node, list) and node:
        out.append(trail + (0,))
        out += _paths(node[0], trail + (0,))
    return out


_BASES = [HEALTHY_MAC, import_error(f"dlopen({METAL}, 6): Symbol not found: _TF_X\n"),
          {"outcome": "signal", "signal": "SIGILL", "stage": "importing",
           "log": {"python_stack": ["a:1 in b"], "cpu_instructions_missing": ["AVX"]}}]
_MUTATIONS = [(i, p) for i, base in enumerate(_BASES) for p in _paths(base)]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(_MUTATIONS) - 1), value=_JSON, delete=st.booleans())
def test_mutated_runtime_facts_load_or_fail_clearly_and_never_crash_the_check(which, value, delete):
    import copy

    from tfdoctor.snapshot import SnapshotError

    index, trail = _MUTATIONS[which]
    runtime = copy.deepcopy(_BASES[index])
    parent = runtime
    for key in trail[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[trail[-1]]
    else:
        parent[trail[-1]] = value
    try:
        s = mac(runtime)
    except SnapshotError as exc:
        assert "runtime" in str(exc)
        return
    findings = check.run(s)
    assert findings and all(f.code in check.codes for f in findings)


def test_runtime_facts_fit_the_generated_snapshot_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from tfdoctor.schemas import snapshot_schema

    for runtime in _BASES:
        data = json.loads(json.dumps(mac(runtime).to_dict()))
        jsonschema.validate(data, snapshot_schema())


def test_explain_prints_a_runtime_code():
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", "explain", "runtime.plugin-load-failed"],
                          capture_output=True, text=True, env={**__import__("os").environ, "NO_COLOR": "1"})
    assert proc.returncode == 0
    assert "Symbol not found" in proc.stdout and "tensorflow-plugins" in proc.stdout


def test_numpy_pin_is_read_for_this_python():
    """tensorflow 2.16/2.17 pin numpy by Python version (reference records: '>=1.23.5' below
    3.12, '>=1.26.0' from 3.12): the fix must use the line for the diagnosed interpreter."""
    from snapshots import _pkg, apple_silicon, snap
    from tfdoctor.derived import derive
    from tfdoctor.recommend import tf_requirement

    def _requires(s, name):
        return tf_requirement(s, derive(s), name)

    tf = _pkg("tensorflow", "2.16.2", ["cp312-cp312-macosx_12_0_arm64"],
              ['numpy<2.0.0,>=1.23.5; python_version <= "3.11"', 'numpy<2.0.0,>=1.26.0; python_version >= "3.12"'])
    s312 = snap(apple_silicon(packages=[tf], python={"version": "3.12.4"}))
    s311 = snap(apple_silicon(packages=[tf], python={"version": "3.11.9"}))
    assert _requires(s312, "numpy") == "<2.0.0,>=1.26.0"
    assert _requires(s311, "numpy") == "<2.0.0,>=1.23.5"


def test_a_crash_while_loading_a_plugin_names_the_plugin_being_loaded():
    """The runtime child records which plugin file TensorFlow was loading when it died (a
    plugin whose constructor kills the process): the headline names it, not every plugin."""
    other = f"{SITE}/tensorflow-plugins/libother.so"
    rt = {"outcome": "signal", "signal": "SIGSEGV", "stage": "importing", "python": PY, "returncode": -11,
          "loading_plugin": METAL,
          "plugins": [{"path": METAL, "source": "tensorflow-plugins", "exists": True},
                      {"path": other, "source": "tensorflow-plugins", "exists": True}]}
    (f,) = runtime_findings(mac(rt))
    assert f.code == "runtime.import-crashed"
    assert f.title.startswith("TensorFlow crashed with SIGSEGV while loading libmetal_plugin.dylib")


def test_no_usable_temporary_directory_for_the_child_is_said_so():
    rt = {"outcome": "temp-dir", "stage": "started", "python": PY,
          "message": "its temporary directory was removed while it ran"}
    (f,) = runtime_findings(mac(rt))
    assert f.code == "runtime.no-result" and "could not run" in f.title
    assert "export TMPDIR=~/tmp" in f.remediation.commands
