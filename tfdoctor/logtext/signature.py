"""A signature: one recognisable error text, declared with the real message it was taken from.

Like a lint rule, a signature is data: a stable code, a regular expression, the fields it
extracts, the verbatim example it was written against and the public thread that example comes
from. `match_all` runs every signature over a text and returns where each one matched; turning a
match into a diagnosis (with the environment's facts) is the job of the checks.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

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
    code_for: Callable[[Fields], str] | None = None
    """A more specific code for some matches (conda missing tensorflow-deps)."""
    outputs: tuple[str, ...] = ()
    """The fields a match carries when `derive` renames or adds them (else the regex's groups)."""
    key: tuple[str, ...] | None = None
    """Fields that identify one occurrence: matches with equal key fields are merged (`()`: all
    matches of the code are one occurrence; None: one per line)."""


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


class _Lines:
    """Offset -> 1-based line number, computed once per text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def number(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def line(self, offset: int, end: int) -> str:
        start = self.text.rfind("\n", 0, offset) + 1
        stop = self.text.find("\n", max(end - 1, offset))
        chunk = self.text[start:stop if stop >= 0 else len(self.text)].strip()
        return chunk if len(chunk) <= MAX_LINE else chunk[:MAX_LINE] + "..."


def match_all(text: str, signatures: Iterable[Signature]) -> list[LogMatch]:
    """Every signature's matches in `text`, merged per occurrence, in the order of the text."""
    if not text:
        return []
    lines = _Lines(text)
    found: dict[tuple[str, ...], LogMatch] = {}
    for signature in signatures:
        if signature.needle and signature.needle not in text:
            continue
        seen = 0
        for m in _matches(signature, text):
            fields = {k: v for k, v in m.groupdict().items() if v}
            if signature.derive is not None:
                fields = signature.derive(fields)
            fields = {k: " ".join(v.split()) for k, v in fields.items() if v}
            code = signature.code_for(fields) if signature.code_for else signature.code
            if signature.key is None:
                key = (code, signature.variant, str(lines.number(m.start())))
            else:
                key = (code,) + tuple(fields.get(k, "") for k in signature.key)
            if key in found:
                _merge(found[key], fields, signature)
                continue
            seen += 1
            if seen > MAX_PER_SIGNATURE:
                break
            found[key] = LogMatch(code, fields, lines.number(m.start()), lines.line(m.start(), m.end()),
                                  signature.stage, signature.variant, 1, [signature.source])
    return sorted(found.values(), key=lambda match: (match.line, match.code))


WINDOW = 4000
"""Characters after a needle a match may span (multi-line conda and Metal messages)."""


def _matches(signature: Signature, text: str) -> Iterable[re.Match[str]]:
    """The regex's matches, looked for only around the needle's occurrences: scanning an 8 MB
    log with 30 regular expressions would take seconds; finding a literal takes milliseconds."""
    if not signature.needle:
        yield from signature.regex.finditer(text)
        return
    covered = -1
    starts: set[int] = set()
    at = text.find(signature.needle)
    while at >= 0:
        if at >= covered:
            low = text.rfind("\n", 0, at) + 1
            high = min(len(text), at + 2 * WINDOW)
            # matches starting in the window's second half may be cut at `high`: the next
            # window (from the first needle there) finds them whole
            keep = len(text) if high == len(text) else text.rfind("\n", 0, high - WINDOW) + 1
            keep = max(keep, low + 1)
            for m in signature.regex.finditer(text, low, high):
                if m.start() < keep and m.start() not in starts:
                    starts.add(m.start())
                    yield m
            covered = keep
        at = text.find(signature.needle, at + 1)


def _merge(into: LogMatch, fields: Mapping[str, str], signature: Signature) -> None:
    into.count += 1
    for name, value in fields.items():
        into.fields.setdefault(name, value)
    if signature.source not in into.sources:
        into.sources.append(signature.source)
