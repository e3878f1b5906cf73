"""`tfdoctor run`: how the command ended (status, wall time, peak memory, ops on the CPU), the lint
of its scripts, then the diagnosis of its output with the environment's facts."""

from __future__ import annotations

import shlex

from rich.console import Console

from tfdoctor.facts.run import RunFacts
from tfdoctor.model import Severity
from tfdoctor.report.diagnosis import Report
from tfdoctor.sanitize.terminal import escape


def render_run(facts: RunFacts, report: Report, lint, lint_env, fail_on: Severity, code: int,
               as_json: bool, out: Console) -> None:
    if as_json:
        from tfdoctor.facts import typed
        from tfdoctor.render.documents import named
        from tfdoctor.sanitize.terminal import json_safe

        doc = named("tfdoctor-run", {"exit_code": code, "run": typed.to_plain(facts),
                                     "lint": lint.to_dict() if lint else None,
                                     "report": report.to_dict(fail_on)})
        out.file.write(json_safe(typed.json_text(doc, indent=2)) + "\n")
        return
    out.print()
    memory = f", peak memory {facts.peak_rss_bytes / 2**20:,.0f} MiB" if facts.peak_rss_bytes else ""
    style = "green" if facts.ok else "red"
    out.print(f"[bold]tfdoctor run[/] [dim]{escape(shlex.join(facts.argv))}[/]", soft_wrap=True)  # as typed
    out.print(f"  [{style}]{escape(facts.ended())}[/] after {facts.wall_s:.1f} s{memory}")
    if facts.forwarded:
        out.print(f"  forwarded to the command: {', '.join(facts.forwarded)}")
    if facts.placement:
        if facts.cpu_ops:
            ops = ", ".join(f"{o.op} ({o.count})" for o in facts.cpu_ops[:12])
            out.print(f"  ops that ran on the CPU: {escape(ops)}")
        else:
            out.print("  no op was logged on the CPU" + ("" if facts.gpu_ops else " (none was logged at all)"))
    if lint and (lint.findings or lint.problems):
        from tfdoctor.render.lint import render_lint

        out.print()
        render_lint(lint, lint_env, False, out)
    out.print()
    from tfdoctor.render.text import render_text

    render_text(report, out, False, fail_on)
