"""A bug report is hostile input: whatever it holds, tfdoctor.triage reads it without a traceback,
without a reader failing, without opening, running or fetching anything it names, and without
repeating a credential or another person's home directory; and its snapshot stays valid."""

from __future__ import annotations

import builtins
import json
import os
import socket
import subprocess

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfdoctor.render.schemas import snapshot_schema
from tfdoctor.triage.evidence import is_fact_name
from tfdoctor.triage.facts import read_report
from tfdoctor.triage.layout import MAX_BYTES
from tfdoctor.triage.snapshot import to_snapshot

VALIDATOR = jsonschema.Draft202012Validator(snapshot_schema())

TOKENS = [
    "```", "~~~", "```python", "> ", ">>> ", "... ", "\n", "\r\n", "\r", "\t", " ", "`", "\x1b[31m", "\x00",
    "\ud800", "Package Version\n------- -------\n", "absl-py 1.4.0", "numpy==1.26.4", "name @ file:///x.whl",
    "-e git+https://h/x#egg=", "# packages in environment at /x:", "     platform : osx-64",
    "  - python=3.9.1=h_0", "dependencies:", "name: tf", "- pip:", "ProductVersion:", "Darwin x 22.1.0 ",
    "RELEASE_ARM64", " arm64", " x86_64", "macOS-10.16-x86_64-i386-64bit", "Linux-", "64bit",
    "machdep.cpu.brand_string: ", "VirtualApple", "Mach-O ", "universal binary", "[arm64:", "$ uname -m",
    "$ which python", "platform.machine()", "print(", "'arm64'", "Python 3.", "3.10.4", "macOS ", "Ventura",
    "M1 Max", "Intel i9", "tensorflow-macos ", "TF 2.", "2.1…", "...", "### Python version", "_No response_",
    "- Python version: ", "Collecting environment information...", "PyTorch version: ", "OS: macOS 14 (arm64)",
    "[pip3] ", "== check python ==", "tf.version.VERSION = ", "## tfdoctor 0.1.0 report",
    '{"target": {', '"schema_version": 1', "}", "[", "]", "<summary>Environment</summary>", "_Home directory",
    "/opt/homebrew/", "/usr/local/Cellar/", "/lib/python3.9/site-packages", "/Users/alice/", "miniforge3/envs/",
    "Successfully installed ", "Requirement already satisfied: ", "Downloading ", ".whl", "-cp39-cp39-macosx_11_0_arm64",
    "Metal device set to: ", "need 'arm64'", "incompatible architecture (have 'x86_64', ",
    "https://user:hunter2@example.com/simple", "ghp_" + "a" * 36,
]


def _check(text: str) -> None:
    report = read_report(text)
    assert not any("reader failed" in note for note in report.notes), report.notes
    lines = max(1, text.count("\n") + 1) if isinstance(text, str) else None
    for fact in report.facts:
        assert is_fact_name(fact.name) and fact.how in ("read", "stated", "inferred"), fact
        assert lines is None or 1 <= fact.line <= lines, fact
    for found in report.contradictions:
        assert len(found.facts) >= 2 and all(f.name == found.name for f in found.facts)
    VALIDATOR.validate(to_snapshot(report).to_dict())


@pytest.mark.slow  # 300 hypothesis reports
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS) | st.text(max_size=8), max_size=80).map("".join))
def test_pieces_of_every_format_in_any_order(text):
    _check(text)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000))
def test_any_bytes(data):
    read_report(data)
    _check(data.decode("utf-8", "replace"))


@pytest.mark.parametrize("text", [
    "```" * 200_000,
    "```\n" * 200_000,
    ">" * 500_000,
    "> ```\n" * 100_000,
    "\x00\x01\x02\x7f\x9b" * 100_000,
    "/" * 500_000,
    "Package Version\n" + "-" * 400_000,
    '```\n{"target": {"python": "x", "ok": true}, "schema_version": 1, "packages": [' + '{"name": "a"},' * 50_000 + "\n```",
    "é" * (MAX_BYTES + 10),
])
def test_extreme_texts(text):
    _check(text)


def test_a_report_past_the_bound_is_read_to_it_and_says_so():
    row = "tensorflow-macos  2.9.0\n"
    report = read_report("Package Version\n------- -------\n" + row * (3 * MAX_BYTES // len(row)))
    assert any("only the first" in note for note in report.notes)
    assert report.package_list is False  # the listing runs into the cut


def test_nothing_the_report_names_is_opened_run_or_fetched(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError(f"triage touched the outside: {args!r}")

    text = ("```\n$ cat /etc/passwd\n/Users/alice/venv/bin/python\n```\n"
            "Requirement already satisfied: x in /Users/alice/venv/lib/python3.9/site-packages (1.0)\n"
            "name @ file:///Users/alice/x-1.0-py3-none-any.whl\nsee https://example.com/x.whl\n")
    for target, name in ((builtins, "open"), (os, "open"), (os, "stat"), (os, "listdir"), (os, "system"),
                         (subprocess, "Popen"), (socket, "socket")):
        monkeypatch.setattr(target, name, refuse)
    report = read_report(text)
    to_snapshot(report)
    assert report.facts


def test_credentials_and_other_peoples_homes_are_not_repeated():
    text = ("Looking in indexes: https://user:hunter2@pypi.example.com/simple\n"
            "tool @ https://ghp_" + "a" * 36 + "@github.com/x/tool-1.0-py3-none-any.whl\n"
            "Requirement already satisfied: numpy in /Users/alice/venv/lib/python3.9/site-packages (1.26.4)\n"
            "$ which python\n/home/alice/miniforge3/bin/python\n")
    report = read_report(text)
    dumped = json.dumps([f.__dict__ for f in report.facts]) + json.dumps(to_snapshot(report).to_dict())
    assert "hunter2" not in dumped and "ghp_" not in dumped and "alice" not in dumped
    assert report.first("python_prefix").value == "/Users/<user>/venv"
