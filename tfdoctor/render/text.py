"""The terminal view, in the style people know from flutter doctor: a line per area marked
[✓] [!] [✗], the diagnosis and the next command first, evidence with -v."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from tfdoctor import __version__
from tfdoctor.model import Finding, Severity
from tfdoctor.render.common import MARKS, summary_line, target_line
from tfdoctor.report import Report
from tfdoctor.typed import json_text

STYLES = {Severity.OK: "green", Severity.INFO: "cyan", Severity.WARNING: "yellow",
          Severity.ERROR: "red"}


def render_text(report: Report, console: Console, verbose: bool, fail_on: Severity) -> None:
    console.print(f"[bold]tfdoctor {__version__}[/] · {escape(target_line(report))}")
    console.print()
    diagnosis = report.diagnosis()
    if diagnosis:
        style = STYLES[diagnosis.severity]
        console.print(f"[bold {style}]Diagnosis:[/] {escape(diagnosis.title)} [dim]({diagnosis.code})[/]")
        explained = report.consequences(diagnosis)
        if explained:
            console.print(f"  [dim]explains: {', '.join(f.code for f in explained)}[/]")
        _print_fix(console, diagnosis, indent="  ")
        console.print()
    for area in report.areas():
        head = area.finding
        console.print(f"[{STYLES[area.severity]}]\\[{MARKS[area.severity]}][/] [bold]{escape(area.area)}[/]: "
                      f"{escape(area.headline)} [dim]({head.code})[/]")
        _print_body(console, report, head, diagnosis, verbose, indent="    ")
        for finding in report.findings:
            if finding.check == area.check and finding is not head and (
                    finding.severity >= Severity.WARNING or verbose):
                _print_finding(console, report, finding, diagnosis, verbose)
    console.print()
    code = report.exit_code(fail_on)
    hint = "" if verbose else " · -v for evidence"
    console.print(f"{summary_line(report)} · exit {code} (--fail-on {fail_on.value}){hint}")


def _print_finding(console: Console, report: Report, finding: Finding, diagnosis: Finding | None,
                   verbose: bool) -> None:
    style = STYLES[finding.severity]
    console.print(f"    [{style}]{MARKS[finding.severity]}[/] {escape(finding.title)} [dim]({finding.code})[/]")
    _print_body(console, report, finding, diagnosis, verbose, indent="      ")


def _print_body(console: Console, report: Report, finding: Finding, diagnosis: Finding | None,
                verbose: bool, indent: str) -> None:
    """What follows a finding's title: its cause, detail and fix (problems; the diagnosis's fix
    is printed once, at the top), evidence (-v)."""
    causes = report.explained_by(finding)
    if causes:
        console.print(f"{indent}[dim]because of: {', '.join(c.code for c in causes)}[/]")
    if finding.detail and (verbose or finding.severity >= Severity.WARNING):
        console.print(f"{indent}{escape(finding.detail)}")
    if finding.severity >= Severity.WARNING and not causes and finding is not diagnosis:
        _print_fix(console, finding, indent=indent)
    if verbose and finding.evidence:
        for key, value in finding.evidence.items():
            shown = value if isinstance(value, str) else json_text(value)
            console.print(f"{indent}[dim]{escape(key)}: {escape(shown)}[/]")


def _print_fix(console: Console, finding: Finding, indent: str) -> None:
    fix = finding.remediation
    if not fix:
        return
    console.print(f"{indent}[bold]Fix:[/] {escape(fix.text)}")
    for command in fix.commands:
        console.print(f"{indent}  [bold cyan]$ {escape(command)}[/]")
    if fix.link:
        console.print(f"{indent}  [dim]{escape(fix.link)}[/]")
