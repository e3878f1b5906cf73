"""The model probe's parent side, without TensorFlow: the child's documents mapped onto facts,
the CPU fallback predicted from the shipped kernel table, the leak rule, settings, usage errors.

The documents are written in the shape tfdoctor/inside/model/ writes (the end-to-end
tests in test_model_probe_tf.py run the real child); kernel facts come from the shipped table
(tensorflow-metal 1.2.0, read from tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl).
"""

from __future__ import annotations

import json

import pytest

from tfdoctor.child.process import ChildResult
from tfdoctor.gather import model_memory, model_result, user_model
from tfdoctor.render.model_summary import summarize

MIB = 2 ** 20


def op(op_name, dtype="float32", layer="dense", graph="inference", gpu_kernel=None, count=1):
    return {"graph": graph, "layer": layer, "op": op_name, "dtype": dtype, "count": count,
            "example": f"model/{layer}/{op_name}", "gpu_kernel": gpu_kernel}


def memory(series, device="/GPU:0"):
    return {"device": device, "source": "rss", "error": None,
            "steps": [{"step": i, "process_bytes": v, "loss": 1.0} for i, v in enumerate(series)]}


def test_prediction_from_the_metal_1_2_0_table_names_ops_without_kernels():
    ops = [op("Einsum", layer="mha"), op("MatMul"), op("Erfc", layer="ff1"),
           op("StatelessRandomUniformV2", layer="dropout", graph="training"),
           op("Identity"), op("StridedSlice", dtype="int32", layer="flatten")]
    facts = model_result.facts_from_document({"ops": {"ops": ops}, "gpus": []}, plugin="1.2.0")
    assert facts.fallback_source == "table:1.2.0"
    assert facts.fallback_ops() == ["Einsum:float32", "Erfc:float32",
                                    "StatelessRandomUniformV2:float32"]
    assert {f.layer for f in facts.fallbacks} == {"mha", "ff1", "dropout"}
    assert facts.fallback_ops("training") == ["StatelessRandomUniformV2:float32"]
    # Integer shape arithmetic is kept in host memory on every GPU: counted apart.
    assert facts.host_ops == ["StridedSlice"]


def test_the_newest_table_is_used_when_no_plugin_is_named():
    facts = model_result.facts_from_document({"ops": {"ops": [op("Einsum")]}, "gpus": []})
    assert facts.fallback_source == f"table:{model_result.default_plugin()}"
    assert facts.fallback_ops() == ["Einsum:float32"]


def test_with_a_gpu_the_registry_answers_and_default_device_ops_are_not_fallbacks():
    ops = [op("BiasAdd", gpu_kernel=False), op("MatMul", gpu_kernel=True),
           op("ReadVariableOp", gpu_kernel=False)]
    placement = {"cpu_ops": [dict(op("BiasAdd"), device="/device:CPU:0"),
                             dict(op("Identity"), device="/device:CPU:0")]}
    facts = model_result.facts_from_document({"ops": {"ops": ops}, "gpus": ["/device:GPU:0"],
                                             "placement": placement})
    assert facts.fallback_source == "registry"
    assert [f.op for f in facts.fallbacks] == ["BiasAdd"]
    assert [(f.op, f.source) for f in facts.ran_on_cpu] == [("BiasAdd", "executed")]


def test_steady_growth_is_a_leak_with_its_rate():
    series = [500 * MIB, 520 * MIB, 530 * MIB] + [530 * MIB + i * 2 * MIB for i in range(1, 10)]
    trend = model_memory.memory_trend(memory(series))
    assert trend.leak
    assert trend.slope_bytes_per_step == pytest.approx(2 * MIB)
    assert "2048 KiB per training step" in trend.message


@pytest.mark.parametrize("series", [
    [400 * MIB] * 12,                                           # flat
    [400 * MIB] * 3 + [410 * MIB] + [430 * MIB] * 8,            # one jump, then flat
    [400 * MIB + (i % 2) * 8192 for i in range(12)],            # page-sized jitter
    [300 * MIB, 350 * MIB, 380 * MIB] + [390 * MIB] * 9,        # warm-up growth only
    # MobileNetV2 in ok mode (simgpu): TensorFlow's pools filling up, growth slowing down.
    [int(m * MIB) for m in (900, 940, 960, 972, 980, 985, 988, 990, 991, 991.5, 992, 992)],
])
def test_no_leak_without_steady_growth(series):
    trend = model_memory.memory_trend(memory(series))
    assert not trend.leak, trend.message


def test_too_few_steps_are_not_judged():
    trend = model_memory.memory_trend(memory([i * 8 * MIB for i in range(8)]))
    assert not trend.leak and trend.slope_bytes_per_step is None
    assert "too few steps" in trend.message


def test_settings_that_break_or_slow_metal():
    settings = {"jit_compile": True, "keras_version": "2.15.0",
                "optimizer": "keras.src.optimizers.adam.Adam", "optimizer_legacy": False,
                "compute_dtypes": ["float16"],
                "xla_on_gpu": {"ok": False, "error": "Could not find compiler for platform METAL"}}
    ops = [op("Softplus", dtype="float16"), op("MatMul", dtype="float16")]
    facts = model_result.facts_from_document({"settings": settings, "gpus": ["/device:GPU:0"],
                                             "ops": {"ops": ops}}, plugin="1.2.0")
    issues = {i.code: i for i in facts.setting_issues}
    assert set(issues) == {"xla-unsupported", "optimizer-slow", "float16-fallback"}
    assert "platform METAL" in issues["xla-unsupported"].message
    assert "59438" in issues["optimizer-slow"].source
    assert "Softplus" in issues["float16-fallback"].message
    assert "MatMul" not in issues["float16-fallback"].message


def test_legacy_optimizer_and_old_keras_are_not_flagged():
    for settings in ({"keras_version": "2.15.0", "optimizer": "keras.optimizers.legacy.Adam",
                      "optimizer_legacy": True},
                     {"keras_version": "2.10.0", "optimizer": "keras.optimizers.Adam",
                      "optimizer_legacy": False}):
        facts = model_result.facts_from_document({"settings": settings})
        assert not facts.setting_issues


def test_jit_compile_without_a_gpu_is_predicted_to_fail_on_metal():
    facts = model_result.facts_from_document({"settings": {"jit_compile": True}, "gpus": []})
    assert [i.code for i in facts.setting_issues] == ["jit-compile-on-metal"]


def test_errors_make_the_outcome_an_error_and_the_summary_says_it():
    doc = {"errors": [{"stage": "load", "kind": "corrupt", "message": "m.keras is truncated"}],
           "complete": True, "stage": "done"}
    facts = model_result.facts_from_document(doc)
    assert facts.outcome == "error"
    assert "error (corrupt, load): m.keras is truncated" in summarize(facts)
    json.dumps(facts.to_json())


def test_agreement_summary_names_the_first_layer_that_disagrees():
    agreement = {"tolerance": 1e-3, "per_layer": True, "first_bad": "conv_a",
                 "output_error": 0.02, "losses": {"/CPU:0": [1.0], "/GPU:0": [1.1]},
                 "loss_rel_diff": 0.1,
                 "layers": [{"layer": "mix", "rel_error": 1e-7, "agrees": True},
                            {"layer": "conv_a", "rel_error": 0.01, "agrees": False}]}
    facts = model_result.facts_from_document({"agreement": agreement})
    assert "disagree from layer conv_a (relative error 0.01" in summarize(facts)


def _child(result, *, timed_out=False, returncode=0):
    return ChildResult(returncode, timed_out, 12.0, result, None if result else "missing", "", 0)


def test_a_hang_or_a_crash_keeps_what_was_found_and_says_where():
    partial = {"stage": "agreement", "complete": False, "errors": [], "gpus": ["/device:GPU:0"],
               "ops": {"ops": [op("BiasAdd", gpu_kernel=False)]}}
    facts = user_model.facts_from_child(_child(partial, timed_out=True, returncode=None), 90, None)
    assert facts.outcome == "timeout" and [f.op for f in facts.fallbacks] == ["BiasAdd"]
    assert "last stage: agreement" in facts.errors[-1].message
    facts = user_model.facts_from_child(_child(partial, returncode=-11), 90, None)
    assert facts.outcome == "crashed" and "SIGSEGV" in facts.errors[-1].message
    facts = user_model.facts_from_child(_child(None, returncode=1), 90, None)
    assert facts.outcome == "no-result"


@pytest.mark.parametrize("kwargs, words", [
    ({"model": None, "workload": None}, "either a model"),
    ({"model": "m.keras", "workload": "lstm"}, "either a model"),
    ({"model": None, "workload": "resnet"}, "unknown workload"),
    ({"model": "m.keras", "workload": None, "batch": 0}, "--batch"),
    ({"model": "m.keras", "workload": None, "budget_s": float("nan")}, "--budget"),
])
def test_usage_errors(kwargs, words):
    args = {"batch": 8, "budget_s": 30.0, **kwargs}
    with pytest.raises(ValueError, match=words):
        user_model.child_config(**args)


def test_config_resolves_paths_but_not_module_functions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert user_model.child_config(model="m.keras", workload=None, batch=8,
                                    budget_s=30)["model"] == str(tmp_path / "m.keras")
    assert user_model.child_config(model="pkg.models:build", workload=None, batch=8,
                                    budget_s=30)["model"] == "pkg.models:build"


def test_an_unknown_plugin_release_is_a_usage_error_before_anything_runs():
    assert user_model.plugin_problem("1.2.0") is None
    assert "no GPU kernel table for tensorflow-metal 9.9.9" in user_model.plugin_problem("9.9.9")
    with pytest.raises(ValueError, match="9.9.9"):
        user_model.probe_model("/nonexistent/python", {"budget_s": 5}, plugin="9.9.9")
    facts = user_model.probe_model("/nonexistent/python", {"budget_s": 5})
    assert facts.outcome == "error" and facts.errors[0].kind == "not-run"
