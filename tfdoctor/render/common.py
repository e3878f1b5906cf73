"""Wording shared by the text and markdown views."""

from __future__ import annotations

from rich.console import RenderHook

from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import Report
from tfdoctor.sanitize.terminal import neutralise

MARKS = {Severity.OK: "✓", Severity.INFO: "-", Severity.WARNING: "!", Severity.ERROR: "✗"}
"""flutter doctor's marks, with "-" for information that is neither fine nor a problem."""


def target_line(report: Report) -> str:
    """Which interpreter was diagnosed, in one line: the context for everything below."""
    snap = report.snapshot
    py = snap.python
    parts = []
    if py:
        translated = report.derived.translated
        arch = py.process_arch + (" under Rosetta 2" if translated else "")
        parts.append(f"Python {py.version} ({arch})")
    host = snap.host
    if host.macos_version:
        parts.append(f"macOS {host.macos_version}")
    elif host.system:
        parts.append(f"{host.system} {host.release}")
    if host.chip:
        parts.append(host.chip)
    if host.memory_bytes:
        parts.append(f"{host.memory_bytes / 2**30:.0f} GiB RAM")
    chosen = ""
    if snap.target.chosen_by in ("VIRTUAL_ENV", "CONDA_PREFIX", "PATH"):
        chosen = f" ({snap.target.chosen_reason or 'chosen by ' + snap.target.chosen_by})"
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

    if console.is_terminal:
        return console
    return safe_console(Console(file=console.file, highlight=False, soft_wrap=True, width=width,
                                no_color=console.no_color))


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
