"""Real TensorFlow for tests, without importing it into the test process.

Import as ``from tests.support import tfenv`` (or ``from support import tfenv``
when ``tests/`` itself is on ``sys.path``).  Nothing here imports TensorFlow:
tests run it in a subprocess with :func:`tf_python`.

* :func:`tf_python` -- the interpreter of a cached venv with
  ``tensorflow-cpu==TF_VERSION`` (built on first use, under a file lock).
* :func:`tf_site_packages` -- that venv's site-packages.
* :func:`throwaway_tf_env` -- a cheap per-test environment that reuses the
  cached TensorFlow but has its own writable ``tensorflow-plugins/``.
* :func:`tf_subprocess_env` -- an ``os.environ`` copy cleaned of everything
  that would make TensorFlow load a plugin the test did not ask for.

Where TensorFlow 2.19 looks for plugins (``tensorflow/__init__.py``, read from
the installed wheel)::

    dirs  = [site.USER_SITE]                   if site.ENABLE_USER_SITE
    dirs += [p for p in sys.path if "site-packages" in p]
    dirs += site.getsitepackages()
    dirs += [sysconfig.get_path(n, scheme)
             for scheme in sysconfig.get_scheme_names()
             for n in ("purelib", "platlib")]
    if tensorflow/__init__.py lies under one of dirs:   # "running from pip"
        for d in dirs:
            if exists(d/"tensorflow-plugins"):
                load_library(d/"tensorflow-plugins")                 # TF_LoadLibrary
                load_pluggable_device_library(d/"tensorflow-plugins")  # SE_InitPlugin...
    if $TF_PLUGGABLE_DEVICE_LIBRARY_PATH:
        load_pluggable_device_library($TF_PLUGGABLE_DEVICE_LIBRARY_PATH)

Every file in such a directory with a shared-library suffix is loaded, twice
over (once as a kernel library, once as a PluggableDevice).  Note the
sysconfig loop: it includes the *user* schemes (``posix_user``:
``$PYTHONUSERBASE`` or ``~/.local/lib/pythonX.Y/site-packages``;
``osx_framework_user``: ``~/Library/Python/X.Y/lib/python/site-packages``) even
inside a venv whose user site is disabled, so a ``tensorflow-plugins/`` left
in the user site is loaded by every venv of that Python version.
:func:`tf_subprocess_env` points ``PYTHONUSERBASE`` at an empty directory so
tests are not affected by one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Mapping

TF_VERSION = "2.19.1"
"""The pinned TensorFlow release."""

# tensorflow-cpu exists for Linux/Windows x86_64 only; elsewhere (macOS arm64,
# Linux aarch64) the plain wheel is already CPU-only.
if sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64"):
    TF_REQUIREMENT = f"tensorflow-cpu=={TF_VERSION}"
else:
    TF_REQUIREMENT = f"tensorflow=={TF_VERSION}"

DEFAULT_VENV = Path.home() / ".cache" / "tfdoctor-tests" / f"tfcpu-{TF_VERSION}"
"""Used unless ``$TFDOCTOR_TF_VENV`` names another directory."""

VENV_ENV_VAR = "TFDOCTOR_TF_VENV"
BASE_PYTHON_ENV_VAR = "TFDOCTOR_TF_BASE_PYTHON"
"""Interpreter used to create the venv (default: this one if TF supports it)."""

MARKER_NAME = ".tfdoctor-tf-ok"
PTH_NAME = "_tfdoctor_shared_tf.pth"

# TensorFlow 2.19 ships wheels for CPython 3.9 - 3.12.
_SUPPORTED_PYTHONS = ((3, 9), (3, 10), (3, 11), (3, 12))

# Variables that make TensorFlow (or our simulated plugin) behave differently
# from what a test sets up explicitly.
_LEAKY_VARS = (
    "TF_PLUGGABLE_DEVICE_LIBRARY_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "CUDA_VISIBLE_DEVICES",
    "TF_CPP_MIN_LOG_LEVEL",
    "TF_CPP_MAX_VLOG_LEVEL",
    "TF_CPP_VMODULE",
)


class TFEnvError(RuntimeError):
    """The cached TensorFlow venv could not be created or validated."""


# --------------------------------------------------------------------------
# The cached venv
# --------------------------------------------------------------------------


def tf_venv_dir() -> Path:
    """Directory of the cached TensorFlow venv."""
    override = os.environ.get(VENV_ENV_VAR)
    return Path(override).expanduser() if override else DEFAULT_VENV


def _venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def _marker_matches(venv: Path) -> bool:
    marker = venv / MARKER_NAME
    try:
        data = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(data, dict)
        and data.get("requirement") == TF_REQUIREMENT
        and data.get("tf_version") == TF_VERSION
        and _venv_python(venv).exists()
    )


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive fcntl lock on `path`, so parallel test processes build a thing once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _probe_tf(python: Path) -> str | None:
    """TensorFlow's version as seen by ``python``, or None if import fails."""
    code = "import tensorflow as tf, sys; sys.stdout.write(tf.__version__)"
    env = tf_subprocess_env()
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    try:
        proc = subprocess.run(
            [str(python), "-c", code],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.strip() or None


def _base_python() -> str:
    override = os.environ.get(BASE_PYTHON_ENV_VAR)
    if override:
        return override
    if sys.version_info[:2] in _SUPPORTED_PYTHONS:
        return sys.executable
    for major, minor in reversed(_SUPPORTED_PYTHONS):
        found = shutil.which(f"python{major}.{minor}")
        if found:
            return found
    raise TFEnvError(
        f"TensorFlow {TF_VERSION} needs CPython 3.9-3.12; this is "
        f"{sys.version.split()[0]} and no python3.9-3.12 is on PATH "
        f"(set ${BASE_PYTHON_ENV_VAR})"
    )


def _build_venv(venv: Path) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    log_path = venv.parent / f"{venv.name}.install.log"
    base = _base_python()
    steps = [
        [base, "-m", "venv", str(venv)],
        [
            str(_venv_python(venv)),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "-q",
            TF_REQUIREMENT,
        ],
    ]
    with open(log_path, "w") as log:
        for cmd in steps:
            log.write("$ " + " ".join(cmd) + "\n")
            log.flush()
            proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
            if proc.returncode != 0:
                raise TFEnvError(
                    f"building the TensorFlow test venv failed at {cmd[:3]}... "
                    f"(exit {proc.returncode}); see {log_path}"
                )


def tf_python() -> Path:
    """Python interpreter of the cached venv with TensorFlow ``TF_VERSION``.

    The venv lives at ``$TFDOCTOR_TF_VENV`` or :data:`DEFAULT_VENV`.  A marker
    file written only after ``import tensorflow`` succeeded makes later calls
    free; without it (first use, or a build interrupted half-way) the venv is
    checked by importing TensorFlow and, if that fails, deleted and rebuilt.
    An ``fcntl`` lock next to the venv serialises parallel test processes.
    """
    venv = tf_venv_dir()
    if _marker_matches(venv):
        return _venv_python(venv)
    with file_lock(venv.parent / f".{venv.name}.lock"):
        if _marker_matches(venv):  # another process finished meanwhile
            return _venv_python(venv)
        python = _venv_python(venv)
        version = _probe_tf(python) if python.exists() else None
        if version != TF_VERSION:
            _build_venv(venv)
            version = _probe_tf(python)
            if version != TF_VERSION:
                raise TFEnvError(
                    f"{python} cannot import tensorflow {TF_VERSION} "
                    f"after a fresh install (got {version!r})"
                )
        (venv / MARKER_NAME).write_text(
            json.dumps(
                {
                    "requirement": TF_REQUIREMENT,
                    "tf_version": version,
                    "python": str(python),
                }
            )
        )
    return python


def _site_packages_of(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Lib" / "site-packages"
    candidates = sorted(venv.glob("lib/python3.*/site-packages"))
    if len(candidates) != 1:
        raise TFEnvError(f"expected one lib/python3.*/site-packages in {venv}")
    return candidates[0]


def tf_site_packages() -> Path:
    """site-packages of the cached TensorFlow venv (holds ``tensorflow/``)."""
    tf_python()
    return _site_packages_of(tf_venv_dir())


# --------------------------------------------------------------------------
# Throwaway environments
# --------------------------------------------------------------------------


def throwaway_tf_env(tmp_path: Path) -> Path:
    """A new venv under ``tmp_path`` that sees the cached TensorFlow.

    Returns the venv's root; use :func:`env_python` and :func:`plugins_dir`
    for its interpreter and its (empty, writable) ``tensorflow-plugins/``.

    Why it is built this way: tests need to drop broken or mismatched
    plugins where tensorflow-metal really lives, ``site-packages/
    tensorflow-plugins/``, without touching the shared cached venv (other
    tests and processes use it at the same time) and without a 600 MB
    TensorFlow install per test.  ``--system-site-packages`` cannot help,
    since the cached base is itself a venv.  So this is a venv without pip
    (created in well under a second) whose site-packages holds one ``.pth``
    file, ``import site; site.addsitedir(<cached site-packages>)``.  Because
    it goes through ``addsitedir`` rather than a bare path line, ``.pth``
    files of the cached site-packages run too, exactly as in the cached venv.
    The cached directory is appended after the venv's own, so anything
    installed in the throwaway env wins.

    TensorFlow then scans *both* directories for ``tensorflow-plugins``: the
    throwaway one is in ``site.getsitepackages()`` and the cached one is a
    ``sys.path`` entry containing "site-packages"; and ``tensorflow/
    __init__.py`` lies under the latter, so TensorFlow considers itself
    "running from pip" and scans at all.  Hence the cached venv must never
    get a ``tensorflow-plugins/`` of its own (that would load into every
    test); this function refuses to run if it has one.
    """
    shared = tf_site_packages()
    if (shared / "tensorflow-plugins").exists():
        raise TFEnvError(
            f"{shared / 'tensorflow-plugins'} exists: the shared TensorFlow venv "
            "must not hold plugins (they would load in every test); remove it"
        )
    env = Path(tmp_path) / "tfenv"
    subprocess.run(
        [str(tf_python()), "-m", "venv", "--without-pip", str(env)],
        check=True,
        capture_output=True,
    )
    own = _site_packages_of(env)
    (own / PTH_NAME).write_text(
        f"import site; site.addsitedir({str(shared)!r})\n"
    )
    (own / "tensorflow-plugins").mkdir()
    return env


def env_python(env: Path) -> Path:
    """Interpreter of a venv made by :func:`throwaway_tf_env`."""
    return _venv_python(Path(env))


def env_site_packages(env: Path) -> Path:
    """The throwaway venv's own site-packages."""
    return _site_packages_of(Path(env))


def plugins_dir(env: Path) -> Path:
    """``site-packages/tensorflow-plugins`` of a throwaway venv."""
    return env_site_packages(env) / "tensorflow-plugins"


# --------------------------------------------------------------------------
# Subprocess environment
# --------------------------------------------------------------------------


def tf_subprocess_env(
    userbase: Path | None = None, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``os.environ`` minus what would leak plugins or config into TF.

    Drops ``TF_PLUGGABLE_DEVICE_LIBRARY_PATH``, ``PYTHONPATH`` and friends,
    every ``SIMGPU_*`` variable, and points ``PYTHONUSERBASE`` at ``userbase``
    (default: a directory that does not exist) so no user-site
    ``tensorflow-plugins/`` is picked up.  ``extra`` is applied last.
    """
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in _LEAKY_VARS and not k.startswith("SIMGPU_")
    }
    if userbase is None:
        userbase = tf_venv_dir().parent / ".no-user-site"
    env["PYTHONUSERBASE"] = str(userbase)
    env["PYTHONNOUSERSITE"] = "1"
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    if extra:
        env.update(extra)
    return env
