"""Issue 28 class 8: what is printed is what runs. Paths, commands and names from the environment
are never read by the console as markup or emoji codes, nor reworded as tfdoctor's own prose: a
venv whose path holds `:fire:`, `[red]x[/red]`, `[tf-2-15-0]` and backslashes before a bracket
prints as itself in check, the fix plan, run, lint and triage (before: `:fire:` became 🔥, `\\[`
lost its backslash, a trailing backslash before a tag was halved, an evidence-id-like bracket was
dropped), and so does a stage word the child writes into its progress.
"""

from __future__ import annotations

import io
import itertools
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor
from rich.console import Console
from rich.text import Text

from tfdoctor.gather.child_status import ChildStatus
from tfdoctor.render.progress import stage_progress
from tfdoctor.sanitize.terminal import escape

pytestmark = pytest.mark.slow  # tfdoctor subprocesses in venvs with hostile paths

HOSTILE = "v:fire:[tf-2-15-0][red]x[/red]\\[bold]y\\"
"""One path: an emoji code, what looks like one of tfdoctor's evidence ids (reworded in its own
prose), a markup tag (its slash makes two directories), a backslashed tag and a trailing
backslash (which rich.markup.escape halves when a tag follows)."""
WIDE = {"COLUMNS": "4000"}
"""No wrapping: a path is looked for on one line."""


@pytest.fixture(scope="module")
def hostile_venv(tmp_path_factory) -> Path:
    """A venv (no pip) whose directory is HOSTILE; venv refuses to create one at a path with a
    colon, so it is made elsewhere and moved there (its interpreter is a symlink to the base)."""
    root = tmp_path_factory.mktemp("console")
    plain = root / "plain"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(plain)], check=True, timeout=120)
    target = root / HOSTILE
    target.parent.mkdir(parents=True)
    plain.rename(target)
    return target


def printed_as_is(text: str, value: str) -> None:
    assert value in text, text
    assert "🔥" not in text, text


def test_escaped_text_prints_as_itself_wherever_it_is_put():
    """Every string of these pieces, escaped and put in a line of tfdoctor's markup, prints as
    itself through a console and through Text.from_markup (what the wrapped prose uses)."""
    pieces = ["\\", "[", "]", "a", "/", "red", ":fire:", "[/]", "=", "[/none]"]
    for size in range(1, 5):
        for combo in itertools.product(pieces, repeat=size):
            value = "".join(combo)
            for line, shown in (("[dim]{}[/] end", "{} end"), ("{}[bold]x[/bold]", "{}x"), ("{}{}", "{}{}")):
                markup, expected = line.format(escape(value), escape(value)), shown.format(value, value)
                screen = io.StringIO()
                Console(file=screen, emoji=False, highlight=False, width=500,
                        color_system=None).print(markup, soft_wrap=True)
                assert screen.getvalue() == expected + "\n", (value, line)
                assert Text.from_markup(markup, emoji=False).plain == expected, (value, line)


def test_check_prints_the_venv_path_as_it_is(hostile_venv):
    python = str(hostile_venv / "bin" / "python")
    run = run_tfdoctor("check", "--python", python, "--no-runtime", "-v", env=WIDE)
    assert_no_traceback(run)
    printed_as_is(run.stdout, f"· {python}: Python")  # the header
    printed_as_is(run.stdout, f"$ {shlex.quote(python)} -m pip install")  # a command to paste


def test_the_fix_plan_prints_the_paths_it_runs(hostile_venv):
    python = str(hostile_venv / "bin" / "python")
    run = run_tfdoctor("fix", "--dry-run", "--python", python, env=WIDE)
    assert_no_traceback(run)
    printed_as_is(run.stdout, f"tfdoctor fix plan for {python}")
    printed_as_is(run.stdout, f"$ {shlex.quote(python)} -m venv {shlex.quote(str(hostile_venv) + '-fixed')}")


def test_run_prints_the_command_as_it_ran(hostile_venv):
    python = str(hostile_venv / "bin" / "python")
    argv = [python, "-c", "print('ran')"]
    run = run_tfdoctor("run", "--", *argv, env=WIDE)
    assert_no_traceback(run)
    printed_as_is(run.stdout, f"tfdoctor run {shlex.join(argv)}\n")  # pasted into a shell, it runs
    printed_as_is(run.stdout, f"· {python}: Python")


def test_lint_prints_the_file_name_as_it_is(tmp_path):
    folder = tmp_path / HOSTILE
    folder.mkdir(parents=True)
    (folder / "train.py").write_text("import tensorflow as tf\nmodel.compile(jit_compile=True)\n")
    run = run_tfdoctor("lint", str(folder), "--tensorflow", "2.15.0", "--keras", "2", "--plugin", "1.1.0",
                       env=WIDE)
    assert_no_traceback(run)
    printed_as_is(run.stdout, f"{folder / 'train.py'}:2:")


def test_triage_prints_the_reporters_paths_as_they_are(tmp_path):
    prefix = f"/opt/conda/envs/{HOSTILE}"
    report = tmp_path / "report.txt"
    report.write_text(f"# packages in environment at {prefix}:\n#\n# Name Version Build Channel\n"
                      "tensorflow 2.15.0 pypi_0 pypi\npython 3.11.7 h1 conda-forge\n")
    run = run_tfdoctor("triage", str(report), env=WIDE)
    assert_no_traceback(run)
    printed_as_is(run.stdout, f"conda_prefix={prefix} (read, line 1)")


def test_a_stage_the_child_writes_is_shown_as_it_is(tmp_path):
    """The progress line quotes the stage word from the child's result file: never markup."""
    stage = "[red]x[/red] \\[b] :fire: y\\"
    result = tmp_path / "result.json"
    result.write_text(json.dumps({"stage": stage}))
    screen = Console(width=400, record=True, force_terminal=False, color_system=None)
    status = ChildStatus(stage_progress(screen), lambda seen, _doc: f"the model probe's {seen}",
                         lambda _seen, _doc, elapsed: (elapsed, "timeout 9 s"))
    status.tick(result, 3.0)
    status.stop()
    assert f"the model probe's {stage} in a child process (3 s in, timeout 9 s)" in screen.export_text()
