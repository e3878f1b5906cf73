"""Shared reading of a script's flow: which names hold Keras objects, and from which call on
TensorFlow has initialised its devices.

TensorFlow initialises its devices (and freezes their configuration) at the first op, tensor or
variable it creates, or at `tf.config.list_logical_devices()`; listing *physical* devices does
not. After that, `set_memory_growth`, `set_visible_devices` and logical device configuration
raise RuntimeError ("Visible devices cannot be modified after being initialized",
Planet-AI-GmbH/tfaip#10; "Physical devices cannot be modified after being initialized",
hunglc007/tensorflow-yolov4-tflite#171).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tfdoctor.lint.results import Context
from tfdoctor.lint.names import assigned_names, keyword

DEVICE_CONFIG = {
    "tensorflow.config.experimental.set_memory_growth": "set_memory_growth",
    "tensorflow.config.set_visible_devices": "set_visible_devices",
    "tensorflow.config.experimental.set_visible_devices": "set_visible_devices",
    "tensorflow.config.set_logical_device_configuration": "set_logical_device_configuration",
    "tensorflow.config.experimental.set_virtual_device_configuration": "set_virtual_device_configuration",
}

_NOT_INITIALISING = ("tensorflow.config.", "tensorflow.device", "tensorflow.function",
                     "tensorflow.debugging.set_log_device_placement", "tensorflow.get_logger",
                     "tensorflow.autograph.", "tensorflow.random.set_seed", "tensorflow.GradientTape",
                     "tensorflow.TensorSpec", "tensorflow.compat.v1.", "tensorflow.print",
                     "tensorflow.test.is_built_with", "tensorflow.sysconfig.", "tensorflow.version",
                     "tensorflow.io.gfile.", "tensorflow.summary.create_file_writer")
_INITIALISING_CONFIG = ("tensorflow.config.list_logical_devices",
                        "tensorflow.config.experimental.list_logical_devices")
_RUNS_MODEL = {"fit", "predict", "evaluate", "train_on_batch", "test_on_batch", "predict_on_batch",
               "build", "fit_generator", "predict_generator", "evaluate_generator"}
_NOT_OBJECTS = ("keras.datasets.", "keras.utils.", "keras.backend.", "keras.mixed_precision.",
                "keras.config.")


def keras_objects(ctx: Context) -> set[str]:
    """Names bound to Keras objects anywhere in the module (models, layers, losses...)."""
    if "keras_objects" not in ctx.cache:
        found: set[str] = set()
        index = ctx.index
        for node in index.assigns:
            if isinstance(node.value, ast.Call):
                name = index.name(node.value)
                if name.startswith("keras.") and not name.startswith(_NOT_OBJECTS):
                    found.update(assigned_names(node))
        ctx.cache["keras_objects"] = found
    return ctx.cache["keras_objects"]


def _builds_sequential(call: ast.Call, ctx: Context) -> bool:
    """Sequential([...]) whose first layer declares its input: Keras builds it (and its weights)."""
    for arg in call.args[:1]:
        if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts and isinstance(arg.elts[0], ast.Call):
            first = arg.elts[0]
            if ctx.index.name(first).rsplit(".", 1)[-1] in ("Input", "InputLayer"):
                return True
            if any(keyword(first, k) is not None for k in ("input_shape", "input_dim", "batch_input_shape")):
                return True
    return False


def initialises(call: ast.Call, ctx: Context) -> bool:
    """Does this call make TensorFlow create its devices (an op, a tensor, a variable)?"""
    name = ctx.index.name(call)
    if name.startswith(_INITIALISING_CONFIG):
        return True
    if name.startswith("tensorflow."):
        return not name.startswith(_NOT_INITIALISING) and name not in DEVICE_CONFIG
    if name.startswith("keras.applications."):
        return True
    if name == "keras.Sequential":
        return _builds_sequential(call, ctx)
    if name == "keras.Model" and (call.args or call.keywords):
        return True
    if isinstance(call.func, ast.Call):  # Dense(10)(x): a layer applied builds its weights
        return ctx.index.name(call.func).startswith("keras.layers.")
    if isinstance(call.func, ast.Name) and call.func.id in keras_objects(ctx):
        return True  # model(x), layer(x), loss_fn(y, p)
    if isinstance(call.func, ast.Attribute) and call.func.attr in _RUNS_MODEL:
        receiver = call.func.value
        return isinstance(receiver, ast.Name) and (receiver.id in keras_objects(ctx)
                                                   or "model" in receiver.id.lower())
    return False


@dataclass(frozen=True)
class LateCall:
    call: ast.Call
    function: str
    first_init: ast.Call


def late_device_config(ctx: Context) -> list[LateCall]:
    """Device configuration calls made after TensorFlow initialised its devices, per scope (the
    module, each function), in the order the calls complete."""
    if "late" not in ctx.cache:
        late: list[LateCall] = []
        for calls in ctx.index.calls_by_scope().values():
            first: ast.Call | None = None
            for call in calls:
                function = DEVICE_CONFIG.get(ctx.index.name(call))
                if function and first is not None:
                    late.append(LateCall(call, function, first))
                elif first is None and initialises(call, ctx):
                    first = call
        ctx.cache["late"] = late
    return ctx.cache["late"]


def describe(call: ast.Call, ctx: Context) -> str:
    """A short readable name for a call, as the script wrote it: `tf.keras.Sequential`."""
    try:
        return ast.unparse(call.func)[:60]
    except Exception:  # noqa: BLE001 - unparse of odd trees must not break lint
        return ctx.index.name(call).replace("tensorflow.", "tf.") or "a call"
