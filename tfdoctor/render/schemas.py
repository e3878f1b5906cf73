"""JSON Schemas of what tfdoctor writes: derived from the model's dataclasses so they cannot
drift from the code; the shipped files in tfdoctor/schemas/ are these, written out (a test keeps
them equal)."""

from __future__ import annotations

from typing import Any

from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import SCHEMA_VERSION, Snapshot
from tfdoctor.report.diagnosis import REPORT_SCHEMA_VERSION, ReportDoc

_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def snapshot_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    root = typed.json_schema(Snapshot, defs)
    return {"$schema": _DIALECT, "$id": "tfdoctor-snapshot", "title": "tfdoctor snapshot",
            "description": f"Facts gathered by tfdoctor, schema_version {SCHEMA_VERSION}.",
            **root, "$defs": defs}


def report_schema() -> dict[str, Any]:
    """The document `tfdoctor check --json` prints."""
    defs: dict[str, Any] = {}
    root = typed.json_schema(ReportDoc, defs)
    return {"$schema": _DIALECT, "$id": "tfdoctor-report", "title": "tfdoctor check --json",
            "description": f"tfdoctor's report, schema_version {REPORT_SCHEMA_VERSION}.",
            **root, "$defs": defs}


SCHEMAS = {"snapshot": snapshot_schema, "report": report_schema}
