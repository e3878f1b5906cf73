"""The TensorFlow a companion release is built for (compat_matrix.json `companion_pins`, read by
tools/companion_pins.py from each release's METADATA): tensorflow-text, tensorflow-io and
tensorflow-decision-forests ship compiled ops linked against one TensorFlow minor, so with another
TensorFlow their ops fail to load. A report that names the two versions is enough to tell."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfdoctor.knowledge.kernels import bundled_section

SECTION = "companion_pins"
_TENSORFLOW_NAMES = ("tensorflow", "tensorflow-macos")
_EXTRA_FOR_TENSORFLOW = "tensorflow"
"""tensorflow-io pins TensorFlow through its `tensorflow` extra only."""


@dataclass(frozen=True)
class BuiltFor:
    package: str
    version: str
    tensorflow: SpecifierSet
    source: str

    def fits(self, tf_version: str) -> bool:
        try:
            return self.tensorflow.contains(Version(tf_version), prereleases=True)
        except InvalidVersion:
            return True  # an unreadable version: no claim


def built_for(package: str, version: str, raw: Mapping[str, Any] | None = None) -> BuiltFor | None:
    """What the companion release's METADATA requires of TensorFlow, or None where it is not read
    (or names no TensorFlow, as tensorflow-io before its extras did not)."""
    entry = bundled_section(SECTION, raw).get("releases", {}).get(package, {}).get(version)
    if not isinstance(entry, Mapping):
        return None
    for line in entry.get("requires", ()):
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if req.name.lower() not in _TENSORFLOW_NAMES or not str(req.specifier):
            continue
        marker = str(req.marker or "")
        if "extra" in marker and f"== \"{_EXTRA_FOR_TENSORFLOW}\"" not in marker.replace("'", '"'):
            continue
        return BuiltFor(package, version, req.specifier, f"{entry.get('source', '')} METADATA")
    return None


def release_for(package: str, tf_version: str, raw: Mapping[str, Any] | None = None) -> str | None:
    """The newest release of `package` built for TensorFlow `tf_version`, if any."""
    releases = bundled_section(SECTION, raw).get("releases", {}).get(package, {})
    fitting = [v for v in releases if (b := built_for(package, v, raw)) is not None and b.fits(tf_version)]
    return max(fitting, key=Version, default=None)


def packages(raw: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    return tuple(bundled_section(SECTION, raw).get("releases", {}))
