"""`tfdoctor triage`: a bug report in, as a person posted it; its facts, its cause and the
questions that would decide out. For maintainers and the support scripts that receive reports."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from tfdoctor.cli.app import FailOn, FailOnOpt, FormatOpt, JsonOpt, OutputFormat, app, out, usage_error
from tfdoctor.facts.typed import json_text, to_plain
from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import EXIT_OK, EXIT_PROBLEMS


@app.command()
def triage(
    source: Optional[str] = typer.Argument(
        "-", help="A report (a file, or - for standard input), a folder of reports, or a JSON Lines "
                  "file of many (the text under body, text or posted)."),
    json_output: JsonOpt = False,
    fmt: FormatOpt = OutputFormat.text,
    summary: bool = typer.Option(False, "--summary", help="One line per report and counts by cause."),
    fail_on: FailOnOpt = FailOn.error,
) -> None:
    """Read a bug report as posted: its facts, its diagnosis and what to ask the reporter."""
    from tfdoctor.render import triage as view
    from tfdoctor.sanitize.redact import Identity
    from tfdoctor.triage.document import (SCHEMA_VERSION, SummaryLine, TriageBatchDoc, TriageSummaryDoc,
                                          document)
    from tfdoctor.triage.inputs import InputError, reports
    from tfdoctor.triage.outcome import triage_text

    fmt = OutputFormat.json if json_output else fmt
    threshold = Severity(fail_on.value)
    who = Identity.current()
    docs, unread = [], []
    try:
        for raw in reports(source or "-"):
            if raw.problem:
                unread.append(f"{raw.name}: {raw.problem}")
                continue
            docs.append(document(triage_text(raw.name, raw.data, who), threshold, who))
    except InputError as exc:
        raise usage_error(str(exc))
    at_least = _at_least(threshold)
    problems = any(f.severity in at_least and f.code == d.cause for d in docs for f in d.findings)
    if summary:
        lines = [SummaryLine(d.name, d.cause, [q.command for q in d.questions]) for d in docs]
        if fmt is OutputFormat.json:
            counts: dict[str, int] = {}
            for line in lines:
                counts[line.cause] = counts.get(line.cause, 0) + 1
            doc = TriageSummaryDoc("tfdoctor-triage-summary", SCHEMA_VERSION, lines,
                                   dict(sorted(counts.items(), key=lambda kv: -kv[1])), unread)
            sys.stdout.write(json_text(to_plain(doc), indent=2) + "\n")
        else:
            view.render_summary(lines, out)
            _say_unread(unread)
    elif fmt is OutputFormat.json:
        one = docs[0] if len(docs) == 1 and not unread else None
        whole = one or TriageBatchDoc("tfdoctor-triage-batch", SCHEMA_VERSION, docs, unread)
        sys.stdout.write(json_text(to_plain(whole), indent=2) + "\n")
    else:
        for n, doc in enumerate(docs):
            if n:
                out.print()
            if fmt is OutputFormat.markdown:
                sys.stdout.write(view.render_markdown(doc))
            else:
                view.render_text(doc, out)
        _say_unread(unread)
    raise typer.Exit(EXIT_PROBLEMS if problems else EXIT_OK)


def _say_unread(unread: list[str]) -> None:
    for line in unread:
        out.print(f"not read: {line}", markup=False)


def _at_least(threshold: Severity) -> set[str]:
    return {s.value for s in Severity if s >= threshold}
