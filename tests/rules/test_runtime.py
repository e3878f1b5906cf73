"""The runtime facts model, the parent's classification of how the child ended, and what holds
for the whole runtime family (checks/runtime_import.py, runtime_crash.py, runtime_devices.py):
every code documented, every outcome answered, mutated facts never crash a rule. Each module's
own findings are tested in tests/rules/test_runtime_<module>.py, on snapshots of real Mac
situations (texts from the issues each test names); the fixtures they share are here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from snapshots import RuleModules, apple_silicon, linux_cpu, snap

from tfdoctor.child.process import ChildResult
from tfdoctor.facts import typed
from tfdoctor.facts.runtime import RuntimeFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.runtime import child_env, facts_from_child
from tfdoctor.gather.static import INSIDE

check = RuleModules("runtime_import", "runtime_crash", "runtime_devices")

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


def import_error(message: str, type_: str = "tensorflow.python.framework.errors_impl.NotFoundError",
                 stage: str = "done", **extra) -> dict:
    from tfdoctor.logtext.stderr import parse

    events = typed.to_plain(parse(message).events)
    return {"outcome": "import-error", "stage": stage, "python": PY,
            "import_error": {"type": type_, "message": message, "events": events,
                             "traceback": [f"{SITE}/tensorflow/__init__.py:437 in <module>",
                                           f"{SITE}/tensorflow/python/framework/load_library.py:151 in load_library"]},
            "plugins": [{"path": METAL, "source": "tensorflow-plugins"}], **extra}


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
                           "--eval-annotations", str(INSIDE / "runtime")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the whole family --------------------------------------------------------------------------


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
    from tfdoctor.facts.runtime import OUTCOMES

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

    from tfdoctor.facts.snapshot import SnapshotError

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
    from tfdoctor.render.schemas import snapshot_schema

    for runtime in _BASES:
        data = json.loads(json.dumps(mac(runtime).to_dict()))
        jsonschema.validate(data, snapshot_schema())
