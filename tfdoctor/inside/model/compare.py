"""Where the GPU and the CPU disagree: the same weights and inputs through both devices, layer
by layer (functional and sequential models; a subclassed model's outputs only), and the loss
after a few training steps on each.

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import math

from tfdoctor.inside.model.calls import inference_fn
from tfdoctor.inside.model.inputs import model_kind
from tfdoctor.inside.probes import agreement as probe_agreement

AGREE_TOL = 1e-3
"""Largest relative L2 error of a layer's output, GPU against CPU, taken as agreement: float32
rounding reordered by another kernel gives ~1e-6 per layer (1e-5 after a deep stack); a kernel
bug gives 1e-2 and more (tensorflow/tensorflow#92686, #71577). Same bound as the conv probe."""


def relative_error(tf, got, want):
    """||got - want|| / ||want|| (float64, on the CPU); None when not finite."""
    err, finite = probe_agreement.relative_error(tf, got, want)
    return err if finite else None


def layer_probe(tf, model):
    """(model with every top-level layer's output, layer names) or (model, None) when the model
    is subclassed (only its outputs can be compared)."""
    if model_kind(tf, model) == "subclassed":
        return model, None
    layers = [l for l in model.layers if type(l).__name__ != "InputLayer"]
    outputs = [l.output for l in layers]
    return tf.keras.Model(model.inputs, outputs), [l.name for l in layers]


def agreement(tf, model, bundle, calls, describe):
    result = {"tolerance": AGREE_TOL, "per_layer": True, "layers": [], "first_bad": None,
              "output_error": None, "losses": {}, "loss_rel_diff": None, "error": None}
    try:
        probe, layer_names = layer_probe(tf, model)
    except Exception as exc:  # noqa: BLE001 - a functional model whose layers cannot be tapped
        probe, layer_names = model, None
        result["error"] = describe(exc)
    result["per_layer"] = layer_names is not None
    probe_fn = inference_fn(tf, probe)
    outs = {}
    for device in ("/CPU:0", "/GPU:0"):
        if layer_names is None:
            outs[device] = [tf.nest.flatten(calls.call("inference", device)())]
        else:
            xs = calls.placed(device)[0]
            with tf.device(device):
                outs[device] = tf.nest.flatten(probe_fn(*xs))
    if layer_names is not None:
        for name, cpu, gpu in zip(layer_names, outs["/CPU:0"], outs["/GPU:0"]):
            err = relative_error(tf, [gpu], [cpu])
            bad = err is None or err > AGREE_TOL
            result["layers"].append({"layer": name, "rel_error": err, "agrees": not bad})
            if bad and result["first_bad"] is None:
                result["first_bad"] = name
        result["output_error"] = result["layers"][-1]["rel_error"] if result["layers"] else None
    else:
        result["output_error"] = relative_error(tf, outs["/GPU:0"][0], outs["/CPU:0"][0])
        if result["output_error"] is None or result["output_error"] > AGREE_TOL:
            result["first_bad"] = "(model outputs)"
    return result


def loss_comparison(tf, model, bundle, steps, calls, budget, result, describe):
    """The loss after `steps` training steps on each device, from the same weights and the
    same optimizer state, added to the agreement `result`."""
    if not bundle.get("trainable") or steps <= 0:
        return result
    if budget.left() <= 0:
        result["losses_skipped"] = "budget"
        return result
    # The same weights and the same optimizer state on both devices. With Adam the first
    # steps move each weight by about +-lr whatever the gradient's size, so float32
    # rounding in a near-zero gradient can part the losses a little: the per-layer
    # comparison is the judge, the losses say how far training drifts.
    saved = [v.numpy() for v in model.variables]
    try:
        for device in ("/CPU:0", "/GPU:0"):
            for v, value in zip(model.variables, saved):
                v.assign(value)
            step = calls.call("train", device)
            calls.reset_optimizer()
            result["losses"][device] = [float(step().numpy()) for _ in range(steps)]
    except Exception as exc:  # noqa: BLE001
        result["error"] = describe(exc)
    finally:
        for v, value in zip(model.variables, saved):
            v.assign(value)
    cpu = result["losses"].get("/CPU:0")
    gpu = result["losses"].get("/GPU:0")
    if cpu and gpu and all(math.isfinite(x) for x in cpu + gpu):
        result["loss_rel_diff"] = abs(gpu[-1] - cpu[-1]) / max(abs(cpu[-1]), 1e-12)
    return result
