"""The engine and the JSON output stay safe with whatever a check returns."""

from __future__ import annotations

import json

from snapshots import linux_cpu, snap

from tfdoctor.derived import derive
from tfdoctor.engine.run import run_rules
from tfdoctor.engine.registry import Registry
from tfdoctor.facts.typed import json_text
from tfdoctor.model import Check, Finding, Severity
from tfdoctor.report.diagnosis import Report


def test_a_plugin_returning_the_wrong_type_is_a_crashed_check():
    bad = [Check("dicts", "Plugin", "returns dicts", lambda s: [{"code": "x"}]),
           Check("strsev", "Plugin", "str severity", lambda s: [Finding("x.y", "error", "t")])]
    findings = run_rules(snap(linux_cpu()), Registry(checks=bad))
    assert [f.code for f in findings] == ["check.crashed", "check.crashed"]
    assert "must return Finding objects, not dict" in findings[0].evidence["error"]
    assert "severity must be" in findings[1].evidence["error"]


def test_json_output_is_strict_even_with_infinite_or_odd_evidence():
    odd = Check("odd", "Plugin", "odd evidence", lambda s: [Finding(
        "odd.x", Severity.WARNING, "t", {"speedup": float("inf"), "nan": float("nan"), "path": snap})])
    s = snap(linux_cpu())
    report = Report(s, run_rules(s, Registry(checks=[odd])), [], derive(s))
    doc = json.loads(json_text(report.to_dict(Severity.ERROR)), parse_constant=lambda c: 1 / 0)
    evidence = doc["findings"][0]["evidence"]
    assert evidence["speedup"] is None and evidence["nan"] is None and isinstance(evidence["path"], str)


def test_root_causes_rank_observed_before_reported_table_and_inferred():
    """Of two errors neither explains, the one tfdoctor observed leads (issue 11 class 2)."""
    s = snap(linux_cpu())
    inferred = Finding("compat.tf-metal-mismatch", Severity.ERROR, "made for another TensorFlow",
                       basis="inferred")
    table = Finding("compat.macos-too-old", Severity.ERROR, "Apple's table asks 12.0", basis="table")
    observed = Finding("runtime.import-failed", Severity.ERROR, "import tensorflow raises")
    report = Report(s, [inferred, table, observed], [], derive(s))
    assert [f.code for f in report.root_causes()] == [
        "runtime.import-failed", "compat.macos-too-old", "compat.tf-metal-mismatch"]
    warning = Finding("x.y", Severity.WARNING, "an observed warning")
    assert Report(s, [warning, inferred], [], derive(s)).diagnosis() is inferred  # severity first


def test_the_error_the_user_brought_leads_among_equals():
    s = snap(linux_cpu())
    env = Finding("install.no-tensorflow", Severity.ERROR, "TensorFlow is not installed")
    pasted = Finding("log.pip-no-matching-distribution", Severity.ERROR, "pip found no tensorflow-macos")
    assert Report(s, [env, pasted], [], derive(s)).diagnosis() is pasted


def test_json_explains_names_each_present_code_once():
    """Issue 21 item 6: the JSON `explains` of a finding lists only the codes present in the report,
    each once (a rule declares every code it may explain)."""
    s = snap(linux_cpu())
    cause = Finding("x.cause", Severity.ERROR, "the cause",
                    explains=("x.symptom", "x.absent", "x.symptom"))
    symptom = Finding("x.symptom", Severity.WARNING, "the symptom")
    doc = Report(s, [cause, symptom], [], derive(s)).to_dict(Severity.ERROR)
    (cause_doc,) = [f for f in doc["findings"] if f["code"] == "x.cause"]
    assert cause_doc["explains"] == ["x.symptom"] and doc["diagnosis"]["explains"] == ["x.symptom"]


def test_a_screen_never_prescribes_the_command_just_run():
    """Issue 21 item 5: a fix that would run `tfdoctor probe --model m.keras` again is dropped from
    the screen of `tfdoctor probe --model m.keras --budget 5`; other commands stay."""
    from tfdoctor.model import Remediation
    from tfdoctor.render.common import without_rerun

    s = snap(linux_cpu())
    fix = Remediation("build the LSTM with use_cudnn=False, then probe it again",
                      ("tfdoctor probe --model m.keras --python /venv/bin/python", "pip install -- x"))
    report = Report(s, [Finding("model.cudnn-rnn", Severity.ERROR, "cuDNN path", remediation=fix)], [], derive(s))
    shown = without_rerun(report, ["probe", "--model", "m.keras", "--budget", "5"])
    assert shown.findings[0].remediation.commands == ("pip install -- x",)
    other = without_rerun(report, ["check", "--log", "err.txt"])
    assert other.findings[0].remediation.commands == fix.commands
