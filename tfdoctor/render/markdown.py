"""A paste-ready bug-report view; the home directory, user and host names are redacted.

Every string in it may come from the diagnosed environment (an exception message, a package
name, a path), so each is redacted, then escaped for where it goes: prose and table cells get
Markdown and HTML characters backslash-escaped and line breaks flattened (no injected heading,
`</details>` or tag), code spans and fences are made longer than any backtick run inside.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from tfdoctor import __version__
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.snapshot_files import COLLECT_SUMMARY
from tfdoctor.facts.typed import clean_text, json_text
from tfdoctor.model import Severity
from tfdoctor.render.common import MARKS, in_words, summary_line, target_line
from tfdoctor.render.notebooks import editor_line, kernel_line
from tfdoctor.report.diagnosis import Report
from tfdoctor.sanitize.redact import Identity, redact
from tfdoctor.sanitize.terminal import neutralise

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~&$])")
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def _flat(text: str) -> str:
    """One line, no control characters, no lone surrogates: nothing can start a new block."""
    return _CONTROL.sub("\ufffd", _BREAKS.sub(" ⏎ ", neutralise(clean_text(str(text)))))


def escape_inline(text: str) -> str:
    """Text for prose or a table cell: every Markdown/HTML special character escaped."""
    return _SPECIAL.sub(r"\\\1", _flat(text))


def code_span(text: str) -> str:
    """Inline code holding `text` literally: a fence of more backticks than any run inside it,
    `|` escaped (GitHub splits table rows on it before it sees code spans)."""
    body = _flat(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def code_block(lines: Iterable[str], info: str = "") -> list[str]:
    """A fenced block whose fence no line inside can close."""
    body = [_CONTROL.sub("\ufffd", neutralise(clean_text(str(line)))) for line in lines]
    body = [part for line in body for part in _BREAKS.split(line)]
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *body, fence]


def collect_markdown(snapshot: Snapshot, snapshot_text: str) -> str:
    """A snapshot to paste into a bug report: who it describes in one line, the versions a
    maintainer asks for first, then the whole (already redacted) snapshot folded away, for the
    maintainer and `tfdoctor triage`."""
    py = snapshot.python
    head = (f"Python {py.version} ({py.process_arch or 'architecture not stated'}{', translated' if py.translated else ''})" if py
            else snapshot.target.python)
    host = snapshot.host
    where = " ".join(x for x in (host.system, host.macos_version or host.release, host.chip or "") if x)
    tf = ", ".join(f"{p.name} {p.version}" for p in snapshot.tensorflow_distributions()) or "no TensorFlow"
    return "\n".join([f"### tfdoctor {snapshot.tfdoctor_version} collect", "",
                      escape_inline(f"{head} on {where}; {tf}"), "",
                      *code_block(versions(snapshot), "text"), "",
                      f"<details><summary>{COLLECT_SUMMARY}</summary>", "",
                      *code_block(snapshot_text.rstrip("\n").splitlines(), "json"), "", "</details>", ""])


UNKNOWN = "Could not collect"
"""What PyTorch's collect_env says of a version it could not read."""


def versions(snapshot: Snapshot) -> list[str]:
    """`Key: value` lines in the manner of PyTorch's collect_env (torch/utils/collect_env.py):
    the OS and its distribution, libc, the compilers, how Python was built, pip and conda."""
    host, py = snapshot.host, snapshot.python
    arch = f" ({py.process_arch})" if py and py.process_arch else ""
    if host.system == "Darwin":
        system, libc = f"macOS {host.macos_version or '(version unknown)'}", "N/A (macOS has no glibc)"
    else:
        system, libc = host.distribution or host.system or UNKNOWN, (py.libc if py else None) or UNKNOWN
    kernel = " ".join(x for x in (host.system, host.release) if x) or UNKNOWN
    lines = [f"OS: {system}{arch}", f"Kernel: {kernel}", f"Libc version: {libc}"]
    compilers = {c.name: c for c in snapshot.shell.compilers}
    for name, label in (("gcc", "GCC"), ("clang", "Clang")):
        found = compilers.get(name)
        said = (found.version or f"{UNKNOWN} ({found.error})") if found else f"{UNKNOWN} (not on PATH)"
        lines.append(f"{label} version: {said}")
    lines.append("")
    if py is None:
        return [*lines, f"Python: {UNKNOWN} ({snapshot.target.message or snapshot.target.python})"]
    translated = ", translated by Rosetta 2" if py.translated else ""
    built = ", ".join(x for x in (py.compiler, py.build_date) if x) or UNKNOWN
    pip = snapshot.package("pip")
    conda = (py.conda.conda_version or UNKNOWN) if py.conda else "N/A (not a conda environment)"
    return [*lines,
            f"Python version: {py.version} ({py.implementation}, {py.pointer_bits}-bit runtime)",
            f"Python build: {built}",
            f"Python platform: {py.platform or UNKNOWN}",
            f"Python executable: {py.executable} ({py.process_arch or UNKNOWN}{translated})",
            f"pip version: {pip.version if pip and pip.version else UNKNOWN}",
            f"conda version: {conda}"]


def render_markdown(report: Report, fail_on: Severity, identity: Identity | None = None) -> str:
    who = identity or Identity.current()

    def text(value: Any) -> str:
        return escape_inline(redact(clean_text(in_words(str(value))), who))

    def code(value: Any) -> str:
        return code_span(redact(clean_text(str(value)), who))

    def plain(value: Any) -> str:
        return redact(clean_text(str(value)), who)

    lines = [f"## tfdoctor {__version__} report", "", code(target_line(report)), ""]
    diagnosis = report.diagnosis()
    if diagnosis:
        lines += [f"**Diagnosis:** {text(diagnosis.title)} ({code(diagnosis.code)})", ""]
        if diagnosis.remediation:
            lines.append(f"**Fix:** {text(diagnosis.remediation.text)}")
            if diagnosis.remediation.commands:
                lines += ["", *code_block((plain(c) for c in diagnosis.remediation.commands), "sh")]
            if diagnosis.remediation.code:
                lines += ["", *code_block((plain(c) for c in diagnosis.remediation.code), "python")]
            lines.append("")
    areas = report.areas()
    if areas:
        lines += ["| | area | finding |", "|---|---|---|"]
        for area in areas:
            said = area.finding is diagnosis and area.headline == diagnosis.title  # said once
            lines.append(f"| {MARKS[area.severity]} | {text(area.area)} | "
                         f"{'the diagnosis above' if said else text(area.headline)} |")
        lines.append("")
    for gap in report.unjudged:
        lines += [f"**Not judged:** {text(gap.what)} is not known ({', '.join(code(r) for r in gap.rules)}); "
                  "this would tell:", "", *code_block([plain(gap.command)], "sh"), ""]
    lines += ["### Findings", ""]
    for finding in report.findings:
        lines.append(f"- **\\[{finding.severity.value}\\] {text(finding.title)}** ({code(finding.code)})")
        for key, value in finding.evidence.items():
            shown = value if isinstance(value, str) else json_text(value)
            lines.append(f"  - {text(key)}: {code(shown)}")
    packages = [p for p in report.snapshot.packages if p.name]
    environment = []
    py = report.snapshot.python
    if py:
        environment += [f"python: {plain(py.executable)}", f"prefix: {plain(py.prefix)}",
                        f"binary: {plain(py.binary.format)} {plain(' '.join(py.binary.archs))}"]
    if report.snapshot.jupyter is not None:
        environment += [f"jupyter kernel: {plain(kernel_line(k))}" for k in report.snapshot.jupyter.kernels]
    editor = editor_line(report.snapshot.editor) if report.snapshot.editor is not None else None
    environment += [plain(editor)] if editor else []
    environment += [f"{plain(k)}={plain(v)}" for k, v in report.snapshot.env.items()]
    environment += [f"{plain(p.name)}=={plain(p.version)}" for p in sorted(packages, key=lambda p: p.key)]
    lines += ["", "<details><summary>Environment</summary>", "", *code_block(environment), "",
              "</details>", "", f"{summary_line(report)}; exit {report.exit_code(fail_on)}",
              "", "_Home directory, user and host names and credentials redacted._"]
    return "\n".join(lines) + "\n"
