"""Every log signature runs in time linear in its input (issue 22, class 2): a pasted log (and the
output `run` feeds through the same recogniser) is hostile text, and a regular expression that
backtracks on it takes minutes of one core on a few MB.

For each signature, adversarial text is built from the signature itself: its needle repeated,
the start of its real example cut at several points (near-misses, so that the flat view is read
too) and followed by long runs of
characters its regex's character classes accept, on one line and on many. `match_all` (what
`recognise` runs per signature) is timed on 1 MB and 4 MB of that text: 4 times the input must
cost about 4 times the processor time (below 8). tests/hostile/test_paste_linear.py holds every pattern
and every pass in front of the signatures to the same.
"""

from __future__ import annotations

import re
import string
import time
import warnings

import pytest

from tfdoctor.logtext.catalog import SIGNATURES, recognise
from tfdoctor.logtext.scan import match_all
from tfdoctor.logtext.signature import Signature

pytestmark = pytest.mark.slow  # time growth: every signature timed at two sizes

MB = 1 << 20
RUN = 1500
"""Characters of one run of accepted characters (longer than a line, shorter than a window)."""
MAX_RATIO = 8.0
_CLASS = re.compile(r"\[(?:\\.|[^\]\\])+\]|\\[sSwWdD]|\.")
_ALPHABET = string.ascii_letters + string.digits + string.punctuation + " \t"


def _fillers(signature: Signature) -> list[str]:
    """A few characters each character class (and \\s, \\w, ., ...) of the regex accepts."""
    out: list[str] = []
    for token in _CLASS.findall(signature.regex.pattern):
        try:
            with warnings.catch_warnings():  # a class cut out of its regex may read as a nested set
                warnings.simplefilter("ignore", FutureWarning)
                accepts = re.compile(token)
        except re.error:
            continue
        chars = [c for c in _ALPHABET if accepts.fullmatch(c)]
        for c in chars[:2] + chars[-1:]:
            if c not in out:
                out.append(c)
    return out or [" "]


def _units(signature: Signature) -> list[str]:
    lines = signature.example.split("\n")
    first = next((l for l in lines if signature.needle and signature.needle in l), lines[0])
    at = max(first.find(signature.needle), 0) if signature.needle else 0
    end = at + len(signature.needle)
    # never the whole line: a signature that matches is not tried again on the flat view; cut
    # after the needle and one character into each later word (a run then lengthens that word)
    points = [end + k for k in (0, 4, 12, 30, 60, 10 ** 6)]
    points += [i + 2 for i, c in enumerate(first) if i >= end and c in " =-_:(["]
    cuts = sorted({first[:min(len(first) - 1, p)] for p in points})
    units = [(signature.needle + " ") * 50] if signature.needle else []
    units += [cut[:-1] for cut in cuts if cut]  # near-misses
    for filler in _fillers(signature):
        units += [cut + filler * RUN for cut in cuts]
    return units


def adversarial(signature: Signature, size: int) -> str:
    """`size` characters of adversarial text for `signature`: each unit gets an equal share, as
    many lines of it, and as one long line of it repeated (what the flat view of a wrapped paste
    sees)."""
    units = _units(signature)
    share = size // (2 * len(units))
    parts = []
    for unit in units:
        for separator in ("\n", " "):
            piece = unit + separator
            parts.append((piece * (share // len(piece) + 1))[:share])
    return "\n".join(parts)


def _seconds(text: str, signatures: tuple[Signature, ...], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        match_all(text, signatures)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.variant)
def test_each_signature_runs_in_linear_time_on_adversarial_text(signature):
    """1 MB of adversarial text against the same text four times: the same pieces in the same
    proportions (a text is read in blocks, each trying the flat view for what its clean view did
    not find, so a text of other proportions does other work). Lines too long to be repeated
    cheaply are tests/hostile/test_paste_linear.py's."""
    text = adversarial(signature, MB) + "\n"
    small = _seconds(text, (signature,), repeat=2)
    large = _seconds(text * 4, (signature,))
    # Below 50 ms the ratio is noise (the process is shared); above, it is the complexity.
    assert large < 0.2 or large / small < MAX_RATIO, (
        f"{signature.variant}: {small:.3f} s on 1 MB, {large:.3f} s on 4 MB")


def test_recognise_over_all_signatures_stays_linear():
    """The whole catalogue over every signature's adversarial text together."""
    mixed = "".join(adversarial(s, 64 * 1024) for s in SIGNATURES)
    small_text = (mixed * (MB // len(mixed) + 1))[:MB]
    large_text = (mixed * (4 * MB // len(mixed) + 1))[:4 * MB]
    started = time.process_time()
    recognise(small_text)
    small = time.process_time() - started
    started = time.process_time()
    recognise(large_text)
    large = time.process_time() - started
    assert large / small < MAX_RATIO, f"{small:.3f} s on 1 MB, {large:.3f} s on 4 MB"
