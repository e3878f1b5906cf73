"""`fix`, its progress and `ops` at 80 columns, piped (issue 29): the plan had lines of 127
columns, the verify step's progress lines 128-132 and they came only at the end, the stage lines
said "11 s in, budget 6 s, 3 s left", a quiet install showed nothing for 35 s, and the `ops`
header took 178 columns. Every line now fits 80 columns but a command (printed whole, alone on
its line, to be pasted) or a single word too long for any line (a path)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from conftest import run_tfdoctor
from support.fix_process import run_fix
from support.fix_world import FixWorld, index, shared_world

from tfdoctor.fix.index import WAIT_NOTICE_S
from tfdoctor.fix.runner import run_command

WIDTH = 80
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
FIGURES = re.compile(r"\((\d+) s in, budget (\d+) s, (\d+) s (left|over)\)$")


def too_wide(text: str) -> list[str]:
    """The lines wider than WIDTH that are neither a command (`$ ...`) nor one word alone."""
    return [line for line in text.splitlines() if len(line) > WIDTH
            and not line.strip().startswith("$ ") and " " in line.strip()]


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> FixWorld:
    return shared_world(tmp_path_factory, "fix80")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux venv recipe")
def test_fix_applied_for_real_fits_80_columns(world):
    with index(world) as served:
        broken = world.copy("broken-80")
        new = world.root / "new-80"
        run = run_fix(["fix", "--python", str(broken), "--new-env", str(new), "--yes"],
                      world.env(served.url, COLUMNS=str(WIDTH)), timeout=300)
    assert run.proc.returncode in (0, 1), run.err  # 1: the fake TensorFlow has no probes
    assert "fixed environment:" in run.out, run.out + run.err
    assert too_wide(run.out) == [] and too_wide(run.err) == [], run.out + run.err
    plan = run.out.splitlines()
    # prose wraps under its label; the install command stays whole on its own line
    changes = next(i for i, line in enumerate(plan) if line.startswith("     changes: creates"))
    undo = next(i for i, line in enumerate(plan) if i > changes and line.startswith("     undo: "))
    assert undo > changes + 1 and all(line.startswith("       ") for line in plan[changes + 1:undo]), plan
    assert " ".join(" ".join(plan[changes:undo]).split()).endswith("; the diagnosed environment is not touched")
    assert any(line.startswith("     $ ") and line.endswith(" -m pip install -- tensorflow-cpu==2.21.0 "
                                                         "'protobuf<8.0.0,>=6.31.1'") for line in plan), plan
    # the check of the result shows its stages as it goes, on stderr; its report comes after
    err = run.err.splitlines()
    verifying = next(i for i, line in enumerate(err) if line.startswith("verifying: tfdoctor check"))
    assert any(line.startswith("tfdoctor: importing TensorFlow") for line in err[verifying:]), run.err
    assert not [line for line in plan if line.startswith("tfdoctor: importing")], run.out


def test_an_in_place_plan_fits_80_columns_and_a_long_undo_stands_alone(tmp_path):
    """A plan for a snapshot (no environment needed): the undo of an in-place step is a command
    too long for `undo: ...`: it gets a `$` line of its own, as the commands do."""
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(json.dumps(json.loads((SCENARIOS / "pair_tf2180_metal110_homebrew39_venv.json")
                                              .read_text())["snapshot"]))
    shown = run_tfdoctor("fix", "--snapshot", str(snapshot), "--in-place", "--dry-run", env={"COLUMNS": str(WIDTH)})
    assert shown.code == 0, shown.stderr
    assert too_wide(shown.stdout) == [], shown.stdout
    lines = shown.stdout.splitlines()
    undo = lines.index("     undo:")
    assert lines[undo + 1] == "       $ tfdoctor fix --undo --python /Users/ada/test_tf_latest/.venv/bin/python"
    assert "     undo: -" in lines  # short ones stay on one line


@pytest.mark.slow  # a real pip install into a venv
def test_a_quiet_install_says_what_it_is_still_doing(tmp_path):
    """pip prints nothing between "Installing collected packages" and "Successfully installed"
    (35 s for TensorFlow's 31): the lines in between say it is still installing them."""
    pip = tmp_path / "pip_like.py"
    pip.write_text("import time\n"
                   "print('Installing collected packages: absl-py, numpy, protobuf, tensorflow-cpu', flush=True)\n"
                   f"time.sleep({2.5 * WAIT_NOTICE_S})\n"
                   "print('Successfully installed absl-py-2.0.0 numpy-2.1.0 protobuf-6.31.1 "
                   "tensorflow-cpu-2.21.0', flush=True)\n")
    lines: list[str] = []
    ran = run_command([sys.executable, str(pip)], lines.append, [])
    assert ran.code == 0, ran.tail
    said = [line.split("] ", 1)[1] for line in lines]
    start, end = said.index("installing 4 packages"), said.index("installed 4 packages")
    assert start < end - 1 and all(line.startswith("still installing 4 packages: nothing new for ")
                                   for line in said[start + 1:end]), lines
    assert all(len(line) <= WIDTH for line in lines), lines


@pytest.mark.tf
def test_probe_progress_fits_80_columns_and_its_figures_add_up():
    """`check` with its speed probes, piped: one line per stage within 80 columns; in the probes,
    the seconds are the probes' own, so that they and what is left make the budget."""
    from support import tfenv

    run = run_tfdoctor("check", "--python", str(tfenv.tf_python()), env={"COLUMNS": str(WIDTH)},
                       timeout=600)
    stages = run.stderr.splitlines()
    assert stages and all(line.startswith("tfdoctor: ") and len(line) <= WIDTH for line in stages), stages
    budgets = [FIGURES.search(line) for line in stages if "budget" in line]
    assert budgets and all(budgets), stages
    for found in budgets:
        spent, budget, rest, kind = int(found[1]), int(found[2]), int(found[3]), found[4]
        assert spent + rest == budget if kind == "left" else spent - rest == budget, found[0]
    assert any(line.startswith("tfdoctor: speed probe 1: ") for line in stages), stages


def test_ops_fits_80_columns():
    shown = run_tfdoctor("ops", "Einsum", "MatMul", "--plugin", "1.2.0", env={"COLUMNS": str(WIDTH)})
    assert shown.code == 1, shown.stderr  # Einsum has no GPU kernel
    assert too_wide(shown.stdout) == [], shown.stdout
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("tensorflow-metal 1.2.0 (--plugin): 174 ops with a GPU kernel")
    assert "  GPU MatMul: bfloat16, float16, float32" in lines
    einsum = next(i for i, line in enumerate(lines) if line.startswith("  CPU Einsum: no Metal GPU kernel"))
    assert lines[einsum + 1].startswith("        ")  # wrapped under its text
