"""tfdoctor inside a notebook: `%load_ext tfdoctor` then `%tfdoctor` (with `tfdoctor check`'s
options), or `import tfdoctor; tfdoctor.check()`. Both diagnose the kernel's own interpreter
(sys.executable, whatever environment the Jupyter server was started from) unless --python or
--kernel names another, exactly as `tfdoctor check` does: facts gathered by children, never in
the kernel, which is free again once the check returns (an interrupt stops the children too).

The result is a value: a NotebookReport, shown as the report (HTML in a notebook, text in a
terminal) when it is a cell's value, with the Report itself and the exit status `tfdoctor
check` would give. IPython is not a dependency: this module never imports it, and IPython only
calls load_ipython_extension when it is there."""

from __future__ import annotations

import io
import os
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import Report

DEFAULT_WIDTH = 100
"""Columns of the rendered report (COLUMNS overrides): a notebook's output area is wider than a
terminal's 80 columns."""
HTML_FORMAT = ('<pre style="white-space:pre;overflow-x:auto;line-height:normal;'
               'font-family:Menlo,\'DejaVu Sans Mono\',consolas,\'Courier New\',monospace">{code}</pre>')
"""How rich's own Jupyter output wraps a rendering (rich.jupyter)."""


class UsageError(ValueError):
    """An option `tfdoctor check` would refuse (exit 2): the message is its one line."""


@dataclass(frozen=True)
class NotebookReport:
    """What a check in a notebook returns: the report, shown as `tfdoctor check` would print it."""

    report: Report
    fail_on: Severity = Severity.ERROR
    format: str = "text"
    verbose: bool = False

    @property
    def exit_code(self) -> int:
        """The exit status `tfdoctor check` gives for this report: 0, or 1 for a finding at or
        above --fail-on."""
        return self.report.exit_code(self.fail_on)

    def to_dict(self) -> dict[str, Any]:
        """The document `tfdoctor check --json` prints."""
        return self.report.to_dict(self.fail_on)

    def render(self, html: bool = False) -> str:
        """The report in its format, as text (or, for the text format, as HTML with its colours)."""
        from rich.console import Console

        from tfdoctor.render import render
        from tfdoctor.render.common import safe_console

        console = safe_console(Console(file=io.StringIO(), width=_width(), record=html, highlight=False,
                                       soft_wrap=True, force_terminal=html, force_jupyter=False,
                                       no_color=not html, color_system="truecolor" if html else None))
        render(self.report, self.format, console, verbose=self.verbose, fail_on=self.fail_on)
        if html and self.format == "text":
            return console.export_html(inline_styles=True, code_format=HTML_FORMAT)
        return console.file.getvalue()

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """IPython's display: HTML and text for the text format, JSON or Markdown for those."""
        text = self.render()
        if self.format == "json":
            return {"application/json": self.to_dict(), "text/plain": text}
        if self.format == "markdown":
            return {"text/markdown": text, "text/plain": text}
        return {"text/html": self.render(html=True), "text/plain": text}

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        from tfdoctor.render.common import summary_line

        return f"<tfdoctor report: {summary_line(self.report)}, exit {self.exit_code}>"


def _width() -> int:
    try:
        return max(40, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return DEFAULT_WIDTH


def _command() -> Any:
    """The click command behind `tfdoctor check`: its options are parsed and checked here the
    same way, so `%tfdoctor` takes exactly what `tfdoctor check` takes."""
    from typer.main import get_command

    from tfdoctor.cli.main import load_app

    return get_command(load_app()).commands["check"]


def _option_name(param: Any) -> str:
    """`no_runtime` for --no-runtime: the keyword tfdoctor.check() takes for an option."""
    return max(param.opts, key=len).lstrip("-").replace("-", "_")


def arguments(options: dict[str, Any]) -> list[str]:
    """tfdoctor.check()'s keywords as `tfdoctor check` arguments (check(no_runtime=True,
    only=["arch"]) is --no-runtime --only arch); an unknown keyword is a TypeError."""
    params = {_option_name(p): p for p in _command().params if p.opts}
    unknown = sorted(set(options) - set(params))
    if unknown:
        raise TypeError(f"check() got unknown options {', '.join(unknown)}; it takes "
                        f"{', '.join(sorted(params))}")
    argv: list[str] = []
    for name, value in options.items():
        option = max(params[name].opts, key=len)
        if params[name].is_flag:
            argv += [option] if value else []
        elif params[name].multiple:
            argv += [word for item in ([value] if isinstance(value, str) else value)
                     for word in (option, str(item))]
        elif value is not None:
            argv += [option, str(getattr(value, "value", value))]
    return argv


@contextmanager
def _stderr_to(file: Any) -> Iterator[None]:
    """tfdoctor's stderr console (progress, usage errors) writes plain lines to `file`
    meanwhile: in a kernel, rich would show each line as an HTML output of its own, or, as
    Jupyter sets FORCE_COLOR, draw a spinner with cursor codes."""
    from rich.console import Console

    from tfdoctor.cli import app
    from tfdoctor.render.common import safe_console

    saved = app.err
    app.err = safe_console(Console(file=file, force_terminal=False, force_jupyter=False, no_color=True,
                                   highlight=False, soft_wrap=True))
    try:
        yield
    finally:
        app.err = saved


def run(argv: list[str]) -> NotebookReport | None:
    """`tfdoctor check ARGV` in this process, the kernel's own interpreter diagnosed by default.
    None for --help (printed); UsageError for what `tfdoctor check` would refuse."""
    import typer

    from tfdoctor.cli.app import (
        attach_log,
        check_log_path,
        click,
        diagnose_snapshot,
        gather_facts,
        select_rules,
    )
    from tfdoctor.cli.check import interpreter_for
    from tfdoctor.gather.interpreter import Target
    from tfdoctor.render.common import without_rerun

    said = io.StringIO()
    try:
        with _stderr_to(said):
            try:
                params = _command().make_context("%tfdoctor", list(argv),
                                                 help_option_names=["-h", "--help"]).params
            except click.exceptions.ClickException as exc:
                message = exc.format_message()
                raise UsageError(f"tfdoctor: error: {message[:1].lower()}{message[1:]}") from None
            chosen = select_rules(params["only"], params["skip"])
            check_log_path(params["log"])
            python = interpreter_for(params["python"], params["kernel"])
    except typer.Exit as exc:
        if exc.exit_code == 0:
            return None  # --help, printed
        raise UsageError(said.getvalue().strip()) from None
    if python is None:
        python = Target(sys.executable, "this kernel", "the notebook kernel's own interpreter")
    with _stderr_to(sys.stderr):
        snapshot = gather_facts(python, params["no_runtime"], params["no_probes"], params["timeout"],
                                quiet=params["quiet"])
        attach_log(snapshot, params["log"])
        report = diagnose_snapshot(snapshot, chosen, params["debug"])
    fmt = "json" if params["json_output"] else getattr(params["fmt"], "value", params["fmt"])
    fail_on = Severity(getattr(params["fail_on"], "value", params["fail_on"]))
    return NotebookReport(without_rerun(report, ["check", *argv]), fail_on, fmt, params["verbose"])


def check(**options: Any) -> NotebookReport | None:
    """Diagnose this kernel's interpreter as `tfdoctor check` does; keywords are its options
    (check(no_runtime=True, only=["arch"], fail_on="warning", kernel="tf")); help=True prints
    them and returns None."""
    return run(arguments(options))


def magic(line: str) -> NotebookReport | None:
    """`%tfdoctor [check's options]`: the report as the cell's value; a usage error is one line
    on stderr, as on the command line."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:  # an unclosed quote
        sys.stderr.write(f"tfdoctor: error: {exc}\n")
        return None
    try:
        return run(argv)
    except UsageError as exc:
        sys.stderr.write(f"{exc}\n")
        return None


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext tfdoctor`: registers the %tfdoctor line magic."""
    ipython.register_magic_function(magic, "line", "tfdoctor")
