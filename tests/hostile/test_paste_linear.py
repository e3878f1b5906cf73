"""Every view of a pasted text costs time linear in the text (issue 28, class 1): the reader, the
cleaning and flattening passes, the signatures, the kept window and its redaction (`check --log`,
`diagnose --log`, `collect --log`), and the reading of a bug report (`triage`).

The patterns are found, not listed (tests/support/redos.py): every compiled pattern the packages
keep, in their globals or inside their signatures, and every literal pattern their code gives to
`re`, so a pass added later is held to the same bound. Each gets adversarial text built from its
own pieces (what it needs before a repetition, then a long run of what the repetition accepts, to
the line's end or to a character it refuses; and its prefix repeated, many starting points), and
is made to do with it what the code makes it do (`match` at the start of each line, or a search
at every position). Then the whole of each view is fed those pieces mixed, at 100 KB, 1 MB and
4 MB. Only ratios between sizes are asserted, never a time: 10 times the text must cost about 10
times the time (a quadratic pass costs 100 times).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from support.cpu_time import cost_ratio, costs
from support.redos import Found, adversarial, patterns_in, sample

from tfdoctor.logtext import keep
from tfdoctor.logtext.catalog import SIGNATURES
from tfdoctor.logtext.pasted import views
from tfdoctor.sanitize.redact import Identity, redact
from tfdoctor.triage.facts import read_report
from tfdoctor.triage.layout import MAX_BYTES

pytestmark = pytest.mark.slow  # time growth: every pattern timed at two sizes

PACKAGES = ("tfdoctor.logtext", "tfdoctor.sanitize", "tfdoctor.triage")
FOUND: list[Found] = [found for package in PACKAGES for found in patterns_in(package)]
PATTERNS: list[Found] = list({(found.pattern.pattern, found.pattern.flags, found.methods): found
                              for found in reversed(FOUND)}.values())[::-1]
"""Each pattern once (under the first name it was found by), however many modules hold it: a
signature is in its module and in the catalog that gathers them."""
KB, MB = 1024, 1024 * 1024
MIN_SECONDS = 0.03
"""Each timing repeats its call until this much processor time has passed (timer noise), then
divides; processor time, not wall time, so that other processes on the machine do not count."""
PATTERN_SIZES = (10 * KB, 320 * KB)
"""Per pattern, smaller texts than the views get (there are hundreds of patterns): 32 times the
text costs about 32 times the time when linear, 1,000 times when quadratic."""
MAX_COST_PER_CHARACTER = 4.0
"""How much more a character of the larger text may cost than one of the smaller (linear: 1;
quadratic: about 32). A bounded pattern's pieces at 10 KB are shorter than its bounds allow (up
to 500 characters), so its cost per character rises until the runs fill them, then stays:
system-function-missing measured 37, 56, 92, 99 and 104 ns a character at 16, 41, 164, 328 and
1,311 KB (2.7 times between the two sizes here, 3.06 once on a busy machine)."""
MAX_RATIO_10X = 20.0
MAX_RATIO_4X = 8.0
WHO = Identity("/Users/ada", "ada", "ada-mbp")


def _ratio(prepared: Callable[[int], Callable[[], object]], small: int, large: int) -> float:
    return cost_ratio(prepared(small), prepared(large), MIN_SECONDS)


def test_the_patterns_of_every_pass_are_found():
    """The discovery itself: the passes in front of the signatures, the signatures, the
    redaction and the triage readers are all there (a broken discovery would test nothing)."""
    names = {found.name for found in FOUND}
    for expected in ("tfdoctor.logtext.pasted._INLINE_CODE", "tfdoctor.logtext.pasted._PREFIX",
                     "tfdoctor.logtext.pasted.ANSI", "tfdoctor.sanitize.redact._URL_USERINFO",
                     "tfdoctor.triage.layout._QUOTE", "tfdoctor.triage.read_conda._INFO"):
        assert expected in names, expected
    assert sum(".regex" in name for name in names) >= len(SIGNATURES)
    assert len(PATTERNS) > 200 and len(FOUND) > len(PATTERNS)


@pytest.mark.parametrize("found", PATTERNS, ids=[found.name for found in PATTERNS])
def test_every_pattern_is_linear_in_its_own_pieces(found: Found):
    small, large = (adversarial(found.pattern, size) for size in PATTERN_SIZES)
    if not small:
        pytest.skip("no repetition: nothing to make long")
    ratio = _ratio(lambda size: (lambda text={1: small, 2: large}[size]: found.work(text)), 1, 2)
    per_character = ratio / (len(large) / len(small))
    assert per_character < MAX_COST_PER_CHARACTER, (
        f"{found.name}: {len(large) / len(small):.0f} times the text costs {ratio:.0f} times")


def _mixed(size: int) -> str:
    """`size` characters of every pattern's sample (support.redos.sample: the same pieces at every
    size, their runs as long as the size allows), in a fixed shuffled order: half as lines, half
    as one long line. Each piece is cut to its share, so that every size holds every kind of
    piece: uncut, the smaller texts lost whichever pieces the shuffle put last (a secret word,
    say, and with it the redaction's whole work), and a ratio compared unlike texts."""
    share = size // (2 * len(PATTERNS))
    pieces = [piece[:share] for piece in (sample(found.pattern, share) for found in PATTERNS) if piece]
    random.Random(28).shuffle(pieces)
    lines = "\n".join(pieces)
    text = lines + "\n" + lines.replace("\n", " ") + "\n"
    return (text * (size // len(text) + 1))[:size]


def _kept(keep_log: bool) -> Callable[[str], Callable[[], object]]:
    def prepared(text: str) -> Callable[[], object]:
        data = text.encode()
        return lambda: keep.from_bytes(data, "paste", identity=WHO, keep_log=keep_log)

    return prepared


VIEWS: dict[str, Callable[[str], Callable[[], object]]] = {
    "check --log": _kept(False),
    "check --log --keep-log": _kept(True),
    "clean and flat views": lambda text: (lambda: views(text)),
    "redaction of a kept text": lambda text: (lambda: redact(text, WHO)),
}


@pytest.mark.parametrize("view", VIEWS, ids=list(VIEWS))
def test_every_view_of_a_paste_is_linear_from_100_kb_to_4_mb(view: str):
    prepare = VIEWS[view]
    texts: dict[int, str] = {}

    def prepared(size: int) -> Callable[[], object]:
        texts.setdefault(size, _mixed(size))
        return prepare(texts[size])

    # each size timed once, the largest first as before: 1 MB is the large size of one ratio and
    # the small of the other (timed twice, it was a quarter of the test's processor time)
    four_mb, one_mb, tenth_mb = costs([prepared(4 * MB), prepared(MB), prepared(100 * KB)], MIN_SECONDS)
    ten, four = one_mb / tenth_mb, four_mb / one_mb
    assert ten < MAX_RATIO_10X, f"{view}: 1 MB costs {ten:.1f} times 100 KB"
    assert four < MAX_RATIO_4X, f"{view}: 4 MB costs {four:.1f} times 1 MB"


def test_the_reading_of_a_report_is_linear_to_its_bound():
    """`triage` reads at most layout.MAX_BYTES of a report: 100 KB against that."""
    texts: dict[int, str] = {}

    def prepared(size: int) -> Callable[[], object]:
        texts.setdefault(size, _mixed(size))
        return lambda: read_report(texts[size])

    ratio = _ratio(prepared, MAX_BYTES // 10, MAX_BYTES - KB)
    assert ratio < MAX_RATIO_10X, f"read_report: 1 MB costs {ratio:.1f} times 100 KB"


def test_the_placers_debug_info_reads_a_long_word_once():
    """A repetition whose item can itself be split (`(?:[A-Z][A-Z_0-9]* ?)*`) tries every split of
    a long word before it fails: exponential, which the pieces above do not reach (they make runs
    long, not ambiguous). The Colocation Debug Info line is read one way only: 8 more capitals
    cost about nothing more (they cost 2**8 = 256 times when split every way)."""
    from tfdoctor.logtext.training import _WITHOUT_GPU

    regex = re.compile(_WITHOUT_GPU, re.MULTILINE)
    line = {1: "Op: " + "A" * 16 + "!", 2: "Op: " + "A" * 24 + "!"}
    assert _ratio(lambda size: (lambda: regex.search(line[size])), 1, 2) < 8
