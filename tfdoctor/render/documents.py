"""The --json documents of the commands other than `check` (issue 21 item 8), as dataclasses:
each document names its schema (`schema`, `schema_version`), and tfdoctor.render.schemas derives
the JSON Schema `tfdoctor schema NAME` prints from these, so the two cannot drift. `probe --json`
prints the report document (schema tfdoctor-report) and `fix --json` the fix plan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

from tfdoctor.engine.registry import LoadFailure
from tfdoctor.facts.run import RunFacts
from tfdoctor.lint.results import FileProblem
from tfdoctor.lint.results import Finding as LintFinding
from tfdoctor.model import FixAnswer
from tfdoctor.report.diagnosis import ReportDoc

SCHEMA_VERSION = 1
"""Of the lint, ops, list-checks, summary, run, report-batch and explain documents; the matrix
document carries its own (the bundled compat_matrix.json's schema_version)."""


def named(schema: str, document: dict, version: int = SCHEMA_VERSION) -> dict:
    """`document` with its schema's name and version first."""
    rest = {k: v for k, v in document.items() if k not in ("schema", "schema_version")}
    return {"schema": schema, "schema_version": version, **rest}


# --- tfdoctor lint --json ---------------------------------------------------------------------


@dataclass
class LintEnvironment:
    tensorflow: Optional[str]
    keras_major: Optional[int]
    metal_plugin: Optional[str]


@dataclass
class LintDoc:
    schema: Literal["tfdoctor-lint"]
    schema_version: int
    environment: LintEnvironment
    exit_code: int
    files: int
    findings: list[LintFinding]
    problems: list[FileProblem]
    skipped_rules: dict[str, str]


# --- tfdoctor ops --json ----------------------------------------------------------------------


@dataclass
class OpRow:
    op: str
    """The op as TensorFlow spells it."""
    asked: Optional[str]
    """What the user typed, where it differs from `op` (`matmul` for MatMul); else null."""
    gpu_kernel: bool
    dtypes: list[str]
    host_memory: list[str]


@dataclass
class OpsDoc:
    schema: Literal["tfdoctor-ops"]
    schema_version: int
    tensorflow_metal: str
    chosen: str
    wheel: str
    method: str
    read_on: str
    ops: list[OpRow]
    without_gpu_kernel: list[str]
    installed: Optional[str]
    covered: bool


# --- tfdoctor list-checks --json --------------------------------------------------------------


@dataclass
class ListedRule:
    code: str
    severity: Literal["ok", "info", "warning", "error"]
    title: str
    module: Optional[str]


@dataclass
class ListedArea:
    name: str
    area: str
    summary: str
    codes: list[str]
    rules: list[ListedRule]


@dataclass
class ListChecksDoc:
    schema: Literal["tfdoctor-list-checks"]
    schema_version: int
    checks: list[ListedArea]
    load_failures: list[LoadFailure]


# --- tfdoctor diagnose --summary --json -------------------------------------------------------


@dataclass
class SummaryRow:
    file: str
    exit_code: int
    severity: Literal["ok", "info", "warning", "error"]
    diagnosis: Optional[str]
    problems: list[str]


@dataclass
class SummaryDoc:
    schema: Literal["tfdoctor-summary"]
    schema_version: int
    snapshots: list[SummaryRow]
    finding_counts: dict[str, int]


# --- tfdoctor matrix --json -------------------------------------------------------------------


@dataclass
class MachineRecommendation:
    """tfdoctor.advice.installs.machine_recommendation: the install, or why none was found."""

    python: Optional[str]
    error: Optional[str] = None
    python_version: Optional[str] = None
    system: Optional[str] = None
    process_arch: Optional[str] = None
    translated: Optional[bool] = None
    macos: Optional[str] = None
    chip: Optional[str] = None
    notes: Optional[list[str]] = None
    arch: Optional[str] = None
    metal: Optional[bool] = None
    requirements: Optional[list[str]] = None
    status: Optional[str] = None
    sources: Optional[list[Any]] = None
    cpu_only: Optional[list[str]] = None
    reason: Optional[str] = None
    commands: Optional[list[str]] = None


@dataclass
class MatrixDoc:
    """The bundled compat_matrix.json, and the install recommended for the diagnosed
    interpreter when it was asked for; the tables themselves are described in the file."""

    schema: Literal["tfdoctor-matrix"]
    schema_version: int
    facts_read: str
    about: str
    sources: list[Any]
    tensorflow: dict[str, Any]
    tensorflow_metal: dict[str, Any]
    recommended: dict[str, Any]
    apple_table: Optional[dict[str, Any]] = None
    runtime_evidence: Optional[list[Any]] = None
    known_quirks: Optional[list[Any]] = None
    metal_kernels: Optional[dict[str, Any]] = None
    keras_packages: Optional[dict[str, Any]] = None
    metal_plugins: Optional[dict[str, Any]] = None
    metal_load_check: Optional[dict[str, Any]] = None
    for_this_machine: Optional[MachineRecommendation] = None


# --- tfdoctor run --json ----------------------------------------------------------------------


@dataclass
class RunLint:
    """The lint of the scripts the command ran (tfdoctor.lint.results.LintResult.to_dict)."""

    files: int
    findings: list[LintFinding]
    problems: list[FileProblem]
    skipped_rules: dict[str, str]


@dataclass
class RunDoc:
    schema: Literal["tfdoctor-run"]
    schema_version: int
    exit_code: int
    run: RunFacts
    lint: Optional[RunLint]
    report: ReportDoc


# --- tfdoctor diagnose A B --json -------------------------------------------------------------


@dataclass
class FileReportDoc(ReportDoc):
    """One snapshot's report, a whole tfdoctor-report document, with the file it was read from."""

    file: str = ""


@dataclass
class ReportBatchDoc:
    schema: Literal["tfdoctor-report-batch"]
    schema_version: int
    exit_code: int
    """The highest of the reports' exit codes (the command's own)."""
    reports: list[FileReportDoc]


# --- tfdoctor explain CODE --json -------------------------------------------------------------


@dataclass
class ExplainDoc:
    schema: Literal["tfdoctor-explain"]
    schema_version: int
    code: str
    kind: Literal["finding", "lint"]
    """A code `check` reports, or one of `tfdoctor lint`."""
    severity: Literal["ok", "info", "warning", "error"]
    title: str
    why: str
    """For a lint code, its whole documentation (the rule module's docstring)."""
    fix: Optional[str]
    link: Optional[str]
    cause_of: list[str]
    """Codes this one is the cause of (listed under it when both are found)."""
    fix_answer: Optional[FixAnswer] = None
    """Whether a step of `tfdoctor fix` answers this code's findings and how, or why none can
    (null for a lint code)."""
