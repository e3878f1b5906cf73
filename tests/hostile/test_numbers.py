"""Issue 15, any numbers: out-of-range values are usage errors (exit 2) or clear findings, never
a traceback, exit 3, or a probe that cannot fit its budget reported as a hung import."""

from __future__ import annotations

import copy
import json
import shutil
import sys

import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor

from tfdoctor.facts.snapshot import Snapshot, SnapshotError
from tfdoctor.gather.probes import config_problem

pytestmark = pytest.mark.slow  # tfdoctor subprocesses on out-of-range numbers

SCENARIO = REPO / "tests" / "scenarios" / "healthy_m2_tf2191_metal120_probed.json"


def snapshot() -> dict:
    return copy.deepcopy(json.loads(SCENARIO.read_text())["snapshot"])


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e10", "9e9", "0", "-5", "1e309"])
def test_timeout_out_of_range_is_a_usage_error(value):
    run = run_tfdoctor("check", "--no-runtime", "--no-probes", "--timeout", value)
    assert_no_traceback(run)
    assert run.code == 2, run.stderr
    assert "--timeout" in run.stderr


def test_timeout_within_range_is_accepted():
    run = run_tfdoctor("check", "--no-runtime", "--no-probes", "--timeout", "86400", "--json")
    assert run.code in (0, 1) and json.loads(run.stdout)


@pytest.mark.parametrize("where, value", [
    (("runtime", "import_s"), 10**400),           # above 1.8e308 in a float field
    (("runtime", "duration_s"), -(10**309)),
    (("host", "memory_bytes"), 10**30),           # an int no machine has: divisions overflow
])
def test_numbers_no_fact_can_hold_are_a_clear_snapshot_error(tmp_path, where, value):
    data = snapshot()
    data[where[0]][where[1]] = value
    with pytest.raises(SnapshotError, match="out of range"):
        Snapshot.from_dict(data)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    run = run_tfdoctor("diagnose", str(path), "--json")
    assert_no_traceback(run)
    assert run.code == 2 and "out of range" in run.stderr


@pytest.mark.parametrize("config", [
    {"preset": "probe", "size": 20000},
    {"preset": "probe", "size": 20000, "workloads": "conv"},
    {"preset": "probe", "size": 10**30},
    {"preset": "probe", "budget_s": float("inf")},
])
def test_probes_that_cannot_fit_their_budget_are_refused_with_a_reason(config):
    problem = config_problem(config)
    assert problem and ("--size" in problem or "--budget" in problem)


def test_default_probe_configurations_are_accepted():
    for preset in ("check", "probe", "sweep"):
        assert config_problem({"preset": preset}) is None
    assert config_problem({"preset": "probe", "size": 8192, "workloads": "matmul"}) is None


def test_oversized_probe_is_not_reported_as_a_hung_import():
    """inspect() with probes that cannot fit: the runtime child still runs (here in an
    interpreter without TensorFlow), and the probes say why they did not run."""
    from tfdoctor.gather.runtime import inspect

    python = shutil.which("python3") or sys.executable
    found = inspect(python, 30, probes={"preset": "probe", "size": 20000})
    assert found.runtime.outcome != "timeout"
    assert found.probes.outcome == "not-run" and "--size 20000" in found.probes.message


def test_probes_stopped_at_their_limit_are_not_an_import_hang(monkeypatch):
    """The child finished every runtime stage and was killed while probing: the runtime facts
    say TensorFlow imported (no runtime.import-hang), the probe facts carry the timeout."""
    from tfdoctor.child.process import ChildResult
    from tfdoctor.gather import runtime

    stages = {"started": 0.1, "importing": 0.2, "imported": 2.0, "memory-growth": 2.1,
              "devices": 2.2, "placement": 2.3, "memory-info": 2.4, "keras": 2.5, "probes": 2.6}
    doc = {"schema": 1, "stage": "probes", "complete": False, "pid": 4242, "tf_version": "2.19.1",
           "import_s": 1.8, "stage_s": stages,
           "probes": {"outcome": "ok", "complete": False, "runs": [],
                      "current": {"workload": "matmul", "device": "CPU:0", "size": 8192, "phase": "warmup"}}}
    ended = ChildResult(-9, True, 90.0, doc, None, "", 0, 4242)
    monkeypatch.setattr(runtime, "run_child", lambda *args, **kwargs: ended)
    found = runtime.inspect(sys.executable, 60, probes={"preset": "probe"})
    assert found.runtime.outcome == "ok" and "speed probes" in found.runtime.message
    assert found.probes.outcome == "timeout"
