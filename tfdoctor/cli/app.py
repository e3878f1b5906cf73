"""What every command of the `tfdoctor` command line shares: the typer app, the two consoles,
the options declared once, and the steps from facts to a printed report (select the rules,
gather the facts, diagnose, emit). The commands live beside this module, one per group (check.py,
probe.py, tools.py, info.py, fix.py, triage.py); tfdoctor.cli.main is the entry point."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, List, Optional

import typer
from rich.console import Console
from typer.core import TyperGroup

from tfdoctor import __version__
from tfdoctor.model import Severity
from tfdoctor.render.common import safe_console
from tfdoctor.report.diagnosis import EXIT_INTERNAL, EXIT_USAGE, Report

try:  # typer 0.2x runs a vendored click, whose exceptions are not click's own
    from typer.core import _click as click
except ImportError:  # pragma: no cover - typer on click
    import click


COMMAND_HABITS = {"list": "list-checks"}
"""Command names other tools taught users to type, and tfdoctor's own for them (difflib's
nearest spelling of `list` is `lint`)."""
OPTION_HABITS = {"--fix": "`tfdoctor fix` plans the fix and applies it"}
"""Options other doctors taught users (conda's `doctor --fix`), and the command that does it."""


class _OneErrorStyle(TyperGroup):
    """Every usage error of every command, typer's own (an unknown option, a bad value) and
    tfdoctor's (usage_error), in one style: one line `tfdoctor: error: ...`, exit 2 (issue 21)."""

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.UsageError as exc:
            if args and args[0] in COMMAND_HABITS:
                exc.message = f"No such command {args[0]!r}. Did you mean {COMMAND_HABITS[args[0]]!r}?"
            raise

    def get_command(self, ctx, cmd_name):
        """A command whose help is prose: typer keeps the source's line breaks inside a
        docstring paragraph, which then break the help mid-sentence (issue 29)."""
        command = super().get_command(ctx, cmd_name)
        if command is not None and command.help:
            command.help = as_prose(command.help)
        return command

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except getattr(click.exceptions, "NoArgsIsHelpError", ()) as exc:
            exc.show()  # `tfdoctor` alone: the help, as before
            sys.exit(exc.exit_code)
        except click.exceptions.ClickException as exc:
            where = exc.ctx.command_path if getattr(exc, "ctx", None) else "tfdoctor"
            habit = OPTION_HABITS.get(getattr(exc, "option_name", ""))
            if isinstance(exc, click.exceptions.NoSuchOption) and habit:
                say_error(f"{exc.ctx.info_name if exc.ctx else 'tfdoctor'} has no {exc.option_name}: {habit}")
                sys.exit(exc.exit_code)
            hint = f" (see '{where} -h')" if isinstance(exc, click.exceptions.UsageError) else ""
            message = exc.format_message().rstrip(".")
            if message[:2].istitle():  # "No such option" -> "no such option", as ours read
                message = message[0].lower() + message[1:]
            say_error(message + hint)
            sys.exit(exc.exit_code)
        except typer.Abort:
            err.print("aborted", markup=False)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=_OneErrorStyle,
    help="Diagnose TensorFlow on Apple silicon: what is wrong, why, and the command that fixes it.",
    epilog="Exit codes: 0 no problem at or above --fail-on, 1 problems found, 2 usage error, "
    "3 tfdoctor itself failed.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = safe_console(Console(highlight=False, soft_wrap=True, emoji=False))
err = safe_console(Console(stderr=True, highlight=False, soft_wrap=True, emoji=False))
"""Both neutralise every terminal control sequence in what they print (issue 22): the text may
come from a snapshot, a pasted log, an exception or a file name. Neither turns `:name:` into an
emoji (a path with `:fire:` in it prints as it is, issue 28); markup is tfdoctor's own, and text
from the environment goes through tfdoctor.sanitize.terminal.escape or markup=False."""


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class CollectFormat(str, Enum):
    json = "json"
    markdown = "markdown"


class FailOn(str, Enum):
    warning = "warning"
    error = "error"


def as_prose(help_text: str) -> str:
    """A docstring's paragraphs each on one line (a paragraph click marks with \\b aside), so
    the help wraps them at the terminal's width."""
    paragraphs = help_text.split("\n\n")
    return "\n\n".join(p if p.lstrip().startswith("\b") else " ".join(p.split()) for p in paragraphs)


# Options several commands share, declared once.
DEFAULT_PYTHON = ("the active environment (VIRTUAL_ENV, else CONDA_PREFIX); with neither, the "
                  "Python tfdoctor runs in, or the first python3 on PATH when that Python is "
                  "tfdoctor's own tool environment (pipx, uv tool, a venv of tfdoctor alone)")
"""How tfdoctor.gather.interpreter.choose_target picks the interpreter when --python is not given."""
PYTHON_GIVEN = "Interpreter to diagnose: a path, a venv or conda env dir, or a command"
PythonOpt = Annotated[Optional[str], typer.Option("--python", help=f"{PYTHON_GIVEN}. Default: {DEFAULT_PYTHON}.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print only JSON on stdout (progress goes to stderr).")]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="text, json, or markdown for a bug report.")]
VerboseOpt = Annotated[bool, typer.Option("-v", "--verbose", help="Show every finding with its evidence.")]


def _complete_rules(incomplete: str) -> list[str]:
    """Shell completion for --only/--skip: the areas and rule codes that start so."""
    try:
        from tfdoctor.engine.run import selectable
        from tfdoctor.engine.registry import load_registry

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
QuietOpt = Annotated[bool, typer.Option(
    "-q", "--quiet", help="No progress on stderr (without a terminal it is one line per stage).")]
LogOpt = Annotated[Optional[str], typer.Option(
    "--log", help="An error message, traceback, pip/conda output or training log to diagnose with "
    "the environment (a file, or - for standard input). Read as a stream, at most 64 MiB (a "
    "larger file: its first and last 32 MiB), in under 16 MB of memory for it whatever its size; "
    "the report keeps the lines around each recognised error and what was read, not the log.")]
KeepLogOpt = Annotated[bool, typer.Option(
    "--keep-log", help="Keep the --log text itself in the report (redacted): all of it up to 1 MiB, "
    "else its head and tail and the lines around each error (about 8 MB more memory).")]


def say_error(message: str) -> None:
    """`tfdoctor: error: MESSAGE` on one line of stderr: the one style of every usage error."""
    err.print("tfdoctor: error: " + " ".join(message.split()), markup=False, style="red")


def usage_error(message: str) -> typer.Exit:
    say_error(message)
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


def load_registry_or_exit(sections=None):
    """Built-in rules and plugins; a broken installation of tfdoctor itself is exit 3."""
    from tfdoctor.engine.registry import BuiltinsMissing, load_registry

    try:
        return load_registry(sections)
    except BuiltinsMissing as exc:
        err.print(f"tfdoctor is broken: {exc}", markup=False, style="red")
        err.print("reinstall it: python -m pip install --force-reinstall tfdoctor", markup=False)
        raise typer.Exit(EXIT_INTERNAL)


def select_rules(only, skip):
    """--only/--skip, checked before any work (a usage error, exit 2); the rules themselves are
    loaded once the snapshot says which sections it has."""
    from tfdoctor.engine.run import UnknownCheck, select

    try:
        select(load_registry_or_exit(sections=()), only, skip)
    except UnknownCheck:
        try:  # said with every area (the rules of all sections loaded), not only the static ones
            select(load_registry_or_exit(), only, skip)
        except UnknownCheck as exc:
            raise usage_error(str(exc))
    return list(only), list(skip)


def could_not_answer(target) -> str:
    """What a command says when the interpreter it asked could not answer (crashed, hung, is not
    a Python): never an environment it did not see (issue 28)."""
    return f"could not examine {target.python}: {target.message or target.problem}"


def static_snapshot(python: Optional[str]):
    """The static facts of the interpreter a command asks (lint, ops, matrix); exit 2 when
    `--python` names nothing runnable or the interpreter could not answer."""
    from tfdoctor.gather.static import TargetNotFound, gather_static

    try:
        snapshot = gather_static(python)
    except TargetNotFound as exc:
        raise usage_error(str(exc))
    if not snapshot.target.ok:
        raise usage_error(could_not_answer(snapshot.target))
    return snapshot


def gather_facts(python: Optional[str], no_runtime: bool, no_probes: bool, timeout: float,
                 probes: Optional[dict] = None, quiet: bool = False):
    """Static facts, then (unless switched off) runtime facts and the speed probes, both from
    one isolated TensorFlow child. `probes` is the probe configuration (default: the quick
    set `check` runs). The static facts may already be on their way (tfdoctor.cli.main)."""
    from tfdoctor.gather import static
    from tfdoctor.gather.snapshot_files import mask_snapshot_secrets

    try:
        snapshot = static.gather_static(python, timeout=timeout)
    except static.TargetNotFound as exc:
        raise usage_error(str(exc))
    snapshot = mask_snapshot_secrets(snapshot)  # credentials never reach any output
    if not no_runtime and snapshot.target.ok:
        from tfdoctor.gather.runtime import inspect

        config = None if no_probes else (probes or {"preset": "check"})
        from tfdoctor.render.progress import stage_progress

        progress = None if quiet else stage_progress(err)  # a spinner, or a line per stage
        found = inspect(snapshot.target.python, timeout, progress=progress, probes=config)
        snapshot.runtime, snapshot.probes = found.runtime, found.probes
    return snapshot


def check_log_path(path: Optional[str]) -> None:
    """A --log file that does not exist is a usage error, said before any work (issue 21); an
    empty or unreadable one is a finding (log.unreadable)."""
    import os

    if path is not None and path != "-" and not os.path.exists(path):
        raise usage_error(f"--log {path}: no such file")


def attach_log(snapshot, path: Optional[str], redacted: bool = True, keep_log: bool = False) -> None:
    """Read --log (bounded; never raises) into the snapshot, redacted like every other fact."""
    if path is None:
        return
    from tfdoctor.logtext import keep

    snapshot.log = keep.read(path, redacted=redacted, keep_log=keep_log)


def diagnose_snapshot(snapshot, chosen, debug: bool) -> Report:
    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.engine.run import sections_of

    only, skip = chosen
    return diagnose(snapshot, load_registry_or_exit(sections_of(snapshot)), debug, only, skip)


def emit(report: Report, fmt: OutputFormat, verbose: bool, threshold: Severity) -> None:
    from tfdoctor.render import render
    from tfdoctor.render.common import without_rerun

    if fmt.value != "json":  # a screen never tells the user to run what they just ran
        report = without_rerun(report, sys.argv[1:])
    render(report, fmt.value, out, verbose=verbose, fail_on=threshold)
