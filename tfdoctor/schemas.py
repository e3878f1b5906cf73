"""JSON Schemas of what tfdoctor writes: derived from the model's dataclasses so they cannot
drift from the code; the shipped files in tfdoctor/schemas/ are these, written out (a test keeps
them equal)."""

from __future__ import annotations

from typing import Any

from tfdoctor import typed
from tfdoctor.report import REPORT_SCHEMA_VERSION
from tfdoctor.snapshot import SCHEMA_VERSION, Snapshot

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_SEVERITY = {"enum": ["ok", "info", "warning", "error"]}
_STRINGS = {"type": "array", "items": {"type": "string"}}


def snapshot_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    root = typed.json_schema(Snapshot, defs)
    return {"$schema": _DIALECT, "$id": "tfdoctor-snapshot", "title": "tfdoctor snapshot",
            "description": f"Facts gathered by tfdoctor, schema_version {SCHEMA_VERSION}.",
            **root, "$defs": defs}


def report_schema() -> dict[str, Any]:
    """The document `tfdoctor check --json` prints."""
    snapshot = snapshot_schema()
    remediation = {"anyOf": [{"type": "null"}, {
        "type": "object", "required": ["text", "commands", "link"],
        "properties": {"text": {"type": "string"}, "commands": _STRINGS,
                       "link": {"type": ["string", "null"]}}}]}
    finding = {
        "type": "object",
        "required": ["code", "severity", "title", "detail", "evidence", "remediation", "explains", "check"],
        "properties": {
            "code": {"type": "string", "pattern": r"^[a-z0-9][a-z0-9.\-]*$"},
            "severity": _SEVERITY, "title": {"type": "string"}, "detail": {"type": "string"},
            "evidence": {"type": "object"}, "remediation": remediation,
            "explains": _STRINGS, "explained_by": _STRINGS, "check": {"type": "string"},
        },
    }
    return {
        "$schema": _DIALECT, "$id": "tfdoctor-report", "title": "tfdoctor check --json",
        "type": "object",
        "required": ["schema", "schema_version", "tfdoctor_version", "exit_code", "fail_on",
                     "counts", "diagnosis", "root_causes", "areas", "findings", "snapshot"],
        "properties": {
            "schema": {"const": "tfdoctor-report"},
            "schema_version": {"const": REPORT_SCHEMA_VERSION},
            "tfdoctor_version": {"type": "string"},
            "exit_code": {"enum": [0, 1]},
            "fail_on": _SEVERITY,
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "diagnosis": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/Finding"}]},
            "root_causes": _STRINGS,
            "areas": {"type": "array", "items": {
                "type": "object", "required": ["check", "area", "severity", "headline"],
                "properties": {"check": {"type": "string"}, "area": {"type": "string"},
                               "severity": _SEVERITY, "headline": {"type": "string"}}}},
            "findings": {"type": "array", "items": {"$ref": "#/$defs/Finding"}},
            "snapshot": {"$ref": "#/$defs/Snapshot"},
        },
        "$defs": {**snapshot["$defs"], "Finding": finding},
    }


SCHEMAS = {"snapshot": snapshot_schema, "report": report_schema}
