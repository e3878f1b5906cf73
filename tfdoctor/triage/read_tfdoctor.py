"""tfdoctor's own documents pasted into a report: a snapshot (`tfdoctor collect -o -`, or the
`snapshot` inside `check --json`) and the markdown report (`check --format markdown`).

A snapshot is the whole environment as the collector read it, so it is kept whole
(`Collected.snapshot`) besides the facts read from it. The markdown report's format is
tfdoctor.render.markdown: "## tfdoctor VERSION report", then the target line in a code span
("/path/python: Python 3.11.7 (x86_64 under Rosetta 2), macOS 14.3, Apple M1 Max, 32 GiB RAM",
render/common.target_line), and an "Environment" details block of "python: PATH", "prefix:
PATH", "binary: FORMAT ARCHS" and every distribution as "name==version".
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from tfdoctor.facts.snapshot import Snapshot, SnapshotError
from tfdoctor.facts.typed import depth_within
from tfdoctor.sanitize.redact import mask_plain
from tfdoctor.triage.evidence import Found, package_fact
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.vocabulary import is_distribution_name, version_at

COLLECT = "tfdoctor collect"
REPORT = "tfdoctor report"
REPORT_LINES = 2000
"""Lines a markdown report spans at most (findings with their evidence included)."""
MAX_DEPTH = 64
"""As deep as a snapshot file may nest (tfdoctor.gather.snapshot_files)."""

_TARGET = re.compile(r"(?P<python>\S.{0,1000}?)(?: \([^()]{0,300}\))?: Python (?P<version>[\d.]{1,20}) \((?P<arch>[\w]{1,20})(?P<rosetta> under Rosetta 2)?\)(?P<rest>.{0,400})")


@dataclass
class Collected:
    snapshot: Snapshot | None = None
    """The first tfdoctor snapshot pasted in the reporter's own text."""
    consumed: set[int] = field(default_factory=set)
    """Lines of tfdoctor's own documents: read here whole, and no evidence for other readers (a
    report's advice names /opt/homebrew whatever the machine is)."""


def read(doc: Document, found: Found, collected: Collected) -> None:
    for start, lines in _json_candidates(doc.lines):
        snapshot = _snapshot(lines, found)
        if snapshot is not None:
            collected.consumed.update(line.number for line in lines)
            _snapshot_facts(start, snapshot, found)
            if collected.snapshot is None and not start.quoted:
                collected.snapshot = snapshot
                found.listing(start, COLLECT)
    _markdown(doc.lines, found, collected.consumed)


def _json_candidates(lines: Sequence[Line]) -> list[tuple[Line, list[Line]]]:
    """Fenced blocks that open with `{` and hold a snapshot's keys; or the whole report, when it
    is one JSON document."""
    blocks: dict[int, list[Line]] = {}
    for line in lines:
        if line.block:
            blocks.setdefault(line.block, []).append(line)
    found = [block for block in blocks.values() if _opens_json(block)]
    unfenced = [line for line in lines if not line.block]
    if not blocks and _opens_json(unfenced):
        found.append(unfenced)
    return [(block[0], block) for block in found]


def _opens_json(block: list[Line]) -> bool:
    """A JSON object with a snapshot's keys ("target" comes first, "schema_version" later: a cut
    paste may hold only the first)."""
    first = next((line.text.strip() for line in block if line.text.strip()), "")
    return first.startswith("{") and any('"schema_version"' in line.text or '"target": {' in line.text
                                          for line in block)


def _snapshot(lines: list[Line], found: Found) -> Snapshot | None:
    where = f"the tfdoctor snapshot at line {lines[0].number}"
    try:
        data: Any = json.loads("\n".join(line.text for line in lines))
    except RecursionError:
        found.note(f"{where} nests too deeply to read")
        return None
    except ValueError:
        found.note(f"{where} is not whole JSON (cut?): not read")
        return None
    if not depth_within(data, MAX_DEPTH):
        found.note(f"{where} nests deeper than {MAX_DEPTH} levels: not read")
        return None
    if isinstance(data, dict) and "target" not in data and isinstance(data.get("snapshot"), dict):
        data = data["snapshot"]  # a `check --json` report
    try:
        return Snapshot.from_dict(mask_plain(data))
    except (SnapshotError, RecursionError) as exc:
        found.note(f"{where} could not be read: {exc}")
        return None


def _snapshot_facts(line: Line, snapshot: Snapshot, found: Found) -> None:
    """What a snapshot says, as facts read from it."""
    host, py = snapshot.host, snapshot.python

    def add(name: str, value: object) -> None:
        if value is not None and value != "" and value != []:
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            found.add(line, name, text, "read", COLLECT)

    add("os", host.system)
    add("macos_version", host.macos_version)
    if host.macos_version_reported == "10.16":
        add("macos_version_reported", host.macos_version_reported)
    add("chip", host.chip)
    add("cpu_brand", host.cpu_brand)
    add("hw_arm64", host.hw_arm64)
    add("container", host.container)
    if py is not None:
        add("python_version", py.version)
        add("python_arch", py.process_arch)
        add("translated", py.translated)
        add("python_binary_archs", " ".join(py.binary.archs))
        add("python_path", py.executable)
        add("python_prefix", py.prefix)
        if py.conda is not None:
            add("conda_subdir", py.conda.subdir)
            add("conda_prefix", py.conda.prefix)
            add("conda_root", py.conda.root)
    for package in snapshot.packages:
        if package.name:
            found.add(line, package_fact(package.name), package.version or "", "read", COLLECT)


def _markdown(lines: Sequence[Line], found: Found, consumed: set[int]) -> None:
    """Each markdown report: its target line, and its Environment block when the report is whole
    (its "<summary>Environment" and closing "_Home directory..." lines found in order)."""
    closings = [i for i, line in enumerate(lines) if line.text.startswith("_Home directory")]
    summaries = [i for i, line in enumerate(lines) if "<summary>Environment</summary>" in line.text]
    index = 0
    while index < len(lines):
        line = lines[index]
        text = line.text.strip()
        if not (text.startswith("## tfdoctor ") and text.endswith(" report")) or line.fenced:
            index += 1
            continue
        end = index + 1
        for at in range(index + 1, min(len(lines), index + 4)):
            if _target_line(lines[at], found):
                end = at + 1
                break
        closing = _next(closings, index)
        summary = _next(summaries, index)
        if closing is not None and summary is not None and summary < closing < index + REPORT_LINES:
            _environment(lines, summary, closing, line, found)
            end = closing + 1
        consumed.update(row.number for row in lines[index:end])
        index = end


def _next(positions: list[int], after: int) -> int | None:
    at = bisect.bisect_right(positions, after)
    return positions[at] if at < len(positions) else None


def _target_line(line: Line, found: Found) -> bool:
    match = _TARGET.fullmatch(line.text.strip().strip("`").strip().replace("\\|", "|"))
    if not match:
        return False
    found.add(line, "python_path", match.group("python"), "read", REPORT)
    found.add(line, "python_version", match.group("version"), "read", REPORT)
    found.add(line, "python_arch", match.group("arch"), "read", REPORT)
    if match.group("rosetta"):
        found.add(line, "translated", "true", "read", REPORT)
    for part in match.group("rest").split(", "):
        part = part.strip()
        if part.startswith("macOS ") and version_at(part[6:]) == part[6:]:
            found.add(line, "os", "Darwin", "read", REPORT)
            found.add(line, "macos_version", part[6:], "read", REPORT)
        elif part.startswith("Apple M") or part.startswith("Intel"):
            found.add(line, "chip", part, "read", REPORT)
    return True


def _environment(lines: Sequence[Line], summary: int, closing: int, heading: Line, found: Found) -> None:
    """The report's Environment block: the fenced block after "<summary>Environment"."""
    first = next((i for i in range(summary + 1, closing) if lines[i].text.strip()), None)
    if first is None or not lines[first].fenced:
        return
    block = lines[first].block
    for line in itertools.takewhile(lambda row: row.block == block, (lines[i] for i in range(first, closing))):
        text = line.text.strip()
        key, _, value = text.partition(": ")
        name, _, version = text.partition("==")
        if key == "python":
            found.add(line, "python_path", value, "read", REPORT)
        elif key == "prefix":
            found.add(line, "python_prefix", value, "read", REPORT)
        elif key == "binary":
            archs = value.split()[1:]
            if archs:
                found.add(line, "python_binary_archs", " ".join(archs), "read", REPORT)
        elif version and is_distribution_name(name) and version_at(version) == version:
            found.add(line, package_fact(name), version, "read", REPORT)
    if not heading.quoted:
        found.listing(heading, REPORT)
