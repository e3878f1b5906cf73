"""Settings of the user's model that fail or run slowly on a Mac's GPU (jit_compile, the Keras
2.11+ optimizers, float16 ops without a Metal kernel, the cuDNN RNN path), each with its source."""

from __future__ import annotations

from tfdoctor.facts.user_model import ModelFacts, SettingIssue

XLA_SOURCE = ("XLA has no Metal backend: jit_compile=True fails with \"Could not find compiler "
              "for platform METAL\" (NVlabs/sionna#78)")
OPTIMIZER_SOURCE = ("TensorFlow 2.11+ warns \"the v2.11+ optimizer ... runs slowly on M1/M2 Macs\" "
                    "(tensorflow/tensorflow#59438)")
FLOAT16_SOURCE = "tensorflow-metal's kernel table (compat_matrix.json metal_kernels)"
CUDNN_SOURCE = ("Keras 3 uses the cuDNN LSTM/GRU whenever any GPU is listed "
                "(keras/src/backend/tensorflow/rnn.py, cudnn_ok and _is_gpu_available); a Mac "
                "reported \"No OpKernel was registered to support Op 'CudnnRNNV3'\" "
                "(lewagon/data-setup#137), seen failing here by the model probe")


def setting_issues(facts: ModelFacts) -> list[SettingIssue]:
    found = []
    settings = facts.settings
    xla = settings.get("xla_on_gpu") or {}
    if settings.get("jit_compile") is True and xla.get("ok") is False:
        found.append(SettingIssue("xla-unsupported", "the model is compiled with jit_compile=True "
                                  f"and XLA cannot compile for this GPU: {xla.get('error')}",
                                  XLA_SOURCE))
    elif settings.get("jit_compile") is True and not facts.gpus:
        found.append(SettingIssue("jit-compile-on-metal", "the model is compiled with "
                                  "jit_compile=True: on a Mac's Metal GPU it fails; compile it "
                                  "with jit_compile=False", XLA_SOURCE))
    version = str(settings.get("keras_version") or "")
    if settings.get("optimizer") and settings.get("optimizer_legacy") is False and _at_least(version, 2, 11):
        found.append(SettingIssue("optimizer-slow", f"{settings['optimizer']} is a Keras 2.11+ "
                                  "optimizer, reported to run slowly on M1/M2 Macs (the legacy "
                                  "optimizers have fused Metal kernels)", OPTIMIZER_SOURCE))
    if any(str(d) in ("float16", "bfloat16") for d in settings.get("compute_dtypes") or []):
        half = sorted({f.op for f in facts.fallbacks if f.dtype in ("float16", "bfloat16")})
        if half:
            found.append(SettingIssue("float16-fallback", "mixed precision: these ops have no "
                                      f"float16 GPU kernel and run on the CPU: {', '.join(half)}",
                                      FLOAT16_SOURCE))
    for err in facts.errors:
        if err.kind == "no-gpu-kernel" and (err.op or "").startswith("CudnnRNN"):
            found.append(SettingIssue("cudnn-rnn", f"layer {err.layer or '?'} takes the cuDNN "
                                      f"path ({err.op}), which failed on this GPU: build it with "
                                      "use_cudnn=False", CUDNN_SOURCE))
            break
    return found


def _at_least(version: str, major: int, minor: int) -> bool:
    parts = version.split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return False
