"""Bad input is one line, one style, exit 2 (issue 21 item 7): `tfdoctor: error: ...` whether
tfdoctor or the command-line parser finds it, and before any work is done."""

from __future__ import annotations

import pytest
from conftest import run_tfdoctor

from tfdoctor.render.common import similar_codes

SCENARIO = "tests/scenarios/rosetta_homebrew_usr_local.json"


def one_error(*args: str) -> str:
    run = run_tfdoctor(*args)
    assert run.code == 2, (args, run.code, run.stdout, run.stderr)
    assert run.stdout == "", run.stdout  # no report, no help
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfdoctor: error: "), run.stderr
    return lines[0]


@pytest.mark.parametrize("args", [
    ("check", "--no-runtime", "--no-probes", "--log", "/nonexistent/error.txt"),
    ("collect", "-o", "-", "--no-runtime", "--log", "/nonexistent/error.txt"),
    ("diagnose", SCENARIO, "--log", "/nonexistent/error.txt"),
])
def test_missing_log_file_is_a_usage_error(args):
    assert one_error(*args) == "tfdoctor: error: --log /nonexistent/error.txt: no such file"


def test_missing_model_path_is_a_usage_error():
    line = one_error("probe", "--model", "/nonexistent/model.keras")
    assert line == "tfdoctor: error: --model /nonexistent/model.keras: no such file or folder"


def test_unknown_only_lists_every_area():
    line = one_error("check", "--only", "bogus", "--no-runtime")
    for area in ("arch", "compat", "install", "log", "model", "probe", "runtime", "target"):
        assert area in line.split("areas:", 1)[1], line


def test_unknown_explain_code_is_suggested_by_the_name_after_the_area():
    assert one_error("explain", "rosetta") == \
        "tfdoctor: error: unknown code 'rosetta'; did you mean arch.rosetta, kernel.rosetta?"
    from tfdoctor.engine.run import ENGINE_CODES
    from tfdoctor.engine.registry import load_registry

    codes = [*ENGINE_CODES, *(r.code for r in load_registry().rules)]
    assert similar_codes("sigill", codes) == ["runtime.import-sigill"]
    assert similar_codes("arch.roseta", codes)[0] == "arch.rosetta"
    assert similar_codes("qqqq", codes) == []


@pytest.mark.parametrize("args, says", [
    (("check", "--fail-on", "bogus"), "invalid value for '--fail-on'"),
    (("probe", "--no-such-option"), "no such option: --no-such-option"),
    (("nosuchcommand",), "no such command 'nosuchcommand'"),
    (("explain",), "missing argument 'code'"),
    (("check", "--timeout", "0"), "--timeout"),
    (("schema", "bogus"), "unknown schema 'bogus'"),
])
def test_every_usage_error_has_one_style(args, says):
    line = one_error(*args)
    assert says in line, line
    assert "╭" not in line and "Usage:" not in line


@pytest.mark.parametrize("args, line", [
    (("list",), "tfdoctor: error: no such command 'list'. Did you mean 'list-checks'? (see '"),
    (("check", "--fix"), ("tfdoctor: error: check has no --fix: `tfdoctor fix` plans the fix and "
                          "applies it")),
])
def test_other_tools_habits_point_to_the_command_that_does_it(args, line):
    """`list` is not taken for `lint` (difflib's nearest), and conda's `doctor --fix` habit is
    sent to `tfdoctor fix` (issue 29)."""
    assert one_error(*args).startswith(line)


@pytest.mark.slow  # tfdoctor fix subprocesses
def test_fix_is_quiet_with_q_as_every_command_is(tmp_path):
    """`fix -q`: the plan on stdout as without it, and no progress line on stderr."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "env")], check=True)
    args = ("fix", "--dry-run", "--python", str(tmp_path / "env"), "--new-env", str(tmp_path / "new"))
    loud, quiet = run_tfdoctor(*args), run_tfdoctor(args[0], "-q", *args[1:])
    assert loud.code == quiet.code == 0, quiet.stderr
    assert "importing TensorFlow" in loud.stderr  # the progress -q leaves out
    assert quiet.stderr == "" and quiet.stdout == loud.stdout
