"""Speed probes that show whether TensorFlow really accelerates on the GPU: matmul, conv, and a
Keras training step, each timed on the CPU and on every GPU, verified for placement and for
numeric agreement with the CPU.

Runs inside the diagnosed interpreter: standard library and tensorflow only, Python 3.8+.

    run_probes(tf, config, progress, on_result=None) -> dict

is called by the runtime child after it imported TensorFlow and set memory growth; the result is
plain JSON-able data (tfdoctor.probe_facts.ProbeFacts reads it). Standalone, for tests and for
running the probes without the runtime child:

    python workloads.py RESULT_JSON [CONFIG_JSON_OR_PATH] [--timeout SECONDS]

imports TensorFlow itself, sets memory growth, and rewrites RESULT_JSON atomically after every
measurement, so a crash or a hang still leaves what was measured and what was running.

How a measurement is taken (see GUIDE section 3; the forum recipe of timing one tf.matmul with
time.time() measures asynchronous dispatch and the first call's compilation, not the GPU):

* inputs are made once on the CPU and copied to each device before timing (tf.identity under
  tf.device), so every device computes on the same numbers and on its own memory;
* warm-up: `warmup` (>= 2) calls, each read back; the first call (tracing, kernel compilation) is
  reported on its own;
* a repeat is `number` calls back to back followed by one read-back to the host (`.numpy()` of a
  small reduction of the last output; for the training step, of the loss and of a weight read
  after the update). A device executes its queue in order, so the read-back returns only when all
  calls have run. tf.test.experimental.sync_devices() is never used: on a PluggableDevice such as
  Metal it is likely a no-op;
* `number` is found by autoranging (as timeit does) so that a repeat lasts at least `repeat_s`,
  far above the timer's resolution and the read-back's cost; then `repeats` repeats are taken
  (the last autorange trial, `number` calls lasting the target, is the first) and every raw
  repeat time is kept;
* placement: the output's `.device` (for the training step: the outputs of the Conv2D and Dense
  layers in an eager forward pass; outputs of a tf.function report the function's device, not
  where its ops ran);
* agreement with the CPU: relative L2 error ||gpu - cpu|| / ||cpu|| of the output (train: of the
  logits and of the gradients of one step from identical weights, and of a Dense with bias and
  relu in eager and in graph mode, where Metal's fused _FusedMatMul is wrong: Train.dense_relu),
  against TOLERANCE (the gradients: against gradient_tolerance, as they pass through kinks);
* a total time budget: no new work starts after `budget_s`, and each measurement gets a share of
  what is left; what did not fit is reported as skipped.

When the GPU is not clearly faster at the default size, the workload is measured once more at a
larger size (RETRY_FACTOR) before the GPU is called slower; `sweep` measures a curve of sizes.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
import traceback

try:  # imported as tfdoctor.target.workloads
    from . import probe_stats
except ImportError:  # run as a script, or imported as a sibling by runtime_child.py
    import probe_stats  # type: ignore[no-redef]

SCHEMA = 1
WORKLOADS = ("matmul", "conv", "train")

DEFAULT_SIZE = {"matmul": 1024, "conv": 32, "train": 64}
"""The size each workload is measured at: matmul n (n x n @ n x n), conv and train batch size."""
SWEEP_SIZES = {
    "matmul": [256, 512, 1024, 2048, 4096],
    "conv": [4, 8, 16, 32, 64, 128],
    "train": [16, 32, 64, 128, 256, 512],
}
RETRY_FACTOR = {"matmul": 2, "conv": 4, "train": 4}
"""The larger size tried when the GPU does not win: matmul 2x n (8x the work), 4x the batch."""
MAX_SIZE = {"matmul": 8192, "conv": 512, "train": 2048}

TOLERANCE = {"matmul": 1e-4, "conv": 1e-3, "train": 1e-3}
"""Largest relative L2 error ||gpu - cpu|| / ||cpu|| accepted as agreement. Two correct float32
results differ by reordered sums: about eps * sqrt(k) = 6e-8 * 32 ~ 2e-6 for a length-1024 dot
product (a few 1e-6 at 4096), so 1e-4 leaves a 25-50x headroom for matmul. Convolutions may use
Winograd or FFT algorithms, whose float32 error is around 1e-5..1e-4, hence 1e-3; the training
step chains convolutions, a softmax and their gradients, also 1e-3. A kernel bug (wrong indexing,
a lost term, half precision where float32 was asked) gives errors of 1e-2 and more."""

FLOAT32_EPS = 2.0 ** -23
KINK_FACTOR = 30.0
"""The training step's gradients pass through ReLU and max-pooling, whose derivatives jump: a
rounding difference of relative size d in the forward pass flips the activations that sit within
d of a kink, and each flip moves a conv layer's gradient by a whole term, so two correct devices
put the gradients about sqrt(d) apart while their logits stay d apart. Measured on the CPU alone
(benchmarks/gradient_kinks.py, batch 16, 30 seeds per d from 1e-7 to 1e-4): the worst
variable's gradient error / sqrt(logits error) reached 4.0; 30 leaves a margin of seven, and a
backward kernel bug (wrong indexing, a lost term) moves a variable's gradient by tens of
percent to several times its size."""


def gradient_tolerance(base, logits_error):
    """Tolerance of the training step's gradients, given how far apart the two devices put the
    logits of the same forward pass (KINK_FACTOR); never below the workload's own."""
    d = max(logits_error or 0.0, FLOAT32_EPS)
    return max(base, KINK_FACTOR * math.sqrt(d))

PRESETS = {
    # `tfdoctor check`: the three workloads at their default sizes in about 2 s on a 2-core CPU;
    # with a GPU and retries the budget stops them at 6 s, so that `check` stays within a bare
    # `import tensorflow` + 8 s (benchmarks/check_with_probes.py).
    # 6 repeats: one repeat disturbed by another process still leaves the rank test at p = 0.03.
    "check": {"repeats": 6, "repeat_s": 0.05, "budget_s": 6.0},
    # `tfdoctor probe`: more repeats, longer repeats.
    "probe": {"repeats": 7, "repeat_s": 0.1, "budget_s": 30.0},
    # `tfdoctor probe --sweep`
    "sweep": {"repeats": 5, "repeat_s": 0.05, "budget_s": 120.0, "sweep": True},
}

DEFAULTS = {
    "preset": "probe",
    "workloads": list(WORKLOADS),
    "devices": "all",
    "size": None,
    "sizes": dict(DEFAULT_SIZE),
    "repeats": 7,
    "min_repeats": 3,
    "warmup": 2,
    "repeat_s": 0.1,
    "min_repeat_s": 0.01,
    "budget_s": 30.0,
    "sweep": False,
    "sweep_sizes": dict((k, list(v)) for k, v in SWEEP_SIZES.items()),
    "retry": True,
    "retry_factor": dict(RETRY_FACTOR),
    "tolerance": dict(TOLERANCE),
    "seed": 20240611,
}
"""Every configuration key, with its default (the "probe" preset). `config` given to run_probes
may set any of them; "preset" picks a set of defaults first."""

TEXT_LIMIT = 2000


def resolve_config(config):
    """The full configuration: DEFAULTS, then the preset, then `config` (unknown keys are
    ignored, bad values raise ValueError)."""
    config = dict(config or {})
    preset = config.get("preset") or DEFAULTS["preset"]
    if preset not in PRESETS:
        raise ValueError("unknown preset %r (known: %s)" % (preset, ", ".join(sorted(PRESETS))))
    cfg = json.loads(json.dumps(DEFAULTS))
    cfg.update(json.loads(json.dumps(PRESETS[preset])))
    for key, value in config.items():
        if key not in DEFAULTS or value is None and key != "size":
            continue
        if isinstance(cfg.get(key), dict) and isinstance(value, dict):
            cfg[key].update(value)
        else:
            cfg[key] = value
    cfg["preset"] = preset
    workloads = cfg["workloads"]
    if isinstance(workloads, str):
        workloads = list(WORKLOADS) if workloads == "all" else [workloads]
    if not workloads or any(w not in WORKLOADS for w in workloads):
        raise ValueError("workloads must be among %s or 'all', not %r" % (", ".join(WORKLOADS), workloads))
    cfg["workloads"] = [w for w in WORKLOADS if w in workloads]
    if cfg["devices"] not in ("cpu", "gpu", "all"):
        raise ValueError("devices must be cpu, gpu or all, not %r" % (cfg["devices"],))
    if cfg["size"] is not None:
        cfg["size"] = int(cfg["size"])
        if cfg["size"] < 1:
            raise ValueError("size must be positive")
        for w in cfg["workloads"]:
            cfg["sizes"][w] = cfg["size"]
    cfg["repeats"] = max(1, int(cfg["repeats"]))
    cfg["min_repeats"] = max(1, min(int(cfg["min_repeats"]), cfg["repeats"]))
    cfg["warmup"] = max(2, int(cfg["warmup"]))
    cfg["repeat_s"] = float(cfg["repeat_s"])
    cfg["min_repeat_s"] = min(float(cfg["min_repeat_s"]), cfg["repeat_s"])
    cfg["budget_s"] = float(cfg["budget_s"])
    if cfg["budget_s"] <= 0 or cfg["repeat_s"] <= 0:
        raise ValueError("budget_s and repeat_s must be positive")
    cfg["sweep"] = bool(cfg["sweep"])
    cfg["retry"] = bool(cfg["retry"])
    cfg["seed"] = int(cfg["seed"])
    return cfg


def text(value, limit=TEXT_LIMIT):
    value = str(value)
    return value if len(value) <= limit else value[:limit] + "..."


def describe(exc):
    return "%s: %s" % (type(exc).__name__, text(exc))


def short_device(name):
    """"/job:localhost/replica:0/task:0/device:GPU:0" or "/physical_device:GPU:0" -> "GPU:0"."""
    if not name:
        return name
    tail = str(name).rsplit("/", 1)[-1]
    for prefix in ("device:", "physical_device:"):
        if tail.startswith(prefix):
            tail = tail[len(prefix):]
    return tail.upper()


def on_device(placed, wanted):
    return bool(placed) and short_device(placed) == wanted.upper()


# --- workloads ---------------------------------------------------------------------------------


class Matmul(object):
    """float32 n x n @ n x n; 2 n^3 FLOPs."""

    name = "matmul"

    def __init__(self, tf, size, seed):
        self.tf = tf
        self.size = n = int(size)
        self.shape = "%dx%d @ %dx%d float32" % (n, n, n, n)
        self.flops = 2.0 * n ** 3
        self.samples = None
        with tf.device("/CPU:0"):
            self.a = tf.random.stateless_uniform((n, n), seed=[seed, 1], minval=-1.0, maxval=1.0)
            self.b = tf.random.stateless_uniform((n, n), seed=[seed, 2], minval=-1.0, maxval=1.0)

    def prepare(self, device):
        tf = self.tf
        with tf.device(device):
            a = tf.identity(self.a)
            b = tf.identity(self.b)
        inputs = {"a": str(a.device), "b": str(b.device)}

        def step():
            with tf.device(device):
                return tf.linalg.matmul(a, b)

        return Prepared(step, self.readback(device), inputs)

    def readback(self, device):
        tf = self.tf

        def read(out):
            with tf.device(device):
                return float(tf.reduce_sum(out).numpy())

        return read

    def placement(self, device, out):
        return str(out.device), {"output": str(out.device)}

    def outputs(self, device, out):
        return {"output": [out]}


class Conv(Matmul):
    """float32 Conv2D forward, NHWC N x 64 x 64 x 32, 3x3 kernel, 64 outputs, stride 1, SAME;
    2 * N * Ho * Wo * Cout * Kh * Kw * Cin FLOPs."""

    name = "conv"
    HW = 64
    CIN = 32
    COUT = 64
    K = 3

    def __init__(self, tf, size, seed):
        self.tf = tf
        self.size = n = int(size)
        hw, cin, cout, k = self.HW, self.CIN, self.COUT, self.K
        self.shape = "NHWC %dx%dx%dx%d * %dx%dx%dx%d SAME float32" % (n, hw, hw, cin, k, k, cin, cout)
        self.flops = 2.0 * n * hw * hw * cout * k * k * cin
        self.samples = n
        with tf.device("/CPU:0"):
            self.a = tf.random.stateless_uniform((n, hw, hw, cin), seed=[seed, 3], minval=-1.0, maxval=1.0)
            self.b = tf.random.stateless_uniform((k, k, cin, cout), seed=[seed, 4], minval=-1.0, maxval=1.0)

    def prepare(self, device):
        tf = self.tf
        with tf.device(device):
            x = tf.identity(self.a)
            w = tf.identity(self.b)
        inputs = {"input": str(x.device), "filter": str(w.device)}

        def step():
            with tf.device(device):
                return tf.nn.conv2d(x, w, strides=1, padding="SAME")

        return Prepared(step, self.readback(device), inputs)


class Train(object):
    """One training step of a small Keras CNN on synthetic 32x32x3 images, 10 classes:
    Conv2D(32, 3) - ReLU - MaxPool - Conv2D(64, 3) - ReLU - MaxPool - Flatten - Dense(10), with
    Adam, traced with tf.function(jit_compile=False) (Keras 3's fit() asks XLA with
    jit_compile="auto", which a PluggableDevice such as Metal does not have: "Could not find
    compiler for platform ..."). The Conv2D and Dense layers have no bias and no activation of
    their own, so their outputs come straight from Conv2D and MatMul ops and show where those ran.
    Every device starts from the same weights."""

    name = "train"
    HW = 32
    CLASSES = 10

    def __init__(self, tf, size, seed):
        self.tf = tf
        self.size = n = int(size)
        self.samples = n
        hw = self.HW
        # Forward FLOPs per sample (conv: 2*Ho*Wo*Cout*Kh*Kw*Cin; dense: 2*in*out), times 3 for
        # forward + backward (input and weight gradients): an estimate, for GFLOP/s only.
        forward = (2.0 * hw * hw * 32 * 9 * 3 + 2.0 * (hw // 2) ** 2 * 64 * 9 * 32
                   + 2.0 * (hw // 4) ** 2 * 64 * self.CLASSES)
        self.flops = 3.0 * forward * n
        self.shape = "batch %d of %dx%dx3, 10 classes; Adam" % (n, hw, hw)
        self.keras = tf.keras
        with tf.device("/CPU:0"):
            self.x = tf.random.stateless_uniform((n, hw, hw, 3), seed=[seed, 5])
            self.y = tf.random.stateless_uniform((n,), seed=[seed, 6], minval=0, maxval=self.CLASSES,
                                                 dtype=tf.int32)
            tf.random.set_seed(seed)
            reference = self.build()
            self.weights = reference.get_weights()
        self.optimizer_name = None

    def build(self):
        keras = self.keras
        layers = keras.layers
        return keras.Sequential([
            keras.Input(shape=(self.HW, self.HW, 3)),
            layers.Conv2D(32, 3, padding="same", use_bias=False, name="conv1"),
            layers.ReLU(name="relu1"),
            layers.MaxPooling2D(name="pool1"),
            layers.Conv2D(64, 3, padding="same", use_bias=False, name="conv2"),
            layers.ReLU(name="relu2"),
            layers.MaxPooling2D(name="pool2"),
            layers.Flatten(name="flatten"),
            layers.Dense(self.CLASSES, use_bias=False, name="dense"),
        ])

    def loss_object(self):
        return self.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def model_on(self, device):
        tf = self.tf
        with tf.device(device):
            model = self.build()
            model.set_weights(self.weights)
        return model

    def prepare(self, device):
        tf = self.tf
        model = self.model_on(device)
        loss_fn = self.loss_object()
        optimizer = self.keras.optimizers.Adam(learning_rate=1e-3)
        kind = type(optimizer)
        self.optimizer_name = "%s.%s" % (kind.__module__, kind.__name__)
        with tf.device(device):
            x = tf.identity(self.x)
            y = tf.identity(self.y)
            variables = model.trainable_variables
            build = getattr(optimizer, "build", None)
            if callable(build):
                try:
                    build(variables)
                except Exception:  # noqa: BLE001 - legacy optimizers build lazily
                    pass
        last = variables[-1]
        inputs = {"x": str(x.device), "y": str(y.device)}

        @tf.function(jit_compile=False)
        def train_step(x, y):
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))
            # Read after the update (automatic control dependencies order it), so reading this
            # back waits for the whole step, the optimizer's update included.
            return loss, tf.reduce_sum(tf.reshape(last, [-1])[:4])

        def step():
            with tf.device(device):
                return train_step(x, y)

        def read(out):
            loss, marker = out
            value = loss.numpy()
            marker.numpy()
            return float(value)

        return Prepared(step, read, inputs)

    def placement(self, device, out):
        """Where the Conv2D and Dense layers ran, from an eager forward pass on `device`."""
        tf = self.tf
        model = self.model_on(device)
        layer_devices = {}
        with tf.device(device):
            h = tf.identity(self.x)
            for layer in model.layers:
                if type(layer).__name__ == "InputLayer":
                    continue
                h = layer(h, training=False)
                layer_devices[layer.name] = str(h.device)
        weighted = [layer_devices[name] for name in ("conv1", "conv2", "dense") if name in layer_devices]
        wanted = short_device(device.strip("/"))
        placed = next((d for d in weighted if not on_device(d, wanted)), weighted[0] if weighted else None)
        return placed, layer_devices

    def outputs(self, device, out):
        """Logits of an eager forward pass and the gradients of one step, from the shared weights."""
        tf = self.tf
        model = self.model_on(device)
        loss_fn = self.loss_object()
        with tf.device(device):
            x = tf.identity(self.x)
            y = tf.identity(self.y)
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_variables)
        out = {"logits": [logits], "gradients": list(grads), "loss": [loss]}
        out.update(self.dense_relu(device))
        return out

    def dense_relu(self, device):
        """Dense with bias and relu, relu(bias_add(matmul(x, W), b)), in eager mode and inside
        tf.function on `device`. On Metal the graph-mode result of exactly this pattern is wrong
        (errors of tens of units) while eager mode is right: the plugin's fused _FusedMatMul
        kernel with fused_ops [BiasAdd, Relu] (Apple developer forums, polligator's report,
        https://origin-devforums.apple.com/forums/profile/polligator/allPosts; "larger K makes
        the error more obvious", so K = 512 here). The network above has no bias or activation
        and cannot show it."""
        tf = self.tf
        with tf.device("/CPU:0"):
            x = tf.reshape(self.x, [self.size, -1])[:, :512]
            w = tf.random.stateless_normal((512, 128), seed=[7, 8])
            b = tf.random.stateless_normal((128,), seed=[7, 9])

        def dense(x, w, b):
            return tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))

        with tf.device(device):
            x, w, b = tf.identity(x), tf.identity(w), tf.identity(b)
            eager = dense(x, w, b)
            graph = tf.function(dense, jit_compile=False)(x, w, b)
        return {"dense_relu_eager": [eager], "dense_relu_graph": [graph]}


KINDS = {"matmul": Matmul, "conv": Conv, "train": Train}


class Prepared(object):
    def __init__(self, step, read, inputs):
        self.step = step
        self.read = read
        self.inputs = inputs


# --- numbers -----------------------------------------------------------------------------------


def relative_error(tf, got, want):
    """||got - want|| / ||want|| over lists of tensors, in float64 on the CPU; None when a value
    is not finite (then `finite` is False)."""
    num = 0.0
    den = 0.0
    with tf.device("/CPU:0"):
        for g, w in zip(got, want):
            g64 = tf.cast(tf.reshape(tf.identity(g), [-1]), tf.float64)
            w64 = tf.cast(tf.reshape(tf.identity(w), [-1]), tf.float64)
            if not bool(tf.reduce_all(tf.math.is_finite(g64)).numpy()):
                return None, False
            num += float(tf.reduce_sum(tf.square(g64 - w64)).numpy())
            den += float(tf.reduce_sum(tf.square(w64)).numpy())
    if den == 0.0:
        return (0.0 if num == 0.0 else None), True
    return math.sqrt(num / den), True


def worst_relative_error(tf, got, want):
    """The largest relative_error of one tensor of `got` against its own in `want`: a wrong
    gradient of one small layer is not diluted by the others."""
    worst = 0.0
    for g, w in zip(got, want):
        err, finite = relative_error(tf, [g], [w])
        if not finite or err is None:
            return err, finite
        worst = max(worst, err)
    return worst, True


def finite_or_none(value):
    return value if value is not None and math.isfinite(value) else None


# --- the probe run -----------------------------------------------------------------------------


class Budget(object):
    def __init__(self, seconds, clock=time.perf_counter):
        self.clock = clock
        self.start = clock()
        self.seconds = seconds
        self.deadline = self.start + seconds

    def left(self):
        return self.deadline - self.clock()

    def elapsed(self):
        return self.clock() - self.start


class Prober(object):
    def __init__(self, tf, cfg, progress, on_result):
        self.tf = tf
        self.cfg = cfg
        self.progress = progress
        self.on_result = on_result
        self.budget = Budget(cfg["budget_s"])
        clock = time.get_clock_info("perf_counter")
        self.resolution = float(clock.resolution)
        self.min_repeat_s = max(cfg["min_repeat_s"], 1000.0 * self.resolution)
        self.result = {
            "schema": SCHEMA,
            "outcome": "ok",
            "message": "",
            "complete": False,
            "config": cfg,
            "tf_version": str(getattr(tf, "__version__", "")) or None,
            "devices": [],
            "gpus": [],
            "runs": [],
            "messages": [],
            "current": None,
            "elapsed_s": None,
            "budget_s": cfg["budget_s"],
            "budget_exhausted": False,
            "timer": "time.perf_counter",
            "timer_resolution_s": self.resolution,
            "error": None,
        }
        self.references = {}

    # -- reporting

    def say(self, message):
        self.result["messages"].append(message)
        try:
            self.progress(message)
        except Exception:  # noqa: BLE001 - a broken progress sink must not stop the probes
            pass

    def publish(self):
        self.result["elapsed_s"] = round(self.budget.elapsed(), 4)
        if self.on_result is not None:
            try:
                self.on_result(sanitize(self.result))
            except Exception:  # noqa: BLE001
                pass

    def set_current(self, workload, device, size, phase):
        self.result["current"] = {"workload": workload, "device": device, "size": size,
                                  "phase": phase}
        self.publish()

    # -- devices

    def devices(self):
        tf = self.tf
        found = []
        gpus = []
        for handle in tf.config.list_logical_devices():
            kind = str(handle.device_type).upper()
            name = short_device(handle.name)
            if kind == "CPU" and name == "CPU:0":
                found.append(name)
            elif kind == "GPU":
                gpus.append(name)
        if "CPU:0" not in found:
            found.insert(0, "CPU:0")
        self.result["gpus"] = gpus
        wanted = self.cfg["devices"]
        chosen = ([d for d in found if d.startswith("CPU")] if wanted in ("cpu", "all") else [])
        if wanted in ("gpu", "all"):
            chosen += gpus
        self.result["devices"] = chosen
        return chosen

    # -- the plan

    def run(self):
        cfg = self.cfg
        devices = self.devices()
        gpus = [d for d in devices if d.startswith("GPU")]
        if cfg["devices"] == "gpu" and not gpus:
            self.say("no GPU to probe (TensorFlow lists none)")
        retrying = cfg["retry"] and not cfg["sweep"] and bool(gpus) and "CPU:0" in devices
        plan = []
        for workload in cfg["workloads"]:
            if cfg["sweep"]:
                sizes = sorted(set(cfg["sweep_sizes"].get(workload) or [cfg["sizes"][workload]]))
            else:
                sizes = [cfg["sizes"][workload]]
            plan.append((workload, sizes))
        # Measurements still to come, for sharing the budget: the planned ones, plus, while
        # retries are possible, one CPU and one GPU measurement per GPU and workload. Every
        # workload is measured at its size before any retry at a larger size, so a slow GPU's
        # retry cannot starve the workloads after it.
        pending = sum(len(sizes) for _, sizes in plan) * len(devices)
        reserve = (1 + len(gpus)) * len(plan) if retrying else 0
        for workload, sizes in plan:
            role = "sweep" if cfg["sweep"] else "main"
            for size in sizes:
                if cfg["sweep"] and not self.fits(workload, size, devices):
                    self.skip(workload, size, devices, role,
                              "budget: the sweep stops before size %d (estimated to take longer "
                              "than the %.1f s left)" % (size, self.budget.left()))
                    pending -= len(devices)
                    continue
                for device in devices:
                    self.measure(workload, size, device, role, pending + reserve)
                    pending -= 1
                self.references.pop((workload, size), None)  # inputs and reference outputs
        if retrying:
            for workload, sizes in plan:
                reserve -= 1 + len(gpus)
                self.retry(workload, sizes[0], gpus, reserve)
        self.result["current"] = None
        self.result["complete"] = True
        skipped = [r for r in self.result["runs"] if r.get("skipped")]
        self.result["budget_exhausted"] = any("budget" in (r["skipped"] or "") for r in skipped)
        self.result["message"] = "%d measurement(s) in %.1f s%s" % (
            len([r for r in self.result["runs"] if r.get("timing")]), self.budget.elapsed(),
            "; %d skipped" % len(skipped) if skipped else "")
        self.publish()
        return self.result

    def find(self, workload, size, device):
        for run in self.result["runs"]:
            if run["workload"] == workload and run["size"] == size and run["device"] == device \
                    and run.get("timing"):
                return run
        return None

    def retry(self, workload, size, gpus, later):
        """Measure `workload` once more at a larger size on the CPU and on every GPU that ran it
        correctly but was not clearly faster than the CPU."""
        cpu = self.find(workload, size, "CPU:0")
        if cpu is None:
            return
        losers = []
        for gpu in gpus:
            run = self.find(workload, size, gpu)
            if run is None or not run.get("on_device") or not (run.get("agreement") or {}).get("ok"):
                continue
            decision = probe_stats.compare(cpu["timing"]["per_call_s"], run["timing"]["per_call_s"])
            if decision["decision"] != probe_stats.FASTER:
                losers.append(gpu)
        larger = size * int(self.cfg["retry_factor"].get(workload, RETRY_FACTOR[workload]))
        if not losers or larger > MAX_SIZE[workload]:
            return
        targets = ["CPU:0"] + losers
        if not self.fits(workload, larger, targets):
            self.skip(workload, larger, targets, "retry",
                      "budget: size %d was estimated to take longer than the %.1f s left"
                      % (larger, self.budget.left()))
            return
        self.say("%s: the GPU is not clearly faster at size %d; measuring size %d"
                 % (workload, size, larger))
        left = len(targets)
        for device in targets:
            self.measure(workload, larger, device, "retry", left + later)
            left -= 1
        self.references.pop((workload, larger), None)

    def estimate(self, workload, size, device):
        """Seconds a measurement of `workload` at `size` on `device` should take, extrapolated
        from the largest smaller size measured there (work is proportional to WORK); None
        without one."""
        best = None
        for run in self.result["runs"]:
            if run["workload"] == workload and run["device"] == device and run.get("timing") \
                    and run["size"] <= size and (best is None or run["size"] > best["size"]):
                best = run
        if best is None:
            return None
        ratio = work(workload, size) / work(workload, best["size"])
        timing = best["timing"]
        per_call = timing["median_s"] * ratio
        warm = max(timing["warmup_s"][1:] or timing["warmup_s"]) * ratio
        return warm * self.cfg["warmup"] + max(per_call, self.min_repeat_s) * (self.cfg["min_repeats"] + 1)

    def fits(self, workload, size, devices):
        total = 0.0
        for device in devices:
            total += self.estimate(workload, size, device) or 0.0
        return total <= self.budget.left()

    def skip(self, workload, size, devices, role, reason):
        for device in devices:
            self.result["runs"].append(new_run(workload, device, size, role, skipped=reason))
        self.say("%s size %d skipped: %s" % (workload, size, reason))
        self.publish()

    # -- one measurement

    def workload_at(self, workload, size):
        key = (workload, size)
        if key not in self.references:
            self.references[key] = {"kind": KINDS[workload](self.tf, size, self.cfg["seed"]),
                                    "outputs": None}
        return self.references[key]

    def measure(self, workload, size, device, role, pending):
        cfg = self.cfg
        run = new_run(workload, device, size, role)
        self.result["runs"].append(run)
        if self.budget.left() <= 0:
            run["skipped"] = "budget: %.1f s used up before this measurement" % cfg["budget_s"]
            self.say("%s size %d on %s skipped: budget used up" % (workload, size, device))
            self.publish()
            return run
        allowance = self.budget.left() / max(1, pending)
        started = time.perf_counter()
        phase = "setup"
        try:
            self.set_current(workload, device, size, phase)
            entry = self.workload_at(workload, size)
            kind = entry["kind"]
            run["shape"] = kind.shape
            run["flops"] = kind.flops
            run["samples"] = kind.samples
            prepared = kind.prepare("/" + device)
            run["inputs"] = prepared.inputs
            if workload == "train":
                run["optimizer"] = kind.optimizer_name
            phase = "warmup"
            self.set_current(workload, device, size, phase)
            self.say("%s %s on %s: warming up" % (workload, kind.shape.split(" float32")[0], device))
            timing, last, losses = self.time_it(prepared, started + allowance)
            run["timing"] = timing
            if workload == "train":
                run["loss_first"] = finite_or_none(losses[0]) if losses else None
                run["loss_last"] = finite_or_none(losses[-1]) if losses else None
                run["loss_finite"] = bool(losses) and all(math.isfinite(v) for v in losses)
            med = timing["median_s"]
            run["gflops"] = kind.flops / med / 1e9 if med > 0 else None
            run["samples_per_s"] = kind.samples / med if (kind.samples and med > 0) else None
            phase = "verify"
            self.set_current(workload, device, size, phase)
            placed, detail = kind.placement("/" + device, last)
            run["placed_on"] = placed
            run["placement"] = detail
            run["on_device"] = on_device(placed, device)
            run["agreement"] = self.agreement(workload, size, device, entry, last)
            self.say(self.summary_line(run))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one failing measurement must not stop the others
            run["error"] = describe(exc)
            run["error_type"] = "%s.%s" % (type(exc).__module__, type(exc).__name__)
            run["error_phase"] = phase
            run["error_traceback"] = [text(line.rstrip(), 300) for line in
                                      traceback.format_exception_only(type(exc), exc)][-3:]
            self.say("%s size %d on %s failed while %s: %s" % (workload, size, device,
                                                                 phase, text(describe(exc), 300)))
        run["duration_s"] = round(time.perf_counter() - started, 4)
        self.publish()
        return run

    def time_it(self, prepared, run_deadline):
        cfg = self.cfg
        clock = time.perf_counter
        step, read = prepared.step, prepared.read
        losses = []
        warm = []
        out = None
        for _ in range(cfg["warmup"]):
            t0 = clock()
            out = step()
            losses.append(read(out))
            warm.append(clock() - t0)
        t0 = clock()
        read(out)
        readback = clock() - t0
        # Autorange: the smallest `number` whose repeat lasts repeat_s, scaled down (never under
        # min_repeat_s) when this measurement's share of the budget cannot afford it.
        left = min(run_deadline, self.budget.deadline) - clock()
        target = min(cfg["repeat_s"], left / (cfg["repeats"] + 2))
        target = max(self.min_repeat_s, target)
        per_call = max(warm[-1], 1e-9)
        number = max(1, int(math.ceil(target / per_call)))
        calibration = []
        while True:
            t0 = clock()
            for _ in range(number):
                out = step()
            losses.append(read(out))
            elapsed = clock() - t0
            calibration.append([number, elapsed])
            if elapsed >= target or len(calibration) >= 6 or clock() > self.budget.deadline:
                break
            number = max(number + 1, int(math.ceil(number * target * 1.1 / max(elapsed, 1e-9))))
        # The last autorange trial ran `number` calls after the warm-up: when it lasted the
        # target it is the first repeat; out of budget it is the one repeat there is time for.
        expected = calibration[-1][1]
        limited = clock() + expected > self.budget.deadline
        repeats = [expected] if (limited or expected >= target) else []
        while len(repeats) < cfg["repeats"] and not limited:
            now = clock()
            if now + expected > self.budget.deadline:
                limited = True
                if len(repeats) >= 1:
                    break
            elif now + expected > run_deadline and len(repeats) >= cfg["min_repeats"]:
                limited = True
                break
            t0 = clock()
            for _ in range(number):
                out = step()
            losses.append(read(out))
            repeats.append(clock() - t0)
            if limited:
                break
        per_call_s = [r / number for r in repeats]
        timing = {
            "number": number,
            "repeats_s": repeats,
            "per_call_s": per_call_s,
            "warmup_s": warm,
            "first_call_s": warm[0],
            "readback_s": readback,
            "calibration": calibration,
            "repeat_target_s": target,
            "budget_limited": limited,
        }
        timing.update(probe_stats.summary(per_call_s))
        return timing, out, losses

    def agreement(self, workload, size, device, entry, last):
        """Agreement of `device`'s result with the CPU's; on the CPU, keep its result as the
        reference (computed on the CPU once when the CPU itself is not probed)."""
        tf = self.tf
        kind = entry["kind"]
        if device == "CPU:0":
            # The reference is computed when a GPU needs it (train's takes ~0.3 s on 2 cores).
            entry["cpu_last"] = last
            return None
        if entry["outputs"] is None:
            cpu_out = entry.get("cpu_last")
            if cpu_out is None and kind.name != "train":
                cpu_out = kind.prepare("/CPU:0").step()
            entry["outputs"] = kind.outputs("/CPU:0", cpu_out)
        reference = entry["outputs"]
        mine = kind.outputs("/" + device, last)
        tolerance = float(self.cfg["tolerance"].get(workload, TOLERANCE[workload]))
        values = {}
        finite = True
        for key in ("output", "logits", "gradients", "dense_relu_eager", "dense_relu_graph"):
            if key in reference:
                measure = worst_relative_error if key == "gradients" else relative_error
                err, ok = measure(tf, mine[key], reference[key])
                values[key] = err
                finite = finite and ok
        if "loss" in reference:
            a = float(mine["loss"][0].numpy())
            b = float(reference["loss"][0].numpy())
            values["loss"] = abs(a - b) / abs(b) if (math.isfinite(a) and math.isfinite(b) and b) else None
            finite = finite and math.isfinite(a)
        tolerances = {k: tolerance for k in values if k != "loss"}
        if "gradients" in tolerances:
            tolerances["gradients"] = gradient_tolerance(tolerance, values.get("logits"))
        ok = finite and all(values[k] is not None and values[k] <= t for k, t in tolerances.items())
        return {"reference": "CPU:0", "metric": "relative L2 error", "values": values,
                "tolerance": tolerance, "tolerances": tolerances, "ok": ok, "finite": finite}

    def summary_line(self, run):
        t = run["timing"]
        parts = ["%s size %d on %s: median %.3g ms (IQR %.2g ms, %d repeats of %d calls)" % (
            run["workload"], run["size"], run["device"], t["median_s"] * 1e3, t["iqr_s"] * 1e3,
            len(t["repeats_s"]), t["number"])]
        if run.get("gflops") and run["workload"] != "train":
            parts.append("%.0f GFLOP/s" % run["gflops"])
        if run.get("samples_per_s") and run["workload"] == "train":
            parts.append("%.0f samples/s" % run["samples_per_s"])
        parts.append("first call %.3g ms" % (t["first_call_s"] * 1e3))
        if run.get("on_device") is False:
            parts.append("ran on %s" % short_device(run.get("placed_on")))
        agreement = run.get("agreement")
        if agreement and not agreement["ok"]:
            parts.append("DISAGREES with the CPU")
        return ", ".join(parts)


def work(workload, size):
    """Work of one call, up to a constant: matmul n^3, conv and train proportional to the batch."""
    return float(size) ** 3 if workload == "matmul" else float(size)


def sanitize(value):
    """`value` with every non-finite float replaced by None (strict JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return dict((k, sanitize(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    return value


def new_run(workload, device, size, role, skipped=None):
    return {
        "workload": workload, "device": device, "size": size, "role": role, "shape": "",
        "flops": None, "samples": None, "inputs": {}, "placed_on": None, "on_device": None,
        "placement": {}, "timing": None, "gflops": None, "samples_per_s": None,
        "agreement": None, "loss_first": None, "loss_last": None, "loss_finite": None,
        "optimizer": None, "error": None, "error_type": None, "error_phase": None,
        "error_traceback": [], "skipped": skipped, "duration_s": None,
    }


def run_probes(tf, config, progress, on_result=None):
    """Run the probes in `config` (see DEFAULTS and PRESETS) with TensorFlow module `tf`, which
    the caller has imported (and on whose GPUs it has set memory growth). `progress(message)`
    gets one line per step; `on_result(partial)`, when given, gets the result so far after each
    step (to be written out, so a crash or a hang leaves it behind). Returns the result as plain
    JSON-able data; never raises for a failing workload (the run records the error)."""
    try:
        cfg = resolve_config(config)
    except (TypeError, ValueError) as exc:
        return {"schema": SCHEMA, "outcome": "error", "message": "bad probe configuration: %s" % exc,
                "complete": True, "config": None, "runs": [], "messages": [],
                "error": describe(exc)}
    prober = Prober(tf, cfg, progress, on_result)
    try:
        return sanitize(prober.run())
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. listing devices failed
        prober.result["outcome"] = "error"
        prober.result["error"] = describe(exc)
        prober.result["message"] = "the probes stopped: %s" % text(describe(exc), 300)
        prober.result["complete"] = True
        prober.publish()
        return sanitize(prober.result)


# --- model presets: what users run, for `probe --workload NAME` through the model probe --------

MODEL_PRESETS = ("mnist-dense", "cifar-cnn", "mobilenetv2", "lstm", "attention")
"""Models users report slow or wrong on Metal, built with weights=None (nothing downloaded) and
compiled as their tutorials compile them; model_child.py makes their synthetic data:
mnist-dense and cifar-cnn (the TensorFlow beginner and CNN tutorials), MobileNetV2 at 224x224
(the usual transfer-learning benchmark), an Embedding + LSTM text classifier (LSTM training far
slower on the Metal GPU than on the CPU: tensorflow/tensorflow#56782) and a MultiHeadAttention
block (Dropout's stateless random ops and gelu's Erfc have no Metal kernel, nor has Einsum, which
Keras 2 uses for attention and Keras 3 turns into MatMul: reference/metal_binaries_2026-11.json)."""


def model_preset(tf, name):
    """A compiled Keras model for preset `name` (ValueError for an unknown name)."""
    keras = tf.keras
    layers = keras.layers
    if name == "mnist-dense":
        model = keras.Sequential([
            keras.Input((28, 28), name="image"), layers.Flatten(name="flatten"),
            layers.Dense(128, activation="relu", name="dense_relu"),
            layers.Dropout(0.2, name="dropout"), layers.Dense(10, name="logits")],
            name="mnist_dense")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    elif name == "cifar-cnn":
        model = keras.Sequential([
            keras.Input((32, 32, 3), name="image"),
            layers.Conv2D(32, 3, activation="relu", name="conv1"),
            layers.MaxPooling2D(name="pool1"),
            layers.Conv2D(64, 3, activation="relu", name="conv2"),
            layers.MaxPooling2D(name="pool2"),
            layers.Conv2D(64, 3, activation="relu", name="conv3"),
            layers.Flatten(name="flatten"), layers.Dense(64, activation="relu", name="dense"),
            layers.Dense(10, name="logits")], name="cifar_cnn")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    elif name == "mobilenetv2":
        model = keras.applications.MobileNetV2(input_shape=(224, 224, 3), weights=None,
                                               classes=1000)
        loss = "sparse_categorical_crossentropy"
    elif name == "lstm":
        tokens = keras.Input((100,), dtype="int32", name="tokens")
        x = layers.Embedding(10000, 64, name="embedding")(tokens)
        x = layers.LSTM(64, name="lstm")(x)
        out = layers.Dense(1, activation="sigmoid", name="score")(x)
        model = keras.Model(tokens, out, name="lstm_classifier")
        loss = "binary_crossentropy"
    elif name == "attention":
        seq = keras.Input((64, 128), name="sequence")
        att = layers.MultiHeadAttention(num_heads=4, key_dim=32, dropout=0.1, name="mha")(seq, seq)
        x = layers.LayerNormalization(name="norm1")(layers.Add(name="residual1")([seq, att]))
        ff = layers.Dense(256, activation="gelu", name="ff1")(x)
        ff = layers.Dropout(0.1, name="ff_dropout")(layers.Dense(128, name="ff2")(ff))
        x = layers.LayerNormalization(name="norm2")(layers.Add(name="residual2")([x, ff]))
        x = layers.GlobalAveragePooling1D(name="pool")(x)
        model = keras.Model(seq, layers.Dense(10, name="logits")(x), name="attention_block")
        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    else:
        raise ValueError("unknown workload %r (known: %s)" % (name, ", ".join(MODEL_PRESETS)))
    model.compile(optimizer="adam", loss=loss)
    return model


# --- standalone --------------------------------------------------------------------------------


def _write(path, document):
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(sanitize(document), handle, default=str, allow_nan=False)
    os.replace(tmp, path)


def _load_config(arg):
    if arg is None:
        return {}
    if arg.lstrip().startswith("{"):
        return json.loads(arg)
    with open(arg) as handle:
        return json.load(handle)


def main(argv):
    import faulthandler

    args = list(argv[1:])
    timeout = None
    if "--timeout" in args:
        at = args.index("--timeout")
        timeout = float(args[at + 1])
        del args[at:at + 2]
    path = args[0]
    config = _load_config(args[1] if len(args) > 1 else None)
    faulthandler.enable(file=sys.stderr, all_threads=False)
    if timeout:
        faulthandler.dump_traceback_later(max(0.5, min(timeout - 1.0, timeout * 0.95)),
                                          exit=False, file=sys.stderr)
    state = {"schema": SCHEMA, "stage": "importing", "complete": False, "import_s": None,
             "import_error": None, "probes": None}
    _write(path, state)
    started = time.perf_counter()
    try:
        import tensorflow as tf
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        state["import_s"] = round(time.perf_counter() - started, 4)
        state["import_error"] = describe(exc)
        state["complete"] = True
        state["stage"] = "done"
        _write(path, state)
        sys.stderr.flush()
        os._exit(0)
    state["import_s"] = round(time.perf_counter() - started, 4)
    for gpu in tf.config.list_physical_devices("GPU"):
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except Exception:  # noqa: BLE001 - reported by the runtime child, not here
            pass
    state["stage"] = "probes"

    def progress(message):
        sys.stderr.write("tfdoctor-probe: %s\n" % message)
        sys.stderr.flush()

    def on_result(partial):
        state["probes"] = partial
        _write(path, state)

    state["probes"] = run_probes(tf, config, progress, on_result)
    state["complete"] = True
    state["stage"] = "done"
    _write(path, state)
    faulthandler.cancel_dump_traceback_later()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # TensorFlow and plugins may crash or hang at interpreter teardown


if __name__ == "__main__":
    main(sys.argv)
