"""Carrying the user's own packages over to the new environment.

Only what the user asked for (pip's REQUESTED markers, read into the snapshot by the collector)
is carried: from the index at a version the goal's TensorFlow admits when it came from an
index, from its own source when it did not (tfdoctor.fix.sources: a path, a VCS commit, a URL,
`-e DIR` for an editable install), together with any such distribution it needs, which an
index would otherwise resolve by name. Everything else (unknown markers, unreadable metadata,
another installer's packages, a source that is gone) is listed as not carried, with why, so
nothing disappears silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from tfdoctor.advice.installs import tf_requirement
from tfdoctor.derived.markers import requirement_names
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.fix.goal import Goal
from tfdoctor.fix.sources import source_of

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix

MANAGED = frozenset(TENSORFLOW_DISTRIBUTIONS) | {
    "tensorflow-metal", "tensorflow-deps", "keras", "tf-keras", "keras-nightly", "tf-nightly",
    "tensorflow-estimator", "tensorflow-io-gcs-filesystem", "tensorboard",
    "tensorboard-data-server", "tensorboard-plugin-wit", "pip", "setuptools", "wheel",
    "distribute", "uv",
}
"""Distributions the goal decides (or the environment brings), never carried over as asked."""


@dataclass
class Carried:
    requirements: list[str] = field(default_factory=list)
    """Requirements to install (after `--`): `name==version`, `name<spec>`, `name @ URL`."""
    editables: list[str] = field(default_factory=list)
    """Source directories to install in editable mode (`-e DIR`)."""
    not_carried: list[tuple[str, str]] = field(default_factory=list)
    """(name, why) of what stays behind."""


def requested_known(s: Snapshot) -> bool:
    """Whether the facts say which distributions the user asked for (pip's REQUESTED markers)."""
    return any(pkg.requested is not None for pkg in s.packages)


def carry_over(s: Snapshot, d: Any, matrix: "CompatMatrix", goal: Goal, tf_version: str | None,
               mac: bool, path_exists: Callable[[str], bool]) -> Carried:
    """The user's own top-level packages as requirements that fit the goal's TensorFlow (or
    their own sources), and what cannot be carried over (with why)."""
    result = Carried()
    if not requested_known(s):
        leaves = _leaves(s)
        if leaves:
            result.not_carried.append((", ".join(leaves), "not known whether you asked for these (the "
                                       "facts have no REQUESTED markers): install what you need "
                                       "into the new environment yourself"))
        return result
    pins: dict[str, str] = {}
    if mac and tf_version:
        try:
            pins = matrix.tf_pins(tf_version, goal.python)
        except Exception:  # noqa: BLE001 - the matrix is advice
            pins = {}
    asked = [pkg for pkg in s.packages if pkg.requested and pkg.key not in MANAGED]
    for pkg in asked + _direct_dependencies(s, asked):
        label = pkg.name or pkg.key or "?"
        if pkg.error or not pkg.version:
            result.not_carried.append((label, f"its metadata could not be read ({pkg.error or 'no version'})"))
            continue
        if pkg.installer and pkg.installer not in ("pip", "uv"):
            result.not_carried.append((label, f"installed by {pkg.installer}, not pip: install it "
                                       f"with {pkg.installer} in the new environment"))
            continue
        source = source_of(pkg, path_exists)
        if source.why_not:
            result.not_carried.append((label, source.why_not))
        elif source.editable:
            result.editables.append(source.editable)
        elif source.requirement and not source.from_index:
            result.requirements.append(source.requirement)
        else:
            spec = pins.get(pkg.key) if mac else tf_requirement(s, d, pkg.key)
            result.requirements.append(_fitting(pkg, spec, source.requirement or ""))
    return result


def _fitting(pkg: PackageFacts, spec: str | None, pinned: str) -> str:
    """`name==installed` when the installed version fits the goal's `spec`, else `name<spec>`."""
    if not spec:
        return pinned
    try:  # a specifier set, nothing else (its grammar has no room for shell or options)
        fits = SpecifierSet(spec).contains(pkg.version or "", prereleases=True)
    except InvalidSpecifier:
        return pinned
    return pinned if fits else f"{pkg.key}{spec}"


def _direct_dependencies(s: Snapshot, asked: list[PackageFacts]) -> list[PackageFacts]:
    """Distributions installed from a path, VCS or URL that the asked ones need (transitively):
    an index would resolve them by name in the new environment, so they are carried too."""
    seen = {pkg.key for pkg in asked}
    todo = list(asked)
    found: list[PackageFacts] = []
    while todo:
        for name in sorted(requirement_names(todo.pop().requires_dist)):
            dep = s.package(name)
            if dep is None or dep.key in seen or dep.key in MANAGED:
                continue
            seen.add(dep.key)
            todo.append(dep)
            if dep.direct_kind is not None:
                found.append(dep)
    return found


def _leaves(s: Snapshot) -> list[str]:
    """Installed distributions nothing else installed requires (the likely top-level ones)."""
    needed = requirement_names(text for pkg in s.packages for text in pkg.requires_dist)
    return sorted(p.name or p.key for p in s.packages
                  if p.key and p.key not in needed and p.key not in MANAGED)
