"""Wording shared by the text and markdown views."""

from __future__ import annotations

from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import Report

MARKS = {Severity.OK: "✓", Severity.INFO: "-", Severity.WARNING: "!", Severity.ERROR: "✗"}
"""flutter doctor's marks, with "-" for information that is neither fine nor a problem."""


def target_line(report: Report) -> str:
    """Which interpreter was diagnosed, in one line: the context for everything below."""
    from tfdoctor.derived import derive

    snap = report.snapshot
    py = snap.python
    parts = []
    if py:
        translated = (report.derived or derive(snap)).translated
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
    return Console(file=console.file, highlight=False, soft_wrap=True, width=width, no_color=console.no_color)
