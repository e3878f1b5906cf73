"""A paste-ready bug-report view; the home directory, user and host names are redacted."""

from __future__ import annotations

from tfdoctor import __version__
from tfdoctor.model import Severity
from tfdoctor.redact import Identity, redact
from tfdoctor.render.common import MARKS, summary_line, target_line
from tfdoctor.report import Report
from tfdoctor.typed import json_text


def render_markdown(report: Report, fail_on: Severity, identity: Identity | None = None) -> str:
    lines = [f"## tfdoctor {__version__} report", "", f"`{target_line(report)}`", ""]
    diagnosis = report.diagnosis()
    if diagnosis:
        lines += [f"**Diagnosis:** {diagnosis.title} (`{diagnosis.code}`)", ""]
        if diagnosis.remediation:
            lines.append(f"**Fix:** {diagnosis.remediation.text}")
            if diagnosis.remediation.commands:
                lines += ["", "```sh", *diagnosis.remediation.commands, "```"]
            lines.append("")
    lines += ["| | area | finding |", "|---|---|---|"]
    for area in report.areas():
        lines.append(f"| {MARKS[area.severity]} | {area.area} | {area.headline} |")
    lines += ["", "### Findings", ""]
    for finding in report.findings:
        lines.append(f"- **[{finding.severity.value}] {finding.title}** (`{finding.code}`)")
        for key, value in finding.evidence.items():
            shown = value if isinstance(value, str) else json_text(value)
            lines.append(f"  - {key}: `{shown}`")
    packages = [p for p in report.snapshot.packages if p.name]
    lines += ["", "<details><summary>Environment</summary>", "", "```"]
    py = report.snapshot.python
    if py:
        lines += [f"python: {py.executable}", f"prefix: {py.prefix}",
                  f"binary: {py.binary.format} {' '.join(py.binary.archs)}"]
    lines += [f"{k}={v}" for k, v in report.snapshot.env.items()]
    lines += [f"{p.name}=={p.version}" for p in sorted(packages, key=lambda p: p.key)]
    lines += ["```", "", "</details>", "", f"{summary_line(report)}; exit {report.exit_code(fail_on)}",
              "", "_Home directory, user and host names redacted._"]
    return redact("\n".join(lines) + "\n", identity)
