"""lint.keras2-api-on-keras3: Keras 2 code that breaks when the installed Keras is 3.

What it does: when `tf.keras` is Keras 3 (TensorFlow 2.16+ without tf-keras and
TF_USE_LEGACY_KERAS=1), finds:
- `tf.keras.optimizers.legacy.*`: "ImportError: `keras.optimizers.legacy` is not supported in
  Keras 3" (amaiya/ktrain#525);
- optimizers given `lr=`: "ValueError: Argument(s) not recognized: {'lr': 0.002}"
  (philipperemy/keras-tcn#284);
- `model.save("dir")` without a `.keras` or `.h5` extension: "Invalid filepath extension for
  saving" (adriangb/scikeras#314);
- `ModelCheckpoint("x.h5")` saving whole models: "The filepath provided must end in `.keras`"
  (pythonlessons/mltu#48);
- `tf.keras.layers.experimental.preprocessing.*`, gone in Keras 3 (the layers are in
  `tf.keras.layers`): "AttributeError: module 'keras._tf_keras.keras.layers' has no attribute
  'experimental'" (tensorflow/tensorflow#64349, keras-team/autokeras#1904);
- `model.fit_generator` / `evaluate_generator` / `predict_generator`, removed in Keras 3:
  "AttributeError: 'Functional' object has no attribute 'fit_generator'" (keras-team/keras#19225).

Why it is bad: each stops the script with the error quoted; older tutorials and the seed
articles users copy are written for Keras 2.

Example:
    opt = tf.keras.optimizers.Adam(lr=1e-3)
    model.save("saved_model")
Use instead:
    opt = tf.keras.optimizers.Adam(learning_rate=1e-3)
    model.save("model.keras")              # or model.export("saved_model") for serving
Or keep Keras 2: `pip install tf-keras==<TensorFlow's minor>` and set TF_USE_LEGACY_KERAS=1.

References: https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility
"""

from __future__ import annotations

import ast
from typing import Iterable

from tfdoctor.lint.flow import keras_objects
from tfdoctor.lint.results import Context, Finding, LintEnv, Rule
from tfdoctor.lint.names import keyword, literal

_GENERATOR_METHODS = {"fit_generator": "fit", "evaluate_generator": "evaluate",
                      "predict_generator": "predict"}
EXPERIMENTAL = ("https://github.com/tensorflow/tensorflow/issues/64349",
                "https://github.com/keras-team/autokeras/issues/1904")
LEGACY_KERAS = "https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility"


def _needs(env: LintEnv) -> str | None:
    return "Keras version unknown" if env.keras_major is None else None


def _check(ctx: Context) -> Iterable[Finding]:
    if ctx.env.keras_major != 3:
        return
    objects = keras_objects(ctx)
    legacy = [a for a in ctx.index.attributes
              if (a.attr == "legacy" or isinstance(a.value, ast.Attribute) and a.value.attr == "legacy")
              and (ctx.names.dotted(a) or "").startswith("keras.optimizers.legacy")]
    inner = {id(a.value) for a in legacy}
    for node in legacy:
        if id(node) not in inner:
            dotted = ctx.names.dotted(node) or ""
            yield ctx.finding(RULE, node, "`tf.keras.optimizers.legacy` does not exist in Keras 3: "
                              "\"ImportError: `keras.optimizers.legacy` is not supported in Keras 3\"",
                              "Use `tf.keras.optimizers." + dotted.rsplit(".", 1)[-1] + "` (or "
                              "install tf-keras and set TF_USE_LEGACY_KERAS=1 to keep Keras 2).",
                              ("https://github.com/amaiya/ktrain/issues/525", LEGACY_KERAS))
    for node in ctx.index.attributes:
        if node.attr == "experimental" and ctx.names.dotted(node) == "keras.layers.experimental":
            yield ctx.finding(RULE, node, "`layers.experimental` does not exist in Keras 3: "
                              "\"module 'keras.layers' has no attribute 'experimental'\"",
                              "Use the layer from `tf.keras.layers` directly (for example "
                              "`tf.keras.layers.RandomFlip`).", EXPERIMENTAL)
    for node in ctx.index.import_froms:
        module = node.module or ""
        if "optimizers.legacy" in module:
            yield ctx.finding(RULE, node, "`optimizers.legacy` does not exist in Keras 3",
                              "Import the optimizer from `tensorflow.keras.optimizers`.",
                              ("https://github.com/amaiya/ktrain/issues/525", LEGACY_KERAS))
        elif "keras.layers.experimental" in module or (module.endswith("keras.layers") and
                                                       any(a.name == "experimental" for a in node.names)):
            yield ctx.finding(RULE, node, f"`{module}` has no `experimental` in Keras 3: "
                              "\"No module named 'tensorflow.keras.layers.experimental'\"",
                              "Import the layers from `tensorflow.keras.layers`.", EXPERIMENTAL)
    for call in ctx.index.calls:
        yield from _call(ctx, call, objects)


def _call(ctx: Context, node: ast.Call, objects: set[str]) -> Iterable[Finding]:
    name = ctx.index.name(node)
    if name.startswith("keras.optimizers.") and keyword(node, "lr") is not None:
        yield ctx.finding(RULE, keyword(node, "lr") or node, "Keras 3 optimizers have no `lr` "
                          "argument: \"ValueError: Argument(s) not recognized: {'lr': ...}\"",
                          "Write `learning_rate=` instead of `lr=`.",
                          ("https://github.com/philipperemy/keras-tcn/issues/284",))
    elif name == "keras.callbacks.ModelCheckpoint":
        path = literal(node.args[0] if node.args else keyword(node, "filepath"))
        weights = literal(keyword(node, "save_weights_only")) is True
        if isinstance(path, str) and not path.endswith(".keras") and not (weights and path.endswith(".weights.h5")):
            need = "`.weights.h5`" if weights else "`.keras`"
            yield ctx.finding(RULE, node, f"Keras 3's ModelCheckpoint needs a path ending in {need}: "
                              f"\"{path}\" fails (\"The filepath provided must end in `.keras`\")",
                              f"Name the checkpoint file with a {need} extension.",
                              ("https://github.com/pythonlessons/mltu/issues/48",))
    elif isinstance(node.func, ast.Attribute) and node.func.attr in _GENERATOR_METHODS:
        method = node.func.attr
        yield ctx.finding(RULE, node, f"`{method}` was removed in Keras 3: \"AttributeError: ... object "
                          f"has no attribute '{method}'\"",
                          f"Call `{_GENERATOR_METHODS[method]}` with the generator or Sequence "
                          "(a `keras.utils.PyDataset` in Keras 3).",
                          ("https://github.com/keras-team/keras/issues/19225",))
    elif isinstance(node.func, ast.Attribute) and node.func.attr == "save" and node.args:
        receiver = node.func.value
        is_model = isinstance(receiver, ast.Name) and (receiver.id in objects or "model" in receiver.id.lower())
        path = literal(node.args[0])
        if is_model and isinstance(path, str) and not path.endswith((".keras", ".h5", ".hdf5")):
            yield ctx.finding(RULE, node, f"Keras 3 saves models only to `.keras` or `.h5` files: "
                              f"model.save(\"{path}\") fails (\"Invalid filepath extension for saving\")",
                              f"Save to \"{path.rstrip('/')}.keras\", or use `model.export(\"{path}\")` "
                              "for a SavedModel to serve.",
                              ("https://github.com/adriangb/scikeras/issues/314",))


RULE = Rule("lint.keras2-api-on-keras3", "error", "Keras 2 API that breaks under Keras 3", _check,
            _needs, __doc__ or "")
