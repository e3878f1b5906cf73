"""Speed probes that show whether TensorFlow really accelerates on the GPU: matmul, conv, and a
Keras training step, each timed on the CPU and on every GPU, verified for placement and for
numeric agreement with the CPU.

Runs inside the diagnosed interpreter: standard library and tensorflow only, Python 3.8+.

    run_probes(tf, config, progress, on_result=None) -> dict

is called by the runtime child after it imported TensorFlow and set memory growth; the result is
plain JSON-able data (tfdoctor.facts.probes.ProbeFacts reads it). Standalone, the probes run
from __main__.py beside this file.

How a measurement is taken (see GUIDE section 3; the forum recipe of timing one tf.matmul with
time.time() measures asynchronous dispatch and the first call's compilation, not the GPU):

* inputs are made once on the CPU and copied to each device before timing (tf.identity under
  tf.device), so every device computes on the same numbers and on its own memory;
* warm-up: `warmup` (>= 2) calls, each read back; the first call (tracing, kernel compilation) is
  reported on its own;
* a repeat is `number` calls back to back followed by one read-back to the host (`.numpy()` of a
  small reduction of the last output; for the training step, of the loss and of a weight read
  after the update). A device executes its queue in order, so the read-back returns only when all
  calls have run. tf.test.experimental.sync_devices() is never used: on a PluggableDevice such as
  Metal it is likely a no-op;
* `number` is found by autoranging (as timeit does) so that a repeat lasts at least `repeat_s`,
  far above the timer's resolution and the read-back's cost; then `repeats` repeats are taken
  (the last autorange trial, `number` calls lasting the target, is the first) and every raw
  repeat time is kept;
* placement: the output's `.device` (for the training step: the outputs of the Conv2D and Dense
  layers in an eager forward pass; outputs of a tf.function report the function's device, not
  where its ops ran);
* agreement with the CPU: relative L2 error ||gpu - cpu|| / ||cpu|| of the output (train: of the
  logits and of the gradients of one step from identical weights, and of a Dense with bias and
  relu in eager and in graph mode, where Metal's fused _FusedMatMul is wrong: Train.dense_relu),
  against TOLERANCE (the gradients: against gradient_tolerance, as they pass through kinks);
* a total time budget: no new work starts after `budget_s`, and each measurement gets a share of
  what is left; what did not fit is reported as skipped.

When the GPU is not clearly faster at the default size, the workload is measured once more at a
larger size (RETRY_FACTOR) before the GPU is called slower; `sweep` measures a curve of sizes.

The code: prober.py (the run: plan, retry, one measurement), timing.py (the measurement loop
and the budget) and agreement.py (numeric agreement with the CPU) here; in tfdoctor/inside/shared/,
which tfdoctor itself imports too, workloads.py (the workloads: Matmul, Conv, Train, each with
its sizes and tolerance), probe_config.py (presets, DEFAULTS, tolerances), probe_record.py (the
result's plain data) and probe_stats.py (the decision).
"""

from __future__ import annotations

from tfdoctor.inside.probes.prober import Prober
from tfdoctor.inside.shared.probe_config import SCHEMA, resolve_config
from tfdoctor.inside.shared.probe_record import describe, sanitize, text


def run_probes(tf, config, progress, on_result=None):
    """Run the probes in `config` (see DEFAULTS and PRESETS) with TensorFlow module `tf`, which
    the caller has imported (and on whose GPUs it has set memory growth). `progress(message)`
    gets one line per step; `on_result(partial)`, when given, gets the result so far after each
    step (to be written out, so a crash or a hang leaves it behind). Returns the result as plain
    JSON-able data; never raises for a failing workload (the run records the error)."""
    try:
        cfg = resolve_config(config)
    except (TypeError, ValueError) as exc:
        return {"schema": SCHEMA, "outcome": "error", "message": "bad probe configuration: %s" % exc,
                "complete": True, "config": None, "runs": [], "messages": [],
                "error": describe(exc)}
    prober = Prober(tf, cfg, progress, on_result)
    try:
        return sanitize(prober.run())
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. listing devices failed
        prober.result["outcome"] = "error"
        prober.result["error"] = describe(exc)
        prober.result["message"] = "the probes stopped: %s" % text(describe(exc), 300)
        prober.result["complete"] = True
        prober.publish()
        return sanitize(prober.result)
