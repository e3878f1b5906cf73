"""What is kept of a log while it is read: the lines around each match and, only when the user
asks to keep the log, its head and its tail. Bounded whatever the log's length: AROUND lines
each side of at most MAX_PER_SIGNATURE matches per signature, MAX_LINE characters a line, and
KEEP_LOG_CHARS of head and tail."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator

from tfdoctor.facts.pasted_log import AROUND, EXCERPT_CHARS, MAX_LINE
from tfdoctor.logtext.pasted import LineIndex
from tfdoctor.logtext.scan import Block
from tfdoctor.logtext.signature import LogMatch

GAP = "..."
CLEANED = 4 * MAX_LINE
"""Characters of a long line cleaned before it is cut at MAX_LINE: enough for any credential
that starts in the part kept to be seen whole (cleaning all of a 64 KB line, for each of
hundreds of kept lines, would cost more than reading the log)."""


class Window:
    """Feed it the reading's pieces (`pieces`) and the blocks read from them (`block`)."""

    def __init__(self, keep_chars: int = 0, clean: Callable[[str], str] = str) -> None:
        self.half = keep_chars // 2
        self.clean = clean
        """Applied to each line kept around a match before it is cut at MAX_LINE (a credential
        cut in two would no longer look like one)."""
        self.around: dict[int, str] = {}
        """Line number -> the line, for lines around a match (cut at MAX_LINE)."""
        self.wanted: list[tuple[int, int]] = []
        """Line ranges around matches that blocks still to come hold."""
        self.head: list[str] = []
        self.head_size = 0
        self.tail: deque[tuple[int, str]] = deque()
        """(first line, piece) of the last pieces, KEEP_LOG_CHARS/2 characters or a piece more."""
        self.tail_size = 0
        self.next_line = 1

    def pieces(self, pieces: Iterable[str]) -> Iterator[str]:
        """The pieces passed on, their head and tail kept on the way when the log is kept."""
        for piece in pieces:
            first = self.next_line
            self.next_line += piece.count("\n")
            if self.half:
                if self.head_size < self.half:
                    self.head.append(piece)
                    self.head_size += len(piece)
                self.tail.append((first, piece))
                self.tail_size += len(piece)
                while self.tail_size - len(self.tail[0][1]) >= self.half:
                    self.tail_size -= len(self.tail.popleft()[1])
            yield piece

    def block(self, block: Block) -> None:
        """Keep the lines of `block` around the matches it added, and those earlier ones wanted."""
        lines = block.lines
        self.wanted += [(m.line - AROUND, m.line + AROUND) for m in block.added]
        last = lines.number(len(lines.text) - 1) if lines.text else lines.first
        still = []
        for first, end in self.wanted:
            start = max(first, lines.first)
            for number, line in enumerate(lines.lines(start, min(end, last)), start):
                if number not in self.around:
                    self.around[number] = _kept(self.clean(line[:CLEANED]))
            if end > last:
                still.append((max(first, last + 1), end))
        self.wanted = still

    def excerpt(self, matches: Iterable[LogMatch]) -> tuple[str, int]:
        """The lines around `matches`, GAP between runs, at most EXCERPT_CHARS (the end, where
        the final error is, kept first); and how many lines that is."""
        numbers = sorted({n for m in matches for n in range(m.line - AROUND, m.line + AROUND + 1)
                          if n in self.around})
        text = "\n".join(self._runs(numbers, 0))
        if len(text) > EXCERPT_CHARS:
            text = GAP + "\n" + text[-EXCERPT_CHARS:].split("\n", 1)[-1]
        return text, sum(1 for line in text.split("\n") if line != GAP) if text else 0

    def text(self) -> tuple[str, int]:
        """The log as kept (--keep-log): all of it up to KEEP_LOG_CHARS, else its head and tail
        with the lines around matches between them, GAP where lines are left out; and how many
        lines that is."""
        tail_first = self.tail[0][0] if self.tail else 1
        tail = "".join(piece for _, piece in self.tail)
        if tail_first == 1 and len(tail) <= 2 * self.half:  # nothing was let go: the whole log
            return tail, _count(tail)
        head = _whole_lines("".join(self.head), self.half)
        head_lines = head.count("\n")
        if len(tail) > self.half:
            newline = tail.find("\n", len(tail) - self.half - 1)
            cut = newline + 1 if newline >= 0 else len(tail) - self.half
            tail_first += tail.count("\n", 0, cut)
            tail = tail[cut:]
        if tail_first <= head_lines + 1:  # head and tail meet
            tail = tail[LineIndex(tail, tail_first).start(head_lines + 1):]
            return head + tail, head_lines + _count(tail)
        between = [n for n in sorted(self.around) if head_lines < n < tail_first]
        parts = [head.rstrip("\n"), *self._runs(between, head_lines)]
        if (between[-1] if between else head_lines) + 1 != tail_first:
            parts.append(GAP)
        return "\n".join(parts + [tail.rstrip("\n")]), head_lines + len(between) + _count(tail)

    def _runs(self, numbers: list[int], previous: int) -> list[str]:
        """The kept lines of these numbers, GAP before each that does not follow the previous."""
        out = []
        for number in numbers:
            if number != previous + 1:
                out.append(GAP)
            out.append(self.around[number])
            previous = number
        return out


def _count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _whole_lines(text: str, limit: int) -> str:
    """At most `limit` characters of `text`, ending at a line's end when it is cut."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit) + 1
    return text[:cut]


def _kept(line: str) -> str:
    """A cleaned line cut at MAX_LINE, and then at its last space when the cut falls inside a
    word: no piece of a credential too long to be recognised whole is kept."""
    if len(line) <= MAX_LINE:
        return line
    cut = line[:MAX_LINE]
    if not line[MAX_LINE].isspace() and " " in cut:
        cut = cut[:cut.rindex(" ")]
    return cut + GAP
