"""Lines wrapped between words to a console's width (issue 29: `fix` and `ops` at 80 columns),
where a word too long for the room (a path, a URL, a requirement) is never cut: it starts a
line of its own and may run past the width there."""

from __future__ import annotations

import re

GLUE = "\u00a0"
"""Joins words that must stay on one line (`[tfdoctor runs]`); printed as a plain space."""

_WORDS = re.compile(r"( *)([^ ]+)")


def wrap(text: str, width: int, first: str = "", rest: str | None = None) -> list[str]:
    """`text` in lines of at most `width` columns: the first starts with `first`, the others with
    `rest` (default: as many spaces as `first` is long, plus two). The spaces between two words
    on the same line are kept as written."""
    rest = " " * (len(first) + 2) if rest is None else rest
    lines: list[str] = []
    line, empty = first, True
    for space, word in _WORDS.findall(text):
        word = word.replace(GLUE, " ")
        if empty:
            line, empty = line + word, False
        elif len(line) + len(space) + len(word) <= width:
            line += space + word
        else:
            lines.append(line)
            line = rest + word
    lines.append(line)
    return lines


def glued(words: str) -> str:
    """`words` that wrap() keeps on one line."""
    return words.replace(" ", GLUE)
