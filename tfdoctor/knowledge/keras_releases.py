"""keras and tf-keras releases in the matrix, and the tf-keras requirement that leaves a
TensorFlow where it is.

tf-keras versions follow TensorFlow's minors and, from 2.15.1, pin that minor in their METADATA
(read from the wheels by tools/refresh_matrix.py into compat_matrix.json `keras_packages`): an
unpinned `pip install tf-keras` takes the newest and replaces the user's TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge.records import python_minor, version_of

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix


KERAS2_USERS = {
    "tensorflow-probability": ("tensorflow-probability supports Keras 2 only: from TensorFlow 2.16 through "
                               "tf-keras (its [tf] extra since 0.24.0; 0.23 and older fail at import under "
                               "Keras 3); https://github.com/tensorflow/probability/releases/tag/v0.24.0, "
                               "tensorflow/probability#2006"),
}
"""Packages whose TensorFlow code needs Keras 2 whatever their METADATA says (it names tf-keras in an
extra at most): beside TensorFlow 2.16+ without tf-keras they meet Keras 3. Only packages that are
TensorFlow's: transformers' TensorFlow models need Keras 2 too, but it is mostly run with PyTorch
beside an unused TensorFlow, and says so itself when they are used (log.keras3-api)."""


KERAS2_RELEASES = {"tensorflow-probability": "tensorflow-probability>=0.24"}
"""The first release of a KERAS2_USERS package that works beside Keras 3 through tf-keras."""


def keras2_users(packages: list[Any]) -> list[dict[str, str]]:
    """The installed packages of KERAS2_USERS, each with why it needs Keras 2 and, where its
    installed release predates tf-keras, the release to move to (`with`)."""
    out = []
    for p in (p for p in packages if p.key in KERAS2_USERS):
        entry = {"package": p.label, "requires": "Keras 2 (tf-keras)", "source": KERAS2_USERS[p.key]}
        first, installed = KERAS2_RELEASES.get(p.key), parse_version(p.version or "")
        if first and installed and not SpecifierSet(first.split(p.key, 1)[1]).contains(installed, prereleases=True):
            entry["with"] = first
        out.append(entry)
    return out


@dataclass(frozen=True)
class KerasRelease:
    """One keras or tf-keras release, as its wheel's METADATA describes it."""

    distribution: str
    version: str
    requires_python: str | None
    tensorflow: tuple[str, ...]
    """Its Requires-Dist lines naming TensorFlow (tf-keras pins one minor; keras 3 names none)."""
    prerelease: bool
    yanked: bool
    upload_date: str | None
    wheel: str | None

    def installs_on(self, python: str) -> bool:
        return not self.requires_python or SpecifierSet(self.requires_python).contains(python_minor(python))

    def admits_tensorflow(self, tf_version: str) -> bool | None:
        """Whether its TensorFlow pin allows this version; None when it pins none."""
        reqs = [Requirement(t) for t in self.tensorflow]
        reqs = [r for r in reqs if canonicalize_name(r.name) == "tensorflow"]
        if not reqs:
            return None
        return any(r.specifier.contains(tf_version, prereleases=True) for r in reqs)


@dataclass(frozen=True)
class TfKerasPin:
    """The tf-keras requirement that leaves a TensorFlow where it is, and what an unpinned
    `pip install tf-keras` would do instead."""

    requirement: str
    """`tf-keras~=2.19.0`, or `tf-keras==X` where only a pre-release fits."""
    tensorflow_minor: str
    releases: tuple[str, ...]
    """The tf-keras versions it admits (not yanked)."""
    tensorflow_pins: tuple[str, ...]
    """Their TensorFlow Requires-Dist lines (empty for 2.14.1 and 2.15.0, which pin none)."""
    unpinned: str | None
    """The tf-keras an unpinned install takes for this Python (the newest final, not yanked)."""
    unpinned_moves_tensorflow: bool
    """True when that release's pin excludes this TensorFlow, so pip would replace TensorFlow."""
    source: str


# --- reading them from the JSON ------------------------------------------------------------------


def parse_keras(raw: Mapping[str, Any] | None) -> dict[str, tuple[KerasRelease, ...]]:
    """compat_matrix.json `keras_packages`: "keras" and "tf-keras" -> releases, oldest first."""
    if not raw:
        return {}
    out = {}
    for dist in ("keras", "tf-keras"):
        releases = []
        for version, r in raw.get(dist, {}).items():
            for text in r["tensorflow"]:
                Requirement(text)
            releases.append(KerasRelease(dist, version, r["requires_python"], tuple(r["tensorflow"]),
                                         r["prerelease"], r["yanked"], r["upload_date"], r["wheel"]))
        out[dist] = tuple(sorted(releases, key=lambda k: version_of(k.version)))
    return out


# --- questions -----------------------------------------------------------------------------------


def unpinned_tf_keras(matrix: CompatMatrix, python: str | None = None) -> KerasRelease | None:
    """What `pip install tf-keras` takes: the newest final, not yanked, that installs on `python`."""
    fits = [r for r in matrix.keras_releases.get("tf-keras", ())
            if not r.prerelease and not r.yanked and (python is None or r.installs_on(python))]
    return max(fits, key=lambda r: version_of(r.version)) if fits else None


def tf_keras_requirement(matrix: CompatMatrix, tf_version: str,
                         python: str | None = None) -> TfKerasPin | None:
    """The tf-keras requirement that matches TensorFlow X.Y: `tf-keras~=X.Y.0` (tf-keras
    versions follow TensorFlow's minors and, from 2.15.1, pin it in their METADATA); None
    where no tf-keras release fits (before 2.14, or 2.22 today). Fix commands that install
    tf-keras must use it: unpinned, pip takes tf-keras 2.21.0 and upgrades TensorFlow."""
    minor = matrix.tf_minor(tf_version)
    if minor is None:
        return None
    key, py = minor.minor, python_minor(python) if python else None
    same = [r for r in matrix.keras_releases.get("tf-keras", ()) if not r.yanked
            and f"{version_of(r.version).major}.{version_of(r.version).minor}" == key
            and (py is None or r.installs_on(py)) and r.admits_tensorflow(tf_version) is not False]
    finals = [r for r in same if not r.prerelease]
    if finals:
        requirement, picked = f"tf-keras~={key}.0", finals
    elif same and version_of(tf_version).is_prerelease:
        picked = [max(same, key=lambda r: version_of(r.version))]
        requirement = f"tf-keras=={picked[0].version}"
    else:
        return None
    unpinned = unpinned_tf_keras(matrix, py)
    return TfKerasPin(
        requirement=requirement, tensorflow_minor=key,
        releases=tuple(r.version for r in picked),
        tensorflow_pins=tuple(sorted({t for r in picked for t in r.tensorflow})),
        unpinned=unpinned.version if unpinned else None,
        unpinned_moves_tensorflow=bool(unpinned and unpinned.admits_tensorflow(tf_version) is False),
        source=f"compat_matrix.json keras_packages.tf-keras (wheel METADATA, read {matrix.facts_read})",
    )


def keras_requirement(matrix: CompatMatrix, tf_version: str, python: str | None = None) -> str | None:
    """The Keras that is TensorFlow X.Y's own, as a requirement: `keras~=X.Y.0` for 2.6-2.15
    (keras releases follow TensorFlow's minors there: the matrix has keras 2.6.0 ... 2.15.0;
    TensorFlow 2.6.0's own pin, keras~=2.6, also admits 2.7), the tf-keras of the minor for
    2.16+ (Keras 2 beside Keras 3); None before 2.6, where Keras ships inside TensorFlow."""
    minor = matrix.tf_minor(tf_version)
    if minor is None:
        return None
    if minor.keras_major == 2:
        key = minor.minor
        same = [r for r in matrix.keras_releases.get("keras", ()) if not r.yanked
                and f"{version_of(r.version).major}.{version_of(r.version).minor}" == key]
        return f"keras~={key}.0" if same else None
    pin = tf_keras_requirement(matrix, tf_version, python)
    return pin.requirement if pin else None
