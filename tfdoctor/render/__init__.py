"""Stage: show a report. Takes a Report (with the derived facts it was made from) and gives
text for a terminal (text.py), markdown for a bug report (markdown.py), JSON with its schema
(schemas.py), one line per snapshot (summary.py), and the views of the other commands (matrix,
ops, lint, run, list-checks, the model probe's summary). Rendering reads the report; it never derives facts again.

`render` is the one entry point the commands use; every format writes to the console it is given
(JSON and markdown as plain text to its file), and each format's module is imported only when used,
so a `--json` run never imports the text renderer's tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from tfdoctor.model import Severity
    from tfdoctor.report.diagnosis import Report

FORMATS = ("text", "json", "markdown")


def render(report: "Report", fmt: str, out: "Console", *, verbose: bool = False,
           fail_on: "Severity | None" = None) -> None:
    """Write `report` to `out` in `fmt` (one of FORMATS)."""
    from tfdoctor.model import Severity

    fail_on = fail_on or Severity.ERROR
    if fmt == "json":
        from tfdoctor.facts.typed import json_text
        from tfdoctor.sanitize.terminal import json_safe

        out.file.write(json_safe(json_text(report.to_dict(fail_on), indent=2)) + "\n")
    elif fmt == "markdown":
        from tfdoctor.render.markdown import render_markdown
        from tfdoctor.sanitize.terminal import neutralise

        out.file.write(neutralise(render_markdown(report, fail_on)))  # it may go to a terminal
    elif fmt == "text":
        from tfdoctor.render.text import render_text

        render_text(report, out, verbose, fail_on)
    else:
        raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
