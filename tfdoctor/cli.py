"""The `tfdoctor` command line. Exit codes: 0 no problem at or above --fail-on, 1 problems found,
2 usage error, 3 tfdoctor itself failed."""

from __future__ import annotations

import difflib
import json
import sys
import traceback
from enum import Enum
from typing import List, Optional

import typer
from rich.console import Console

from tfdoctor import __version__
from tfdoctor.engine import ENGINE_CODES, UnknownCheck, run_checks, select
from tfdoctor.model import CodeDoc, Severity
from tfdoctor.registry import load_checks
from tfdoctor.report import EXIT_INTERNAL, EXIT_USAGE, Report

app = typer.Typer(
    help="Diagnose TensorFlow on Apple silicon: what is wrong, why, and the command that fixes it.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    warning = "warning"
    error = "error"


def usage_error(message: str) -> typer.Exit:
    err.print(f"[red]error:[/] {message}")
    return typer.Exit(EXIT_USAGE)


def _version(value: bool) -> None:
    if value:
        out.print(f"tfdoctor {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """tfdoctor: TensorFlow on Apple silicon, diagnosed."""


@app.command()
def check(
    python: Optional[str] = typer.Option(
        None, "--python", help="Interpreter to diagnose (path, venv dir, or command); default: this one."),
    json_output: bool = typer.Option(False, "--json", help="Print only JSON on stdout (same as --format json)."),
    fmt: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text, json, or markdown for a bug report."),
    verbose: bool = typer.Option(False, "-v", "--verbose", help="Show every finding with its evidence."),
    only: List[str] = typer.Option([], "--only", help="Run only this check (repeatable); see list-checks."),
    skip: List[str] = typer.Option([], "--skip", help="Do not run this check (repeatable)."),
    fail_on: FailOn = typer.Option(FailOn.error, "--fail-on", help="Lowest severity that makes the exit code 1."),
    no_runtime: bool = typer.Option(False, "--no-runtime", help="Skip importing TensorFlow in a child process."),
    no_probes: bool = typer.Option(False, "--no-probes", help="Skip the GPU speed probes."),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Seconds the TensorFlow child may take before it is killed."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks of tfdoctor's own failures."),
) -> None:
    """Diagnose an interpreter's TensorFlow setup and print the fix."""
    from tfdoctor.gather import TargetNotFound, gather_static

    checks, failures = load_checks()
    try:
        chosen = select(checks, only, skip)
    except UnknownCheck as exc:
        raise usage_error(str(exc))
    try:
        snapshot = gather_static(python)
    except TargetNotFound as exc:
        raise usage_error(str(exc))
    if not no_runtime and snapshot.target.ok:
        from tfdoctor.runtime import gather_runtime

        snapshot.runtime = gather_runtime(snapshot.target.python, timeout, progress=err if not (json_output or fmt is not OutputFormat.text) else None)
    findings = run_checks(snapshot, chosen, failures, debug=debug)
    report = Report(snapshot, findings, chosen)
    threshold = Severity(fail_on.value)
    emit(report, OutputFormat.json if json_output else fmt, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


def emit(report: Report, fmt: OutputFormat, verbose: bool, threshold: Severity) -> None:
    if fmt is OutputFormat.json:
        sys.stdout.write(json.dumps(report.to_dict(threshold), indent=2) + "\n")
    elif fmt is OutputFormat.markdown:
        from tfdoctor.render.markdown import render_markdown

        sys.stdout.write(render_markdown(report, threshold))
    else:
        from tfdoctor.render.text import render_text

        render_text(report, out, verbose, threshold)


@app.command("list-checks")
def list_checks(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the registered checks (built-in and plugins) and the codes each can report."""
    checks, failures = load_checks()
    if json_output:
        data = [{"name": c.name, "area": c.area, "summary": c.summary, "codes": sorted(c.codes),
                 "module": getattr(c.run, "__module__", None)} for c in checks]
        sys.stdout.write(json.dumps({"checks": data, "load_failures": [f.__dict__ for f in failures]},
                                    indent=2) + "\n")
        return
    for c in checks:
        out.print(f"[bold]{c.name}[/]  {c.area}: {c.summary}")
        out.print(f"  [dim]{', '.join(sorted(c.codes))}[/]")
    for f in failures:
        err.print(f"[yellow]could not load[/] {f.entry_point}: {f.error}")


def all_codes() -> dict[str, CodeDoc]:
    checks, _ = load_checks()
    codes = dict(ENGINE_CODES)
    for c in checks:
        codes.update(c.codes)
    return codes


@app.command()
def explain(code: str = typer.Argument(..., help="A finding code, e.g. arch.rosetta")) -> None:
    """Explain what a finding code means, why it happens, and how to fix it."""
    codes = all_codes()
    doc = codes.get(code)
    if doc is None:
        close = difflib.get_close_matches(code, list(codes), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `tfdoctor list-checks` lists them"
        raise usage_error(f"unknown code {code!r}{hint}")
    out.print(f"[bold]{code}[/] ({doc.severity.value}): {doc.title}")
    out.print()
    out.print(doc.why)
    out.print()
    out.print(f"[bold]Fix:[/] {doc.fix}")
    if doc.link:
        out.print(doc.link)


def main() -> None:
    """Entry point: turns any failure of tfdoctor itself into exit code 3 and one clear line."""
    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the doctor must not end in a traceback
        err.print(f"[red]tfdoctor failed:[/] {type(exc).__name__}: {exc}")
        if "--debug" in sys.argv:
            err.print(traceback.format_exc(), markup=False)
        else:
            err.print("[dim]run again with --debug for the traceback[/]")
        sys.exit(EXIT_INTERNAL)
