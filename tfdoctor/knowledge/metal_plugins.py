"""Distributions that install a Metal PluggableDevice: Apple's tensorflow-metal and third-party
plugins, each with its own pairing rule, whether a third-party release fits a TensorFlow/Python/
macOS, and which plugins conflict when installed together.

The facts are compat_matrix.json `metal_plugins` (read from each plugin's sdist).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion

from tfdoctor.knowledge.records import Quote, python_minor, version_of, version_or_none

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix


@dataclass(frozen=True)
class PluginRelease:
    """One release of a third-party Metal plugin, read from its sdist."""

    version: str
    uploaded: str | None
    requires_dist: tuple[str, ...]
    requires_python: str | None
    built_for_tensorflow: str | None
    """The TensorFlow minor the release is pinned to and checks at load; None: any it is built against."""
    min_macos: str | None
    checks_tensorflow_at_load: bool
    source: str


@dataclass(frozen=True)
class MetalPlugin:
    """A distribution that installs a Metal PluggableDevice, with its own pairing rule."""

    distribution: str
    vendor: str
    library: str
    distributed_as: str
    pairing_rule: str
    releases: Mapping[str, PluginRelease]
    """Empty for Apple's tensorflow-metal, whose releases are `CompatMatrix.metal_releases`."""
    quotes: tuple[Quote, ...]
    source: str

    @property
    def third_party(self) -> bool:
        return self.distribution != "tensorflow-metal"

    def release(self, version: str) -> PluginRelease | None:
        try:
            want = version_of(version)
        except InvalidVersion:
            return None
        return next((r for v, r in self.releases.items() if version_of(v) == want), None)


@dataclass(frozen=True)
class PluginFit:
    """Whether a third-party plugin release fits this TensorFlow/Python/macOS, and why not."""

    ok: bool | None
    """None: the release is not in the matrix."""
    problems: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class PluginConflict:
    """Distributions that must not be installed together."""

    id: str
    distributions: tuple[str, ...]
    severity: str
    summary: str
    quotes: tuple[Quote, ...]
    sources: tuple[str, ...]


# --- reading them from the JSON ------------------------------------------------------------------


def parse_plugins(raw: Mapping[str, Any] | None) -> tuple[dict[str, MetalPlugin], tuple[PluginConflict, ...]]:
    """compat_matrix.json `metal_plugins`: the plugins by canonical name, and the conflicts."""
    if not raw:
        return {}, ()
    plugins = {}
    for dist, p in raw["plugins"].items():
        releases = {v: PluginRelease(v, r["uploaded"], tuple(r["requires_dist"]), r["requires_python"],
                                     r["built_for_tensorflow"], r["min_macos"], r["checks_tensorflow_at_load"],
                                     r["source"]) for v, r in (p.get("releases") or {}).items()}
        plugins[canonicalize_name(dist)] = MetalPlugin(
            dist, p["vendor"], p["library"], p["distributed_as"], p["pairing_rule"], releases,
            tuple(Quote(q["text"], q["source"]) for q in p.get("quotes", ())), p["source"])
    conflicts = tuple(PluginConflict(c["id"], tuple(c["distributions"]), c["severity"], c["summary"],
                                     tuple(Quote(q["text"], q["source"]) for q in c["quotes"]),
                                     tuple(c["sources"])) for c in raw.get("conflicts", ()))
    return plugins, conflicts


# --- questions -----------------------------------------------------------------------------------


def metal_plugins(matrix: CompatMatrix) -> tuple[MetalPlugin, ...]:
    """Every distribution that installs a Metal plugin: Apple's tensorflow-metal first."""
    return tuple(sorted(matrix.plugins.values(), key=lambda p: (p.third_party, p.distribution)))


def third_party_plugin(matrix: CompatMatrix,
                       distribution: str = "tensorflow-metal-plugin") -> MetalPlugin | None:
    """The third-party plugin of this name in the matrix (None for Apple's or an unknown one)."""
    plugin = matrix.plugins.get(canonicalize_name(distribution))
    return plugin if plugin is not None and plugin.third_party else None


def third_party_fit(matrix: CompatMatrix, tf_version: str, plugin_version: str,
                    python: str | None = None, macos: str | None = None,
                    distribution: str = "tensorflow-metal-plugin") -> PluginFit:
    """Whether a third-party plugin release pairs with this TensorFlow (its pinned minor and
    Requires-Dist), Python (Requires-Python) and macOS (its deployment target)."""
    plugin = third_party_plugin(matrix, distribution)
    rel = plugin.release(plugin_version) if plugin else None
    if rel is None:
        return PluginFit(None, (f"{distribution} {plugin_version} is not in tfdoctor's matrix",), "")
    problems = []
    minor = matrix.tf_minor(tf_version)
    if rel.built_for_tensorflow and (minor is None or minor.minor != rel.built_for_tensorflow):
        problems.append(f"{distribution} {rel.version} is built for TensorFlow {rel.built_for_tensorflow} "
                        f"only and offers no GPU with TensorFlow {tf_version}")
    for text in rel.requires_dist:
        req = Requirement(text)
        if canonicalize_name(req.name) == "tensorflow" and not req.specifier.contains(tf_version, prereleases=True):
            problems.append(f"{distribution} {rel.version} requires {text}")
    if python and rel.requires_python and not SpecifierSet(rel.requires_python).contains(python_minor(python)):
        problems.append(f"{distribution} {rel.version} requires Python {rel.requires_python}")
    if macos and rel.min_macos and version_or_none(macos) is not None \
            and version_of(macos) < version_of(rel.min_macos):
        problems.append(f"{distribution} {rel.version} needs macOS {rel.min_macos} or later")
    return PluginFit(not problems, tuple(dict.fromkeys(problems)), rel.source)


def plugin_conflicts(matrix: CompatMatrix, installed: Iterable[str]) -> tuple[PluginConflict, ...]:
    """The conflicts whose distributions are all among `installed` (distribution names)."""
    names = {canonicalize_name(n) for n in installed}
    return tuple(c for c in matrix.conflicts if {canonicalize_name(d) for d in c.distributions} <= names)
