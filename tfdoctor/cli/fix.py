"""`tfdoctor fix`: diagnose, print the plan that reaches a working environment, and (with --yes,
or when asked on a terminal) build it; `fix --undo` returns an environment changed in place to
its restore record. The plan is tfdoctor.fix.plan's; running it, apply's.

Every way it ends keeps the contract: one `tfdoctor: error: ...` line and exit 2 for bad input,
exit 1 for what went wrong (an OS error included), 130 or death by the signal when interrupted,
and with --json a fix-plan document on stdout whatever happened.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any, NoReturn, Optional

import typer

from tfdoctor.cli.app import (
    DebugOpt,
    JsonOpt,
    PythonOpt,
    QuietOpt,
    app,
    could_not_answer,
    diagnose_snapshot,
    err,
    gather_facts,
    out,
    say_error,
)
from tfdoctor.facts.typed import json_text
from tfdoctor.render.progress import progress_lines
from tfdoctor.report.diagnosis import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
)


class _Ending:
    """How the command ends: the one stderr line, the --json document, the exit code."""

    def __init__(self, json_output: bool) -> None:
        self.json = json_output
        self.plan: Any = None
        self.recovered: list[str] = []
        self.said = False

    def __call__(self, status: str, code: int, message: str | None = None, *, applied: Any = None,
                 step: str | None = None, index: str | None = None, cleanup: str | None = None,
                 error: bool = True) -> NoReturn:
        self.say(status, code, message, applied=applied, step=step, index=index, cleanup=cleanup, error=error)
        raise typer.Exit(code)

    def say(self, status: str, code: int, message: str | None = None, *, applied: Any = None,
            step: str | None = None, index: str | None = None, cleanup: str | None = None,
            error: bool = True) -> None:
        """Said once: a signal that arrives while the end is said does not say it again."""
        if self.said:
            return
        self.said = True
        if message and error:
            say_error(message + (f"; {cleanup}" if cleanup else ""))
        elif message:
            _progress(message)
        if self.json:
            from tfdoctor.fix.document import OutcomeDoc, plan_document

            outcome = OutcomeDoc(status, code, message, step, index, cleanup,  # type: ignore[arg-type]
                                 list(self.recovered))
            sys.stdout.write(json_text(plan_document(self.plan, outcome, applied), indent=2) + "\n")
            sys.stdout.flush()


@app.command()
def fix(
    python: PythonOpt = None,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan and change nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Apply the plan without asking."),
    new_env: Optional[str] = typer.Option(None, "--new-env", metavar="PATH",
                                          help="Build the fixed environment here (default: beside the diagnosed one)."),
    in_place: bool = typer.Option(False, "--in-place",
                                  help="Change the diagnosed environment (needs --yes; keeps a restore record first)."),
    undo: bool = typer.Option(False, "--undo",
                              help="Return the environment (--python) to the restore record an in-place fix kept."),
    snapshot_file: Optional[str] = typer.Option(None, "--snapshot", metavar="FILE",
                                                help="Plan for a snapshot written by `tfdoctor collect` (never applied)."),
    json_output: JsonOpt = False,
    debug: DebugOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Plan (and build) a working TensorFlow environment from the diagnosis."""
    from tfdoctor.child.process import Terminated, terminate_on_signals

    end = _Ending(json_output)
    try:
        with terminate_on_signals():  # SIGTERM/SIGHUP anywhere: the document, then death by it
            _fix(end, python, dry_run, yes, new_env, in_place, undo, snapshot_file, debug, quiet)
    except KeyboardInterrupt:
        end("interrupted", EXIT_INTERRUPTED, "interrupted")
    except Terminated as stop:
        end.say("interrupted", 128 + stop.signum, "interrupted")
        raise


def _fix(end: _Ending, python: Optional[str], dry_run: bool, yes: bool, new_env: Optional[str],
         in_place: bool, undo: bool, snapshot_file: Optional[str], debug: bool, quiet: bool) -> NoReturn:
    from tfdoctor.fix.plan import PlanError, build_plan, default_env_path
    from tfdoctor.knowledge.matrix import MatrixError, load_matrix

    usage = lambda message: end("error", EXIT_USAGE, message)  # noqa: E731
    if new_env is not None and in_place:
        usage("--new-env and --in-place exclude each other")
    if in_place and not yes and not dry_run:
        usage("--in-place changes the diagnosed environment: it needs --yes (or --dry-run to see the plan)")
    if snapshot_file is not None and python is not None:
        usage("--snapshot and --python exclude each other")
    if new_env is not None and (not new_env.strip() or "\0" in new_env):  # NUL: no file has it
        usage("--new-env needs a path")
    if undo:
        for given, name in ((new_env is not None, "--new-env"), (in_place, "--in-place"),
                            (snapshot_file is not None, "--snapshot"), (dry_run, "--dry-run")):
            if given:
                usage(f"--undo and {name} exclude each other")
        _undo(end, python, quiet)
    live = snapshot_file is None
    if not live:
        from tfdoctor.facts.snapshot import SnapshotError
        from tfdoctor.gather.snapshot_files import read_snapshot

        try:
            snapshot = read_snapshot(snapshot_file or "")
        except SnapshotError as exc:
            usage(str(exc))
    try:
        matrix = load_matrix()
    except MatrixError as exc:
        end("error", EXIT_INTERNAL, f"the bundled compatibility matrix cannot be read: {exc}")

    def make_plan(snapshot: Any) -> Any:
        report = diagnose_snapshot(snapshot, ([], []), debug)
        try:
            return build_plan(report, matrix, new_env=env_path, in_place=in_place,
                              **(_here() if live else {"installer": "pip", "conda_tool": "conda",
                                                       "path_exists": lambda _path: True}))
        except PlanError as exc:
            usage(str(exc))

    env_path, asking = new_env, sys.stdin.isatty() and sys.stdout.isatty() and not end.json
    changing = live and not dry_run and (yes or asking)
    if live:
        snapshot = _gathered(end, python, quiet)
        if not in_place:  # applied here: the default ~/venvs/tf-fixed is this machine's home
            env_path = os.path.abspath(os.path.expanduser(new_env or default_env_path(snapshot)))
            inside = _inside_diagnosed(env_path, snapshot)
            if inside:
                usage(inside)
        if changing and _recover(end, snapshot, env_path):  # restored: its facts are out of date
            snapshot = _gathered(end, python, quiet)
    plan = end.plan = make_plan(snapshot)
    if not changing or plan.nothing_to_do or plan.blocked:
        if live and not changing:
            _note_interrupted(plan, snapshot)
            if env_path and not in_place and os.path.lexists(env_path) and not plan.nothing_to_do:
                _progress(f"note: {env_path} exists already: fix will not build there (nothing in it "
                          "is removed); choose another --new-env")
        _planned(end, plan, live, dry_run, yes)
    if not end.json:
        from tfdoctor.render.fix_plan import say_plan

        say_plan(plan, out)
    if not yes and not typer.confirm("Apply this plan?", default=False):
        err.print("nothing changed", markup=False)
        end("planned", EXIT_OK)
    _apply(end, plan, quiet)


def _planned(end: _Ending, plan: Any, live: bool, dry_run: bool, yes: bool) -> NoReturn:
    """The plan printed, nothing changed (a dry run, a snapshot, nothing to do, a blocked plan)."""
    from tfdoctor.render.fix_plan import not_applied, say_outcome, say_plan

    if not end.json:
        say_plan(plan, out)
        why_not = not_applied(plan, live, dry_run)
        if why_not:
            say_outcome(why_not, out)
    refused = bool(plan.blocked) and yes and live
    end("refused" if refused else "planned", EXIT_PROBLEMS if refused else EXIT_OK,
        f"the plan stops at a step only you can take: {plan.blocked}" if refused else None)


def _here() -> dict[str, Any]:
    from tfdoctor.fix.apply import conda_tool_on_path, installer_on_path

    return {"installer": installer_on_path(), "conda_tool": conda_tool_on_path(), "path_exists": os.path.exists}


def _gathered(end: _Ending, python: Optional[str], quiet: bool, runtime: bool = True) -> Any:
    """The diagnosed interpreter's facts; exit 2 when it names nothing runnable or cannot answer."""
    try:
        snapshot = gather_facts(python, no_runtime=not runtime, no_probes=True, timeout=60.0, quiet=quiet)
    except typer.Exit as exc:  # the one line is said already
        end.say("error", exc.exit_code, None)
        raise
    if not snapshot.target.ok:
        end("error", EXIT_USAGE, could_not_answer(snapshot.target))
    return snapshot


def _inside_diagnosed(new_env: str, snapshot: Any) -> str | None:
    """Why --new-env cannot be where it is (inside the diagnosed environment, or containing it)."""
    prefix = snapshot.python.prefix if snapshot.python else ""
    if not prefix:
        return None
    new, old = os.path.realpath(new_env), os.path.realpath(prefix)
    if new == old or new.startswith(old.rstrip("/") + "/"):
        return f"--new-env {new_env} is inside the diagnosed environment {prefix}: choose a path outside it"
    if old.startswith(new.rstrip("/") + "/"):
        return f"--new-env {new_env} contains the diagnosed environment {prefix}: choose another path"
    return None


def _progress(line: str) -> None:
    for part in progress_lines(line, err.width):
        err.print(part, markup=False)


def _note_interrupted(plan: Any, snapshot: Any) -> None:
    """A dry run changes nothing, but says when an earlier fix was killed half-way."""
    from tfdoctor.fix.apply import interrupted
    from tfdoctor.fix.errors import FixRefused

    dirs = [d for d in (plan.env_dir, snapshot.python.prefix if snapshot.python else None) if d]
    try:
        entries = interrupted(dirs)
    except FixRefused as exc:
        _progress(f"note: {exc}")
        return
    for entry in entries:
        _progress(f"note: an earlier tfdoctor fix of {entry.env_dir} was interrupted at step "
                  f"{entry.step}; `tfdoctor fix --yes` cleans it up first")


def _recover(end: _Ending, snapshot: Any, new_env: Optional[str]) -> bool:
    """Before anything else: clean up after earlier fixes of these environments that were
    killed. Whether the diagnosed one was restored (its facts are then out of date)."""
    from tfdoctor.fix.apply import os_error, recover_all
    from tfdoctor.fix.errors import FixRefused

    prefix = snapshot.python.prefix if snapshot.python else ""
    try:
        restored = recover_all([prefix], _progress) if prefix else []
        built = [d for d in (new_env,) if d and d != prefix]
        end.recovered = restored + recover_all(built, _progress)
    except FixRefused as exc:
        end("refused", EXIT_PROBLEMS, str(exc))
    except OSError as exc:
        end("failed", EXIT_PROBLEMS, os_error(exc))
    for line in end.recovered:
        _progress(line)
    return bool(restored)


def _apply(end: _Ending, plan: Any, quiet: bool) -> NoReturn:
    from tfdoctor.fix.apply import apply, os_error
    from tfdoctor.fix.document import AppliedDoc
    from tfdoctor.fix.errors import FixFailed, FixRefused, Interrupted, StepFailed

    try:
        done = apply(plan, (lambda _line: None) if quiet else _progress)
    except Interrupted as stop:
        code = EXIT_INTERRUPTED if stop.signum == signal.SIGINT else 128 + stop.signum
        end.say("interrupted", code, "interrupted", cleanup=stop.cleanup)
        if code != EXIT_INTERRUPTED:
            raise stop.original from None  # Terminated: tfdoctor dies of the signal
        raise typer.Exit(code) from None
    except FixRefused as exc:
        end("refused", EXIT_PROBLEMS, str(exc))
    except StepFailed as exc:
        for line in exc.tail[-12:]:
            err.print(f"  | {line}", markup=False)
        end("failed", EXIT_PROBLEMS, str(exc), step=exc.step.kind, index=exc.index, cleanup=exc.cleanup)
    except FixFailed as exc:
        end("failed", EXIT_PROBLEMS, str(exc), cleanup=exc.cleanup)
    except OSError as exc:  # before any change (the lock, the journal)
        end("failed", EXIT_PROBLEMS, os_error(exc), cleanup="nothing was changed")
    applied = AppliedDoc(done.env, round(done.seconds, 1), done.verify_exit)
    if not end.json:
        from tfdoctor.render.fix_plan import applied_summary, say_outcome

        if done.verify_output:
            out.print(done.verify_output, markup=False)
        say_outcome(applied_summary(done.env, done.seconds, done.verify_exit), out)
    end("applied", EXIT_OK if done.verify_exit in (0, None) else EXIT_PROBLEMS, applied=applied, error=False)


def _undo(end: _Ending, python: Optional[str], quiet: bool) -> NoReturn:
    """`fix --undo`: the environment back to its restore record, under its lock."""
    from tfdoctor.fix.apply import os_error, undo_in_place
    from tfdoctor.fix.errors import FixFailed, FixRefused
    from tfdoctor.fix.steps import launcher

    snapshot = _gathered(end, python, quiet, runtime=False)
    py = snapshot.python
    if py is None or not py.prefix:
        end("failed", EXIT_PROBLEMS, f"no facts about {snapshot.target.python}: it could not be read")
    try:
        said = undo_in_place(py.prefix, py.executable, launcher(snapshot), _progress)
    except (FixRefused, FixFailed) as exc:
        end("failed", EXIT_PROBLEMS, str(exc))
    except OSError as exc:
        end("failed", EXIT_PROBLEMS, os_error(exc))
    end("undone", EXIT_OK, f"{py.prefix}: {said}", error=False)
