"""tfdoctor.triage.inputs: a JSON Lines input is read a line at a time, so what is held follows
the longest line kept, not the file (a 216 MB export with one huge line took 179 MB; the bound
is counted here, the figure is benchmarks/paste_memory.py's)."""

from __future__ import annotations

import io
import json

from tfdoctor.triage import inputs
from tfdoctor.triage.inputs import RawReport, _split


class Counted(io.BytesIO):
    """A binary input that remembers the largest piece it handed out and how much was read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.largest = 0

    def read(self, size: int | None = -1) -> bytes:
        piece = super().read(size)
        self.largest = max(self.largest, len(piece))
        return piece

    def readline(self, size: int | None = -1) -> bytes:
        piece = super().readline(size)
        self.largest = max(self.largest, len(piece))
        return piece


def _reports(data: bytes, name: str = "issues.jsonl") -> tuple[list[RawReport], Counted]:
    handle = Counted(data)
    return list(_split(name, handle)), handle


def test_a_line_too_long_is_passed_unread_and_the_lines_around_it_are_read(monkeypatch):
    monkeypatch.setattr(inputs, "LINE_LIMIT", 1000)
    data = b"\n".join([json.dumps({"number": 1, "body": "Illegal instruction: 4"}).encode(),
                       json.dumps({"number": 2, "body": "x" * 50_000}).encode(),
                       json.dumps({"number": 3, "body": "works"}).encode()]) + b"\n"
    got, handle = _reports(data)
    assert [(r.name, r.problem) for r in got] == [
        ("1", None), ("issues.jsonl:2", "longer than 0 MiB: left out unread"), ("3", None)]
    assert handle.largest <= max(inputs.MAX_REPORT_BYTES, 1001)  # never the whole long line at once
    assert handle.tell() == len(data)


def test_what_is_read_of_a_json_lines_input_is_bounded(monkeypatch):
    monkeypatch.setattr(inputs, "MAX_JSONL_BYTES", 4096)
    line = json.dumps("Illegal instruction: 4").encode() + b"\n"
    got, handle = _reports(line * 1000)
    assert got[-1].problem == "only the first 0 MiB read: the lines after are left out"
    assert len(got) - 1 == 4096 // len(line) and handle.tell() <= max(inputs.MAX_REPORT_BYTES, 4096) + 1


def test_one_report_is_its_first_megabyte_and_no_more_is_read():
    got, handle = _reports(b"Illegal instruction: 4\n" * 1_000_000, "<stdin>")
    assert len(got) == 1 and len(got[0].data) == inputs.MAX_REPORT_BYTES
    assert handle.tell() == inputs.MAX_REPORT_BYTES


def test_json_lines_are_told_by_their_first_lines_whatever_the_name():
    lines = b'{"body": "a"}\n"b"\n{"text": "c"}\n'
    assert [r.data for r in _reports(lines, "<stdin>")[0]] == [b"a", b"b", b"c"]
    assert len(_reports(b'{"body": "a"}\nnot json\n', "<stdin>")[0]) == 1  # one report: not JSON Lines
