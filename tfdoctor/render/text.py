"""The terminal view, in the style people know from flutter doctor: a line per area marked
[✓] [!] [✗], the diagnosis and the next command first, evidence with -v."""

from __future__ import annotations

from rich.console import Console

from tfdoctor import __version__
from tfdoctor.facts.typed import json_text
from tfdoctor.model import Finding, Severity
from tfdoctor.render.common import MARKS, prose, say, summary_line, target_line
from tfdoctor.render.notebooks import render_notebooks
from tfdoctor.report.diagnosis import Report
from tfdoctor.sanitize.terminal import escape

STYLES = {Severity.OK: "green", Severity.INFO: "cyan", Severity.WARNING: "yellow",
          Severity.ERROR: "red"}


def render_text(report: Report, console: Console, verbose: bool, fail_on: Severity) -> None:
    say(console, f"[bold]tfdoctor {__version__}[/] · {escape(target_line(report))}")
    console.print()
    diagnosis = report.diagnosis()
    if diagnosis:
        style = STYLES[diagnosis.severity]
        say(console, f"[bold {style}]Diagnosis:[/] {prose(diagnosis.title)} [dim]({diagnosis.code})[/]")
        explained = list(dict.fromkeys(f.code for f in report.consequences(diagnosis)))
        if explained:  # each present code once
            say(console, f"[dim]explains: {', '.join(explained)}[/]", "  ")
        _print_fix(console, diagnosis, indent="  ")
        console.print()
    for area in report.areas():
        head = area.finding
        headline = ("the diagnosis above" if head is diagnosis and area.headline == head.title
                    else area.headline)  # said once, at the top
        say(console, f"[{STYLES[area.severity]}]\\[{MARKS[area.severity]}][/] [bold]{prose(area.area)}[/]: "
                      f"{prose(headline)} [dim]({head.code})[/]")
        _print_body(console, report, head, diagnosis, verbose, indent="    ")
        for finding in report.findings:
            if finding.check == area.check and finding is not head and (
                    finding.severity >= Severity.WARNING or verbose):
                _print_finding(console, report, finding, diagnosis, verbose)
    for gap in report.unjudged:
        say(console, f"[cyan]\\[?][/] [bold]Not judged[/]: {prose(gap.what)} is not known "
                     f"({escape(', '.join(gap.rules))}); its output would tell:")
        console.print(f"    [bold]$[/] {escape(gap.command)}", soft_wrap=True)  # whole, to be copied
    render_notebooks(console, report.snapshot, verbose)
    console.print()
    code = report.exit_code(fail_on)
    hint = "" if verbose else " · -v for evidence"
    say(console, f"{summary_line(report)} · exit {code} (--fail-on {fail_on.value}){hint}")


def _print_finding(console: Console, report: Report, finding: Finding, diagnosis: Finding | None,
                   verbose: bool) -> None:
    style = STYLES[finding.severity]
    say(console, f"[{style}]{MARKS[finding.severity]}[/] {prose(finding.title)} [dim]({finding.code})[/]", "    ", 2)
    _print_body(console, report, finding, diagnosis, verbose, indent="      ")


def _print_body(console: Console, report: Report, finding: Finding, diagnosis: Finding | None,
                verbose: bool, indent: str) -> None:
    """What follows a finding's title: its cause, detail and fix (problems; the diagnosis's fix
    is printed once, at the top), evidence (-v)."""
    causes = report.explained_by(finding)
    if causes:
        say(console, f"[dim]because of: {', '.join(c.code for c in causes)}[/]", indent, 0)
    if finding.detail and (verbose or finding.severity >= Severity.WARNING):
        say(console, prose(finding.detail), indent, 0)
    if finding.severity >= Severity.WARNING and not causes and finding is not diagnosis:
        _print_fix(console, finding, indent=indent)
    if verbose and finding.evidence:
        for key, value in finding.evidence.items():
            shown = value if isinstance(value, str) else json_text(value)
            say(console, f"[dim]{escape(key)}: {prose(shown)}[/]", indent, 2)


def _print_fix(console: Console, finding: Finding, indent: str) -> None:
    fix = finding.remediation
    if not fix:
        return
    say(console, f"[bold]Fix:[/] {prose(fix.text)}", indent, 5)
    for command in fix.commands:  # whole, on one line, so it can be copied as it is
        console.print(f"{indent}  [bold cyan]$ {escape(command)}[/]", soft_wrap=True)
    for line in fix.code:  # the user's code, not a command: another marker
        console.print(f"{indent}  [cyan]│ {escape(line)}[/]", soft_wrap=True)
    if fix.link:
        console.print(f"{indent}  [dim]{escape(fix.link)}[/]", soft_wrap=True)
