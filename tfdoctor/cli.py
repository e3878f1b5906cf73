"""The `tfdoctor` command line. Exit codes: 0 no problem at or above --fail-on, 1 problems found,
2 usage error, 3 tfdoctor itself failed."""

from __future__ import annotations

import difflib
import json
import sys
import traceback
from enum import Enum
from typing import Annotated, List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from tfdoctor import __version__
from tfdoctor.engine import ENGINE_CODES, UnknownCheck, applicable, run_checks, select
from tfdoctor.model import CodeDoc, Severity
from tfdoctor.registry import load_checks
from tfdoctor.report import EXIT_INTERNAL, EXIT_USAGE, Report
from tfdoctor.typed import json_text

app = typer.Typer(
    help="Diagnose TensorFlow on Apple silicon: what is wrong, why, and the command that fixes it.",
    epilog="Exit codes: 0 no problem at or above --fail-on, 1 problems found, 2 usage error, "
    "3 tfdoctor itself failed.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    warning = "warning"
    error = "error"


# Options several commands share, declared once.
PythonOpt = Annotated[Optional[str], typer.Option(
    "--python", help="Interpreter to diagnose (path, venv or conda env dir, or command); default: this one.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print only JSON on stdout (progress goes to stderr).")]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="text, json, or markdown for a bug report.")]
VerboseOpt = Annotated[bool, typer.Option("-v", "--verbose", help="Show every finding with its evidence.")]
OnlyOpt = Annotated[List[str], typer.Option("--only", help="Run only this check (repeatable); see list-checks.")]
SkipOpt = Annotated[List[str], typer.Option("--skip", help="Do not run this check (repeatable).")]
FailOnOpt = Annotated[FailOn, typer.Option("--fail-on", help="Lowest severity that makes the exit code 1.")]
NoRuntimeOpt = Annotated[bool, typer.Option("--no-runtime", help="Skip importing TensorFlow in a child process.")]
NoProbesOpt = Annotated[bool, typer.Option("--no-probes", help="Skip the GPU speed probes.")]
TimeoutOpt = Annotated[float, typer.Option(
    "--timeout", min=1.0, help="Seconds the TensorFlow child may take to import and inspect (the probes get their own allowance on top).")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks of tfdoctor's own failures.")]


def usage_error(message: str) -> typer.Exit:
    err.print(f"[red]error:[/] {escape(message)}")
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
    python: PythonOpt = None,
    json_output: JsonOpt = False,
    fmt: FormatOpt = OutputFormat.text,
    verbose: VerboseOpt = False,
    only: OnlyOpt = [],
    skip: SkipOpt = [],
    fail_on: FailOnOpt = FailOn.error,
    no_runtime: NoRuntimeOpt = False,
    no_probes: NoProbesOpt = False,
    timeout: TimeoutOpt = 60.0,
    debug: DebugOpt = False,
) -> None:
    """Diagnose an interpreter's TensorFlow setup and print the fix."""
    checks, failures = load_checks()
    chosen = _select(checks, only, skip)
    snapshot = _gather(python, no_runtime, no_probes, timeout)
    report = diagnose_snapshot(snapshot, chosen, failures, debug)
    threshold = Severity(fail_on.value)
    emit(report, OutputFormat.json if json_output else fmt, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


def _select(checks, only, skip):
    try:
        return select(checks, only, skip)
    except UnknownCheck as exc:
        raise usage_error(str(exc))


def _gather(python: Optional[str], no_runtime: bool, no_probes: bool, timeout: float,
            probes: Optional[dict] = None):
    """Static facts, then (unless switched off) runtime facts and the speed probes, both from
    one isolated TensorFlow child. `probes` is the probe configuration (default: the quick
    set `check` runs)."""
    from tfdoctor.gather import TargetNotFound, gather_static

    try:
        snapshot = gather_static(python)
    except TargetNotFound as exc:
        raise usage_error(str(exc))
    if not no_runtime and snapshot.target.ok:
        from tfdoctor.runtime import inspect

        config = None if no_probes else (probes or {"preset": "check"})
        found = inspect(snapshot.target.python, timeout, progress=err, probes=config)
        snapshot.runtime, snapshot.probes = found.runtime, found.probes
    return snapshot


def diagnose_snapshot(snapshot, chosen, failures, debug: bool) -> Report:
    ran = applicable(snapshot, chosen)
    return Report(snapshot, run_checks(snapshot, ran, failures, debug=debug), ran)


def emit(report: Report, fmt: OutputFormat, verbose: bool, threshold: Severity) -> None:
    if fmt is OutputFormat.json:
        sys.stdout.write(json_text(report.to_dict(threshold), indent=2) + "\n")
    elif fmt is OutputFormat.markdown:
        from tfdoctor.render.markdown import render_markdown

        sys.stdout.write(render_markdown(report, threshold))
    else:
        from tfdoctor.render.text import render_text

        render_text(report, out, verbose, threshold)


@app.command()
def collect(
    output: str = typer.Option(..., "-o", "--output", help="File to write; - for stdout."),
    python: PythonOpt = None,
    no_runtime: NoRuntimeOpt = False,
    no_probes: NoProbesOpt = False,
    timeout: TimeoutOpt = 60.0,
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep home directory, user and host names."),
) -> None:
    """Write everything tfdoctor gathers as a snapshot file, to diagnose elsewhere."""
    from tfdoctor.snapshot_io import redact_snapshot, snapshot_json

    snapshot = _gather(python, no_runtime, no_probes, timeout)
    if not no_redact:
        snapshot = redact_snapshot(snapshot)
    text = snapshot_json(snapshot)
    if output == "-":
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise usage_error(f"cannot write {output}: {exc.strerror or exc}")
    err.print(escape(f"wrote {output} ({len(text)} bytes{', redacted' if not no_redact else ''})"))


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
    debug: DebugOpt = False,
) -> None:
    """Run the checks offline on snapshots, with the same output and exit codes as `check`."""
    from tfdoctor.snapshot import SnapshotError
    from tfdoctor.snapshot_io import read_snapshot

    checks, failures = load_checks()
    chosen = _select(checks, only, skip)
    threshold = Severity(fail_on.value)
    reports = []
    for name in files:
        try:
            snapshot = read_snapshot(name)
        except SnapshotError as exc:
            raise usage_error(str(exc))
        reports.append((name, diagnose_snapshot(snapshot, chosen, failures, debug)))
    fmt = OutputFormat.json if json_output else fmt
    if summary:
        from tfdoctor.render.summary import render_summary

        render_summary(reports, fmt, threshold, out)
    elif len(reports) == 1:
        emit(reports[0][1], fmt, verbose, threshold)
    elif fmt is OutputFormat.json:
        docs = [{"file": name, **report.to_dict(threshold)} for name, report in reports]
        sys.stdout.write(json_text(docs, indent=2) + "\n")
    else:
        for name, report in reports:
            if fmt is OutputFormat.text:
                out.rule(escape(name))
            else:
                sys.stdout.write(f"\n# {name}\n\n")
            emit(report, fmt, verbose, threshold)
    raise typer.Exit(max(report.exit_code(threshold) for _, report in reports))


@app.command()
def schema(which: str = typer.Argument("report", help="report (the --json output) or snapshot")) -> None:
    """Print the JSON Schema of `--json` output or of snapshot files."""
    from tfdoctor.schemas import SCHEMAS

    if which not in SCHEMAS:
        raise usage_error(f"unknown schema {which!r}; choose from {', '.join(SCHEMAS)}")
    sys.stdout.write(json.dumps(SCHEMAS[which](), indent=2) + "\n")


class Workload(str, Enum):
    matmul = "matmul"
    conv = "conv"
    train = "train"
    all = "all"


class ProbeDevice(str, Enum):
    cpu = "cpu"
    gpu = "gpu"
    all = "all"


@app.command()
def probe(
    workload: Workload = typer.Option(Workload.all, "--workload", help="What to measure."),
    device: ProbeDevice = typer.Option(ProbeDevice.all, "--device", help="Devices to measure on (the verdict needs both)."),
    size: Optional[int] = typer.Option(None, "--size", min=1, help="matmul: n of n x n; conv and train: batch size."),
    repeats: Optional[int] = typer.Option(None, "--repeats", min=3, help="Timed repeats per measurement (default 7)."),
    budget: Optional[float] = typer.Option(None, "--budget", min=1.0, help="Seconds the probes may take in all (default 30, sweep 120)."),
    sweep: bool = typer.Option(False, "--sweep", help="Measure a range of sizes and print the curve."),
    python: PythonOpt = None,
    json_output: JsonOpt = False,
    verbose: VerboseOpt = False,
    fail_on: FailOnOpt = FailOn.error,
    timeout: TimeoutOpt = 60.0,
    debug: DebugOpt = False,
) -> None:
    """Prove the GPU speeds TensorFlow up: time matmul, conv and a training step on CPU and GPU."""
    config = {"preset": "sweep" if sweep else "probe", "workloads": workload.value,
              "devices": device.value, "size": size, "repeats": repeats, "budget_s": budget}
    config = {key: value for key, value in config.items() if value is not None}
    checks, failures = load_checks()
    # The interpreter and the installation come first: a probe of nothing must not pass.
    chosen = _select(checks, ["target", "installation", "runtime", "probes"], [])
    snapshot = _gather(python, False, False, timeout, probes=config)
    report = diagnose_snapshot(snapshot, chosen, failures, debug)
    threshold = Severity(fail_on.value)
    if json_output:
        emit(report, OutputFormat.json, verbose, threshold)
    else:
        from tfdoctor.render.probes import render_probes

        render_probes(snapshot.probes, out, sweep)
        out.print()
        emit(report, OutputFormat.text, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


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
        out.print(f"[bold]{escape(c.name)}[/]  {escape(c.area)}: {escape(c.summary)}")
        out.print(f"  [dim]{escape(', '.join(sorted(c.codes)))}[/]")
    for f in failures:
        err.print(f"[yellow]could not load[/] {escape(f.entry_point)}: {escape(f.error)}")


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
    out.print(f"[bold]{escape(code)}[/] ({doc.severity.value}): {escape(doc.title)}")
    out.print()
    out.print(escape(doc.why))
    out.print()
    out.print(f"[bold]Fix:[/] {escape(doc.fix)}")
    if doc.link:
        out.print(escape(doc.link))


@app.command("matrix")
def matrix(
    python: Optional[str] = typer.Option(
        None, "--python", help="Interpreter to recommend for (path, venv dir, or command); default: this one."),
    json_output: bool = typer.Option(False, "--json", help="Print the matrix document as JSON (plus for_this_machine when shown)."),
    for_this_machine: Optional[bool] = typer.Option(
        None, "--for-this-machine/--table-only",
        help="Show the recommended install for the diagnosed interpreter (default: on a Mac, or with --python)."),
) -> None:
    """Show the TensorFlow / tensorflow-metal / Python / macOS matrix and what to install here."""
    from rich.table import Table

    from tfdoctor.checks.compat import machine_recommendation, matrix_rows, short_source
    from tfdoctor.gather import TargetNotFound, gather_static
    from tfdoctor.matrix import default_path, load_matrix

    m = load_matrix()
    machine = None
    if for_this_machine is not False:
        try:
            snapshot = gather_static(python)
        except TargetNotFound as exc:
            raise usage_error(str(exc))
        if for_this_machine or python is not None or snapshot.host.system == "Darwin":
            machine = machine_recommendation(snapshot, m)
    if json_output:
        document = json.loads(default_path().read_text(encoding="utf-8"))
        if machine is not None:
            document["for_this_machine"] = machine
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return


    def span(values: list) -> str:
        return "-" if not values else values[0] if len(values) == 1 else f"{values[0]}-{values[-1]}"

    words = {"known-working": "works", "known-broken": "broken", "documented": "documented",
             "undocumented": "undocumented"}
    from rich import box

    table = Table(title=f"TensorFlow on macOS arm64 (wheel facts read {m.facts_read})",
                  box=box.SIMPLE_HEAD, title_justify="left")
    for column, wrap in (("TF", False), ("arm64 wheel", True), ("Python", False),
                         ("tensorflow-metal", True), ("macOS", False), ("numpy", True), ("keras", True)):
        table.add_column(column, no_wrap=not wrap, overflow="fold")
    notes = []
    for row in matrix_rows(m):
        code = ", ".join(row["code"]) or "none"
        metals = "; ".join(
            f"{x['tensorflow_metal']} " + ", ".join(
                " ".join(words.get(w, w) if i == 0 else w for i, w in enumerate(part.split(" ", 1)))
                for part in x["status"].split(", "))
            for x in row["tensorflow_metal"]) or "-"
        macos = row["min_macos"] or "-"
        if row["metal_min_macos"] and row["metal_min_macos"] != row["min_macos"]:
            macos += f"/{row['metal_min_macos']}"
        table.add_row(escape(row["tensorflow"]), escape(code), span(row["python"]), escape(metals),
                      macos, escape(row["numpy"] or "-"), escape(row["keras"] or "-"))
        for version, kind in row["tensorflow_macos_shims"].items():
            notes.append(f"tensorflow-macos {version} is " + (
                "a self-shim: it depends only on itself and installs no TensorFlow"
                if kind == "self-shim" else f"a {kind} shim onto tensorflow"))
    from tfdoctor.render.common import wide

    wide(out).print(table)
    out.print("[dim]tensorflow-metal: works / broken from runtime reports (they win), documented from "
              "Apple's table. macOS: wheel tag / the plugin's floor with Apple's table.[/]")
    for note in notes:
        out.print(f"[dim]{escape(note)}[/]")
    out.print("[dim]--json prints every fact with its source.[/]")
    if machine is None:
        return
    out.print()
    if "error" in machine:
        out.print(f"[bold]For this machine:[/] could not gather facts from {escape(str(machine['python']))}: "
                  f"{escape(str(machine['error']))}")
        return
    where = f"{machine['system']}" + (f" {machine['macos']}" if machine.get("macos") else "")
    out.print(f"[bold]For this machine:[/] {escape(machine['python'])}: Python "
              f"{escape(machine['python_version'])}, {escape(machine['arch'] or '')}, {escape(where)}")
    if machine["requirements"]:
        sources = ", ".join(short_source(x) for x in machine["sources"])
        out.print("  Recommended: " + escape(" + ".join(machine["requirements"])
                                            + (f" ({machine['status']}; {sources})" if machine["status"] else "")))
    if not machine["requirements"] or not machine["metal"]:
        out.print(f"  {escape(machine['reason'])}")
    for note in machine["notes"]:
        out.print(f"  [dim]{escape(note)}[/]")
    for command in machine["commands"]:
        out.print(f"  [bold cyan]$ {escape(command)}[/]")


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
        # markup=False: this handler must not fail on whatever text the exception carries
        err.print(f"tfdoctor failed: {type(exc).__name__}: {exc}", markup=False, style="red")
        if "--debug" in sys.argv:
            err.print(traceback.format_exc(), markup=False)
        else:
            err.print("[dim]run again with --debug for the traceback[/]")
        sys.exit(EXIT_INTERNAL)
