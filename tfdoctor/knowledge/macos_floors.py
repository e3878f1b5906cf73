"""The macOS a TensorFlow wheel needs, for every release with a macOS wheel (compat_matrix.json
`macos_floors`, written by tools/macos_floors.py from the registry's file names and the wheels'
Mach-O load commands).

Two facts per wheel: its platform tag (macosx_10_11_x86_64: pip installs it on 10.11 and later)
and the minimum macOS its binaries were built for (LC_BUILD_VERSION / LC_VERSION_MIN_MACOSX). A
tag is often looser than the binaries: it is the tag of the Python the wheel was built with
(TensorFlow 2.0.1's cp37 wheel is macosx_10_6_intel, its libraries are built for 10.14), and such
a build installs on an older macOS and fails at import with a system symbol missing
(tensorflow/tensorflow#38601: TensorFlow 2.2 on 10.13, `____chkstk_darwin` expected in
libSystem). Whether the binaries' floor binds is evidence, not certainty, and the evidence
differs by architecture: on x86_64, builds made for a newer macOS than the Mac's failed at import
(tensorflow/tensorflow#38601, #3034, #52726: `____chkstk_darwin` and others expected in
libSystem); on arm64 they were seen running below it (tensorflow-macos 2.5.0, built for 12.0, on
11.4: tests/scenarios/healthy_m1_tfmacos250_metal011_bigsur_114.json; tensorflow-metal 0.5.1,
built for 13.0, on 12.6). So `built_for` is given where it has bound: x86_64.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from tfdoctor.knowledge import eras
from tfdoctor.knowledge.kernels import bundled_section
from tfdoctor.knowledge.records import python_minor

SECTION = "macos_floors"
RELEASE_PACKAGES = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos")
"""The distributions whose macOS wheels the section lists."""
BINDING_ARCH = "x86_64"
"""Where a build made for a newer macOS than its tag was seen failing at import (module doc)."""


@dataclass(frozen=True)
class WheelFloor:
    """The macOS floor of one release's wheels with one platform tag on one architecture."""

    package: str
    version: str
    arch: str
    tag: str
    """The platform tag's macOS: pip installs the wheel on no older one."""
    platform_tag: str
    python: tuple[str, ...]
    binaries: str | None
    """The newest minos among the wheel's Mach-O files (None: a shim without code)."""
    read_on: str

    @property
    def built_for(self) -> str | None:
        """The binaries' floor where it is above the tag (the tag is then looser than the build),
        on the architecture where such builds were seen failing (x86_64; see the module doc)."""
        if self.arch != BINDING_ARCH or not self.binaries:
            return None
        return self.binaries if _key(self.binaries) > _key(self.tag) else None

    @property
    def needs(self) -> str:
        return self.built_for or self.tag


def wheel_floor(package: str, version: str, arch: str, python: str | None = None,
                installed_tags: tuple[str, ...] = (), raw: Mapping[str, Any] | None = None) -> WheelFloor | None:
    """The floor of `package` `version` on `arch`: of the wheels for `python` ('3.8') when the
    release has any, else of all its wheels; the most lenient of them (a floor states what no
    wheel of that Python can do without). `installed_tags` (the installed WHEEL's tags,
    'cp37-cp37m-macosx_10_11_x86_64'), when known, must name one of the registry's platform tags:
    a wheel the registry never served is another build, and these facts are not its."""
    section = bundled_section(SECTION, raw)
    rows = section.get("releases", {}).get(package, {}).get(_norm(version), {}).get(arch)
    if not isinstance(rows, list) or not rows:
        return None
    floors = [WheelFloor(package, _norm(version), arch, str(r["tag"]), str(r["platform_tag"]),
                         tuple(r.get("python", ())), r.get("binaries"), str(section.get("read_on", "")))
              for r in rows if isinstance(r, Mapping) and r.get("tag")]
    platforms = {t.rsplit("-", 1)[-1] for t in installed_tags if "macosx_" in t}
    if platforms:
        floors = [f for f in floors if f.platform_tag in platforms]
    tag = "cp" + python.replace(".", "") if python else None
    for_python = [f for f in floors if tag in f.python]
    return min(for_python or floors, key=lambda f: _key(f.needs), default=None)


def wheel_pythons(package: str, version: str, raw: Mapping[str, Any] | None = None) -> dict[str, frozenset[str]]:
    """Architecture -> the Python tags ('cp38') the registry has macOS wheels of `package`
    `version` for (empty when the release is not in the section): TensorFlow 2.3.0 has cp35-cp38
    on x86_64 only, so neither Python 3.9 nor Apple silicon gets a wheel of it."""
    section = bundled_section(SECTION, raw)
    archs = section.get("releases", {}).get(package, {}).get(_norm(version), {})
    if not isinstance(archs, Mapping):
        return {}
    return {arch: frozenset(p for r in rows if isinstance(r, Mapping) for p in r.get("python", ()))
            for arch, rows in archs.items() if isinstance(rows, list) and rows}


def wheel_archs(package: str, version: str, raw: Mapping[str, Any] | None = None) -> frozenset[str]:
    """The architectures the registry has macOS wheels of `package` `version` for: TensorFlow
    before 2.13 has x86_64 only, so on Apple silicon an installed one went into an x86_64 Python."""
    return frozenset(wheel_pythons(package, version, raw))


def first_release_for(arch: str, raw: Mapping[str, Any] | None = None) -> tuple[str, str] | None:
    """The first final release of any TensorFlow distribution with a macOS wheel for `arch`
    (package, version): for arm64 tensorflow-macos 2.5.0, so no TensorFlow before 2.5 was ever
    built for Apple silicon on the registry (Apple's 2020-21 fork came from GitHub, see eras)."""
    releases = bundled_section(SECTION, raw).get("releases", {})
    firsts = [(_key(version), package, version) for package in RELEASE_PACKAGES
              for version in releases.get(package, {})
              if not _key(version).is_prerelease and arch in wheel_pythons(package, version, raw)]
    if not firsts:
        return None
    _v, package, version = min(firsts)
    return package, version


def oldest_arm64_build(raw: Mapping[str, Any] | None = None) -> str:
    """The oldest TensorFlow ever built for arm64 macOS: Apple's fork of 2.4.0rc0 (from GitHub,
    tfdoctor.knowledge.eras), before the registry's first (tensorflow-macos 2.5.0). On Apple
    silicon a TensorFlow older than it is an x86_64 one."""
    registry = first_release_for("arm64", raw)
    return min((eras.FORK_BASE, *(registry[1:] if registry else ())), key=Version)


def registry_wheels(package: str, raw: Mapping[str, Any] | None = None) -> dict[str, dict[str, tuple[frozenset[str], str]]]:
    """Release -> architecture -> (the Pythons, '3.5', it has macOS wheels for; the oldest macOS
    one of them runs on: its tag, or on x86_64 its binaries' floor where that binds, as
    WheelFloor.needs): every release since TensorFlow 0.12, 1.x included."""
    out: dict[str, dict[str, tuple[frozenset[str], str]]] = {}
    for version, archs in bundled_section(SECTION, raw).get("releases", {}).get(package, {}).items():
        if not isinstance(archs, Mapping):
            continue
        table = {}
        for arch, rows in archs.items():
            rows = [r for r in rows if isinstance(r, Mapping) and r.get("tag")] if isinstance(rows, list) else []
            if rows:
                pythons = frozenset(python_minor(p) for r in rows for p in r.get("python", ())
                                    if p.startswith("cp") and len(p) > 3)
                floors = [WheelFloor(package, version, arch, str(r["tag"]), "", (), r.get("binaries"), "").needs
                          for r in rows]
                table[arch] = (pythons, min(floors, key=_key))
        if table:
            out[_norm(version)] = table
    return out


def python_floors(python: str, arch: str, raw: Mapping[str, Any] | None = None) -> list[WheelFloor]:
    """The floor of every final release, of every distribution the section lists, with a macOS
    wheel for `python` ('3.7') on `arch`."""
    tag = "cp" + python.replace(".", "")
    releases = bundled_section(SECTION, raw).get("releases", {})
    return [floor for package in RELEASE_PACKAGES for version in releases.get(package, {})
            if not _key(version).is_prerelease and _key(version) > Version("0")
            and tag in wheel_pythons(package, version, raw).get(arch, ())
            and (floor := wheel_floor(package, version, arch, python, raw=raw)) is not None]


def below_every_release(macos: str, python: str, arch: str, raw: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """Facts of a macOS older than every release with a wheel for `python` on `arch` asks (on
    10.11 with Python 3.7 the one that asks least, tensorflow 1.13.1, was built for 10.12), with
    the newest release for another Python that runs on it; None when one for `python` does."""
    floors = python_floors(python, arch, raw)
    if not floors or any(_key(macos) >= _key(f.needs) for f in floors):
        return None
    least = min(floors, key=lambda f: _key(f.needs))
    facts: dict[str, Any] = {
        "needs": least.needs, "least_demanding": f"{least.package} {least.version}",
        "by": "wheel tag" if least.built_for is None else f"binaries built for it; wheel tag {least.tag}",
        "releases_judged": len(floors), "source": source()}
    others = [(_key(f.version), minor, f) for minor in range(5, 15) if f"3.{minor}" != python
              for f in python_floors(f"3.{minor}", arch, raw) if _key(macos) >= _key(f.needs)]
    if others:
        _v, minor, newest = max(others, key=lambda o: (o[0], o[1]))
        facts["runs_on_this_macos"] = {"package": newest.package, "version": newest.version, "python": f"3.{minor}"}
    return facts


@dataclass(frozen=True)
class Arrival:
    """When wheels for one Python came to one architecture, in a package's final releases."""

    first_release: str
    """The package's first final release with a macOS wheel for the architecture."""
    release: str | None
    """The first final release with a wheel for the Python there; None: none has one."""
    before: tuple[str, ...]
    """The final releases with wheels for the architecture before `release`, none for the Python."""


def python_arrival(package: str, python_tag: str, arch: str,
                   raw: Mapping[str, Any] | None = None) -> Arrival | None:
    """Since which release `package` has `arch` wheels for `python_tag` ('cp311'): tensorflow-macos
    has arm64 wheels from 2.5.0, for cp311 only from 2.12.0. None where the package has no
    wheel for the architecture."""
    releases = bundled_section(SECTION, raw).get("releases", {}).get(package, {})
    on_arch = sorted((v for v in releases if not _key(v).is_prerelease and arch in wheel_pythons(package, v, raw)),
                     key=_key)
    if not on_arch:
        return None
    with_python = [v for v in on_arch if python_tag in wheel_pythons(package, v, raw)[arch]]
    first = with_python[0] if with_python else None
    before = tuple(v for v in on_arch if first is None or _key(v) < _key(first))
    return Arrival(on_arch[0], first, before)


def source() -> str:
    """Where the section's facts come from, and when they were read."""
    section = bundled_section(SECTION)
    return f"{section.get('source', SECTION)}, read on {section.get('read_on', '?')}"


def _norm(version: str) -> str:
    return version.strip().split("+", 1)[0]


def _key(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")
