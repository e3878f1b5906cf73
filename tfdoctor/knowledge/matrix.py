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

This module holds `CompatMatrix`, its loading, the pins and a pair's status. The questions
asked of it live beside it, each a function taking the matrix: `best_pair` (what to install, the
pair to move to), `keras_releases` (tf-keras pins), `metal_plugins` (plugins, third-party fit,
conflicts) and `pair_rows` (every pair with each kind of evidence apart). Its records are in
`records`.

Standard library and `packaging` only: no numpy or tensorflow is imported here.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfdoctor.knowledge.keras_releases import KerasRelease, parse_keras
from tfdoctor.knowledge.metal_plugins import (
    MetalPlugin,
    PluginConflict,
    parse_plugins,
)
from tfdoctor.knowledge.records import (
    PIN_NAMES,
    BinaryCheck,
    Evidence,
    MatrixError,
    MetalRelease,
    Quirk,
    TFMinor,
    TFRelease,
    parse_evidence,
    parse_metal,
    parse_minor,
    parse_quirk,
    python_minor,
    version_of,
)

SCHEMA_VERSION = 1


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
    _answers: dict = field(default_factory=dict, compare=False, repr=False)

    def remembered(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """`compute()` once per key for this matrix: its questions are pure functions of it, and
        a triage or a what-if asks the same ones again for every machine it tries."""
        if key not in self._answers:
            self._answers[key] = compute()
        return self._answers[key]

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
            py = python_minor(python)
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


    def metal_min_macos(self, metal: MetalRelease, arch: str) -> str:
        """The macOS a tensorflow-metal needs: the stricter of its wheel tag and Apple's table
        (for a release no row names, the rows of the minor it is inferred for)."""
        floors = [metal.wheels[arch].min_macos] if arch in metal.wheels else []
        if metal.apple_table_min_macos:
            floors.append(metal.apple_table_min_macos)
        elif metal.inferred_tf_minor:
            floors += [m.apple_table_min_macos for m in self.metal_releases.values()
                       if m.apple_table_min_macos and metal.inferred_tf_minor in (m.documented_tf_minors or ())]
        return max(floors, key=version_of) if floors else "0"


    # -- a pair's status -----------------------------------------------------------------------

    def pair_status(self, tf_version: str, metal_version: str, binary: BinaryCheck | None = None
                    ) -> tuple[str, str, tuple[str, ...]]:
        """(status, evidence, sources) of a pair: `pairing` without the fix."""
        if binary is not None:  # a load check is a new function each time: nothing to remember by
            return self._pair_status(tf_version, metal_version, binary)
        return self.remembered(("pair_status", tf_version, metal_version),
                               lambda: self._pair_status(tf_version, metal_version, None))

    def _pair_status(self, tf_version: str, metal_version: str, binary: BinaryCheck | None
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
        if version_of(minor_key) > version_of(era[-1]):
            return ("metal-predates-tf", f"tensorflow-metal {metal.version} was made for TensorFlow "
                    f"{span} ({how}); TensorFlow {tf_version} is newer and no table or report "
                    "covers the pair", table)
        if version_of(minor_key) < version_of(era[0]):
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
        v = version_of(metal.version)
        if metal.documented_tf_minors or v.is_prerelease:
            return None
        series = [m for m in self.metal_releases.values() if m.documented_tf_minors
                  and (version_of(m.version).major, version_of(m.version).minor) == (v.major, v.minor)]
        return min(series, key=lambda m: abs(version_of(m.version).micro - v.micro)) if series else None

    def _release_with_pins(self, tf_version: str) -> TFRelease | None:
        """The release whose pins stand for this version: itself, else its minor's newest with pins."""
        minor = self.tf_minor(tf_version)
        if minor is None:
            return None
        exact = minor.release(tf_version)
        if exact and exact.pins:
            return exact
        return next((r for r in reversed(minor.releases or minor.prereleases) if r.pins), None)


# --- loading -------------------------------------------------------------------------------------


def default_path() -> Path:
    """The bundled file: package data when installed, else the repository root beside tfdoctor/."""
    try:
        resource = importlib.resources.files("tfdoctor").joinpath("compat_matrix.json")
        if resource.is_file():
            return Path(str(resource))
    except (ModuleNotFoundError, OSError):
        pass
    return Path(__file__).resolve().parents[2] / "compat_matrix.json"


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
        plugins, conflicts = parse_plugins(raw.get("metal_plugins"))
        return CompatMatrix(
            schema_version=raw["schema_version"],
            facts_read=raw["facts_read"],
            minors={k: parse_minor(k, v) for k, v in raw["tensorflow"].items()},
            metal_releases={k: parse_metal(k, v) for k, v in raw["tensorflow_metal"].items()},
            apple_table=tuple(raw["apple_table"]["rows"]),
            evidence=tuple(parse_evidence(e) for e in raw["runtime_evidence"]),
            quirks=tuple(parse_quirk(q) for q in raw["known_quirks"]),
            recommended=raw["recommended"],
            keras_releases=parse_keras(raw.get("keras_packages")),
            plugins=plugins,
            conflicts=conflicts,
        )
    except (KeyError, TypeError, ValueError, InvalidVersion, InvalidRequirement) as exc:
        raise MatrixError(f"malformed compatibility matrix: {type(exc).__name__}: {exc}") from None
