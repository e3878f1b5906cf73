"""lint.async-timing: timing GPU work without reading a result back.

What it does: finds two timestamps (`time.time()`, `time.perf_counter()`, ...) in the same block
with TensorFlow work between them (a `tf.*` op, a model or layer call, `apply_gradients`) and no
read-back of a result (`.numpy()`, `float(...)`, `model.fit`/`predict`/`train_on_batch`, which
return host values) after the last piece of work and before the second timestamp.

Why it is bad: TensorFlow queues work on the GPU and returns at once; the clock then measures how
fast Python dispatches ops, not how fast the GPU computes. The first call also pays for tracing
and kernel setup. Such timings say the GPU is "100x faster" or "slower than the CPU" at random.

Example:
    start = time.time()
    c = tf.matmul(a, b)
    print(time.time() - start)              # dispatch time only
Use instead:
    c = tf.matmul(a, b); c.numpy()          # warm up once
    start = time.perf_counter()
    c = tf.matmul(a, b)
    c.numpy()                               # wait for the result
    print(time.perf_counter() - start)

References: the probe method in tfdoctor's README ("How the probes measure");
https://www.tensorflow.org/guide/profiler
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from typing import Iterable

from tfdoctor.lint.flow import keras_objects
from tfdoctor.lint.index import done
from tfdoctor.lint.results import Context, Finding, Rule

TIMERS = {"time.time", "time.perf_counter", "time.monotonic", "time.time_ns", "time.perf_counter_ns",
          "time.monotonic_ns", "timeit.default_timer"}
_SYNC_METHODS = {"numpy", "item", "fit", "evaluate", "predict", "train_on_batch", "test_on_batch",
                 "predict_on_batch", "fit_generator", "evaluate_generator", "predict_generator", "tolist"}
_SYNC_FUNCTIONS = {"float", "int", "bool", "numpy.array", "numpy.asarray", "numpy.allclose"}
_ASYNC_METHODS = {"apply_gradients", "minimize", "gradient"}
_NOT_WORK = ("tensorflow.config.", "tensorflow.device", "tensorflow.GradientTape", "tensorflow.print",
             "tensorflow.debugging.", "tensorflow.summary.", "tensorflow.data.")


def _check(ctx: Context) -> Iterable[Finding]:
    index = ctx.index
    objects = keras_objects(ctx)
    functions = _tf_functions(ctx)
    calls = sorted(index.calls, key=done)
    ends = [done(c) for c in calls]
    timer_lines = sorted(c.lineno for c in calls if index.name(c) in TIMERS)
    if len(timer_lines) < 2:
        return
    for block in index.blocks:
        timed = [stmt for stmt in block if _has_timer(stmt, timer_lines)]
        for first, second in zip(timed, timed[1:]):
            last_work, last_sync = None, None
            for call in calls[bisect_right(ends, done(first)):bisect_right(ends, done(second))]:
                kind = _kind(ctx, call, objects, functions)
                if kind == "work":
                    last_work = call
                elif kind == "sync":
                    last_sync = call
            if last_work is not None and (last_sync is None or done(last_sync) < done(last_work)):
                yield ctx.finding(RULE, second, "the timed region ends without reading a result "
                                  f"back: `{_short(last_work)}` at {ctx.where(last_work.lineno)} only "
                                  "queues work on the GPU, so this measures dispatch, not compute",
                                  "Read a result back before the second timestamp (`.numpy()` of "
                                  "the output or `float(tf.reduce_sum(out))`), and time a second call, "
                                  "not the first.", ("https://www.tensorflow.org/guide/profiler",))


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While,
             ast.If, ast.With, ast.AsyncWith, ast.Try)


def _has_timer(stmt: ast.stmt, timer_lines: list[int]) -> bool:
    """A simple statement that reads the clock (compound ones are regions, not boundaries)."""
    if isinstance(stmt, _COMPOUND):
        return False
    i = bisect_left(timer_lines, stmt.lineno)
    return i < len(timer_lines) and timer_lines[i] <= (stmt.end_lineno or stmt.lineno)


def _kind(ctx: Context, call: ast.Call, objects: set[str], functions: set[str]) -> str:
    name = ctx.index.name(call)
    func = call.func
    if name in TIMERS:
        return ""
    if isinstance(func, ast.Attribute) and func.attr in _SYNC_METHODS:
        return "sync"
    if name in _SYNC_FUNCTIONS or (name == "print" and any(isinstance(a, ast.Name) for a in call.args)):
        return "sync"
    if isinstance(func, ast.Attribute) and func.attr in _ASYNC_METHODS:
        return "work"
    if name.startswith("tensorflow.") and not name.startswith(_NOT_WORK):
        return "work"
    if isinstance(func, ast.Name) and (func.id in objects or func.id in functions):
        return "work"
    if isinstance(func, ast.Call) and ctx.index.name(func).startswith("keras.layers."):
        return "work"
    return ""


def _tf_functions(ctx: Context) -> set[str]:
    out = set()
    for node in ctx.index.functions:
        for deco in node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            if ctx.names.dotted(target) == "tensorflow.function":
                out.add(node.name)
    return out


def _short(call: ast.Call) -> str:
    try:
        text = ast.unparse(call)
    except Exception:  # noqa: BLE001 - unparse of odd trees must not break lint
        return "a call"
    return text if len(text) <= 50 else text[:47] + "..."


RULE = Rule("lint.async-timing", "warning", "Timing GPU work without reading a result back", _check,
            doc=__doc__ or "")
