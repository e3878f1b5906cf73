"""The engine and the JSON output stay safe with whatever a check returns."""

from __future__ import annotations

import json

from snapshots import linux_cpu, snap
from tfdoctor.engine import run_checks
from tfdoctor.model import Check, Finding, Severity
from tfdoctor.report import Report
from tfdoctor.typed import json_text


def test_a_plugin_returning_the_wrong_type_is_a_crashed_check():
    bad = [Check("dicts", "Plugin", "returns dicts", lambda s: [{"code": "x"}]),
           Check("strsev", "Plugin", "str severity", lambda s: [Finding("x.y", "error", "t")])]
    findings = run_checks(snap(linux_cpu()), bad)
    assert [f.code for f in findings] == ["check.crashed", "check.crashed"]
    assert "must return Finding objects, not dict" in findings[0].evidence["error"]
    assert "severity must be" in findings[1].evidence["error"]


def test_json_output_is_strict_even_with_infinite_or_odd_evidence():
    odd = Check("odd", "Plugin", "odd evidence", lambda s: [Finding(
        "odd.x", Severity.WARNING, "t", {"speedup": float("inf"), "nan": float("nan"), "path": snap})])
    s = snap(linux_cpu())
    report = Report(s, run_checks(s, [odd]), [odd])
    doc = json.loads(json_text(report.to_dict(Severity.ERROR)), parse_constant=lambda c: 1 / 0)
    evidence = doc["findings"][0]["evidence"]
    assert evidence["speedup"] is None and evidence["nan"] is None and isinstance(evidence["path"], str)
