"""Progress for the waits (issue 21 item 4): without a terminal, one line per stage on stderr
(what runs, how far), nothing with --quiet; on a terminal the spinner line fits its width."""

from __future__ import annotations

import pytest
from conftest import run_tfdoctor
from gather.test_collector import make_venv
from rich.console import Console

from tfdoctor.render.progress import fit, stage_line, stage_progress


@pytest.mark.slow  # tfdoctor check and its children in a venv
def test_one_line_per_stage_on_stderr_without_a_terminal(tmp_path):
    python, _ = make_venv(tmp_path / "env")  # the runtime child runs, finds no TensorFlow
    run = run_tfdoctor("check", "--python", str(python), "--no-probes")
    assert run.code == 1, run.stderr
    lines = run.stderr.splitlines()
    assert lines and lines[0].startswith("tfdoctor: importing TensorFlow in a child process (")
    assert "timeout 60 s" in lines[0] and " s in" in lines[0]
    assert all(line.startswith("tfdoctor: ") for line in lines)
    assert len(lines) == len(set(lines))  # a stage once, not a line per tick
    quiet = run_tfdoctor("check", "--python", str(python), "--no-probes", "--quiet")
    assert quiet.code == 1 and quiet.stderr == ""
    assert quiet.stdout == run.stdout


def test_stage_lines_follow_the_child():
    console = Console(width=80, record=True, force_terminal=False, color_system=None)
    status = stage_progress(console).status("Importing TensorFlow in a child process… 0 s (timeout 60 s)")
    status.start()
    for seconds in range(1, 4):  # the seconds alone changing prints nothing
        status.update(f"Importing TensorFlow in a child process… {seconds} s (timeout 60 s)")
    status.update("Speed probe 1: matmul 1024 on CPU:0 in a child process… 0 s (budget 6 s, 6 s left)")
    status.stop()
    # within 80 columns (issue 29): " in a child process" goes first when a line is too wide
    assert console.export_text().splitlines() == [
        "tfdoctor: importing TensorFlow in a child process (0 s in, timeout 60 s)",
        "tfdoctor: speed probe 1: matmul 1024 on CPU:0 (0 s in, budget 6 s, 6 s left)"]


def test_a_stage_too_long_for_the_line_is_cut_between_words_and_its_figures_kept():
    stage = "comparing the outputs of every layer of a very large model on the GPU with the CPU's"
    for width in (80, 60):
        line = stage_line(stage + " in a child process", "112 s in, timeout 200 s, budget 60 s", width)
        assert len(line) <= width and line.endswith("… (112 s in, timeout 200 s, budget 60 s)"), line
        assert line.startswith("tfdoctor: comparing") and " in a child" not in line


def test_the_spinner_line_fits_the_terminal():
    text = "Running the speed probes in a child process… 12 s (the probes have their own allowance)"
    assert len(text) > 77
    assert fit(text, 80) == "Running the speed probes in a child process… 12 s"
    assert len(fit(text, 40)) <= 37 and fit(text, 40).endswith("…")
    assert fit("Importing TensorFlow in a child process… 1 s (timeout 60 s)", 80).endswith("(timeout 60 s)")


@pytest.mark.tf
def test_the_model_probe_says_its_stage_and_budget():
    """Issue 21 item 4: the model probe's stages (load, ..., timing) with the budget, one line each
    without a terminal; --quiet says nothing."""
    from support import tfenv

    python = str(tfenv.tf_python())
    run = run_tfdoctor("probe", "--python", python, "--workload", "mnist-dense", "--budget", "5",
                       env={"COLUMNS": "80"})
    stages = [line for line in run.stderr.splitlines() if line.startswith("tfdoctor: ")]
    # the first line is said at once; the quick stages (loading a preset) may pass between two
    # looks at the child (every 0.2 s); timing fills the budget and is always seen
    assert stages[0].startswith("tfdoctor: importing TensorFlow for the model ("), stages
    assert any(line.startswith("tfdoctor: timing the model ") for line in stages), stages
    assert all("budget 5 s" in line and len(line) <= 80 for line in stages), stages
    quiet = run_tfdoctor("probe", "--python", python, "--workload", "mnist-dense", "--budget", "5", "--quiet")
    assert not [line for line in quiet.stderr.splitlines() if line.startswith("tfdoctor: ")]
