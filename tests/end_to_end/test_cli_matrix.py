"""`tfdoctor matrix`, run as a user runs it. These machines are Linux, so the recommendation for
this machine is plain tensorflow: there is no Metal pairing off macOS."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor

pytestmark = pytest.mark.slow  # a tfdoctor subprocess per test


def test_matrix_json_is_the_matrix_document():
    run = run_tfdoctor("matrix", "--json")
    assert_no_traceback(run)
    assert run.code == 0
    document = json.loads(run.stdout)  # only JSON on stdout
    assert document.pop("schema") == "tfdoctor-matrix"  # named (issue 21): `tfdoctor schema matrix`
    assert document == json.loads((REPO / "compat_matrix.json").read_text(encoding="utf-8"))
    assert "for_this_machine" not in document  # not a Mac and not asked for


def test_matrix_for_this_machine_on_linux():
    run = run_tfdoctor("matrix", "--for-this-machine", "--wide")
    assert_no_traceback(run)
    assert run.code == 0
    assert "There is no Metal pairing for Linux" in run.stdout
    assert "-m pip install -- tensorflow" in run.stdout
    assert "tensorflow[and-cuda]" in run.stdout  # text is printed literally, not as markup
    lines = run.stdout.splitlines()
    assert any(line.split()[:2] == ["2.19", "tensorflow"] and "1.2.0 works" in line for line in lines)
    row_2_18 = next(i for i, line in enumerate(lines) if line.split()[:1] == ["2.18"])
    cell = " ".join(lines[row_2_18:row_2_18 + 4])  # the tensorflow-metal cell may wrap
    assert "1.1.0 broken" in cell and "works (2.18.1)" in cell
    assert "tensorflow-macos 2.15.1 is a self-shim" in run.stdout


def test_matrix_for_this_machine_json():
    run = run_tfdoctor("matrix", "--for-this-machine", "--json")
    assert run.code == 0
    machine = json.loads(run.stdout)["for_this_machine"]
    assert machine["system"] == "Linux" and machine["metal"] is False
    assert machine["requirements"] == ["tensorflow"]
    assert machine["commands"] == [f"{machine['python']} -m pip install -- tensorflow"]


def test_table_only_text_has_no_machine_section():
    run = run_tfdoctor("matrix", "--table-only")
    assert run.code == 0 and "For this machine" not in run.stdout
    assert "2.21" in run.stdout


def test_unknown_python_is_a_usage_error():
    run = run_tfdoctor("matrix", "--python", "/no/such/python")
    assert_no_traceback(run)
    assert run.code == 2 and "no such file" in run.stderr and run.stdout == ""
