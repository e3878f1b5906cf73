"""The views of `tfdoctor triage`: text for a terminal, Markdown to post as a comment on the
report, and one line per report with counts by cause (`--summary`) for a maintainer's backlog.
Everything shown of a report is redacted and neutralised (it is a stranger's text)."""

from __future__ import annotations

from collections import Counter

from rich.console import Console

from tfdoctor import __version__
from tfdoctor.render.common import prose, say
from tfdoctor.render.markdown import code_block, code_span, escape_inline
from tfdoctor.sanitize.terminal import escape, neutralise
from tfdoctor.triage.document import SummaryLine, TriageDoc

SHOWN_FACTS = 12
"""Facts listed in the text view (all of them are in --json)."""


def _clean(text: str) -> str:
    """What the report or the reader said, as it is."""
    return escape(neutralise(text))


def _words(text: str) -> str:
    """tfdoctor's own words (a title, a fix): internal tokens made words."""
    return prose(neutralise(text))


def render_text(doc: TriageDoc, console: Console) -> None:
    say(console, f"[bold]tfdoctor {__version__} triage[/] · {_clean(doc.name)}")
    facts = ", ".join(f"{f.name}={f.value or '(no version)'} ({f.how}, line {f.line})" for f in doc.facts[:SHOWN_FACTS])
    more = f" and {len(doc.facts) - SHOWN_FACTS} more" if len(doc.facts) > SHOWN_FACTS else ""
    say(console, f"[dim]facts read: {_clean(facts) or 'none'}{more}[/]")
    for c in doc.contradictions:
        values = " vs ".join(f"{f.value or '(no version)'} (line {f.line}, {f.source})" for f in c.facts)
        say(console, f"[yellow]contradiction[/] {_clean(c.name)}: {_clean(values)}: {_words(c.why)}")
    console.print()
    top = next((f for f in doc.findings if f.code == doc.cause), None)
    if top is None:
        say(console, "[bold]No diagnosis[/]: the report's facts and text match no known cause")
    else:
        say(console, f"[bold]Diagnosis:[/] {_words(top.title)} [dim]({top.code})[/]")
        if top.remediation:
            say(console, f"Fix: {_words(top.remediation.text)}", "  ", hang=7)
            for command in top.remediation.commands:  # whole, on one line, to be copied
                console.print(f"    [bold]$[/] {_clean(command)}", soft_wrap=True)
    others = [c for c in doc.root_causes if c != doc.cause]
    if others:
        say(console, f"[dim]other causes: {', '.join(others)}[/]", "  ")
    for gap in doc.unjudged:
        say(console, f"[cyan]not judged[/]: {_words(gap.what)} ({', '.join(gap.rules)})", "  ")
    if doc.questions:
        console.print()
        say(console, "[bold]Ask for[/] (run where the error happened):")
        for q in doc.questions:
            console.print(f"    [bold]$[/] {_clean(q.command)}", soft_wrap=True)
            say(console, f"[dim]tells apart: {', '.join(q.separates)}[/]", "      ")


def render_markdown(doc: TriageDoc) -> str:
    """A comment ready to post on the report."""
    lines = [f"**tfdoctor {__version__} triage**", ""]
    top = next((f for f in doc.findings if f.code == doc.cause), None)
    if top is None:
        lines += ["No known cause matches what the report shows.", ""]
    else:
        lines += [f"**Likely cause:** {escape_inline(top.title)} ({code_span(top.code)})", ""]
        if top.remediation:
            lines += [f"**Fix:** {escape_inline(top.remediation.text)}", ""]
            if top.remediation.commands:
                lines += [*code_block(top.remediation.commands, "sh"), ""]
    if doc.questions:
        lines += ["**To decide, please run these where the error happened and paste the output:**", ""]
        for q in doc.questions:
            lines += [f"- tells apart {', '.join(code_span(s) for s in q.separates)}:", "",
                      *("  " + line for line in code_block([q.command], "sh")), ""]
    if doc.facts:
        lines += ["<details><summary>What tfdoctor read from the report</summary>", "",
                  "| fact | value | from |", "|---|---|---|"]
        lines += [f"| {escape_inline(f.name)} | {code_span(f.value)} | {escape_inline(f.source)}, line {f.line} |"
                  for f in doc.facts]
        lines += ["", "</details>", ""]
    lines.append("_Home directories, user and host names and credentials redacted._")
    return "\n".join(lines) + "\n"


def render_summary(lines: list[SummaryLine], console: Console) -> None:
    for line in lines:
        asked = f"  ask: {line.questions[0]}" if line.questions else ""
        say(console, f"{_clean(line.name)}  {line.cause}{_clean(asked)}")
    console.print()
    for cause, n in Counter(line.cause for line in lines).most_common():
        say(console, f"{n:5d}  {cause}")
