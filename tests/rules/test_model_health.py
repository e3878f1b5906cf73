"""The model probe's failures, disagreements and leaks as findings (checks/model_health.py), on
recorded facts (no TensorFlow).

The documents are in the shape tfdoctor/inside/model/ writes; their error messages are
the child's own, as tests/gather/test_model_probe_tf.py sees them against real TensorFlow with the
simulated GPU (tests/simgpu). Each snapshot goes through JSON and Snapshot.from_dict, as
`tfdoctor diagnose` replays one.
"""

from __future__ import annotations

import json

import pytest
from snapshots import RuleModules, apple_silicon

from tfdoctor.advice.commands import python_cmd
from tfdoctor.child.process import ChildResult
from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.user_model import ModelFacts
from tfdoctor.gather import model_result, user_model
from tfdoctor.model import Severity

rules = RuleModules("model_health")
MIB = 2 ** 20
MODEL = "/Users/ada/models/net.keras"


def snapshot(facts: ModelFacts) -> Snapshot:
    data = apple_silicon()
    data["model"] = facts.to_json()
    return Snapshot.loads(typed.json_text(data))


def facts(doc: dict, plugin: str | None = None) -> ModelFacts:
    doc = {"source": {"kind": "keras", "spec": MODEL, "workload": False}, "complete": True,
           "stage": "done", "gpus": ["/physical_device:GPU:0"], **doc}
    return model_result.facts_from_document(doc, plugin)


def by_code(found) -> dict:
    out: dict = {}
    for f in found:
        out.setdefault(f.code, []).append(f)
    return out


def error(kind: str, message: str, stage: str = "load", **extra) -> dict:
    return {"errors": [{"stage": stage, "kind": kind, "message": message, **extra}],
            "source": {"kind": None, "spec": MODEL, "workload": False}}


@pytest.mark.parametrize("kind, stage, message, code", [
    ("not-a-model", "load", f"{MODEL} is not a Keras model file (.keras zip, HDF5 .h5) or a "
     "SavedModel directory (no saved_model.pb)", "model.not-a-model"),
    ("not-found", "load", f"no such file or directory: {MODEL}", "model.not-a-model"),
    ("corrupt", "load", f"{MODEL} is a damaged or truncated .keras archive: BadZipFile: File is "
     "not a zip file", "model.corrupt"),
    ("custom-objects", "load", "the model needs custom objects that are not importable here: "
     "userpkg>Scale; give --model module:function", "model.custom-objects"),
    ("function-raised", "load", "usermodels:raises() raised RuntimeError: cannot reach the data "
     "server", "model.function-failed"),
    ("not-a-model-returned", "load", "usermodels:not_a_model() returned dict, not a Keras model",
     "model.function-failed"),
    ("import-failed", "load", "importing usermodels: ModuleNotFoundError: No module named "
     "'usermodels'", "model.function-failed"),
    ("too-big", "load", "training 262656 parameters needs about 4.0 MiB (weights, gradients, two "
     "optimizer slots) but 2.0 MiB are available", "model.too-big"),
    ("archive-too-big", "load", f"{MODEL} was not inflated: its 3 members declare 4294967280 bytes "
     "uncompressed, more than the 2147483648 bytes allowed (the memory available)", "model.too-big"),
    ("import-failed", "import", "ImportError: numpy.core.multiarray failed to import",
     "model.probe-failed"),
    ("inputs-failed", "inputs", "ValueError: the model has no input signature: it was never "
     "built or called", "model.probe-failed"),
])
def test_each_bad_input_is_one_finding_with_the_message_and_a_command(kind, stage, message, code):
    s = snapshot(facts(error(kind, message, stage)))
    found = by_code(rules.run(s))
    assert list(found) == [code]
    (finding,) = found[code]
    assert finding.severity == Severity.ERROR
    assert message[:60] in finding.title
    assert finding.evidence["errors"][0]["kind"] == kind
    # Custom objects: a module:function that imports them is the way to load the model; a path
    # that is no model is not given again (it would fail the same way): a model saved from it is.
    model = {"model.custom-objects": "mymodels:load", "model.not-a-model": "model.keras"}.get(code, MODEL)
    assert finding.remediation.commands[0].startswith(f"tfdoctor probe --model {model} ")


def test_a_training_script_given_as_the_model_is_run_under_tfdoctor_instead():
    """`probe --model train.py` (issue 29): probing the script again would fail the same way;
    `tfdoctor run` runs it and diagnoses what it prints."""
    script = "/Users/ada/my project/train.py"
    doc = error("not-a-model", f"{script} is not a Keras model file (.keras zip, HDF5 .h5) or a "
                "SavedModel directory (no saved_model.pb)")
    doc["source"]["spec"] = script
    s = snapshot(facts(doc))
    (finding,) = rules.run(s)
    assert finding.code == "model.not-a-model"
    assert finding.remediation.commands == (f"tfdoctor run -- {python_cmd(s)} '{script}'",)


@pytest.mark.parametrize("message", [
    f"{MODEL} holds Python code that loading it would run (Lambda layer evil): not loaded; give "
    "--trust-model to load it if you trust where it comes from",
    f"{MODEL} is a SavedModel directory: its graph runs the TensorFlow ops it holds (WriteFile, "
    "ReadFile, PyFunc among them) when it is loaded and called: not loaded; give --trust-model",
])
def test_code_in_a_model_file_is_refused_with_the_flag_that_allows_it(message):
    found = by_code(rules.run(snapshot(facts(error("untrusted-code", message)))))
    assert list(found) == ["model.untrusted-code"]
    (finding,) = found["model.untrusted-code"]
    assert finding.severity == Severity.WARNING
    assert message[:60] in finding.title
    assert finding.remediation.commands[0].startswith(f"tfdoctor probe --model {MODEL} ")
    assert " --trust-model" in finding.remediation.commands[0]


def _child(doc, *, timed_out=False, returncode=0):
    return ChildResult(returncode, timed_out, 12.0, doc, None if doc else "missing", "", 0)


def test_a_timeout_and_a_crash_keep_the_stage_and_what_was_found():
    partial = {"stage": "agreement", "complete": False, "errors": [], "gpus": ["/device:GPU:0"],
               "source": {"kind": "preset", "spec": "mobilenetv2", "workload": True}}
    f = user_model.facts_from_child(_child(partial, timed_out=True, returncode=None), 90, None)
    found = by_code(rules.run(snapshot(f)))
    assert list(found) == ["model.timeout"]
    assert "last stage: agreement" in found["model.timeout"][0].title
    assert "--workload mobilenetv2" in found["model.timeout"][0].remediation.commands[0]
    f = user_model.facts_from_child(_child(partial, returncode=-11), 90, None)
    found = by_code(rules.run(snapshot(f)))
    assert list(found) == ["model.crashed"] and "SIGSEGV" in found["model.crashed"][0].title


def test_an_op_without_a_gpu_kernel_names_its_layer():
    doc = error("no-gpu-kernel", "op RngReadAndSkip (sequential/random_flip/RngReadAndSkip) has "
                "no kernel on the device it must run on", stage="placement",
                op="RngReadAndSkip", layer="random_flip")
    (finding,) = rules.run(snapshot(facts(doc)))
    assert finding.code == "model.no-gpu-kernel"
    assert "RngReadAndSkip in layer random_flip" in finding.title


AGREEMENT = {"tolerance": 1e-3, "per_layer": True, "output_error": 0.41,
             "losses": {"/CPU:0": [1.21, 1.19, 1.17], "/GPU:0": [1.35, 1.34, 1.36]},
             "loss_rel_diff": 0.16}


def test_wrong_gpu_results_name_the_first_layer_that_disagrees():
    # The simulated GPU in wrong mode for Conv2D only (SIMGPU_WRONG_OPS=Conv2D): the Dense
    # before the convolutions agrees to float32 rounding, conv_a is the first to differ.
    layers = [{"layer": "mix", "rel_error": 2.1e-7, "agrees": True},
              {"layer": "conv_a", "rel_error": 0.38, "agrees": False},
              {"layer": "conv_b", "rel_error": 0.52, "agrees": False},
              {"layer": "out", "rel_error": 0.41, "agrees": False}]
    doc = {"agreement": dict(AGREEMENT, layers=layers, first_bad="conv_a")}
    found = by_code(rules.run(snapshot(facts(doc))))
    (finding,) = found["model.gpu-wrong"]
    assert finding.severity == Severity.ERROR
    assert finding.evidence["first_bad_layer"] == "conv_a"
    assert "layer conv_a is the first to differ" in finding.title and "0.38" in finding.title
    assert [l["layer"] for l in finding.evidence["layers"]] == ["mix", "conv_a"]
    assert "CPU:0 1.17" in finding.title and "GPU:0 1.36" in finding.title
    assert "model.ok" not in found


def test_a_subclassed_model_is_judged_by_its_outputs():
    doc = {"agreement": dict(AGREEMENT, per_layer=False, layers=[], first_bad="(model outputs)")}
    (finding,) = by_code(rules.run(snapshot(facts(doc))))["model.gpu-wrong"]
    assert "(model outputs)" in finding.title and finding.evidence["per_layer"] is False


def test_a_loss_that_is_not_finite_only_on_the_gpu_is_wrong():
    layers = [{"layer": "dense", "rel_error": 1e-7, "agrees": True}]
    doc = {"agreement": dict(AGREEMENT, layers=layers, first_bad=None, output_error=1e-7,
                             losses={"/CPU:0": [0.9, 0.8], "/GPU:0": [0.9, float("nan")]})}
    (finding,) = by_code(rules.run(snapshot(facts(doc))))["model.gpu-wrong"]
    assert finding.evidence["first_bad_layer"] == "(training loss)"


def test_a_model_that_agrees_and_does_not_leak_is_examined_ok():
    layers = [{"layer": "conv", "rel_error": 3e-7, "agrees": True},
              {"layer": "logits", "rel_error": 4e-7, "agrees": True}]
    doc = {"model": {"class": "Functional", "kind": "functional", "layers": 4, "params": 1236},
           "ops": {"ops": [{"graph": "inference", "layer": "conv", "op": "Conv2D",
                            "dtype": "float32", "count": 1, "example": "conv", "gpu_kernel": True}]},
           "agreement": dict(AGREEMENT, layers=layers, first_bad=None, output_error=4e-7,
                             losses={"/CPU:0": [1.0], "/GPU:0": [1.0]}, loss_rel_diff=0.0),
           "memory": {"device": "/GPU:0", "source": "rss",
                      "steps": [{"process_bytes": 400 * MIB} for _ in range(12)]}}
    found = by_code(rules.run(snapshot(facts(doc))))
    assert list(found) == ["model.ok"]
    assert found["model.ok"][0].severity == Severity.OK
    assert "Functional (functional), 4 layers, 1236 parameters" in found["model.ok"][0].title


def memory(series):
    return {"memory": {"device": "/GPU:0", "source": "phys_footprint",
                       "steps": [{"step": i, "process_bytes": v, "loss": 1.0}
                                 for i, v in enumerate(series)]}}


def test_steady_memory_growth_is_a_leak_with_its_rate():
    series = [500 * MIB, 520 * MIB, 530 * MIB] + [530 * MIB + i * 2 * MIB for i in range(1, 10)]
    found = by_code(rules.run(snapshot(facts(memory(series)))))
    (finding,) = found["model.memory-leak"]
    assert finding.severity == Severity.WARNING
    assert finding.evidence["bytes_per_step"] == 2 * MIB
    assert "2048 KiB per training step" in finding.title and "GPU:0" in finding.title


def test_memory_that_settles_is_no_leak():
    series = [int(m * MIB) for m in (900, 940, 960, 972, 980, 985, 988, 990, 991, 991.5, 992, 992)]
    assert "model.memory-leak" not in by_code(rules.run(snapshot(facts(memory(series)))))


def test_assumed_dimensions_are_said():
    doc = {"assumptions": [{"input": "steps", "axis": 1, "assumed": 32,
                            "why": "unknown (None) dimension"}],
           "inputs": [{"name": "steps", "signature": [None, None, 8], "shape": [4, 32, 8],
                       "dtype": "float32", "vocabulary": None}]}
    found = by_code(rules.run(snapshot(facts(doc))))
    (finding,) = found["model.assumed-inputs"]
    assert finding.severity == Severity.INFO
    assert finding.title == "Input dimensions assumed: steps axis 1 = 32"


def test_without_a_model_probe_no_model_rule_runs():
    s = Snapshot.loads(json.dumps(apple_silicon()))
    assert s.model is None and rules.run(s) == []


def test_a_malformed_model_section_is_a_clear_snapshot_error():
    from tfdoctor.facts.snapshot import SnapshotError

    data = apple_silicon()
    data["model"] = {"errors": [{"stage": "load", "kind": 3}]}
    with pytest.raises(SnapshotError, match=r"snapshot\.model\.errors\[0\]"):
        Snapshot.from_dict(data)


def test_a_report_with_a_model_section_matches_the_shipped_schema():
    """`--json` of a model probe: the model facts (a non-finite GPU loss included) validate
    against tfdoctor/schemas/report.schema.json, as any consumer of the report will check."""
    import jsonschema

    from tfdoctor.render.schemas import SCHEMAS

    layers = [{"layer": "conv_a", "rel_error": 0.38, "agrees": False}]
    doc = {"agreement": dict(AGREEMENT, layers=layers, first_bad="conv_a",
                             losses={"/CPU:0": [1.0], "/GPU:0": [float("nan")]}),
           **memory([400 * MIB + i * 2 * MIB for i in range(12)])}
    report = rules.report(snapshot(facts(doc)))
    plain = json.loads(typed.json_text(report.to_dict(Severity.ERROR)))
    assert {f["code"] for f in plain["findings"]} >= {"model.gpu-wrong", "model.memory-leak"}
    jsonschema.validate(plain, SCHEMAS["report"]())
    assert plain["snapshot"]["model"]["agreement"]["losses"]["/GPU:0"] == [None]
