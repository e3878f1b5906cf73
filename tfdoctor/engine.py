"""Run checks on a snapshot. A check that raises becomes a `check.crashed` finding (as a
flutter validator that crashes becomes a result); the others still run."""

from __future__ import annotations

import traceback
from dataclasses import replace
from typing import Iterable, Sequence

from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.registry import LoadFailure
from tfdoctor.snapshot import Snapshot

ENGINE_CODES = {
    "check.crashed": CodeDoc(
        title="A check crashed",
        severity=Severity.WARNING,
        why="A check raised an exception on these facts. Its conclusion is missing from the "
        "report; every other check still ran.",
        fix="Report it with `tfdoctor check --format markdown` output attached; "
        "`--skip NAME` silences it meanwhile.",
    ),
    "check.load-failed": CodeDoc(
        title="A registered check could not be loaded",
        severity=Severity.WARNING,
        why="An entry point in the `tfdoctor.checks` group failed to import or did not name a "
        "Check. Usually a third-party plugin that is broken or built for another tfdoctor.",
        fix="Upgrade or uninstall the distribution that registers it (shown in the evidence).",
    ),
}


class UnknownCheck(ValueError):
    """--only or --skip named a check that is not registered."""


def select(checks: Sequence[Check], only: Iterable[str] = (), skip: Iterable[str] = ()) -> list[Check]:
    """The checks to run, by name; unknown names are a usage error."""
    only, skip = list(only), list(skip)
    known = {c.name for c in checks}
    unknown = sorted({n for n in only + skip if n not in known})
    if unknown:
        raise UnknownCheck(
            f"unknown check {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return [c for c in checks if (not only or c.name in only) and c.name not in skip]


def applicable(snapshot: Snapshot, checks: Sequence[Check]) -> list[Check]:
    """The checks whose snapshot sections were gathered (runtime checks need --runtime facts)."""
    return [c for c in checks if all(getattr(snapshot, n, None) is not None for n in c.needs)]


def run_checks(
    snapshot: Snapshot,
    checks: Sequence[Check],
    load_failures: Sequence[LoadFailure] = (),
    debug: bool = False,
) -> list[Finding]:
    findings = [
        Finding(
            code="check.load-failed",
            severity=Severity.WARNING,
            title="A registered check could not be loaded",
            evidence={"entry_point": f.entry_point, "error": f.error},
            remediation=Remediation(ENGINE_CODES["check.load-failed"].fix),
            check="engine",
        )
        for f in load_failures
    ]
    for check in applicable(snapshot, checks):
        try:
            produced = [_valid(f) for f in check.run(snapshot)]
        except Exception as exc:  # noqa: BLE001 - a crash becomes a finding
            evidence = {"check": check.name, "error": f"{type(exc).__name__}: {exc}"}
            if debug:
                evidence["traceback"] = traceback.format_exc()
            produced = [
                Finding(
                    code="check.crashed",
                    severity=Severity.WARNING,
                    title=f"The {check.name} check crashed",
                    evidence=evidence,
                    remediation=Remediation(
                        ENGINE_CODES["check.crashed"].fix, (f"tfdoctor check --skip {check.name}",)
                    ),
                )
            ]
        findings.extend(replace(f, check=f.check or check.name) for f in produced)
    return findings


def _valid(finding: object) -> Finding:
    """A plugin's result, checked before it reaches the report (where a wrong type would crash
    rendering): a Finding with a Severity and a JSON-friendly evidence mapping."""
    if not isinstance(finding, Finding):
        raise TypeError(f"a check must return Finding objects, not {type(finding).__name__}")
    if not isinstance(finding.severity, Severity):
        raise TypeError(f"{finding.code}: severity must be a tfdoctor.model.Severity")
    return finding
