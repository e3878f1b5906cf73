"""The `tfdoctor` command line. Exit codes: 0 no problem at or above --fail-on, 1 problems found,
2 usage error, 3 tfdoctor itself failed."""

from __future__ import annotations

import difflib
import json
import os
import sys
import traceback
from enum import Enum
from typing import Annotated, List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from tfdoctor import __version__
from tfdoctor.model import CodeDoc, Severity
from tfdoctor.report import EXIT_INTERNAL, EXIT_USAGE, Report
from tfdoctor.typed import json_text

app = typer.Typer(
    help="Diagnose TensorFlow on Apple silicon: what is wrong, why, and the command that fixes it.",
    epilog="Exit codes: 0 no problem at or above --fail-on, 1 problems found, 2 usage error, "
    "3 tfdoctor itself failed.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
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
def _complete_rules(incomplete: str) -> list[str]:
    """Shell completion for --only/--skip: the areas and rule codes that start so."""
    try:
        from tfdoctor.engine import selectable
        from tfdoctor.registry import load_registry

        return sorted(n for n in selectable(load_registry()) if n.startswith(incomplete))
    except Exception:  # noqa: BLE001 - completion must never print a traceback into a shell
        return []


OnlyOpt = Annotated[List[str], typer.Option(
    "--only", autocompletion=_complete_rules,
    help="Run only this area (arch, compat...) or rule code (repeatable); see list-checks.")]
SkipOpt = Annotated[List[str], typer.Option(
    "--skip", autocompletion=_complete_rules, help="Do not run this area or rule code (repeatable).")]
FailOnOpt = Annotated[FailOn, typer.Option("--fail-on", help="Lowest severity that makes the exit code 1.")]
NoRuntimeOpt = Annotated[bool, typer.Option("--no-runtime", help="Skip importing TensorFlow in a child process.")]
NoProbesOpt = Annotated[bool, typer.Option("--no-probes", help="Skip the GPU speed probes.")]
MAX_TIMEOUT_S = 86400.0
"""--timeout's upper bound (a day): larger values (inf, 1e10) overflow the timers."""


def _finite_timeout(value: float) -> float:
    if value != value:  # NaN passes every range comparison
        raise typer.BadParameter(f"must be a number of seconds from 1 to {MAX_TIMEOUT_S:g}")
    return value


TimeoutOpt = Annotated[float, typer.Option(
    "--timeout", min=1.0, max=MAX_TIMEOUT_S, callback=_finite_timeout,
    help="Seconds the TensorFlow child may take to import and inspect, 1 to 86400 (the probes get their own allowance on top).")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks of tfdoctor's own failures.")]
LogOpt = Annotated[Optional[str], typer.Option(
    "--log", help="An error message, traceback, pip/conda output or training log to diagnose with "
    "the environment (a file, or - for standard input).")]


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
    log: LogOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Diagnose an interpreter's TensorFlow setup and print the fix (with --log: your error too)."""
    chosen = _select(only, skip)
    snapshot = _gather(python, no_runtime, no_probes, timeout)
    _attach_log(snapshot, log)
    report = diagnose_snapshot(snapshot, chosen, debug)
    threshold = Severity(fail_on.value)
    emit(report, OutputFormat.json if json_output else fmt, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


def _load_registry(sections=None):
    """Built-in rules and plugins; a broken installation of tfdoctor itself is exit 3."""
    from tfdoctor.registry import BuiltinsMissing, load_registry

    try:
        return load_registry(sections)
    except BuiltinsMissing as exc:
        err.print(f"tfdoctor is broken: {exc}", markup=False, style="red")
        err.print("reinstall it: python -m pip install --force-reinstall tfdoctor", markup=False)
        raise typer.Exit(EXIT_INTERNAL)


def _select(only, skip):
    """--only/--skip, checked before any work (a usage error, exit 2); the rules themselves are
    loaded once the snapshot says which sections it has."""
    from tfdoctor.engine import UnknownCheck, select

    try:
        select(_load_registry(sections=()), only, skip)
    except UnknownCheck as exc:
        raise usage_error(str(exc))
    return list(only), list(skip)


def _gather(python: Optional[str], no_runtime: bool, no_probes: bool, timeout: float,
            probes: Optional[dict] = None):
    """Static facts, then (unless switched off) runtime facts and the speed probes, both from
    one isolated TensorFlow child. `probes` is the probe configuration (default: the quick
    set `check` runs)."""
    from tfdoctor.gather import TargetNotFound, gather_static

    from tfdoctor.snapshot_io import mask_snapshot_secrets

    try:
        snapshot = gather_static(python, timeout=timeout)
    except TargetNotFound as exc:
        raise usage_error(str(exc))
    snapshot = mask_snapshot_secrets(snapshot)  # credentials never reach any output
    if not no_runtime and snapshot.target.ok:
        from tfdoctor.runtime import inspect

        config = None if no_probes else (probes or {"preset": "check"})
        found = inspect(snapshot.target.python, timeout, progress=err, probes=config)
        snapshot.runtime, snapshot.probes = found.runtime, found.probes
    return snapshot


def _attach_log(snapshot, path: Optional[str], redacted: bool = True) -> None:
    """Read --log (bounded; never raises) into the snapshot, redacted like every other fact."""
    if path is None:
        return
    from tfdoctor import log_facts

    snapshot.log = log_facts.read(path, redacted=redacted)


def diagnose_snapshot(snapshot, chosen, debug: bool) -> Report:
    from tfdoctor.engine import diagnose, sections_of

    only, skip = chosen
    return diagnose(snapshot, _load_registry(sections_of(snapshot)), debug, only, skip)


def emit(report: Report, fmt: OutputFormat, verbose: bool, threshold: Severity) -> None:
    from tfdoctor.render import render

    render(report, fmt.value, out, verbose=verbose, fail_on=threshold)


@app.command()
def collect(
    output: str = typer.Option(..., "-o", "--output", help="File to write; - for stdout."),
    python: PythonOpt = None,
    no_runtime: NoRuntimeOpt = False,
    no_probes: NoProbesOpt = False,
    timeout: TimeoutOpt = 60.0,
    log: LogOpt = None,
    no_redact: bool = typer.Option(False, "--no-redact", help="Keep home directory, user and host names."),
) -> None:
    """Write everything tfdoctor gathers as a snapshot file, to diagnose elsewhere."""
    from tfdoctor.snapshot_io import redact_snapshot, snapshot_json

    snapshot = _gather(python, no_runtime, no_probes, timeout)
    _attach_log(snapshot, log, redacted=not no_redact)
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
    log: LogOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Run the checks offline on snapshots, with the same output and exit codes as `check`."""
    from tfdoctor.snapshot import SnapshotError
    from tfdoctor.snapshot_io import read_snapshot

    chosen = _select(only, skip)
    threshold = Severity(fail_on.value)
    reports = []
    pasted = None
    for name in files:
        try:
            snapshot = read_snapshot(name)
        except SnapshotError as exc:
            raise usage_error(str(exc))
        if log is not None:  # read once (it may be standard input), the same for every snapshot
            if pasted is None:
                from tfdoctor import log_facts

                pasted = log_facts.read(log)
            snapshot.log = pasted
        reports.append((name, diagnose_snapshot(snapshot, chosen, debug)))
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


MICRO_WORKLOADS = ("matmul", "conv", "train", "all")
MODEL_WORKLOADS = ("mnist-dense", "cifar-cnn", "mobilenetv2", "lstm", "attention")
"""Presets of tfdoctor.model_probe (kept here so --help needs no import of it)."""


def _complete_workloads(incomplete: str) -> list[str]:
    return [w for w in MICRO_WORKLOADS + MODEL_WORKLOADS if w.startswith(incomplete)]


class ProbeDevice(str, Enum):
    cpu = "cpu"
    gpu = "gpu"
    all = "all"


@app.command()
def probe(
    workload: str = typer.Option(
        "all", "--workload", autocompletion=_complete_workloads,
        help=f"What to measure: {', '.join(MICRO_WORKLOADS)} (micro-probes), or a model preset: "
             f"{', '.join(MODEL_WORKLOADS)}."),
    model: Optional[str] = typer.Option(
        None, "--model", help="Your model: a .keras or .h5 file, a SavedModel folder, or module:function returning one."),
    batch: int = typer.Option(8, "--batch", min=1, max=4096, help="Batch size of the synthetic inputs for --model and presets."),
    plugin: Optional[str] = typer.Option(
        None, "--plugin", help="Predict the CPU fallback for this tensorflow-metal release (where no Metal GPU is present)."),
    device: ProbeDevice = typer.Option(ProbeDevice.all, "--device", help="Devices to measure on (the verdict needs both)."),
    size: Optional[int] = typer.Option(None, "--size", min=1, max=16384, help="matmul: n of n x n; conv and train: batch size."),
    repeats: Optional[int] = typer.Option(None, "--repeats", min=3, max=1000, help="Timed repeats per measurement (default 7)."),
    budget: Optional[float] = typer.Option(None, "--budget", min=1.0, max=3600.0, help="Seconds the probes may take in all (default 30, sweep 120, a model 60)."),
    sweep: bool = typer.Option(False, "--sweep", help="Measure a range of sizes (batch sizes for a model) and print the curve."),
    python: PythonOpt = None,
    json_output: JsonOpt = False,
    verbose: VerboseOpt = False,
    fail_on: FailOnOpt = FailOn.error,
    timeout: TimeoutOpt = 60.0,
    debug: DebugOpt = False,
) -> None:
    """Prove the GPU speeds TensorFlow up: micro-probes, a preset model, or your own model (--model)."""
    if model is not None or workload in MODEL_WORKLOADS:
        _probe_model(model, None if model is not None else workload, batch, plugin, budget, sweep,
                     python, json_output, verbose, fail_on, debug)
    if workload not in MICRO_WORKLOADS:
        raise usage_error(f"unknown workload {workload!r}; choose from {', '.join(MICRO_WORKLOADS + MODEL_WORKLOADS)}")
    config = {"preset": "sweep" if sweep else "probe", "workloads": workload,
              "devices": device.value, "size": size, "repeats": repeats, "budget_s": budget}
    config = {key: value for key, value in config.items() if value is not None}
    from tfdoctor.probe_runner import config_problem

    problem = config_problem(config)
    if problem:  # e.g. --size 20000: no budget holds it
        raise usage_error(problem)
    # The interpreter and the installation come first: a probe of nothing must not pass.
    chosen = _select(["target", "install", "runtime", "probe"], [])
    snapshot = _gather(python, False, False, timeout, probes=config)
    report = diagnose_snapshot(snapshot, chosen, debug)
    threshold = Severity(fail_on.value)
    if json_output:
        emit(report, OutputFormat.json, verbose, threshold)
    else:
        from tfdoctor.render.probes import render_probes

        render_probes(snapshot.probes, out, sweep)
        out.print()
        emit(report, OutputFormat.text, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


def _probe_model(model, preset, batch, plugin, budget, sweep, python, json_output, verbose,
                 fail_on, debug) -> None:
    """`probe --model` / a model preset: the model probe in the isolated TensorFlow child, its
    facts in the snapshot, the model rules (and the interpreter's) on them."""
    import os

    from tfdoctor import model_probe

    try:
        config = model_probe.child_config(
            model=model, workload=preset, batch=batch, budget_s=budget or 60.0,
            sweep=[2, 8, 32, 128] if sweep else None, sys_path=[os.getcwd()])
    except ValueError as exc:
        raise usage_error(str(exc))
    problem = model_probe.plugin_problem(plugin)
    if problem:
        raise usage_error(problem)
    chosen = _select(["target", "install", "model"], [])
    snapshot = _gather(python, True, True, 60.0)
    if snapshot.target.ok:
        if not json_output:
            err.print(f"[dim]probing {escape(model or preset)} in {escape(snapshot.target.python)} "
                      f"(budget {config['budget_s']:g} s)...[/]")
        snapshot.model = model_probe.probe_model(snapshot.target.python, config, plugin=plugin)
    report = diagnose_snapshot(snapshot, chosen, debug)
    threshold = Severity(fail_on.value)
    if not json_output and getattr(snapshot, "model", None) is not None:
        out.print(escape(model_probe.summarize(snapshot.model)), soft_wrap=True)
        out.print()
    emit(report, OutputFormat.json if json_output else OutputFormat.text, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


@app.command()
def lint(
    paths: List[str] = typer.Argument(..., help="Training scripts, notebooks or folders (.py, .ipynb)."),
    python: PythonOpt = None,
    tensorflow: Optional[str] = typer.Option(None, "--tensorflow", help="Lint for this TensorFlow version instead of the installed one."),
    keras: Optional[int] = typer.Option(None, "--keras", min=2, max=3, help="Lint for this Keras major (2 or 3)."),
    plugin: Optional[str] = typer.Option(None, "--plugin", help="Lint for this tensorflow-metal version (e.g. 1.2.0)."),
    json_output: JsonOpt = False,
) -> None:
    """Read training scripts and notebooks for what breaks or slows TensorFlow on Metal (never runs them)."""
    import os

    from tfdoctor.lint import lint_paths
    from tfdoctor.lint.model import LintEnv
    from tfdoctor.render.lint import render_lint

    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise usage_error(f"no such file or folder: {', '.join(missing)}")
    env = LintEnv()
    if not (tensorflow and keras and plugin):  # what the flags do not say comes from the interpreter
        from tfdoctor.gather import TargetNotFound, gather_static
        from tfdoctor.lint.environment import from_snapshot

        try:
            snapshot = gather_static(python)
        except TargetNotFound as exc:
            raise usage_error(str(exc))
        env = from_snapshot(snapshot) if snapshot.target.ok else env
    env = LintEnv(tensorflow or env.tensorflow, keras or env.keras_major, plugin or env.metal_plugin)
    result = lint_paths(paths, env)
    render_lint(result, env, json_output, out)
    raise typer.Exit(result.exit_code())


@app.command()
def ops(
    names: List[str] = typer.Argument(None, help="Op names to look up (e.g. Einsum MatMul); none: list every op."),
    plugin: Optional[str] = typer.Option(None, "--plugin", help="tensorflow-metal release (default: the installed one, else the newest known)."),
    python: PythonOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Which ops and dtypes have a Metal GPU kernel in a tensorflow-metal release (read from its binary)."""
    from tfdoctor.kernels import UnknownPluginRelease, kernel_table, releases
    from tfdoctor.render.ops import render_ops

    version, how = plugin, "--plugin"
    if version is None:
        from tfdoctor.gather import TargetNotFound, gather_static

        try:
            snapshot = gather_static(python)
        except TargetNotFound as exc:
            raise usage_error(str(exc))
        metal = snapshot.package("tensorflow-metal") if snapshot.target.ok else None
        version, how = (metal.version, "installed") if metal and metal.version else (None, "")
        if version is None:
            known = releases()
            if not known:
                raise usage_error("tfdoctor's kernel table is missing: reinstall tfdoctor")
            version, how = known[0], "newest known (tensorflow-metal is not installed here)"
    try:
        table = kernel_table(version)
    except UnknownPluginRelease as exc:
        raise usage_error(str(exc))
    missing = render_ops(table, list(names or []), how, json_output, out)
    raise typer.Exit(1 if missing else 0)


@app.command(name="run")
def run_command(
    command: List[str] = typer.Argument(..., help="The command to run, after --: tfdoctor run -- python train.py"),
    timeout: Optional[float] = typer.Option(
        None, "--timeout", min=1.0, max=7 * 86400.0,
        help="Stop the command after this many seconds (SIGTERM, then SIGKILL); default: no limit."),
    placement: bool = typer.Option(False, "--placement", help="Have TensorFlow log where each op runs, and report the ops that ran on the CPU."),
    python: PythonOpt = None,
    json_output: JsonOpt = False,
    fail_on: FailOnOpt = FailOn.error,
    debug: DebugOpt = False,
) -> None:
    """Run your own command under supervision, then diagnose its output with the environment.

    Exit status: 0 the command exited 0 and nothing at or above --fail-on was found; 1 the command
    failed (non-zero status, a signal, stopped at --timeout) or problems were found; 2 usage error,
    including a command that does not exist or cannot be executed; 3 tfdoctor itself failed."""
    from tfdoctor import log_facts, supervise

    target = python or _python_of(command)
    chosen = _select([], [])
    snapshot = _gather(target, True, True, 60.0)
    result = supervise.run(command, timeout=timeout, placement=placement,
                           stdout=sys.stderr.buffer if json_output else None)
    facts = result.facts
    if facts.outcome in ("not-found", "not-executable"):
        raise usage_error(f"cannot run {command[0]}: {facts.message or facts.outcome}")
    snapshot.run = facts
    snapshot.log = log_facts.from_bytes(result.recorded, "run: " + " ".join(facts.argv[:1]))
    report = diagnose_snapshot(snapshot, chosen, debug)
    lint_result, lint_env = _lint_scripts(snapshot, supervise.scripts_in(command))
    threshold = Severity(fail_on.value)
    code = max(report.exit_code(threshold), 0 if facts.ok else 1,
               1 if lint_result and any(f.severity == "error" for f in lint_result.findings) else 0)
    from tfdoctor.render.run import render_run

    render_run(facts, report, lint_result, lint_env, threshold, code, json_output, out)
    raise typer.Exit(code)


def _python_of(command: List[str]) -> Optional[str]:
    """The interpreter a command runs (`python train.py`, `/venv/bin/python3 -m x`), if it is one."""
    import os

    program = os.path.basename(command[0]) if command else ""
    return command[0] if program.startswith("python") else None


def _lint_scripts(snapshot, scripts: List[str]):
    if not scripts:
        return None, None
    from tfdoctor.lint import lint_paths
    from tfdoctor.lint.environment import from_snapshot

    env = from_snapshot(snapshot)
    return lint_paths(scripts, env), env


@app.command("list-checks")
def list_checks(json_output: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the report areas and their rules (built-in and plugins), with each rule's code."""
    from tfdoctor.render.listing import render_listing

    render_listing(_load_registry(), json_output, out, err)


def all_codes() -> dict[str, CodeDoc]:
    """Every code a rule, a plugin check or the engine can report, with its documentation."""
    from tfdoctor.engine import ENGINE_CODES

    registry = _load_registry()
    codes = dict(ENGINE_CODES)
    codes.update({r.code: r.doc for r in registry.rules})
    for c in registry.checks:
        codes.update(c.codes)
    return codes


@app.command()
def explain(code: str = typer.Argument(..., help="A finding code, e.g. arch.rosetta")) -> None:
    """Explain what a finding code (or a `tfdoctor lint` code) means, why, and how to fix it."""
    if code.startswith("lint."):
        from tfdoctor.lint.rules import RULES

        found = next((r for r in RULES if r.code == code), None)
        if found is not None:  # a lint rule's documentation is its module's docstring, as in ruff
            out.print(f"[bold]{escape(code)}[/] ({found.severity}): {escape(found.title)}")
            out.print()
            out.print(escape(found.doc.strip()))
            return
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
    from tfdoctor.gather import TargetNotFound, gather_static
    from tfdoctor.matrix import default_path, load_matrix
    from tfdoctor.recommend import machine_recommendation

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
    from tfdoctor.render.matrix import render_matrix

    render_matrix(m, machine, out)


class _GuardedStdout:
    """stdout for the whole run. A reader that went away (`tfdoctor check | head -1`) stops the
    output quietly; the exit code stays the report's own (0, 1 or 2), never 3 or a traceback."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._break()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._break()

    def _break(self) -> None:
        # Python flushes stdout again at exit: point the descriptor at /dev/null so that last
        # flush succeeds too (https://docs.python.org/3/library/signal.html#note-on-sigpipe).
        self.broken = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _guard_streams() -> None:
    """Standard descriptors that are closed (`tfdoctor check >&-`) become /dev/null (else the
    first file tfdoctor opens would take their number); text that cannot be encoded (lone
    surrogates from undecodable file names, a strict ASCII or UTF-8 stdout) is replaced, never
    fatal; a broken pipe is quiet (_GuardedStdout)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            devnull = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
    if sys.stdin is None:  # `diagnose -` then reads nothing, and says so
        sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None:  # Python started with the descriptor closed
            setattr(sys, name, open(fd, "w", encoding="utf-8", errors="replace", closefd=False))
        elif hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    if not isinstance(sys.stdout, _GuardedStdout):
        sys.stdout = _GuardedStdout(sys.stdout)


def main() -> None:
    """Entry point: turns any failure of tfdoctor itself into exit code 3 and one clear line."""
    from tfdoctor.childproc import Terminated, die_of

    try:
        _guard_streams()
        app()
    except Terminated as stop:  # SIGTERM/SIGHUP: the children are gone, every with-block ran
        die_of(stop)
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
