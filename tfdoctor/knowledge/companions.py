"""The TensorFlow a companion release is built for (compat_matrix.json `companion_pins`, read by
tools/companion_pins.py from each release's wheel): tensorflow-text, tensorflow-io and
tensorflow-decision-forests ship compiled ops linked against one TensorFlow minor (their METADATA
says which), so with another TensorFlow their ops fail to load; tensorflow-addons names the range
its custom ops were compiled for in its code, while its Python ops run on more; tensorflow-probability
has no compiled ops, but its import refuses a TensorFlow older than the one it names. A report that
names the two versions is enough to tell."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfdoctor.facts.versions import same_release
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
    compiled_ops_only: bool = False
    """The range binds the package's compiled ops only (tensorflow-addons' ABI range): its Python
    ops run on other TensorFlows."""
    checked_at_import: bool = False
    """The range is the package's own check at import (tensorflow-probability's
    required_tensorflow_version): with another TensorFlow it refuses to import."""

    def fits(self, tf_version: str) -> bool:
        """Whether a TensorFlow is in the range, by its release: a nightly or candidate of 2.2
        (2.2.0.dev20200310, 2.2.0rc1) is the 2.2 line its ops were linked against, not 2.1."""
        try:
            return self.tensorflow.contains(Version(Version(tf_version).base_version), prereleases=True)
        except InvalidVersion:
            return True  # an unreadable version: no claim


def built_for(package: str, version: str, raw: Mapping[str, Any] | None = None) -> BuiltFor | None:
    """What the companion release's METADATA requires of TensorFlow, or None where it is not read
    (or names no TensorFlow, as tensorflow-io before its extras did not)."""
    releases = bundled_section(SECTION, raw).get("releases", {}).get(package, {})
    entry = releases.get(version)
    if entry is None:  # a report's "tensorflow-io 0.21" is the release the registry calls 0.21.0
        entry = next((releases[known] for known in releases if same_release(known, version)), None)
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
        read_from, at_import = entry.get("read_from"), entry.get("checked_at") == "import"
        return BuiltFor(package, version, req.specifier, f"{entry.get('source', '')} {read_from or 'METADATA'}",
                        compiled_ops_only=bool(read_from) and not at_import, checked_at_import=at_import)
    return None


def release_for(package: str, tf_version: str, raw: Mapping[str, Any] | None = None) -> str | None:
    """The newest release of `package` built for TensorFlow `tf_version`, if any."""
    releases = bundled_section(SECTION, raw).get("releases", {}).get(package, {})
    fitting = [v for v in releases if (b := built_for(package, v, raw)) is not None and b.fits(tf_version)]
    return max(fitting, key=Version, default=None)


def packages(raw: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    return tuple(bundled_section(SECTION, raw).get("releases", {}))
