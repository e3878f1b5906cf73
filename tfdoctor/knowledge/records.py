"""The records of compat_matrix.json that pairing and recommendations read: TensorFlow releases
and their wheels, tensorflow-metal releases, runtime evidence, quirks; how each is read from the
JSON; and the small version/Python/arch helpers every tfdoctor.knowledge module shares.

Standard library and `packaging` only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

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
facts live in compat_matrix.json metal_load_check, read by tfdoctor.knowledge.binary_evidence)."""


class MatrixError(Exception):
    """compat_matrix.json is missing, unreadable, or not of the schema this code reads."""


# --- the records -------------------------------------------------------------------------------


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
        return python in self.pythons and (not macos or version_of(macos) >= version_of(self.min_macos))


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
        want = version_of(version)
        return next((r for r in self.releases + self.prereleases if version_of(r.version) == want), None)

    def pythons(self, arch: str) -> tuple[str, ...]:
        """Every Python some release of this minor has a code-carrying wheel for."""
        found = {p for r in self.releases if (d := r.code.get(arch)) and (w := r.wheels(d, arch))
                 for p in w.pythons}
        return tuple(sorted(found, key=version_of))

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
                version_of(metal_version) != version_of(self.tensorflow_metal):
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


# --- reading them from the JSON ----------------------------------------------------------------


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
        for v, r in sorted(raw.items(), key=lambda kv: version_of(kv[0])))
    for r in releases:
        for reqs in r.pins.values():
            for text in reqs:
                Requirement(text)
    return releases


def parse_minor(key: str, raw: Mapping[str, Any]) -> TFMinor:
    """One entry of compat_matrix.json `tensorflow` (a minor and its releases)."""
    return TFMinor(key, raw["newest_patch"], raw["keras_major"], _releases(raw["releases"]), raw["source"],
                   _releases(raw.get("prereleases", {})), bool(raw.get("prerelease_only", False)))


def parse_metal(key: str, raw: Mapping[str, Any]) -> MetalRelease:
    """One entry of `tensorflow_metal`."""
    def opt(name: str) -> tuple[str, ...] | None:
        return tuple(raw[name]) if raw[name] is not None else None

    return MetalRelease(
        key, _by_arch(raw["wheels"]), raw["depends_on_tensorflow"], raw["upload_date"],
        opt("documented_tf_minors"), tuple(raw["documented_rows"]), raw["apple_table_min_macos"],
        opt("own_metadata_rows"), raw["undocumented"], raw["inferred_tf_minor"], raw["inference"],
        raw["source"])


def parse_evidence(raw: Mapping[str, Any]) -> Evidence:
    """One entry of `runtime_evidence`; its specifiers are checked here, not when first used."""
    for spec in raw["tensorflow"]:
        SpecifierSet(spec)
    for spec in raw.get("keras", ()):
        SpecifierSet(spec)
    return Evidence(raw["id"], raw["tensorflow_metal"], tuple(raw["tensorflow"]), raw["outcome"],
                    raw["summary"], tuple(Quote(q["text"], q["source"]) for q in raw["quotes"]),
                    tuple(raw["sources"]), tuple(raw.get("keras", ())))


def parse_quirk(raw: Mapping[str, Any]) -> Quirk:
    """One entry of `known_quirks`."""
    return Quirk(raw["id"], raw["reference_text"], raw["summary"], raw["tfdoctor"],
                 raw["handled_by_check"], raw["needs_check"], raw["proposed_finding"], raw["source"])


# --- shared helpers ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def version_of(version: str) -> Version:
    """The parsed version (InvalidVersion for text that is not one); parsed once per text, as
    the matrix's questions compare the same few hundred versions again and again."""
    return Version(version)


def version_or_none(version: str) -> Version | None:
    """The version, or None for text that is not one (an unknown macOS, say)."""
    try:
        return Version(version)
    except (InvalidVersion, TypeError):
        return None


def python_minor(python: str) -> str:
    """"3.12", "3.12.4" or "cp312" -> "3.12"."""
    if python.startswith("cp") and python[2:].isdigit():
        return f"{python[2]}.{python[3:]}"
    return ".".join(python.split(".")[:2])


def canonical_arch(arch: str) -> str:
    """"aarch64" -> "arm64", "amd64" -> "x86_64": the names the matrix uses."""
    return _ARCH_ALIASES.get(arch, arch)
