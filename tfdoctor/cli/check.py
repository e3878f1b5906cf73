"""The commands around one snapshot: `check` gathers and diagnoses, `collect` writes the facts
to a file, `diagnose` runs the rules offline on such files, `schema` prints their JSON Schemas."""

from __future__ import annotations

import json
import sys
from typing import Annotated, List, Optional

import typer

from tfdoctor.cli.app import (
    CollectFormat,
    DebugOpt,
    FailOn,
    FailOnOpt,
    FormatOpt,
    JsonOpt,
    KeepLogOpt,
    LogOpt,
    NoProbesOpt,
    NoRuntimeOpt,
    OnlyOpt,
    OutputFormat,
    PythonOpt,
    QuietOpt,
    SkipOpt,
    TimeoutOpt,
    VerboseOpt,
    app,
    attach_log,
    check_log_path,
    could_not_answer,
    diagnose_snapshot,
    emit,
    err,
    gather_facts,
    out,
    select_rules,
    usage_error,
)
from tfdoctor.facts.typed import json_text
from tfdoctor.model import Severity
from tfdoctor.sanitize.terminal import escape


KernelOpt = Annotated[Optional[str], typer.Option(
    "--kernel", help="Diagnose the interpreter a Jupyter kernel starts (a name `jupyter kernelspec "
    "list` shows; check lists the kernels it finds).")]


def interpreter_for(python: Optional[str], kernel: Optional[str]):
    """--python, or the Target of --kernel NAME; a kernel that cannot be found or started, or
    both options at once, is a usage error."""
    if kernel is None:
        return python
    if python is not None:
        raise usage_error("--kernel and --python both choose the interpreter: give one of them")
    from tfdoctor.gather.interpreter import TargetNotFound
    from tfdoctor.gather.kernels import kernel_target

    try:
        return kernel_target(kernel)
    except TargetNotFound as exc:
        raise usage_error(str(exc))


@app.command()
def check(
    python: PythonOpt = None,
    kernel: KernelOpt = None,
    json_output: JsonOpt = False,
    fmt: FormatOpt = OutputFormat.text,
    verbose: VerboseOpt = False,
    only: OnlyOpt = [],
    skip: SkipOpt = [],
    fail_on: FailOnOpt = FailOn.error,
    no_runtime: NoRuntimeOpt = False,
    no_probes: NoProbesOpt = False,
    timeout: TimeoutOpt = 60.0,
    log: LogOpt = None,
    keep_log: KeepLogOpt = False,
    debug: DebugOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Diagnose an interpreter's TensorFlow setup and print the fix (with --log: your error too)."""
    chosen = select_rules(only, skip)
    check_log_path(log)
    snapshot = gather_facts(interpreter_for(python, kernel), no_runtime, no_probes, timeout, quiet=quiet)
    attach_log(snapshot, log, keep_log=keep_log)
    report = diagnose_snapshot(snapshot, chosen, debug)
    threshold = Severity(fail_on.value)
    emit(report, OutputFormat.json if json_output else fmt, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


@app.command()
def collect(
    output: str = typer.Option("-", "-o", "--output", help="File to write; - for stdout (the default)."),
    fmt: CollectFormat = typer.Option(CollectFormat.json, "--format",
                                      help="json (a snapshot file), or markdown to paste into a bug report "
                                           "(the same snapshot inside, which `tfdoctor triage` reads back)."),
    python: PythonOpt = None,
    no_runtime: NoRuntimeOpt = False,
    no_probes: NoProbesOpt = False,
    timeout: TimeoutOpt = 60.0,
    log: LogOpt = None,
    keep_log: KeepLogOpt = False,
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep home directory, user and host names."),
    quiet: QuietOpt = False,
) -> None:
    """Write everything tfdoctor gathers as a snapshot file, to diagnose elsewhere."""
    from tfdoctor.gather.snapshot_files import redact_snapshot, snapshot_json

    check_log_path(log)
    snapshot = gather_facts(python, no_runtime, no_probes, timeout, quiet=quiet)
    attach_log(snapshot, log, redacted=not no_redact, keep_log=keep_log)
    if not no_redact:
        snapshot = redact_snapshot(snapshot)
    text = snapshot_json(snapshot)
    if fmt is CollectFormat.markdown:
        from tfdoctor.render.markdown import collect_markdown

        text = collect_markdown(snapshot, text)
    if output == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte, which no path has
            raise usage_error(f"cannot write {output}: {getattr(exc, 'strerror', None) or exc}")
        err.print(f"wrote {output} ({len(text)} bytes{', redacted' if not no_redact else ''})", markup=False)
    if not snapshot.target.ok:  # written all the same: what failed is worth a bug report
        raise usage_error(could_not_answer(snapshot.target))


@app.command()
def diagnose(
    files: List[str] = typer.Argument(..., help="Snapshot files written by `tfdoctor collect` (- for stdin)."),
    json_output: JsonOpt = False,
    fmt: FormatOpt = OutputFormat.text,
    verbose: VerboseOpt = False,
    only: OnlyOpt = [],
    skip: SkipOpt = [],
    fail_on: FailOnOpt = FailOn.error,
    summary: bool = typer.Option(False, "--summary", help="One line per snapshot and finding counts by code."),
    log: LogOpt = None,
    keep_log: KeepLogOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Run the checks offline on snapshots, with the same output and exit codes as `check`. A
    snapshot that lists unknown facts (one built from a report) takes what a --log file settles
    of them."""
    from tfdoctor.facts.snapshot import SnapshotError
    from tfdoctor.gather.snapshot_files import read_snapshot

    chosen = select_rules(only, skip)
    check_log_path(log)
    threshold = Severity(fail_on.value)
    reports = []
    pasted = told = None
    for name in files:
        try:
            snapshot = read_snapshot(name)
        except SnapshotError as exc:
            raise usage_error(str(exc))
        if log is not None:  # read once (it may be standard input), the same for every snapshot
            if pasted is None:
                pasted, head = _read_log(log, keep_log)
            snapshot.log = pasted
            if snapshot.unknown:  # a report's snapshot: its text may settle what it does not know
                from tfdoctor.triage.facts import read_report
                from tfdoctor.triage.snapshot import complete

                told = read_report("".join(head)) if told is None else told
                complete(snapshot, told)
        reports.append((name, diagnose_snapshot(snapshot, chosen, debug)))
    fmt = OutputFormat.json if json_output else fmt
    if summary:
        from tfdoctor.render.summary import render_summary

        render_summary(reports, fmt, threshold, out)
    elif len(reports) == 1:
        emit(reports[0][1], fmt, verbose, threshold)
    elif fmt is OutputFormat.json:
        from tfdoctor.render.documents import named

        docs = [{"file": name, **report.to_dict(threshold)} for name, report in reports]
        batch = named("tfdoctor-report-batch", {"exit_code": max(d["exit_code"] for d in docs),
                                                "reports": docs})
        sys.stdout.write(json_text(batch, indent=2) + "\n")
    else:
        for name, report in reports:
            if fmt is OutputFormat.text:
                out.rule(escape(name))
            else:
                sys.stdout.write(f"\n# {name}\n\n")
            emit(report, fmt, verbose, threshold)
    raise typer.Exit(max(report.exit_code(threshold) for _, report in reports))


def _read_log(path: str, keep_log: bool):
    """The --log text as a fact, and its first MAX_REPORT_BYTES characters as read: a report's
    snapshot takes from them what it does not know (the text read once, as standard input must be)."""
    from tfdoctor.logtext import keep
    from tfdoctor.logtext.reader import keeping_head, read_log
    from tfdoctor.triage.outcome import MAX_REPORT_BYTES

    reading, head = keeping_head(read_log(path), MAX_REPORT_BYTES)
    return keep.from_reading(reading, keep_log=keep_log), head


@app.command()
def schema(which: str = typer.Argument(
        "report", help="report (check, probe and diagnose --json), snapshot (collect), report-batch "
        "(diagnose --json of several), summary (diagnose --summary --json), fix-plan, run, lint, ops, "
        "triage, triage-batch, triage-summary, list-checks, explain, matrix; probe is report")) -> None:
    """Print the JSON Schema of a command's `--json` output or of snapshot files."""
    from tfdoctor.render.schemas import SCHEMAS

    if which not in SCHEMAS:
        raise usage_error(f"unknown schema {which!r}; choose from {', '.join(SCHEMAS)}")
    sys.stdout.write(json.dumps(SCHEMAS[which](), indent=2) + "\n")


