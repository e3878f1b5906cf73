"""`tfdoctor lint` end to end: the environment comes from the flags or the diagnosed interpreter,
exit codes are 0 (nothing to say), 1 (findings or files not linted), 2 (usage), and bad input
(a missing path, a syntax error, a corrupt notebook) never gives a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor

pytestmark = pytest.mark.slow  # a tfdoctor subprocess per test

DATA = Path(__file__).parents[1] / "data" / "lint"
METAL_215 = ("--tensorflow", "2.15.0", "--keras", "2", "--plugin", "1.1.0")


def test_lint_reports_location_code_and_fix():
    run = run_tfdoctor("lint", str(DATA / "xla_on_metal_fires.py"), *METAL_215)
    assert run.code == 1
    assert "xla_on_metal_fires.py:10:57 lint.xla-on-metal error:" in run.stdout
    assert "fix: Remove `jit_compile=True`" in run.stdout
    assert_no_traceback(run)


def test_clean_script_exits_0_and_json_is_only_json():
    run = run_tfdoctor("lint", str(DATA / "xla_on_metal_ok.py"), *METAL_215, "--json")
    doc = json.loads(run.stdout)
    assert run.code == doc["exit_code"] == 0 and doc["findings"] == []
    assert doc["environment"] == {"tensorflow": "2.15.0", "keras_major": 2, "metal_plugin": "1.1.0"}


def test_bad_input_is_a_clear_result(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text("{not json")
    run = run_tfdoctor("lint", str(broken), str(notebook), *METAL_215)
    assert run.code == 1 and "syntax-error" in run.stdout and "corrupt-notebook" in run.stdout
    assert_no_traceback(run)
    missing = run_tfdoctor("lint", str(tmp_path / "nope.py"), *METAL_215)
    assert missing.code == 2 and "no such file or folder" in missing.stderr
    assert_no_traceback(missing)


def test_environment_from_the_diagnosed_interpreter_decides_which_rules_run():
    """This interpreter has no TensorFlow: the Metal rules have nothing to judge and say so."""
    run = run_tfdoctor("lint", str(DATA / "xla_on_metal_fires.py"), "--json")
    doc = json.loads(run.stdout)
    assert doc["environment"]["metal_plugin"] is None
    assert "lint.cpu-fallback-layer" in doc["skipped_rules"]


def test_explain_knows_every_lint_code():
    from tfdoctor.lint.rules import RULES

    for rule in RULES:
        run = run_tfdoctor("explain", rule.code)
        flowed = " ".join(run.stdout.split())  # wrapped between words at the console's width
        assert run.code == 0 and flowed.startswith(f"{rule.code} ({rule.severity}): {rule.title}")


def test_a_script_for_a_mac_linted_without_tensorflow_metal_says_how_to_include_its_rules():
    """Issue 21 item 10: from an environment without tensorflow-metal the Metal rules do not run;
    the output says so and names the option that lints for a Mac, which then finds jit_compile."""
    script = str(DATA / "xla_on_metal_fires.py")
    plain = run_tfdoctor("lint", script, "--tensorflow", "2.19.1", "--keras", "3")
    text = " ".join(plain.stdout.split())
    assert "lint.xla-on-metal not run" in text
    from tfdoctor.knowledge.kernels import releases

    newest = releases()[0]
    assert f"tfdoctor lint --plugin {newest} PATH..." in text
    hinted = run_tfdoctor("lint", script, "--tensorflow", "2.19.1", "--keras", "3", "--plugin", newest)
    assert hinted.code == 1 and "lint.xla-on-metal" in hinted.stdout
