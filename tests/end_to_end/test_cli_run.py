"""`tfdoctor run -- CMD` and `--log` end to end: the command's output passes through, its exit
status and tfdoctor's own are what the help documents, and an error text is diagnosed with the
environment's facts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor

pytestmark = pytest.mark.slow  # a tfdoctor subprocess per test

LOGS = Path(__file__).parents[1] / "data" / "logs"


def test_run_passes_output_through_and_reports_how_it_ended(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("print('epoch 1/1 done')\nraise SystemExit(3)\n")
    run = run_tfdoctor("run", "--", sys.executable, str(script))
    assert run.code == 1, run.stdout + run.stderr  # the command failed
    assert "epoch 1/1 done" in run.stdout and "exited with status 3" in run.stdout
    assert_no_traceback(run)


def test_run_json_keeps_the_commands_output_off_stdout(tmp_path):
    script = tmp_path / "ok.py"
    script.write_text("print('hello')\n")
    run = run_tfdoctor("run", "--json", "--", sys.executable, str(script))
    doc = json.loads(run.stdout)
    assert doc["schema"] == "tfdoctor-run" and doc["run"]["outcome"] == "exited"
    assert doc["run"]["returncode"] == 0 and "hello" in run.stderr
    assert doc["report"]["snapshot"]["run"]["returncode"] == 0


def test_a_command_that_does_not_exist_is_a_usage_error():
    run = run_tfdoctor("run", "--", "no-such-command-tfdoctor")
    assert run.code == 2 and "cannot run no-such-command-tfdoctor" in run.stderr
    assert_no_traceback(run)


def test_check_log_diagnoses_a_pasted_error_with_the_environment():
    """XLA's real message (NVlabs/sionna#78) on a machine without Metal: recognised and explained."""
    text = next(p for p in LOGS.iterdir() if "xla" in p.name)
    run = run_tfdoctor("check", "--no-runtime", "--no-probes", "--log", str(text), "--json")
    doc = json.loads(run.stdout)
    codes = {f["code"] for f in doc["findings"]}
    assert "log.xla-no-metal" in codes, codes
    assert doc["snapshot"]["log"]["matches"][0]["code"] == "log.xla-no-metal"


def test_log_from_standard_input_and_bad_logs(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    run = run_tfdoctor("check", "--no-runtime", "--no-probes", "--log", str(empty))
    assert run.code in (0, 1) and "log.unreadable" in run.stdout
    assert_no_traceback(run)
    missing = run_tfdoctor("check", "--no-runtime", "--no-probes", "--log", str(tmp_path / "nope.txt"))
    assert missing.code == 2 and missing.stdout == ""  # a usage error (issue 21), not a report
    assert missing.stderr == f"tfdoctor: error: --log {tmp_path / 'nope.txt'}: no such file\n"
    assert_no_traceback(missing)
