"""Say it once (issue 21 item 6, issue 29): the diagnosis is not repeated in its area line,
`explains` names each present code once, internal tokens (evidence ids, rows of Apple's table as
the matrix keeps them) become words, a model probe's CPU-fallback ops and errors are listed by
their findings only, and `probe` states each rate once."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import run_tfdoctor
from rich.console import Console
from support import tfenv

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.engine.registry import load_registry
from tfdoctor.gather.snapshot_files import read_snapshot
from tfdoctor.model import Severity
from tfdoctor.render.common import in_words, without_block
from tfdoctor.render.text import render_text

SCENARIOS = Path(__file__).parents[1] / "scenarios"
ROSETTA = SCENARIOS / "rosetta_homebrew_usr_local.json"


def test_the_diagnosis_is_said_once():
    run = run_tfdoctor("diagnose", str(ROSETTA), env={"COLUMNS": "200"})
    flowed = " ".join(run.stdout.split())
    assert flowed.count("The Python binary is x86_64 only") == 1
    assert "[✗] Python architecture: the diagnosis above (arch.x86-only-interpreter)" in flowed
    markdown = run_tfdoctor("diagnose", str(ROSETTA), "--format", "markdown").stdout
    assert markdown.count("The Python binary is x86\\_64 only") == 2  # the diagnosis, the findings
    assert "| ✗ | Python architecture | the diagnosis above |" in markdown


def test_explains_names_each_present_code_once():
    snapshot = read_snapshot(str(ROSETTA))
    report = diagnose(snapshot, load_registry())
    sigill = next(f for f in report.findings if f.code == "runtime.import-sigill")
    report.findings.append(replace(sigill, title="the same symptom, found twice"))
    console = Console(width=200, record=True, color_system=None)
    with console.capture() as captured:
        render_text(report, console, False, Severity.ERROR)
    explains = next(line for line in captured.get().splitlines() if "explains:" in line)
    assert explains.split("explains:")[1].split(", ") == [" arch.rosetta", "runtime.import-sigill"]


@pytest.mark.slow  # tfdoctor subprocesses on several scenarios
def test_internal_tokens_become_words():
    run = run_tfdoctor("diagnose", "-v", *map(str, sorted(SCENARIOS.glob("*.json"))),
                       env={"COLUMNS": "400"})
    assert run.code in (0, 1), run.stderr
    rows = re.findall(r"\|\s*v\d[^|]*\|[^|]*\|", run.stdout)  # |v2.14-v2.18|v1.1.0|
    assert not rows, rows[:3]
    ids = re.findall(r"\[[a-z0-9][a-z0-9._]*(?:-[a-z0-9._]+){2,}\]", run.stdout)
    assert not ids, ids[:3]
    assert "(TensorFlow 2.14-2.18, tensorflow-metal 1.1.0, macOS 12.1+)" in run.stdout
    assert in_words("with TensorFlow 2.18.1 and 2.19 [metal-1.2.0-works-on-tf-2.18.1-and-2.19])") \
        == "with TensorFlow 2.18.1 and 2.19)"
    assert in_words("(|v2.5 |v0.1.2|12.0+|Pluggable device        |)") == \
        "(TensorFlow 2.5, tensorflow-metal 0.1.2, macOS 12.0+: Pluggable device)"


def test_cpu_fallback_ops_are_listed_by_the_finding_only():
    summary = ("lstm: Functional (functional), 5 layers\n"
               "CPU fallback (predicted for tensorflow-metal 1.2.0): 2 op types: AddN, TensorListStack\n"
               "  AddN: lstm\n  TensorListStack: lstm\n"
               "inference: /CPU:0 2.57 ms (first call 100 ms)")
    assert without_block(summary, "CPU fallback (") == (
        "lstm: Functional (functional), 5 layers\ninference: /CPU:0 2.57 ms (first call 100 ms)")


@pytest.mark.tf
def test_probe_says_its_rate_once():
    """The table showed the GFLOP/s the verdict then said again (issue 29): the verdict says it,
    next to the chip's peak where the chip is known."""
    run = run_tfdoctor("probe", "--python", str(tfenv.tf_python()), "--workload", "matmul",
                       "--size", "256", "--budget", "5", "-q", env={"COLUMNS": "80"})
    assert run.code in (0, 1), run.stderr
    assert "median" in run.stdout and run.stdout.count("GFLOP/s") == 1, run.stdout


@pytest.mark.tf
def test_a_script_given_as_the_model_is_said_once_and_not_prescribed_again(tmp_path):
    """`probe --model train.py` printed its error twice and prescribed the very command that had
    failed (issue 29): the finding says it, and prescribes running the script under tfdoctor."""
    python = tfenv.tf_python()
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nraise SystemExit('no model saved')\n")
    run = run_tfdoctor("probe", "--python", str(python), "--model", str(script), "-q",
                       env={"COLUMNS": "400"})
    assert run.code == 1, run.stderr
    assert run.stdout.count("is not a Keras model file") == 1, run.stdout
    assert "tfdoctor probe" not in run.stdout
    assert f"$ tfdoctor run -- {python} {script}" in run.stdout
    assert run.stderr == ""  # -q: not even the "probing ..." line
