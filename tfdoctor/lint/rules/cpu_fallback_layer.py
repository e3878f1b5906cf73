"""lint.cpu-fallback-layer: layers and ops the installed tensorflow-metal has no GPU kernel for.

What it does: maps Keras layers (MultiHeadAttention, Dropout, random augmentation, Conv3D, ...),
activations ('elu', 'selu', 'softplus', ...) and TensorFlow functions (tf.einsum, tf.math.cumsum,
...) to the ops they run (tfdoctor/knowledge/layer_ops.py) and asks the kernel table of the installed
plugin (tfdoctor/knowledge/kernels.py, read from the plugin binary) which of those ops have no GPU kernel.

Why it is bad: an op without a Metal kernel runs on the CPU; its inputs and outputs cross between
devices every step, and a heavy one (Einsum in attention, Conv3D) makes the GPU wait. Pinned to
the GPU it fails: "No registered 'RngReadAndSkip' OpKernel for 'GPU' devices"
(mrdbourke/tensorflow-deep-learning#298). Random layers are reported on Apple's forums
(thread 759438).

Example:
    x = tf.keras.layers.MultiHeadAttention(num_heads=8, key_dim=64)(x, x)   # Einsum on the CPU
Use instead: accept it for small layers; for heavy ones use a formulation with kernels (for
attention, `tf.matmul` of the projected queries and keys), or place that layer explicitly with
`with tf.device('/CPU:0'):` so the cost is visible. Random augmentation is best done in the
tf.data pipeline (on the CPU by design) rather than in the model.

References: tfdoctor/knowledge/kernels.py (compat_matrix.json `metal_kernels`);
https://github.com/mrdbourke/tensorflow-deep-learning/issues/298
"""

from __future__ import annotations

import ast
from typing import Iterable

from tfdoctor.knowledge.kernels import KernelTable, UnknownPluginRelease, kernel_table
from tfdoctor.knowledge.layer_ops import ACTIVATIONS, FUNCTIONS, LAYERS, OpUse
from tfdoctor.lint.results import Context, Finding, LintEnv, Rule
from tfdoctor.lint.names import keyword, literal


def _needs(env: LintEnv) -> str | None:
    if env.metal_plugin is None:
        return "no tensorflow-metal in the environment"
    try:
        kernel_table(env.metal_plugin)
    except UnknownPluginRelease as exc:
        return str(exc)
    return None


def _check(ctx: Context) -> Iterable[Finding]:
    table = kernel_table(ctx.env.metal_plugin or "")
    for node in ctx.index.calls:
        name = ctx.index.name(node)
        if name.startswith("keras.layers."):
            layer = name[len("keras.layers."):]
            if layer in LAYERS:
                yield from _report(ctx, table, node, f"`{layer}`", LAYERS[layer])
            activation = keyword(node, "activation")
            if layer == "Activation" and node.args:
                activation = node.args[0]
            use, label = _activation(ctx, activation)
            if use is not None:
                yield from _report(ctx, table, activation or node, f"activation {label}", use)
        elif name in FUNCTIONS:
            yield from _report(ctx, table, node, f"`{name.replace('tensorflow.', 'tf.')}`", FUNCTIONS[name])


def _activation(ctx: Context, node: ast.AST | None) -> tuple[OpUse | None, str]:
    if node is None:
        return None, ""
    value = literal(node)
    if isinstance(value, str):
        return ACTIVATIONS.get(value.lower()), f"'{value}'"
    dotted = ctx.names.dotted(node) or ""
    last = dotted.rsplit(".", 1)[-1]
    if dotted.startswith(("keras.activations.", "tensorflow.nn.", "tensorflow.math.")):
        return ACTIVATIONS.get(last), f"`{dotted.replace('tensorflow.', 'tf.')}`"
    return None, ""


def _report(ctx: Context, table: KernelTable, node: ast.AST, what: str, use: OpUse) -> Iterable[Finding]:
    missing = [op for op in use.ops if not table.has_kernel(op)]
    if not missing:
        return
    ops = ", ".join(missing)
    severity = "warning" if use.heavy else "info"
    yield ctx.finding(RULE, node, f"{what} runs {ops}, which tensorflow-metal {table.plugin_version} "
                      f"has no GPU kernel for: it runs on the CPU ({use.why})",
                      "Keep it if it is small; for a heavy layer use a formulation with GPU kernels "
                      "or place it with `with tf.device('/CPU:0'):` knowingly; do random "
                      "augmentation in the tf.data pipeline.",
                      (f"kernel table of {table.wheel} ({table.method})",
                       "https://github.com/mrdbourke/tensorflow-deep-learning/issues/298"),
                      severity=severity)


RULE = Rule("lint.cpu-fallback-layer", "info", "Layer or op without a Metal GPU kernel", _check,
            _needs, __doc__ or "")
