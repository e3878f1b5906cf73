"""80 columns (issue 21 item 3): macOS Terminal opens 80 columns wide. Tables reflow instead of
cutting figures and headers, the matrix has a compact default view (every column with --wide,
the legend first), and prose wraps between words."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import run_tfdoctor
from rich.console import Console
from rules.test_probe import facts, run

from tfdoctor.render.probes import render_probes

URL = re.compile(r"^\s*https?://\S+$")


def assert_fits(text: str, width: int = 80) -> None:
    long = [line for line in text.splitlines() if len(line) > width and not URL.match(line)]
    assert not long, "\n".join(long)
    assert "…" not in text


def probe_screen(width: int, sweep: bool = False) -> str:
    found = facts(run("matmul", "CPU:0", 4096, [169.31, 170.2, 171.0]),
                  run("matmul", "GPU:0", 4096, [12.345, 12.5, 12.9]),
                  run("conv", "CPU:0", 64, [1234.56, 1240.0, 1250.0]),
                  run("conv", "GPU:0", 64, [88.1, 89.0, 90.2]),
                  run("train", "CPU:0", 128, [2345.6, 2400.0, 2410.0]),
                  run("train", "GPU:0", 128, None, skipped="not run: the budget of 30 s was spent"),
                  workloads=("matmul", "conv", "train"))
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    with console.capture() as captured:
        render_probes(found, console, sweep)
    return captured.get()


@pytest.mark.parametrize("width", [80, 132])
@pytest.mark.parametrize("sweep", [False, True])
def test_probe_table_keeps_every_figure_and_header(width, sweep):
    screen = probe_screen(width, sweep)
    assert_fits(screen, width)
    words = screen.split()
    for figure in ("4096", "170.20", "5,079.30", "37,036.80", "70,368.00", "32.20",
                   "13.62x", "13.93x", "workload", "device", "median", "agrees", "GPU:0"):
        assert figure in words, (figure, screen)
    # the rate is the verdict's to say (issue 29), but a sweep's curve is the rate by size
    assert ("10,995.1" in words) == sweep
    # a run not measured says why below the table, with the whole width
    assert "train 128 on GPU:0: not run: the budget of 30 s was spent" in screen


def test_matrix_is_compact_at_80_columns_with_the_legend_first():
    shown = run_tfdoctor("matrix", "--table-only", env={"COLUMNS": "80"})
    assert shown.code == 0, shown.stderr
    assert_fits(shown.stdout)
    lines = shown.stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("TensorFlow on macOS arm64"))
    assert lines[0].startswith("tensorflow-metal:") and title > 0  # the legend before the table
    head = lines[title + 2].split()
    assert head == ["TF", "Python", "tensorflow-metal", "macOS"]
    assert any(line.split()[:1] == ["2.19"] and "1.2.0 works" in line for line in lines)


def test_matrix_wide_shows_every_column():
    shown = run_tfdoctor("matrix", "--table-only", "--wide")
    assert shown.code == 0, shown.stderr
    header = next(line for line in shown.stdout.splitlines() if "arm64 wheel" in line)
    for column in ("TF", "arm64 wheel", "Python", "tensorflow-metal", "macOS", "numpy", "keras"):
        assert column in header


@pytest.mark.parametrize("args", [("explain", "arch.rosetta"), ("explain", "compat.no-metal"),
                                  ("list-checks",)])
def test_prose_wraps_between_words(args):
    shown = run_tfdoctor(*args, env={"COLUMNS": "80"})
    assert shown.code == 0, shown.stderr
    assert_fits(shown.stdout)
    assert " ".join(shown.stdout.split()).count(" ") > 20


def test_lint_wraps_between_words(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\n"
                      "model.compile(optimizer=tf.keras.optimizers.Adam(), loss='mse', "
                      "jit_compile=True)\n")
    shown = run_tfdoctor("lint", str(script), "--tensorflow", "2.15.0", "--keras", "2",
                         "--plugin", "1.1.0", env={"COLUMNS": "80"})
    assert shown.code == 1, shown.stderr
    assert "linted for" in shown.stdout
    heads = [line for line in shown.stdout.splitlines() if line.startswith(str(script))]
    assert heads and all(re.fullmatch(r".*:\d+:\d+ lint\.[a-z-]+ (error|warning|info):", h) for h in heads)
    assert_fits("\n".join(line for line in shown.stdout.splitlines() if line not in heads))


def test_lint_location_stays_on_one_line_however_long_the_path(tmp_path):
    """Editors and grep read `path:line:col code severity` as a compiler's location: a deep
    folder (a CI checkout) must not break it, while the message under it still wraps."""
    deep = tmp_path.joinpath(*["a_rather_long_folder_name"] * 4)
    deep.mkdir(parents=True)
    script = deep / "train.py"
    script.write_text("model.compile(optimizer='adam', jit_compile=True)\n")
    shown = run_tfdoctor("lint", str(script), "--tensorflow", "2.15.0", "--keras", "2",
                         "--plugin", "1.1.0", env={"COLUMNS": "80"})
    assert shown.code == 1, shown.stderr
    assert f"{script}:1:45 lint.xla-on-metal error:\n" in shown.stdout
    assert_fits("\n".join(line for line in shown.stdout.splitlines() if not line.startswith(str(script))))


def _help_at_80(*args: str) -> str:
    from typer.testing import CliRunner

    from tfdoctor.cli.main import load_app

    shown = CliRunner().invoke(load_app(), [*args, "--help"], env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert shown.exit_code == 0, shown.output
    return shown.output


def test_every_help_wraps_its_prose_at_the_width_not_at_the_source_lines():
    """A docstring's paragraph is broken where the terminal ends, never in mid-sentence where
    its source line ended (`run --help`'s exit status, issue 29): the next word never fits on
    the line before it."""
    import typer

    from tfdoctor.cli.main import load_app

    text_width = 78  # 80 columns less the margin on each side
    for name in [None, *typer.main.get_command(load_app()).commands]:
        screen = _help_at_80(*([name] if name else []))
        assert_fits(screen)
        prose = screen.split("╭", 1)[0].splitlines()[3:]  # after the usage line
        for line, after in itertools.pairwise(prose):
            if line.strip() and after.strip():
                assert len(line.strip()) + 1 + len(after.split()[0]) > text_width, (name, line, after)
