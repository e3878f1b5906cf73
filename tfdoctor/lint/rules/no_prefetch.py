"""lint.no-prefetch: a tf.data pipeline feeding training without `prefetch`.

What it does: follows datasets built with `tf.data` (`from_tensor_slices`, `from_generator`,
`TFRecordDataset`, ...) through reassignments and method chains, and reports the ones given to
`fit`/`evaluate`/`predict` or iterated in a `for` loop when no step of the chain is `prefetch`.

Why it is bad: without `prefetch` the input pipeline and the training step take turns instead of
overlapping: the GPU waits while the next batch is made (a Python generator makes this worst).
On a Mac the CPU prepares data for the GPU over the same memory, so the overlap is the whole win.

Example:
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64)
    model.fit(ds, epochs=5)
Use instead:
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64).prefetch(tf.data.AUTOTUNE)

References: https://www.tensorflow.org/guide/data_performance#prefetching
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Iterable

from tfdoctor.lint.index import done
from tfdoctor.lint.results import Context, Finding, Rule
from tfdoctor.lint.names import assigned_names, keyword, statements_in_order

CONSTRUCTORS = {"tensorflow.data.Dataset." + n for n in (
    "from_tensor_slices", "from_tensors", "from_generator", "range", "zip", "list_files",
    "load", "sample_from_datasets", "choose_from_datasets")} | {
    "tensorflow.data.TFRecordDataset", "tensorflow.data.TextLineDataset",
    "tensorflow.data.FixedLengthRecordDataset"}
_CONSUMERS = {"fit", "evaluate", "predict"}
REFERENCES = ("https://www.tensorflow.org/guide/data_performance#prefetching",)


@dataclass
class _Pipeline:
    prefetched: bool
    built: ast.AST


def _chain(ctx: Context, expr: ast.AST, known: dict[str, _Pipeline]) -> _Pipeline | None:
    """The pipeline an expression evaluates to, if it is one: a constructor or a known name,
    followed by method calls."""
    methods: list[str] = []
    node = expr
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if ctx.index.name(node) in CONSTRUCTORS:
            return _Pipeline("prefetch" in methods, expr)
        methods.append(node.func.attr)
        node = node.func.value
    if isinstance(node, ast.Call) and ctx.index.name(node) in CONSTRUCTORS:
        return _Pipeline("prefetch" in methods, expr)
    if isinstance(node, ast.Name) and node.id in known:
        base = known[node.id]
        return _Pipeline(base.prefetched or "prefetch" in methods, base.built)
    return None


def _check(ctx: Context) -> Iterable[Finding]:
    index = ctx.index
    if not any(index.name(c) in CONSTRUCTORS for c in index.calls):
        return
    calls = sorted(index.calls, key=lambda c: c.lineno)
    lines = [c.lineno for c in calls]
    consumers: dict[int, list[ast.Call]] = {}
    for call in index.calls:
        if isinstance(call.func, ast.Attribute) and call.func.attr in _CONSUMERS:
            consumers.setdefault(id(index.call_scope[id(call)]), []).append(call)
    reported: set[int] = set()
    for scope, body in [(ctx.tree, ctx.tree.body)] + [(f, f.body) for f in index.functions]:
        events: list[tuple[tuple[int, int], ast.AST]] = []
        for stmt in statements_in_order(body):
            if isinstance(stmt, ast.Assign):
                events.append((done(stmt), stmt))
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                events.append(((stmt.lineno, stmt.col_offset), stmt))
        events.extend((done(c), c) for c in consumers.get(id(scope), []))
        known: dict[str, _Pipeline] = {}
        for _position, event in sorted(events, key=lambda item: item[0]):
            if isinstance(event, ast.Assign):
                pipeline = _chain(ctx, event.value, known)
                for name in assigned_names(event):
                    if pipeline is not None:
                        known[name] = pipeline
                    else:
                        known.pop(name, None)
                continue
            data: ast.AST | None
            if isinstance(event, (ast.For, ast.AsyncFor)):
                if not _trains(event, calls, lines):
                    continue
                data = event.iter
                if isinstance(data, ast.Call) and isinstance(data.func, ast.Name) \
                        and data.func.id == "enumerate" and data.args:
                    data = data.args[0]
            else:
                assert isinstance(event, ast.Call)
                data = event.args[0] if event.args else keyword(event, "x")
            pipeline = _chain(ctx, data, known) if data is not None else None
            if pipeline is None or pipeline.prefetched or id(pipeline.built) in reported:
                continue
            reported.add(id(pipeline.built))
            line = getattr(pipeline.built, "lineno", event.lineno)  # type: ignore[attr-defined]
            yield ctx.finding(RULE, event, f"the tf.data pipeline built at {ctx.where(line)} is "
                              "consumed without `prefetch`: input preparation and training "
                              "take turns instead of overlapping",
                              "End the pipeline with `.prefetch(tf.data.AUTOTUNE)` (after "
                              "`batch`).", REFERENCES)


_STEPS = {"train_on_batch", "apply_gradients", "minimize", "gradient", "fit", "train_step"}


def _trains(loop: ast.AST, calls: list[ast.Call], lines: list[int]) -> bool:
    """A loop that trains (not one that looks at a few samples): it takes optimizer steps."""
    low = bisect_left(lines, loop.lineno)  # type: ignore[attr-defined]
    high = bisect_right(lines, loop.end_lineno or loop.lineno)  # type: ignore[attr-defined]
    for node in calls[low:high]:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in _STEPS or "train" in name.lower():
            return True
    return False


RULE = Rule("lint.no-prefetch", "warning", "tf.data pipeline without prefetch", _check, doc=__doc__ or "")
