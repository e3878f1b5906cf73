"""Import TensorFlow in the diagnosed interpreter and write what it finds, stage by stage.

Run as `python tfdoctor/inside/runtime/__main__.py RESULT.json [--timeout SECONDS]` (from a
private copy) by tfdoctor.gather.runtime, in its own process group with a hard timeout. The result document is rewritten atomically (write a temporary
file, then rename) after every stage, so when TensorFlow crashes the process (SIGILL, SIGSEGV,
SIGABRT) or hangs, the parent still knows how far it got. TensorFlow's own output goes to stderr,
never into the result. faulthandler writes the Python stack to stderr on a fatal signal, and a
little before the parent's timeout, so a crash or a hang also says where; the file TensorFlow
is loading through load_library.py is written before each load ("loading_plugin"), so a plugin
that crashes, hangs or exit()s in its constructor is named. The document's keys are RuntimeFacts'
field names (tfdoctor.gather.runtime maps them without a key list).

Standard library and tensorflow only; Python 3.8+ (old tensorflow-macos environments are the ones
that need a doctor most).
"""

from __future__ import annotations

import faulthandler
import json
import os
import platform
import sys
import tempfile
import time
import traceback

if not __package__:  # started as a script: the copy's root replaces this folder on the path
    HERE = os.path.dirname(os.path.realpath(__file__))  # (tfdoctor/inside/__init__.py says why)
    sys.path[:] = [HERE.rsplit(os.sep, 3)[0]] + [p for p in sys.path if os.path.realpath(p or ".") != HERE]
from tfdoctor.inside.collector import core  # noqa: E402
from tfdoctor.inside.shared.result_file import exit_at_once, result_lost  # noqa: E402

T0 = time.monotonic()
STATE = {
    "schema": 1,
    "stage": None,
    "complete": False,
    "pid": os.getpid(),
    "python": sys.version.split()[0],
    "stage_s": {},
    "errors": [],
}
RESULT_PATH = ""
TRACEBACK_FRAMES = 12
TEXT_LIMIT = 4000


def write(stage=None):
    """Record reaching `stage` (None: no new stage) and rewrite the result file atomically."""
    if stage is not None:
        STATE["stage"] = stage
        STATE["stage_s"][stage] = round(time.monotonic() - T0, 4)
    tmp = RESULT_PATH + ".tmp"
    try:
        with open(tmp, "w") as handle:
            json.dump(STATE, handle, default=str)
        os.replace(tmp, RESULT_PATH)
    except (FileNotFoundError, NotADirectoryError) as exc:
        result_lost(exc)


def text(value, limit=TEXT_LIMIT):
    value = str(value)
    return value if len(value) <= limit else value[:limit] + "..."


def describe(exc):
    return "%s: %s" % (type(exc).__name__, text(exc))


def record_error(stage, exc):
    STATE["errors"].append({"stage": stage, "error": describe(exc)})


# --- before the import: where TensorFlow will look for plugins ---------------------------------


def find_plugins():
    """The files TensorFlow will load as plugins (one rule in the collector's core, shared with the
    static collector), each as a PluginLibrary: never opened here, so a FIFO cannot block."""
    errors = []
    found = []
    for entry in core.find_plugins(platform.system(), os.environ, errors, only_loaded=True):
        found.append({"path": entry["path"], "source": entry["source"],
                      "exists": entry["kind"] != "missing", "size": entry["size"],
                      "kind": entry["kind"], "file_type": entry["file_type"]})
    for error in errors:
        STATE["errors"].append({"stage": "started", "error": error["error"]})
    return found


def relevant_env():
    """The user's settings (the allowlist in the collector's core), read before we change
    TF_CPP_MIN_LOG_LEVEL: the user's own level comes from TFDOCTOR_USER_TF_CPP_MIN_LOG_LEVEL."""
    keep = core.capture_env(os.environ)
    user_level = os.environ.get("TFDOCTOR_USER_TF_CPP_MIN_LOG_LEVEL")
    if user_level is not None:
        if user_level:
            keep["TF_CPP_MIN_LOG_LEVEL"] = user_level
        else:
            keep.pop("TF_CPP_MIN_LOG_LEVEL", None)
    return keep


def watch_plugin_loads():
    """Record in the result which library TensorFlow is loading ("loading_plugin", rewritten
    before each load) and which it loaded ("loaded_plugins")."""
    STATE["loading_plugin"] = None
    STATE["loaded_plugins"] = []

    def started(path):
        STATE["loading_plugin"] = path
        write()

    def ended(path, ok):
        STATE["loading_plugin"] = None
        if ok and path not in STATE["loaded_plugins"]:
            STATE["loaded_plugins"].append(path)

    core.watch_library_loads(started, ended)


def distribution_version(name):
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8 is not supported, but do not crash on it
        return None
    try:
        return metadata.version(name)
    except Exception:  # noqa: BLE001 - PackageNotFoundError and broken metadata alike
        return None


# --- the import --------------------------------------------------------------------------------


def import_failure(exc):
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # this script, core's watch
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(ours)][-TRACEBACK_FRAMES:]
    chain = []
    inner = exc.__cause__ or exc.__context__
    while inner is not None and len(chain) < 5:
        chain.append(describe(inner))
        inner = inner.__cause__ or inner.__context__
    kind = type(exc)
    module = getattr(kind, "__module__", "builtins")
    qualified = kind.__name__ if module == "builtins" else "%s.%s" % (module, kind.__name__)
    return {
        "type": qualified,
        "message": text(exc),
        "traceback": ["%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames],
        "chain": chain,
    }


def keep_keras_config_untouched():
    """Keras writes ~/.keras/keras.json when it first imports and finds none: point it at a
    temporary directory then (tfdoctor's child gets a private TMPDIR, removed afterwards), so
    diagnosing changes nothing in the user's home. An existing keras.json is read as usual."""
    if "KERAS_HOME" in os.environ:
        return
    if not os.path.exists(os.path.join(os.path.expanduser("~"), ".keras", "keras.json")):
        os.environ["KERAS_HOME"] = tempfile.mkdtemp(prefix="keras-home-")


def import_tensorflow():
    write("importing")
    started = time.monotonic()
    try:
        import tensorflow as tf  # noqa: F401
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit from an import is a failure too
        STATE["import_s"] = round(time.monotonic() - started, 4)
        STATE["import_error"] = import_failure(exc)
        return None
    STATE["import_s"] = round(time.monotonic() - started, 4)
    version = getattr(tf, "__version__", None)
    STATE["tf_version"] = str(version) if version is not None else None
    STATE["tf_file"] = getattr(tf, "__file__", None)
    try:
        STATE["tf_git_version"] = str(tf.version.GIT_VERSION)
    except Exception as exc:  # noqa: BLE001
        record_error("imported", exc)
    try:
        info = tf.sysconfig.get_build_info()
        STATE["build_info"] = dict((str(k), str(v)) for k, v in info.items())
    except Exception as exc:  # noqa: BLE001 - TF < 2.3 has no get_build_info
        record_error("imported", exc)
    write("imported")
    return tf


# --- after the import --------------------------------------------------------------------------


def set_memory_growth(tf, devices, handles):
    """Right after the import, before anything initialises the devices: growth on every GPU."""
    experimental = tf.config.experimental
    for device in devices:
        if device["device_type"].upper() != "GPU":
            continue
        handle = handles[device["name"]]
        try:
            experimental.set_memory_growth(handle, True)
        except Exception as exc:  # noqa: BLE001
            device["memory_growth_error"] = describe(exc)
        try:
            device["memory_growth"] = bool(experimental.get_memory_growth(handle))
        except Exception as exc:  # noqa: BLE001
            if not device.get("memory_growth_error"):
                device["memory_growth_error"] = describe(exc)


def physical_devices(tf):
    devices = []
    for handle in tf.config.list_physical_devices():
        devices.append({"name": str(handle.name), "device_type": str(handle.device_type),
                        "_handle": handle})
    return devices


def device_details(tf, devices, handles):
    for device in devices:
        try:
            details = tf.config.experimental.get_device_details(handles[device["name"]])
            device["details"] = dict((str(k), text(v, 200)) for k, v in details.items())
        except Exception as exc:  # noqa: BLE001 - TF < 2.3, or a plugin that does not say
            device["details_error"] = describe(exc)


def logical_devices(tf):
    return [{"name": str(d.name), "device_type": str(d.device_type)}
            for d in tf.config.list_logical_devices()]


def short_name(device):
    """"/physical_device:GPU:0" -> "GPU:0"."""
    parts = device["name"].split(":")
    return "%s:%s" % (device["device_type"], parts[-1])


def placements(tf, devices):
    """A 2x2 matmul pinned to each physical device; the output's .device says where it ran."""
    results = []
    for device in devices:
        wanted = "/" + short_name(device)
        entry = {"requested": wanted, "device": None, "correct": None, "error": None}
        try:
            with tf.device(wanted):
                a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
                b = tf.constant([[0.0, 1.0], [1.0, 0.0]])
                product = tf.matmul(a, b)
            entry["device"] = str(product.device)
            entry["correct"] = product.numpy().tolist() == [[2.0, 1.0], [4.0, 3.0]]
        except Exception as exc:  # noqa: BLE001
            entry["error"] = describe(exc)
        results.append(entry)
    return results


def memory_info(tf, devices):
    for device in devices:
        try:
            info = tf.config.experimental.get_memory_info(short_name(device))
            device["memory_info"] = {"current": int(info["current"]), "peak": int(info["peak"])}
        except Exception as exc:  # noqa: BLE001 - unsupported on some devices and TF versions
            device["memory_info_error"] = describe(exc)


def keras_facts(tf):
    facts = {
        "version": distribution_version("keras"),
        "tf_keras_version": distribution_version("tf-keras") or distribution_version("tf_keras"),
        "use_legacy_keras": os.environ.get("TF_USE_LEGACY_KERAS"),
        "tf_keras_module": None,
        "tf_keras_resolved_version": None,
        "is_keras3": None,
        "default_optimizer": None,
        "error": None,
    }
    try:
        keras = tf.keras
        module = getattr(keras, "__name__", None)
        facts["tf_keras_module"] = str(module) if module is not None else None
        resolved = getattr(keras, "__version__", None)
        if resolved is None and callable(getattr(keras, "version", None)):
            resolved = keras.version()
        facts["tf_keras_resolved_version"] = str(resolved) if resolved is not None else None
        if resolved:
            facts["is_keras3"] = str(resolved).split(".")[0] == "3"
        if facts["is_keras3"] is False:
            # Keras 2.11-2.15 logs its M1/M2 slowdown warning (and falls back to the legacy
            # optimizer) when the default optimizer is built: do it, so the log shows it.
            optimizer = keras.optimizers.Adam()
            kind = type(optimizer)
            facts["default_optimizer"] = "%s.%s" % (kind.__module__, kind.__name__)
    except Exception as exc:  # noqa: BLE001
        facts["error"] = describe(exc)
    return facts


def stage(name, func, *args):
    try:
        return func(*args)
    except Exception as exc:  # noqa: BLE001 - one stage failing must not hide the others
        record_error(name, exc)
        return None


def dump_stack_before(deadline):
    """Have faulthandler dump the Python stack a little before the parent kills the group at
    `deadline` (seconds since the child started), so that a hang says where it hung."""
    if not deadline:
        return
    faulthandler.cancel_dump_traceback_later()
    remaining = deadline - (time.monotonic() - T0)
    faulthandler.dump_traceback_later(max(0.5, min(remaining - 1.0, remaining * 0.95)),
                                      exit=False, file=sys.stderr)


def run_speed_probes(tf, config, deadline):
    """The speed probes (tfdoctor.inside.probes) run last, so that a crash or hang inside them
    loses none of the facts above; each partial result is written as it comes."""
    from tfdoctor.inside.probes.run import run_probes

    def on_result(partial):
        STATE["probes"] = partial
        write("probes")

    write("probes")
    dump_stack_before(deadline)  # the parent allows the probes more time than the stages above
    STATE["probes"] = stage("probes", run_probes, tf, config,
                            lambda message: sys.stderr.write("tfdoctor-probe: %s\n" % message),
                            on_result)


def main(argv):
    global RESULT_PATH
    RESULT_PATH = argv[1]
    timeout = None
    if "--timeout" in argv:
        timeout = float(argv[argv.index("--timeout") + 1])
    probes_config = None
    if "--probes" in argv:
        probes_config = json.loads(argv[argv.index("--probes") + 1])
    faulthandler.enable(file=sys.stderr, all_threads=False)
    dump_stack_before(timeout)
    STATE["env"] = relevant_env()
    keep_keras_config_untouched()
    STATE["plugins"] = stage("started", find_plugins) or []
    stage("started", watch_plugin_loads)
    write("started")
    tf = import_tensorflow()
    if tf is not None:
        devices = stage("memory-growth", physical_devices, tf) or []
        handles = dict((d["name"], d.get("_handle")) for d in devices)
        stage("memory-growth", set_memory_growth, tf, devices, handles)
        for device in devices:
            device.pop("_handle", None)
        STATE["physical_devices"] = devices
        write("memory-growth")
        stage("devices", device_details, tf, devices, handles)
        STATE["logical_devices"] = stage("devices", logical_devices, tf) or []
        write("devices")
        STATE["placements"] = stage("placement", placements, tf, devices) or []
        write("placement")
        stage("memory-info", memory_info, tf, devices)
        write("memory-info")
        STATE["keras"] = stage("keras", keras_facts, tf)
        write("keras")
        if probes_config is not None:
            hard = float(argv[argv.index("--hard-timeout") + 1]) if "--hard-timeout" in argv else None
            run_speed_probes(tf, probes_config, hard)
    faulthandler.cancel_dump_traceback_later()
    STATE["complete"] = True
    write("done")
    exit_at_once()


if __name__ == "__main__":
    main(sys.argv)
