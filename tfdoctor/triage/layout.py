"""A bug report as lines the readers can trust: bounded, and each line marked with what it is.

What a line is decides what it can prove. Prose is what a person believes; a fenced block is
usually what a machine printed; a quoted reply (`> ...`) is someone else's text; a ```python
block is code the person wrote, which proves nothing about their machine. So, unlike
tfdoctor.logtext.pasted (which throws fences and quote marks away to find an error message),
this keeps them as marks on each line: whether it is quoted, inside a fence, and code. Like it,
it removes what pasting adds (CR line ends, terminal escapes, a line's wrapping backticks) and
keeps the user's line numbers.

Only the first MAX_BYTES of a report are read: the facts of a bug report are in its first pages,
and a bound keeps every reader's work in proportion to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfdoctor.facts.typed import clean_text
from tfdoctor.sanitize.terminal import neutralise

MAX_BYTES = 1 << 20
"""Bytes of a report read at most (the rest is named in a note, never read)."""

CODE_LANGUAGES = frozenset({"python", "py", "python3", "ipython", "ipython3", "jupyter"})
"""Fence info strings of code the user wrote (a `pycon` session holds output too: not code)."""

_QUOTE = re.compile(r"[ \t]{0,3}>[> \t]*")
"""Markdown quote marks, nested or not ("> ", ">> ", "> > "): one character class, no group to
repeat, so a line of a million ">" costs one scan."""
_REPL = re.compile(r"[ \t]*>>>(?:[ \t]|$)")
"""A Python prompt, which markdown would read as a triple quote."""
_WRAPPED = re.compile(r"[ \t]{0,40}(`{1,3})([^`]{1,2000})\1[ \t]{0,40}")
"""A whole line in inline code: `tensorflow-macos 2.9.0`."""


@dataclass(frozen=True)
class Line:
    number: int
    """1-based line of the report."""
    text: str
    """Without quote marks, CR, terminal escapes or wrapping backticks; a REPL line without its
    `>>> ` prompt."""
    quoted: bool = False
    block: int = 0
    """The fenced block the line is in, counted from 1 through the report; 0 outside fences."""
    code: bool = False
    """Code the user wrote: inside a ```python fence, or after a `>>>` prompt."""
    prompt: bool = False
    """Typed at a `>>>` (or `...`) prompt: what it printed is on the next line."""

    @property
    def fenced(self) -> bool:
        return self.block > 0


@dataclass(frozen=True)
class Document:
    lines: tuple[Line, ...]
    """Every line but the fence markers themselves, in order."""
    notes: tuple[str, ...] = ()
    cut_at_end: bool = False
    """The report may end inside a paste: it was cut at MAX_BYTES, or a fence never closed."""


@dataclass
class _Fence:
    """One stream's open fence (the reporter's text and quoted text each have their own)."""

    char: str = ""
    length: int = 0
    info: str = ""
    block: int = 0

    @property
    def open(self) -> bool:
        return bool(self.char)

    def toggle(self, marker: tuple[str, int, str]) -> bool:
        """Open or close on a fence marker (CommonMark: a closing fence uses the same character,
        at least as many of them, and no info string); False when the marker is fence content."""
        char, length, info = marker
        if not self.char:
            self.char, self.length, self.info = char, length, info
            return True
        if char == self.char and length >= self.length and not info:
            self.char, self.length, self.info = "", 0, ""
            return True
        return False


def _fence_marker(text: str) -> tuple[str, int, str] | None:
    """(character, run length, info word) when `text` is a fence line (``` or ~~~, any indent)."""
    body = text.lstrip(" \t")
    char = body[:1]
    if char not in ("`", "~"):
        return None
    run = len(body) - len(body.lstrip(char))
    if run < 3:
        return None
    info = body[run:].strip()
    if char == "`" and "`" in info:
        return None  # ```inline``` on one line is a code span, not a fence
    word = info.split(None, 1)[0].strip("{}.").lower() if info else ""
    return char, run, word


def bounded(text: str | bytes) -> tuple[str, list[str]]:
    """The first MAX_BYTES of a report (UTF-8), ending at a whole line when cut, and a note
    saying so."""
    size, unit = len(text), "bytes" if isinstance(text, bytes) else "characters"
    if isinstance(text, bytes):
        cut = size > MAX_BYTES
        body = clean_text(text[:MAX_BYTES].decode("utf-8", "replace"))
    else:
        head = clean_text(text[:MAX_BYTES + 1])
        # an ASCII text has as many bytes as characters: nothing to encode to know its size
        cut = size > MAX_BYTES or (not head.isascii() and len(head.encode("utf-8")) > MAX_BYTES)
        body = head.encode("utf-8")[:MAX_BYTES].decode("utf-8", "ignore") if cut else head
    if not cut:
        return body, []
    if "\n" in body:
        body = body[:body.rindex("\n")]  # a cut line could hold a cut version: leave it out
    return body, [f"only the first {MAX_BYTES:,} bytes of the report were read (it has "
                  f"{size:,} {unit}); facts after that are not known"]


def _visible(raw: str) -> str:
    """What a terminal showed: the last overwrite of a CR-rewritten line, no escapes."""
    raw = raw.rstrip("\r")
    if "\r" in raw:
        parts = [part for part in raw.split("\r") if part.strip()]
        raw = parts[-1] if parts else ""
    return neutralise(raw)


def lay_out(text: str | bytes) -> Document:
    """The report's lines, each marked as prose, fenced, quoted or code."""
    body, notes = bounded(text)
    own, quoting = _Fence(), _Fence()
    lines: list[Line] = []
    in_repl = session = False  # session: this fence holds a >>> session (output after prompts)
    blocks = 0
    for number, raw in enumerate(body.split("\n"), 1):
        shown = _visible(raw)
        fence, quoted = own, False
        if not own.open and not _REPL.match(shown):
            mark = _QUOTE.match(shown)
            if mark:
                shown, fence, quoted = shown[mark.end():], quoting, True
        marker = _fence_marker(shown)
        if marker and fence.toggle(marker):
            in_repl = session = False
            blocks += fence.open
            fence.block = blocks if fence.open else 0
            continue
        repl = _REPL.match(shown)
        continuation = in_repl and shown.startswith("... ")
        if repl or continuation:
            shown = shown[repl.end() if repl else 4:]
        in_repl = bool(repl or continuation)
        session = session or in_repl
        if not fence.open:
            wrapped = _WRAPPED.fullmatch(shown)
            shown = wrapped.group(2) if wrapped else shown
        code = in_repl or (fence.open and fence.info in CODE_LANGUAGES and not session)
        if not shown and lines and not lines[-1].text and (lines[-1].quoted, lines[-1].block) == (quoted, fence.block):
            continue  # a run of blank lines separates no more than one does, and costs every reader
        lines.append(Line(number, shown, quoted, fence.block, code, in_repl))
    return Document(tuple(lines), tuple(notes), bool(notes) or own.open or quoting.open)
