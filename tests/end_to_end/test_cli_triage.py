"""`tfdoctor triage` as maintainers and support scripts use it: a report in (a file, standard
input, a folder, JSON Lines), its diagnosis by the same rules as `check`, the questions that
would decide, and output for people (text, a Markdown comment) and scripts (JSON with a schema,
--summary). The reader of facts has its own tests (tests/triage/)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.snapshot_files import snapshot_json
from tfdoctor.render.markdown import collect_markdown
from tfdoctor.render.schemas import SCHEMAS
from tfdoctor.triage.outcome import triage_text
from tfdoctor.triage.questions import COLLECT

pytestmark = pytest.mark.slow  # a tfdoctor subprocess per test

SCENARIOS = sorted((REPO / "tests" / "scenarios").glob("*.json"))
LOGS = REPO / "tests" / "data" / "logs"

MAC_PLUGIN_ERROR = (LOGS / "metal_plugin_symbol_assign_update.txt").read_text(encoding="utf-8")
FORUM_QUESTION = f"""I get this on my M1 MacBook Air, macOS 13.2, when I import tensorflow:

```
{MAC_PLUGIN_ERROR}
```
"""


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_a_scenario_posted_as_tfdoctor_collect_markdown_triages_to_its_diagnosis(path):
    """The report a user posts with `tfdoctor collect --format markdown` is read back whole:
    triage reaches the diagnosis `diagnose` reaches on the snapshot itself."""
    s = Snapshot.from_dict(json.loads(path.read_text(encoding="utf-8"))["snapshot"])
    want = diagnose(s).diagnosis()
    posted = f"Here is my setup:\n\n{collect_markdown(s, snapshot_json(s))}\nThanks!\n"
    got = triage_text(path.name, posted.encode()).report.diagnosis()
    assert (got.code if got else None) == (want.code if want else None)


def test_a_forum_question_is_read_diagnosed_and_asked_about(tmp_path):
    report = tmp_path / "question.md"
    report.write_text(FORUM_QUESTION)
    run = run_tfdoctor("triage", str(report), "--json")
    assert_no_traceback(run)
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, SCHEMAS["triage"]())
    assert doc["schema"] == "tfdoctor-triage" and doc["cause"] == "log.symbol-not-found-plugin"
    facts = {(f["name"], f["value"], f["how"]) for f in doc["facts"]}
    assert ("macos_version", "13.2", "stated") in facts
    # no package list was pasted: TensorFlow is not "not installed", that is not judged
    assert "install.no-tensorflow" not in [f["code"] for f in doc["findings"]]
    assert "packages" in doc["unknown"] and any(u["fact"] == "packages" for u in doc["unjudged"])
    assert "log.symbol-not-found-plugin" in doc["explains_text"]


def test_an_undecided_report_asks_for_the_commands_that_decide(tmp_path):
    """`Illegal instruction: 4` on a Mac whose chip the report does not name: Rosetta on Apple
    silicon, or an Intel CPU without the instructions. The chip (or the process's
    architecture) decides, and tfdoctor collect settles everything."""
    report = tmp_path / "sigill.md"
    report.write_text("On my MacBook, macOS 14.2, Python 3.9:\n\n```\n$ python -c 'import tensorflow'\n"
                      "Illegal instruction: 4\n```\n")
    doc = json.loads(run_tfdoctor("triage", str(report), "--json").stdout)
    asked = {q["command"]: set(q["separates"]) for q in doc["questions"]}
    assert COLLECT in asked and len(asked) >= 2
    deciding = [s for c, s in asked.items() if c != COLLECT]
    assert any(len(s) >= 2 for s in deciding)  # each question tells at least two causes apart


def test_markdown_is_a_comment_to_post_redacted_and_inert(tmp_path):
    report = tmp_path / "issue.md"
    report.write_text(FORUM_QUESTION + "\nmy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 "
                      "<script>alert(1)</script> \x1b]8;;http://evil\x07link\n")
    run = run_tfdoctor("triage", str(report), "--format", "markdown")
    assert run.code in (0, 1) and run.stdout.startswith("**tfdoctor ")
    assert "davidlaxer" not in run.stdout  # the reporter's home directory
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in run.stdout
    assert "\x1b" not in run.stdout and "<script>" not in run.stdout


def test_standard_input_a_folder_and_json_lines(tmp_path):
    one = run_tfdoctor("triage", "-", "--json", stdin=FORUM_QUESTION)
    assert json.loads(one.stdout)["cause"] == "log.symbol-not-found-plugin"
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "a.md").write_text(FORUM_QUESTION)
    (folder / "b.md").write_text("Everything works on my M2, tensorflow-macos 2.15 + tensorflow-metal 1.1.0\n")
    batch = json.loads(run_tfdoctor("triage", str(folder), "--json").stdout)
    jsonschema.validate(batch, SCHEMAS["triage-batch"]())
    assert [r["name"].rsplit("/", 1)[-1] for r in batch["reports"]] == ["a.md", "b.md"]
    lines = tmp_path / "issues.jsonl"
    lines.write_text("\n".join([json.dumps({"number": 1, "title": "GPU", "body": FORUM_QUESTION}),
                                json.dumps({"number": 2, "body": "works for me"}),
                                json.dumps({"number": 3, "labels": []}), "not json"]) + "\n")
    summary = run_tfdoctor("triage", str(lines), "--summary", "--json")
    doc = json.loads(summary.stdout)
    jsonschema.validate(doc, SCHEMAS["triage-summary"]())
    assert [r["name"] for r in doc["reports"]] == ["1", "2"]
    assert doc["counts"]["log.symbol-not-found-plugin"] == 1
    assert len(doc["unread"]) == 2  # a line with no text, a line that is no JSON: listed, not triaged
    text = run_tfdoctor("triage", str(lines), "--summary")
    rows = [line.split() for line in text.stdout.splitlines() if line.strip()]
    assert ["1", "log.symbol-not-found-plugin"] in rows  # report 1, one line each
    assert ["1", "log.symbol-not-found-plugin"] in [r[-2:] for r in rows]  # and the counts by cause


def test_a_path_that_is_nothing_is_a_usage_error():
    run = run_tfdoctor("triage", "/no/such/report.md")
    assert run.code == 2 and run.stderr.startswith("tfdoctor: error: ") and not run.stdout


@pytest.mark.parametrize("junk", [b"\x00\xff" * 50_000, b"`" * 300_000, b"pip list\n" + b"a 1\n" * 200_000])
def test_hostile_reports_end_cleanly(tmp_path, junk):
    report = tmp_path / "junk.md"
    report.write_bytes(junk)
    run = run_tfdoctor("triage", str(report), "--json", timeout=120)
    assert_no_traceback(run)
    assert run.code in (0, 1) and json.loads(run.stdout)["schema"] == "tfdoctor-triage"
