"""A signature: one recognisable error text, declared with the real message it was taken from.

Like a lint rule, a signature is data: a stable code, a regular expression, the fields it
extracts, the verbatim example it was written against and the public thread that example comes
from. `match_all` runs every signature over a text and returns where each one matched; turning a
match into a diagnosis (with the environment's facts) is the job of the checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from tfdoctor.logtext.pasted import View, tolerant, views

SAID = "said-"
"""The variant prefix of a signature of a report's own words (tfdoctor.logtext.said); a match
keeps its variant, so the prefix says, wherever a match goes, that it is a person's words."""
MAX_PER_SIGNATURE = 20
MAX_LINE = 500

Fields = dict[str, str]


@dataclass(frozen=True)
class Signature:
    """One kind of error text."""

    code: str
    variant: str
    """Unique among signatures: which form of the message (several forms can share a code)."""
    stage: str
    """install, import or training: when in a user's day the message appears."""
    title: str
    regex: re.Pattern[str]
    example: str
    """The real message, verbatim, that the regex was written against."""
    source: str
    """Public URL the example was copied from."""
    needle: str = ""
    """A literal every match contains: signatures whose needle is absent are skipped cheaply."""
    derive: Callable[[Fields], Fields] | None = None
    """Post-processing of the extracted groups (split a requirement, name a companion package)."""
    applies: Callable[[Fields, str], bool] | None = None
    """The signature's scope: whether a match (its fields, the text around it: WINDOW characters
    each side, so that judging every match stays linear) is the failure it names, e.g. a missing
    symbol of a TensorFlow library rather than of any extension."""
    code_for: Callable[[Fields], str] | None = None
    """A more specific code for some matches (conda missing tensorflow-deps)."""
    outputs: tuple[str, ...] = ()
    """The fields a match carries when `derive` renames or adds them (else the regex's groups)."""
    key: tuple[str, ...] | None = None
    """Fields that identify one occurrence: matches with equal key fields are merged (`()`: all
    matches of the code are one occurrence; None: one per line)."""
    head: str = ""
    """The start of the message that already tells it apart (a regex holding the needle): a
    paste cut after it, where the text ends or an ellipsis marks the cut, is still this message,
    without the fields the cut took."""
    flat: re.Pattern[str] = field(init=False, repr=False, compare=False)
    """`regex` as the flat view reads it (tfdoctor.logtext.pasted.tolerant)."""
    cut: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    """`head` followed soon by the text's end or an ellipsis, read as the flat view reads (None
    without a head). Both are compiled with the signature, so they are patterns it holds."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "flat", tolerant(self.regex))
        object.__setattr__(self, "cut", _cut(self.head) if self.head else None)

    @property
    def prose(self) -> bool:
        """A person's words, not a program's message (tfdoctor.logtext.said, its variant says so):
        read in a text's first block only (BLOCK characters), where a report's own words stand; the
        rest of a long log is a program's, and prose patterns over all of it would cost more than
        every message. Nor inside a string argument of a call (`print("No GPU detected")`): code's
        message, whoever pasted it; nor inside a sentence that opens with a condition (_CONDITION)."""
        return self.variant.startswith(SAID)

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields this signature extracts (package, op, symbol, ...)."""
        return self.outputs or tuple(self.regex.groupindex)


@dataclass
class LogMatch:
    """Where a signature matched: its code, the fields it read, and the line it is on."""

    code: str
    fields: dict[str, str]
    line: int
    text: str
    stage: str
    variant: str
    count: int = 1
    sources: list[str] = field(default_factory=list)


def adds(**values: str) -> Callable[[Fields], Fields]:
    """A `derive` that adds facts the variant itself knows (the api Keras 3 removed, the protobuf
    its generated code needs) to the fields the message gave; a field the message gave wins."""
    def derive(fields: Fields) -> Fields:
        return {**values, **fields}
    return derive


def sig(code: str, variant: str, stage: str, title: str, pattern: str | re.Pattern[str],
        example: str, source: str, **kwargs: object) -> Signature:
    """Declare a signature; a pattern given as text is compiled MULTILINE."""
    regex = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, re.MULTILINE)
    return Signature(code, variant, stage, title, regex, example, source, **kwargs)  # type: ignore[arg-type]


def wrappable(sentence: str) -> str:
    """One sentence of a message that spans lines, as a regex a terminal's or a forum's wrap
    cannot break: each space may be a line break. (The flat view cannot serve a signature that
    reads the message's own line breaks.)"""
    return r"(?:[ \t]*\n[ \t]*|[ \t]+)".join(re.escape(word) for word in sentence.split(" "))


class Recogniser:
    """Signatures over a text given in blocks (tfdoctor.logtext.scan).

    Each block is read as pasted (tfdoctor.logtext.pasted): first line by line, then, for the
    signatures that found nothing, with its lines joined and case ignored, and last, for those
    that still found nothing, as a message cut after its head (the text's first line on its own
    too: a report's title is a message cut where the title ends). A block owns its lines from
    `own_from` to SPAN characters before its end (all of them when it is the last): a match is
    counted by the block it starts in the owned part of, where it lies whole."""

    def __init__(self, signatures: Iterable[Signature]) -> None:
        self.signatures = tuple(signatures)
        self.found: dict[tuple[str, ...], LogMatch] = {}
        self.entries: dict[str, int] = {}
        """Entries each signature (by variant) added: MAX_PER_SIGNATURE at most, over all blocks."""
        self.added: list[LogMatch] = []
        """The entries the last block added."""

    def read(self, text: str, first_line: int = 1, own_from: int = 1, last: bool = True) -> int:
        """Recognise one block (`text`, whose first line is `first_line`); return the first line
        it does not own (where the next block's owned part starts)."""
        self.added = []
        if not text:
            return own_from
        clean, flat = views(text, first_line)
        own_to = (clean.number(len(clean.text)) + 1 if last
                  else clean.number(max(len(clean.text) - SPAN, 0)))
        owned = range(own_from, own_to)
        if not owned:
            return own_from
        needles: dict[str, bool] = {}
        for signature in self.signatures:  # a signature's needle in neither view: nothing to do
            needle = signature.needle.lower()
            if needle not in needles:
                needles[needle] = needle in flat.lower
        present = [s for s in self.signatures if needles[s.needle.lower()] and (own_from == 1 or not s.prose)]
        missed = [s for s in present if not self._collect(s, clean, s.regex, owned)]
        missed = [s for s in missed if not self._collect(s, flat, s.flat, owned)]
        title = views(text[:text.index("\n")], first_line)[1] if first_line == 1 and "\n" in text else None
        for signature in missed:
            if signature.cut is not None and not self._collect(signature, flat, signature.cut, owned) and title:
                self._collect(signature, title, signature.cut, owned)
        return own_to

    def matches(self) -> list[LogMatch]:
        """Every match so far, in the order of the text."""
        return sorted(self.found.values(), key=lambda match: (match.line, match.code))

    def _collect(self, signature: Signature, view: View, regex: re.Pattern[str], owned: range) -> bool:
        """Add the signature's matches in the owned lines of `view`; whether it matched at all."""
        matched = 0
        for m in _matches(signature, view, regex):
            line = view.number(m.start())
            if line not in owned or (signature.prose and (_in_code_string(view, m.start(), line)
                                                          or _hypothetical(view, m.start(), line))):
                continue
            fields = {k: v for k, v in m.groupdict().items() if v}
            if signature.derive is not None:
                fields = signature.derive(fields)
            fields = {k: " ".join(v.split()) for k, v in fields.items() if v}
            if signature.applies is not None and not signature.applies(
                    fields, view.text[max(0, m.start() - WINDOW):m.end() + WINDOW]):
                continue
            matched += 1
            code = signature.code_for(fields) if signature.code_for else signature.code
            if signature.key is None:
                key = (code, signature.variant, str(line))
            else:
                key = (code,) + tuple(fields.get(k, "") for k in signature.key)
            if key in self.found:
                _merge(self.found[key], fields, signature)
                continue
            entries = self.entries.get(signature.variant, 0)
            if entries >= MAX_PER_SIGNATURE:
                break
            self.entries[signature.variant] = entries + 1
            self.found[key] = LogMatch(code, fields, line, view.quote(m.start(), m.end(), MAX_LINE),
                                       signature.stage, signature.variant, 1, [signature.source])
            self.added.append(self.found[key])
        return matched > 0


CUT_AFTER = 300
"""How soon after a head the paste must end (or an ellipsis come) to count as a cut there:
later, and the message went on in words no signature knows."""


def _cut(head: str) -> re.Pattern[str]:
    """A message cut after `head`: the text ends, or an ellipsis comes, soon after it (read
    tolerantly like every flat-view pattern). The head is taken whole, as if atomic (a lookahead
    captures it, a back-reference consumes it): a head ending in a repetition is not tried again
    at every shorter length, each time looking CUT_AFTER characters ahead."""
    return tolerant(re.compile(f"(?=({head}))\\1(?=.{{0,{CUT_AFTER}}}?(?:…|\\.\\.\\.|\\Z))", re.DOTALL))


_CODE_STRING = re.compile(r"[\w\])]\([ \t]{0,20}[rfbuRFBU]{0,2}[\"'][^\"'\n]{0,2000}$")
"""An open string argument of a call, up to the end of what precedes a match: the phrase stands in
`print("No GPU detected ...")`, which is that code's message, not the words of the person who
pasted it."""


def _in_code_string(view: View, at: int, line: int) -> bool:
    """Whether offset `at` is inside a string argument of a call on its own line."""
    start = view.index.start(line)
    return bool(_CODE_STRING.search(view.index.text, max(start, at - 2000), at))


_CONDITION = re.compile(r"(?:^|[.!?][ \t]{1,3})[ \t>*_-]{0,4}(?:if|in case|unless)\b"
                        r"(?:(?!\b(?:I|I'm|I've|we|my|our)\b)[^,;:.!?\n]){0,160}$", re.IGNORECASE)
"""A sentence that opens with a condition still open up to a match: "If TensorFlow doesn't
recognise the GPU, reinstall the plugin" is a guide's advice for a case, not a report of it. A
comma, a colon or a full stop closes the condition ("Even if I reinstall, TensorFlow doesn't find
the GPU"), a condition after the main clause states when the failure happens ("it throws an
error if macOS is older than 12.5.1"), and so does one about the reporter's own doing ("If I
import tensorflow the kernel dies")."""


def _hypothetical(view: View, at: int, line: int) -> bool:
    """Whether the words at offset `at` stand inside a condition of their own sentence."""
    start = view.index.start(line)
    begin = max(start, at - 170)
    # a sentence opens at the line's start only where the slice does: elsewhere ^ is mid-text
    return bool(_CONDITION.search(("" if begin == start else "\x00") + view.index.text[begin:at]))


WINDOW = 4000
"""Characters after a needle a match may span (multi-line conda and Metal messages)."""
SPAN = 3 * WINDOW
"""Characters one match spans at most (a window reaches WINDOW before its needle and 2 WINDOW
after it): a block's last SPAN characters are read again by the next block."""


def _matches(signature: Signature, view: View, regex: re.Pattern[str]) -> Iterable[re.Match[str]]:
    """The regex's matches, looked for only around the needle's occurrences: scanning an 8 MB
    log with 30 regular expressions would take seconds; finding a literal takes milliseconds.
    A case-ignoring regex looks for the needle case-ignored too. Every window is WINDOW-bounded
    (and so is every look for a line end), so one long line costs no more than many short ones."""
    text = view.text
    haystack, needle = text, signature.needle
    if regex.flags & re.IGNORECASE and needle:
        haystack, needle = view.lower, needle.lower()
        if len(haystack) != len(text):  # a character whose lower case is longer: no shortcut
            needle = ""
    if not needle:
        yield from regex.finditer(text)
        return
    covered = -1
    starts: set[int] = set()
    at = haystack.find(needle)
    while at >= 0:
        if at >= covered:
            low = max(text.rfind("\n", max(0, at - WINDOW), at) + 1, at - WINDOW, 0)
            high = min(len(text), at + 2 * WINDOW)
            # matches starting in the window's second half may be cut at `high`: the next
            # window (from the first needle there) finds them whole
            keep = len(text) if high == len(text) else text.rfind("\n", low, high - WINDOW) + 1
            keep = keep if keep > low else max(low + 1, high - WINDOW)  # one long line
            for m in regex.finditer(text, low, high):
                if m.start() < keep and m.start() not in starts:
                    starts.add(m.start())
                    yield m
            covered = keep
        at = haystack.find(needle, at + 1)


def _merge(into: LogMatch, fields: Mapping[str, str], signature: Signature) -> None:
    into.count += 1
    for name, value in fields.items():
        into.fields.setdefault(name, value)
    if signature.source not in into.sources:
        into.sources.append(signature.source)
