"""The reports `tfdoctor triage` reads: one file or standard input, every file of a folder, or a
JSON Lines file of many (one object a line, as issue exports write them: the text under "body",
"text" or "posted", the name under "id", "number", "url" or "html_url"; a line may also be a bare
JSON string). Each is bounded; nothing a report names is ever opened."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from tfdoctor.triage.outcome import MAX_REPORT_BYTES

MAX_REPORTS = 100_000
"""Reports one call reads at most (a folder or a JSON Lines file); the rest are said to be left out."""
TEXT_KEYS = ("body", "text", "posted")
NAME_KEYS = ("id", "number", "html_url", "url")


class InputError(ValueError):
    """The argument names nothing readable (a usage error)."""


@dataclass(frozen=True)
class RawReport:
    name: str
    data: bytes
    problem: str | None = None
    """Why this entry could not be read (a JSON Lines line that is no report): it is listed, not triaged."""


def reports(arg: str) -> Iterator[RawReport]:
    """The reports `arg` names ("-" for standard input)."""
    if arg == "-":
        yield from _split("<stdin>", sys.stdin.buffer.read(MAX_REPORT_BYTES * 64))
        return
    path = Path(arg)
    try:
        if path.is_dir():
            entries = sorted(p for p in path.iterdir() if p.is_file())
            for n, entry in enumerate(entries):
                if n >= MAX_REPORTS:
                    yield RawReport(str(path), b"", f"{len(entries) - n} more files left out")
                    return
                yield from _split(str(entry), _read(entry))
            return
        if not path.is_file():
            raise InputError(f"{arg}: no such file or folder")
        yield from _split(str(path), _read(path))
    except OSError as exc:
        raise InputError(f"{arg}: {os.strerror(exc.errno) if exc.errno else exc}") from None


def _read(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(MAX_REPORT_BYTES * 64 if path.suffix == ".jsonl" else MAX_REPORT_BYTES)


def _split(name: str, data: bytes) -> Iterator[RawReport]:
    """A JSON Lines file (every non-blank line a JSON object or string) is many reports; anything
    else is one."""
    lines = [line for line in data.splitlines() if line.strip()]
    if not (name.endswith(".jsonl") or (len(lines) > 1 and all(map(_one_json_line, lines[:3])))):
        yield RawReport(name, data[:MAX_REPORT_BYTES])
        return
    for n, line in enumerate(lines, 1):
        if n > MAX_REPORTS:
            yield RawReport(name, b"", f"{len(lines) - MAX_REPORTS} more lines left out")
            return
        try:
            item = json.loads(line)
        except ValueError:
            yield RawReport(f"{name}:{n}", b"", "not JSON")
            continue
        if isinstance(item, str):
            yield RawReport(f"{name}:{n}", item.encode("utf-8", "replace")[:MAX_REPORT_BYTES])
            continue
        text = next((item[k] for k in TEXT_KEYS if isinstance(item, dict) and isinstance(item.get(k), str)), None)
        if text is None:
            yield RawReport(f"{name}:{n}", b"", f"no text under {', '.join(TEXT_KEYS)}")
            continue
        label = next((str(item[k]) for k in NAME_KEYS if item.get(k) not in (None, "")), None)
        title = item.get("title") if isinstance(item.get("title"), str) else ""
        body = (f"{title}\n\n{text}" if title else text).encode("utf-8", "replace")
        yield RawReport(label[:200] if label else f"{name}:{n}", body[:MAX_REPORT_BYTES])


def _one_json_line(line: bytes) -> bool:
    """A JSON object or string on one line (a pretty-printed document's lines are not)."""
    if line.lstrip()[:1] not in (b"{", b'"'):
        return False
    try:
        return isinstance(json.loads(line), (dict, str))
    except ValueError:
        return False
