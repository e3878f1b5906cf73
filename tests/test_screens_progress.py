"""Progress for the waits (issue 21 item 4): without a terminal, one line per stage on stderr
(what runs, how far), nothing with --quiet; on a terminal the spinner line fits its width."""

from __future__ import annotations

import pytest
from conftest import run_tfdoctor
from rich.console import Console
from test_collector import make_venv

from tfdoctor.render.progress import fit, stage_progress


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
    status.update("Running the speed probes in a child process… 5 s (the probes have their own allowance)")
    status.stop()
    assert console.export_text().splitlines() == [
        "tfdoctor: importing TensorFlow in a child process (0 s in, timeout 60 s)",
        "tfdoctor: running the speed probes in a child process (5 s in, the probes have their own "
        "allowance)"]


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
    run = run_tfdoctor("probe", "--python", python, "--workload", "mnist-dense", "--budget", "5")
    stages = [line for line in run.stderr.splitlines() if line.startswith("tfdoctor: ")]
    # the first line is said at once; the quick stages (loading a preset) may pass between two
    # looks at the child (every 0.2 s); timing fills the budget and is always seen
    assert stages[0].startswith("tfdoctor: importing TensorFlow for the model probe in a child process ("), stages
    assert any(line.startswith("tfdoctor: timing the model in a child process (") for line in stages), stages
    assert all("budget 5 s" in line for line in stages)
    quiet = run_tfdoctor("probe", "--python", python, "--workload", "mnist-dense", "--budget", "5", "--quiet")
    assert not [line for line in quiet.stderr.splitlines() if line.startswith("tfdoctor: ")]
