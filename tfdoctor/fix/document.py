"""The plan as the document `tfdoctor fix --json` prints, for support scripts: on every outcome
(a plan printed, applied, refused, failed, interrupted, bad input), with an `outcome` object that
says which and why.

Its own dataclasses, so the JSON Schema (`tfdoctor schema fix-plan`) is derived from the code
that writes the document and cannot drift from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tfdoctor.facts.typed import to_plain
from tfdoctor.fix.goal import Goal
from tfdoctor.fix.plan import NotCarried, Plan
from tfdoctor.fix.steps import Step

SCHEMA = "tfdoctor.fix-plan"
SCHEMA_VERSION = 2
"""2: the `outcome` object, `carried_editable`, `restore_record` (was restore_file), and plan
fields that are null when no plan could be made."""

Status = Literal["planned", "applied", "undone", "refused", "failed", "interrupted", "error"]


@dataclass(frozen=True)
class AppliedDoc:
    """What applying the plan did (only when tfdoctor ran it)."""

    env: str | None
    seconds: float
    verify_exit: int | None
    """`tfdoctor check --python NEW`'s exit code (0: no problems left)."""


@dataclass(frozen=True)
class OutcomeDoc:
    """How `tfdoctor fix` ended."""

    status: Status
    """"planned" (printed, nothing changed), "applied", "undone" (`fix --undo`), "refused"
    (nothing changed: the new environment exists, another fix holds it, the plan stops at a step only
    you can take), "failed" (a step or the system failed), "interrupted" (a signal), "error"
    (bad input: no plan)."""
    exit_code: int
    message: str | None = None
    """The last line tfdoctor said: the error, or what an undo did."""
    step: str | None = None
    """The kind of the step that failed."""
    index: str | None = None
    """What the package index did, when that is why the step failed."""
    cleanup: str | None = None
    """What was done about the environments after a failure or a signal."""
    recovered: list[str] = field(default_factory=list)
    """Earlier fixes that were killed, cleaned up (or restored) first."""


@dataclass(frozen=True)
class PlanDoc:
    schema: Literal["tfdoctor.fix-plan"]
    schema_version: int
    diagnosed: str | None
    mode: Literal["new-env", "in-place"] | None
    env: str | None
    installer: Literal["pip", "uv", "conda", "mamba"] | None
    target: Goal | None
    """The goal of the plan (named `target` in the document since its first version)."""
    nothing_to_do: bool
    blocked: str | None
    answers: list[str]
    unanswered: list[str]
    steps: list[Step]
    carried: list[str]
    carried_editable: list[str]
    requested_known: bool
    not_carried: list[NotCarried]
    restore_record: str | None
    notes: list[str]
    outcome: OutcomeDoc
    applied: AppliedDoc | None = None


def plan_document(plan: Plan | None, outcome: OutcomeDoc, applied: AppliedDoc | None = None) -> dict:
    """The plan (None when none could be made), how fix ended and what applying did, as plain
    JSON-ready data."""
    if plan is None:
        return to_plain(PlanDoc(SCHEMA, SCHEMA_VERSION, None, None, None, None, None, False, None, [], [],
                                [], [], [], False, [], None, [], outcome, applied))
    return to_plain(PlanDoc(
        SCHEMA, SCHEMA_VERSION, plan.diagnosed, plan.mode, plan.env, plan.installer,  # type: ignore[arg-type]
        plan.goal, plan.nothing_to_do, plan.blocked, list(plan.answers), list(plan.unanswered),
        list(plan.steps), list(plan.carried), list(plan.editables), plan.requested_known,
        list(plan.not_carried), plan.restore_record, list(plan.notes), outcome, applied))
