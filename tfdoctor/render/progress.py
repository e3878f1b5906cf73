"""Progress while tfdoctor waits on a child (issue 21 item 4): on a terminal, the spinner line
fitted to the terminal's width; without one (CI logs, pipes), one line per stage on stderr, so a
log shows where the time went, within the console's width too (issue 29). `--quiet` passes no
progress console at all. `fix` prints its own progress lines wrapped (progress_lines).

tfdoctor.gather.runtime drives it as it drives a rich console: `is_terminal`, then
`status(text)` with `start()`, `update(text)` and `stop()`; the text is "<Stage> in a child
process… N s (limit)", a rich Text or a plain string, printed as it is (never read as markup:
the stage may be the child's word)."""

from __future__ import annotations

import re

from rich.console import Console
from rich.text import Text

from tfdoctor.render.wrap import wrap

_ELAPSED = re.compile(r"…\s*(\d+) s")


def stage_progress(console: Console) -> "StageProgress":
    return StageProgress(console)


class StageProgress:
    is_terminal = True
    """Always asks for the status line: on a terminal it is the spinner, elsewhere lines."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def status(self, text: str | Text, spinner: str = "dots"):
        if self.console.is_terminal:
            return _Fitted(self.console, spinner, str(text))
        return _StageLines(self.console, str(text))


def fit(text: str, width: int) -> str:
    """The status text within `width` columns (the spinner and its space take 2): the limit in
    parentheses goes first, then the words that do not fit."""
    room = max(10, width - 3)
    if len(text) <= room:
        return text
    text = re.sub(r"\s*\([^()]*\)\s*$", "", text)
    if len(text) <= room:
        return text
    return text[:room - 1].rsplit(" ", 1)[0] + "…"


class _Fitted:
    def __init__(self, console: Console, spinner: str, text: str) -> None:
        self.console = console
        self.status = console.status(Text(fit(text, console.width)), spinner=spinner)

    def start(self) -> None:
        self.status.start()

    def update(self, text: str | Text) -> None:
        self.status.update(Text(fit(str(text), self.console.width)))

    def stop(self) -> None:
        self.status.stop()


class _StageLines:
    """One line per stage: `tfdoctor: importing TensorFlow in a child process (0 s in,
    timeout 60 s)`; the seconds alone changing prints nothing. Each within the console's width
    (stage_line)."""

    def __init__(self, console: Console, text: str) -> None:
        self.console, self.text, self.said = console, text, None

    def start(self) -> None:
        self._say(self.text)

    def update(self, text: str | Text) -> None:
        self._say(str(text))

    def stop(self) -> None:
        pass

    def _say(self, text: str) -> None:
        stage = _ELAPSED.split(text, maxsplit=1)[0].strip().rstrip("…").strip()
        if not stage or stage == self.said:
            return
        self.said = stage
        elapsed = _ELAPSED.search(text)
        limit = re.search(r"\(([^()]*)\)\s*$", text)
        when = ", ".join(x for x in (f"{elapsed.group(1)} s in" if elapsed else "",
                                     limit.group(1) if limit else "") if x)
        line = stage_line(f"{stage[0].lower()}{stage[1:]}", when, self.console.width)
        self.console.print(Text(line), soft_wrap=True, highlight=False)


CHILD = " in a child process"
"""Said of every stage; the first words to go when a line is too wide."""


def stage_line(stage: str, when: str, width: int) -> str:
    """`tfdoctor: <stage> (<when>)` in one line of at most `width` columns (a log keeps one line
    per stage): without " in a child process" if need be, then with the stage cut between
    words; the figures in `when` are always kept whole."""
    figures = f" ({when})" if when else ""
    for words in (stage, stage.replace(CHILD, "")):
        line = f"tfdoctor: {words}{figures}"
        if len(line) <= width:
            return line
    room = max(width - len("tfdoctor: …") - len(figures), 10)
    cut = words[:room + 1].rsplit(" ", 1)[0] if len(words) > room else words
    return f"tfdoctor: {cut.rstrip(' ,:;(')}…{figures}"


def progress_lines(line: str, width: int) -> list[str]:
    """One progress line of `fix` in lines of at most `width` columns, wrapped between words and
    indented under its own start (a path longer than the width stands alone)."""
    text = line.lstrip(" ")
    indent = line[:len(line) - len(text)]
    return wrap(text, width, indent, indent + "    ")
