"""Every log signature runs in time linear in its input (issue 22, class 2): a pasted log (and the
output `run` feeds through the same recogniser) is hostile text, and a regular expression that
backtracks on it takes minutes of one core on a few MB.

For each signature, adversarial text is built from the signature itself: its needle repeated,
the start of its real example cut at several points (near-misses, so that the flat view is read
too) and followed by long runs of
characters its regex's character classes accept, on one line and on many. `match_all` (what
`recognise` runs per signature) runs on 1 MB and 8 MB of that text: 8 times the input must cost
about 8 times the CPU time (below 16; a backtracking regex costs 64 times). No absolute time is
asserted (tests/support/linear.py).
"""

from __future__ import annotations

import re
import string
import warnings

import pytest
from support.linear import cost_ratio

from tfdoctor.logtext.catalog import SIGNATURES, recognise
from tfdoctor.logtext.signature import Signature, match_all

MB = 1 << 20
RUN = 1500
"""Characters of one run of accepted characters (longer than a line, shorter than a window)."""
MAX_RATIO = 16.0
"""Twice linear: 8 times the input costs about 8 times the CPU time (a pass that rescans its line
for each needle cost 29 times)."""
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


@pytest.mark.parametrize("signature", SIGNATURES, ids=lambda s: s.variant)
def test_each_signature_runs_in_linear_time_on_adversarial_text(signature):
    small, large = adversarial(signature, MB), adversarial(signature, 8 * MB)
    ratio = cost_ratio(lambda: match_all(small, (signature,)), lambda: match_all(large, (signature,)),
                       rounds=2)
    assert ratio < MAX_RATIO, f"{signature.variant}: 8 MB costs {ratio:.1f} times 1 MB"


def test_recognise_over_all_signatures_stays_linear():
    """The whole catalogue over every signature's adversarial text together."""
    mixed = "".join(adversarial(s, 64 * 1024) for s in SIGNATURES)
    small = (mixed * (MB // len(mixed) + 1))[:MB]
    large = (mixed * (8 * MB // len(mixed) + 1))[:8 * MB]
    ratio = cost_ratio(lambda: recognise(small), lambda: recognise(large), rounds=2)
    assert ratio < MAX_RATIO, f"8 MB costs {ratio:.1f} times 1 MB"


def test_log_from_an_endless_standard_input_is_cut_at_the_bound():
    """`yes | tfdoctor check --log -`: standard input is read up to its bound, then left, and
    the report says it was cut (before: tfdoctor read forever)."""
    import json
    import os
    import subprocess
    import sys

    from tfdoctor.logtext.reader import DEFAULT_LIMIT, STDIN_FACTOR

    endless = [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('y\\n' * 65536)"]
    producer = subprocess.Popen(endless, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        run = subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--log", "-",
                              "--no-runtime", "--no-probes", "--json"], stdin=producer.stdout,
                             capture_output=True, text=True, timeout=180,
                             env={**os.environ, "NO_COLOR": "1"})
    finally:
        producer.kill()
        producer.wait()
    assert run.returncode in (0, 1), run.stderr[-2000:]
    log = json.loads(run.stdout)["snapshot"]["log"]
    bound = STDIN_FACTOR * DEFAULT_LIMIT
    assert [n for n in log["notes"] if f"cut after {bound} bytes" in n], log["notes"]
    assert log["read_bytes"] <= DEFAULT_LIMIT
