"""Issue 22, class 3: terminal control sequences in untrusted text (a snapshot, a pasted log's
name or text, a linted file's name, a command's arguments, an op name) never reach the terminal:
no title change (OSC 0), clipboard write (OSC 52), hyperlink (OSC 8), reset (ESC c), cursor or
colour control (CSI), device control string (DCS), nor their 8-bit C1 forms.

Every run is the real command line with NO_COLOR, so tfdoctor itself writes no escape at all: any
ESC, BEL or C1 byte in stdout or stderr came from the hostile text."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor

from tfdoctor.sanitize.terminal import json_safe, neutralise

pytestmark = pytest.mark.slow  # tfdoctor subprocesses on every output path

SCENARIO = REPO / "tests" / "scenarios" / "pair_metal110_tf218_symbol_not_found.json"
HOSTILE = ("\x1b]52;c;SGVsbG8gY2xpcGJvYXJk\x07"      # OSC 52: write the clipboard
           "\x1b]0;pwned-title\x07"                  # OSC 0: set the window title
           "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8 hyperlink
           "\x1bc"                                   # RIS: reset the terminal
           "\x1b[2J\x1b[31m\x1b[?25l"                # CSI: clear, colour, hide the cursor
           "\x1bPq#0;2;0;0;0\x1b\\"                  # DCS (sixel)
           "\x9b2J\x9d0;c1-title\x9c")               # the 8-bit forms
BAD = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\x90")
"""Bytes tfdoctor never writes with NO_COLOR: any of them in the output is the hostile text."""
NO_COLOR = {"NO_COLOR": "1", "TERM": "xterm-256color"}


def assert_clean(run) -> None:
    assert_no_traceback(run)
    for name, text in (("stdout", run.stdout), ("stderr", run.stderr)):
        found = [repr(b) for b in BAD if b in text]
        assert not found, f"{name} holds {found}: {text[-2000:]!r}"


@pytest.mark.parametrize("text, want", [
    ("a\x1b]52;c;aGk=\x07b", "ab"),
    ("a\x1b]0;title\x07b", "ab"),
    ("a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"),
    ("a\x1bcb", "ab"),
    ("a\x1b[31mred\x1b[0m\x1b[2J\x1b[?25lb", "aredb"),
    ("x\x9b31my\x9d0;t\x9cz", "xyz"),
    ("p\x1bPq#0;2;0;0;0\x1b\\q", "pq"),
    ("tab\tnl\ncrlf\r\nbs\x08", "tab\tnl\ncrlf\nbs\ufffd"),
    ("unterminated \x1b]0;and the rest", "unterminated "),
    ("esc at the end\x1b", "esc at the end"),
    ("plain [bold] text, ünïcode ✓", "plain [bold] text, ünïcode ✓"),
])
def test_neutralise_removes_every_sequence(text, want):
    assert neutralise(text) == want


def test_json_safe_escapes_c1_and_keeps_the_document():
    text = json.dumps({"k": "a\x9b2J\x85\x7f"}, ensure_ascii=False)
    safe = json_safe(text)
    assert not any(c in safe for c in "\x9b\x85\x7f") and json.loads(safe) == json.loads(text)


def hostile_snapshot(tmp_path: Path) -> Path:
    data = copy.deepcopy(json.loads(SCENARIO.read_text())["snapshot"])
    data["python"]["executable"] = "/opt/bin/python" + HOSTILE
    data["target"]["python"] = "/opt/bin/python" + HOSTILE
    data["runtime"]["import_error"]["message"] += HOSTILE
    data["runtime"]["import_error"]["type"] += HOSTILE
    data["env"] = {"TF_CPP_MIN_LOG_LEVEL": "0" + HOSTILE}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", [[], ["-v"], ["--format", "markdown"], ["--json"]])
def test_snapshot_text_cannot_drive_the_terminal(tmp_path, fmt):
    run = run_tfdoctor("diagnose", str(hostile_snapshot(tmp_path)), *fmt, env=NO_COLOR)
    assert run.code in (0, 1), run.stderr
    assert_clean(run)
    if fmt == ["--json"]:
        json.loads(run.stdout)


def test_summary_of_several_snapshots_is_clean(tmp_path):
    one = hostile_snapshot(tmp_path)
    other = tmp_path / ("s2" + "\x1b]0;t\x07" + ".json")
    other.write_bytes(one.read_bytes())
    run = run_tfdoctor("diagnose", str(one), str(other), env=NO_COLOR)
    assert_clean(run)


def test_pasted_log_and_its_name_cannot_drive_the_terminal(tmp_path):
    log = tmp_path / ("err" + "\x1b]0;pwned\x07\x1bc\x9b2J" + ".log")
    log.write_bytes(("First error I'm having:\nAttributeError: 'Functional' object has no "
                     "attribute 'fit_generator'\n" + HOSTILE + "\n").encode("utf-8"))
    for fmt in ([], ["-v"], ["--format", "markdown"]):
        run = run_tfdoctor("check", "--no-runtime", "--log", str(log), *fmt, env=NO_COLOR)
        assert run.code in (0, 1), run.stderr
        assert_clean(run)


def test_linted_file_names_cannot_drive_the_terminal(tmp_path):
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / ("train" + "\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x9b2J" + ".py")).write_text(
        "import tensorflow as tf\nmodel.compile(jit_compile=True)\n")
    (folder / ("nb" + "\x1b]8;;http:evil.example\x1b\\" + ".ipynb")).write_text("{not json")
    run = run_tfdoctor("lint", str(folder), "--tensorflow", "2.15.0", "--keras", "2",
                       "--plugin", "1.1.0", env=NO_COLOR)
    assert run.code == 1 and "not linted" in run.stdout
    assert_clean(run)
    as_json = run_tfdoctor("lint", str(folder), "--tensorflow", "2.15.0", "--keras", "2",
                           "--plugin", "1.1.0", "--json", env=NO_COLOR)
    assert_clean(as_json)
    json.loads(as_json.stdout)


def test_usage_errors_do_not_echo_sequences(tmp_path):
    run = run_tfdoctor("lint", str(tmp_path / ("nope" + HOSTILE + ".py")), env=NO_COLOR)
    assert run.code == 2
    assert_clean(run)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_op_names_cannot_drive_the_terminal(json_flag):
    run = run_tfdoctor("ops", "--plugin", "1.1.0", "MatMul", "Evil" + HOSTILE, *json_flag, env=NO_COLOR)
    assert run.code == 2  # no such op: a usage error that names it, escaped
    assert_clean(run)


def test_run_view_shows_the_command_without_its_sequences():
    run = run_tfdoctor("run", "--", sys.executable, "-c", "pass", "arg" + HOSTILE, env=NO_COLOR,
                       timeout=180)
    assert run.code in (0, 1), run.stderr
    assert "tfdoctor run" in run.stdout
    assert_clean(run)


def test_run_json_is_clean_too():
    run = run_tfdoctor("run", "--json", "--", sys.executable, "-c", "pass", "arg" + HOSTILE,
                       env=NO_COLOR, timeout=180)
    assert_clean(run)
    assert json.loads(run.stdout)["schema"] == "tfdoctor-run"


def test_the_console_keeps_tfdoctor_s_own_colours(tmp_path):
    """With colours on (a terminal), tfdoctor's own SGR codes stay; the hostile ones go."""
    import io

    from rich.console import Console

    from tfdoctor.render.common import safe_console

    buffer = io.StringIO()
    for highlight in (False, True):  # highlighting splits the text: still no sequence survives
        console = safe_console(Console(file=buffer, force_terminal=True, color_system="standard",
                                       highlight=highlight))
        console.print("[red]mine[/] " + "x\x1b]0;pwned\x07\x1b]52;c;aGk=\x07y\x1bc\x9b2J")
        printed = buffer.getvalue()
        assert "\x1b[31mmine" in printed
        assert not any(bad in printed for bad in ("\x1b]", "\x07", "\x1bc", "\x9b"))
