"""What to install: the good TensorFlow + tensorflow-metal pair for a Python/arch/macOS, what
exists for one Python, and the pair to move to from a bad one.

"Good" is GOOD_STATUSES: reported to work, or documented by Apple and not reported broken
(`CompatMatrix.pair_status`); a pair reported to work wins, then the newest TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfdoctor.knowledge.records import (
    GOOD_STATUSES,
    BinaryCheck,
    MetalRelease,
    Pairing,
    TFRelease,
    canonical_arch,
    python_minor,
    version_of,
)

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix


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


def pairing(matrix: CompatMatrix, tf_version: str, metal_version: str, python: str | None = None,
            arch: str = "arm64", binary: BinaryCheck | None = None) -> Pairing:
    """The status of a TensorFlow/tensorflow-metal pair, its evidence, and the pair to move to.

    Runtime evidence and, when `binary` is given, the binary load check win over Apple's
    table (a report of failure, then a failed load check, then a report that it works);
    then the table; then the metal release's era (documented or inferred) decides whether
    it predates or postdates the TensorFlow. A pair the load check passes and nothing else
    covers is loads-untested. With `python` the fix only names wheels that exist for it."""
    status, evidence, sources = matrix.pair_status(tf_version, metal_version, binary)
    fix: tuple[str, ...] = ()
    if status not in GOOD_STATUSES:
        fix = fix_for(matrix, tf_version, python, canonical_arch(arch))
    return Pairing(tf_version, metal_version, status, evidence, sources, fix)


def python_support(matrix: CompatMatrix, python: str, arch: str) -> PythonSupport:
    """Which TensorFlow and tensorflow-metal versions have wheels for this Python/arch, the
    good pairs among them, and the newest Python that has a good pair on this arch."""
    py, arch = python_minor(python), canonical_arch(arch)
    tfs = [r for m in matrix.minors.values() for r in m.releases if r.requirement(py, arch)]
    metals = [m for m in matrix.metal_releases.values() if m.has(py, arch)]
    pairs = {s: [] for s in GOOD_STATUSES}
    for r in tfs:
        for m in metals:
            status = matrix.pair_status(r.version, m.version)[0]
            if status in pairs:
                pairs[status].append((r.version, m.version))
    return PythonSupport(
        py, arch, tuple(r.version for r in tfs), tuple(m.version for m in metals),
        tuple(pairs["known-working"]), tuple(pairs["documented"]),
        newest_python_with_working_pair(matrix, arch),
    )


def newest_python_with_working_pair(matrix: CompatMatrix, arch: str = "arm64") -> str | None:
    """The newest Python with a known-working or documented pair that has wheels on `arch`."""
    arch = canonical_arch(arch)
    pythons = {p for m in matrix.metal_releases.values() if arch in m.wheels
               for p in m.wheels[arch].pythons}
    for py in sorted(pythons, key=version_of, reverse=True):
        if _best_pair(matrix, py, arch, None):
            return py
    return None


def recommended_install(matrix: CompatMatrix, python: str, arch: str,
                        macos: str | None) -> Recommendation:
    """The pip requirements for a good TensorFlow + tensorflow-metal pair on this machine.

    Prefers a pair reported to work, then one Apple documents; the newest TensorFlow wins.
    `macos` ("14.5"; empty or None when unknown) must meet both the wheel tags and Apple's
    table. When nothing fits, `requirements` is empty and `reason` says what to do."""
    return matrix.remembered(("recommended_install", python, arch, macos or None),
                             lambda: _recommended(matrix, python, arch, macos))


def _recommended(matrix: CompatMatrix, python: str, arch: str, macos: str | None) -> Recommendation:
    py, arch = python_minor(python), canonical_arch(arch)
    macos = macos or None
    cpu = _cpu_only(matrix, py, arch, macos)
    best = _best_pair(matrix, py, arch, macos)
    if best:
        release, metal, status, evidence, sources = best
        tf_req = _tf_requirement(matrix, release, metal, status, py, arch, macos)
        reqs = (tf_req, f"tensorflow-metal=={metal.version}")
        return Recommendation(reqs, status, f"{' + '.join(reqs)}: {status} ({evidence})",
                              sources, cpu)
    return Recommendation((), None, _why_none(matrix, py, arch, macos, cpu), (), cpu)


def fix_for(matrix: CompatMatrix, tf_version: str, python: str | None,
            arch: str) -> tuple[str, ...]:
    """A good pair close to what is installed: another metal for this TensorFlow minor if one
    is reported to work or documented, else the recommended pair."""
    py = python_minor(python) if python else None
    minor = matrix.tf_minor(tf_version)
    if minor:
        works = [e for e in matrix.evidence if e.is_pair and e.outcome == "works"]
        for e in sorted(works, key=lambda e: version_of(e.tensorflow_metal or "0"), reverse=True):
            metal = matrix.metal(e.tensorflow_metal or "")
            if metal is None or (py and not metal.has(py, arch)):
                continue
            covered = [r for r in minor.releases if e.covers(r.version, metal.version)
                       and (r.requirement(py, arch) if py else r.code.get(arch))]
            if e.covers(tf_version, metal.version):
                return (f"tensorflow-metal=={metal.version}",)
            if covered:
                newest = covered[-1]
                return (f"{newest.code[arch]}=={newest.version}", f"tensorflow-metal=={metal.version}")
        for metal in sorted(matrix.metal_releases.values(), key=lambda m: version_of(m.version), reverse=True):
            if minor.minor in (metal.documented_tf_minors or ()) and (not py or metal.has(py, arch)) \
                    and matrix.pair_status(tf_version, metal.version)[0] in GOOD_STATUSES:
                return (f"tensorflow-metal=={metal.version}",)
    if py:
        return recommended_install(matrix, py, arch, None).requirements
    return tuple(matrix.recommended.get("requirements", ()))


def _best_pair(matrix: CompatMatrix, py: str, arch: str, macos: str | None
               ) -> tuple[TFRelease, MetalRelease, str, str, tuple[str, ...]] | None:
    """The best good pair with wheels here: (release, metal, status, evidence, sources)."""
    best, best_key = None, None
    for metal in matrix.metal_releases.values():
        if not metal.has(py, arch) or (macos and version_of(macos) < version_of(matrix.metal_min_macos(metal, arch))):
            continue
        for minor in matrix.minors.values():
            for release in minor.releases:
                if not release.requirement(py, arch, macos):
                    continue
                status, evidence, sources = matrix.pair_status(release.version, metal.version)
                if status not in GOOD_STATUSES:
                    continue
                key = (GOOD_STATUSES[::-1].index(status), version_of(release.version), version_of(metal.version))
                if best_key is None or key > best_key:
                    best, best_key = (release, metal, status, evidence, sources), key
    return best


def _tf_requirement(matrix: CompatMatrix, release: TFRelease, metal: MetalRelease | None,
                    status: str | None, py: str, arch: str, macos: str | None) -> str:
    """`dist==2.19.*` when every release of the minor fits equally well, else the exact one."""
    minor = matrix.tf_minor(release.version)
    dist = release.code[arch]
    peers = [r for r in minor.releases if r.code.get(arch) == dist] if minor else [release]
    fits = [r for r in peers if r.requirement(py, arch, macos) and
            (metal is None or matrix.pair_status(r.version, metal.version)[0] == status)]
    if minor and fits and len(fits) == len(peers):
        return f"{dist}=={minor.minor}.*"
    return f"{dist}=={release.version}"


def _cpu_only(matrix: CompatMatrix, py: str, arch: str, macos: str | None) -> tuple[str, ...]:
    """TensorFlow without Metal for this machine: the newest minor with a fitting wheel."""
    for minor in sorted(matrix.minors.values(), key=lambda m: version_of(m.minor), reverse=True):
        fitting = [r for r in minor.releases if r.requirement(py, arch, macos)]
        if fitting:
            return (_tf_requirement(matrix, fitting[-1], None, None, py, arch, macos),)
    return ()


def _why_none(matrix: CompatMatrix, py: str, arch: str, macos: str | None,
              cpu: tuple[str, ...]) -> str:
    """Why no good pair fits, and what to do instead."""
    target = newest_python_with_working_pair(matrix, arch)
    move = f": create a Python {target} environment" if target else ""
    alt = f" (or install {cpu[0]} without GPU acceleration)" if cpu else ""
    metals = [m for m in matrix.metal_releases.values() if m.has(py, arch)]
    if not metals:
        return f"no tensorflow-metal wheel for Python {py} ({arch}){move}{alt}"
    if not any(r.requirement(py, arch) for m in matrix.minors.values() for r in m.releases):
        return f"no TensorFlow wheel for Python {py} ({arch}){move}"
    if macos:
        need = min((matrix.metal_min_macos(m, arch) for m in metals), key=version_of)
        if version_of(macos) < version_of(need) or not any(
                r.requirement(py, arch, macos) for m in matrix.minors.values() for r in m.releases):
            return (f"tensorflow-metal and TensorFlow need macOS {need} or later on {arch} "
                    f"(wheel tags and Apple's table); this Mac runs {macos}{alt}")
    return (f"no TensorFlow/tensorflow-metal pair that is documented or known to work has "
            f"wheels for Python {py} ({arch}){move}{alt}")
