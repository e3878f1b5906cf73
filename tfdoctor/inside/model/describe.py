"""What the model is (class, kind, parameters, loss, optimizer), whether it fits in memory for
training, and the settings that break or slow Metal (jit_compile, the optimizer, the compute
dtypes, whether XLA compiles for the GPU at all).

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import math
import os

from tfdoctor.inside.model.inputs import all_layers, loss_name, model_kind

TRAIN_BYTES_PER_PARAM = 16
"""Bytes a float32 parameter needs in training: the weight, its gradient, two Adam slots."""


def describe_model(tf, model):
    layers = all_layers(model)
    info = {"class": type(model).__name__, "kind": model_kind(tf, model), "layers": len(layers),
            "params": None, "trainable_params": None, "loss": None, "optimizer": None,
            "layer_types": sorted(set(type(l).__name__ for l in layers))}
    try:
        info["params"] = int(model.count_params())
        info["trainable_params"] = int(sum(int(math.prod(v.shape)) for v in
                                           model.trainable_variables))
    except Exception:  # noqa: BLE001 - an unbuilt model
        pass
    info["loss"] = loss_name(getattr(model, "loss", None))
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None:
        kind = type(optimizer)
        info["optimizer"] = "%s.%s" % (kind.__module__, kind.__name__)
    return info


def available_memory():
    """Bytes of memory available to this process (TFDOCTOR_MODEL_MEMORY_MB caps it, for tests
    and for a user who wants a margin)."""
    cap = os.environ.get("TFDOCTOR_MODEL_MEMORY_MB")
    found = None
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        try:
            found = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            found = None
    if cap:
        try:
            capped = int(float(cap) * 1024 * 1024)
            found = capped if found is None else min(found, capped)
        except ValueError:
            pass
    return found


def memory_check(info):
    params = info.get("params")
    available = available_memory()
    result = {"params": params, "available_bytes": available, "needed_bytes": None,
              "too_big": False, "message": ""}
    if params is None or available is None:
        return result
    needed = params * TRAIN_BYTES_PER_PARAM
    result["needed_bytes"] = needed
    if needed > available:
        result["too_big"] = True
        result["message"] = ("training %d parameters needs about %.1f MiB (weights, gradients, "
                             "two optimizer slots) but %.1f MiB are available"
                             % (params, needed / 2.0 ** 20, available / 2.0 ** 20))
    return result


# --- settings that break or slow Metal ---------------------------------------------------------


def settings(tf, model, gpus):
    keras = tf.keras
    found = {"keras_version": None, "jit_compile": None, "optimizer": None,
             "optimizer_legacy": None, "mixed_precision": None, "xla_on_gpu": None}
    version = getattr(keras, "__version__", None)
    if version is None and callable(getattr(keras, "version", None)):
        version = keras.version()
    found["keras_version"] = str(version) if version else None
    for attr in ("_jit_compile", "jit_compile"):
        try:
            value = getattr(model, attr)
        except Exception:  # noqa: BLE001
            continue
        if value is not None:
            found["jit_compile"] = value if isinstance(value, bool) else str(value)
            break
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None:
        kind = type(optimizer)
        found["optimizer"] = "%s.%s" % (kind.__module__, kind.__name__)
        found["optimizer_legacy"] = "legacy" in kind.__module__
    try:
        found["mixed_precision"] = str(keras.mixed_precision.global_policy().name)
    except Exception:  # noqa: BLE001
        pass
    policies = set()
    for layer in all_layers(model):
        compute = getattr(layer, "compute_dtype", None)
        if compute:
            policies.add(str(compute))
    found["compute_dtypes"] = sorted(policies)
    if gpus:
        try:
            with tf.device("/GPU:0"):
                a = tf.ones((4, 4))
                tf.function(lambda x: tf.matmul(x, x), jit_compile=True)(a).numpy()
            found["xla_on_gpu"] = {"ok": True, "error": None}
        except Exception as exc:  # noqa: BLE001 - "Could not find compiler for platform METAL"
            message = str(exc)
            found["xla_on_gpu"] = {"ok": False, "error": message[:600]}
    return found
