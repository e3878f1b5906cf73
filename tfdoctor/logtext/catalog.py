"""Every signature tfdoctor recognises, in one list, and `recognise(text)` over all of them."""

from __future__ import annotations

from tfdoctor.logtext import importing, install, network, nvidia, said, training
from tfdoctor.logtext.scan import match_all
from tfdoctor.logtext.signature import LogMatch, Signature

SIGNATURES: tuple[Signature, ...] = (install.SIGNATURES + importing.SIGNATURES + nvidia.SIGNATURES
                                     + training.SIGNATURES + network.SIGNATURES + said.SIGNATURES)
CODES: tuple[str, ...] = tuple(sorted({s.code for s in SIGNATURES} | {
    "log.conda-tensorflow-deps-missing", "log.symbol-not-found"}))
"""Every code a match can carry (some are refinements a signature chooses per match)."""


def recognise(text: str) -> list[LogMatch]:
    """Every signature found in `text`, in the order of the text."""
    return match_all(text or "", SIGNATURES)

