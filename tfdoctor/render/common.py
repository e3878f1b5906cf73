"""Wording shared by the text and markdown views."""

from __future__ import annotations

import re
from dataclasses import replace
from difflib import SequenceMatcher
from typing import Sequence

from rich.console import Console, RenderHook
from rich.text import Text

from tfdoctor.model import Finding, Severity
from tfdoctor.report.diagnosis import Report
from tfdoctor.sanitize.terminal import escape, neutralise

MARKS = {Severity.OK: "✓", Severity.INFO: "-", Severity.WARNING: "!", Severity.ERROR: "✗"}
"""flutter doctor's marks, with "-" for information that is neither fine nor a problem."""


def target_line(report: Report) -> str:
    """Which interpreter was diagnosed, in one line: the context for everything below."""
    snap = report.snapshot
    py = snap.python
    parts = []
    if py:
        translated = report.derived.translated
        arch = (py.process_arch or "architecture not stated") + (" under Rosetta 2" if translated else "")
        parts.append(f"Python {py.version} ({arch})")
    host = snap.host
    if host.macos_version:
        parts.append(f"macOS {host.macos_version}")
    elif host.system:
        parts.append(" ".join(x for x in (host.system, host.release) if x))
    if host.chip:
        parts.append(host.chip)
    if host.memory_bytes:
        parts.append(f"{host.memory_bytes / 2**30:.0f} GiB RAM")
    chosen = ""
    if snap.target.chosen_reason and snap.target.chosen_by != "--python":
        chosen = f" ({snap.target.chosen_reason})"  # which environment, and why (issue 21)
    elif snap.target.chosen_by in ("VIRTUAL_ENV", "CONDA_PREFIX", "PATH"):
        chosen = f" (chosen by {snap.target.chosen_by})"
    return f"{snap.target.python}{chosen}: " + (", ".join(parts) if parts else "no facts gathered")


def summary_line(report: Report) -> str:
    counts = report.counts()
    bits = [f"{counts[s.value]} {s.value}{'s' if counts[s.value] != 1 else ''}"
            for s in (Severity.ERROR, Severity.WARNING) if counts[s.value]]
    return ", ".join(bits) if bits else "no problems found"


def wide(console, width: int = 132):
    """The console itself on a terminal; in a pipe (rich's default 80 columns), one as wide as
    `width`, so that tables keep their columns in logs and CI output."""
    from rich.console import Console

    if console.is_terminal or getattr(console, "_width", None) is not None:
        return console  # a terminal, or a width asked for (COLUMNS=80, Console(width=80))
    return safe_console(Console(file=console.file, highlight=False, soft_wrap=True, width=width,
                                emoji=False, no_color=console.no_color))


class _Neutralised:
    """A renderable whose text segments are neutralised (issue 22): whatever a finding, a table
    cell or a message holds, no control sequence of it reaches the terminal. rich's own control
    segments (cursor moves of a spinner) and the colours it renders from styles are untouched."""

    def __init__(self, renderable) -> None:
        self.renderable = renderable

    def __rich_console__(self, console, options):
        from rich.segment import Segment

        for segment in console.render(self.renderable, options):
            if segment.control or not segment.text:
                yield segment
            else:
                yield Segment(neutralise(segment.text), segment.style)


class _NeutraliseHook(RenderHook):
    """rich's render hook (Console.push_render_hook): every printed renderable, neutralised."""

    def process_renderables(self, renderables):
        return [_Neutralised(r) for r in renderables]


def safe_console(console):
    """`console`, made to neutralise every control sequence in what it prints (tfdoctor's own
    colours stay: rich adds them from styles, after this)."""
    console.push_render_hook(_NeutraliseHook())
    return console


class wrapped_prose:
    """`with wrapped_prose(console):` prose printed inside wraps between words at the console's
    width (80 columns on macOS Terminal) instead of running on for the terminal to cut mid-word
    (issue 21); outside, the console keeps its soft wrapping for commands and JSON."""

    def __init__(self, console) -> None:
        self.console, self.before = console, console.soft_wrap

    def __enter__(self):
        self.console.soft_wrap = False
        return self.console

    def __exit__(self, *exc) -> None:
        self.console.soft_wrap = self.before


_EVIDENCE_ID = re.compile(r" ?\\?\[[a-z0-9][a-z0-9._]*(?:-[a-z0-9._]+){2,}\]")
"""A matrix evidence id quoted after its own summary (`... 2.18.1 and 2.19
[metal-1.2.0-works-on-tf-2.18.1-and-2.19]`, escaped or not): the words before it say it all."""
_APPLE_ROW = re.compile(r"\|\s*v?([0-9][0-9.]*(?:\s*-\s*v?[0-9.]+)?)\s*\|\s*v?([0-9.]+)\s*\|"
                        r"\s*([0-9.]+\+?)\s*\|([^|]*)\|")
"""A row of Apple's tensorflow-metal table as the matrix keeps it: |TF|plugin|macOS|features|."""


def in_words(text: str) -> str:
    """Internal tokens in what a person reads become words (issue 21): evidence ids go, and
    Apple's table rows read `TensorFlow 2.14-2.18, tensorflow-metal 1.1.0, macOS 12.1+`."""

    def row(found: re.Match) -> str:
        tf = found.group(1).replace("v", "").replace(" ", "")
        words = f"TensorFlow {tf}, tensorflow-metal {found.group(2)}, macOS {found.group(3)}"
        note = " ".join(found.group(4).split())
        return f"{words}: {note}" if note else words

    return _APPLE_ROW.sub(row, _EVIDENCE_ID.sub("", text))


def prose(text: str) -> str:
    """tfdoctor's own words (a title, a detail, a fix) as markup for `say`: internal tokens made
    words, escaped. A path, a command or a name from the environment is only escaped: it prints
    as it is (issue 28)."""
    return escape(in_words(text))


def similar_codes(query: str, names: list[str], n: int = 3) -> list[str]:
    """The codes most like `query`, compared with the whole code, with its name after the area
    (`rosetta` is arch.rosetta) and with its words (`sigill` is runtime.import-sigill)."""
    query = query.strip().lower()
    scored = []
    for name in set(names):
        tail = name.split(".", 1)[-1]
        score = max(SequenceMatcher(None, query, name).ratio(),
                    SequenceMatcher(None, query, tail).ratio())
        if query and query in name.replace(".", "-").split("-"):
            score = max(score, 0.9)
        elif len(query) >= 3 and query in name:
            score = max(score, 0.8)
        if score >= 0.6:
            scored.append((-score, name))
    return [name for _, name in sorted(scored)[:n]]


def without_block(text: str, head: str) -> str:
    """`text` without the line that starts with `head` and the indented lines under it."""
    kept, skipping = [], False
    for line in text.splitlines():
        if line.startswith(head):
            skipping = True
            continue
        if skipping and line.startswith("  "):
            continue
        skipping = False
        kept.append(line)
    return "\n".join(kept)


def without_rerun(report: Report, argv: Sequence[str]) -> Report:
    """The report without the `tfdoctor ...` commands that would run again what `argv` (the
    command line just run) ran: the same subcommand, with no argument the user did not give
    (`--python`, which names the same interpreter in another spelling, aside; but not the
    placeholder for another environment's Python)."""
    import shlex

    from tfdoctor.engine.vet import OTHER_PYTHON

    def given(words: Sequence[str]) -> set[str]:
        return {w for w in words if not w.startswith("--python")}

    def reruns(command: str) -> bool:
        try:
            words = shlex.split(command)
        except ValueError:
            return False
        if len(words) < 2 or words[0] != "tfdoctor" or not argv or words[1] != argv[0]:
            return False
        rest, i = [], 2
        while i < len(words):  # drop "--python VALUE" pairs
            if words[i] == "--python" and words[i + 1:i + 2] != [OTHER_PYTHON]:
                i += 2
                continue
            rest.append(words[i])
            i += 1
        return given(rest) <= given(argv[1:])

    def trimmed(finding: Finding) -> Finding:
        fix = finding.remediation
        if fix is None or not any(reruns(c) for c in fix.commands):
            return finding
        return replace(finding, remediation=replace(fix, commands=tuple(c for c in fix.commands if not reruns(c))))

    return replace(report, findings=[trimmed(f) for f in report.findings])


def say(console: Console, markup: str, indent: str = "", hang: int = 4) -> None:
    """Print prose wrapped at the console's width between words, continuation lines indented
    under the first (macOS Terminal opens 80 columns wide); commands are never passed here (they
    are printed whole, on one line, to be copied). What `markup` quotes is printed as it is
    (`prose` rewords tfdoctor's own words first)."""
    text = Text.from_markup(markup, emoji=False)  # a path with :fire: stays as it is
    width = max(40, (console.width or 80) - len(indent) - hang)
    lines = text.wrap(console, width, overflow="fold")
    for i, line in enumerate(lines):
        line.rstrip()
        console.print(Text(indent + (" " * hang if i else "")) + line, soft_wrap=True)
