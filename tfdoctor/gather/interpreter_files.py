"""What the files of an interpreter tfdoctor does not run say about it: which environment it
belongs to, whether TensorFlow is installed there, which Python a script's #! line starts.
Reading is cheap and starts nothing, so every Jupyter kernel and editor setting can be looked
at; the interpreter actually diagnosed is always run (tfdoctor.gather.static)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, canonicalize_name

SHEBANG_LIMIT = 1024
"""Bytes of a script read for its #! line (pip's launchers keep it short)."""
_VERSIONED = re.compile(r"python(\d+\.\d+)")
_DIST_DIR = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._]*?)-([0-9][^-]*?)(-py[0-9.]+)?\.(dist|egg)-info$")
_PIP_LAUNCHER = re.compile(r"^'''exec' (\S+)")
"""pip's launcher for a path too long for #! (`#!/bin/sh` then `'''exec' /path/python ...`)."""


def environment_of(python: str) -> str:
    """A key naming the environment `python` runs in: a venv's root folder (its bin/python is a
    link to the base interpreter, so the file alone cannot tell two venvs apart), else the real
    file (python3 and python3.11 of one installation are one file)."""
    path = Path(os.path.abspath(python))
    root = path.parent.parent
    if (root / "pyvenv.cfg").is_file():
        return os.path.realpath(root)
    return os.path.realpath(path)


def prefix_of(python: str) -> str:
    """sys.prefix of an interpreter, from its path: a venv's root, else the folder above bin/."""
    path = Path(os.path.abspath(python))
    if (path.parent.parent / "pyvenv.cfg").is_file():
        return str(path.parent.parent)
    return str(Path(os.path.realpath(path)).parent.parent)


def same_environment(a: str, b: str) -> bool:
    return environment_of(a) == environment_of(b)


def site_dirs(python: str, home: str) -> list[Path]:
    """The site-packages folders the interpreter would import from, found by the layouts
    Python uses (venv, conda, framework and Unix prefixes, Debian's dist-packages, Windows'
    Lib/site-packages), with the user site for an interpreter outside a venv."""
    path = Path(os.path.abspath(python))
    root = path.parent.parent
    config = _venv_config(root)
    if config is None:
        path = Path(os.path.realpath(path))
        root = path.parent.parent
    versioned = _VERSIONED.fullmatch(path.name)
    minor = versioned.group(1) if versioned else "3*"
    found = _prefix_sites(root, minor)
    if config is not None:
        base = config.get("home")
        if config.get("include-system-site-packages", "").lower() == "true" and base:
            found += _prefix_sites(Path(base).parent, minor)
        return found
    if found:
        minors = {m.group(1) for m in (_VERSIONED.fullmatch(p.parent.name) for p in found) if m}
        for version in sorted(minors):
            found += [d for d in (Path(home, ".local", "lib", f"python{version}", "site-packages"),
                                  Path(home, "Library", "Python", version, "lib", "python", "site-packages"))
                      if d.is_dir()]
    return found


def _prefix_sites(root: Path, minor: str) -> list[Path]:
    patterns = (f"lib/python{minor}/site-packages", f"lib/python{minor}/dist-packages",
                "lib/python3/dist-packages", "Lib/site-packages")
    try:
        return [d for pattern in patterns for d in sorted(root.glob(pattern)) if d.is_dir()]
    except OSError:
        return []


def _venv_config(root: Path) -> dict[str, str] | None:
    """pyvenv.cfg as a dict (None when `root` is no venv)."""
    try:
        text = (root / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")[:8192]
    except OSError:
        return None
    config = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            config[key.strip().lower()] = value.strip()
    return config


def tensorflow_in(python: str, home: str) -> tuple[bool | None, str | None]:
    """(installed, "NAME VERSION") of TensorFlow in the interpreter's site-packages, read from
    the dist-info folder names; (None, None) when no site-packages folder was found."""
    dirs = site_dirs(python, home)
    if not dirs:
        return None, None
    wanted = set(TENSORFLOW_DISTRIBUTIONS)
    for folder in dirs:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            dist = _DIST_DIR.match(name)
            if dist and canonicalize_name(dist.group(1)) in wanted:
                return True, f"{canonicalize_name(dist.group(1))} {dist.group(2)}"
    return False, None


def shebang_interpreter(script: str, environ: Mapping[str, str]) -> str | None:
    """The interpreter a script's #! line (or pip's long-path launcher) starts, looked up on
    PATH for `#!/usr/bin/env python3`; None when the file says none."""
    try:
        with open(script, "rb") as handle:
            head = handle.read(SHEBANG_LIMIT).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        return None
    words = head[0][2:].split()
    if words and os.path.basename(words[0]) == "sh" and len(head) > 1:
        launcher = _PIP_LAUNCHER.match(head[1])
        return launcher.group(1) if launcher else None
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return shutil.which(words[0], path=environ.get("PATH", "")) if words else None
    return words[0] if words else None
