"""The snapshot as it would be after a prescription: its changes (tfdoctor.model.Change) applied
to the package set, as pip would apply them, with the matrix's pins and TensorFlow's requirements.

Advice is checked the way a compiler checks a program: apply it, diagnose the result again
(tfdoctor.engine.vet), and a finding the environment did not have means the advice is wrong.
What happens at run time after the change is not known, so every observation of the old state
(the import, probes, a log, a run, a model) is dropped: unknown, never assumed healthy or broken.
A change this module cannot model (a requirement that does not parse, a version it cannot pick)
gives None: the advice is then neither confirmed nor refused.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Iterable, Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tfdoctor.derived import derive, pip_arch
from tfdoctor.derived.markers import marker_env
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, BinaryInfo, PackageFacts, PluginBinary, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge.keras_releases import KerasRelease
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.model import DIAGNOSED, Change

OBSERVATIONS = ("runtime", "probes", "log", "run", "model")
"""Snapshot sections observed in the old state: unknown after any change."""
METAL = "tensorflow-metal"


class Unmodelled(Exception):
    """A change whose result this module cannot tell (the what-if is then inconclusive)."""


class WouldFail(Exception):
    """pip would refuse the change: it pins a TensorFlow or tensorflow-metal release that has no
    wheel for this Python and architecture (the matrix knows every macOS wheel of both)."""


def after(s: Snapshot, changes: Sequence[Change], matrix: CompatMatrix) -> Snapshot | None:
    """The snapshot after `changes`, in order; None when one of them cannot be modelled, and
    WouldFail when pip would refuse one. Changes to an environment other than the diagnosed one
    are applied to that environment (a "new-env" change starts it), and the result is the last
    environment changed."""
    envs: dict[str, Snapshot] = {DIAGNOSED: s}
    current = DIAGNOSED
    try:
        for change in changes:
            current = change.environment
            if change.action == "new-env":
                envs[current] = _new_environment(s, change, matrix)
                continue
            base = envs.get(current)
            if base is None:
                raise Unmodelled(f"no environment {current!r} was made before it is changed")
            envs[current] = _apply(base, change, matrix)
    except Unmodelled:
        return None
    return envs[current]


def _apply(s: Snapshot, change: Change, matrix: CompatMatrix) -> Snapshot:
    if change.action == "set-env":
        return dataclasses.replace(s, env={**s.env, str(change.variable): str(change.value)})
    if change.action == "unset-env":
        return dataclasses.replace(s, env={k: v for k, v in s.env.items() if k != change.variable})
    if change.action == "run-as":
        if s.python is None:
            raise Unmodelled("no interpreter to start another way")
        native = dataclasses.replace(s.python, process_arch=str(change.value), translated=False)
        return dataclasses.replace(s, python=native, **{name: None for name in OBSERVATIONS})
    forgotten = {name: None for name in OBSERVATIONS}
    if change.action == "uninstall":
        gone = {canonicalize_name(n) for n in change.requirements}
        plugins = [p for p in s.plugins if not (METAL in gone and _is_metal_plugin(p))]
        return dataclasses.replace(s, packages=[p for p in s.packages if p.key not in gone],
                                   plugins=plugins, **forgotten)
    if change.action == "install":
        return _Installer(s, matrix, change).install(change.requirements)
    raise Unmodelled(f"unknown action {change.action}")


def _new_environment(s: Snapshot, change: Change, matrix: CompatMatrix) -> Snapshot:
    """A fresh venv made with Python `change.python`, on the same machine, running natively (the
    interpreter that makes it is another one: nothing of the old binary carries over)."""
    py = s.python
    if py is None or not change.python:
        raise Unmodelled("no interpreter facts to make a new environment from")
    d = derive(s)
    prefix = os.path.expanduser(change.environment)
    base = py.base_prefix or py.prefix
    version = change.python if change.python.count(".") >= 2 else f"{change.python}.0"
    arch = d.hardware_arch if d.is_mac else (py.process_arch or d.hardware_arch)
    python = dataclasses.replace(
        py, version=version, executable=os.path.join(prefix, "bin", "python"), prefix=prefix,
        base_prefix=base if base != prefix else "/", process_arch=arch, translated=False if d.is_mac else None,
        binary=BinaryInfo(archs=[arch]), framework=None, conda=None, externally_managed=False,
        site_packages=[os.path.join(prefix, "lib", f"python{change.python}", "site-packages")])
    fresh = dataclasses.replace(s, python=python, packages=[], plugins=[], errors=[],
                                **{name: None for name in OBSERVATIONS})
    return fresh


def _is_metal_plugin(plugin: PluginBinary) -> bool:
    return (plugin.name or "").startswith("libmetal_plugin")


class _Installer:
    """One `pip install`: each requirement at the version pip would pick, then (unless
    --no-deps) its requirements that the installed set does not meet, one level deep."""

    def __init__(self, s: Snapshot, matrix: CompatMatrix, change: Change) -> None:
        self.s = s
        self.matrix = matrix
        self.options = set(change.options)
        self.packages = {p.key: p for p in s.packages}
        self.plugins = list(s.plugins)
        py = s.python
        self.python = py.minor if py else ""
        self.mac = s.host.system == "Darwin"
        self.arch = pip_arch(s) or ""  # pip picks wheels for what it runs as
        env = marker_env(s)
        self.env = dict(env, platform_machine=self.arch or env["platform_machine"])

    def install(self, requirements: Iterable[str]) -> Snapshot:
        upgrade = bool(self.options & {"--upgrade", "-U", "--force-reinstall"})
        wanted = [self._requirement(text) for text in requirements]
        for req in wanted:
            self._put(req, upgrade)
        if "--no-deps" not in self.options:
            for req in wanted:
                self._dependencies(self.packages[canonicalize_name(req.name)], req.extras)
        return dataclasses.replace(self.s, packages=list(self.packages.values()), plugins=self.plugins,
                                   **{name: None for name in OBSERVATIONS})

    @staticmethod
    def _requirement(text: str) -> Requirement:
        try:
            return Requirement(text)
        except InvalidRequirement:
            raise Unmodelled(f"not a requirement: {text}") from None

    def _put(self, req: Requirement, upgrade: bool) -> None:
        key = canonicalize_name(req.name)
        now = self.packages.get(key)
        keep = now is not None and not upgrade and now.version and _contains(req.specifier, now.version)
        version = now.version if keep and now else self._pick(key, req.specifier, now)
        self.packages[key] = PackageFacts(
            name=key, version=version, location=_dist_info(self.s, key, version),
            requires_dist=self._requires(key, version, now if keep else None), installer="pip")
        if key == METAL and not any(_is_metal_plugin(p) for p in self.plugins):
            site = self.s.python.site_packages[0] if self.s.python and self.s.python.site_packages else ""
            self.plugins.append(PluginBinary(os.path.join(site, "tensorflow-plugins"), "libmetal_plugin.dylib",
                                             "mach-o", [self.arch]))

    def _dependencies(self, pkg: PackageFacts, extras: Iterable[str]) -> None:
        for text in pkg.requires_dist:
            req = self._requirement(text)
            env = [dict(self.env, extra=e) for e in extras] or [self.env]
            if req.marker is not None and not any(req.marker.evaluate(e) for e in env):
                continue
            now = self.packages.get(canonicalize_name(req.name))
            if now is None or not now.version or not _contains(req.specifier, now.version):
                self._put(req, upgrade=True)

    def _pick(self, key: str, spec: SpecifierSet, now: PackageFacts | None) -> str:
        """The newest known release that fits (TensorFlow, tensorflow-metal, keras, tf-keras from
        the matrix), else the installed one when it fits (a reinstall, or an upgrade to a
        release tfdoctor does not know), else a version the specifier itself names."""
        known = self._known(key)
        for version in sorted(known, key=Version, reverse=True):
            if spec.contains(version):
                return version
        if self.mac and key in (*TENSORFLOW_DISTRIBUTIONS, METAL) and not (self.python and self.arch):
            raise Unmodelled(f"which {key} wheel pip picks: the Python or its architecture is not known")
        if self.mac and key in (*TENSORFLOW_DISTRIBUTIONS, METAL) and self._catalogued(key, spec):
            raise WouldFail(f"no {key} {spec} wheel for Python {self.python} ({self.arch})")
        if now is not None and now.version and _contains(spec, now.version):
            return now.version
        candidate = _from_specifier(spec)
        if candidate is None:
            raise Unmodelled(f"no version of {key} known to fit {spec or 'any'}")
        return candidate

    def _catalogued(self, key: str, spec: SpecifierSet) -> bool:
        """Some release that fits `spec` is in the matrix (for any Python): then none fitting
        here means pip finds no wheel, not that tfdoctor does not know the release."""
        m = self.matrix
        if key == METAL:
            return any(spec.contains(r.version) for r in m.metal_releases.values())
        return any(spec.contains(r.version) for minor in m.minors.values() for r in minor.releases)

    def _known(self, key: str) -> list[str]:
        m = self.matrix
        if key in TENSORFLOW_DISTRIBUTIONS:
            dist = "tensorflow-macos" if key == "tensorflow-macos" else "tensorflow"
            return [r.version for minor in m.minors.values() for r in minor.releases
                    if not self.mac or _installs(r.wheels(dist, self.arch), self.python)]
        if key == METAL:
            return [r.version for r in m.metal_releases.values()
                    if not self.mac or r.has(self.python, self.arch)]
        releases: Sequence[KerasRelease] = m.keras_releases.get(key, ())
        return [r.version for r in releases
                if not r.prerelease and not r.yanked and r.installs_on(self.python or "3.11")]

    def _requires(self, key: str, version: str, kept: PackageFacts | None) -> list[str]:
        """Requires-Dist of the release installed: what is installed now when it stays; for
        TensorFlow its pins from the matrix (and a thin wheel's dependency); tf-keras's pin
        on TensorFlow; nothing known otherwise."""
        if kept is not None:
            return list(kept.requires_dist)
        m = self.matrix
        if key in TENSORFLOW_DISTRIBUTIONS:
            release = m.tf_release(version)
            wheels = release.wheels("tensorflow-macos" if key == "tensorflow-macos" else "tensorflow", self.arch) \
                if release and self.mac else None
            requires = [wheels.depends_on] if wheels and wheels.depends_on else []
            try:
                pins = m.tf_pins(version, self.python or None)
            except (InvalidVersion, ValueError):
                pins = {}
            return requires + [f"{name}{spec}" for name, spec in pins.items()]
        release = next((r for r in m.keras_releases.get(key, ()) if r.version == version), None)
        return list(release.tensorflow) if release else []


def _installs(wheels: object, python: str) -> bool:
    return wheels is not None and python in getattr(wheels, "pythons", ())


def _contains(spec: SpecifierSet, version: str) -> bool:
    try:
        return spec.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def _from_specifier(spec: SpecifierSet) -> str | None:
    """A version that satisfies `spec`, from the versions its clauses name: `>=1.23.5` -> 1.23.5,
    `<2.0.0` -> 1.999, `==2.19.*` -> 2.19.0; None when none of them fits."""
    candidates: list[Version] = []
    for clause in spec:
        text = clause.version.rstrip(".*")
        v = parse_version(text)
        if v is None:
            continue
        release = list(v.release)
        candidates.append(v)
        bumped = release[:-1] + [release[-1] + 1]
        candidates.append(Version(".".join(map(str, bumped))))
        for i in range(len(release) - 1, -1, -1):
            if release[i] > 0:
                lower = release[:i] + [release[i] - 1, 999]
                candidates.append(Version(".".join(map(str, lower))))
                break
    if not spec:
        return None
    fitting = [c for c in candidates if spec.contains(c, prereleases=True)]
    return str(max(fitting)) if fitting else None


def _dist_info(s: Snapshot, key: str, version: str) -> str:
    py = s.python
    site = py.site_packages[0] if py and py.site_packages else ""
    return os.path.join(site, f"{key.replace('-', '_')}-{version}.dist-info")

