"""The reports `tfdoctor triage` reads: one file or standard input, every file of a folder, or a
JSON Lines file of many (one object a line, as issue exports write them: the text under "body",
"text" or "posted", the name under "id", "number", "url" or "html_url"; a line may also be a bare
JSON string). Each is bounded, and a JSON Lines file is read a line at a time, so memory follows
the longest line kept (LINE_LIMIT), not the file; nothing a report names is ever opened."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tfdoctor.triage.outcome import MAX_REPORT_BYTES

MAX_REPORTS = 100_000
"""Reports one call reads at most (a folder or a JSON Lines file); the rest are said to be left out."""
MAX_JSONL_BYTES = MAX_REPORT_BYTES * 64
"""Bytes of one JSON Lines input read at most; the lines after are said to be left out."""
LINE_LIMIT = MAX_REPORT_BYTES * 8
"""The longest JSON Lines line read: a report of MAX_REPORT_BYTES written as JSON (\\uXXXX is six
bytes a character) with its other fields fits; a longer line is skipped unread and said to be."""
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
        yield from _split("<stdin>", sys.stdin.buffer)
        return
    path = Path(arg)
    try:
        if path.is_dir():
            entries = sorted(p for p in path.iterdir() if p.is_file())
            for n, entry in enumerate(entries):
                if n >= MAX_REPORTS:
                    yield RawReport(str(path), b"", f"{len(entries) - n} more files left out")
                    return
                with open(entry, "rb") as handle:
                    yield from _split(str(entry), handle)
            return
        if not path.is_file():
            raise InputError(f"{arg}: no such file or folder")
        with open(path, "rb") as handle:
            yield from _split(str(path), handle)
    except OSError as exc:
        raise InputError(f"{arg}: {os.strerror(exc.errno) if exc.errno else exc}") from None


def _split(name: str, handle: BinaryIO) -> Iterator[RawReport]:
    """A JSON Lines input (named .jsonl, or whose first lines are JSON objects or strings) is
    many reports, read a line at a time; anything else is one, of its first MAX_REPORT_BYTES."""
    head = handle.read(MAX_REPORT_BYTES)
    whole = head.splitlines() if len(head) < MAX_REPORT_BYTES else head.splitlines()[:-1]  # the last may be cut
    first = [line for line in whole if line.strip()][:3]
    if not (name.endswith(".jsonl") or (len(first) > 1 and all(map(_one_json_line, first)))):
        yield RawReport(name, head)
        return
    for n, line in enumerate((line for line in _lines(head, handle) if not isinstance(line, bytes) or line.strip()), 1):
        if n > MAX_REPORTS:
            yield RawReport(name, b"", "more lines left out")
            return
        if line is None:
            yield RawReport(f"{name}:{n}", b"", f"longer than {LINE_LIMIT >> 20} MiB: left out unread")
        elif isinstance(line, int):
            yield RawReport(name, b"", f"only the first {line >> 20} MiB read: the lines after are left out")
            return
        else:
            yield _report(name, n, line)


def _lines(head: bytes, handle: BinaryIO) -> Iterator[bytes | int | None]:
    """The lines of `head` and then of `handle`, each whole; None for a line longer than
    LINE_LIMIT (read past, never kept), and MAX_JSONL_BYTES (an int) once that much was read."""
    source = _Resumed(head, handle)
    read, pending = 0, b""
    while True:
        if read >= MAX_JSONL_BYTES:
            if pending.strip() or source.readline(1):
                yield MAX_JSONL_BYTES
            return
        more = source.readline(min(LINE_LIMIT + 1 - len(pending), MAX_JSONL_BYTES - read))
        read += len(more)
        pending += more
        ended = pending.endswith(b"\n")
        line = pending[:-1] if ended else pending
        if len(line) > LINE_LIMIT:
            read += 0 if ended else _past_line_end(source, MAX_JSONL_BYTES - read)
            yield None
            pending = b""
        elif ended:
            yield line
            pending = b""
        elif not more:  # the end of the input
            if line:
                yield line
            return


class _Resumed:
    """The input again from its start: the head already read, then the rest of the handle."""

    def __init__(self, head: bytes, handle: BinaryIO) -> None:
        self.head, self.handle = io.BytesIO(head), handle

    def readline(self, limit: int) -> bytes:
        line = self.head.readline(limit)
        if line.endswith(b"\n") or len(line) == limit:
            return line
        return line + self.handle.readline(limit - len(line))


def _past_line_end(handle: _Resumed, budget: int) -> int:
    """Reads to the next line end (or `budget` bytes) without keeping what it reads; the bytes read."""
    skipped = 0
    while skipped < budget:
        chunk = handle.readline(min(1 << 20, budget - skipped))
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            break
    return skipped


def _report(name: str, n: int, line: bytes) -> RawReport:
    """One JSON Lines line as a report: a JSON string, or an object with its text under TEXT_KEYS."""
    try:
        item = json.loads(line)
    except ValueError:
        return RawReport(f"{name}:{n}", b"", "not JSON")
    if isinstance(item, str):
        return RawReport(f"{name}:{n}", item.encode("utf-8", "replace")[:MAX_REPORT_BYTES])
    text = next((item[k] for k in TEXT_KEYS if isinstance(item, dict) and isinstance(item.get(k), str)), None)
    if text is None:
        return RawReport(f"{name}:{n}", b"", f"no text under {', '.join(TEXT_KEYS)}")
    label = next((str(item[k]) for k in NAME_KEYS if item.get(k) not in (None, "")), None)
    title = item.get("title") if isinstance(item.get("title"), str) else ""
    body = (f"{title}\n\n{text}" if title else text).encode("utf-8", "replace")
    return RawReport(label[:200] if label else f"{name}:{n}", body[:MAX_REPORT_BYTES])


def _one_json_line(line: bytes) -> bool:
    """A JSON object or string on one line (a pretty-printed document's lines are not)."""
    if line.lstrip()[:1] not in (b"{", b'"'):
        return False
    try:
        return isinstance(json.loads(line), (dict, str))
    except ValueError:
        return False
