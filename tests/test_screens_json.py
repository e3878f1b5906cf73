"""Every --json document names its schema (issue 21 item 8): `schema` and `schema_version` in
the document, and `tfdoctor schema NAME` prints the JSON Schema the real output validates
against."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import run_tfdoctor

from tfdoctor.render.schemas import SCHEMAS

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = [str(REPO / "tests" / "scenarios" / n) for n in
             ("rosetta_homebrew_usr_local.json", "metal_without_tensorflow.json")]


def schema_of(name: str) -> dict:
    run = run_tfdoctor("schema", name)
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def validated(name: str, *args: str, codes=(0, 1)) -> dict:
    run = run_tfdoctor(*args)
    assert run.code in codes, (args, run.stdout, run.stderr)
    document = json.loads(run.stdout)
    schema = schema_of(name)
    jsonschema.validate(document, schema)
    root = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    assert document["schema"] == root["properties"]["schema"]["const"]
    assert {"schema", "schema_version"} <= set(root["required"])
    assert isinstance(document["schema_version"], int)
    assert list(document)[:2] == ["schema", "schema_version"]  # said first
    return document


def test_lint_json(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nmodel.compile(optimizer='adam', jit_compile=True)\n")
    (tmp_path / "bad.py").write_text("def (:\n")
    doc = validated("lint", "lint", "--json", str(script), str(tmp_path / "bad.py"))
    assert doc["schema"] == "tfdoctor-lint" and doc["problems"]


def test_ops_json():
    doc = validated("ops", "ops", "--json", "--plugin", "1.2.0", "MatMul", "Unique")
    assert doc["schema"] == "tfdoctor-ops" and doc["ops"]


def test_list_checks_json():
    assert validated("list-checks", "list-checks", "--json")["schema"] == "tfdoctor-list-checks"


@pytest.mark.parametrize("machine", ["--for-this-machine", "--table-only"])
def test_matrix_json(machine):
    doc = validated("matrix", "matrix", "--json", machine)
    assert doc["schema"] == "tfdoctor-matrix"
    assert ("for_this_machine" in doc) == (machine == "--for-this-machine")


def test_diagnose_summary_json():
    doc = validated("summary", "diagnose", "--summary", "--json", *SCENARIOS)
    assert doc["schema"] == "tfdoctor-summary" and len(doc["snapshots"]) == 2


def test_probe_json_is_the_report(tmp_path):
    from test_collector import make_venv

    python, _ = make_venv(tmp_path / "env")  # no TensorFlow: the probe says so, as a report
    doc = validated("probe", "probe", "--json", "--python", str(python), "--budget", "5")
    assert doc["schema"] == "tfdoctor-report"


def test_every_schema_is_listed_and_shipped():
    for name in ("lint", "ops", "list-checks", "matrix", "summary", "probe", "report", "snapshot"):
        assert name in SCHEMAS
        shipped = REPO / "tfdoctor" / "schemas" / f"{name}.schema.json"
        assert json.loads(shipped.read_text()) == SCHEMAS[name](), name


def test_summary_as_markdown():
    run = run_tfdoctor("diagnose", "--summary", "--format", "markdown", *SCENARIOS)
    assert run.code == 1, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "## tfdoctor summary of 2 snapshots"
    assert "| | snapshot | diagnosis | problems | exit |" in lines
    assert any(line.startswith("| ✗ | `") and "`arch.x86-only-interpreter`" in line for line in lines)
    assert "[✗]" not in run.stdout  # not the text view
