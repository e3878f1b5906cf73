"""lint.v2-optimizer-on-metal: a Keras v2.11+ optimizer where it is slow on Apple silicon.

What it does: with TensorFlow 2.11-2.15 (Keras 2) and tensorflow-metal, finds optimizers built
from `tf.keras.optimizers.Adam` (SGD, RMSprop, ...) rather than `tf.keras.optimizers.legacy`,
when they step a custom training loop (`apply_gradients`, `minimize`) or, on TensorFlow 2.11, are
given to `compile`. From 2.12 Keras itself swaps an optimizer given to `compile` for the legacy
one on Apple silicon ("Falling back to the legacy Keras optimizer"), except AdamW, which has no
legacy version and then fails (tensorflow/tensorflow#60652, keras-team/keras#18224).

Why it is bad: TensorFlow logs "the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on
M1/M2 Macs": the new optimizers update variables from Python op by op instead of the plugin's
fused `ResourceApplyAdam` kernel, up to 3x slower (tensorflow/tensorflow#59438).

Example:
    optimizer = tf.keras.optimizers.Adam()
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
Use instead:
    optimizer = tf.keras.optimizers.legacy.Adam()
`tf.keras.optimizers.legacy` no longer exists with Keras 3 (TensorFlow 2.16+): drop `.legacy`
again when you upgrade (see lint.keras2-api-on-keras3).

References: https://github.com/tensorflow/tensorflow/issues/59438,
https://github.com/tensorflow/tensorflow/issues/61092
"""

from __future__ import annotations

import ast
from typing import Iterable

from tfdoctor.lint.results import Context, Finding, LintEnv, Rule
from tfdoctor.lint.names import assigned_names, keyword

OPTIMIZERS = {"Adam", "AdamW", "SGD", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl"}
REFERENCES = ("https://github.com/tensorflow/tensorflow/issues/59438",
              "https://github.com/tensorflow/tensorflow/issues/61092")


def _needs(env: LintEnv) -> str | None:
    if env.metal_plugin is None:
        return "no tensorflow-metal in the environment"
    if env.tf_minor() is None or env.keras_major is None:
        return "TensorFlow or Keras version unknown"
    return None


def _applies(env: LintEnv) -> bool:
    minor = env.tf_minor()
    return minor is not None and (2, 11) <= minor <= (2, 15) and env.keras_major == 2


def _check(ctx: Context) -> Iterable[Finding]:
    if not _applies(ctx.env):
        return
    minor = ctx.env.tf_minor()
    created: dict[str, ast.Call] = {}
    inline: list[ast.Call] = []
    stepped: set[str] = set()
    compiled: set[str] = set()
    for assign in ctx.index.assigns:
        if isinstance(assign.value, ast.Call) and _optimizer(ctx, assign.value):
            for name in assigned_names(assign):
                created[name] = assign.value
    for node in ctx.index.calls:
        if isinstance(node.func, ast.Attribute):
            if node.func.attr in ("apply_gradients", "minimize") and isinstance(node.func.value, ast.Name):
                stepped.add(node.func.value.id)
            elif node.func.attr == "compile":
                given = keyword(node, "optimizer") or (node.args[0] if node.args else None)
                if isinstance(given, ast.Name):
                    compiled.add(given.id)
                elif isinstance(given, ast.Call) and _optimizer(ctx, given):
                    inline.append(given)
    for name, call in created.items():
        kind = _optimizer(ctx, call)
        if name in stepped:
            yield _finding(ctx, call, kind, "steps a custom training loop")
        elif name in compiled:
            yield from _compiled(ctx, call, kind, minor)
    for call in inline:
        yield from _compiled(ctx, call, _optimizer(ctx, call), minor)


def _compiled(ctx: Context, call: ast.Call, kind: str, minor: tuple[int, int] | None) -> Iterable[Finding]:
    if kind == "AdamW" and minor is not None and minor >= (2, 12):
        yield ctx.finding(RULE, call, "AdamW given to compile() on Apple silicon: Keras falls back to a "
                          "legacy AdamW that does not exist and fails (tensorflow/tensorflow#60652)",
                          "Use tf.keras.optimizers.legacy.Adam with weight decay done by hand, or "
                          "upgrade TensorFlow to 2.16+ with tensorflow-metal 1.2.0.",
                          ("https://github.com/tensorflow/tensorflow/issues/60652",
                           "https://github.com/keras-team/keras/issues/18224"), severity="error")
    elif minor == (2, 11):
        yield _finding(ctx, call, kind, "is given to compile() (TensorFlow 2.11 does not fall back "
                       "to the legacy optimizer)")


def _finding(ctx: Context, call: ast.Call, kind: str, how: str) -> Finding:
    return ctx.finding(RULE, call, f"the v2.11+ optimizer `{kind}` {how}: it runs slowly on Apple "
                       f"silicon with TensorFlow {ctx.env.tensorflow} (no fused Metal kernel)",
                       f"Use `tf.keras.optimizers.legacy.{kind}(...)` with the same arguments "
                       "(remove `.legacy` again once on Keras 3 / TensorFlow 2.16+, where it no "
                       "longer exists).", REFERENCES)


def _optimizer(ctx: Context, call: ast.Call) -> str:
    name = ctx.index.name(call)
    head, _, last = name.rpartition(".")
    return last if head == "keras.optimizers" and last in OPTIMIZERS else ""


RULE = Rule("lint.v2-optimizer-on-metal", "warning", "Keras v2.11+ optimizer slow on Apple silicon",
            _check, _needs, __doc__ or "")
