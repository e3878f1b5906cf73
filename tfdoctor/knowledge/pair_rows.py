"""Every TensorFlow x tensorflow-metal pair with each kind of evidence kept apart: Apple's table,
the runtime reports, the binary load check (supplied by the caller) and the wheel facts, side
by side, so a reader sees which kind of evidence says what (`tfdoctor matrix`).

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfdoctor.knowledge.records import BinaryCheck, MetalRelease, canonical_arch, version_of

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix


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


def rows(matrix: CompatMatrix, arch: str = "arm64", binary: BinaryCheck | None = None,
         prereleases: bool = True) -> list[PairRow]:
    """Every TensorFlow release (pre-releases too, unless told) x tensorflow-metal release
    that both have wheels on `arch`, with Apple's table, the reports, the binary load check
    (`binary`, e.g. from tfdoctor.knowledge.binary_evidence) and the wheel facts as separate fields,
    so a reader sees which kind of evidence says what; `status` combines them."""
    arch = canonical_arch(arch)
    out = []
    for metal in sorted(matrix.metal_releases.values(), key=lambda m: version_of(m.version)):
        metal_wheels = metal.wheels.get(arch)
        if metal_wheels is None:
            continue
        for minor in sorted(matrix.minors.values(), key=lambda m: version_of(m.minor)):
            for r in minor.releases + (minor.prereleases if prereleases else ()):
                dist = r.code.get(arch)
                tf_wheels = r.wheels(dist, arch) if dist else None
                if tf_wheels is None:
                    continue
                covering = [e for e in matrix.evidence if e.covers(r.version, metal.version)]
                checked = binary(r.version, metal.version) if binary else None
                documented = minor.minor in (metal.documented_tf_minors or ())
                out.append(PairRow(
                    tensorflow=r.version, tensorflow_metal=metal.version,
                    prerelease=version_of(r.version).is_prerelease,
                    status=matrix.pair_status(r.version, metal.version, binary)[0],
                    apple_table=metal.documented_rows if documented else (),
                    era=None if documented else _era(metal),
                    reports=tuple(f"{e.outcome}: {e.id}" for e in covering if e.is_pair),
                    behaviour=tuple(f"{e.outcome}: {e.id}" for e in covering if not e.is_pair),
                    binary=None if checked is None else "loads" if checked[0] else f"fails: {checked[1]}",
                    pythons=tuple(p for p in tf_wheels.pythons if p in metal_wheels.pythons),
                ))
    return out


def _era(metal: MetalRelease) -> str | None:
    """What a metal release was made for, when the table does not name the pair."""
    if metal.documented_tf_minors:
        return f"documented for TensorFlow {metal.documented_tf_minors[0]}-{metal.documented_tf_minors[-1]}"
    if metal.inferred_tf_minor:
        return f"inferred for TensorFlow {metal.inferred_tf_minor} (no table row names it)"
    return None
