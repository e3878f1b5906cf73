"""`tfdoctor fix`: diagnose, print the plan that reaches a working environment, and (with --yes,
or when asked on a terminal) build it. The plan is tfdoctor.fix.plan's; running it, apply's."""

from __future__ import annotations

import sys
from typing import Any, NoReturn, Optional

import typer

from tfdoctor.cli.app import (
    DebugOpt,
    JsonOpt,
    PythonOpt,
    app,
    diagnose_snapshot,
    err,
    gather_facts,
    out,
)
from tfdoctor.facts.typed import json_text
from tfdoctor.report.diagnosis import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE

EXIT_INTERRUPTED = 130


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    err.print(f"tfdoctor: error: {message}", markup=False)
    raise typer.Exit(code)


@app.command()
def fix(
    python: PythonOpt = None,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan and change nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Apply the plan without asking."),
    new_env: Optional[str] = typer.Option(None, "--new-env", metavar="PATH",
                                          help="Build the fixed environment here (default: beside the diagnosed one)."),
    in_place: bool = typer.Option(False, "--in-place", help="Change the diagnosed environment (needs --yes; saves a restore file first)."),
    snapshot_file: Optional[str] = typer.Option(None, "--snapshot", metavar="FILE",
                                                help="Plan for a snapshot written by `tfdoctor collect` (never applied)."),
    json_output: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Plan (and build) a working TensorFlow environment from the diagnosis."""
    from tfdoctor.fix.apply import (FixRefused, StepFailed, apply, conda_tool_on_path, installer_on_path,
                                    requested_on_disk)
    from tfdoctor.fix.plan import PlanError, build_plan
    from tfdoctor.knowledge.matrix import MatrixError, load_matrix

    if new_env is not None and in_place:
        fail("--new-env and --in-place exclude each other")
    if in_place and not yes and not dry_run:
        fail("--in-place changes the diagnosed environment: it needs --yes (or --dry-run to see the plan)")
    if snapshot_file is not None and python is not None:
        fail("--snapshot and --python exclude each other")
    if new_env is not None and not new_env.strip():
        fail("--new-env needs a path")
    if snapshot_file is not None:
        from tfdoctor.facts.snapshot import SnapshotError
        from tfdoctor.gather.snapshot_files import read_snapshot

        try:
            snapshot = read_snapshot(snapshot_file)
        except SnapshotError as exc:
            fail(str(exc))
        requested, installer, conda_tool = None, "pip", "conda"  # the other machine's, assumed
    else:
        snapshot = gather_facts(python, no_runtime=False, no_probes=True, timeout=60.0)
        requested, installer, conda_tool = requested_on_disk(snapshot), installer_on_path(), conda_tool_on_path()
        if not in_place:  # applied here: the default ~/venvs/tf-fixed is this machine's home
            import os

            from tfdoctor.fix.plan import default_env_path

            new_env = os.path.abspath(os.path.expanduser(new_env or default_env_path(snapshot)))
    report = diagnose_snapshot(snapshot, ([], []), debug)
    try:
        matrix = load_matrix()
    except MatrixError as exc:
        fail(f"the bundled compatibility matrix cannot be read: {exc}", 3)
    try:
        plan = build_plan(snapshot, report, matrix, new_env=new_env, in_place=in_place,
                          requested=requested, installer=installer, conda_tool=conda_tool)
    except PlanError as exc:
        fail(str(exc))

    applying = (snapshot_file is None and not dry_run and not plan.nothing_to_do and not plan.blocked)
    why_not = ""
    if applying and not yes:
        if sys.stdin.isatty() and sys.stdout.isatty() and not json_output:
            _print_plan(plan)
            if not typer.confirm("Apply this plan?", default=False):
                err.print("nothing changed", markup=False)
                raise typer.Exit(EXIT_OK)
            _apply(plan, apply, FixRefused, StepFailed, printed=True)
        applying, why_not = False, "dry run: no terminal to ask and no --yes; nothing changed"
    if not applying:
        if dry_run:
            why_not = "dry run: nothing changed"
        elif snapshot_file is not None:
            why_not = "plan for a snapshot: never applied"
        if json_output:
            from tfdoctor.fix.document import plan_document

            sys.stdout.write(json_text(plan_document(plan), indent=2) + "\n")
        else:
            _print_plan(plan)
            if why_not:
                out.print(why_not, markup=False)
        raise typer.Exit(EXIT_PROBLEMS if plan.blocked and yes and snapshot_file is None else EXIT_OK)
    _apply(plan, apply, FixRefused, StepFailed, printed=False, json_output=json_output)


def _apply(plan: Any, apply: Any, refused: type, failed: type, printed: bool,
           json_output: bool = False) -> NoReturn:
    if not printed and not json_output:
        _print_plan(plan)
    progress = (lambda line: err.print(line, markup=False))
    try:
        done = apply(plan, progress)
    except KeyboardInterrupt:
        where = (f"{plan.env} was removed, the diagnosed environment is as it was" if plan.mode == "new-env"
                 else f"restore with the command in the plan ({plan.restore_file})")
        fail(f"interrupted: {where}", EXIT_INTERRUPTED)
    except refused as exc:
        fail(str(exc), EXIT_PROBLEMS)
    except failed as exc:
        for line in exc.tail[-12:]:
            err.print(f"  | {line}", markup=False)
        where = f"; {plan.env} was removed, the diagnosed environment is as it was" if plan.mode == "new-env" else (
            f"; restore with the command in the plan ({plan.restore_file})")
        fail(f"{exc}{where}", EXIT_PROBLEMS)
    if json_output:
        from tfdoctor.fix.document import AppliedDoc, plan_document

        doc = plan_document(plan, AppliedDoc(done.env, round(done.seconds, 1), done.verify_exit))
        sys.stdout.write(json_text(doc, indent=2) + "\n")
    else:
        if done.verify_output:
            out.print(done.verify_output, markup=False)
        out.print(f"fixed environment: {done.env} ({done.seconds:.0f}s); "
                  f"tfdoctor check exit {done.verify_exit}", markup=False)
    raise typer.Exit(EXIT_OK if done.verify_exit in (0, None) else EXIT_PROBLEMS)


def _print_plan(plan: Any) -> None:
    say = lambda text="": out.print(text, markup=False)  # noqa: E731
    if plan.nothing_to_do:
        say(f"tfdoctor fix: nothing to do for {plan.diagnosed}"
            + (f" (left as they are: {', '.join(plan.unanswered)})" if plan.unanswered else ""))
        return
    say(f"tfdoctor fix plan for {plan.diagnosed}")
    if plan.target:
        say(f"  target: {plan.target.description}"
            + (f" [{plan.target.status}]" if plan.target.status else ""))
    say(f"  answers: {', '.join(plan.answers)}")
    if plan.unanswered:
        say(f"  not answered by fix: {', '.join(plan.unanswered)}")
    say(f"  {'in place: ' + plan.env if plan.mode == 'in-place' else 'new environment: ' + str(plan.env)}"
        f" (with {plan.installer})")
    for n, step in enumerate(plan.steps, 1):
        who = "tfdoctor runs" if step.runnable else "YOU run (tfdoctor cannot)"
        say(f"{n}. {step.title}  [{who}]" + (f"  answers {', '.join(step.answers)}" if step.answers else ""))
        for line in step.display():
            say(f"     $ {line}")
        say(f"     changes: {step.changes}")
        say(f"     undo: {step.undo}")
    if plan.blocked:
        say(f"The plan stops here: {plan.blocked}")
    if plan.carried:
        say(f"  carried over (you asked for them): {' '.join(plan.carried)}")
    elif plan.mode == "new-env" and not plan.blocked and plan.requested_known:
        say("  carried over: nothing else you asked for")
    for item in plan.not_carried:
        say(f"  not carried over: {item.name}: {item.why}")
    if plan.restore_file:
        say(f"  restore file: {plan.restore_file}")
    for note in plan.notes:
        say(f"  note: {note}")
