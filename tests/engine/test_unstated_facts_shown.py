"""A report states some facts and not others: what it left out is shown as not stated, never as
Python's None or a bare '?', in every finding the engine makes (titles and remediations)."""

from __future__ import annotations

import re

import pytest
from log_cases import LOGS, WHO
from snapshots import snap

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import PackageFacts
from tfdoctor.logtext import keep

_UNSHOWN = re.compile(r"\bNone\b|(?<![\w(])\?(?![\w)])")


def _report(packages: list[dict]) -> dict:
    """A snapshot written from a report: a Mac with Apple silicon, no Python or macOS version."""
    return {"schema_version": 1, "target": {"python": "python3", "ok": True},
            "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"},
            "packages": packages, "unknown": ["packages"]}


def test_a_package_without_a_version_is_labelled_as_not_stated():
    assert PackageFacts("tensorflow", None).label == "tensorflow (version not stated)"
    assert PackageFacts("tensorflow", "2.16.1").label == "tensorflow 2.16.1"


@pytest.mark.parametrize("log", ["arch_wrong_architecture.txt", "pip_tensorflow_none_macos11.txt",
                                 "said_tensorflow_no_gpu.txt", "poetry_no_candidates_tensorflow.txt",
                                 "keras3_save_extension.txt", "pip_tensorflow_241_versions.txt",
                                 "probability_needs_tensorflow.txt", "pip_conflict_basic_pitch.txt"])
def test_no_finding_shows_an_unstated_fact_as_none(log):
    s = snap(_report([{"name": "tensorflow", "version": ""}, {"name": "tensorflow-metal", "version": ""}]))
    s.log = keep.read(LOGS / log, identity=WHO)
    shown = [(f.code, text) for f in diagnose(s).findings for text in (f.title, f.remediation.text if f.remediation else "")]
    assert [(code, text) for code, text in shown if _UNSHOWN.search(text)] == []


def test_the_header_says_an_architecture_not_stated():
    from tfdoctor.render.common import target_line

    data = _report([{"name": "tensorflow", "version": "1.0.1"}])
    data["python"] = {"version": "2.7.1", "implementation": "cpython", "executable": "python"}
    line = target_line(diagnose(snap(data)))
    assert line == "python3: Python 2.7.1 (architecture not stated), Darwin, Apple M1"
