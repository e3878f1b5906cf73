"""The speed probes standalone, for `tfdoctor probe` without the runtime facts, for tests and
for benchmarks (tfdoctor.gather.probes starts it):

    python tfdoctor/inside/probes/__main__.py RESULT_JSON [CONFIG_JSON_OR_PATH] [--timeout SECONDS]

imports TensorFlow itself, sets memory growth, runs run.run_probes, and rewrites RESULT_JSON
atomically after every measurement, so a crash or a hang still leaves what was measured and what
was running.

Runs inside the diagnosed interpreter: standard library and tensorflow only, Python 3.8+.
"""

from __future__ import annotations

import json
import os
import sys
import time

if not __package__:  # started as a script: the copy's root replaces this folder on the path
    HERE = os.path.dirname(os.path.realpath(__file__))  # (tfdoctor/inside/__init__.py says why)
    sys.path[:] = [HERE.rsplit(os.sep, 3)[0]] + [p for p in sys.path if os.path.realpath(p or ".") != HERE]
from tfdoctor.inside.probes.run import run_probes  # noqa: E402
from tfdoctor.inside.shared.probe_config import SCHEMA  # noqa: E402
from tfdoctor.inside.shared.probe_record import describe, sanitize  # noqa: E402
from tfdoctor.inside.shared.result_file import exit_at_once  # noqa: E402


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
        exit_at_once()
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
    exit_at_once()


if __name__ == "__main__":
    main(sys.argv)
