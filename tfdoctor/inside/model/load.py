"""Loading the user's model: a `.keras` or `.h5` file, a SavedModel directory, a `module:function`
that returns a model, or one of the presets (tfdoctor/inside/shared/model_presets.py). Every bad input (no such path, not a
model, a corrupt or truncated file, custom objects that cannot be imported, a function that raises
or returns something else, a model too big for memory) becomes an entry in "errors".

Nothing is written next to the model: Keras only reads it. Standard library and TensorFlow only;
Python 3.8+.

Nothing from a model file runs unless the user said they trust it (cfg "trust_model", from
`--trust-model`): Keras loads in its safe mode where it has one (Keras 3, tf-keras 2.13+), a
`.keras` or `.h5` whose model config holds a Lambda layer or a serialised Python lambda is refused
before Keras sees it (older Keras runs their bytecode), and so is a SavedModel directory (its graph
runs whatever ops it holds, WriteFile included, when loaded and called). A `.keras` archive whose
members declare more bytes than the bound (cfg "inflate_limit"), or that inflate more than
ARCHIVE_RATIO times, is refused before anything is inflated.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys

from tfdoctor.inside.model.state import STATE, describe, error, is_oom
from tfdoctor.inside.shared.model_presets import model_preset

ARCHIVE_LIMIT = 2 << 30
"""Bytes the members of a `.keras` archive may declare uncompressed in all, when the parent gave
no bound (it gives the memory available, at least this)."""
ARCHIVE_RATIO = 100
"""Inflating more than this many times is refused (a zip bomb); Keras stores its members."""
ARCHIVE_RATIO_FLOOR = 256 << 20
"""Archives declaring less than this are not judged by their ratio (a small JSON config may
compress very well)."""
CONFIG_LIMIT = 64 << 20
"""Bytes of a model config read to look for code in it."""
UNSAFE_MARKERS = ("arbitrary code", "safe_mode", "unsafe_deserialization")
"""Keras's safe mode refusing to deserialise code."""
HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"
ZIP_MAGIC = b"PK\x03\x04"
CUSTOM_MARKERS = ("Unknown layer", "Could not locate class", "custom_objects", "Unknown loss",
                  "Unknown optimizer", "Unknown activation", "Could not deserialize",
                  "Unknown metric", "not a known")
CORRUPT_MARKERS = ("truncated", "file signature not found", "Unable to open", "Unable to synchronously",
                   "BadZipFile", "not a zip file", "Bad magic number", "File is not a zip",
                   "CRC", "bad header", "Error -3", "Unable to read")


def custom_names(text):
    """Registered names ("package>Class") in a Keras deserialisation error: the custom objects."""
    found = []
    for marker in ("'registered_name': '", '"registered_name": "'):
        start = 0
        while True:
            at = text.find(marker, start)
            if at < 0:
                break
            end = text.find(marker[-1], at + len(marker))
            name = text[at + len(marker):end]
            if ">" in name and name not in found:
                found.append(name)
            start = end + 1
    return found


def classify_load_error(exc):
    """The kind of a load failure, from the exception (custom objects, corrupt file, memory)."""
    if is_oom(exc):
        return "too-big"
    text = "%s %s" % (type(exc).__name__, exc)
    if any(m in text for m in UNSAFE_MARKERS):
        return "untrusted-code"
    if any(m in text for m in CUSTOM_MARKERS):
        return "custom-objects"
    if any(m in text for m in CORRUPT_MARKERS) or isinstance(exc, (EOFError, OSError)):
        return "corrupt"
    return "load-failed"


def file_kind(path):
    """"keras" (zip), "h5" (HDF5), "savedmodel" (directory), or None (not a model file)."""
    if os.path.isdir(path):
        if os.path.exists(os.path.join(path, "saved_model.pb")) or \
                os.path.exists(os.path.join(path, "saved_model.pbtxt")):
            return "savedmodel"
        return None
    with open(path, "rb") as handle:
        head = handle.read(8)
    if head.startswith(ZIP_MAGIC):
        return "keras"
    if head == HDF5_MAGIC:
        return "h5"
    return None


def archive_problem(archive, limit):
    """Why a `.keras` archive must not be inflated (judged by the sizes its members declare), or
    None: more bytes in all than `limit`, or a zip bomb's ratio."""
    infos = archive.infolist()
    total = sum(max(0, int(i.file_size)) for i in infos)
    packed = sum(max(0, int(i.compress_size)) for i in infos)
    if total > limit:
        return ("its %d members declare %d bytes uncompressed, more than the %d bytes allowed "
                "(the memory available)" % (len(infos), total, limit))
    if total > ARCHIVE_RATIO_FLOOR and total > ARCHIVE_RATIO * max(packed, 1):
        return ("its members declare %d bytes uncompressed from %d compressed (%.0f times; "
                "more than %d times is a zip bomb, Keras stores its members)"
                % (total, packed, total / float(max(packed, 1)), ARCHIVE_RATIO))
    return None


def code_in_config(config):
    """Lambda layers and serialised Python lambdas in a Keras model config (JSON): the code that
    deserialising it would run, by name."""
    found = []
    stack = [config]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            kind = node.get("class_name")
            if kind in ("Lambda", "__lambda__"):
                inner = node.get("config") if isinstance(node.get("config"), dict) else {}
                name = ("Lambda layer %s" % (inner.get("name") or node.get("name") or "?")
                        if kind == "Lambda" else "a serialised Python lambda")
                if name not in found:
                    found.append(name)
                if kind == "Lambda":  # its function is the lambda already named
                    continue
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def model_config(path, kind):
    """The model config a `.keras` archive (config.json) or an `.h5` file (its model_config
    attribute) holds, or None when it cannot be read (Keras then fails on it as it would)."""
    try:
        if kind == "keras":
            import zipfile
            with zipfile.ZipFile(path) as archive:
                info = archive.getinfo("config.json")
                if info.file_size > CONFIG_LIMIT:
                    return None
                with archive.open(info) as handle:
                    text = handle.read(CONFIG_LIMIT)
        else:
            import h5py
            with h5py.File(path, "r") as handle:
                text = handle.attrs.get("model_config")
        if text is None:
            return None
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return json.loads(str(text))
    except Exception:  # noqa: BLE001 - unreadable here: Keras says why when it loads it
        return None


def untrusted(path, kind):
    """Why loading `path` would run code from it (None when it would not, as far as can be
    seen before loading)."""
    if kind == "savedmodel":
        return ("%s is a SavedModel directory: its graph runs the TensorFlow ops it holds "
                "(WriteFile, ReadFile, PyFunc among them) when it is loaded and called" % path)
    found = code_in_config(model_config(path, kind))
    if found:
        return ("%s holds Python code that loading it would run (%s)" % (path, ", ".join(found[:5])))
    return None


def load_options(keras, trust):
    """Keras's safe mode where load_model has one (Keras 3, tf-keras 2.13+): off only when
    trusted."""
    try:
        params = inspect.signature(keras.models.load_model).parameters
    except (TypeError, ValueError):
        params = {}
    return {"safe_mode": not trust} if "safe_mode" in params else {}


def load_from_path(tf, path, trust=False, inflate_limit=None):
    """(model, kind) or (None, None) with an error recorded. SavedModels that Keras cannot load
    as a model (Keras 3 reads only .keras/.h5) are wrapped for inference only. Without `trust`
    nothing that would run code from the file is loaded (module docstring)."""
    if not os.path.exists(path):
        error("load", "not-found", "no such file or directory: %s" % path)
        return None, None
    try:
        kind = file_kind(path)
    except OSError as exc:
        error("load", "unreadable", describe(exc))
        return None, None
    if kind is None:
        error("load", "not-a-model", "%s is not a Keras model file (.keras zip, HDF5 .h5) or a "
              "SavedModel directory (no saved_model.pb)" % path)
        return None, None
    if kind == "keras":
        import zipfile
        try:
            with zipfile.ZipFile(path) as archive:
                problem = archive_problem(archive, inflate_limit or ARCHIVE_LIMIT)
                if problem is not None:
                    error("load", "archive-too-big", "%s was not inflated: %s" % (path, problem))
                    return None, None
                damaged = archive.testzip()
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            error("load", "corrupt", "%s is a damaged or truncated .keras archive: %s"
                  % (path, describe(exc)))
            return None, None
        if damaged is not None:
            error("load", "corrupt", "%s: member %s of the .keras archive is damaged"
                  % (path, damaged))
            return None, None
    risk = None if trust else untrusted(path, kind)
    if risk is not None:
        error("load", "untrusted-code", "%s: not loaded; give --trust-model to load it if you "
              "trust where it comes from" % risk)
        return None, None
    keras = tf.keras
    options = load_options(keras, trust)
    try:
        if kind == "savedmodel":
            try:
                return keras.models.load_model(path, compile=True, **options), kind
            except Exception:  # noqa: BLE001 - Keras 3 refuses SavedModel directories
                return saved_model_wrapper(tf, path), "savedmodel-inference"
        try:
            return keras.models.load_model(path, compile=True, **options), kind
        except Exception as exc:  # noqa: BLE001 - e.g. Keras 3 cannot restore an .h5's "mse"
            if classify_load_error(exc) == "untrusted-code":
                raise
            model = keras.models.load_model(path, compile=False, **options)
            STATE["assumptions"].append({"assumed": "no training configuration", "why":
                                         "loading it failed (%s): loaded without it"
                                         % describe(exc)[:300]})
            return model, kind
    except Exception as exc:  # noqa: BLE001 - every failure of the loader becomes a finding
        kind = classify_load_error(exc)
        message = describe(exc)
        if kind == "untrusted-code":
            message = ("%s holds code that Keras's safe mode refuses to run: not loaded; give "
                       "--trust-model to load it if you trust where it comes from (%s)"
                       % (path, message[:300]))
        if kind == "custom-objects":
            names = custom_names(str(exc))
            message = ("the model needs custom objects that are not importable here%s; give "
                       "--model module:function with a function that imports them and loads "
                       "the model (%s)" % (": " + ", ".join(names) if names else "",
                                           message[:300]))
        error("load", kind, message)
        return None, None


def load_from_function(tf, spec, extra_paths):
    """`module:function` called with no arguments; it must return a Keras model."""
    module_name, _, func_name = spec.partition(":")
    for path in [os.getcwd()] + list(extra_paths or []):
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.split(".")[0] == exc.name.split(".")[0]:
            # the module itself, not one it imports: say where Python looked
            error("load", "import-failed", "%s is not on the diagnosed Python's path (it looked in the "
                  "current directory %s and sys.path): run from the folder that holds %s.py, or add "
                  "that folder to PYTHONPATH" % (module_name, os.getcwd(), module_name.split(".")[0]))
        else:
            error("load", "import-failed", "importing %s: %s" % (module_name, describe(exc)))
        return None
    except Exception as exc:  # noqa: BLE001
        error("load", "import-failed", "importing %s: %s" % (module_name, describe(exc)))
        return None
    func = getattr(module, func_name, None)
    if not callable(func):
        error("load", "no-such-function", "%s has no callable %r" % (module_name, func_name))
        return None
    try:
        model = func()
    except Exception as exc:  # noqa: BLE001
        kind = "too-big" if is_oom(exc) else "function-raised"
        error("load", kind, "%s() raised %s" % (spec, describe(exc)))
        return None
    if not isinstance(model, tf.keras.Model):
        error("load", "not-a-model-returned", "%s() returned %s, not a Keras model"
              % (spec, type(model).__name__))
        return None
    return model


def load(tf, cfg):
    if cfg.get("workload"):
        try:
            return model_preset(tf, cfg["workload"]), "preset"
        except Exception as exc:  # noqa: BLE001
            error("load", "preset-failed", describe(exc))
            return None, None
    spec = cfg.get("model") or ""
    if ":" in spec and not os.path.exists(spec):
        return load_from_function(tf, spec, cfg.get("sys_path")), "function"
    return load_from_path(tf, spec, bool(cfg.get("trust_model")), cfg.get("inflate_limit"))


def saved_model_wrapper(tf, path):
    """A SavedModel directory Keras cannot load as a model, wrapped for inference only."""
    keras = tf.keras
    loaded = tf.saved_model.load(path)
    signature = loaded.signatures["serving_default"]
    specs = signature.structured_input_signature[1]
    inputs = {}
    for name, spec in sorted(specs.items()):
        inputs[name] = keras.Input(shape=tuple(spec.shape)[1:], dtype=spec.dtype, name=name)
    layer = keras.layers.TFSMLayer(path, call_endpoint="serving_default")
    if len(inputs) != 1:
        raise ValueError("a SavedModel with %d inputs cannot be wrapped for Keras 3; give "
                         "--model module:function returning a Keras model" % len(inputs))
    only = list(inputs.values())[0]
    return keras.Model(only, layer(only))
