"""Error text as people paste it, made readable to the signatures.

A message reaches tfdoctor wrapped by a terminal or a forum at some column, quoted in markdown
(`> `), inside a code fence, with its backticks lost or doubled, with a logger's timestamp in
front, with ANSI colours or CRLF line ends, with typographic quotes a blog, a word processor or
a phone put in for the program's straight ones. Signatures are written against the message as the
code prints it, so every text goes through the same two views before matching:

* `clean`: the same lines (line numbers stay the user's), each without what pasting added;
* `flat`: the clean lines joined by spaces, for a message a wrap split over several lines.
  Signatures that found nothing in the clean view are tried once more here (`tolerant`),
  without regard to case (releases print "API version" and "api version") and with their
  backticks optional (markdown eats them, users add them).

TensorFlow's own log prefix ("2023-03-30 13:41:43.720528: W tensorflow/...") is part of some
messages and is kept; other loggers' timestamps and levels in front of a line are removed.

Each cleaning pass is one regular expression over the whole text that never crosses a line end
and can start only at a line's start or once per run of the characters it repeats, so a pass
costs time linear in the text, however long its lines or its runs of spaces, digits or backticks
(tests/hostile/test_paste_linear.py holds every pattern here to that).
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field

_SPACE = r"[^\S\n]"
"""White space within a line: no pass reaches past a line's end."""
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
"""Terminal escapes: colours and cursor moves (CSI), titles and links (OSC, to its end or the line's)."""
_CR_AT_END = re.compile(r"(?<!\r)\r+$", re.MULTILINE)
_FENCE = re.compile(rf"^{_SPACE}*(?:```|~~~)[\w+-]*{_SPACE}*$", re.MULTILINE)
_QUOTE = re.compile(rf"^{_SPACE}*(?:>{_SPACE}?)+", re.MULTILINE)
_ISO_TIME = r"\[?[0-9]{4}-[0-9][0-9]-[0-9][0-9][ T][0-9][0-9]:[0-9][0-9]:[0-9][0-9](?:[.,][0-9]+)?(?:Z|[+-][0-9][0-9]:?[0-9][0-9])?\]?"
_PREFIX = re.compile(
    r"\n[ \t]*(?:"
    # an ISO date and time, bracketed or not, unless TensorFlow's own "...: W file.cc:12]" follows
    # (taken whole, as if atomic: a shorter fraction must not make the lookahead pass)
    rf"(?=(?P<iso>{_ISO_TIME}))(?P=iso)(?!: [IWEF] )"
    r"|\[?[0-9][0-9]:[0-9][0-9]:[0-9][0-9](?:[.,][0-9]+)?\]?"  # a time alone
    r"|\[[IWEDC] [0-9:. -]+(?:[^\W\d]\w*)?\]"  # Jupyter's "[I 12:00:00.123 NotebookApp]"
    r")(?:[ \t]*[|:])? ?(?:(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b(?:[ \t]*[|:])? ?)?")
"""A logger's time and level in front of a line. It is looked for after a line end (a literal
the engine skips to, where `^` would be tried at every character), in the text with a line end
put in front."""
_PREFIX_START = re.compile(r"\n[ \t\[0-9]")
"""How a line with such a prefix starts: a text without it has none to remove (found faster
than the prefix itself is tried at every line)."""
_INLINE_CODE = re.compile(rf"^{_SPACE}*`+(?=[^`\n])([^\n]*)", re.MULTILINE)
"""A line in inline code: its backticks and the white space around them go (the closing ones
are taken off by `_unwrapped`, not by the pattern: a lazy group before `*\\s*$ backtracks)."""


def _unwrapped(match: re.Match[str]) -> str:
    return match.group(1).rstrip().rstrip("`")


_TYPOGRAPHIC = str.maketrans("\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f", "''''\"\"\"\"")
"""Curly quotes back to the straight ones every program prints ("Could not load dynamic library
‘libcusolver.so.10’" as a blog or a phone's keyboard has it); one character for one, so offsets
and line numbers stay."""


def clean(text: str) -> str:
    """Every line of `text` without what pasting added around the message (lines are kept)."""
    text = text.translate(_TYPOGRAPHIC)
    if "\x1b" in text:
        text = ANSI.sub("", text)
    if "\r" in text:
        text = _CR_AT_END.sub("", text)
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("", text)
    if ">" in text:
        text = _QUOTE.sub("", text)
    framed = "\n" + text
    if _PREFIX_START.search(framed):
        text = _PREFIX.sub("\n", framed)[1:]
    if "`" in text:
        text = _INLINE_CODE.sub(_unwrapped, text)
    return text


CHECKPOINT = 4096
"""Characters between the points where the line count is kept (a lookup counts at most this)."""


@dataclass(frozen=True)
class LineIndex:
    """Line numbers of offsets in a text, without a string or a number per line: the count of
    line ends is kept every CHECKPOINT characters, and counted from there."""

    text: str
    first: int = 1
    """The line number of the text's first line."""
    counts: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        text, counts, seen = self.text, [0], 0
        for at in range(0, len(text), CHECKPOINT):
            seen += text.count("\n", at, at + CHECKPOINT)
            counts.append(seen)
        object.__setattr__(self, "counts", tuple(counts))

    def number(self, offset: int) -> int:
        """The line that holds `offset`."""
        point = min(offset // CHECKPOINT, len(self.counts) - 1)
        return self.first + self.counts[point] + self.text.count("\n", point * CHECKPOINT, offset)

    def start(self, number: int) -> int:
        """The offset where line `number` starts (the text's end past its last line)."""
        wanted = number - self.first
        if wanted <= 0:
            return 0
        point = bisect.bisect_left(self.counts, wanted) - 1
        at, seen = point * CHECKPOINT, self.counts[point]
        while seen < wanted:
            at = self.text.find("\n", at)
            if at < 0:
                return len(self.text)
            at += 1
            seen += 1
        return at

    def lines(self, first: int, last: int) -> list[str]:
        """Lines `first` to `last` (those the text holds)."""
        start, end = self.start(first), self.start(last + 1)
        chunk = self.text[start:end]
        return chunk.removesuffix("\n").split("\n") if chunk else []


@dataclass(frozen=True)
class View:
    """A text the signatures read, with the user's line number of every offset."""

    text: str
    index: LineIndex
    """Line numbers of the clean text, which has the same offsets as this view."""

    def number(self, offset: int) -> int:
        """1-based line of the user's text that holds `offset`."""
        return self.index.number(offset)

    def quote(self, start: int, end: int, limit: int) -> str:
        """The user's lines a match spans, joined, at most `limit` characters."""
        lines = self.index.lines(self.number(start), self.number(max(start, end - 1)))
        chunk = " ".join(line.strip() for line in lines).strip()
        return chunk if len(chunk) <= limit else chunk[:limit] + "..."

    @functools.cached_property
    def lower(self) -> str:
        """The text in lower case (computed once: every case-ignoring signature needs it)."""
        return self.text.lower()


def views(text: str, first_line: int = 1) -> tuple[View, View]:
    """The clean view and the flat view of a pasted text whose first line is `first_line`."""
    cleaned = clean(text)
    index = LineIndex(cleaned, first_line)
    return View(cleaned, index), View(cleaned.replace("\n", " "), index)


def tolerant(regex: re.Pattern[str]) -> re.Pattern[str]:
    """The same pattern for the flat view: case ignored, every literal backtick optional."""
    pattern, out, in_class, escaped = regex.pattern, [], False, False
    for char in pattern:
        out.append(char)
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "`" and not in_class:
            out.append("?")
    return re.compile("".join(out), regex.flags | re.IGNORECASE)
