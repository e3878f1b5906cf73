"""The probe workloads, the one place each is defined: Matmul (float32 n x n @ n x n), Conv (a
float32 Conv2D forward) and Train (one Keras training step).

A workload is a class. Its class attributes are what tfdoctor reads without TensorFlow: the
name (`--workload NAME`), what its size means, the default size and the sweep's sizes, the retry
factor, the largest size one budget holds, the agreement tolerance, FLOPs and work per call, and
whether it is a training step (a loss, samples/s, an estimated FLOP count) and the line of Python
that reproduces a wrong GPU result (given with probe.gpu-wrong). An instance is built
once per size from fixed seeds on the CPU; for a device, `prepare` copies the inputs there and
returns the step to time and how to read its result back; `placement` says where the ops ran;
`outputs` gives what is compared with the CPU (tfdoctor/inside/probes/agreement.py).

To add a workload: write its class here (Matmul is the pattern: every attribute below `name`)
and add it to KINDS; the CLI (`tfdoctor probe --workload`), the configuration
(probe_config.py), the size checks and the evidence follow from KINDS. Then add its test to
tests/gather/test_probes_tf.py (a measurement in the cached TensorFlow venv) and its recorded
numbers to tests/scenarios/build.py if a scenario should show it.

Runs inside the diagnosed interpreter (standard library and tensorflow, passed in as `tf`,
Python 3.8+); tfdoctor imports it too, for the class attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict

from tfdoctor.inside.shared.probe_record import on_device, short_device

__all__ = ["Prepared", "Matmul", "Conv", "Train", "KINDS", "is_training_step"]


@dataclass
class Prepared:
    """A workload ready to time on one device: `step()` runs one call, `read(out)` reads its
    result back to the host (and returns the loss for the training step), `inputs` records
    where the inputs were placed."""

    step: Callable[[], Any]
    read: Callable[[Any], float]
    inputs: Dict[str, str]


class Matmul(object):
    """float32 n x n @ n x n; 2 n^3 FLOPs."""

    name = "matmul"
    size_word = "n"
    """What the size is, in a sentence ("its n can be at most 8192")."""
    size_label = "n={}"
    """The size in evidence and titles ("n=1024")."""
    default_size = 1024
    sweep_sizes = (256, 512, 1024, 2048, 4096)
    retry_factor = 2
    """The larger size tried when the GPU does not win: 2x n (8x the work)."""
    max_size = 8192
    """The largest size the probes measure: more needs more memory or time than one budget."""
    tolerance = 1e-4
    """Largest relative L2 error accepted as agreement with the CPU (probe_config.TOLERANCE)."""
    training_step = False
    """A training step has a loss and an optimizer, its speed is told in samples/s, and its
    FLOPs are an estimate (never set against the chip's peak)."""
    reproducer = ("tf.linalg.matmul(a, b)", ((512, 512), (512, 512)))
    """The op on inputs `a` and `b` of these shapes that shows a wrong GPU result in one line of
    Python, given with the finding (None: the workload has no such line)."""

    @staticmethod
    def flops_of(size):
        """FLOPs of one call at `size`."""
        return 2.0 * size ** 3

    @staticmethod
    def work(size):
        """Work of one call, up to a constant (to scale a time measured at another size)."""
        return float(size) ** 3

    def __init__(self, tf, size, seed):
        self.tf = tf
        self.size = n = int(size)
        self.shape = "%dx%d @ %dx%d float32" % (n, n, n, n)
        self.flops = self.flops_of(n)
        self.samples = None
        with tf.device("/CPU:0"):
            self.a = tf.random.stateless_uniform((n, n), seed=[seed, 1], minval=-1.0, maxval=1.0)
            self.b = tf.random.stateless_uniform((n, n), seed=[seed, 2], minval=-1.0, maxval=1.0)

    input_names = ("a", "b")
    """What the evidence calls the two inputs (where each was placed)."""

    def op(self, a, b):
        """The op timed, on inputs already on the device."""
        return self.tf.linalg.matmul(a, b)

    def prepare(self, device):
        tf = self.tf
        with tf.device(device):
            a = tf.identity(self.a)
            b = tf.identity(self.b)
        inputs = {self.input_names[0]: str(a.device), self.input_names[1]: str(b.device)}
        op = self.op

        def step():
            with tf.device(device):
                return op(a, b)

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
    size_word = "batch size"
    size_label = "batch {}"
    default_size = 32
    sweep_sizes = (4, 8, 16, 32, 64, 128)
    retry_factor = 4
    max_size = 512
    tolerance = 1e-3
    """Convolutions may use Winograd or FFT algorithms, whose float32 error is around 1e-5..1e-4."""
    reproducer = ('tf.nn.conv2d(a, b, 1, "SAME")', ((8, 64, 64, 32), (3, 3, 32, 64)))
    input_names = ("input", "filter")
    HW = 64
    CIN = 32
    COUT = 64
    K = 3

    @classmethod
    def flops_of(cls, size):
        return 2.0 * size * cls.HW * cls.HW * cls.COUT * cls.K * cls.K * cls.CIN

    @staticmethod
    def work(size):
        return float(size)

    def __init__(self, tf, size, seed):
        self.tf = tf
        self.size = n = int(size)
        hw, cin, cout, k = self.HW, self.CIN, self.COUT, self.K
        self.shape = "NHWC %dx%dx%dx%d * %dx%dx%dx%d SAME float32" % (n, hw, hw, cin, k, k, cin, cout)
        self.flops = self.flops_of(n)
        self.samples = n
        with tf.device("/CPU:0"):
            self.a = tf.random.stateless_uniform((n, hw, hw, cin), seed=[seed, 3], minval=-1.0, maxval=1.0)
            self.b = tf.random.stateless_uniform((k, k, cin, cout), seed=[seed, 4], minval=-1.0, maxval=1.0)

    def op(self, x, w):
        return self.tf.nn.conv2d(x, w, strides=1, padding="SAME")


class Train(object):
    """One training step of a small Keras CNN on synthetic 32x32x3 images, 10 classes:
    Conv2D(32, 3) - ReLU - MaxPool - Conv2D(64, 3) - ReLU - MaxPool - Flatten - Dense(10), with
    Adam, traced with tf.function(jit_compile=False) (Keras 3's fit() asks XLA with
    jit_compile="auto", which a PluggableDevice such as Metal does not have: "Could not find
    compiler for platform ..."). The Conv2D and Dense layers have no bias and no activation of
    their own, so their outputs come straight from Conv2D and MatMul ops and show where those ran.
    Every device starts from the same weights."""

    name = "train"
    size_word = "batch size"
    size_label = "batch {}"
    default_size = 64
    sweep_sizes = (16, 32, 64, 128, 256, 512)
    retry_factor = 4
    max_size = 2048
    tolerance = 1e-3
    """It chains convolutions, a softmax and their gradients (the gradients themselves are held
    to probe_config.gradient_tolerance, as they pass through kinks)."""
    training_step = True
    reproducer = None
    HW = 32
    CLASSES = 10

    @classmethod
    def flops_of(cls, size):
        """Forward FLOPs per sample (conv: 2*Ho*Wo*Cout*Kh*Kw*Cin; dense: 2*in*out), times 3 for
        forward + backward (input and weight gradients): an estimate, for GFLOP/s only."""
        hw = cls.HW
        forward = (2.0 * hw * hw * 32 * 9 * 3 + 2.0 * (hw // 2) ** 2 * 64 * 9 * 32
                   + 2.0 * (hw // 4) ** 2 * 64 * cls.CLASSES)
        return 3.0 * forward * size

    @staticmethod
    def work(size):
        return float(size)

    def __init__(self, tf, size, seed):
        self.tf = tf
        self.size = n = int(size)
        self.samples = n
        hw = self.HW
        self.flops = self.flops_of(n)
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


KINDS = {kind.name: kind for kind in (Matmul, Conv, Train)}
"""Every workload by name, in the order the probes run them."""


def is_training_step(name):
    """Whether the workload a snapshot names is a training step (a name this tfdoctor does not
    know, from another version's snapshot, is not)."""
    kind = KINDS.get(name)
    return bool(kind and kind.training_step)
