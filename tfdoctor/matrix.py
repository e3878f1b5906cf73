"""The bundled compatibility knowledge (compat_matrix.json) and the questions checks ask of it.

Wheel facts (which wheel exists for which Python, arch and macOS; the pins that bite on macOS
arm64; Apple's TensorFlow/tensorflow-metal table) are rebuilt by tools/refresh_matrix.py from
the index. Runtime evidence (which pairs load or fail, from public reports) and known quirks are
hand-curated and kept apart: a pair's status prefers runtime evidence over Apple's table, because
the table documents tensorflow-metal 1.1.0 for TensorFlow 2.18 and it fails to load there. The
kinds stay separate for the reader too: `rows()` gives, per pair, Apple's table, the reports,
the binary load check (supplied by the caller) and the wheel facts side by side. keras and
tf-keras releases (Requires-Python, TensorFlow pins) answer what a tf-keras install drags in;
`metal_plugins()` names every distribution that installs a Metal plugin, with its pairing rule.

Standard library and `packaging` only: no numpy or tensorflow is imported here.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from packaging.utils import canonicalize_name

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

SCHEMA_VERSION = 1
ARCHES = ("arm64", "x86_64")
STATUSES = ("documented", "known-working", "known-broken", "undocumented",
            "metal-predates-tf", "metal-postdates-tf", "loads-untested")
"""loads-untested: only with a binary load check, which finds that the plugin loads while no
runtime report covers the pair (not an error: it loads and was not tested at run time)."""
GOOD_STATUSES = ("known-working", "documented")
"""Pairs tfdoctor will recommend: reported to work, or documented by Apple and not reported broken."""
PIN_NAMES = ("numpy", "keras", "keras-nightly", "protobuf", "h5py", "ml-dtypes")
_ARCH_ALIASES = {"aarch64": "arm64", "arm64e": "arm64", "amd64": "x86_64", "i386": "x86_64"}

BinaryCheck = Callable[[str, str], "tuple[bool, str] | None"]
"""(TensorFlow version, tensorflow-metal version) -> (loads, what the binary load check found,
e.g. "libmetal_plugin.dylib needs __ZN3tsl8internal10LogMessageC1EPKcii, which tensorflow 2.18.0
does not export"), or None where it did not read the pair. Supplied by the caller (the binary
facts live in compat_matrix.json metal_load_check, read by tfdoctor.binary_evidence)."""


class MatrixError(Exception):
    """compat_matrix.json is missing, unreadable, or not of the schema this code reads."""


# ---------------------------------------------------------------------------------------------
# the data


@dataclass(frozen=True)
class Wheels:
    """One distribution's macOS wheels of one version for one architecture."""

    kind: str | None
    """full; thin (a ~2 KB wheel whose `depends_on` carries the code); self-shim (depends only
    on itself, so installs no TensorFlow); None where only filenames were read."""
    depends_on: str | None
    pythons: tuple[str, ...]
    min_macos: str
    platform_tags: tuple[str, ...]
    requires_python: str | None
    files: tuple[str, ...]
    source: str

    def has(self, python: str, macos: str | None = None) -> bool:
        """A wheel exists for this Python (and installs on this macOS, when given)."""
        return python in self.pythons and (not macos or _v(macos) >= _v(self.min_macos))


@dataclass(frozen=True)
class TFRelease:
    """One TensorFlow version: its official and Apple wheels and its pins on macOS arm64."""

    version: str
    tensorflow: Mapping[str, Wheels]
    tensorflow_macos: Mapping[str, Wheels]
    code: Mapping[str, str]
    """arch -> the distribution that brings TensorFlow's code there (the other may be a shim)."""
    pins: Mapping[str, tuple[str, ...]]
    """numpy/keras/protobuf/h5py/ml-dtypes as PEP 508 requirements (markers kept), macOS arm64."""
    pins_source: str | None

    def wheels(self, distribution: str, arch: str) -> Wheels | None:
        table = self.tensorflow if distribution == "tensorflow" else self.tensorflow_macos
        return table.get(arch)

    def requirement(self, python: str, arch: str, macos: str | None = None) -> str | None:
        """`dist==version` that installs TensorFlow's code for this Python/arch/macOS, or None."""
        dist = self.code.get(arch)
        wheels = self.wheels(dist, arch) if dist else None
        return f"{dist}=={self.version}" if wheels and wheels.has(python, macos) else None


@dataclass(frozen=True)
class TFMinor:
    """A TensorFlow minor (2.5 ... 2.21) with its final releases, oldest first."""

    minor: str
    newest_patch: str
    """The newest final release; the newest pre-release where there is none yet (2.22.0rc0)."""
    keras_major: int | None
    releases: tuple[TFRelease, ...]
    source: str
    prereleases: tuple[TFRelease, ...] = ()
    """Release candidates, oldest first: kept apart so recommendations never pick one."""
    prerelease_only: bool = False

    def release(self, version: str) -> TFRelease | None:
        """A final release or a pre-release of this minor."""
        want = _v(version)
        return next((r for r in self.releases + self.prereleases if _v(r.version) == want), None)

    def pythons(self, arch: str) -> tuple[str, ...]:
        """Every Python some release of this minor has a code-carrying wheel for."""
        found = {p for r in self.releases if (d := r.code.get(arch)) and (w := r.wheels(d, arch))
                 for p in w.pythons}
        return tuple(sorted(found, key=_v))

    @property
    def tensorflow_macos(self) -> dict[str, str | None]:
        """version -> kind of the tensorflow-macos arm64 (else x86_64) wheels: full, thin, self-shim."""
        out = {}
        for r in self.releases:
            w = r.tensorflow_macos.get("arm64") or r.tensorflow_macos.get("x86_64")
            if w:
                out[r.version] = w.kind
        return out


@dataclass(frozen=True)
class MetalRelease:
    """One tensorflow-metal version: its wheels and what Apple's table says of it."""

    version: str
    wheels: Mapping[str, Wheels]
    depends_on_tensorflow: bool
    upload_date: str | None
    documented_tf_minors: tuple[str, ...] | None
    documented_rows: tuple[str, ...]
    apple_table_min_macos: str | None
    own_metadata_rows: tuple[str, ...] | None
    undocumented: bool
    inferred_tf_minor: str | None
    inference: str | None
    source: str

    @property
    def tf_minors(self) -> tuple[str, ...]:
        """The minors it was made for: documented, else the (labelled) inference, else none."""
        if self.documented_tf_minors:
            return self.documented_tf_minors
        return (self.inferred_tf_minor,) if self.inferred_tf_minor else ()

    def has(self, python: str, arch: str) -> bool:
        w = self.wheels.get(arch)
        return bool(w and w.has(python))


@dataclass(frozen=True)
class Quote:
    text: str
    source: str


@dataclass(frozen=True)
class Evidence:
    """A runtime report: a pair that loads or fails, or a behaviour on Metal (hand-curated)."""

    id: str
    tensorflow_metal: str | None
    """The metal version it concerns; None: any."""
    tensorflow: tuple[str, ...]
    """Specifiers, any of which selects the TensorFlow versions it concerns; empty: any."""
    outcome: str
    """works, fails (pair evidence); slow, unsupported, wrong-results, cannot-train (behaviour)."""
    summary: str
    quotes: tuple[Quote, ...]
    sources: tuple[str, ...]
    keras: tuple[str, ...] = ()
    """Specifiers of the Keras versions it concerns; empty: any."""

    @property
    def is_pair(self) -> bool:
        return self.outcome in ("works", "fails") and self.tensorflow_metal is not None

    def covers(self, tf_version: str, metal_version: str | None = None,
               keras_version: str | None = None) -> bool:
        """Whether it concerns this TensorFlow (and metal, and Keras when given; a report that
        names a Keras range does not cover a Keras outside it)."""
        if metal_version is not None and self.tensorflow_metal is not None and \
                _v(metal_version) != _v(self.tensorflow_metal):
            return False
        if keras_version is not None and self.keras and not any(
                SpecifierSet(s).contains(keras_version, prereleases=True) for s in self.keras):
            return False
        return not self.tensorflow or any(
            SpecifierSet(s).contains(tf_version, prereleases=True) for s in self.tensorflow)


@dataclass(frozen=True)
class Quirk:
    """A place where documents and wheels disagree, and what tfdoctor does about it."""

    id: str
    reference_text: str
    summary: str
    tfdoctor: str
    handled_by_check: str | None
    needs_check: bool
    proposed_finding: str | None
    source: str


@dataclass(frozen=True)
class Pairing:
    """How a TensorFlow version and a tensorflow-metal version go together, and why we think so."""

    tensorflow: str
    tensorflow_metal: str
    status: str
    evidence: str
    sources: tuple[str, ...]
    fix: tuple[str, ...]
    """pip requirements that give a good pair (empty when the pair is fine or nothing is known)."""


@dataclass(frozen=True)
class PythonSupport:
    """What exists for one Python on one architecture."""

    python: str
    arch: str
    tensorflow: tuple[str, ...]
    """TensorFlow versions with a code-carrying wheel for this Python/arch."""
    tensorflow_metal: tuple[str, ...]
    known_working: tuple[tuple[str, str], ...]
    documented: tuple[tuple[str, str], ...]
    newest_python_with_working_pair: str | None


@dataclass(frozen=True)
class Recommendation:
    """What to install for a Python/arch/macOS, or why nothing fits (then `requirements` is empty)."""

    requirements: tuple[str, ...]
    status: str | None
    reason: str
    sources: tuple[str, ...]
    cpu_only: tuple[str, ...]
    """TensorFlow without Metal that has wheels here, for when no pair fits."""


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
        return not self.requires_python or SpecifierSet(self.requires_python).contains(_python(python))

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
            want = _v(version)
        except InvalidVersion:
            return None
        return next((r for v, r in self.releases.items() if _v(v) == want), None)


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


@dataclass(frozen=True)
class PairRow:
    """One TensorFlow x tensorflow-metal pair with every kind of evidence kept apart."""

    tensorflow: str
    tensorflow_metal: str
    prerelease: bool
    status: str
    """The combined verdict (`CompatMatrix.pairing`)."""
    apple_table: tuple[str, ...]
    """Apple's table rows that document the pair (empty: the table does not name it)."""
    era: str | None
    """What the metal release was made for when the table does not name the pair."""
    reports: tuple[str, ...]
    """Pair reports covering it, as "outcome: id"."""
    behaviour: tuple[str, ...]
    """Behaviour reports covering it (any Keras), as "outcome: id"."""
    binary: str | None
    """The binary load check: "loads", "fails: why"; None: not read (or no reader given)."""
    pythons: tuple[str, ...]
    """Pythons with wheels of both on the architecture (wheel facts)."""


# ---------------------------------------------------------------------------------------------
# the matrix and its questions


@dataclass(frozen=True)
class CompatMatrix:
    """The parsed compat_matrix.json. Build it with `load_matrix()`."""

    schema_version: int
    facts_read: str
    minors: Mapping[str, TFMinor]
    metal_releases: Mapping[str, MetalRelease]
    apple_table: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    quirks: tuple[Quirk, ...]
    recommended: Mapping[str, Any]
    keras_releases: Mapping[str, tuple[KerasRelease, ...]] = field(default_factory=dict)
    """"keras" and "tf-keras" -> releases, oldest first."""
    plugins: Mapping[str, MetalPlugin] = field(default_factory=dict)
    conflicts: tuple[PluginConflict, ...] = ()

    def tf_minor(self, version: str) -> TFMinor | None:
        """The minor of "2.19.1", "2.19" or "2.16.0rc0"; None if unknown or unparsable."""
        try:
            v = Version(version)
        except (InvalidVersion, TypeError):
            return None
        return self.minors.get(f"{v.major}.{v.minor}")

    def tf_release(self, version: str) -> TFRelease | None:
        minor = self.tf_minor(version)
        return minor.release(version) if minor else None

    def metal(self, version: str) -> MetalRelease | None:
        try:
            want = Version(version)
        except InvalidVersion:
            return None
        return next((m for m in self.metal_releases.values() if Version(m.version) == want), None)

    def tf_pins(self, tf_version: str, python: str | None = None) -> dict[str, str]:
        """numpy/keras/protobuf/h5py/ml-dtypes specifiers on macOS arm64 for this TensorFlow.

        A version the matrix lacks (a pre-release, "2.19") uses its minor's newest release with
        pins. Pins that depend on the Python (numpy for 2.16/2.17) are evaluated for `python`;
        without it only the clauses common to every Python are returned. Keys are distribution
        names, so TensorFlow 2.5's Keras is under "keras-nightly"."""
        release = self._release_with_pins(tf_version)
        if release is None:
            return {}
        env = {"platform_system": "Darwin", "sys_platform": "darwin", "platform_machine": "arm64",
               "os_name": "posix", "extra": ""}
        if python:
            py = _python(python)
            env.update(python_version=py, python_full_version=py + ".0")
        out = {}
        for name in PIN_NAMES:
            reqs = [Requirement(t) for t in release.pins.get(name, ())]
            if python:
                reqs = [r for r in reqs if r.marker is None or r.marker.evaluate(env)]
            if not reqs:
                continue
            clauses = [{str(s) for s in r.specifier} for r in reqs]
            common = set.intersection(*clauses)
            if common:
                out[name] = str(SpecifierSet(",".join(common)))
        return out

    def pairing(self, tf_version: str, metal_version: str, python: str | None = None,
                arch: str = "arm64", binary: BinaryCheck | None = None) -> Pairing:
        """The status of a TensorFlow/tensorflow-metal pair, its evidence, and the pair to move to.

        Runtime evidence and, when `binary` is given, the binary load check win over Apple's
        table (a report of failure, then a failed load check, then a report that it works);
        then the table; then the metal release's era (documented or inferred) decides whether
        it predates or postdates the TensorFlow. A pair the load check passes and nothing else
        covers is loads-untested. With `python` the fix only names wheels that exist for it."""
        status, evidence, sources = self._status(tf_version, metal_version, binary)
        fix = () if status in GOOD_STATUSES else self._fix(tf_version, python, _arch(arch))
        return Pairing(tf_version, metal_version, status, evidence, sources, fix)

    def python_support(self, python: str, arch: str) -> PythonSupport:
        """Which TensorFlow and tensorflow-metal versions have wheels for this Python/arch, the
        good pairs among them, and the newest Python that has a good pair on this arch."""
        py, arch = _python(python), _arch(arch)
        tfs = [r for m in self.minors.values() for r in m.releases if r.requirement(py, arch)]
        metals = [m for m in self.metal_releases.values() if m.has(py, arch)]
        pairs = {s: [] for s in GOOD_STATUSES}
        for r in tfs:
            for m in metals:
                status = self._status(r.version, m.version)[0]
                if status in pairs:
                    pairs[status].append((r.version, m.version))
        return PythonSupport(
            py, arch, tuple(r.version for r in tfs), tuple(m.version for m in metals),
            tuple(pairs["known-working"]), tuple(pairs["documented"]),
            self.newest_python_with_working_pair(arch),
        )

    def newest_python_with_working_pair(self, arch: str = "arm64") -> str | None:
        """The newest Python with a known-working or documented pair that has wheels on `arch`."""
        arch = _arch(arch)
        pythons = {p for m in self.metal_releases.values() if arch in m.wheels
                   for p in m.wheels[arch].pythons}
        for py in sorted(pythons, key=_v, reverse=True):
            if self._best_pair(py, arch, None):
                return py
        return None

    def recommended_install(self, python: str, arch: str, macos: str | None) -> Recommendation:
        """The pip requirements for a good TensorFlow + tensorflow-metal pair on this machine.

        Prefers a pair reported to work, then one Apple documents; the newest TensorFlow wins.
        `macos` ("14.5"; empty or None when unknown) must meet both the wheel tags and Apple's
        table. When nothing fits, `requirements` is empty and `reason` says what to do."""
        py, arch = _python(python), _arch(arch)
        macos = macos or None
        cpu = self._cpu_only(py, arch, macos)
        best = self._best_pair(py, arch, macos)
        if best:
            release, metal, status, evidence, sources = best
            tf_req = self._tf_requirement(release, metal, status, py, arch, macos)
            reqs = (tf_req, f"tensorflow-metal=={metal.version}")
            return Recommendation(reqs, status, f"{' + '.join(reqs)}: {status} ({evidence})",
                                  sources, cpu)
        return Recommendation((), None, self._why_none(py, arch, macos, cpu), (), cpu)

    def metal_min_macos(self, metal: MetalRelease, arch: str) -> str:
        """The macOS a tensorflow-metal needs: the stricter of its wheel tag and Apple's table
        (for a release no row names, the rows of the minor it is inferred for)."""
        floors = [metal.wheels[arch].min_macos] if arch in metal.wheels else []
        if metal.apple_table_min_macos:
            floors.append(metal.apple_table_min_macos)
        elif metal.inferred_tf_minor:
            floors += [m.apple_table_min_macos for m in self.metal_releases.values()
                       if m.apple_table_min_macos and metal.inferred_tf_minor in (m.documented_tf_minors or ())]
        return max(floors, key=_v) if floors else "0"

    # -- keras and tf-keras -------------------------------------------------------------------

    def unpinned_tf_keras(self, python: str | None = None) -> KerasRelease | None:
        """What `pip install tf-keras` takes: the newest final, not yanked, that installs on `python`."""
        fits = [r for r in self.keras_releases.get("tf-keras", ())
                if not r.prerelease and not r.yanked and (python is None or r.installs_on(python))]
        return max(fits, key=lambda r: _v(r.version)) if fits else None

    def tf_keras_requirement(self, tf_version: str, python: str | None = None) -> TfKerasPin | None:
        """The tf-keras requirement that matches TensorFlow X.Y: `tf-keras~=X.Y.0` (tf-keras
        versions follow TensorFlow's minors and, from 2.15.1, pin it in their METADATA); None
        where no tf-keras release fits (before 2.14, or 2.22 today). Fix commands that install
        tf-keras must use it: unpinned, pip takes tf-keras 2.21.0 and upgrades TensorFlow."""
        minor = self.tf_minor(tf_version)
        if minor is None:
            return None
        key, py = minor.minor, _python(python) if python else None
        same = [r for r in self.keras_releases.get("tf-keras", ()) if not r.yanked
                and f"{_v(r.version).major}.{_v(r.version).minor}" == key
                and (py is None or r.installs_on(py)) and r.admits_tensorflow(tf_version) is not False]
        finals = [r for r in same if not r.prerelease]
        if finals:
            requirement, picked = f"tf-keras~={key}.0", finals
        elif same and _v(tf_version).is_prerelease:
            picked = [max(same, key=lambda r: _v(r.version))]
            requirement = f"tf-keras=={picked[0].version}"
        else:
            return None
        unpinned = self.unpinned_tf_keras(py)
        return TfKerasPin(
            requirement=requirement, tensorflow_minor=key,
            releases=tuple(r.version for r in picked),
            tensorflow_pins=tuple(sorted({t for r in picked for t in r.tensorflow})),
            unpinned=unpinned.version if unpinned else None,
            unpinned_moves_tensorflow=bool(unpinned and unpinned.admits_tensorflow(tf_version) is False),
            source=f"compat_matrix.json keras_packages.tf-keras (wheel METADATA, read {self.facts_read})",
        )

    # -- Metal plugins --------------------------------------------------------------------------

    def metal_plugins(self) -> tuple[MetalPlugin, ...]:
        """Every distribution that installs a Metal plugin: Apple's tensorflow-metal first."""
        return tuple(sorted(self.plugins.values(), key=lambda p: (p.third_party, p.distribution)))

    def third_party_plugin(self, distribution: str = "tensorflow-metal-plugin") -> MetalPlugin | None:
        plugin = self.plugins.get(canonicalize_name(distribution))
        return plugin if plugin is not None and plugin.third_party else None

    def third_party_fit(self, tf_version: str, plugin_version: str, python: str | None = None,
                        macos: str | None = None, distribution: str = "tensorflow-metal-plugin") -> PluginFit:
        """Whether a third-party plugin release pairs with this TensorFlow (its pinned minor and
        Requires-Dist), Python (Requires-Python) and macOS (its deployment target)."""
        plugin = self.third_party_plugin(distribution)
        rel = plugin.release(plugin_version) if plugin else None
        if rel is None:
            return PluginFit(None, (f"{distribution} {plugin_version} is not in tfdoctor's matrix",), "")
        problems = []
        minor = self.tf_minor(tf_version)
        if rel.built_for_tensorflow and (minor is None or minor.minor != rel.built_for_tensorflow):
            problems.append(f"{distribution} {rel.version} is built for TensorFlow {rel.built_for_tensorflow} "
                            f"only and offers no GPU with TensorFlow {tf_version}")
        for text in rel.requires_dist:
            req = Requirement(text)
            if canonicalize_name(req.name) == "tensorflow" and not req.specifier.contains(tf_version, prereleases=True):
                problems.append(f"{distribution} {rel.version} requires {text}")
        if python and rel.requires_python and not SpecifierSet(rel.requires_python).contains(_python(python)):
            problems.append(f"{distribution} {rel.version} requires Python {rel.requires_python}")
        if macos and rel.min_macos and _parsed(macos) is not None and _v(macos) < _v(rel.min_macos):
            problems.append(f"{distribution} {rel.version} needs macOS {rel.min_macos} or later")
        return PluginFit(not problems, tuple(dict.fromkeys(problems)), rel.source)

    def plugin_conflicts(self, installed: Iterable[str]) -> tuple[PluginConflict, ...]:
        """The conflicts whose distributions are all among `installed` (distribution names)."""
        names = {canonicalize_name(n) for n in installed}
        return tuple(c for c in self.conflicts if {canonicalize_name(d) for d in c.distributions} <= names)

    # -- every kind of evidence, per pair -------------------------------------------------------

    def rows(self, arch: str = "arm64", binary: BinaryCheck | None = None,
             prereleases: bool = True) -> list[PairRow]:
        """Every TensorFlow release (pre-releases too, unless told) x tensorflow-metal release
        that both have wheels on `arch`, with Apple's table, the reports, the binary load check
        (`binary`, e.g. from tfdoctor.binary_evidence) and the wheel facts as separate fields,
        so a reader sees which kind of evidence says what; `status` combines them."""
        arch = _arch(arch)
        out = []
        for metal in sorted(self.metal_releases.values(), key=lambda m: _v(m.version)):
            metal_wheels = metal.wheels.get(arch)
            if metal_wheels is None:
                continue
            for minor in sorted(self.minors.values(), key=lambda m: _v(m.minor)):
                for r in minor.releases + (minor.prereleases if prereleases else ()):
                    dist = r.code.get(arch)
                    tf_wheels = r.wheels(dist, arch) if dist else None
                    if tf_wheels is None:
                        continue
                    covering = [e for e in self.evidence if e.covers(r.version, metal.version)]
                    checked = binary(r.version, metal.version) if binary else None
                    documented = minor.minor in (metal.documented_tf_minors or ())
                    out.append(PairRow(
                        tensorflow=r.version, tensorflow_metal=metal.version,
                        prerelease=_v(r.version).is_prerelease,
                        status=self._status(r.version, metal.version, binary)[0],
                        apple_table=metal.documented_rows if documented else (),
                        era=None if documented else _era(metal),
                        reports=tuple(f"{e.outcome}: {e.id}" for e in covering if e.is_pair),
                        behaviour=tuple(f"{e.outcome}: {e.id}" for e in covering if not e.is_pair),
                        binary=None if checked is None else "loads" if checked[0] else f"fails: {checked[1]}",
                        pythons=tuple(p for p in tf_wheels.pythons if p in metal_wheels.pythons),
                    ))
        return out

    # -- internals ----------------------------------------------------------------------------

    def _status(self, tf_version: str, metal_version: str, binary: BinaryCheck | None = None
                ) -> tuple[str, str, tuple[str, ...]]:
        minor = self.tf_minor(tf_version)
        minor_key = minor.minor if minor else ".".join(tf_version.split(".")[:2])
        hits = [e for e in self.evidence if e.is_pair and e.covers(tf_version, metal_version)]
        checked = binary(tf_version, metal_version) if binary else None
        for outcome, status in (("fails", "known-broken"), ("works", "known-working")):
            found = [e for e in hits if e.outcome == outcome]
            if found:
                text = "; ".join(f"{e.summary} [{e.id}]" for e in found)
                return status, text, tuple(s for e in found for s in e.sources)
            if outcome == "fails" and checked is not None and not checked[0]:
                return "known-broken", f"binary load check: {checked[1]}", ("metal_load_check",)
        metal = self.metal(metal_version)
        table = ("apple_table",)
        documented = self._documented(metal, minor_key) if metal else None
        if checked is not None:
            if documented:
                return ("documented", f"{documented}; the binary load check finds that it loads",
                        ("apple_table", "metal_load_check"))
            return ("loads-untested", f"the binary load check finds that tensorflow-metal {metal_version} "
                    f"loads with TensorFlow {tf_version} ({checked[1]}); no runtime report covers the pair, "
                    "so it was not tested at run time", ("metal_load_check",))
        if metal is None:
            return ("undocumented", f"tensorflow-metal {metal_version} is not in tfdoctor's matrix "
                    f"(facts read {self.facts_read})", ())
        if documented:
            return "documented", documented, table
        era = metal.tf_minors
        how = "documented" if metal.documented_tf_minors else "inferred, no table row names it"
        if not era:
            return "undocumented", f"no table row names tensorflow-metal {metal.version}", table
        span = era[0] if len(era) == 1 else f"{era[0]}-{era[-1]}"
        if _v(minor_key) > _v(era[-1]):
            return ("metal-predates-tf", f"tensorflow-metal {metal.version} was made for TensorFlow "
                    f"{span} ({how}); TensorFlow {tf_version} is newer and no table or report "
                    "covers the pair", table)
        if _v(minor_key) < _v(era[0]):
            return ("metal-postdates-tf", f"tensorflow-metal {metal.version} was made for TensorFlow "
                    f"{span} ({how}); TensorFlow {tf_version} is older and no table or report "
                    "covers the pair", table)
        return ("undocumented", f"no table row names tensorflow-metal {metal.version}; "
                f"{metal.inference}", table)

    def _documented(self, metal: MetalRelease, minor_key: str) -> str | None:
        """How Apple's table documents this metal release for this TensorFlow minor: its own row,
        or the row of the release of the same X.Y series (patch releases), else None."""
        if metal.documented_tf_minors and minor_key in metal.documented_tf_minors:
            return f"Apple's table documents it: {' '.join(metal.documented_rows)}"
        base = self._patch_base(metal)
        if base is not None and minor_key in base.documented_tf_minors and minor_key in (metal.tf_minors or (minor_key,)):
            series = ".".join(metal.version.split(".")[:2])
            return (f"tensorflow-metal {metal.version} belongs to the {series} series of {base.version}, "
                    f"made for the same TensorFlow {minor_key}; Apple's table documents {base.version}: "
                    f"{' '.join(base.documented_rows)}")
        return None

    def _patch_base(self, metal: MetalRelease) -> MetalRelease | None:
        """The documented release of the same X.Y series a release no table row names belongs to
        (tensorflow-metal 0.5.1 and 0.7.1 after 0.5.0 and 0.7.0; 0.1.1 before the documented
        0.1.2), or None. Patch releases are cut for the TensorFlow minor of their series."""
        v = _v(metal.version)
        if metal.documented_tf_minors or v.is_prerelease:
            return None
        series = [m for m in self.metal_releases.values() if m.documented_tf_minors
                  and (_v(m.version).major, _v(m.version).minor) == (v.major, v.minor)]
        return min(series, key=lambda m: abs(_v(m.version).micro - v.micro)) if series else None

    def _fix(self, tf_version: str, python: str | None, arch: str) -> tuple[str, ...]:
        """A good pair close to what is installed: another metal for this TensorFlow minor if one
        is reported to work or documented, else the recommended pair."""
        py = _python(python) if python else None
        minor = self.tf_minor(tf_version)
        if minor:
            works = [e for e in self.evidence if e.is_pair and e.outcome == "works"]
            for e in sorted(works, key=lambda e: _v(e.tensorflow_metal or "0"), reverse=True):
                metal = self.metal(e.tensorflow_metal or "")
                if metal is None or (py and not metal.has(py, arch)):
                    continue
                covered = [r for r in minor.releases if e.covers(r.version, metal.version)
                           and (r.requirement(py, arch) if py else r.code.get(arch))]
                if e.covers(tf_version, metal.version):
                    return (f"tensorflow-metal=={metal.version}",)
                if covered:
                    newest = covered[-1]
                    return (f"{newest.code[arch]}=={newest.version}", f"tensorflow-metal=={metal.version}")
            for metal in sorted(self.metal_releases.values(), key=lambda m: _v(m.version), reverse=True):
                if minor.minor in (metal.documented_tf_minors or ()) and (not py or metal.has(py, arch)) \
                        and self._status(tf_version, metal.version)[0] in GOOD_STATUSES:
                    return (f"tensorflow-metal=={metal.version}",)
        if py:
            return self.recommended_install(py, arch, None).requirements
        return tuple(self.recommended.get("requirements", ()))

    def _best_pair(self, py: str, arch: str, macos: str | None
                   ) -> tuple[TFRelease, MetalRelease, str, str, tuple[str, ...]] | None:
        best, best_key = None, None
        for metal in self.metal_releases.values():
            if not metal.has(py, arch) or (macos and _v(macos) < _v(self.metal_min_macos(metal, arch))):
                continue
            for minor in self.minors.values():
                for release in minor.releases:
                    if not release.requirement(py, arch, macos):
                        continue
                    status, evidence, sources = self._status(release.version, metal.version)
                    if status not in GOOD_STATUSES:
                        continue
                    key = (GOOD_STATUSES[::-1].index(status), _v(release.version), _v(metal.version))
                    if best_key is None or key > best_key:
                        best, best_key = (release, metal, status, evidence, sources), key
        return best

    def _tf_requirement(self, release: TFRelease, metal: MetalRelease | None, status: str | None,
                        py: str, arch: str, macos: str | None) -> str:
        """`dist==2.19.*` when every release of the minor fits equally well, else the exact one."""
        minor = self.tf_minor(release.version)
        dist = release.code[arch]
        peers = [r for r in minor.releases if r.code.get(arch) == dist] if minor else [release]
        fits = [r for r in peers if r.requirement(py, arch, macos) and
                (metal is None or self._status(r.version, metal.version)[0] == status)]
        if minor and fits and len(fits) == len(peers):
            return f"{dist}=={minor.minor}.*"
        return f"{dist}=={release.version}"

    def _cpu_only(self, py: str, arch: str, macos: str | None) -> tuple[str, ...]:
        for minor in sorted(self.minors.values(), key=lambda m: _v(m.minor), reverse=True):
            fitting = [r for r in minor.releases if r.requirement(py, arch, macos)]
            if fitting:
                return (self._tf_requirement(fitting[-1], None, None, py, arch, macos),)
        return ()

    def _why_none(self, py: str, arch: str, macos: str | None, cpu: tuple[str, ...]) -> str:
        target = self.newest_python_with_working_pair(arch)
        move = f": create a Python {target} environment" if target else ""
        alt = f" (or install {cpu[0]} without GPU acceleration)" if cpu else ""
        metals = [m for m in self.metal_releases.values() if m.has(py, arch)]
        if not metals:
            return f"no tensorflow-metal wheel for Python {py} ({arch}){move}{alt}"
        if not any(r.requirement(py, arch) for m in self.minors.values() for r in m.releases):
            return f"no TensorFlow wheel for Python {py} ({arch}){move}"
        if macos:
            need = min((self.metal_min_macos(m, arch) for m in metals), key=_v)
            if _v(macos) < _v(need) or not any(
                    r.requirement(py, arch, macos) for m in self.minors.values() for r in m.releases):
                return (f"tensorflow-metal and TensorFlow need macOS {need} or later on {arch} "
                        f"(wheel tags and Apple's table); this Mac runs {macos}{alt}")
        return (f"no TensorFlow/tensorflow-metal pair that is documented or known to work has "
                f"wheels for Python {py} ({arch}){move}{alt}")

    def _release_with_pins(self, tf_version: str) -> TFRelease | None:
        minor = self.tf_minor(tf_version)
        if minor is None:
            return None
        exact = minor.release(tf_version)
        if exact and exact.pins:
            return exact
        return next((r for r in reversed(minor.releases or minor.prereleases) if r.pins), None)


# ---------------------------------------------------------------------------------------------
# loading


def default_path() -> Path:
    """The bundled file: package data when installed, else the repository root beside tfdoctor/."""
    try:
        resource = importlib.resources.files("tfdoctor").joinpath("compat_matrix.json")
        if resource.is_file():
            return Path(str(resource))
    except (ModuleNotFoundError, OSError):
        pass
    return Path(__file__).resolve().parents[1] / "compat_matrix.json"


def load_matrix(path: str | Path | None = None) -> CompatMatrix:
    """Read and parse compat_matrix.json once per path; MatrixError says what is wrong with it."""
    return _load(str(Path(path) if path is not None else default_path()))


def load_matrix_or_none() -> CompatMatrix | None:
    """The bundled matrix, or None when it cannot be read: remediations fall back to plainer
    advice rather than fail a check."""
    try:
        return load_matrix()
    except MatrixError:
        return None


@functools.lru_cache(maxsize=8)
def _load(path: str) -> CompatMatrix:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MatrixError(f"compatibility matrix not found at {path}; reinstall tfdoctor") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MatrixError(f"compatibility matrix at {path} is unreadable: {exc}") from None
    try:
        return parse_matrix(raw)
    except MatrixError as exc:
        raise MatrixError(f"{path}: {exc}") from None


def parse_matrix(raw: Mapping[str, Any]) -> CompatMatrix:
    """Build the typed matrix from the decoded JSON."""
    if not isinstance(raw, Mapping) or raw.get("schema_version") != SCHEMA_VERSION:
        got = raw.get("schema_version") if isinstance(raw, Mapping) else type(raw).__name__
        raise MatrixError(f"schema_version {got!r}, this tfdoctor reads {SCHEMA_VERSION}")
    try:
        plugins, conflicts = _plugins(raw.get("metal_plugins"))
        return CompatMatrix(
            schema_version=raw["schema_version"],
            facts_read=raw["facts_read"],
            minors={k: _minor(k, v) for k, v in raw["tensorflow"].items()},
            metal_releases={k: _metal(k, v) for k, v in raw["tensorflow_metal"].items()},
            apple_table=tuple(raw["apple_table"]["rows"]),
            evidence=tuple(_evidence(e) for e in raw["runtime_evidence"]),
            quirks=tuple(_quirk(q) for q in raw["known_quirks"]),
            recommended=raw["recommended"],
            keras_releases=_keras(raw.get("keras_packages")),
            plugins=plugins,
            conflicts=conflicts,
        )
    except (KeyError, TypeError, ValueError, InvalidVersion, InvalidRequirement) as exc:
        raise MatrixError(f"malformed compatibility matrix: {type(exc).__name__}: {exc}") from None


def _wheels(raw: Mapping[str, Any]) -> Wheels:
    return Wheels(raw["kind"], raw["depends_on"], tuple(raw["python"]), raw["min_macos"],
                  tuple(raw["platform_tags"]), raw["requires_python"], tuple(raw["files"]),
                  raw["source"])


def _by_arch(raw: Mapping[str, Any]) -> dict[str, Wheels]:
    return {arch: _wheels(w) for arch, w in raw.items()}


def _releases(raw: Mapping[str, Any]) -> tuple[TFRelease, ...]:
    releases = tuple(
        TFRelease(v, _by_arch(r["tensorflow"]), _by_arch(r["tensorflow-macos"]), dict(r["code"]),
                  {k: tuple(x) for k, x in r["pins_macos_arm64"].items()}, r["pins_source"])
        for v, r in sorted(raw.items(), key=lambda kv: _v(kv[0])))
    for r in releases:
        for reqs in r.pins.values():
            for text in reqs:
                Requirement(text)
    return releases


def _minor(key: str, raw: Mapping[str, Any]) -> TFMinor:
    return TFMinor(key, raw["newest_patch"], raw["keras_major"], _releases(raw["releases"]), raw["source"],
                   _releases(raw.get("prereleases", {})), bool(raw.get("prerelease_only", False)))


def _metal(key: str, raw: Mapping[str, Any]) -> MetalRelease:
    def opt(name: str) -> tuple[str, ...] | None:
        return tuple(raw[name]) if raw[name] is not None else None

    return MetalRelease(
        key, _by_arch(raw["wheels"]), raw["depends_on_tensorflow"], raw["upload_date"],
        opt("documented_tf_minors"), tuple(raw["documented_rows"]), raw["apple_table_min_macos"],
        opt("own_metadata_rows"), raw["undocumented"], raw["inferred_tf_minor"], raw["inference"],
        raw["source"])


def _evidence(raw: Mapping[str, Any]) -> Evidence:
    for spec in raw["tensorflow"]:
        SpecifierSet(spec)
    for spec in raw.get("keras", ()):
        SpecifierSet(spec)
    return Evidence(raw["id"], raw["tensorflow_metal"], tuple(raw["tensorflow"]), raw["outcome"],
                    raw["summary"], tuple(Quote(q["text"], q["source"]) for q in raw["quotes"]),
                    tuple(raw["sources"]), tuple(raw.get("keras", ())))


def _keras(raw: Mapping[str, Any] | None) -> dict[str, tuple[KerasRelease, ...]]:
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
        out[dist] = tuple(sorted(releases, key=lambda k: _v(k.version)))
    return out


def _plugins(raw: Mapping[str, Any] | None) -> tuple[dict[str, MetalPlugin], tuple[PluginConflict, ...]]:
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


def _era(metal: MetalRelease) -> str | None:
    if metal.documented_tf_minors:
        return f"documented for TensorFlow {metal.documented_tf_minors[0]}-{metal.documented_tf_minors[-1]}"
    if metal.inferred_tf_minor:
        return f"inferred for TensorFlow {metal.inferred_tf_minor} (no table row names it)"
    return None


def _quirk(raw: Mapping[str, Any]) -> Quirk:
    return Quirk(raw["id"], raw["reference_text"], raw["summary"], raw["tfdoctor"],
                 raw["handled_by_check"], raw["needs_check"], raw["proposed_finding"], raw["source"])


# ---------------------------------------------------------------------------------------------
# small helpers


def _v(version: str) -> Version:
    return Version(version)


def _parsed(version: str) -> Version | None:
    """The version, or None for text that is not one (an unknown macOS, say)."""
    try:
        return Version(version)
    except (InvalidVersion, TypeError):
        return None


def _python(python: str) -> str:
    """"3.12", "3.12.4" or "cp312" -> "3.12"."""
    if python.startswith("cp") and python[2:].isdigit():
        return f"{python[2]}.{python[3:]}"
    return ".".join(python.split(".")[:2])


def _arch(arch: str) -> str:
    return _ARCH_ALIASES.get(arch, arch)
