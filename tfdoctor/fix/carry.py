"""Carrying the user's own packages over to the new environment.

Only what the user asked for (pip's REQUESTED markers) is carried, at a version the target
TensorFlow admits; everything else (unknown markers, unreadable metadata, another installer's
packages) is listed as not carried, with why, so nothing disappears silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from tfdoctor.advice.installs import tf_requirement
from tfdoctor.derived.markers import requirement_names
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot
from tfdoctor.fix.target import Target

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix

MANAGED = frozenset(TENSORFLOW_DISTRIBUTIONS) | {
    "tensorflow-metal", "tensorflow-deps", "keras", "tf-keras", "keras-nightly", "tf-nightly",
    "tensorflow-estimator", "tensorflow-io-gcs-filesystem", "tensorboard",
    "tensorboard-data-server", "tensorboard-plugin-wit", "pip", "setuptools", "wheel",
    "distribute", "uv",
}
"""Distributions the target decides (or the environment brings), never carried over as asked."""


def carry_over(s: Snapshot, d: Any, matrix: "CompatMatrix", target: Target, tf_version: str | None,
               requested: Iterable[str] | None, mac: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """The user's own top-level packages as requirements that fit the target TensorFlow, and
    what cannot be carried over (with why)."""
    not_carried: list[tuple[str, str]] = []
    if requested is None:
        leaves = _leaves(s)
        if leaves:
            not_carried.append((", ".join(leaves), "not known whether you asked for these (the facts "
                                "have no REQUESTED markers): install what you need into the new "
                                "environment yourself"))
        return [], not_carried
    asked = {canonicalize_name(n) for n in requested}
    pins: dict[str, str] = {}
    if mac and tf_version:
        try:
            pins = matrix.tf_pins(tf_version, target.python)
        except Exception:  # noqa: BLE001 - the matrix is advice
            pins = {}
    carried: list[str] = []
    for pkg in s.packages:
        key = pkg.key
        if key not in asked or key in MANAGED:
            continue
        if pkg.error or not pkg.version:
            not_carried.append((pkg.name or key, f"its metadata could not be read ({pkg.error or 'no version'})"))
            continue
        if pkg.installer and pkg.installer != "pip" and pkg.installer != "uv":
            not_carried.append((pkg.name or key, f"installed by {pkg.installer}, not pip: install it with "
                                f"{pkg.installer} in the new environment"))
            continue
        spec = pins.get(key) if mac else tf_requirement(s, d, key)
        if spec:
            try:
                fits = SpecifierSet(spec).contains(pkg.version, prereleases=True)
            except InvalidSpecifier:
                fits = True
            carried.append(f"{key}=={pkg.version}" if fits else f"{key}{spec}")
        else:
            carried.append(f"{key}=={pkg.version}")
    return carried, not_carried


def _leaves(s: Snapshot) -> list[str]:
    """Installed distributions nothing else installed requires (the likely top-level ones)."""
    needed = requirement_names(text for pkg in s.packages for text in pkg.requires_dist)
    return sorted(p.name or p.key for p in s.packages
                  if p.key and p.key not in needed and p.key not in MANAGED)
