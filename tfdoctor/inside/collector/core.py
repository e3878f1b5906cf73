"""What the collector and the runtime child read the same way.

One rule each for: the site directories TensorFlow scans for tensorflow-plugins/, which file
names TensorFlow loads from there, how a plugin entry is described without ever opening it (a
FIFO would block, a directory named libx.so is not a library), and which environment variables
are captured (an allowlist, never a prefix: `TF_.*` also matches Terraform's TF_VAR_* and
TF_TOKEN_*). Also the Pythons on PATH and conda's own package records.

The TensorFlow children also share one watch on the calls through which TensorFlow loads
plugin libraries, so a plugin that crashes, hangs or exits while loading is named.

Runs inside the diagnosed interpreter: standard library only, Python 3.8+.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import re
import site
import stat
import sys
import sysconfig

# --- site directories ---------------------------------------------------------------------------


def _unique_existing(paths):
    seen = set()
    dirs = []
    for path in paths:
        if not path or not isinstance(path, str):
            continue
        try:
            real = os.path.realpath(path)
            if real in seen or not os.path.isdir(path):
                continue
        except (OSError, ValueError):
            continue
        seen.add(real)
        dirs.append(path)
    return dirs


def importable_site_dirs():
    """Site directories whose distributions this interpreter imports (the packages it has)."""
    candidates = list(getattr(site, "getsitepackages", lambda: [])())
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    candidates.extend(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    return _unique_existing(candidates)


def plugin_site_dirs():
    """The directories tensorflow/__init__.py (TF 2.5-2.19, read from the installed 2.19.1
    wheel) scans for tensorflow-plugins/: the user site when enabled, sys.path entries naming
    site-packages, site.getsitepackages(), and purelib/platlib of *every* sysconfig scheme,
    user schemes included even inside a venv."""
    candidates = []
    if site.ENABLE_USER_SITE and site.USER_SITE is not None:
        candidates.append(site.USER_SITE)
    candidates.extend(p for p in sys.path if "site-packages" in p)
    candidates.extend(getattr(site, "getsitepackages", lambda: [])())
    for scheme in sysconfig.get_scheme_names():
        for name in ("purelib", "platlib"):
            try:
                candidates.append(sysconfig.get_path(name, scheme))
            except (KeyError, ValueError):
                pass
    return _unique_existing(candidates)


# --- plugin files -------------------------------------------------------------------------------

LIBRARY_SUFFIXES = {"Linux": (".so",), "Darwin": (".dylib",), "Windows": (".dll",)}
"""The suffixes tensorflow/python/framework/load_library.py `_is_shared_object` accepts, per
system (Linux also takes `.so.N`). The one list both scripts use."""

COMPILED_SUFFIXES = (".so", ".dylib", ".dll", ".pyd")
"""Compiled code a distribution installs (extension modules are `.so` on macOS too)."""


def loaded_by_tensorflow(name, system):
    """Whether TensorFlow loads a file of this name from a plugin directory on `system`."""
    if system == "Linux":
        index = name.rfind(".so.")
        if index != -1 and name[index + 4:index + 5].isdigit():
            return True
    return name.endswith(LIBRARY_SUFFIXES.get(system, ()))


def is_regular_file(path):
    """Whether `path` is (or links to) a regular file: the only kind read, so that a FIFO or a
    device planted where a file is expected cannot block or flood the collector."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _file_type(mode):
    for test, name in ((stat.S_ISREG, "regular"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character-device"), (stat.S_ISBLK, "block-device")):
        if test(mode):
            return name
    return "other"


def describe_entry(path, source, system):
    """A plugin entry, from stat alone (nothing is opened): kind is "file" (a regular file, or
    a link to one), "not-a-file" (a directory, FIFO, socket or device: loading it fails or
    blocks), or "missing" (absent, or a dangling link)."""
    entry = {"path": path, "dir": os.path.dirname(path), "name": os.path.basename(path),
             "source": source, "kind": "missing", "file_type": None, "size": None,
             "loaded_by_tensorflow": loaded_by_tensorflow(os.path.basename(path), system),
             "error": None}
    try:
        info = os.stat(path)
    except OSError as exc:
        entry["error"] = "%s: %s" % (type(exc).__name__, exc)
        if os.path.islink(path):
            entry["file_type"] = "dangling-link"
        return entry
    entry["file_type"] = _file_type(info.st_mode)
    if entry["file_type"] == "regular":
        entry["kind"] = "file"
        entry["size"] = info.st_size
    else:
        entry["kind"] = "not-a-file"
        entry["error"] = "not a regular file (%s)" % entry["file_type"]
    return entry


def _list_dir(path, errors):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        errors.append({"what": "plugins", "error": "cannot list %s: %s" % (path, exc)})
        return []


def find_plugins(system, environ, errors, only_loaded=False):
    """Entries of every tensorflow-plugins/ TensorFlow scans (each directory once), then what
    TF_PLUGGABLE_DEVICE_LIBRARY_PATH names (a directory is listed, anything else is one entry).
    `only_loaded` keeps the names TensorFlow loads; the rest are kept otherwise (with
    loaded_by_tensorflow false), as a stray file there is still worth reporting."""
    found = []
    seen = set()
    for site_dir in plugin_site_dirs():
        plugin_dir = os.path.join(site_dir, "tensorflow-plugins")
        real = os.path.realpath(plugin_dir)
        if real in seen or not os.path.isdir(plugin_dir):
            continue
        seen.add(real)
        for name in _list_dir(plugin_dir, errors):
            found.append(describe_entry(os.path.join(plugin_dir, name), "tensorflow-plugins",
                                        system))
    configured = environ.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", "")
    if configured:
        source = "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"
        if os.path.isdir(configured):
            for name in _list_dir(configured, errors):
                found.append(describe_entry(os.path.join(configured, name), source, system))
        else:
            entry = describe_entry(configured, source, system)
            entry["loaded_by_tensorflow"] = True  # a file named there is loaded whatever its name
            found.append(entry)
    if only_loaded:
        found = [entry for entry in found if entry["loaded_by_tensorflow"]]
    return found


# --- environment ---------------------------------------------------------------------------------

ENV_ALLOWLIST = (
    # TensorFlow and Keras (tensorflow/core/platform/default/logging.cc, tensorflow/__init__.py,
    # tensorflow/python/framework/config.py, keras/src/backend/config.py)
    "TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL", "TF_CPP_VMODULE",
    "TF_PLUGGABLE_DEVICE_LIBRARY_PATH", "TF_USE_LEGACY_KERAS", "TF_ENABLE_ONEDNN_OPTS",
    "TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR", "TF_XLA_FLAGS", "TF_DETERMINISTIC_OPS",
    "TF_CUDNN_DETERMINISTIC", "TF_NUM_INTEROP_THREADS", "TF_NUM_INTRAOP_THREADS",
    "TF_GPU_THREAD_MODE", "TF_GPU_THREAD_COUNT", "TF2_BEHAVIOR", "KERAS_BACKEND", "KERAS_HOME",
    "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
    # Metal's validation and HUD switches (Apple developer documentation, "Validating your
    # app's Metal API usage" and "Monitoring your Metal app's graphics performance")
    "MTL_DEBUG_LAYER", "MTL_SHADER_VALIDATION", "METAL_DEVICE_WRAPPER_TYPE", "MTL_HUD_ENABLED",
    # the dynamic loaders (dyld(1), ld.so(8))
    "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH",
    "DYLD_FALLBACK_FRAMEWORK_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_IMAGE_SUFFIX",
    "LD_LIBRARY_PATH", "LD_PRELOAD",
    # which Python, which environment, which architecture (arch(1) reads ARCHPREFERENCE;
    # SYSTEM_VERSION_COMPAT=1 makes macOS 11+ report itself as 10.16)
    "PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "VIRTUAL_ENV",
    "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SUBDIR", "PYENV_VERSION", "ARCHPREFERENCE",
    "SYSTEM_VERSION_COMPAT",
)
"""Variables that change how TensorFlow, Metal, the loader or Python behave: the only ones
captured."""

CREDENTIAL_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH")
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*):[^/@\s]*@")
_URL_TOKEN = re.compile(r"(?P<head>://[^/\s]+/t/)[^/\s]+")
"""Anaconda's token channels: https://conda.anaconda.org/t/<token>/channel."""


def looks_like_credential(name):
    upper = name.upper()
    return any(word in upper for word in CREDENTIAL_WORDS)


def scrub_value(value):
    """The value with any password inside a URL (scheme://user:password@host) and any token
    of a conda token channel (host/t/TOKEN/...) removed."""
    value = _URL_PASSWORD.sub(lambda m: m.group("head") + "@", value)
    return _URL_TOKEN.sub(lambda m: m.group("head") + "<token>", value)


def capture_env(environ):
    """The allowlisted variables that are set; credential-like names never, URL passwords cut."""
    return dict((name, scrub_value(environ[name])) for name in sorted(ENV_ALLOWLIST)
                if name in environ and not looks_like_credential(name))


# --- Pythons on PATH -----------------------------------------------------------------------------

PATH_PYTHON_NAMES = ("python3", "python")


def pythons_on_path(environ, this_executable):
    """Every python3/python on PATH, in the order a new shell would find them (the first is
    what `python3` runs), and whether it is the interpreter being diagnosed."""
    mine = os.path.realpath(this_executable) if this_executable else None
    found = []
    seen = set()
    for directory in environ.get("PATH", "").split(os.pathsep):
        if not directory:
            continue
        for name in PATH_PYTHON_NAMES:
            path = os.path.join(directory, name)
            try:
                if not (os.path.isfile(path) and os.access(path, os.X_OK)) or path in seen:
                    continue
                real = os.path.realpath(path)
            except (OSError, ValueError):
                continue
            seen.add(path)
            found.append({"name": name, "path": path, "realpath": real,
                          "is_target": mine is not None and real == mine})
    return found


# --- conda's own records -------------------------------------------------------------------------

CONDA_RECORD_LIMIT = 8 << 20
CONDA_RECORD_KEYS = ("name", "version", "build", "channel", "subdir")


def conda_records(prefix, errors):
    """name, version, build, channel and subdir of every conda-meta/*.json (what conda itself
    installed, e.g. the apple channel's tensorflow-deps, which has no dist-info)."""
    meta = os.path.join(prefix, "conda-meta")
    records = []
    for name in _list_dir(meta, errors) if os.path.isdir(meta) else []:
        if not name.endswith(".json"):
            continue
        path = os.path.join(meta, name)
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > CONDA_RECORD_LIMIT:
                continue
            with open(path, encoding="utf-8", errors="replace") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            errors.append({"what": "conda", "error": "%s: %s" % (name, exc)})
            continue
        if not isinstance(data, dict):
            continue
        record = dict((key, data.get(key) if isinstance(data.get(key), str) else None)
                      for key in CONDA_RECORD_KEYS)
        if record["channel"]:
            record["channel"] = scrub_value(record["channel"])
        records.append(record)
    return records


# --- which library TensorFlow is loading ---------------------------------------------------------

WATCHED_MODULE = "tensorflow.python.framework.load_library"
WATCHED_CALLS = ("TF_LoadLibrary", "TF_LoadPluggableDeviceLibrary")
"""load_library.py (TF 2.5-2.19, read from the 2.19.1 wheel) calls py_tf.TF_LoadLibrary and
py_tf.TF_LoadPluggableDeviceLibrary (py_tf: its module global for pywrap_tf_session) for each
plugin file: dlopen runs the file's constructors there, so a crash, a hang or an exit() inside a
plugin happens within these calls."""


class _RecordingWrapper(object):
    """Stands in for load_library's `py_tf`: reports each watched call's file before and after
    it, and passes everything on unchanged."""

    def __init__(self, inner, started, ended):
        self._inner, self._started, self._ended = inner, started, ended

    def __getattr__(self, name):
        value = getattr(self._inner, name)
        if name not in WATCHED_CALLS:
            return value
        started, ended = self._started, self._ended

        def call(path, *args, **kwargs):
            started(str(path))
            ok = False
            try:
                result = value(path, *args, **kwargs)
                ok = True
            finally:
                ended(str(path), ok)
            return result

        return call


class _LoadLibraryWatch(object):
    """A meta path finder for WATCHED_MODULE only: the module is found and executed as usual,
    then its `py_tf` is wrapped. Anything unexpected leaves TensorFlow untouched."""

    def __init__(self, started, ended):
        self._started, self._ended = started, ended

    def find_spec(self, name, path=None, target=None):
        if name != WATCHED_MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        loader = getattr(spec, "loader", None)
        original = getattr(loader, "exec_module", None)
        if original is None:
            return spec
        started, ended = self._started, self._ended

        def exec_module(module):
            original(module)
            inner = getattr(module, "py_tf", None)
            if inner is not None:
                module.py_tf = _RecordingWrapper(inner, started, ended)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):
            pass
        return spec


def watch_library_loads(started, ended):
    """Call started(path) before and ended(path, ok) after each library TensorFlow loads through
    load_library.py (its plugins, and its own op libraries); install before importing it."""
    sys.meta_path.insert(0, _LoadLibraryWatch(started, ended))
