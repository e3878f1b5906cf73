"""The model's inference and training step as tf.functions, traced once and shared by every
stage, with the first call of each timed apart; placing inputs on a device and reading a result
back (which waits for the device's queue: execution is asynchronous).

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import time

from tfdoctor.inside.model.inputs import call_model


def place(tf, device, values):
    with tf.device(device):
        return [tf.identity(v) for v in values]


def read_back(tf, value):
    flat = tf.nest.flatten(value)
    return float(sum(float(tf.reduce_sum(tf.cast(v, tf.float32)).numpy()) for v in flat))


def new_optimizer(tf, model):
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None:
        try:
            return type(optimizer).from_config(optimizer.get_config())
        except Exception:  # noqa: BLE001
            pass
    return tf.keras.optimizers.Adam(1e-3)


def inference_fn(tf, model):
    """The model's forward pass as one tf.function: traced once, placed by the device scope it
    is called under (its ops go to that device where they have a kernel there)."""
    return tf.function(lambda *xs: call_model(model, xs, False))


def train_fn(tf, model, bundle, optimizer):
    """One training step (tf.function, traced once, placed by the caller's device scope), or
    None when the model has nothing to train."""
    if not bundle.get("trainable"):
        return None
    variables = model.trainable_variables
    if hasattr(optimizer, "build"):
        try:
            optimizer.build(variables)
        except Exception:  # noqa: BLE001 - legacy optimizers build lazily
            pass
    loss_fn = bundle["loss_fn"]

    def step(xs, labels):
        with tf.GradientTape() as tape:
            pred = tf.nest.flatten(call_model(model, xs, True))[0]
            loss = tf.reduce_mean(loss_fn(labels, pred))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients([(g, v) for g, v in zip(grads, variables) if g is not None])
        return loss
    return tf.function(step)


class Calls(object):
    """The model's inference and training step, traced once per device and shared by every
    stage (tracing MobileNetV2's training step takes seconds); the first call of each, which
    traces and sets up kernels, is timed apart."""

    def __init__(self, tf, model, bundle):
        self.tf = tf
        self.model = model
        self.bundle = bundle
        self.fns = {}
        self.optimizer = (None, [])
        self.first = {}
        self.inputs = {}

    def placed(self, device):
        if device not in self.inputs:
            self.inputs[device] = (place(self.tf, device, self.bundle["inputs"]),
                                   place(self.tf, device, [self.bundle["labels"]])[0])
        return self.inputs[device]

    def function(self, kind):
        """One tf.function per kind for every device: Keras created the weights (and the
        optimizer its slots) where it puts them, the GPU when there is one, as in the user's
        own training; a CPU step then reads them from there."""
        if kind not in self.fns:
            if kind == "inference":
                self.fns[kind] = inference_fn(self.tf, self.model)
            else:
                optimizer = new_optimizer(self.tf, self.model)
                self.fns[kind] = train_fn(self.tf, self.model, self.bundle, optimizer)
                self.optimizer = (optimizer, [v.numpy() for v in optimizer_variables(optimizer)])
        return self.fns[kind]

    def call(self, kind, device):
        """A call of `kind` (inference, train) on `device` without arguments, or None."""
        fn = self.function(kind)
        if fn is None:
            return None
        xs, labels = self.placed(device)
        key = (kind, device)
        tf = self.tf

        def run():
            with tf.device(device):
                return fn(*xs) if kind == "inference" else fn(xs, labels)
        calls = self

        def call():
            if key in calls.first:
                return run()
            started = time.perf_counter()
            out = run()
            read_back(tf, out)
            calls.first[key] = time.perf_counter() - started
            return out
        return call

    def reset_optimizer(self):
        """The training step's optimizer back to its state before the first step."""
        optimizer, saved = self.optimizer
        if optimizer is not None:
            for v, value in zip(optimizer_variables(optimizer), saved):
                v.assign(value)


def optimizer_variables(optimizer):
    found = getattr(optimizer, "variables", [])
    return list(found() if callable(found) else found)
