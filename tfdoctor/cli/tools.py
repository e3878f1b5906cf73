"""The commands that look beyond one snapshot: `lint` reads training scripts, `ops` the Metal
plugin's kernel table, `run` supervises the user's own command and diagnoses what it printed."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from tfdoctor.cli.app import (
    DEFAULT_PYTHON,
    PYTHON_GIVEN,
    DebugOpt,
    FailOn,
    FailOnOpt,
    JsonOpt,
    PythonOpt,
    app,
    could_not_answer,
    diagnose_snapshot,
    gather_facts,
    out,
    select_rules,
    static_snapshot,
    usage_error,
)
from tfdoctor.model import Severity


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
    from tfdoctor.lint.results import LintEnv
    from tfdoctor.render.lint import render_lint

    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise usage_error(f"no such file or folder: {', '.join(missing)}")
    env = LintEnv()
    if not (tensorflow and keras and plugin):  # what the flags do not say comes from the interpreter
        from tfdoctor.lint.environment import from_snapshot

        env = from_snapshot(static_snapshot(python))
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
    """Which ops and dtypes have a Metal GPU kernel in a tensorflow-metal release (read from its binary).

    Op names are TensorFlow's (MatMul, Conv2D); a name that differs only in case from one op is
    taken as that op, and a name that is no op at all is a usage error (exit 2)."""
    from tfdoctor.knowledge.kernels import UnknownPluginRelease, kernel_table, releases
    from tfdoctor.knowledge.op_names import OpName, known_ops
    from tfdoctor.knowledge.tensorflow_ops import OpListMissing
    from tfdoctor.render.ops import render_ops, unknown_ops_message

    asked: list[OpName] = []
    if names:  # checked first: a name that is no op gets no kernel fact, whatever the release
        try:
            known = known_ops()
        except OpListMissing as exc:
            raise usage_error(f"{exc}: reinstall tfdoctor")
        asked = [known.resolve(name) for name in names]
        unknown = [name for name in asked if name.op is None]
        if unknown:
            raise usage_error(unknown_ops_message(unknown, known.tensorflow))
    version, how = plugin, "--plugin"
    if version is None:
        metal = static_snapshot(python).package("tensorflow-metal")
        version, how = (metal.version, "installed") if metal and metal.version else (None, "")
        if version is None:
            known = releases()
            if not known:
                raise usage_error("tfdoctor's kernel table is missing: reinstall tfdoctor")
            version, how = known[0], "newest known (tensorflow-metal is not installed here)"
    uncovered = None
    try:
        table = kernel_table(version)
    except UnknownPluginRelease as exc:
        if how != "installed":  # --plugin with a release tfdoctor has no table for: a usage error
            raise usage_error(str(exc))
        # The installed release is not in the bundled table (newer than it, most likely): answer
        # from the newest release the table has and say so, in the text and in the JSON.
        known = releases()
        if not known:
            raise usage_error("tfdoctor's kernel table is missing: reinstall tfdoctor")
        uncovered = version
        table = kernel_table(known[0])
        how = (f"newest known; the installed tensorflow-metal {version} is not covered by "
               f"tfdoctor's kernel table")
    missing = render_ops(table, asked, how, json_output, out, uncovered=uncovered)
    raise typer.Exit(1 if missing else 0)


@app.command(name="run")
def run_command(
    command: List[str] = typer.Argument(..., help="The command to run, after --: tfdoctor run -- python train.py"),
    timeout: Optional[float] = typer.Option(
        None, "--timeout", min=1.0, max=7 * 86400.0,
        help="Stop the command after this many seconds (SIGTERM, then SIGKILL); default: no limit."),
    placement: bool = typer.Option(False, "--placement", help="Have TensorFlow log where each op runs, and report the ops that ran on the CPU."),
    python: Optional[str] = typer.Option(
        None, "--python", help=f"{PYTHON_GIVEN}. Default: the command's own when it is a python "
        f"(python train.py), else {DEFAULT_PYTHON}."),
    json_output: JsonOpt = False,
    fail_on: FailOnOpt = FailOn.error,
    debug: DebugOpt = False,
) -> None:
    """Run your own command under supervision, then diagnose its output with the environment.

    Exit status: 0 the command exited 0 and nothing at or above --fail-on was found; 1 the command
    failed (non-zero status, a signal, stopped at --timeout) or problems were found; 2 usage error,
    including a command that does not exist or cannot be executed; 3 tfdoctor itself failed."""
    from tfdoctor.logtext import keep
    from tfdoctor.gather import supervised_run

    target = python or _python_of(command)
    chosen = select_rules([], [])
    snapshot = gather_facts(target, True, True, 60.0)
    if not snapshot.target.ok:  # its environment is what the diagnosis is about
        raise usage_error(could_not_answer(snapshot.target) + "; the command was not run")
    result = supervised_run.run(command, timeout=timeout, placement=placement,
                           stdout=sys.stderr.buffer if json_output else None)
    facts = result.facts
    if facts.outcome in ("not-found", "not-executable"):
        raise usage_error(f"cannot run {command[0]}: {facts.message or facts.outcome}")
    snapshot.run = facts
    snapshot.log = keep.from_bytes(result.recorded, "run: " + " ".join(facts.argv[:1]))
    report = diagnose_snapshot(snapshot, chosen, debug)
    lint_result, lint_env = _lint_scripts(snapshot, supervised_run.scripts_in(command))
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
