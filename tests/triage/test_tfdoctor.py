"""tfdoctor.triage.read_tfdoctor: tfdoctor's own documents pasted in a report, made by tfdoctor's
own writers here (gather.snapshot_files.snapshot_json, render.markdown.render_markdown on a
scenario), so the reader follows their format as it is today."""

from __future__ import annotations

import json
from pathlib import Path

from snapshots import apple_silicon
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.snapshot_files import snapshot_json
from tfdoctor.model import Severity
from tfdoctor.render.markdown import render_markdown
from tfdoctor.sanitize.redact import Identity
from tfdoctor.triage.facts import read_report
from tfdoctor.triage.snapshot import to_snapshot

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "rosetta_homebrew_usr_local.json"


def _collected_text() -> tuple[Snapshot, str]:
    snapshot = Snapshot.from_dict(apple_silicon())
    return snapshot, f"Here is `tfdoctor collect -o -`:\n\n```json\n{snapshot_json(snapshot)}```\n\nThanks!\n"


def test_a_pasted_snapshot_is_used_whole_and_read_into_facts():
    snapshot, text = _collected_text()
    report = read_report(text)
    assert report.collected is not None and report.package_list is True
    got = {(f.name, f.value, f.source) for f in report.facts if f.how == "read"}
    assert {("chip", "Apple M2", "tfdoctor collect"), ("python_arch", "arm64", "tfdoctor collect"),
            ("translated", "false", "tfdoctor collect"),
            ("package:tensorflow-metal", "1.2.0", "tfdoctor collect")} <= got
    assert not [f for f in report.facts if f.how == "inferred" and f.source in ("path", "traceback path")]
    assert to_snapshot(report).to_dict() == snapshot.to_dict()


def test_a_check_json_report_holds_a_snapshot():
    snapshot, _ = _collected_text()
    text = "```\n" + json.dumps({"schema": "tfdoctor-report", "schema_version": 1,
                                  "snapshot": snapshot.to_dict()}) + "\n```"
    assert read_report(text).collected is not None


def test_a_cut_or_hostile_snapshot_is_a_note_not_a_crash():
    _, text = _collected_text()
    cut = text[:len(text) // 2]
    report = read_report(cut)
    assert report.collected is None and any("not whole JSON" in n for n in report.notes)
    deep = '```\n{"schema_version": 1, "target": ' + "[" * 5000 + "]" * 5000 + "}\n```"
    report = read_report(deep)
    assert report.collected is None and any("nest" in n for n in report.notes)
    wrong = '```\n{"schema_version": 1, "target": {"python": 3}}\n```'
    assert any("could not be read" in n for n in read_report(wrong).notes)


def test_a_quoted_snapshot_is_someone_elses():
    _, text = _collected_text()
    report = read_report("\n".join("> " + line for line in text.split("\n")))
    assert report.collected is None and report.package_list is False


def test_the_markdown_report_gives_its_facts_and_none_from_its_advice():
    snapshot = Snapshot.from_dict(json.loads(SCENARIO.read_text())["snapshot"])
    markdown = render_markdown(diagnose(snapshot), Severity.ERROR, Identity("/Users/ada", "ada", "mbp"))
    report = read_report(f"I ran `tfdoctor check --format markdown`:\n\n{markdown}\nAny idea?\n")
    got = {(f.name, f.value, f.how, f.source) for f in report.facts}
    assert {("python_path", "/usr/local/bin/python3", "read", "tfdoctor report"),
            ("python_version", "3.11.7", "read", "tfdoctor report"),
            ("python_arch", "x86_64", "read", "tfdoctor report"),
            ("translated", "true", "read", "tfdoctor report"),
            ("macos_version", "14.3", "read", "tfdoctor report"),
            ("chip", "Apple M1 Max", "read", "tfdoctor report"),
            ("python_binary_archs", "x86_64", "read", "tfdoctor report"),
            ("package:tensorflow", "2.15.0", "read", "tfdoctor report")} <= got
    assert report.package_list is True
    # the fix names /opt/homebrew and tensorflow-metal 1.2.0: advice, not this machine
    assert not [f for f in report.facts if f.value in ("homebrew-arm64", "1.2.0") or f.source == "prose"]
    assert report.contradictions == []
    assert {p.name for p in to_snapshot(report).packages} == {p.name for p in snapshot.packages}
