"""Which interpreter to diagnose: `--python`, or the environment the user means (the active
VIRTUAL_ENV or CONDA_PREFIX, wherever tfdoctor is installed), and never tfdoctor's own when it
runs from an isolated tool environment (pipx, uv tool).
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

TOOL_MARKERS = (("pipx_metadata.json", "pipx"), ("uv-receipt.toml", "uv tool"))
"""Files at the root of an isolated tool environment: pipx writes pipx_metadata.json
(pypa/pipx src/pipx/pipx_metadata_file.py, PIPX_INFO_FILENAME); `uv tool install` writes
uv-receipt.toml (astral-sh/uv, crates/uv-tool)."""


class TargetNotFound(Exception):
    """The --python argument names nothing that can be started (a usage error, exit 2)."""


@dataclass(frozen=True)
class Target:
    """The interpreter to diagnose, and why it was chosen."""

    executable: str
    chosen_by: str
    reason: str
    tool_env: str | None = None
    tool_python: str | None = None


def _resolve_path(python: str) -> str:
    """The absolute path of what `--python` names, read as a shell reads a command: a name with a
    slash is a path (relative to the current directory, `~` expanded), a bare name is looked up
    on PATH; a bare name PATH does not have may still be a venv or conda directory here."""
    try:
        if "/" not in python:
            return _on_path(python)
        candidate = Path.cwd() / Path(python).expanduser()  # ".." kept: the kernel resolves it
        if candidate.is_dir():
            return _interpreter_in(candidate, python)
        if not candidate.exists():
            raise TargetNotFound(f"--python {python!r}: no such file")
    except RuntimeError as exc:  # "~nosuchuser/...": no such user's home
        raise TargetNotFound(f"--python {python!r}: {exc}") from None
    except (OSError, ValueError) as exc:  # a name over 255 bytes, a NUL byte
        reason = os.strerror(exc.errno) if getattr(exc, "errno", None) else str(exc)
        raise TargetNotFound(f"--python {python[:80]!r}{'...' if len(python) > 80 else ''}: "
                   f"{reason}") from None
    if not os.access(candidate, os.X_OK):
        raise TargetNotFound(f"--python {python!r} is not executable")
    return str(candidate)


def _on_path(name: str) -> str:
    """A bare --python name: the command PATH finds (made absolute: a PATH entry may be
    relative), else an environment directory of that name here; a plain file here is not taken
    (a shell would not run it either), and the message says how to name it."""
    found = shutil.which(name)
    if found is not None:
        return os.path.abspath(found)
    here = Path.cwd() / name
    if here.is_dir():
        return _interpreter_in(here, name)
    hint = f" (a file here: give ./{name})" if here.is_file() else ""
    raise TargetNotFound(f"--python {name!r}: no such command on PATH{hint}")


def _interpreter_in(directory: Path, given: str) -> str:
    """The interpreter of a venv or conda environment directory."""
    for sub in ("bin/python", "bin/python3", "Scripts/python.exe"):
        if (directory / sub).exists():
            return str(directory / sub)
    raise TargetNotFound(f"--python {given!r} is a directory with no bin/python in it")


def tool_environment(prefix: str) -> str | None:
    """"pipx" or "uv tool" when `prefix` is such an isolated tool environment; "venv" for a
    virtual environment made for tfdoctor alone (the README's `.tfdoctor`): the only
    distribution anyone asked pip for there is tfdoctor (pip's REQUESTED markers)."""
    for name, kind in TOOL_MARKERS:
        if (Path(prefix) / name).is_file():
            return kind
    return "venv" if requested_in(prefix) == {"tfdoctor"} else None


BOOTSTRAP = frozenset({"pip", "setuptools", "wheel"})
"""What `python -m venv` itself installs (ensurepip marks pip REQUESTED)."""


def requested_in(prefix: str) -> set[str]:
    """Names of the distributions marked REQUESTED in a venv's site-packages, bootstrap aside;
    empty where `prefix` is no venv (no pyvenv.cfg) or nothing is marked."""
    root = Path(prefix)
    if not (root / "pyvenv.cfg").is_file():
        return set()
    names = set()
    try:
        for marker in root.glob("lib/python3*/site-packages/*.dist-info/REQUESTED"):
            # <name>-<version>.dist-info, the name's own dashes written as underscores
            name = marker.parent.name.split("-", 1)[0].replace("_", "-").lower()
            if name not in BOOTSTRAP:
                names.add(name)
    except OSError:
        return set()
    return names


def choose_target(python: str | None, environ: Mapping[str, str] | None = None,
                  prefix: str | None = None, executable: str | None = None) -> Target:
    """`--python` when given. Else the active environment, wherever tfdoctor is installed:
    VIRTUAL_ENV, then CONDA_PREFIX (issue 21 item 1). With none active, this interpreter,
    unless tfdoctor runs from an isolated tool environment (pipx, uv tool): then the first
    python3 on PATH outside that environment. The reason says which and why."""
    if python is not None:
        return Target(_resolve_path(python), "--python", f"--python {python}")
    environ = os.environ if environ is None else environ
    prefix = sys.prefix if prefix is None else prefix
    executable = sys.executable if executable is None else executable
    tool = tool_environment(prefix)
    own = _real(prefix) or prefix
    where = f"its own {_kind(tool, prefix)}" if tool else prefix
    stale = []
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        value = environ.get(variable)
        if not value:
            continue
        if _real(value) == own:
            if tool:
                continue  # a tool environment is never "the environment the user means"
            return Target(executable, variable, f"{variable}={value} is active, and tfdoctor "
                          "runs in it")
        for sub in ("bin/python", "bin/python3", "Scripts/python.exe"):
            candidate = Path(value) / sub
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return Target(str(candidate), variable, f"{variable}={value} is active; "
                              f"tfdoctor itself runs from {where}", tool,
                              executable if tool else None)
        stale.append(f"{variable}={value} has no bin/python")
    if tool is None:
        why = "; ".join(stale) if stale else "no VIRTUAL_ENV or CONDA_PREFIX is active"
        return Target(executable, "this interpreter", f"{why}: the Python tfdoctor runs in")
    path = os.pathsep.join(d for d in environ.get("PATH", "").split(os.pathsep)
                           if d and not (_real(d) or own + os.sep).startswith(own + os.sep))
    try:
        found = shutil.which("python3", path=path)
    except (OSError, ValueError):
        found = None
    if found:
        return Target(found, "PATH", f"tfdoctor runs from its own {_kind(tool, prefix)} and no "
                      "environment is active: the first python3 on PATH (--python chooses another)",
                      tool, executable)
    return Target(executable, "this interpreter",
                  f"tfdoctor runs from its own {_kind(tool, prefix)} and found no other Python "
                  "(no VIRTUAL_ENV, CONDA_PREFIX or python3 on PATH; --python chooses one)", tool, executable)


def _kind(tool: str, prefix: str) -> str:
    if tool == "venv":
        return f"venv {prefix} (only tfdoctor was installed into it)"
    return f"{tool} environment"


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None
