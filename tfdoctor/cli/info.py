"""The commands that describe tfdoctor's knowledge rather than an environment: `list-checks`,
`explain CODE` and the compatibility `matrix` (with the install recommended here)."""

from __future__ import annotations

import json
import platform
import sys
from typing import Optional

import typer

from tfdoctor.cli.app import (
    PythonOpt,
    app,
    could_not_answer,
    err,
    load_registry_or_exit,
    out,
    usage_error,
)
from tfdoctor.model import CodeDoc
from tfdoctor.sanitize.terminal import escape


@app.command("list-checks")
def list_checks(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the report areas and their rules (built-in and plugins), with each rule's code."""
    from tfdoctor.render.listing import render_listing

    render_listing(load_registry_or_exit(), json_output, out, err)


def all_codes() -> dict[str, CodeDoc]:
    """Every code a rule, a plugin check or the engine can report, with its documentation."""
    from tfdoctor.engine.run import ENGINE_CODES

    registry = load_registry_or_exit()
    codes = dict(ENGINE_CODES)
    codes.update({r.code: r.doc for r in registry.rules})
    for c in registry.checks:
        codes.update(c.codes)
    return codes


def complete_codes(incomplete: str) -> list[str]:
    """Shell completion for `explain`: every finding and lint code that starts so."""
    try:
        from tfdoctor.lint.rules import RULES

        known = set(all_codes()) | {r.code for r in RULES}
        return sorted(c for c in known if c.startswith(incomplete))
    except Exception:  # noqa: BLE001 - completion must never print a traceback into a shell
        return []


@app.command()
def explain(code: str = typer.Argument(..., help="A finding code, e.g. arch.rosetta",
                                       autocompletion=complete_codes),
            json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Explain what a finding code (or a `tfdoctor lint` code) means, why, and how to fix it."""
    from tfdoctor.lint.rules import RULES
    from tfdoctor.render.common import similar_codes, wrapped_prose
    from tfdoctor.render.documents import SCHEMA_VERSION, ExplainDoc

    found = next((r for r in RULES if r.code == code), None) if code.startswith("lint.") else None
    codes = all_codes()
    doc = codes.get(code)
    if found is None and doc is None:
        close = similar_codes(code, [*codes, *(r.code for r in RULES)])
        hint = f"; did you mean {', '.join(close)}?" if close else "; `tfdoctor list-checks` lists them"
        raise usage_error(f"unknown code {code!r}{hint}")
    if found is not None:  # a lint rule's documentation is its module's docstring, as in ruff
        about = ExplainDoc("tfdoctor-explain", SCHEMA_VERSION, code, "lint", found.severity,
                           found.title, found.doc.strip(), None, None, [])
    else:
        explained = next((r.explains for r in load_registry_or_exit().rules if r.code == code), ())
        about = ExplainDoc("tfdoctor-explain", SCHEMA_VERSION, code, "finding", doc.severity.value,
                           doc.title, doc.why, doc.fix, doc.link, list(explained), doc.fix_answer)
    if json_output:
        from tfdoctor.facts.typed import json_text, to_plain

        sys.stdout.write(json_text(to_plain(about), indent=2) + "\n")
        return
    with wrapped_prose(out):  # between words at the console's width (issue 21)
        out.print(f"[bold]{escape(code)}[/] ({about.severity}): {escape(about.title)}")
        out.print()
        out.print(escape(about.why))
        if about.fix is not None:
            out.print()
            out.print(f"[bold]Fix:[/] {escape(about.fix)}")
        if about.link:
            out.print(escape(about.link), soft_wrap=True)  # a link is never broken
        if about.cause_of:
            out.print()
            out.print("[bold]Cause of:[/] " + escape(", ".join(about.cause_of)) +
                      " (when present, they are listed under it and it leads the diagnosis)")
        if about.fix_answer is not None:
            out.print()
            verdict = "a step answers it" if about.fix_answer.answered else "no step answers it"
            out.print(f"[bold]tfdoctor fix:[/] {verdict}: {escape(about.fix_answer.how)}")


@app.command("matrix")
def matrix(
    python: PythonOpt = None,
    json_output: bool = typer.Option(False, "--json", help="Print the matrix document as JSON (plus for_this_machine when shown)."),
    for_this_machine: Optional[bool] = typer.Option(
        None, "--for-this-machine/--table-only",
        help="Show the recommended install for the diagnosed interpreter (default: on a Mac, or with --python)."),
    every_column: bool = typer.Option(
        False, "--wide", help="Every column (wheels, every plugin release, numpy and keras pins); "
        "the default is a compact view that fits 80 columns."),
) -> None:
    """Show the TensorFlow / tensorflow-metal / Python / macOS matrix and what to install here."""
    from tfdoctor.advice.installs import machine_recommendation
    from tfdoctor.gather.static import TargetNotFound, gather_static
    from tfdoctor.knowledge.matrix import default_path, load_matrix

    m = load_matrix()
    machine = None
    if for_this_machine is not False:
        try:
            snapshot = gather_static(python)
        except TargetNotFound as exc:
            raise usage_error(str(exc))
        wanted = for_this_machine or python is not None or (
            snapshot.host.system or platform.system()) == "Darwin"  # unknown when it cannot answer
        if wanted and not snapshot.target.ok:
            raise usage_error(could_not_answer(snapshot.target) + "; --table-only shows the matrix alone")
        if wanted:
            from tfdoctor.engine.vet import checked_commands

            machine = machine_recommendation(snapshot, m)
            if "error" not in machine:
                machine["commands"], verdict = checked_commands(snapshot, machine.get("commands", []), m)
                if verdict.wrong:
                    machine["notes"].append("tfdoctor withheld the install it would have printed: after "
                                            f"it, it would find {', '.join(verdict.new_problems)}")
    if json_output:
        from tfdoctor.render.documents import named

        document = json.loads(default_path().read_text(encoding="utf-8"))
        document = named("tfdoctor-matrix", document, document.get("schema_version", 1))
        if machine is not None:
            document["for_this_machine"] = machine
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return
    from tfdoctor.render.matrix import render_matrix

    render_matrix(m, machine, out, every_column=every_column)
