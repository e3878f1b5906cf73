"""The plan as the document `tfdoctor fix --json` prints, for support scripts.

Its own dataclasses, so the JSON Schema (`tfdoctor schema fix-plan`) is derived from the code
that writes the document and cannot drift from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tfdoctor.facts.typed import to_plain
from tfdoctor.fix.plan import NotCarried, Plan
from tfdoctor.fix.steps import Step
from tfdoctor.fix.target import Target

SCHEMA = "tfdoctor.fix-plan"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class AppliedDoc:
    """What applying the plan did (only when tfdoctor ran it)."""

    env: str | None
    seconds: float
    verify_exit: int | None
    """`tfdoctor check --python NEW`'s exit code (0: no problems left)."""


@dataclass(frozen=True)
class PlanDoc:
    schema: Literal["tfdoctor.fix-plan"]
    schema_version: int
    diagnosed: str
    mode: Literal["new-env", "in-place"]
    env: str | None
    installer: Literal["pip", "uv", "conda", "mamba"]
    target: Target | None
    nothing_to_do: bool
    blocked: str | None
    answers: list[str]
    unanswered: list[str]
    steps: list[Step]
    carried: list[str]
    requested_known: bool
    not_carried: list[NotCarried]
    restore_file: str | None
    notes: list[str]
    applied: AppliedDoc | None = None


def plan_document(plan: Plan, applied: AppliedDoc | None = None) -> dict:
    """The plan (and what applying it did) as plain JSON-ready data."""
    return to_plain(PlanDoc(
        SCHEMA, SCHEMA_VERSION, plan.diagnosed, plan.mode, plan.env, plan.installer,  # type: ignore[arg-type]
        plan.target, plan.nothing_to_do, plan.blocked, list(plan.answers), list(plan.unanswered),
        list(plan.steps), list(plan.carried), plan.requested_known, list(plan.not_carried),
        plan.restore_file, list(plan.notes), applied))
