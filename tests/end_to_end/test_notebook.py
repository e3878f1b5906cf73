"""tfdoctor.notebook without a kernel: tfdoctor.check()'s keywords are `tfdoctor check`'s options,
and the value it returns shows the report in each format and keeps check's exit status (the
kernel itself: end_to_end/test_notebook_kernel.py)."""

from __future__ import annotations

import pytest
from snapshots import apple_silicon, snap

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.model import Severity
from tfdoctor.notebook import NotebookReport, arguments


def test_keywords_are_checks_options():
    assert arguments({"no_runtime": True, "no_probes": False, "only": ["arch", "install"], "skip": "probe",
                      "fail_on": "warning", "timeout": 30, "kernel": "tf", "format": "json", "verbose": True}) == [
        "--no-runtime", "--only", "arch", "--only", "install", "--skip", "probe", "--fail-on", "warning",
        "--timeout", "30", "--kernel", "tf", "--format", "json", "--verbose"]
    with pytest.raises(TypeError, match="unknown options fix; it takes debug, fail_on, format"):
        arguments({"fix": True})


def test_the_value_shows_the_report_and_keeps_the_exit_status():
    report = diagnose(snap(apple_silicon(python={"process_arch": "x86_64", "translated": True})))
    shown = NotebookReport(report)
    bundle = shown._repr_mimebundle_()
    assert bundle["text/plain"] == str(shown) and "arch.rosetta" in bundle["text/plain"]
    assert bundle["text/html"].startswith("<pre") and "color: #800000" in bundle["text/html"]  # [✗] in red
    assert "\x1b[" not in bundle["text/plain"] and "\x1b[" not in bundle["text/html"]
    assert shown.exit_code == 1 and repr(shown).endswith("exit 1>")
    as_json = NotebookReport(report, Severity.WARNING, "json")._repr_mimebundle_()
    assert as_json["application/json"]["fail_on"] == "warning"
    assert "text/markdown" in NotebookReport(report, format="markdown")._repr_mimebundle_()
