"""JSON Schemas of what tfdoctor writes: derived from the model's dataclasses so they cannot
drift from the code; the shipped files in tfdoctor/schemas/ are these, written out (a test keeps
them equal)."""

from __future__ import annotations

from typing import Any

from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import SCHEMA_VERSION, Snapshot
from tfdoctor.fix import document as fix_document
from tfdoctor.gather.snapshot_files import SNAPSHOT_SCHEMA
from tfdoctor.report.diagnosis import REPORT_SCHEMA_VERSION, ReportDoc

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def snapshot_schema() -> dict[str, Any]:
    """A snapshot file (`collect`), and a snapshot as data: the file names its schema first,
    which the model does not hold (tfdoctor.gather.snapshot_files.snapshot_json)."""
    defs: dict[str, Any] = {}
    root = typed.json_schema(Snapshot, defs)
    defs["Snapshot"]["properties"] = {"schema": {"const": SNAPSHOT_SCHEMA},
                                      **defs["Snapshot"]["properties"]}
    return {"$schema": _DIALECT, "$id": SNAPSHOT_SCHEMA, "title": "tfdoctor snapshot",
            "description": f"Facts gathered by tfdoctor, schema_version {SCHEMA_VERSION}.",
            **root, "$defs": defs}


def report_schema() -> dict[str, Any]:
    """The document `tfdoctor check --json` prints."""
    defs: dict[str, Any] = {}
    root = typed.json_schema(ReportDoc, defs)
    return {"$schema": _DIALECT, "$id": "tfdoctor-report", "title": "tfdoctor check --json",
            "description": f"tfdoctor's report, schema_version {REPORT_SCHEMA_VERSION}.",
            **root, "$defs": defs}


def fix_plan_schema() -> dict[str, Any]:
    """The document `tfdoctor fix --json` prints."""
    defs: dict[str, Any] = {}
    root = typed.json_schema(fix_document.PlanDoc, defs)
    return {"$schema": _DIALECT, "$id": "tfdoctor-fix-plan", "title": "tfdoctor fix --json",
            "description": f"tfdoctor's fix plan, schema_version {fix_document.SCHEMA_VERSION}.",
            **root, "$defs": defs}


SCHEMAS = {"snapshot": snapshot_schema, "report": report_schema, "fix-plan": fix_plan_schema}


def _document_schema(tp: Any, name: str, title: str, version: str) -> Any:
    """The JSON Schema of one of tfdoctor.render.documents' documents (issue 21 item 8)."""

    def make() -> dict[str, Any]:
        defs: dict[str, Any] = {}
        root = typed.json_schema(tp, defs)
        return {"$schema": _DIALECT, "$id": f"tfdoctor-{name}", "title": title,
                "description": f"The document `{title}` prints, schema_version {version}.",
                **root, "$defs": defs}

    return make


def _documents() -> dict[str, Any]:
    import json

    from tfdoctor.knowledge.matrix import default_path
    from tfdoctor.render import documents as d

    matrix_version = json.loads(default_path().read_text(encoding="utf-8"))["schema_version"]
    v = str(d.SCHEMA_VERSION)
    return {"lint": _document_schema(d.LintDoc, "lint", "tfdoctor lint --json", v),
            "ops": _document_schema(d.OpsDoc, "ops", "tfdoctor ops --json", v),
            "list-checks": _document_schema(d.ListChecksDoc, "list-checks",
                                            "tfdoctor list-checks --json", v),
            "matrix": _document_schema(d.MatrixDoc, "matrix", "tfdoctor matrix --json",
                                       str(matrix_version)),
            "summary": _document_schema(d.SummaryDoc, "summary",
                                        "tfdoctor diagnose --summary --json", v),
            "report-batch": _document_schema(d.ReportBatchDoc, "report-batch",
                                             "tfdoctor diagnose --json (several snapshots)", v),
            "run": _document_schema(d.RunDoc, "run", "tfdoctor run --json", v),
            "explain": _document_schema(d.ExplainDoc, "explain", "tfdoctor explain --json", v),
            "probe": report_schema}


def _triage() -> dict[str, Any]:
    from tfdoctor.triage import document as t

    v = str(t.SCHEMA_VERSION)
    return {"triage": _document_schema(t.TriageDoc, "triage", "tfdoctor triage --json", v),
            "triage-batch": _document_schema(t.TriageBatchDoc, "triage-batch",
                                             "tfdoctor triage --json (several reports)", v),
            "triage-summary": _document_schema(t.TriageSummaryDoc, "triage-summary",
                                               "tfdoctor triage --summary --json", v)}


SCHEMAS.update(_documents())
SCHEMAS.update(_triage())
"""`probe --json` prints the report document (schema tfdoctor-report): `schema probe` is it."""
