"""Error text as people paste it, made readable to the signatures.

A message reaches tfdoctor wrapped by a terminal or a forum at some column, quoted in markdown
(`> `), inside a code fence, with its backticks lost or doubled, with a logger's timestamp in
front, with ANSI colours or CRLF line ends. Signatures are written against the message as the
code prints it, so every text goes through the same two views before matching:

* `clean`: the same lines (line numbers stay the user's), each without what pasting added;
* `flat`: the clean lines joined by spaces, for a message a wrap split over several lines.
  Signatures that found nothing in the clean view are tried once more here (`tolerant`),
  without regard to case (releases print "API version" and "api version") and with their
  backticks optional (markdown eats them, users add them).

TensorFlow's own log prefix ("2023-03-30 13:41:43.720528: W tensorflow/...") is part of some
messages and is kept; other loggers' timestamps and levels in front of a line are removed.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+-]*\s*$")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_INLINE_CODE = re.compile(r"^\s*`+(?=[^`])(.*?)`*\s*$")
_PREFIX = re.compile(
    r"^\s*(?:"
    # an ISO date and time, bracketed or not, unless TensorFlow's own "...: W file.cc:12]" follows
    r"\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?(?!: [IWEF] )"
    r"|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"  # a time alone
    r"|\[[IWEDC] [\d:. -]+\w*\]"  # Jupyter's "[I 12:00:00.123 NotebookApp]"
    r")(?:\s*[|:])? ?(?:(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b(?:\s*[|:])? ?)?")


def clean_line(line: str) -> str:
    """One line without what pasting added around the message."""
    line = _ANSI.sub("", line).rstrip("\r")
    if _FENCE.match(line):
        return ""
    line = _QUOTE.sub("", line)
    line = _PREFIX.sub("", line)
    return _INLINE_CODE.sub(r"\1", line)


@dataclass(frozen=True)
class View:
    """A text the signatures read, with the user's line number of every offset."""

    text: str
    starts: tuple[int, ...]
    """Offset in `text` where each of the user's lines starts."""
    lines: tuple[str, ...]
    """The user's lines, cleaned."""

    def number(self, offset: int) -> int:
        """1-based line of the user's text that holds `offset`."""
        return bisect.bisect_right(self.starts, offset)

    def quote(self, start: int, end: int, limit: int) -> str:
        """The user's lines a match spans, joined, at most `limit` characters."""
        first, last = self.number(start), self.number(max(start, end - 1))
        chunk = " ".join(line.strip() for line in self.lines[first - 1:last]).strip()
        return chunk if len(chunk) <= limit else chunk[:limit] + "..."


def views(text: str) -> tuple[View, View]:
    """The clean view and the flat view of a pasted text."""
    lines = tuple(clean_line(line) for line in text.split("\n"))
    return _joined(lines, "\n"), _joined(lines, " ")


def _joined(lines: tuple[str, ...], separator: str) -> View:
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + len(separator)
    return View(separator.join(lines), tuple(starts), lines)


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
