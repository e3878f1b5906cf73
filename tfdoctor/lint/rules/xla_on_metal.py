"""lint.xla-on-metal: XLA compilation asked for where the GPU is Metal.

What it does: finds `jit_compile=True` (Keras `compile`, `tf.function`), `experimental_compile=True`,
`tf.config.optimizer.set_jit(...)` and `--tf_xla_auto_jit` in `TF_XLA_FLAGS`, when the environment
has tensorflow-metal.

Why it is bad: XLA has no Metal backend. The step fails with "UNIMPLEMENTED: Could not find compiler
for platform METAL: NOT_FOUND: could not find registered compiler for platform METAL"
(NVlabs/sionna#78); tfdoctor recognises that text in a log as `log.xla-no-metal`.

Example:
    model.compile(optimizer="adam", loss="mse", jit_compile=True)   # fails on the Metal GPU
Use instead:
    model.compile(optimizer="adam", loss="mse")                      # or jit_compile=False

References: https://github.com/NVlabs/sionna/issues/78
"""

from __future__ import annotations

from typing import Iterable

from tfdoctor.lint.results import Context, Finding, LintEnv, Rule
from tfdoctor.lint.names import NOT_LITERAL, keyword, literal

REFERENCES = ("https://github.com/NVlabs/sionna/issues/78",)


def _needs(env: LintEnv) -> str | None:
    if env.metal_plugin is None:
        return "no tensorflow-metal in the environment: XLA then runs on the CPU, which it supports"
    return None


def _check(ctx: Context) -> Iterable[Finding]:
    for node in ctx.index.calls:
        for name in ("jit_compile", "experimental_compile"):
            given = keyword(node, name)
            if given is not None and literal(given) is True:
                yield ctx.finding(RULE, given, f"`{name}=True` compiles with XLA, which has no Metal "
                                  "backend: the step fails with \"Could not find compiler for "
                                  "platform METAL\"",
                                  f"Remove `{name}=True` (or set it to False) when running on the "
                                  "Mac's GPU.", REFERENCES)
        if ctx.index.name(node) == "tensorflow.config.optimizer.set_jit":
            value = literal(node.args[0]) if node.args else literal(keyword(node, "enabled"))
            if value is not NOT_LITERAL and value not in (False, None, "", 0):
                yield ctx.finding(RULE, node, "`tf.config.optimizer.set_jit` turns on XLA "
                                  "auto-clustering, which has no Metal backend",
                                  "Remove the call (or pass False) on the Mac's GPU.", REFERENCES)
    for node in ctx.index.strings:
        if "--tf_xla_auto_jit" in node.value and "auto_jit=0" not in node.value \
                and "auto_jit=-1" not in node.value:
            yield ctx.finding(RULE, node, "TF_XLA_FLAGS turns on XLA auto-clustering, which has no "
                              "Metal backend", "Drop --tf_xla_auto_jit from TF_XLA_FLAGS on the Mac.",
                              REFERENCES)


RULE = Rule("lint.xla-on-metal", "error", "XLA (jit_compile) on the Metal GPU", _check, _needs, __doc__ or "")
