"""`tfdoctor lint` output: one block per finding (location, code, severity, message, fix), the
files that could not be linted, and the rules the environment did not allow to run.

A block's first line, `path:line:col code severity`, is never broken however long the path:
editors and grep read it as a compiler's location; the prose under it wraps at 80 columns."""

from __future__ import annotations

import json

from rich.console import Console

from tfdoctor.lint.environment import include_hints
from tfdoctor.lint.results import LintEnv, LintResult
from tfdoctor.render.common import prose, say, wrapped_prose
from tfdoctor.render.documents import named
from tfdoctor.sanitize.terminal import escape, json_safe

_STYLES = {"error": "red", "warning": "yellow", "info": "blue"}


def render_lint(result: LintResult, env: LintEnv, as_json: bool, out: Console) -> None:
    if not as_json:
        with wrapped_prose(out):  # between words at the console's width (issue 21)
            _render_text(result, env, out)
        return
    doc = named("tfdoctor-lint", {
        "environment": {"tensorflow": env.tensorflow, "keras_major": env.keras_major,
                        "metal_plugin": env.metal_plugin},
        "exit_code": result.exit_code(), **result.to_dict()})
    out.file.write(json_safe(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")


def _render_text(result: LintResult, env: LintEnv, out: Console) -> None:
    for f in result.findings:
        style = _STYLES.get(f.severity, "")
        out.print(f"[bold]{escape(f.location())}[/] {escape(f.code)} [{style}]{f.severity}[/]:",
                  soft_wrap=True)
        say(out, prose(f.message), "  ", hang=0)
        say(out, f"[dim]fix:[/] {prose(f.fix)}", "  ")
    for p in result.problems:
        where = f"{p.path}:{p.line}" if p.line else p.path
        out.print(f"[bold]{escape(where)}[/] [red]not linted[/] ({escape(p.kind)}):", soft_wrap=True)
        say(out, prose(p.message), "  ", hang=0)
    for code, why in sorted(result.skipped_rules.items()):
        out.print(f"[dim]{escape(code)} not run: {escape(why)}[/]")
    for hint in include_hints(result.skipped_rules):
        out.print(f"[dim]{escape(hint)}[/]")
    known = (f"TensorFlow {env.tensorflow or 'unknown'}, Keras {env.keras_major or 'unknown'}, "
             f"tensorflow-metal {env.metal_plugin or 'none'}")
    n = len(result.findings)
    say(out, f"{result.files} file{'s' if result.files != 1 else ''} linted for {escape(known)}: "
             f"{n} finding{'s' if n != 1 else ''}, {len(result.problems)} not linted", hang=0)
