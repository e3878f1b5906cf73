"""Read a pasted log (a file or standard input) without ever failing on it.

Users paste whatever they have: an empty file, a 500 MB training log, a PowerShell redirect in
UTF-16, a binary by mistake. The error that matters is almost always near the start (pip, import)
or near the end (the traceback that stopped training), so a log larger than the limit is read as
its head and its tail, and the result says how many bytes in between were skipped.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import sys
from dataclasses import dataclass
from typing import BinaryIO

from tfdoctor.facts.pasted_log import DEFAULT_LIMIT, LogRead

STDIN_FACTOR = 8
"""Standard input is read to at most this many times the limit (64 MiB by default) and then left
unread: an endless producer (`yes | tfdoctor check --log -`, a command that never ends) would
otherwise keep tfdoctor reading forever. The head and the last bytes before the cut are kept."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")
_CHUNK = 1 << 20


@dataclass
class LogText(LogRead):
    """The decoded text of a log, with every caveat about how it was read (LogRead)."""

    text: str = ""

    def __post_init__(self) -> None:
        if self.text.strip() and not self.lines:
            self.lines = len(self.text.splitlines())


def read_log(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> LogText:
    """Read `path` ("-" for standard input) bounded by `limit` bytes; never raises."""
    source = str(path)
    limit = max(int(limit), 2)
    try:
        if source == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                return _decode(sys.stdin.read(limit).encode("utf-8", "replace"), b"", source, None, 0)
            return _read_stream(stream, source, limit, cap=STDIN_FACTOR * limit)
        info = os.stat(source)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(source)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
            return LogText(source, error="is not a regular file (a pipe? use --log - for standard input)")
        size = info.st_size
        with open(source, "rb") as handle:
            if size <= limit:
                return _decode(handle.read(limit), b"", source, size, 0)
            head = handle.read(limit // 2)
            handle.seek(size - limit // 2)
            tail = handle.read()
            return _decode(head, tail, source, size, size - len(head) - len(tail))
    except IsADirectoryError:
        return LogText(source, error="is a directory, not a log file")
    except FileNotFoundError:
        return LogText(source, error="no such file")
    except PermissionError:
        return LogText(source, error="permission denied")
    except OSError as exc:
        return LogText(source, error=f"could not be read ({exc.strerror or exc})")
    except ValueError:  # a path with a NUL byte, an unusable number
        return LogText(source, error="is not a usable file name")


def read_log_bytes(data: bytes, source: str = "<text>", limit: int = DEFAULT_LIMIT) -> LogText:
    """The same bounded decoding for bytes already in memory (a snapshot, a test)."""
    return _read_stream(io.BytesIO(data), source, max(int(limit), 2), size=len(data))


def _read_stream(stream: BinaryIO, source: str, limit: int, size: int | None = None,
                 cap: int | None = None) -> LogText:
    """Head kept whole, tail kept as a rolling window: works for a pipe of any length; with
    `cap`, no more than `cap` bytes are read and a stream still going then is left (cut)."""
    head = stream.read(limit // 2) or b""
    tail = bytearray()
    skipped = 0
    cut = False
    while True:
        want = _CHUNK if cap is None else min(_CHUNK, cap - len(head) - len(tail) - skipped)
        if want <= 0:
            cut = bool(stream.read(1))
            break
        chunk = stream.read(want)
        if not chunk:
            break
        tail += chunk
        if len(tail) > limit - len(head):
            cut = len(tail) - (limit - len(head))
            skipped += cut
            del tail[:cut]
    total = len(head) + len(tail) + skipped
    if not cut:
        return _decode(head, bytes(tail), source, size if size is not None else total, skipped)
    log = _decode(head, bytes(tail), source, None, skipped)
    log.cut_after = total
    log.notes.append(f"{'standard input' if source == '-' else source} was cut after {total} "
                     f"bytes: it had not ended (at most {cap} bytes are read)")
    return log


def _decode(head: bytes, tail: bytes, source: str, size: int | None, skipped: int) -> LogText:
    encoding = _sniff(head)
    sample = head[:8192]
    if encoding == "utf-8" and _looks_binary(sample):
        return LogText(source, size=size, read_bytes=len(head) + len(tail), binary=True,
                       encoding="binary")
    if skipped and encoding.startswith("utf-16") and len(tail) % 2:
        tail = tail[1:]  # keep the tail on a code-unit boundary
    head_text, replaced_head, used = _decode_part(head, encoding)
    tail_text, replaced_tail, _ = _decode_part(tail, encoding) if tail else ("", 0, encoding)
    encoding = used
    if skipped:
        head_text = head_text.rsplit("\n", 1)[0] if "\n" in head_text else head_text
        tail_text = tail_text.split("\n", 1)[1] if "\n" in tail_text else tail_text
    head_text = _clean(head_text)
    gap = None
    text = head_text.replace("\x00", "")
    notes: list[str] = []
    if skipped:
        gap = head_text.count("\n") + 1
        text = text + "\n" + _clean(tail_text).replace("\x00", "")
        notes.append(f"log larger than the limit: {skipped} bytes in the middle were not read")
    if encoding != "utf-8":
        notes.append(f"decoded as {encoding}")
    return LogText(source, text=text, size=size, read_bytes=len(head) + len(tail), skipped_bytes=skipped,
                   gap_after_line=gap, encoding=encoding, replaced=replaced_head + replaced_tail,
                   notes=notes)


def _sniff(head: bytes) -> str:
    """UTF-8 unless a BOM or the NUL pattern of UTF-16 (PowerShell's `>`) says otherwise."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16"
    sample = head[:4096]
    if len(sample) >= 16:
        odd_nuls = sample[1::2].count(0)
        even_nuls = sample[0::2].count(0)
        half = len(sample) // 2
        if odd_nuls > 0.4 * half and even_nuls < 0.05 * half:
            return "utf-16-le"
        if even_nuls > 0.4 * half and odd_nuls < 0.05 * half:
            return "utf-16-be"
    return "utf-8"


def _looks_binary(sample: bytes) -> bool:
    """NUL bytes, or mostly control bytes: an executable, an image, a zip, not text."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27, 8))
    return controls > 0.1 * len(sample)


def _decode_part(data: bytes, encoding: str) -> tuple[str, int, str]:
    if encoding == "utf-8":
        try:
            return data.decode("utf-8"), 0, encoding
        except UnicodeDecodeError as exc:
            if exc.start >= len(data) - 3:  # a character cut by the head/tail boundary
                return data[:exc.start].decode("utf-8", errors="replace"), 0, encoding
        # Not UTF-8 (a Latin-1 or cp1252 console): there every byte is a character.
        encoding = "cp1252"
    text = data.decode(encoding, errors="replace")
    return text, text.count("\ufffd"), encoding


def _clean(text: str) -> str:
    """Terminal artefacts out: colour codes, carriage-return progress bars, backspaces."""
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\b" in text:
        text = re.sub(r"[^\n]\x08", "", text).replace("\b", "")
    return text
