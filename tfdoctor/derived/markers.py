"""Read installed Requires-Dist as pip reads it for the diagnosed interpreter: PEP 508 markers are
evaluated for that interpreter (its Python, OS and process architecture, from the snapshot), not
for the Python tfdoctor itself runs on."""

from __future__ import annotations

import functools
from typing import Iterable

from packaging.markers import (
    InvalidMarker,
    UndefinedComparison,
    UndefinedEnvironmentName,
)
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tfdoctor.facts.snapshot import PackageFacts, Snapshot

_SYS_PLATFORM = {"Darwin": "darwin", "Linux": "linux", "Windows": "win32"}
_IMPLEMENTATION = {"cpython": "CPython", "pypy": "PyPy", "graalpy": "GraalVM", "ironpython": "IronPython"}


def marker_env(s: Snapshot) -> dict[str, str]:
    """The PEP 508 marker environment of the diagnosed interpreter, every key set."""
    py, host = s.python, s.host
    system = host.system or ""
    version = py.version if py else ""
    minor = py.minor if py else ""
    impl = (py.implementation if py else "") or "cpython"
    return {
        "python_version": minor,
        "python_full_version": version,
        "implementation_name": impl.lower(),
        "implementation_version": version,
        "platform_python_implementation": _IMPLEMENTATION.get(impl.lower(), impl),
        "platform_system": system,
        "platform_release": host.release or "",
        "platform_version": "",
        "platform_machine": (py.process_arch if py else "") or "",
        "sys_platform": _SYS_PLATFORM.get(system, system.lower()),
        "os_name": "nt" if system == "Windows" else "posix",
        "extra": "",
    }


@functools.lru_cache(maxsize=8192)
def _parsed(text: str) -> Requirement | None:
    """A Requires-Dist line parsed once per process (packaging's parser is the slow part of a
    diagnosis: the same lines are read by several rules); None when it does not parse."""
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def requirement_names(texts: Iterable[str]) -> set[str]:
    """Canonical names of the requirements among `texts` that parse (the others are skipped)."""
    return {canonicalize_name(req.name) for req in map(_parsed, texts) if req is not None}


@functools.lru_cache(maxsize=8192)
def _applies(text: str, env_items: tuple[tuple[str, str], ...]) -> bool:
    req = _parsed(text)
    if req is None:
        return False
    if req.marker is None:
        return True
    try:
        return bool(req.marker.evaluate(dict(env_items)))
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return False


def applicable(pkg: PackageFacts, env: dict[str, str]) -> list[Requirement]:
    """The package's Requires-Dist that apply to this interpreter (no extras; unparsable skipped)."""
    key = tuple(sorted(env.items()))
    return [_parsed(text) for text in pkg.requires_dist if _applies(text, key)]


def requirement_on(pkg: PackageFacts, name: str, env: dict[str, str]) -> Requirement | None:
    """The package's applicable requirement on `name` (any spelling), if it has one."""
    key = canonicalize_name(name)
    return next((r for r in applicable(pkg, env) if canonicalize_name(r.name) == key), None)


def satisfies(version: str | None, req: Requirement) -> bool | None:
    """Whether an installed version meets a requirement's specifier; None if it cannot be told."""
    if not version:
        return None
    try:
        Version(version)
    except InvalidVersion:
        return None
    return req.specifier.contains(version, prereleases=True)
