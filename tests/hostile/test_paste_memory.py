"""Memory bounded by what is kept, not by what is read (issue 28, class 2).

A pasted log is read as a stream, block by block (tfdoctor.logtext.scan), and only a bounded
window of it is kept (tfdoctor.logtext.window): the lines around each match and, with
--keep-log, its head and tail. Proved by counting what is kept as the input grows, and by the
ratio of tracemalloc peaks between sizes, never by a wall clock; benchmarks/paste_memory.py
prints the process's peak RSS and time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import assert_no_traceback, run_tfdoctor

from tfdoctor.facts.pasted_log import AROUND, DEFAULT_LIMIT, KEEP_LOG_CHARS, MAX_LINE
from tfdoctor.logtext import keep
from tfdoctor.logtext import window as window_module
from tfdoctor.logtext.catalog import SIGNATURES
from tfdoctor.logtext.scan import BLOCK
from tfdoctor.logtext.signature import MAX_PER_SIGNATURE
from tfdoctor.sanitize.redact import Identity

pytestmark = pytest.mark.slow  # megabytes of log read at several sizes

MB = 1 << 20
WHO = Identity("/Users/ada", "ada", "ada-mbp")
ERRORS = [  # known messages, each with a field that makes every occurrence its own match
    "ERROR: pkg{n}-1.0-cp38-cp38-macosx_11_0_x86_64.whl is not a supported wheel on this platform.",
    "NotFoundError: Op type not registered 'Op{n}' in binary running on host.",
    "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
]


def paste(size: int, every: int = 5000) -> bytes:
    """`size` bytes of "y" lines with a known error every `every` lines."""
    units, n, total = [], 0, 0
    while total < size:
        unit = "y\n" * (every - 1) + ERRORS[n % len(ERRORS)].format(n=n) + "\n"
        units.append(unit)
        total += len(unit)
        n += 1
    return "".join(units).encode()[:size]


class Measured(window_module.Window):
    """The window, recording the most it ever holds."""

    most: ClassVar[dict[str, int]] = {}

    def block(self, block) -> None:
        super().block(block)
        held = {"around lines": len(self.around), "around chars": sum(map(len, self.around.values())),
                "head chars": self.head_size, "tail chars": self.tail_size, "block chars": len(block.lines.text),
                "pending ranges": len(self.wanted)}
        for name, value in held.items():
            Measured.most[name] = max(Measured.most.get(name, 0), value)


@pytest.mark.parametrize("keep_log", [False, True], ids=["default", "--keep-log"])
def test_what_is_kept_stays_within_the_window_as_the_paste_grows(monkeypatch, keep_log):
    monkeypatch.setattr(keep, "Window", Measured)
    held = {}
    # 1, 4 and 16 MB: the window is full from 2 MB on (952 around lines at 1 MB, 1,037 at 2, 4, 8,
    # 16 and 32 MB) and 16 MB is over six times the largest bound below; more only costs time
    for size in (MB, 4 * MB, 16 * MB):
        Measured.most = {}
        facts = keep.from_bytes(paste(size), "paste", identity=WHO, keep_log=keep_log)
        held[size] = dict(Measured.most)
        assert facts.lines > size // 3 and facts.matches
    entries = MAX_PER_SIGNATURE * len(SIGNATURES)
    for size, most in held.items():
        assert most["around lines"] <= entries * (2 * AROUND + 1), (size, most)
        assert most["around chars"] <= most["around lines"] * (MAX_LINE + 3), (size, most)
        assert most["block chars"] <= 2 * BLOCK + 2 * MB, (size, most)  # a block, a read chunk, the lead
        assert most["head chars"] <= (KEEP_LOG_CHARS // 2 + MB if keep_log else 0), (size, most)
        assert most["tail chars"] <= (KEEP_LOG_CHARS // 2 + MB if keep_log else 0), (size, most)
    # past the first sizes, 16 times the paste keeps no more: the window is full, not growing
    assert held[16 * MB]["around lines"] == held[4 * MB]["around lines"]


def _peak(path: Path) -> int:
    tracemalloc.start()
    try:
        keep.read(path, identity=WHO)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_does_not_grow_with_the_log(tmp_path):
    """Four times the log, about the same peak (before: the text, and a string and an offset per
    line of it, were held whole: about 60 bytes a line, 8 MB of `y` took 450 MB)."""
    small, large = tmp_path / "small.log", tmp_path / "large.log"
    small.write_bytes(paste(2 * MB))
    large.write_bytes(paste(8 * MB))
    _peak(small)  # imports and compiled patterns out of the way
    ratio = _peak(large) / _peak(small)
    assert ratio < 1.5, f"4 times the log: {ratio:.2f} times the peak"


def test_the_report_says_what_it_read_and_what_it_left_out(tmp_path):
    path = tmp_path / "train.log"
    path.write_bytes(paste(MB, every=20000))
    run = run_tfdoctor("check", "--no-runtime", "--no-probes", "--json", "--log", str(path))
    assert_no_traceback(run)
    log = json.loads(run.stdout)["snapshot"]["log"]
    kept = [line for line in log["excerpt"].split("\n") if line != "..."]
    assert log["lines"] == path.read_bytes().count(b"\n") and log["read_bytes"] == MB
    assert log["kept_lines"] == len(kept) and 0 < log["kept_lines"] < log["lines"]
    assert log["text"] is None  # the log itself only with --keep-log


def test_an_endless_standard_input_is_read_to_the_bound_then_left():
    """`yes | tfdoctor check --log -`: standard input is read to DEFAULT_LIMIT and then left; the
    report says it was cut and how much was read. Its lines are `yes` of a 63-character word,
    64 bytes each: the 64 MB cost half the processor time of 2-byte lines (most of it went on
    33 million lines; what is kept of each line as it is read is held by the tests above)."""
    line = "y" * 63 + "\n"
    endless = [sys.executable, "-c", f"import sys\nwhile True: sys.stdout.write({line!r} * 1024)"]
    producer = subprocess.Popen(endless, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        run = subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--log", "-", "--no-runtime",
                              "--no-probes", "--json"], stdin=producer.stdout, capture_output=True,
                             text=True, timeout=600, env={**os.environ, "NO_COLOR": "1"}, check=False)
    finally:
        producer.kill()
        producer.wait()
    assert run.returncode in (0, 1), run.stderr[-2000:]
    log = json.loads(run.stdout)["snapshot"]["log"]
    assert log["cut_after"] == DEFAULT_LIMIT and log["read_bytes"] == DEFAULT_LIMIT
    assert [n for n in log["notes"] if f"cut after {DEFAULT_LIMIT} bytes" in n], log["notes"]
    assert log["lines"] == DEFAULT_LIMIT // len(line) and log["kept_lines"] == 0


def test_one_line_longer_than_any_message_is_read_in_pieces():
    """No single line is held whole: a 4 MB line without a line end is read in pieces, the error
    at its end still found, and the report says so."""
    data = b"x" * (4 * MB + 1000) + b" NotFoundError: Op type not registered 'Tail' in binary running on h.\n"
    facts = keep.from_bytes(data, "paste", identity=WHO)
    assert [m.fields.get("op") for m in facts.matches] == ["Tail"]
    assert [n for n in facts.notes if "read in pieces" in n]
