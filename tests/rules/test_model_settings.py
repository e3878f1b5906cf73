"""The model's settings that break or slow Metal as findings (checks/model_settings.py), on
recorded facts (no TensorFlow)."""

from __future__ import annotations

from model_cases import codes_of, facts, snapshot
from snapshots import RuleModules

from tfdoctor.model import Severity

settings_rules = RuleModules("model_settings")
both = RuleModules("model_health", "model_settings")


def test_xla_observed_failing_on_the_gpu_is_an_error_and_predicted_a_warning():
    # The message TensorFlow gives on an M1 with jit_compile=True (NVlabs/sionna#78).
    failed = {"ok": False, "error": "UNIMPLEMENTED: Could not find compiler for platform METAL: "
              "NOT_FOUND: could not find registered compiler for platform METAL -- check target "
              "linkage"}
    f = facts({"settings": {"jit_compile": True, "xla_on_gpu": failed}})
    (finding,) = settings_rules.run(snapshot(f))
    assert finding.code == "model.xla-on-metal" and finding.severity == Severity.ERROR
    assert "platform METAL" in finding.title and finding.basis == "observed"
    f = facts({"settings": {"jit_compile": True}}, gpus=())
    (finding,) = settings_rules.run(snapshot(f))
    assert finding.code == "model.xla-on-metal" and finding.severity == Severity.WARNING
    assert finding.basis == "reported"


def test_the_new_keras_optimizers_are_a_warning_on_keras_2_and_information_on_keras_3():
    base = {"optimizer": "keras.src.optimizers.adam.Adam", "optimizer_legacy": False}
    (finding,) = settings_rules.run(snapshot(facts({"settings": dict(base, keras_version="2.15.0")})))
    assert finding.code == "model.optimizer-slow" and finding.severity == Severity.WARNING
    assert "legacy.Adam" in finding.remediation.text and "59438" in finding.remediation.link
    (finding,) = settings_rules.run(snapshot(facts({"settings": dict(base, keras_version="3.10.0")})))
    assert finding.code == "model.optimizer-slow" and finding.severity == Severity.INFO


def test_the_cudnn_lstm_is_the_root_cause_of_the_missing_kernel():
    # What the LSTM preset records with a GPU listed (tests/gather/test_model_probe_tf.py): Keras 3
    # takes the cuDNN path and the step fails on the GPU.
    doc = {"errors": [{"stage": "placement", "kind": "no-gpu-kernel", "op": "CudnnRNNV3",
                       "layer": "lstm", "message": "op CudnnRNNV3 (sequential_1/lstm/CudnnRNNV3) "
                       "has no kernel on the device it must run on"}]}
    report = both.report(snapshot(facts(doc)))
    found = codes_of(report.findings)
    assert {"model.cudnn-rnn", "model.no-gpu-kernel"} <= set(found)
    assert report.diagnosis().code == "model.cudnn-rnn"
    assert "use_cudnn=False" in found["model.cudnn-rnn"][0].remediation.text


def test_what_the_cudnn_finding_says_of_tensorflow_metal_is_what_its_kernel_table_says():
    """The table read from the plugin binaries wins over any report (issue 19 class 4): the rule's
    doc (what `tfdoctor explain` prints) names the releases `tfdoctor ops CudnnRNNV3` gives."""
    from packaging.version import Version

    from tfdoctor.knowledge.kernels import kernel_table, releases

    def first(dtype: str) -> str:
        return min((v for v in releases() if kernel_table(v).has_kernel("CudnnRNNV3", dtype)), key=Version)

    (rule,) = [r for r in settings_rules.rules if r.code == "model.cudnn-rnn"]
    why = " ".join(rule.doc.why.split())
    assert "no such kernel" not in why and "only CUDA" not in rule.doc.title
    assert f"float32 from {first('float32')}" in why
    assert f"float16 and bfloat16 from {first('float16')}" in why
