"""The model's settings that break or slow Metal: XLA (jit_compile, no Metal backend), the Keras
2.11+ optimizers (op by op on Metal), mixed precision with ops that have no float16 kernel, and
the cuDNN recurrent path. Each is read from the model probe's settings and, where a GPU was
present, what happened when it ran. Reads only snapshot.model."""

from __future__ import annotations

from typing import Any

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_CODE
from tfdoctor.advice.probe_evidence import probe_cmd
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.user_model import ModelFacts, SettingIssue
from tfdoctor.model import Remediation, Severity, rule

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
XLA_ISSUE = "https://github.com/NVlabs/sionna/issues/78"
"""\"Could not find compiler for platform METAL\" on an M1 with jit_compile."""


def _issues(m: ModelFacts, *wanted: str) -> list[SettingIssue]:
    return [i for i in m.setting_issues if i.code in wanted]


def _setting_evidence(m: ModelFacts, issue: SettingIssue) -> dict[str, Any]:
    return {"setting": issue.code, "source": issue.source, "settings": m.settings}


@rule(codes.MODEL_XLA_ON_METAL, "The model is compiled with XLA, which has no Metal backend",
      Severity.ERROR,
      "The model was compiled with jit_compile=True. XLA has no Metal backend: on a Mac's GPU "
      "the step fails with \"Could not find compiler for platform METAL\" "
      "(NVlabs/sionna#78). With a GPU present the probe tried an XLA function on it "
      "and reports what happened; without one the failure is predicted (a warning). Keras 3's "
      "jit_compile=\"auto\" already leaves XLA off on an Apple-silicon Mac with a GPU listed "
      "(keras/src/trainers/trainer.py, model_supports_jit): this is about an explicit True.",
      "Compile with jit_compile=False.", XLA_ISSUE, fix_answer=ABOUT_THE_CODE)
def xla_on_metal(s: Snapshot, d: Derived):
    m = s.model
    found = _issues(m, "xla-unsupported", "jit-compile-on-metal")
    if not found:
        return None
    issue = found[0]
    observed = issue.code == "xla-unsupported"
    fix = Remediation("Compile the model with model.compile(..., jit_compile=False)", (), XLA_ISSUE)
    return xla_on_metal.finding(_setting_evidence(m, issue), fix, title=issue.message,
                                severity=None if observed else Severity.WARNING,
                                basis="observed" if observed else "reported")


@rule(codes.MODEL_OPTIMIZER_SLOW, "The model uses a Keras optimizer reported slow on Metal",
      Severity.WARNING,
      "TensorFlow 2.11+ warns that \"the v2.11+ optimizer ... runs slowly on M1/M2 Macs\": "
      "tensorflow-metal has fused kernels for the legacy optimizers only, so the new ones run "
      "op by op (tensorflow/tensorflow#59438). On Keras 3 there are no legacy optimizers: "
      "information only.",
      "On Keras 2.11-2.15 use tf.keras.optimizers.legacy (e.g. legacy.Adam); on Keras 3, "
      "tf-keras with TF_USE_LEGACY_KERAS=1 keeps them.", OPTIMIZER_ISSUE,
      explains=(codes.MODEL_GPU_SLOWER,), fix_answer=ABOUT_THE_CODE)
def optimizer_slow(s: Snapshot, d: Derived):
    m = s.model
    found = _issues(m, "optimizer-slow")
    if not found:
        return None
    keras3 = str(m.settings.get("keras_version") or "").startswith("3.")
    text = ("Keras 3 has no legacy optimizers; if training on the GPU is slow, tf-keras with "
            "TF_USE_LEGACY_KERAS=1 and tf.keras.optimizers.legacy.Adam keep the fused kernels"
            if keras3 else "Compile with tf.keras.optimizers.legacy.Adam (or the legacy "
            "version of your optimizer)")
    return optimizer_slow.finding(_setting_evidence(m, found[0]),
                                  Remediation(text, (), OPTIMIZER_ISSUE), title=found[0].message,
                                  severity=Severity.INFO if keras3 else None, basis="reported")


@rule(codes.MODEL_CUDNN_RNN, "A recurrent layer's cuDNN path failed on the GPU",
      Severity.ERROR,
      "Keras 3 runs LSTM and GRU layers with the cuDNN op whenever a GPU is listed "
      "(keras/src/backend/tensorflow/rnn.py). tensorflow-metal registers a CudnnRNNV3 GPU kernel "
      "(float32 from 0.2.0, float16 and bfloat16 from 1.1.0: its kernel table, `tfdoctor ops "
      "CudnnRNNV3`), but not for every attribute the cuDNN path asks for: on a Mac the step can "
      "fail with \"No OpKernel was registered to support Op 'CudnnRNNV3'\" "
      "(lewagon/data-setup#137). The finding needs the model probe to have seen that op fail; the "
      "kernel table alone never raises it.",
      "Build the layer with use_cudnn=False (Keras 3), or train the recurrent model on the CPU.",
      "https://github.com/lewagon/data-setup/issues/137",
      explains=(codes.MODEL_NO_GPU_KERNEL,), fix_answer=ABOUT_THE_CODE)
def cudnn_rnn(s: Snapshot, d: Derived):
    m = s.model
    found = _issues(m, "cudnn-rnn")
    if not found:
        return None
    fix = Remediation("Create the LSTM/GRU with use_cudnn=False, e.g. "
                      "keras.layers.LSTM(64, use_cudnn=False), or train it on the CPU",
                      (probe_cmd(s, *m.probe_args()),), "https://github.com/lewagon/data-setup/issues/137")
    return cudnn_rnn.finding(_setting_evidence(m, found[0]), fix, title=found[0].message)
