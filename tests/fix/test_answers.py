"""Every code says what `tfdoctor fix` does about it, where the code is declared (a rule's
`fix_answer=`, ENGINE_CODES), and fix plans from those declarations as the report carries them:
a new rule that declares nothing fails here, naming its code, instead of being left out of fix."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tfdoctor.advice.fix_answers import GOAL_INSTALLED
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.engine.run import ENGINE_CODES
from tfdoctor.engine.registry import builtin_rules
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix.plan import build_plan
from tfdoctor.knowledge.matrix import load_matrix
from tfdoctor.model import FixAnswer, Severity

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
DECLARED = {**{r.code: r.doc for r in builtin_rules()}, **ENGINE_CODES}


@pytest.mark.parametrize("code", sorted(DECLARED))
def test_every_code_declares_whether_fix_answers_it_and_how_or_why_not(code):
    answer = DECLARED[code].fix_answer
    assert isinstance(answer, FixAnswer), (
        f"{code} does not say what `tfdoctor fix` does about it: declare fix_answer= with its rule "
        "(tfdoctor.advice.fix_answers; see tfdoctor/fix/__init__.py)")
    assert len(answer.how.split()) >= 4, f"{code}: say how a fix step answers it, or why none can"


def _scenario(name: str) -> Snapshot:
    return Snapshot.from_dict(json.loads((SCENARIOS / f"{name}.json").read_text())["snapshot"])


def test_the_plan_answers_what_the_reports_findings_declare_answered():
    """fix reads each finding's declaration from the report (it keeps no list of its own): the
    same finding declared otherwise moves between `answers` and `unanswered`."""
    report = diagnose(_scenario("two_tensorflows_macos_and_tensorflow"))
    matrix = load_matrix()
    plan = build_plan(report, matrix)
    answered = {f.code for f in report.findings
                if f.severity >= Severity.WARNING and f.fix_answer and f.fix_answer.answered}
    assert answered and set(plan.answers) == answered
    moved = sorted(answered)[0]
    refused = FixAnswer(False, "declared unanswered by this test")
    report.findings = [replace(f, fix_answer=refused) if f.code == moved else f for f in report.findings]
    again = build_plan(report, matrix)
    assert moved not in again.answers and moved in again.unanswered


def test_a_plugins_finding_declared_answered_is_answered_and_an_undeclared_one_is_not():
    report = diagnose(_scenario("two_tensorflows_macos_and_tensorflow"))
    problem = next(f for f in report.findings if f.severity >= Severity.WARNING)
    report.findings = [*report.findings,
                       replace(problem, code="plugin.answered", fix_answer=GOAL_INSTALLED),
                       replace(problem, code="plugin.undeclared", fix_answer=None)]
    plan = build_plan(report, load_matrix())
    assert "plugin.answered" in plan.answers and "plugin.undeclared" in plan.unanswered
    install = next(step for step in plan.steps if step.kind == "install")
    assert "plugin.answered" in install.answers
