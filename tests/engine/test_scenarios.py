"""The scenario corpus (tests/scenarios/): real situations, each with the public source it rests on
and the diagnosis it must get. tests/scenarios/score.py computes the figures; these tests hold
them perfect: every problem scenario's top root cause is its expected one, and healthy machines
get no warning or error at all, except the scenarios in KNOWN_CHECK_BUGS, which a rule still gets
wrong: they are strict xfails, so fixing the rule makes the test fail until the entry is removed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor

SCENARIOS = REPO / "tests" / "scenarios"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


score = _load("tfdoctor_scenario_score", SCENARIOS / "score.py")
build = _load("tfdoctor_scenario_build", SCENARIOS / "build.py")

FILES = score.scenario_files(SCENARIOS)
DOCS = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in FILES}

KNOWN_CHECK_BUGS: dict[str, str] = {}
"""Scenario -> why tfdoctor gets it wrong today (the rule or probe to change). Strict xfails."""


def _known_bug(name: str):
    """The scenario as a test parameter, a strict xfail when a rule still gets it wrong."""
    if name not in KNOWN_CHECK_BUGS:
        return name
    return pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN_CHECK_BUGS[name], strict=True))


@pytest.fixture(scope="module")
def result():
    return score.score(SCENARIOS)


def test_files_are_what_the_generator_builds():
    wanted = build.documents()
    present = {p.name: p.read_text(encoding="utf-8") for p in FILES}
    assert sorted(present) == sorted(wanted), "run: python tests/scenarios/build.py"
    stale = [name for name, text in wanted.items() if present[name] != text]
    assert not stale, f"out of date, run python tests/scenarios/build.py: {stale}"


def test_corpus_size_and_sources():
    healthy = [n for n, d in DOCS.items() if d["healthy"]]
    assert len(DOCS) >= 90
    assert len(healthy) >= 35
    for name, doc in DOCS.items():
        assert list(doc) == list(score.ENVELOPE), name
        assert isinstance(doc["source"], str) and doc["source"].strip(), name
        assert doc["basis"].strip() and doc["title"].strip(), name
        assert doc["healthy"] == (not doc["expected_root_causes"]), name


def test_every_snapshot_validates_against_the_schema(result):
    invalid = {r.name: r.schema_errors + r.envelope_errors for r in result.results
               if r.schema_errors or r.envelope_errors}
    assert not invalid


def test_second_corpus_has_25_working_and_25_failing_reports():
    """Issue 11: at least 25 public reports of working setups and 25 of failures not used before,
    each with its own source (a constructed scenario says so in its basis and does not count)."""
    names = build.SECOND_CORPUS
    assert len(names) == len(set(names)) and set(names) <= set(DOCS)
    reports = [n for n in names if not DOCS[n]["basis"].startswith("Constructed")]
    working = [n for n in reports if DOCS[n]["healthy"]]
    failing = [n for n in reports if not DOCS[n]["healthy"]]
    assert len(working) >= 25 and len(failing) >= 25, (len(working), len(failing))
    first_corpus_sources = {DOCS[n]["source"] for n in DOCS if n not in names}
    assert not [n for n in reports if DOCS[n]["source"] in first_corpus_sources]


def test_known_check_bugs_name_scenarios_with_a_reason():
    for name, why in KNOWN_CHECK_BUGS.items():
        assert name in DOCS, name
        assert why.strip(), name


def test_expected_codes_are_registered_codes():
    known = score.known_codes()
    unknown = {n: [c for c in d["expected_root_causes"] if c not in known] for n, d in DOCS.items()}
    assert not {n: c for n, c in unknown.items() if c}


def test_figures_are_perfect_but_for_known_check_bugs(result):
    """Diagnosis accuracy 100 % and no warning or error on a healthy machine, outside KNOWN_CHECK_BUGS."""
    problems = [r for r in result.problem_cases if r.name not in KNOWN_CHECK_BUGS]
    wrong = {r.name: (r.expected[0], r.diagnosis) for r in problems if not r.top_ok}
    missing = {r.name: [c for c in r.expected if c not in r.root_causes] for r in problems if not r.all_expected}
    assert not wrong, f"top root cause differs from expected_root_causes[0]: {wrong}"
    assert not missing, f"expected root causes missing: {missing}"
    noise = {r.name: r.problems for r in result.healthy_cases if r.problems and r.name not in KNOWN_CHECK_BUGS}
    assert not noise, f"warnings or errors on healthy scenarios: {noise}"
    assert len(result.healthy_cases) >= 35


@pytest.mark.parametrize("name", [_known_bug(n) for n in sorted(DOCS)])
def test_scenario(name, result):
    got = next(r for r in result.results if r.name == name)
    if got.healthy:
        assert got.problems == [], got.problems
    else:
        assert got.diagnosis == got.expected[0], (got.diagnosis, got.root_causes)
        assert all(code in got.root_causes for code in got.expected), got.root_causes


@pytest.mark.slow  # score.py over every scenario in a subprocess
def test_score_script_runs(capsys, result):
    code = score.main([str(SCENARIOS)])
    out = capsys.readouterr().out
    assert "diagnosis accuracy" in out and "warnings or errors on healthy scenarios" in out
    assert code == (0 if result.perfect else 1)
    for name in DOCS:
        assert f"] {name}:" in out


def _diagnose_summary(paths: list[Path]) -> dict:
    run = run_tfdoctor("diagnose", *map(str, paths), "--summary", "--json")
    assert_no_traceback(run)
    assert run.code in (0, 1), run.stderr
    return json.loads(run.stdout)


@pytest.mark.slow  # tfdoctor diagnose over every scenario in a subprocess
def test_diagnose_summary_reads_the_scenario_files():
    """`tfdoctor diagnose tests/scenarios/*.json --summary --json`: the scenario files themselves
    (their snapshot sits under "snapshot", as in a `check --json` report) are read, every file is
    listed, and the diagnoses are the expected ones."""
    summary = _diagnose_summary(FILES)
    assert [row["file"] for row in summary["snapshots"]] == [str(p) for p in FILES]
    rows = {Path(row["file"]).stem: row for row in summary["snapshots"]}
    for name, doc in DOCS.items():
        if name in KNOWN_CHECK_BUGS:
            continue
        want = doc["expected_root_causes"][0] if doc["expected_root_causes"] else None
        assert rows[name]["diagnosis"] == want, name
        if doc["healthy"]:
            assert rows[name]["problems"] == [], name