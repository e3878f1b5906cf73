"""lint.device-config-late: device configuration after TensorFlow initialised its devices.

What it does: finds `tf.config.experimental.set_memory_growth`, `tf.config.set_visible_devices`
and logical (virtual) device configuration made after the script created a tensor, an op, a
variable or a built Keras model, or called `tf.config.list_logical_devices()`, in the same scope.
Listing physical devices first is fine.

Why it is bad: TensorFlow fixes its device configuration when it initialises; later calls raise
"RuntimeError: Visible devices cannot be modified after being initialized" (or "Physical
devices ..."). Scripts wrap them in try/except and print the error, so the setting silently does
nothing: the "CPU-only" timing still runs on the GPU, memory growth is not set.

Example:
    model = tf.keras.Sequential([tf.keras.layers.Dense(10, input_shape=(4,))])
    tf.config.set_visible_devices([], "GPU")   # RuntimeError: the model already initialised TF
Use instead: configure devices first, right after `import tensorflow`.

References: https://github.com/Planet-AI-GmbH/tfaip/pull/10,
https://github.com/hunglc007/tensorflow-yolov4-tflite/issues/171
"""

from __future__ import annotations

from typing import Iterable

from tfdoctor.lint.flow import describe, late_device_config
from tfdoctor.lint.results import Context, Finding, Rule


def _check(ctx: Context) -> Iterable[Finding]:
    for item in late_device_config(ctx):
        first = item.first_init
        where = ctx.where(first.lineno)
        yield ctx.finding(RULE, item.call,
                          f"`{item.function}` comes after TensorFlow initialised its devices "
                          f"(`{describe(first, ctx)}` at {where}): it raises RuntimeError "
                          "and has no effect",
                          f"Move `{item.function}` to the top of the script, right after "
                          "`import tensorflow`, before any tensor, op or model is created.",
                          ("https://github.com/Planet-AI-GmbH/tfaip/pull/10",
                           "https://github.com/hunglc007/tensorflow-yolov4-tflite/issues/171"))


RULE = Rule("lint.device-config-late", "error", "Device configuration after TensorFlow initialised",
            _check, doc=__doc__ or "")
