"""`tfdoctor triage`'s line of facts read: each fact as name=value, a distribution the report names
without its version said so in words, not as an empty value."""

from __future__ import annotations

from rich.console import Console

from tfdoctor.model import Severity
from tfdoctor.render.triage import render_text
from tfdoctor.sanitize.redact import Identity
from tfdoctor.triage.document import document
from tfdoctor.triage.outcome import triage_text


def test_a_distribution_named_without_a_version_says_so():
    report = b"I have both `tensorflow` and `tensorflow-gpu` installed, Python 3.8.\n"
    console = Console(record=True, width=200)
    render_text(document(triage_text("report.md", report), Severity.ERROR, Identity("", "", "")), console)
    out = console.export_text()
    assert "package:tensorflow-gpu=(no version) (stated, line 1)" in out
    assert "python_version=3.8 (stated, line 1)" in out and "= (" not in out
