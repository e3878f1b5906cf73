"""The model's CPU fallbacks and speed verdicts as findings (checks/model_speed.py), on recorded
facts (no TensorFlow), and the verdict of a pasted text's own timings.

Kernel facts come from the shipped table of tensorflow-metal 1.2.0 (read from
tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl, tests/data/reference/
metal_binaries_2026-11.json.gz); the op lists are those tests/gather/test_model_probe_tf.py records for
the attention and LSTM presets with real TensorFlow. Timings are built by hand, per call in
milliseconds, and judged by the child's own statistics (tfdoctor.inside.shared.probe_stats.compare).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from model_cases import codes_of, facts, op, snapshot
from snapshots import RuleModules, apple_silicon, snap

from tfdoctor.inside.shared import probe_stats
from tfdoctor.logtext import keep
from tfdoctor.knowledge import kernels
from tfdoctor.model import Severity

speed_rules = RuleModules("model_speed")


ATTENTION_OPS = [op("Einsum", layer="mha"), op("BatchMatMulV2", layer="mha"),
                 op("Erfc", layer="ff1"), op("MatMul", layer="ff1"),
                 op("StatelessRandomUniformV2", layer="dropout", graph="training"),
                 op("StatelessRandomUniformV2", layer="ff_dropout", graph="training"),
                 op("StatelessRandomGetKeyCounter", dtype=None, layer="dropout", graph="training"),
                 op("StridedSlice", dtype="int32", layer="mha")]


def test_fallback_predicted_from_the_1_2_0_table_names_each_op_its_layers_and_a_fix():
    f = facts({"ops": {"ops": ATTENTION_OPS}}, plugin="1.2.0", gpus=())
    (finding,) = codes_of(speed_rules.run(snapshot(f)))["model.cpu-fallback"]
    assert finding.severity == Severity.WARNING and finding.basis == "table"
    assert finding.title.startswith("4 op types of the model have no GPU kernel in "
                                    "tensorflow-metal 1.2.0 (predicted from its kernel table)")
    assert "StatelessRandomUniformV2:float32 in dropout, ff_dropout" in finding.title
    assert "Einsum:float32 in mha" in finding.title and "BatchMatMulV2" not in finding.title
    fix = finding.remediation.text
    assert "Erfc (ff1): exact gelu: use gelu with approximate=True" in fix
    assert "Einsum (mha): MultiHeadAttention" in fix
    # One piece of advice for the ops of one cause (Dropout's key counter and uniform draws).
    assert "StatelessRandomGetKeyCounter, StatelessRandomUniformV2 (dropout, ff_dropout): " \
        "Dropout and random augmentation" in fix
    assert finding.evidence["host_ops"] == ["StridedSlice"]  # integer shape arithmetic: apart
    assert finding.remediation.commands[0].startswith("tfdoctor probe --workload attention "
                                                      "--plugin 1.2.0 --python ")


def test_what_ran_on_the_cpu_is_observed_and_explains_a_slower_gpu():
    doc = {"ops": {"ops": [op("BiasAdd", gpu_kernel=False, layer="hidden"),
                           op("MatMul", gpu_kernel=True, layer="hidden")]},
           "placement": {"cpu_ops": [dict(op("BiasAdd", layer="hidden"), device="/device:CPU:0")]}}
    (finding,) = speed_rules.run(snapshot(facts(doc)))
    assert finding.code == "model.cpu-fallback" and finding.basis == "observed"
    assert "--plugin" not in finding.remediation.commands[0]
    assert "in this machine's GPU plugin" in finding.title
    assert "ran on the CPU with the model pinned to the GPU: BiasAdd" in finding.title
    assert "model.gpu-slower" in finding.explains


def test_integer_shape_ops_alone_are_no_fallback():
    doc = {"ops": {"ops": [op("StridedSlice", dtype="int32"), op("MatMul")]}}
    assert speed_rules.run(snapshot(facts(doc, plugin="1.2.0", gpus=()))) == []


def test_the_replacements_advised_have_metal_kernels_and_the_ops_advised_about_none():
    table = kernels.kernel_table("1.2.0")
    for replacement in ("Tanh", "Pow", "Mul", "Relu", "LeakyRelu", "Sigmoid", "BatchMatMulV2",
                        "MatMul"):
        assert table.has_kernel(replacement, "float32"), replacement
    for missing in ("Einsum", "Erfc", "Elu", "Selu", "Softplus", "Softsign",
                    "StatelessRandomUniformV2"):
        assert not table.has_kernel(missing, "float32"), missing


def timing(ms: list[float], first_ms: float) -> dict:
    per = [v / 1e3 for v in ms]
    return {"first_call_s": first_ms / 1e3, "number": 8, "times_s": per,
            **probe_stats.summary(per)}


def speed(cpu_ms, gpu_ms, sweep=None) -> dict:
    cpu, gpu = timing(cpu_ms, 400.0), timing(gpu_ms, 1900.0)
    verdict = probe_stats.compare(cpu["times_s"], gpu["times_s"])
    return {"speed": {"inference": {}, "train_step": {"/CPU:0": cpu, "/GPU:0": gpu},
                      "verdicts": {"train_step": verdict}}, "sweep": sweep or []}


def sweep_row(batch, cpu_ms, gpu_ms):
    return {"batch": batch, "/CPU:0": timing([cpu_ms] * 3, 1.0), "/GPU:0": timing([gpu_ms] * 3, 1.0)}


def test_a_slower_gpu_says_by_how_much_with_the_first_step_apart_and_where_it_wins():
    # An LSTM-like training step: 5 ms on the CPU, 12 ms on the GPU, five repeats each (every
    # GPU repeat slower than every CPU repeat: p = 1/252 one-sided).
    sweep = [sweep_row(2, 1.0, 3.0), sweep_row(16, 4.0, 4.1), sweep_row(64, 16.0, 8.0),
             sweep_row(256, 60.0, 20.0)]
    f = facts(speed([5.0, 5.1, 4.9, 5.2, 5.0], [12.0, 12.3, 11.9, 12.1, 12.2], sweep))
    found = codes_of(speed_rules.run(snapshot(f)))
    (finding,) = found["model.gpu-slower"]
    assert finding.severity == Severity.WARNING
    assert finding.title.startswith("Your model's training step at batch 8: the GPU is 2.4x "
                                    "slower than the CPU (GPU 12.1 ms, CPU 5 ms a call; first "
                                    "calls, timed apart: GPU 1.9e+03 ms, CPU 400 ms)")
    assert "the GPU wins inference from batch 64" in finding.title
    assert finding.evidence["gpu_wins_from_batch"] == 64
    assert "--sweep" in finding.remediation.commands[0]


def test_a_faster_gpu_and_an_unclear_one():
    f = facts(speed([9.0, 9.2, 9.1, 9.3, 9.0], [3.0, 3.1, 2.9, 3.0, 3.05]))
    (finding,) = speed_rules.run(snapshot(f))
    assert finding.code == "model.gpu-faster" and finding.severity == Severity.OK
    assert "the GPU is 3.0x faster than the CPU" in finding.title
    f = facts(speed([5.0, 5.4, 4.8], [5.1, 4.9, 5.3]))
    (finding,) = speed_rules.run(snapshot(f))
    assert finding.code == "model.no-clear-difference" and finding.severity == Severity.INFO


@pytest.mark.parametrize("rows, wins", [
    ([(2, 1.0, 3.0), (16, 4.0, 3.0), (64, 16.0, 8.0)], 16),
    ([(2, 1.0, 3.0), (16, 4.0, 3.0), (64, 16.0, 18.0)], None),  # loses again at the largest
    ([(2, 1.0, 3.0), (16, 4.0, 3.9)], None),                     # within the 10% margin
])
def test_where_the_gpu_starts_to_win(rows, wins):
    from tfdoctor.checks.model_speed import wins_at

    assert wins_at([sweep_row(*r) for r in rows]) == wins


def test_float16_without_kernels_names_the_layers():
    doc = {"settings": {"compute_dtypes": ["float16"], "keras_version": "3.10.0"},
           "ops": {"ops": [op("Softplus", dtype="float16", layer="head"),
                           op("MatMul", dtype="float16", layer="head")]}}
    found = codes_of(speed_rules.run(snapshot(facts(doc, plugin="1.2.0", gpus=()))))
    (finding,) = found["model.float16-fallback"]
    assert "Softplus" in finding.title and "MatMul" not in finding.title
    assert 'dtype="float32": head' in finding.remediation.text
    assert "model.cpu-fallback" in found


def test_what_the_budget_left_unmeasured_is_said_not_judged():
    # MobileNetV2 at batch 8 with --budget 30 on a busy 2-core machine (benchmarks/
    # user_model.py): the first training call on the GPU took 16.8 s, the timings were skipped.
    skipped = {"skipped": "budget"}
    doc = {"speed": {"inference": {"/CPU:0": skipped, "/GPU:0": skipped},
                     "train_step": {"/CPU:0": skipped, "/GPU:0": skipped}, "verdicts": {}},
           "memory": {"device": "/GPU:0", "source": None, "steps": [], "stopped": "budget"}}
    found = codes_of(speed_rules.run(snapshot(facts(doc))))
    assert list(found) == ["model.not-measured"]
    (finding,) = found["model.not-measured"]
    assert finding.severity == Severity.INFO
    assert finding.title == ("Not measured, the budget ran out: inference on CPU:0, inference on "
                             "GPU:0, training step on CPU:0, training step on GPU:0, memory "
                             "(0 steps taken)")
    assert finding.remediation.commands[0].startswith("tfdoctor probe --workload attention "
                                                      "--budget 120")


# --- a pasted text's own timings (no model probe) ----------------------------------------------

SPEEDS = Path(__file__).resolve().parents[1] / "data" / "speeds"


def text_findings(name: str) -> dict:
    s = snap(apple_silicon())
    s.log = keep.read(SPEEDS / name)
    return codes_of(speed_rules.run(s))


def test_a_text_timing_the_gpu_slower_is_a_reported_warning_with_the_probe_that_measures_it():
    (finding,) = text_findings("fork_device_name_epoch_times.txt")["model.gpu-slower"]
    assert finding.severity == Severity.WARNING and finding.basis == "reported"
    assert "6.7x slower" in finding.title and "GPU 10 min, CPU 1.5 min an epoch" in finding.title
    assert finding.evidence["gpu_said"] == "600 seconds (line 7)"
    assert finding.remediation.commands == ("tfdoctor probe --model MODEL --sweep --python /Users/ada/venvs/tf/bin/python",)


def test_a_text_timing_the_gpu_faster_and_texts_that_compare_something_else():
    (finding,) = text_findings("notebook_gpu_then_cpu_keras3.txt")["model.gpu-faster"]
    assert finding.severity == Severity.OK and finding.basis == "reported" and "4.5x faster" in finding.title
    for name in ("two_macs.txt", "two_packages.txt", "tables_two_models_two_frameworks.txt"):
        assert not text_findings(name), name
