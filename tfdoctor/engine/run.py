"""Which rules run on a snapshot, and running them. The derived facts are built once and handed
to every rule; a rule that raises becomes a `check.crashed` finding (as a flutter validator that
crashes becomes a result) and every other rule still runs. Below tfdoctor.engine.vet, which runs
the rules again on a what-if, and tfdoctor.engine.diagnose, which runs them and then vets."""

from __future__ import annotations

import shlex
import traceback
from dataclasses import replace
from itertools import groupby
from typing import TYPE_CHECKING, Iterable, Sequence

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_FACTS
from tfdoctor.derived import Derived, derive
from tfdoctor.engine.registry import LoadFailure, Registry
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.unknown import KNOWABLE
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Rule, Severity
from tfdoctor.report.areas import LEGACY_NAMES, Area, area_of

if TYPE_CHECKING:
    from tfdoctor.report.diagnosis import Unjudged

ENGINE_CODES = {
    codes.CHECK_CRASHED: CodeDoc(
        title="A rule crashed",
        severity=Severity.WARNING,
        why="A rule (or a plugin's check) raised an exception on these facts. Its conclusion is "
        "missing from the report; every other rule still ran.",
        fix="Report it with `tfdoctor check --format markdown` output attached; "
        "`--skip CODE` silences it meanwhile.",
        fix_answer=ABOUT_THE_FACTS,
    ),
    codes.CHECK_LOAD_FAILED: CodeDoc(
        title="A registered plugin could not be loaded",
        severity=Severity.WARNING,
        why="An entry point in the `tfdoctor.checks` group failed to import or did not name a "
        "Rule or Check. Usually a third-party plugin that is broken or built for another tfdoctor.",
        fix="Upgrade or uninstall the distribution that registers it (shown in the evidence).",
        fix_answer=ABOUT_THE_FACTS,
    ),
}


class UnknownCheck(ValueError):
    """--only or --skip named an area, rule or check that is not registered."""


def selectable(registry: Registry) -> set[str]:
    """Names --only and --skip accept: areas, rule codes (also of modules not loaded for this
    snapshot), plugin checks, 0.1 check names."""
    builtin = {value for name, value in vars(codes).items() if name.isupper()}
    return ({r.area for r in registry.rules} | {r.code for r in registry.rules} | builtin
            | {code.split(".", 1)[0] for code in builtin} | {c.name for c in registry.checks}
            | set(LEGACY_NAMES))


def select(registry: Registry, only: Iterable[str] = (), skip: Iterable[str] = ()) -> Registry:
    """The rules and checks to run; unknown names are a usage error (with the closest ones)."""
    only = [LEGACY_NAMES.get(n, n) for n in only]
    skip = [LEGACY_NAMES.get(n, n) for n in skip]
    known = selectable(registry)
    unknown = sorted({n for n in only + skip if n not in known})
    if unknown:
        import difflib

        hints = {m for n in unknown for m in difflib.get_close_matches(n, sorted(known), n=3)}
        hint = f"; did you mean {', '.join(sorted(hints))}?" if hints else ""
        areas = sorted({r.area for r in registry.rules} | {c.name for c in registry.checks})
        raise UnknownCheck(f"unknown area or rule {', '.join(unknown)}{hint} (areas: {', '.join(areas)}; "
                           "`tfdoctor list-checks` lists the rules)")

    def chosen(*names: str) -> bool:
        return (not only or any(n in only for n in names)) and not any(n in skip for n in names)

    return Registry(
        rules=[r for r in registry.rules if chosen(r.area, r.code)],
        checks=[c for c in registry.checks if chosen(c.name)],
        failures=registry.failures,
    )


def _gathered(snapshot: Snapshot, needs: Sequence[str]) -> bool:
    """Every section the rule reads was gathered (one of them, for a need of alternatives:
    "model|log"), and every fact it needs is known."""
    return all(any(n not in snapshot.unknown if n in KNOWABLE else getattr(snapshot, n, None) is not None
                   for n in need.split("|"))
               for need in needs)


def applicable(snapshot: Snapshot, registry: Registry) -> Registry:
    """The rules and checks whose snapshot sections were gathered (runtime rules need the
    runtime facts) and whose facts are known."""
    return Registry([r for r in registry.rules if _gathered(snapshot, r.needs)],
                    [c for c in registry.checks if _gathered(snapshot, c.needs)], registry.failures)


def unjudged(snapshot: Snapshot, registry: Registry) -> list[Unjudged]:
    """What could not be judged because the snapshot does not know a fact, with the command
    that would tell (sections simply not gathered, such as the runtime, are not listed)."""
    from tfdoctor.report.diagnosis import Unjudged

    out = []
    for name in snapshot.unknown:
        fact = KNOWABLE.get(name)
        skipped = sorted({r.code for r in registry.rules if name in r.needs})
        if fact is not None and skipped:
            out.append(Unjudged(fact.name, fact.what, fact.command, skipped))
    return out


def areas(registry: Registry) -> list[Area]:
    """The report lines these rules and checks fill, in report order."""
    found = {r.area: area_of(r.code) for r in registry.rules}
    for c in registry.checks:
        found.setdefault(c.name, Area(c.name, c.area, c.summary, c.order))
    return sorted(found.values(), key=lambda a: (a.order, a.name))


def run_rules(snapshot: Snapshot, registry: Registry, debug: bool = False,
              derived: Derived | None = None) -> list[Finding]:
    """Every applicable rule and check on the snapshot, as findings in report order."""
    derived = derived or derive(snapshot)
    findings = [_load_failed(f) for f in registry.failures]
    ran = applicable(snapshot, registry)
    by_module = groupby(ran.rules, key=lambda r: getattr(r.func, "__module__", ""))
    for _module, group in by_module:
        rules = list(group)
        produced: list[Finding] = []
        for rule in (r for r in rules if not r.summary):
            produced.extend(_run_rule(rule, snapshot, derived, debug))
        if not any(f.severity >= Severity.WARNING for f in produced):
            for rule in (r for r in rules if r.summary):
                produced.extend(_run_rule(rule, snapshot, derived, debug))
        findings.extend(produced)
    for check in ran.checks:
        findings.extend(_run_check(check, snapshot, debug))
    return findings


def _run_rule(rule: Rule, snapshot: Snapshot, derived: Derived, debug: bool) -> list[Finding]:
    try:
        return [_reported_if_said(replace(_valid(f), check=f.check or rule.area)) for f in rule(snapshot, derived)]
    except Exception as exc:  # noqa: BLE001 - a crash becomes a finding
        return [_crashed(rule.code, rule.area, exc, debug)]


def _reported_if_said(finding: Finding) -> Finding:
    """A finding that rests on the report's own words (tfdoctor.logtext.said) is "reported", not
    "observed": what a program printed outranks what a person wrote."""
    if finding.evidence.get("said") and finding.basis == "observed":
        return replace(finding, basis="reported")
    return finding


def _run_check(check: Check, snapshot: Snapshot, debug: bool) -> list[Finding]:
    try:
        return [replace(_valid(f), check=f.check or check.name) for f in check.run(snapshot)]
    except Exception as exc:  # noqa: BLE001 - a crash becomes a finding
        return [_crashed(check.name, check.name, exc, debug)]


def _crashed(name: str, area: str, exc: Exception, debug: bool) -> Finding:
    doc = ENGINE_CODES[codes.CHECK_CRASHED]
    evidence = {"rule": name, "error": f"{type(exc).__name__}: {exc}"}
    if debug:
        evidence["traceback"] = traceback.format_exc()
    return Finding(codes.CHECK_CRASHED, doc.severity, f"The rule {name} crashed", evidence,
                   Remediation(doc.fix, (f"tfdoctor check --skip {shlex.quote(name)}",)), check=area,
                   fix_answer=doc.fix_answer)


def _load_failed(failure: LoadFailure) -> Finding:
    doc = ENGINE_CODES[codes.CHECK_LOAD_FAILED]
    return Finding(codes.CHECK_LOAD_FAILED, doc.severity, doc.title,
                   {"entry_point": failure.entry_point, "error": failure.error},
                   Remediation(doc.fix), check="check", fix_answer=doc.fix_answer)


def _valid(finding: object) -> Finding:
    """A plugin's result, checked before it reaches the report (where a wrong type would crash
    rendering): a Finding with a Severity and a JSON-friendly evidence mapping."""
    if not isinstance(finding, Finding):
        raise TypeError(f"a rule must return Finding objects, not {type(finding).__name__}")
    if not isinstance(finding.severity, Severity):
        raise TypeError(f"{finding.code}: severity must be a tfdoctor.model.Severity")
    return finding


SECTIONS = ("runtime", "probes", "log", "run", "model", "jupyter", "editor")
"""Snapshot sections gathered only on demand, or absent from older snapshots (Jupyter's kernels,
the editor's settings); rule modules that need one load only with it."""


def sections_of(snapshot: Snapshot) -> set[str]:
    return {"python"} | {name for name in SECTIONS if getattr(snapshot, name, None) is not None}


def findings_of(snapshot: Snapshot) -> list[Finding]:
    """Every applicable registered rule's findings on a snapshot, unvetted: what a what-if's or
    a vetting's own diagnosis needs (it is never shown)."""
    from tfdoctor.engine.registry import load_registry

    return run_rules(snapshot, applicable(snapshot, load_registry(sections_of(snapshot))),
                     derived=derive(snapshot))
