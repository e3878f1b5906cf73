"""Read a pasted log (a file, standard input, bytes in memory) as a stream, without ever failing.

Users paste whatever they have: an empty file, a 500 MB training log, a PowerShell redirect in
UTF-16, a binary by mistake, `yes` piped in. The text is given in pieces of whole lines, decoded
and without terminal artefacts, as it is read: whatever keeps it (tfdoctor.logtext.keep) holds
what it needs, never the whole. At most `limit` bytes are read: a larger file is read as its head
and its tail (the error that matters is almost always near the start, pip or import, or near the
end, the traceback that stopped training), and standard input still going after `limit` bytes
is left unread. The LogRead that comes with the pieces says, once they are taken, what was read
and what was left out.
"""

from __future__ import annotations

import codecs
import io
import itertools
import os
import re
import stat
import sys
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from tfdoctor.facts.pasted_log import DEFAULT_LIMIT, LogRead
from tfdoctor.logtext.pasted import ANSI
from tfdoctor.logtext.scan import LONGEST_LINE

CHUNK = 1 << 18
"""Bytes read at a time."""
_SNIFF = 8192

_UNDECODED = re.compile("[\udc80-\udcff]")
"""Bytes that were not UTF-8, as `surrogateescape` leaves them."""


@dataclass
class Reading:
    """A log being read: its text as `pieces` (whole lines, in order), and `read`, which says how
    it was read and is complete once the pieces are taken."""

    read: LogRead
    pieces: Iterator[str]


@dataclass(frozen=True)
class _Gap:
    """Bytes of a file not read between its head and its tail."""

    skipped: int


def read_log(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT) -> Reading:
    """Read `path` ("-" for standard input), at most `limit` bytes; never raises."""
    source = str(path)
    limit = max(int(limit), 2)
    if source == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text-only stdin (tests, embedding)
            stream = io.BytesIO(sys.stdin.read(limit + 1).encode("utf-8", "replace"))
        return _reading(LogRead(source), _stream_chunks(stream, limit))
    try:
        info = os.stat(source)
        if stat.S_ISDIR(info.st_mode):
            return _failed(source, "is a directory, not a log file")
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
            return _failed(source, "is not a regular file (a pipe? use --log - for standard input)")
        handle = open(source, "rb")  # noqa: SIM115 - closed by _file_chunks once read
    except FileNotFoundError:
        return _failed(source, "no such file")
    except PermissionError:
        return _failed(source, "permission denied")
    except OSError as exc:
        return _failed(source, f"could not be read ({exc.strerror or exc})")
    except ValueError:  # a path with a NUL byte
        return _failed(source, "is not a usable file name")
    return _reading(LogRead(source, size=info.st_size), _file_chunks(handle, info.st_size, limit))


def read_log_bytes(data: bytes, source: str = "<text>", limit: int = DEFAULT_LIMIT) -> Reading:
    """The same for bytes already in memory (what `tfdoctor run` recorded, a report, a test)."""
    return _reading(LogRead(source, size=len(data)), _file_chunks(io.BytesIO(data), len(data), max(int(limit), 2)))


def keeping_head(reading: Reading, budget: int) -> tuple[Reading, list[str]]:
    """The same reading, and a list that holds the first `budget` characters of its text once its
    pieces are taken: a log read once (standard input can be read only once) can be read as a
    report too, without keeping the whole."""
    head: list[str] = []

    def pieces() -> Iterator[str]:
        left = budget
        for piece in reading.pieces:
            if left > 0:
                head.append(piece[:left])
                left -= len(head[-1])
            yield piece

    return Reading(reading.read, pieces()), head


def _failed(source: str, error: str) -> Reading:
    return Reading(LogRead(source, error=error), iter(()))


def _file_chunks(handle: BinaryIO, size: int, limit: int) -> Generator[bytes | _Gap, None, None]:
    """A seekable file: all of it, or its first and last limit/2 bytes with the gap between."""
    with handle:
        if size <= limit:
            yield from _chunks(handle, size)
            return
        yield from _chunks(handle, limit // 2)
        tail = limit - limit // 2
        yield _Gap(size - limit // 2 - tail)
        handle.seek(size - tail)
        yield from _chunks(handle, tail)


def _stream_chunks(stream: BinaryIO, limit: int) -> Generator[bytes | int, None, None]:
    """A pipe: up to `limit` bytes; if it has not ended by then, the byte count it was cut at."""
    yield from _chunks(stream, limit)
    try:
        more = bool(stream.read(1))
    except OSError:
        more = False
    if more:
        yield limit


def _chunks(stream: BinaryIO, budget: int) -> Iterator[bytes]:
    while budget > 0:
        try:
            chunk = stream.read(min(CHUNK, budget))
        except OSError:
            return
        if not chunk:
            return
        budget -= len(chunk)
        yield chunk


def _reading(read: LogRead, chunks: Generator[bytes | _Gap | int, None, None]) -> Reading:
    return Reading(read, _pieces(read, chunks))


def _pieces(read: LogRead, chunks: Generator[bytes | _Gap | int, None, None]) -> Iterator[str]:
    """Decoded, cleaned text in whole lines, filling `read` as it goes."""
    first = next(chunks, b"")
    if not isinstance(first, bytes) or not first:
        return
    encoding = _sniff(first)
    if encoding == "utf-8" and _looks_binary(first[:_SNIFF]):
        read.binary, read.encoding, read.read_bytes = True, "binary", len(first)
        chunks.close()  # and the file with them
        return
    if encoding == "utf-8" and _UNDECODED.search(first.decode("utf-8", "surrogateescape")[:-3]):
        encoding = "cp1252"  # not UTF-8 (a Latin-1 or cp1252 console): every byte is a character
    read.encoding = encoding
    lines = _Lines(read, encoding)
    text_seen = False
    for chunk in itertools.chain([first], chunks):
        if isinstance(chunk, _Gap):
            yield from lines.flush(drop_partial=True)
            read.skipped_bytes += chunk.skipped
            read.gap_after_line = read.lines
            read.notes.append(f"log larger than the limit: {chunk.skipped} bytes in the middle were not read")
            lines.restart(skip_partial=True)
            continue
        if isinstance(chunk, int):
            read.cut_after = chunk
            name = "standard input" if read.source == "-" else read.source
            read.notes.append(f"{name} was cut after {chunk} bytes: it had not ended "
                              f"(at most {chunk} bytes are read)")
            continue
        read.read_bytes += len(chunk)
        for piece in lines.feed(chunk):
            text_seen = text_seen or bool(piece.strip())
            yield piece
    for piece in lines.flush(drop_partial=False):
        text_seen = text_seen or bool(piece.strip())
        yield piece
    if not text_seen:
        read.lines = 0
    if read.encoding != "utf-8":
        read.notes.append(f"decoded as {read.encoding}")
    if lines.split:
        read.notes.append(f"{lines.split} lines longer than {LONGEST_LINE} characters were read in pieces "
                          "(line numbers after them count the pieces)")


class _Lines:
    """Bytes in, whole cleaned lines out: a line cut by a chunk's end waits for the next chunk."""

    def __init__(self, read: LogRead, encoding: str) -> None:
        self.read, self.encoding = read, encoding
        self.split = 0
        self.restart(skip_partial=False)

    def restart(self, skip_partial: bool) -> None:
        """A new stretch of the file (its tail): a fresh decoder, its cut first line left out."""
        errors = "surrogateescape" if self.encoding == "utf-8" else "replace"
        self.decoder = codecs.getincrementaldecoder(self.encoding)(errors=errors)
        self.carry = ""
        self.skip_partial = skip_partial

    def feed(self, chunk: bytes) -> Iterator[str]:
        yield from self._text(self.decoder.decode(chunk), final=False)

    def flush(self, drop_partial: bool) -> Iterator[str]:
        text = self.decoder.decode(b"", final=True)
        if drop_partial:
            self.carry = ""
            return
        yield from self._text(text, final=True)

    def _text(self, text: str, final: bool) -> Iterator[str]:
        text = self.carry + text
        if self.skip_partial:
            if "\n" not in text and "\r" not in text:
                self.carry = "" if final else text[-LONGEST_LINE:]
                return
            text = re.split(r"\r\n|\r|\n", text, maxsplit=1)[1]
            self.skip_partial = False
        if not final and text.endswith("\r"):  # a CR the next chunk may pair with its LF
            text, self.carry = text[:-1], "\r"
        else:
            self.carry = ""
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        end = len(text) if final else text.rfind("\n") + 1
        whole, rest = text[:end], text[end:] + self.carry
        while len(rest) > LONGEST_LINE:  # one line longer than any message: read it in pieces
            whole += rest[:LONGEST_LINE] + "\n"
            rest = rest[LONGEST_LINE:]
            self.split += 1
        self.carry = rest
        if whole:
            whole = self._clean(whole)
            self.read.lines += whole.count("\n") + (0 if whole.endswith("\n") else 1)
            yield whole

    def _clean(self, text: str) -> str:
        """Terminal artefacts out: colour codes, backspaces, NULs; undecodable bytes counted."""
        if self.encoding == "utf-8":
            text, undecoded = _UNDECODED.subn("\ufffd", text)
            self.read.replaced += undecoded
        else:
            self.read.replaced += text.count("\ufffd")
        if "\x1b" in text:
            text = ANSI.sub("", text)
        if "\b" in text:
            text = re.sub(r"[^\n]\x08", "", text).replace("\b", "")
        return text.replace("\x00", "").replace("\ufeff", "")  # a UTF-16 BOM decoded by its byte order


def _sniff(head: bytes) -> str:
    """UTF-8 unless a BOM or the NUL pattern of UTF-16 (PowerShell's `>`) says otherwise."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    # the byte order the BOM gives, named: a decoder started again after a gap (a large file's
    # tail) meets no BOM, and "utf-16" would refuse the tail (found by hypothesis)
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
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
