"""One line per snapshot and the finding counts by code across them: a lab or a CI fleet."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from rich.console import Console

from tfdoctor.facts.typed import json_text
from tfdoctor.model import Severity
from tfdoctor.render.common import MARKS
from tfdoctor.render.documents import named
from tfdoctor.sanitize.terminal import escape, json_safe


def render_summary(reports: Sequence[tuple], fmt, threshold: Severity, console: Console) -> None:
    counts: Counter[str] = Counter()
    rows = []
    for name, report in reports:
        problems = report.problems()
        counts.update(f.code for f in problems)
        diagnosis = report.diagnosis()
        worst = max((f.severity for f in report.findings), default=Severity.OK)
        rows.append({"file": name, "exit_code": report.exit_code(threshold), "severity": worst.value,
                     "diagnosis": diagnosis.code if diagnosis else None,
                     "problems": sorted({f.code for f in problems})})
    if fmt.value == "json":
        doc = named("tfdoctor-summary",
                    {"snapshots": rows, "finding_counts": dict(counts.most_common())})
        console.file.write(json_safe(json_text(doc, indent=2)) + "\n")
        return
    if fmt.value == "markdown":
        console.file.write(json_safe(_markdown(rows, counts)))
        return
    for row in rows:
        mark = MARKS[Severity(row["severity"])]
        console.print(f"[{mark}] {escape(row['file'])}: {row['diagnosis'] or 'no problems'}"
                      + (f" (+{len(row['problems']) - 1} more)" if len(row["problems"]) > 1 else ""))
    console.print()
    console.print(f"{len(rows)} snapshot{'s' if len(rows) != 1 else ''}; findings by code:")
    for code, n in counts.most_common():
        console.print(f"  {n:>4}  {code}")


def _cell(text: str) -> str:
    """Text as inline code in a markdown table cell: one line, no pipe or backtick to break it."""
    return "`" + " ".join(str(text).split()).replace("|", "\\|").replace("`", "'") + "`"


def _markdown(rows: list[dict], counts: Counter) -> str:
    """`diagnose --summary --format markdown`: the same two tables, to paste into an issue."""
    lines = [f"## tfdoctor summary of {len(rows)} snapshot{'s' if len(rows) != 1 else ''}", "",
             "| | snapshot | diagnosis | problems | exit |", "|---|---|---|---|---:|"]
    for row in rows:
        problems = ", ".join(_cell(c) for c in row["problems"]) or "none"
        diagnosis = _cell(row["diagnosis"]) if row["diagnosis"] else "no problems"
        lines.append(f"| {MARKS[Severity(row['severity'])]} | {_cell(row['file'])} | {diagnosis} "
                     f"| {problems} | {row['exit_code']} |")
    if counts:
        lines += ["", "| findings | code |", "|---:|---|"]
        lines += [f"| {n} | {_cell(code)} |" for code, n in counts.most_common()]
    return "\n".join(lines) + "\n"
