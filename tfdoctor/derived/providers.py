"""Which installed distributions really provide TensorFlow's code. Several distributions ship the
same `tensorflow` import package and overwrite each other's files; shims (tensorflow-macos 2.16+
onto tensorflow, tensorflow 2.13-2.15 onto tensorflow-macos on Apple silicon) only depend on
another, told apart by their Requires-Dist; a self-shim (tensorflow-macos 2.15.1, a ~2 KB wheel
whose only Darwin/arm64 requirement is itself) and a shim whose target is missing install nothing.
From TensorFlow 2.1 the GPU build is `tensorflow` itself: tensorflow-gpu of the same version is
the same build under another name, so beside it it overwrites nothing that differs.
"""

from __future__ import annotations

from packaging.utils import canonicalize_name
from packaging.version import Version

from tfdoctor.derived.markers import applicable, marker_env
from tfdoctor.facts.archnames import normalise
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version


def _requires(s: Snapshot, pkg: PackageFacts) -> set[str]:
    """Distributions `pkg` requires on the diagnosed interpreter (markers evaluated there: the
    tensorflow 2.13-2.15 wheels require tensorflow-macos on macOS arm64 only)."""
    return {canonicalize_name(r.name) for r in applicable(pkg, marker_env(s))}


def _matrix_kind(pkg: PackageFacts, arch: str | None) -> tuple[str | None, str | None]:
    """(kind, source) of this distribution's macOS wheels per compat_matrix.json: full, thin,
    self-shim; (None, None) when the matrix does not know the release or cannot be read."""
    if pkg.key not in ("tensorflow", "tensorflow-macos") or not pkg.version:
        return None, None
    from tfdoctor.knowledge.matrix import load_matrix_or_none  # lazily: only TensorFlow installs need it

    matrix = load_matrix_or_none()
    release = matrix.tf_release(pkg.version) if matrix is not None else None
    if release is None:
        return None, None
    table = release.tensorflow if pkg.key == "tensorflow" else release.tensorflow_macos
    wheels = table.get(arch) if arch else None
    if wheels is None and len(table) == 1:
        wheels = next(iter(table.values()))
    return (wheels.kind, wheels.source) if wheels else (None, None)


def self_shim_evidence(s: Snapshot, pkg: PackageFacts) -> dict | None:
    """Why `pkg` is a self-shim that installs no TensorFlow (matrix kind and/or its own
    Requires-Dist naming itself for this interpreter), or None when it is not one."""
    arch = normalise(s.python.process_arch) if s.python else None
    kind, source = _matrix_kind(pkg, arch)
    own = [str(r) for r in applicable(pkg, marker_env(s)) if canonicalize_name(r.name) == pkg.key]
    if kind != "self-shim" and not own:
        return None
    evidence: dict = {"distribution": pkg.name, "version": pkg.version}
    if kind == "self-shim":
        evidence["matrix_kind"] = kind
        evidence["matrix_source"] = f"compat_matrix.json: {source}"
    if own:
        evidence["requires_itself"] = own
    return evidence


def missing_target_evidence(s: Snapshot, pkg: PackageFacts) -> dict | None:
    """Why `pkg` is a shim whose code-carrying target is not installed: it requires (for this
    interpreter) another TensorFlow distribution that is absent. None when it is not one."""
    installed = {d.key for d in s.tensorflow_distributions()}
    targets = [r for r in applicable(pkg, marker_env(s))
               if canonicalize_name(r.name) in _TF_KEYS and canonicalize_name(r.name) != pkg.key]
    missing = [str(r) for r in targets if canonicalize_name(r.name) not in installed]
    if not missing:
        return None
    arch = normalise(s.python.process_arch) if s.python else None
    kind, source = _matrix_kind(pkg, arch)
    evidence: dict = {"distribution": pkg.name, "version": pkg.version, "requires_missing": missing}
    if kind:
        evidence["matrix_kind"] = kind
        evidence["matrix_source"] = f"compat_matrix.json: {source}"
    return evidence


_TF_KEYS = {canonicalize_name(n) for n in TENSORFLOW_DISTRIBUTIONS}


def hollow_shims(s: Snapshot) -> list[PackageFacts]:
    """Installed TensorFlow shims whose target is missing: they install no usable code."""
    empty = self_shims(s)
    return [d for d in s.tensorflow_distributions()
            if d not in empty and missing_target_evidence(s, d) is not None]


def self_shims(s: Snapshot) -> list[PackageFacts]:
    """Installed TensorFlow distributions that ship no code and depend only on themselves."""
    return [d for d in s.tensorflow_distributions() if self_shim_evidence(s, d) is not None]


GPU_TWINS = {"tensorflow-gpu": "tensorflow", "tf-nightly-gpu": "tf-nightly"}
"""The GPU builds' names and the default builds that carry the GPU from 2.1 (tensorflow-gpu's newest
release, 2.12.0, is only an error at install)."""
_GPU_IN_DEFAULT_BUILD = Version("2.1")
"""From 2.1 `tensorflow` ships GPU support (before it, `tensorflow` was CPU-only and installed
over tensorflow-gpu it replaced the GPU build's files)."""


def _twin(s: Snapshot, pkg: PackageFacts) -> bool:
    """tensorflow-gpu (or tf-nightly-gpu) of the same 2.1+ version as the default build beside it."""
    default = GPU_TWINS.get(pkg.key)
    other = s.package(default) if default else None
    version = parse_version(pkg.version)
    return bool(other and version and other.version == pkg.version and version >= _GPU_IN_DEFAULT_BUILD)


def _arch(s: Snapshot) -> str | None:
    """The architecture wheels were chosen for: the process's, else (a report that does not say)
    the Mac's own."""
    if s.python and s.python.process_arch:
        return normalise(s.python.process_arch)
    return "arm64" if s.host.hw_arm64 else None


def providers(s: Snapshot) -> tuple[list[PackageFacts], list[PackageFacts]]:
    """Split installed TensorFlow distributions into those shipping code and shims onto them: by
    their Requires-Dist, or, where a report lists names and versions only, by the matrix's kind
    of the release's wheel (tensorflow 2.13-2.15 for arm64 is a thin wheel onto tensorflow-macos).

    A GPU twin (`_twin`) is counted with the shims: the same code as its default build.
    Self-shims (see `self_shims`) are in neither list: they install nothing. A shim onto one of
    them therefore is not a provider either, so with only those installed both lists are empty
    of code-carrying distributions."""
    dists = s.tensorflow_distributions()
    empty = self_shims(s) + hollow_shims(s)
    keys = {d.key for d in dists}
    arch = _arch(s)
    shims = [d for d in dists if d not in empty and keys - {d.key}
             and (_requires(s, d) & (keys - {d.key}) or _matrix_kind(d, arch)[0] == "thin" or _twin(s, d))]
    real = [d for d in dists if d not in shims and d not in empty]
    return real, shims
