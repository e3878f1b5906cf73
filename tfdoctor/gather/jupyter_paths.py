"""The folders Jupyter searches for kernelspecs, worked out as jupyter_core.paths does (read
from jupyter_core 5.x: jupyter_data_dir, jupyter_path, SYSTEM_JUPYTER_PATH) without importing
Jupyter, which the diagnosed environment may not have and tfdoctor does not depend on.

Jupyter's own environment folder is `sys.prefix/share/jupyter` of the Python that runs
Jupyter; here that is each environment given: the one diagnosed, the one of the `jupyter`
command on PATH, and the conda base. The IPython folder (~/.ipython/kernels) is searched last,
as jupyter_client's KernelSpecManager does."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from tfdoctor.facts.notebooks import JupyterDir

_FALSE = ("no", "n", "false", "off", "0", "0.0")
"""Values jupyter_core's envset reads as false."""


def _flag(environ: Mapping[str, str], name: str) -> bool | None:
    if name not in environ:
        return None
    return environ[name].lower() not in _FALSE


def user_data_dir(environ: Mapping[str, str], platform: str, home: str) -> str:
    """jupyter_data_dir(): JUPYTER_DATA_DIR, else ~/Library/Jupyter on macOS, %APPDATA%\\jupyter
    on Windows, $XDG_DATA_HOME/jupyter (~/.local/share/jupyter) elsewhere."""
    if environ.get("JUPYTER_DATA_DIR"):
        return environ["JUPYTER_DATA_DIR"]
    if _flag(environ, "JUPYTER_PLATFORM_DIRS"):  # platformdirs.user_data_dir("jupyter")
        if platform == "darwin":
            return os.path.join(home, "Library", "Application Support", "jupyter")
        if platform != "win32":
            return os.path.join(environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share"), "jupyter")
    if platform == "darwin":
        return os.path.join(home, "Library", "Jupyter")
    if platform == "win32":
        appdata = environ.get("APPDATA")
        return os.path.join(appdata, "jupyter") if appdata else os.path.join(home, ".jupyter", "data")
    return os.path.join(environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share"), "jupyter")


def _user_base_dirs(environ: Mapping[str, str], platform: str, home: str) -> list[str]:
    """share/jupyter of the Python user base (`pip install --user`): PYTHONUSERBASE, else
    ~/.local, or ~/Library/Python/X.Y for a macOS framework build (any X.Y found)."""
    if environ.get("PYTHONUSERBASE"):
        return [os.path.join(environ["PYTHONUSERBASE"], "share", "jupyter")]
    if platform == "win32":
        return []
    found = [os.path.join(home, ".local", "share", "jupyter")]
    if platform == "darwin":
        base = os.path.join(home, "Library", "Python")
        try:
            versions = sorted(os.listdir(base))
        except OSError:
            versions = []
        found += [os.path.join(base, v, "share", "jupyter") for v in versions]
    return found


def _system_dirs(environ: Mapping[str, str], platform: str) -> list[str]:
    if platform == "win32":
        data = environ.get("PROGRAMDATA")
        return [os.path.join(data, "jupyter")] if data and _flag(environ, "JUPYTER_USE_PROGRAMDATA") else []
    if _flag(environ, "JUPYTER_PLATFORM_DIRS") and platform == "darwin":
        return ["/Library/Application Support/jupyter"]
    return ["/usr/local/share/jupyter", "/usr/share/jupyter"]


def data_dirs(environ: Mapping[str, str], platform: str, home: str,
              environments: Iterable[str]) -> list[JupyterDir]:
    """Every folder Jupyter may take kernels/ from, in its search order: JUPYTER_PATH, then the
    user's folders and the environments' (environments first when JUPYTER_PREFER_ENV_PATH says
    so), the system's, and IPython's. Each path once."""
    pairs: list[tuple[str, str]] = []
    for entry in environ.get("JUPYTER_PATH", "").split(os.pathsep):
        if entry:
            pairs.append((entry.rstrip(os.sep) or os.sep, "JUPYTER_PATH"))
    user = [(user_data_dir(environ, platform, home), "user")]
    user += [(d, "user") for d in _user_base_dirs(environ, platform, home)]
    system = _system_dirs(environ, platform)
    env = [(os.path.join(prefix, "share", "jupyter"), "environment") for prefix in environments if prefix]
    env = [(path, kind) for path, kind in env if path not in system]
    pairs += env + user if _flag(environ, "JUPYTER_PREFER_ENV_PATH") else user + env
    pairs += [(path, "system") for path in system]
    pairs.append((environ.get("IPYTHONDIR") or os.path.join(home, ".ipython"), "ipython"))
    found: list[JupyterDir] = []
    seen: set[str] = set()
    for path, kind in pairs:
        key = os.path.normpath(path)
        if key in seen:
            continue
        seen.add(key)
        found.append(JupyterDir(path, kind, os.path.isdir(os.path.join(path, "kernels"))))
    return found
