"""Speed probes that show whether TensorFlow really accelerates on the GPU: matmul, conv, and a
Keras training step, each timed on the CPU and on every GPU, verified for placement and for
numeric agreement with the CPU.

Runs inside the diagnosed interpreter: standard library and tensorflow only, Python 3.8+.

    run_probes(tf, config, progress, on_result=None) -> dict

is called by the runtime child after it imported TensorFlow and set memory growth; the result is
plain JSON-able data (tfdoctor.facts.probes.ProbeFacts reads it). Standalone, for tests and for
running the probes without the runtime child:

    python workloads.py RESULT_JSON [CONFIG_JSON_OR_PATH] [--timeout SECONDS]

imports TensorFlow itself, sets memory growth, and rewrites RESULT_JSON atomically after every
measurement, so a crash or a hang still leaves what was measured and what was running.

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

This module is the entry point; the code lives in sibling modules: probe_config.py (workloads, sizes,
presets, DEFAULTS, tolerances), probe_kinds.py (Matmul, Conv, Train), probe_timing.py (the
measurement loop and the budget), probe_agreement.py (numeric agreement with the CPU),
probe_record.py (the result's plain data), prober.py (the run: plan, retry, one measurement),
preset_models.py (the model presets of `probe --workload`) and probe_stats.py (the decision).
"""

from __future__ import annotations

import json
import os
import sys
import time

try:  # imported as tfdoctor.target.workloads
    from .probe_config import SCHEMA, resolve_config
    from .probe_record import describe, sanitize, text
    from .prober import Prober
except ImportError:  # run as a script, or imported as a sibling (the folder on sys.path)
    from probe_config import SCHEMA, resolve_config  # type: ignore[no-redef]
    from probe_record import describe, sanitize, text  # type: ignore[no-redef]
    from prober import Prober  # type: ignore[no-redef]



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


# --- standalone --------------------------------------------------------------------------------


def _write(path, document):
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(sanitize(document), handle, default=str, allow_nan=False)
    os.replace(tmp, path)


def _load_config(arg):
    if arg is None:
        return {}
    if arg.lstrip().startswith("{"):
        return json.loads(arg)
    with open(arg) as handle:
        return json.load(handle)


def main(argv):
    import faulthandler

    args = list(argv[1:])
    timeout = None
    if "--timeout" in args:
        at = args.index("--timeout")
        timeout = float(args[at + 1])
        del args[at:at + 2]
    path = args[0]
    config = _load_config(args[1] if len(args) > 1 else None)
    faulthandler.enable(file=sys.stderr, all_threads=False)
    if timeout:
        faulthandler.dump_traceback_later(max(0.5, min(timeout - 1.0, timeout * 0.95)),
                                          exit=False, file=sys.stderr)
    state = {"schema": SCHEMA, "stage": "importing", "complete": False, "import_s": None,
             "import_error": None, "probes": None}
    _write(path, state)
    started = time.perf_counter()
    try:
        import tensorflow as tf
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        state["import_s"] = round(time.perf_counter() - started, 4)
        state["import_error"] = describe(exc)
        state["complete"] = True
        state["stage"] = "done"
        _write(path, state)
        sys.stderr.flush()
        os._exit(0)
    state["import_s"] = round(time.perf_counter() - started, 4)
    for gpu in tf.config.list_physical_devices("GPU"):
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except Exception:  # noqa: BLE001 - reported by the runtime child, not here
            pass
    state["stage"] = "probes"

    def progress(message):
        sys.stderr.write("tfdoctor-probe: %s\n" % message)
        sys.stderr.flush()

    def on_result(partial):
        state["probes"] = partial
        _write(path, state)

    state["probes"] = run_probes(tf, config, progress, on_result)
    state["complete"] = True
    state["stage"] = "done"
    _write(path, state)
    faulthandler.cancel_dump_traceback_later()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # TensorFlow and plugins may crash or hang at interpreter teardown


if __name__ == "__main__":
    main(sys.argv)
