"""Examine the user's own model inside the diagnosed interpreter: what falls back to the CPU, where
the GPU and the CPU disagree, how fast each runs it, and whether memory grows step after step.

    python tfdoctor/inside/model/__main__.py RESULT.json CONFIG_JSON

CONFIG_JSON: {"model": PATH or "module:function" or null, "workload": preset name or null,
"batch": 8, "budget_s": 30, "train_steps": 3, "memory_steps": 12, "sweep": [batches] or null,
"compare": true, "timing": true, "memory": true, "sys_path": [dirs], "trust_model": false,
"memory_limit": bytes or null, "inflate_limit": bytes or null}. Run by tfdoctor.gather.user_model
through tfdoctor.child.process.run_child (own process group, hard timeout). The result document is
rewritten atomically after every stage, so a crash or a hang still leaves what was found.

Nothing is written next to the model: Keras reads `.keras`/`.h5`/SavedModel files only, and the
child's temporary files go to the private TMPDIR run_child gives it. Every bad input (no such
path, not a model, a corrupt file, custom objects that cannot be imported, a function that raises
or returns something else, a model too big for memory) is an entry in "errors", never a traceback.

This file runs the stages in order; its siblings do the work, one idea each: state (the result
document and how failures are recorded), load, inputs (synthetic inputs and labels), describe
(what the model is, whether it fits, its settings), calls (the traced inference and training
step), ops (ops, kernels, placement), compare (GPU against CPU), measure (speed and memory). The
presets are tfdoctor/inside/shared/model_presets.py; tfdoctor runs all of it from a private copy
(tfdoctor/inside/__init__.py).

Standard library and TensorFlow only; Python 3.8+ (old tensorflow-macos environments too).
"""

from __future__ import annotations

import json
import os
import sys
import time

if not __package__:  # started as a script: the copy's root replaces this folder on the path
    HERE = os.path.dirname(os.path.realpath(__file__))  # (tfdoctor/inside/__init__.py says why)
    sys.path[:] = [HERE.rsplit(os.sep, 3)[0]] + [p for p in sys.path if os.path.realpath(p or ".") != HERE]
from tfdoctor.inside.model import state  # noqa: E402
from tfdoctor.inside.model.calls import Calls  # noqa: E402
from tfdoctor.inside.model.compare import agreement, loss_comparison  # noqa: E402
from tfdoctor.inside.model.describe import describe_model, memory_check, settings  # noqa: E402
from tfdoctor.inside.model.inputs import synthetic_batch  # noqa: E402
from tfdoctor.inside.model.load import load  # noqa: E402
from tfdoctor.inside.model.measure import measure_speed, memory_series, sweep  # noqa: E402
from tfdoctor.inside.model.ops import LayerNames, graph_ops, placement  # noqa: E402
from tfdoctor.inside.model.state import (  # noqa: E402
    STATE,
    Budget,
    describe,
    doing,
    error,
    is_oom,
    stage_error,
    write,
)
from tfdoctor.inside.shared.result_file import exit_at_once  # noqa: E402

DEFAULTS = {"model": None, "workload": None, "batch": 8, "budget_s": 30.0, "train_steps": 3,
            "memory_steps": 12, "sweep": None, "compare": True, "timing": True, "memory": True,
            "sys_path": [], "repeats": 5, "repeat_s": 0.05, "seed": 1234, "trust_model": False,
            "memory_limit": None, "inflate_limit": None}


def limit_memory(limit):
    """The child's data size (heap and private mappings) capped at `limit` bytes, so a model
    that asks for more (an HDF5 dataset declaring gigabytes, an archive member inflating to
    them) ends in MemoryError, a finding, not in swapping or the OOM killer. RLIMIT_DATA, not
    RLIMIT_AS: TensorFlow reserves address space it never uses. Linux only: macOS does not
    enforce it for mmap'd memory. Recorded in the result as "memory_limit"."""
    if not limit:
        return
    try:
        import resource
        which = resource.RLIMIT_DATA
        if not sys.platform.startswith("linux"):
            raise OSError("not enforced on %s" % sys.platform)
        soft, hard = resource.getrlimit(which)
        value = int(limit) if hard == resource.RLIM_INFINITY else min(int(limit), hard)
        resource.setrlimit(which, (value, value))
        STATE["memory_limit"] = {"resource": "RLIMIT_DATA", "bytes": value}
    except (ImportError, AttributeError, OSError, ValueError) as exc:
        STATE["memory_limit"] = {"resource": None, "bytes": None, "why": describe(exc)}


def run(tf, cfg):
    budget = Budget(cfg["budget_s"])
    devices = ["/CPU:0"]
    gpus = [d.name for d in tf.config.list_logical_devices("GPU")]
    STATE["gpus"] = gpus
    if gpus:
        devices.append("/GPU:0")
    doing("load")
    model, kind = load(tf, cfg)
    STATE["source"] = {"kind": kind, "spec": cfg.get("workload") or cfg.get("model"),
                       "workload": bool(cfg.get("workload"))}
    write("loaded")
    if model is None:
        return
    STATE["model"] = describe_model(tf, model)
    fits = memory_check(STATE["model"])
    STATE["memory_estimate"] = fits
    if fits.get("too_big"):
        error("load", "too-big", fits["message"])
        return
    try:
        bundle = synthetic_batch(tf, model, cfg["batch"], STATE["assumptions"], cfg["seed"])
    except Exception as exc:  # noqa: BLE001
        error("inputs", "too-big" if is_oom(exc) else "inputs-failed", describe(exc))
        return
    STATE["inputs"] = bundle["described"]
    STATE["labels"] = bundle["label_info"]
    write("inputs")
    STATE["settings"] = settings(tf, model, gpus)
    write("settings")
    calls = Calls(tf, model, bundle)
    names = LayerNames(model)
    doing("ops")
    try:
        STATE["ops"] = graph_ops(tf, model, bundle, calls)
    except Exception as exc:  # noqa: BLE001
        error("ops", "too-big" if is_oom(exc) else "trace-failed", describe(exc))
    write("ops")
    memory = cfg["memory"] and bundle.get("trainable")
    # Each stage stands alone: a stage that fails (an op without a kernel on the GPU, memory
    # exhausted) is recorded and the next one still runs.
    stages = []
    if gpus:
        stages.append(("placement", lambda: placement(tf, model, calls, describe)))
        if cfg["compare"]:
            stages.append(("agreement", lambda: agreement(tf, model, bundle, calls, describe)))
    if cfg["timing"]:
        # Timing gets its share of what is left (at least MIN_REPEATS each while the budget
        # lasts); the memory steps the rest.
        stages.append(("speed", lambda: measure_speed(tf, calls, devices, budget, cfg,
                                                      0.6 if memory else 1.0)))
        if cfg.get("sweep"):
            stages.append(("sweep", lambda: sweep(tf, model, cfg, devices, budget, calls)))
    if memory:
        stages.append(("memory", lambda: memory_series(tf, calls, devices[-1],
                                                        cfg["memory_steps"], budget, describe)))
    if gpus and cfg["compare"]:
        stages.append(("losses", lambda: loss_comparison(
            tf, model, bundle, cfg["train_steps"], calls, budget, STATE["agreement"],
            describe) if STATE.get("agreement") else None))
    for name, func in stages:
        doing(name)
        try:
            value = func()
            if name != "losses":
                STATE[name] = value
        except Exception as exc:  # noqa: BLE001
            stage_error(name, exc, names)
        write(name)
    STATE["first_call_s"] = dict(("%s %s" % k, round(v, 4)) for k, v in calls.first.items())


def keep_keras_config_untouched():
    """Keras writes ~/.keras/keras.json when it first imports and finds none: point it at a
    directory in the child's private TMPDIR then (as the runtime child does), so examining a
    model changes nothing in the user's home."""
    if "KERAS_HOME" in os.environ:
        return
    if not os.path.exists(os.path.join(os.path.expanduser("~"), ".keras", "keras.json")):
        import tempfile
        os.environ["KERAS_HOME"] = tempfile.mkdtemp(prefix="keras-home-")


def main(argv):
    state.start(argv[1])
    cfg = dict(DEFAULTS)
    try:
        cfg.update(json.loads(argv[2]) if len(argv) > 2 else {})
    except ValueError as exc:
        error("config", "bad-config", describe(exc))
    STATE["config"] = cfg
    limit_memory(cfg.get("memory_limit"))
    keep_keras_config_untouched()
    write("started")
    try:
        import tensorflow as tf
    except BaseException as exc:  # noqa: BLE001 - SystemExit from an import is a failure too
        error("import", "import-failed", describe(exc))
        tf = None
    if tf is not None:
        STATE["tf_version"] = str(getattr(tf, "__version__", ""))
        for gpu in tf.config.list_physical_devices("GPU"):
            try:
                tf.config.experimental.set_memory_growth(gpu, True)
            except Exception:  # noqa: BLE001 - already initialised: keep going
                pass
        write("imported")
        try:
            run(tf, cfg)
        except Exception as exc:  # noqa: BLE001 - last resort: a finding, not a traceback
            error(STATE["stage"] or "run", "too-big" if is_oom(exc) else "internal",
                  describe(exc))
    STATE["elapsed_s"] = round(time.monotonic() - state.T0, 3)
    STATE["complete"] = True
    write("done")
    exit_at_once()


if __name__ == "__main__":
    main(sys.argv)
