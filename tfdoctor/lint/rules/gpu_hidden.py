"""lint.gpu-hidden: `tf.config.set_visible_devices([], 'GPU')` left in a script.

What it does: finds calls that make no GPU visible (an empty list for device type GPU).

Why it is bad: every op then runs on the CPU and the Metal GPU is never used: the script trains
slowly and `tfdoctor` measurements of it say nothing about the GPU. Articles use it to time a CPU
baseline and readers copy it into their training scripts.

Example:
    tf.config.set_visible_devices([], "GPU")      # the whole run is CPU-only
Use instead: remove it, keep it behind a command-line flag for a CPU baseline, or pin one piece
of work with `with tf.device("/CPU:0"):`.

A call made after TensorFlow initialised its devices is reported as lint.device-config-late
instead: it raises RuntimeError and hides nothing.

References: https://www.tensorflow.org/api_docs/python/tf/config/set_visible_devices
"""

from __future__ import annotations

from typing import Iterable

from tfdoctor.lint.flow import late_device_config
from tfdoctor.lint.results import Context, Finding, Rule
from tfdoctor.lint.names import keyword, literal

_CALLS = ("tensorflow.config.set_visible_devices", "tensorflow.config.experimental.set_visible_devices")


def _check(ctx: Context) -> Iterable[Finding]:
    late = {id(item.call) for item in late_device_config(ctx)}
    for node in ctx.index.calls:
        if ctx.index.name(node) not in _CALLS or id(node) in late:
            continue
        devices = node.args[0] if node.args else keyword(node, "devices")
        kind = node.args[1] if len(node.args) > 1 else keyword(node, "device_type")
        if literal(devices) in ([], ()) and str(literal(kind)).upper() == "GPU":
            yield ctx.finding(RULE, node, "hides every GPU: all of this script runs on the CPU and "
                              "the Metal GPU is never used",
                              "Remove it, or keep it behind a flag for a CPU baseline; to run one "
                              "piece on the CPU use `with tf.device('/CPU:0'):`.",
                              ("https://www.tensorflow.org/api_docs/python/tf/config/set_visible_devices",))


RULE = Rule("lint.gpu-hidden", "warning", "GPU hidden with set_visible_devices([], 'GPU')", _check,
            doc=__doc__ or "")
