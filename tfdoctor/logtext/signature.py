"""A signature: one recognisable error text, declared with the real message it was taken from.

Like a lint rule, a signature is data: a stable code, a regular expression, the fields it
extracts, the verbatim example it was written against and the public thread that example comes
from. `match_all` runs every signature over a text and returns where each one matched; turning a
match into a diagnosis (with the environment's facts) is the job of the checks.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from tfdoctor.logtext.pasted import View, tolerant, views

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


def match_all(text: str, signatures: Iterable[Signature]) -> list[LogMatch]:
    """Every signature's matches in `text`, merged per occurrence, in the order of the text.

    The text is read as pasted (tfdoctor.logtext.pasted): first line by line, then, for the
    signatures that found nothing, with its lines joined and case ignored, and last, for those
    that still found nothing, as a message cut after its head."""
    if not text:
        return []
    clean, flat = views(text)
    found: dict[tuple[str, ...], LogMatch] = {}
    missed = [s for s in signatures if not _collect(s, clean, s.regex, found)]
    missed = [s for s in missed if not _collect(s, flat, _tolerant(s.regex), found)]
    for signature in missed:
        if signature.head:
            _collect(signature, flat, _cut(signature.head), found)
    return sorted(found.values(), key=lambda match: (match.line, match.code))


def _collect(signature: Signature, view: View, regex: re.Pattern[str],
             found: dict[tuple[str, ...], LogMatch]) -> bool:
    """Add the signature's matches in `view` to `found`; whether it matched at all."""
    seen = matched = 0
    for m in _matches(signature, view.text, regex):
        fields = {k: v for k, v in m.groupdict().items() if v}
        if signature.derive is not None:
            fields = signature.derive(fields)
        fields = {k: " ".join(v.split()) for k, v in fields.items() if v}
        if signature.applies is not None and not signature.applies(
                fields, view.text[max(0, m.start() - WINDOW):m.end() + WINDOW]):
            continue
        matched += 1
        code = signature.code_for(fields) if signature.code_for else signature.code
        line = view.number(m.start())
        if signature.key is None:
            key = (code, signature.variant, str(line))
        else:
            key = (code,) + tuple(fields.get(k, "") for k in signature.key)
        if key in found:
            _merge(found[key], fields, signature)
            continue
        seen += 1
        if seen > MAX_PER_SIGNATURE:
            break
        found[key] = LogMatch(code, fields, line, view.quote(m.start(), m.end(), MAX_LINE),
                              signature.stage, signature.variant, 1, [signature.source])
    return matched > 0


CUT_AFTER = 300
"""How soon after a head the paste must end (or an ellipsis come) to count as a cut there:
later, and the message went on in words no signature knows."""


@functools.lru_cache(maxsize=None)
def _cut(head: str) -> re.Pattern[str]:
    """A message cut after `head`: the text ends, or an ellipsis comes, soon after it (compiled
    once per head, read tolerantly like every flat-view pattern)."""
    return tolerant(re.compile(f"(?:{head})(?=.{{0,{CUT_AFTER}}}?(?:…|\\.\\.\\.|\\Z))", re.DOTALL))


@functools.lru_cache(maxsize=None)
def _tolerant(regex: re.Pattern[str]) -> re.Pattern[str]:
    """tfdoctor.logtext.pasted.tolerant, compiled once per signature."""
    return tolerant(regex)


WINDOW = 4000
"""Characters after a needle a match may span (multi-line conda and Metal messages)."""


def _matches(signature: Signature, text: str, regex: re.Pattern[str]) -> Iterable[re.Match[str]]:
    """The regex's matches, looked for only around the needle's occurrences: scanning an 8 MB
    log with 30 regular expressions would take seconds; finding a literal takes milliseconds.
    A case-ignoring regex looks for the needle case-ignored too."""
    haystack, needle = text, signature.needle
    if regex.flags & re.IGNORECASE and needle:
        haystack, needle = text.lower(), needle.lower()
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
            low = max(text.rfind("\n", max(0, at - WINDOW), at) + 1, at - WINDOW)
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
