"""Every JSON document tfdoctor prints is one object naming its schema (issue 21 item 8, issue
29): `schema` and `schema_version` first, and `tfdoctor schema NAME` prints the JSON Schema the
real output validates against. The commands that print JSON are found in the typer app itself,
so a new one fails here until it has an invocation below."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import jsonschema
import pytest
import typer
from conftest import run_tfdoctor

from tfdoctor.cli.main import load_app
from tfdoctor.render.schemas import SCHEMAS

pytestmark = pytest.mark.slow  # a tfdoctor subprocess for every JSON document

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = [str(REPO / "tests" / "scenarios" / n) for n in
             ("rosetta_homebrew_usr_local.json", "metal_without_tensorflow.json")]
REPORTS = REPO / "tests" / "data" / "triage"


@functools.cache
def schema_of(name: str) -> dict:
    """What `tfdoctor schema NAME` prints."""
    run = run_tfdoctor("schema", name)
    assert run.code == 0, run.stderr
    return json.loads(run.stdout)


def named_schema(document: dict) -> str:
    """The `tfdoctor schema` name whose JSON Schema's root fixes `schema` to what `document`
    names."""
    for name, make in SCHEMAS.items():
        schema = make()
        root = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]
        if root["properties"].get("schema", {}).get("const") == document.get("schema"):
            return name
    raise AssertionError(f"no schema named {document.get('schema')!r}")


def validated(name: str, *args: str, codes=(0, 1)) -> dict:
    run = run_tfdoctor(*args)
    assert run.code in codes, (args, run.stdout, run.stderr)
    document = json.loads(run.stdout)
    assert isinstance(document, dict), args  # one object, never a bare list
    schema = schema_of(name)
    assert schema_of(named_schema(document)) == schema  # the schema it names is this one
    jsonschema.validate(document, schema)
    assert isinstance(document["schema_version"], int)
    assert list(document)[:2] == ["schema", "schema_version"]  # said first
    return document


def commands_printing_json() -> list[str]:
    """Every command of the app with a --json flag or a --format that offers json."""
    found = []
    for name, command in typer.main.get_command(load_app()).commands.items():
        if any("--json" in p.opts or ("--format" in p.opts and "json" in getattr(p.type, "choices", ()))
               for p in command.params):
            found.append(name)
    return sorted(found)


def _invocations(tmp: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """(schema name, arguments) of each way a command prints JSON."""
    from tfdoctor.lint.rules import RULES

    script = tmp / "train.py"
    script.write_text("import tensorflow as tf\nmodel.compile(optimizer='adam', jit_compile=True)\n")
    (tmp / "reports").mkdir()
    for report in sorted(REPORTS.glob("*.md"))[:2]:
        (tmp / "reports" / report.name).write_bytes(report.read_bytes())
    one_report = str(next(iter(sorted((tmp / "reports").iterdir()))))
    here = ["--python", sys.executable]
    return {
        "check": [("report", ["check", "--json", "--no-runtime", *here]),
                  ("report", ["check", "--format", "json", "--no-runtime", *here])],
        "collect": [("snapshot", ["collect", "--no-runtime", "-o", "-", *here])],
        "diagnose": [("report", ["diagnose", "--json", SCENARIOS[0]]),
                     ("report-batch", ["diagnose", "--json", *SCENARIOS]),
                     ("summary", ["diagnose", "--summary", "--json", *SCENARIOS])],
        "probe": [("probe", ["probe", "--json", "--budget", "5", *here])],
        "lint": [("lint", ["lint", "--json", str(script), *here])],
        "ops": [("ops", ["ops", "--json", "--plugin", "1.2.0", "MatMul", "Unique"])],
        "run": [("run", ["run", "--json", "--", sys.executable, str(script)])],
        "triage": [("triage", ["triage", "--json", one_report]),
                   ("triage-batch", ["triage", "--json", str(tmp / "reports")]),
                   ("triage-summary", ["triage", "--summary", "--json", str(tmp / "reports")])],
        "list-checks": [("list-checks", ["list-checks", "--json"])],
        "explain": [("explain", ["explain", "--json", "arch.rosetta"]),
                    ("explain", ["explain", "--json", RULES[0].code])],
        "matrix": [("matrix", ["matrix", "--json", "--table-only"])],
        "fix": [("fix-plan", ["fix", "--json", "--snapshot", SCENARIOS[0]])],
    }


def test_the_commands_printing_json_are_those_invoked_here(tmp_path):
    """Both ways: a command that prints JSON has invocations below, and a command invoked below
    for its JSON offers it (explain had no --json, issue 29)."""
    assert set(_invocations(tmp_path)) == set(commands_printing_json())


@pytest.mark.parametrize("command", commands_printing_json())
def test_every_json_document_names_its_schema_and_validates(command, tmp_path):
    invocations = _invocations(tmp_path)
    assert command in invocations, f"`tfdoctor {command}` prints JSON: add its invocations to _invocations"
    for name, args in invocations[command]:
        validated(name, *args)


def test_lint_json(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import tensorflow as tf\nmodel.compile(optimizer='adam', jit_compile=True)\n")
    (tmp_path / "bad.py").write_text("def (:\n")
    doc = validated("lint", "lint", "--json", str(script), str(tmp_path / "bad.py"))
    assert doc["schema"] == "tfdoctor-lint" and doc["problems"]


def test_ops_json():
    doc = validated("ops", "ops", "--json", "--plugin", "1.2.0", "MatMul", "Unique")
    assert doc["schema"] == "tfdoctor-ops" and doc["ops"]


@pytest.mark.parametrize("machine", ["--for-this-machine", "--table-only"])
def test_matrix_json(machine):
    doc = validated("matrix", "matrix", "--json", machine)
    assert doc["schema"] == "tfdoctor-matrix"
    assert ("for_this_machine" in doc) == (machine == "--for-this-machine")


def test_every_schema_is_listed_and_shipped():
    for name in ("lint", "ops", "list-checks", "matrix", "summary", "probe", "report", "snapshot",
                 "run", "report-batch", "explain"):
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


def test_schema_help_names_every_schema():
    import re

    from typer.testing import CliRunner

    shown = CliRunner().invoke(load_app(), ["schema", "--help"], env={"COLUMNS": "200"})
    said = " ".join(shown.output.replace("│", " ").split())
    for name in SCHEMAS:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", said), name
