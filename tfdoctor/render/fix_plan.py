"""`tfdoctor fix`'s plan and outcome as text at the console's width (issue 29: lines of 127
columns at 80). What is read wraps between words under its label; a command is printed whole on
a line of its own (`$ ...`), to be copied and pasted as it is: the one kind of line that may be
wider."""

from __future__ import annotations

from rich.console import Console

from tfdoctor.fix.plan import Plan
from tfdoctor.fix.steps import Step
from tfdoctor.render.wrap import glued, wrap

STEP = " " * 5
"""Where a step's commands and details start, under its title."""


def plan_lines(plan: Plan, width: int) -> list[str]:
    """The plan in lines of at most `width` columns, but for its commands and a word (a path)
    longer than a line."""
    if plan.nothing_to_do:
        left = f" (left as they are: {', '.join(plan.unanswered)})" if plan.unanswered else ""
        return wrap(f"tfdoctor fix: nothing to do for {plan.diagnosed}{left}", width)
    lines = wrap(f"tfdoctor fix plan for {plan.diagnosed}", width)
    said = lambda label, text: lines.extend(wrap(text, width, f"  {label}", "    "))
    if plan.goal:
        said("target: ", plan.goal.description + (f" [{plan.goal.status}]" if plan.goal.status else ""))
    said("answers: ", ", ".join(plan.answers))
    if plan.unanswered:
        said("not answered by fix: ", ", ".join(plan.unanswered))
    where = f"in place: {plan.env}" if plan.mode == "in-place" else f"new environment: {plan.env}"
    said("", f"{where} {glued(f'(with {plan.installer})')}")
    for n, step in enumerate(plan.steps, 1):
        lines += _step_lines(n, step, width)
    if plan.blocked:
        lines += wrap(f"The plan stops here: {plan.blocked}", width)
    if plan.carried or plan.editables:
        carried = [*plan.carried, *(f"-e {path}" for path in plan.editables)]
        said("carried over (you asked for them): ", " ".join(glued(item) for item in carried))
    elif plan.mode == "new-env" and not plan.blocked and plan.requested_known:
        said("carried over: ", "nothing else you asked for")
    for item in plan.not_carried:
        said("not carried over: ", f"{glued(item.name)}: {item.why}")
    if plan.restore_record:
        said("restore record: ", plan.restore_record)
    for note in plan.notes:
        said("note: ", note)
    return lines


def say_plan(plan: Plan, console: Console) -> None:
    for line in plan_lines(plan, console.width):
        console.print(line, markup=False)


def say_outcome(line: str, console: Console) -> None:
    """A line of how fix ended, wrapped between words at the console's width."""
    for part in wrap(line, console.width):
        console.print(part, markup=False)


def not_applied(plan: Plan, live: bool, dry_run: bool) -> str:
    """Why a printed plan was not applied; "" when the plan says so itself (nothing to do, or a
    step only the user can take)."""
    if dry_run:
        return "dry run: nothing changed"
    if not live:
        return "plan for a snapshot: never applied"
    if plan.nothing_to_do or plan.blocked:
        return ""
    return "dry run: no terminal to ask and no --yes; nothing changed"


def applied_summary(env: str, seconds: float, verify_exit: int | None) -> str:
    return f"fixed environment: {env} ({seconds:.0f}s); " + glued(f"tfdoctor check exit {verify_exit}")


def _step_lines(n: int, step: Step, width: int) -> list[str]:
    who = glued("[tfdoctor runs]" if step.runnable else "[YOU run (tfdoctor cannot)]")
    answers = f"  answers {', '.join(step.answers)}" if step.answers else ""
    lines = wrap(f"{step.title}  {who}{answers}", width, f"{n}. ", STEP)
    lines += [f"{STEP}$ {line}" for line in step.display()]
    lines += wrap(step.changes, width, f"{STEP}changes: ", STEP + "  ")
    undo = f"{STEP}undo: {step.undo}"
    lines += [undo] if len(undo) <= width or step.undo == "-" else [f"{STEP}undo:", f"{STEP}  $ {step.undo}"]
    return lines
