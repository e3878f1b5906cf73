"""tfdoctor.triage.facts on bug reports written in the real formats of the tools people paste
(tests/data/triage; SOURCES.json names where each format is defined): every expected fact with
its how and source, nothing the report does not say, the contradictions, whether a whole package
list was pasted; and each report's snapshot validates against `tfdoctor schema snapshot` and lists
as unknown exactly what the report does not settle."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import run_tfdoctor
from tfdoctor.facts.snapshot import canonicalize_name
from tfdoctor.triage.evidence import FACT_NAMES, is_fact_name
from tfdoctor.triage.facts import ReportFacts, read_report
from tfdoctor.triage.snapshot import to_snapshot

DATA = Path(__file__).resolve().parents[1] / "data" / "triage"
CASES = json.loads((DATA / "SOURCES.json").read_text())["texts"]


def _text(case: dict) -> str:
    return (DATA / case["file"]).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def snapshot_schema() -> dict:
    run = run_tfdoctor("schema", "snapshot")
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def test_every_text_says_which_format_it_is_in_and_where_that_is_defined():
    files = {p.name for p in DATA.iterdir() if p.name != "SOURCES.json"}
    assert files == {case["file"] for case in CASES}
    for case in CASES:
        assert case["formats"] and all(f["tool"] and f["defined_in"] for f in case["formats"]), case["file"]


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_each_report_gives_its_facts_with_their_provenance(case):
    report = read_report(_text(case))
    got = {(f.name, f.value, f.how, f.source) for f in report.facts}
    missing = [e for e in case["expect"] if tuple(e) not in got]
    assert not missing, (missing, sorted(got))
    for absent in case["absent"]:
        name, _, value = absent.partition(":")
        wrong = [f for f in report.facts if f.name == name and not f.quoted and value in ("", f.value)]
        assert not wrong, wrong
    assert report.package_list is case["package_list"]
    assert [c.name for c in report.contradictions] == case["contradictions"]
    assert not any("reader failed" in note for note in report.notes), report.notes


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_each_fact_points_at_a_line_of_its_report(case):
    text = _text(case)
    lines = text.split("\n")
    report = read_report(text)
    for fact in report.facts:
        assert is_fact_name(fact.name) and fact.how in ("read", "stated", "inferred") and fact.source
        assert 1 <= fact.line <= len(lines), fact
        if fact.name.startswith("package:") and fact.source in ("pip list", "pip freeze", "conda list"):
            words = {canonicalize_name(w) for w in lines[fact.line - 1].replace("=", " ").split()}
            assert fact.name.split(":", 1)[1] in words, (fact, lines[fact.line - 1])


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_each_report_becomes_a_valid_snapshot_that_names_what_it_does_not_know(case, snapshot_schema):
    snapshot = to_snapshot(read_report(_text(case)))
    jsonschema.validate(snapshot.to_dict(), snapshot_schema)
    assert snapshot.unknown == case["unknown"]
    assert snapshot.target.ok is True and snapshot.redacted is True


def test_crlf_line_ends_give_the_same_facts():
    for case in CASES:
        text = _text(case)
        lf, crlf = read_report(text), read_report(text.replace("\n", "\r\n"))
        assert crlf.facts == lf.facts, case["file"]
        assert crlf.package_list is lf.package_list


def test_first_is_the_surest_fact_read_before_stated_before_inferred():
    report = read_report((DATA / "wheel_x86_vs_prose_arm64.md").read_text())
    first = report.first("python_arch")
    assert (first.value, first.how, first.source) == ("x86_64", "read", "wheel name")
    assert report.first("container") is None


def test_first_prefers_the_reporters_own_text_to_a_quote():
    report = read_report((DATA / "quoted_reply.md").read_text())
    assert report.first("chip").value == "Apple M2"
    assert report.first("python_version").source == "python --version (quoted)"  # read beats stated


def test_packages_map_canonical_names_to_their_surest_version():
    report = read_report("I use tensorflow-macos 2.9 and Typing_Extensions==4.9.0\n\n```\n"
                         "Package          Version\n---------------- -------\n"
                         "tensorflow-macos 2.9.2\n```\n")
    packages = report.packages()
    assert packages["tensorflow-macos"].value == "2.9.2" and packages["tensorflow-macos"].how == "read"
    assert packages["typing-extensions"].value == "4.9.0"


def test_a_distribution_named_without_a_version_keeps_the_version_said_elsewhere():
    report = read_report("I have both `tensorflow` and `tensorflow-gpu` installed.\n\n"
                         "My tensorflow-gpu 1.15.0 sees the GPU.\n")
    packages = report.packages()
    assert packages["tensorflow-gpu"].value == "1.15.0"
    assert packages["tensorflow"].value == ""  # named, version unsaid


def test_the_interface_the_command_imports():
    report = read_report("")
    assert isinstance(report, ReportFacts)
    assert report.facts == [] and report.contradictions == [] and report.package_list is False
    assert {"os", "macos_version", "chip", "hw_arm64", "python_version", "python_arch", "translated",
            "python_binary_archs", "python_path", "env_manager", "tensorflow_version",
            "container"} <= set(FACT_NAMES)
