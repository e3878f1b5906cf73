#!/usr/bin/env python3
"""Score tfdoctor's diagnosis against the scenario corpus (tests/scenarios/*.json).

    python tests/scenarios/score.py [DIR] [--json]

For every scenario the snapshot is validated against `tfdoctor schema snapshot` (jsonschema) and
diagnosed offline with every registered check, exactly as `tfdoctor diagnose FILE` does. Figures:

* diagnosis accuracy: the share of non-healthy scenarios whose top root cause (the report's
  diagnosis) is expected_root_causes[0];
* expected-codes coverage: the share of non-healthy scenarios whose expected codes are all among
  the report's root causes (other root causes may be present besides);
* healthy noise: the number of warning or error findings on healthy scenarios (must be 0);
* schema: the number of snapshots that do not validate.

Exit status 0 when accuracy is 100 %, healthy noise 0 and every snapshot validates; else 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.engine.registry import load_registry
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Severity
from tfdoctor.render.schemas import snapshot_schema

HERE = Path(__file__).resolve().parent
ENVELOPE = ("title", "source", "basis", "expected_root_causes", "healthy", "snapshot")


@dataclass
class ScenarioResult:
    name: str
    title: str
    source: str
    healthy: bool
    expected: list[str]
    diagnosis: str | None = None
    root_causes: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    """(code, severity) of every warning or error."""
    schema_errors: list[str] = field(default_factory=list)
    envelope_errors: list[str] = field(default_factory=list)

    @property
    def top_ok(self) -> bool:
        return not self.healthy and bool(self.expected) and self.diagnosis == self.expected[0]

    @property
    def all_expected(self) -> bool:
        return not self.healthy and all(code in self.root_causes for code in self.expected)

    @property
    def noise(self) -> int:
        return len(self.problems) if self.healthy else 0

    @property
    def passed(self) -> bool:
        valid = not self.schema_errors and not self.envelope_errors
        return valid and (self.noise == 0 if self.healthy else self.top_ok)


@dataclass
class Score:
    results: list[ScenarioResult]

    @property
    def problem_cases(self) -> list[ScenarioResult]:
        return [r for r in self.results if not r.healthy]

    @property
    def healthy_cases(self) -> list[ScenarioResult]:
        return [r for r in self.results if r.healthy]

    @property
    def accuracy(self) -> float:
        cases = self.problem_cases
        return sum(r.top_ok for r in cases) / len(cases) if cases else 0.0

    @property
    def coverage(self) -> float:
        cases = self.problem_cases
        return sum(r.all_expected for r in cases) / len(cases) if cases else 0.0

    @property
    def healthy_noise(self) -> int:
        return sum(r.noise for r in self.healthy_cases)

    @property
    def invalid(self) -> int:
        return sum(1 for r in self.results if r.schema_errors or r.envelope_errors)

    @property
    def perfect(self) -> bool:
        return self.accuracy == 1.0 and self.healthy_noise == 0 and self.invalid == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenarios": len(self.results), "problem_scenarios": len(self.problem_cases),
            "healthy_scenarios": len(self.healthy_cases), "diagnosis_accuracy": self.accuracy,
            "expected_codes_coverage": self.coverage, "healthy_warnings_or_errors": self.healthy_noise,
            "invalid_snapshots": self.invalid,
            "results": [{"name": r.name, "healthy": r.healthy, "expected": r.expected,
                         "diagnosis": r.diagnosis, "root_causes": r.root_causes,
                         "problems": [list(p) for p in r.problems], "top_ok": r.top_ok,
                         "all_expected": r.all_expected, "schema_errors": r.schema_errors,
                         "envelope_errors": r.envelope_errors} for r in self.results],
        }


def known_codes(registry: Any = None) -> set[str]:
    """Every finding code the engine and the registered rules (and third-party checks) can produce."""
    from tfdoctor.engine.run import ENGINE_CODES

    registry = load_registry() if registry is None else registry
    codes = set(ENGINE_CODES) | {rule.code for rule in registry.rules}
    for check in registry.checks:
        codes |= set(check.codes)
    return codes


def scenario_files(directory: Path = HERE) -> list[Path]:
    return sorted(directory.glob("*.json"))


def _envelope_errors(doc: Any) -> list[str]:
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    errors = [f"missing key {key!r}" for key in ENVELOPE if key not in doc]
    if errors:
        return errors
    if not isinstance(doc["source"], str) or not doc["source"].strip():
        errors.append("empty source")
    expected = doc["expected_root_causes"]
    if not isinstance(expected, list) or not all(isinstance(c, str) for c in expected):
        errors.append("expected_root_causes is not a list of codes")
    elif bool(doc["healthy"]) == bool(expected):
        errors.append("healthy scenarios expect no root cause, the others at least one")
    return errors


def evaluate(path: Path, registry=None, validator=None) -> ScenarioResult:
    """Validate and diagnose one scenario file."""
    if registry is None:
        registry = load_registry()
    if validator is None:
        validator = jsonschema.Draft202012Validator(snapshot_schema())
    doc = json.loads(path.read_text(encoding="utf-8"))
    result = ScenarioResult(path.stem, str(doc.get("title", "")), str(doc.get("source", "")),
                            bool(doc.get("healthy")), list(doc.get("expected_root_causes") or []))
    result.envelope_errors = _envelope_errors(doc)
    snapshot_doc = doc.get("snapshot") if isinstance(doc, dict) else None
    result.schema_errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
                            for e in validator.iter_errors(snapshot_doc)][:5]
    try:
        snapshot = Snapshot.from_dict(snapshot_doc)
    except Exception as exc:  # noqa: BLE001 - reported as a schema error of this scenario
        result.schema_errors.append(f"not loadable: {exc}")
        return result
    report = diagnose(snapshot, registry)
    diagnosis = report.diagnosis()
    result.diagnosis = diagnosis.code if diagnosis else None
    result.root_causes = [f.code for f in report.root_causes()]
    result.problems = [(f.code, f.severity.value) for f in report.findings if f.severity >= Severity.WARNING]
    return result


def score(directory: Path = HERE) -> Score:
    registry = load_registry()
    validator = jsonschema.Draft202012Validator(snapshot_schema())
    return Score([evaluate(p, registry, validator) for p in scenario_files(directory)])


def _line(r: ScenarioResult) -> str:
    mark = "ok  " if r.passed else "FAIL"
    if r.healthy:
        what = "healthy: " + (", ".join(f"{c} ({s})" for c, s in r.problems) or "no warning or error")
    else:
        want = r.expected[0] if r.expected else "?"
        what = f"expected {want}, diagnosis {r.diagnosis}"
        missing = [c for c in r.expected if c not in r.root_causes]
        if missing:
            what += f"; expected but not a root cause: {', '.join(missing)}"
        others = [c for c in r.root_causes if c not in r.expected]
        if others:
            what += f"; other root causes: {', '.join(others)}"
    for err in r.envelope_errors + r.schema_errors:
        what += f"; INVALID {err}"
    return f"[{mark}] {r.name}: {what}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default=str(HERE))
    parser.add_argument("--json", action="store_true", help="print the figures and results as JSON")
    args = parser.parse_args(argv)
    result = score(Path(args.directory))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0 if result.perfect else 1
    for r in result.results:
        print(_line(r))
    problems, healthy = result.problem_cases, result.healthy_cases
    print()
    print(f"{len(result.results)} scenarios: {len(problems)} with a problem, {len(healthy)} healthy")
    print(f"diagnosis accuracy (top root cause == expected[0]): "
          f"{sum(r.top_ok for r in problems)}/{len(problems)} = {result.accuracy:.1%}")
    print(f"expected codes all among the root causes: "
          f"{sum(r.all_expected for r in problems)}/{len(problems)} = {result.coverage:.1%}")
    print(f"warnings or errors on healthy scenarios: {result.healthy_noise}")
    print(f"snapshots failing the schema (or the scenario envelope): {result.invalid}")
    return 0 if result.perfect else 1


if __name__ == "__main__":
    sys.exit(main())
