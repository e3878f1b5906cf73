"""Mach-O images out of a remote wheel without downloading it: the zip's central directory from
its end records, each member streamed through zlib over HTTP range reads, and of each image only
its load commands and export trie (or symbol table) kept.

Maintainer tooling, a part of tools/binary_facts.py's sweep.
"""

from __future__ import annotations

import concurrent.futures
import re
import struct
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import macho  # noqa: E402
from macho_base import LC_DYLD_EXPORTS_TRIE, LC_DYLD_INFO, LC_DYLD_INFO_ONLY, LC_SYMTAB, MachOError  # noqa: E402
from macho_symbols import exported_names, parse_export_trie, parse_nlist, trie_lookup  # noqa: E402
from binary_index import Fetcher, WheelRef  # noqa: E402
from binary_load import Image  # noqa: E402


@dataclass(frozen=True)
class Member:
    name: str
    method: int
    compressed: int
    size: int
    offset: int


def central_directory(fetcher: Fetcher, url: str, size: int) -> list[Member]:
    """The members of a remote zip, from its end records and central directory only."""
    tail_start = max(0, size - 65536 - 22)
    tail = b"".join(fetcher.stream(url, tail_start, size - 1))
    eocd = tail.rfind(b"PK\x05\x06")
    if eocd < 0:
        raise OSError(f"{url}: no end of central directory")
    _d, _dc, _n, count, cd_size, cd_off, _cl = struct.unpack_from("<HHHHIIH", tail, eocd + 4)
    loc = tail.rfind(b"PK\x06\x07", 0, eocd)
    if loc >= 0 and (cd_off == 0xFFFFFFFF or count == 0xFFFF):
        z64_off, = struct.unpack_from("<Q", tail, loc + 8)
        z64 = tail[z64_off - tail_start:] if z64_off >= tail_start else b"".join(
            fetcher.stream(url, z64_off, z64_off + 55))
        count, _c, cd_size, cd_off = struct.unpack_from("<QQQQ", z64, 24)
    cd = (tail[cd_off - tail_start:cd_off - tail_start + cd_size] if cd_off >= tail_start
          else b"".join(fetcher.stream(url, cd_off, cd_off + cd_size - 1)))
    members, pos = [], 0
    for _ in range(count):
        (_sig, _v, _vn, _fl, method, _t, _dt, _crc, csize, usize, nlen, xlen, clen, _disk, _ia, _ea,
         off) = struct.unpack_from("<IHHHHHHIIIHHHHHII", cd, pos)
        name = cd[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
        extra = cd[pos + 46 + nlen:pos + 46 + nlen + xlen]
        csize, usize, off = _zip64_sizes(extra, csize, usize, off)
        members.append(Member(name, method, csize, usize, off))
        pos += 46 + nlen + xlen + clen
    return members


def _zip64_sizes(extra: bytes, csize: int, usize: int, off: int) -> tuple[int, int, int]:
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, pos + 4))
            usize = next(values) if usize == 0xFFFFFFFF else usize
            csize = next(values) if csize == 0xFFFFFFFF else csize
            off = next(values) if off == 0xFFFFFFFF else off
        pos += 4 + length
    return csize, usize, off


def member_stream(fetcher: Fetcher, url: str, member: Member) -> Iterator[bytes]:
    """The member's uncompressed bytes, inflated as they arrive."""
    raw = fetcher.stream(url, member.offset, member.offset + 30 + len(member.name.encode()) + 64
                         + member.compressed)
    head = b""
    for block in raw:
        head += block
        if len(head) >= 30:
            break
    nlen, xlen = struct.unpack_from("<HH", head, 26)
    while len(head) < 30 + nlen + xlen:
        head += next(raw)
    left, first = member.compressed, head[30 + nlen + xlen:]
    inflate = zlib.decompressobj(-15) if member.method == 8 else None
    try:
        for block in _chain([first], raw):
            block = block[:left]
            left -= len(block)
            if block:
                yield inflate.decompress(block) if inflate else block
            if left <= 0:
                break
        if inflate:
            yield inflate.flush()
    finally:
        raw.close()


def _chain(*parts: Iterable[bytes]) -> Iterator[bytes]:
    for part in parts:
        yield from part


def read_image(chunks: Iterator[bytes], path: str, arch: str, wanted: set[str] | None) -> Image | None:
    """An image's install name, links and exports (those in `wanted`, or all) from a stream
    of the file, keeping only the load commands and the export trie (or symbol table)."""
    head = bytearray()
    for block in chunks:
        head += block
        if len(head) >= 1 << 16:
            break
    try:
        _arch, base, _size = next(s for s in macho.slices(bytes(head[:4096])) if s[0] == arch)
    except (MachOError, StopIteration, struct.error):
        return None
    while len(head) < base + (1 << 16):
        more = next(chunks, b"")
        if not more:
            break
        head += more
    try:
        image = macho.parse_thin(bytes(head[base:]))
    except MachOError:
        return None
    spans = {k: (base + o, n) for k, (o, n) in _linkedit_spans(image).items()}
    captured = {k: _capture(bytes(head), o, n) for k, (o, n) in spans.items()}
    pos, end = len(head), max((o + n for o, n in spans.values()), default=0)
    for block in chunks:
        if pos >= end:
            break
        for k, (o, n) in spans.items():
            if o < pos + len(block) and o + n > pos:
                lo, hi = max(o, pos), min(o + n, pos + len(block))
                captured[k][lo - o:hi - o] = block[lo - pos:hi - pos]
        pos += len(block)
    if hasattr(chunks, "close"):
        chunks.close()  # type: ignore[attr-defined]
    exports = _exports(image, {k: bytes(v) for k, v in captured.items()}, wanted)
    return Image(path=path, id_name=image.id_name,
                 dylibs=[(d.name, d.kind) for d in image.dylibs], rpaths=list(image.rpaths),
                 exports=exports, build=dict(image.build))


def _capture(head: bytes, offset: int, size: int) -> bytearray:
    """A buffer for one span of the file, with what the head already holds of it."""
    buf = bytearray(size)
    if offset < len(head):
        part = head[offset:offset + size]
        buf[:len(part)] = part
    return buf


def _linkedit_spans(image: macho.MachO) -> dict[str, tuple[int, int]]:
    trie = image.commands.get(LC_DYLD_EXPORTS_TRIE)
    if trie is None and (LC_DYLD_INFO_ONLY in image.commands or LC_DYLD_INFO in image.commands):
        info = image.commands.get(LC_DYLD_INFO_ONLY) or image.commands[LC_DYLD_INFO]
        trie = info[8:10]
    if trie and trie[1]:
        return {"trie": (trie[0], trie[1])}
    if LC_SYMTAB in image.commands:
        symoff, nsyms, stroff, strsize = image.commands[LC_SYMTAB]
        return {"symbols": (symoff, nsyms * (16 if image.is64 else 12)), "strings": (stroff, strsize)}
    return {}


def _exports(image: macho.MachO, spans: dict[str, bytes], wanted: set[str] | None) -> set[str]:
    if "trie" in spans:
        if wanted is None:
            return set(parse_export_trie(spans["trie"]))
        return {s for s in wanted if trie_lookup(spans["trie"], s) is not None}
    if "symbols" in spans:
        _symoff, nsyms, _stroff, strsize = image.commands[LC_SYMTAB]
        blob = spans["symbols"] + spans["strings"]
        names = exported_names(parse_nlist(blob, 0, nsyms, len(spans["symbols"]),
                                           strsize, image.is64))
        return names if wanted is None else names & wanted
    return set()


@dataclass
class WheelRead:
    """The Mach-O images of one wheel, and how long reading it took."""

    wheel: WheelRef
    images: list[Image] = field(default_factory=list)
    seconds: float = 0.0


def read_wheel(fetcher: Fetcher, wheel: WheelRef, wanted: set[str] | None, jobs: int = 6) -> WheelRead:
    """Every .so/.dylib member of a wheel as an Image, several members at once (the registry's
    latency, not its bandwidth, bounds the many small members)."""
    start = time.monotonic()
    members = [m for m in central_directory(fetcher, wheel.url, wheel.size)
               if re.search(r"\.(so|dylib)$", m.name) and m.size >= 4096]
    members.sort(key=lambda m: -m.compressed)  # the big one first, the small ones around it
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        images = pool.map(lambda m: read_image(member_stream(fetcher, wheel.url, m), m.name, wheel.arch, wanted),
                          members)
        out = WheelRead(wheel, sorted((i for i in images if i is not None), key=lambda i: i.path))
    out.seconds = time.monotonic() - start
    return out
