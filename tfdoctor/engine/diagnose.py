"""The report on a snapshot: the rules run (tfdoctor.engine.run), then every finding's advice
checked against the facts (tfdoctor.engine.vet)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from tfdoctor.derived import derive
from tfdoctor.engine.registry import Registry, load_registry
from tfdoctor.engine.run import (
    applicable,
    areas,
    run_rules,
    sections_of,
    select,
    unjudged,
)
from tfdoctor.engine.vet import vet_findings
from tfdoctor.facts.snapshot import Snapshot

if TYPE_CHECKING:
    from tfdoctor.report.diagnosis import Report


def diagnose(snapshot: Snapshot, registry: Registry | None = None, debug: bool = False,
             only: Iterable[str] = (), skip: Iterable[str] = (), check_advice: bool = True) -> "Report":
    """The report on a snapshot: every applicable rule (the registered ones that this
    snapshot's sections need, by default), narrowed by `only` and `skip`, with every finding's
    advice checked against the facts before it is printed (tfdoctor.engine.vet; `check_advice=False`
    for a report only ranked, never shown, such as a what-if of triage's questions)."""
    from tfdoctor.report.diagnosis import Report

    if registry is None:
        registry = load_registry(sections_of(snapshot))
    if only or skip:
        registry = select(registry, only, skip)
    ran = applicable(snapshot, registry)
    derived = derive(snapshot)
    findings = run_rules(snapshot, ran, debug=debug, derived=derived)
    if check_advice:
        findings = vet_findings(snapshot, findings, derived.matrix)
    return Report(snapshot, findings, areas(ran), derived, unjudged(snapshot, registry))
