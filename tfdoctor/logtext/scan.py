"""A text of any length read in blocks: memory bounded by a block, whatever the text's length,
and every match found once.

Each block is read whole by the signatures (tfdoctor.logtext.signature.Recogniser). The next
block begins again a little before where the last one stopped owning lines (SPAN characters
before its end, less CONTEXT for what a signature looks at around a match), so a message
across the boundary lies whole in the block that owns its start.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tfdoctor.logtext.pasted import LineIndex
from tfdoctor.logtext.signature import WINDOW, LogMatch, Recogniser, Signature

BLOCK = 1 << 18
"""Characters of a block (the part read again included): a few MB of memory while it is read."""
LONGEST_LINE = 1 << 16
"""Characters of one line at most: a longer line is read as several (line numbers after it count
them), so that a block always ends within a few lines and no line is held whole."""
CONTEXT = WINDOW
"""Characters before the first owned line a block starts with (a signature's look around)."""


@dataclass(frozen=True)
class Block:
    """One block of the text, once the signatures have read it."""

    lines: LineIndex
    """Its text, with the user's line numbers."""
    added: list[LogMatch]
    """The matches this block added (not those it only counted again)."""


def scan(pieces: Iterable[str], recogniser: Recogniser) -> Iterator[Block]:
    """Feed `pieces` (the text in order, cut at line ends, no line longer than LONGEST_LINE) to
    `recogniser` block by block."""
    parts: list[str] = []
    size, first, own = 0, 1, 1
    for piece in pieces:
        parts.append(piece)
        size += len(piece)
        if size < BLOCK:
            continue
        text = "".join(parts)
        own = recogniser.read(text, first, own, last=False)
        lines = LineIndex(text, first)
        yield Block(lines, recogniser.added)
        lead = lines.start(lines.number(max(0, lines.start(own) - CONTEXT)))
        parts, size, first = [text[lead:]], len(text) - lead, lines.number(lead)
    text = "".join(parts)
    recogniser.read(text, first, own, last=True)
    yield Block(LineIndex(text, first), recogniser.added)


def lines_with(text: str, first: int, pattern: re.Pattern[str], after: int) -> Iterator[tuple[int, str]]:
    """The lines of a block whose first line is line `first` that hold `pattern` and come after
    line `after` (blocks overlap: a line is read once), with their numbers, in order; of a line a
    terminal redrew (progress updates joined by carriage returns) the last version. One search over
    the whole block finds them, and only they are cut out (the readers of a text's own timings,
    results and memory look at few of its lines)."""
    number, counted, candidate = first, 0, pattern.search(text)
    while candidate is not None:
        start = text.rfind("\n", counted, candidate.start()) + 1 or counted
        number += text.count("\n", counted, start)
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if number > after:
            line = text[start:end]
            yield number, line[line.rfind("\r") + 1:]
        counted = start
        candidate = pattern.search(text, end + 1)


def pieces_of(text: str) -> Iterator[str]:
    """A text in memory as pieces of about a block, cut at line ends, its lines longer than
    LONGEST_LINE cut into lines of that length."""
    at = 0
    while at < len(text):
        end = min(len(text), at + BLOCK)
        if end < len(text):
            newline = text.rfind("\n", at, end)
            end = newline + 1 if newline >= 0 else end
        piece = text[at:end]
        if end < len(text) and not piece.endswith("\n"):
            piece += "\n"  # a line longer than a block
        yield _LONG_LINE.sub(_cut_long, piece)
        at = end


_LONG_LINE = re.compile(f"^[^\\n]{{{LONGEST_LINE + 1},}}", re.MULTILINE)


def _cut_long(match: re.Match[str]) -> str:
    line = match.group()
    return "\n".join(line[i:i + LONGEST_LINE] for i in range(0, len(line), LONGEST_LINE))


def match_all(text: str, signatures: Iterable[Signature]) -> list[LogMatch]:
    """Every signature's matches in `text`, merged per occurrence, in the order of the text."""
    recogniser = Recogniser(signatures)
    for _ in scan(pieces_of(text or ""), recogniser):
        pass
    return recogniser.matches()
