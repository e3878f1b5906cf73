"""Error text as a fact: read a pasted log bounded, and recognise the messages users bring.

`read_log(path_or_dash, limit)` never raises; `recognise(text)` returns every known signature
found, with the fields it extracted. Each signature (install.py, importing.py, training.py)
carries the real message it was written against and its public source; the diagnosis with the
environment's facts is made by the checks.
"""

from __future__ import annotations

from tfdoctor.logtext import importing, install, training
from tfdoctor.logtext.reader import DEFAULT_LIMIT, LogText, read_log, read_log_bytes
from tfdoctor.logtext.signature import LogMatch, Signature, match_all

SIGNATURES: tuple[Signature, ...] = install.SIGNATURES + importing.SIGNATURES + training.SIGNATURES
CODES: tuple[str, ...] = tuple(sorted({s.code for s in SIGNATURES} | {
    "log.conda-tensorflow-deps-missing", "log.symbol-not-found"}))
"""Every code a match can carry (some are refinements a signature chooses per match)."""


def recognise(text: str) -> list[LogMatch]:
    """Every signature found in `text`, in the order of the text."""
    return match_all(text or "", SIGNATURES)


__all__ = ["CODES", "DEFAULT_LIMIT", "LogMatch", "LogText", "SIGNATURES", "Signature",
           "read_log", "read_log_bytes", "recognise"]
