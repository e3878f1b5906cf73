"""Binds and rebases: the pointers dyld fills in with imported symbols or slides, read from
dyld-info opcodes (LC_DYLD_INFO[_ONLY] bind, lazy-bind and rebase streams) or from the chains
of LC_DYLD_CHAINED_FIXUPS and its import table.

Each import keeps its weak flag as the format records it (BIND_SYMBOL_FLAGS_WEAK_IMPORT in the
opcodes, the weak_import bit of a chained import): dyld leaves a missing weak import NULL
instead of failing the load. Functions of a parsed image (tools/macho.py's MachO, whose methods
call them), typed by what they read of it (ParsedImage) so this module does not import the one
that imports it; maintainer tooling only.
"""

from __future__ import annotations

import struct
from typing import Protocol

from macho_base import (
    LC_DYLD_CHAINED_FIXUPS,
    LC_DYLD_INFO,
    LC_DYLD_INFO_ONLY,
    Bind,
    Import,
    MachOError,
    Segment,
    sleb128,
    uleb128,
)


class ParsedImage(Protocol):
    """What the readers here use of a parsed image; tools/macho.py's MachO is one."""

    data: bytes
    arch: str
    segments: list[Segment]
    commands: dict[int, tuple[int, ...]]

    def library(self, ordinal: int) -> str: ...

    def base_address(self) -> int: ...

    def need(self, end: int) -> None: ...


def bind_opcodes(image: ParsedImage, off: int, size: int, lazy: bool) -> list[Bind]:
    """The binds one dyld-info opcode stream (bind or lazy bind) describes."""
    image.need(off + size)
    data, pos, end = image.data, off, off + size
    ptr = 8 if image.arch in ("x86_64", "arm64") else 4
    ordinal, name, weak, addend, seg, seg_off = 0, "", False, 0, 0, 0
    out: list[Bind] = []

    def emit() -> None:
        out.append(Bind(segment_at(image, seg).vmaddr + seg_off, name, image.library(ordinal),
                        addend, weak, lazy))

    while pos < end:
        byte = data[pos]
        pos += 1
        op, imm = byte & 0xF0, byte & 0x0F
        if op == 0x00:  # DONE (lazy binds use it between entries)
            if not lazy:
                break
        elif op == 0x10:  # SET_DYLIB_ORDINAL_IMM
            ordinal = imm
        elif op == 0x20:  # SET_DYLIB_ORDINAL_ULEB
            ordinal, pos = uleb128(data, pos)
        elif op == 0x30:  # SET_DYLIB_SPECIAL_IMM
            ordinal = imm - 16 if imm else 0
        elif op == 0x40:  # SET_SYMBOL_TRAILING_FLAGS_IMM
            stop = data.index(b"\0", pos)
            name, pos = data[pos:stop].decode("utf-8", "replace"), stop + 1
            weak = bool(imm & 0x1)
        elif op == 0x50:  # SET_TYPE_IMM
            pass
        elif op == 0x60:  # SET_ADDEND_SLEB
            addend, pos = sleb128(data, pos)
        elif op == 0x70:  # SET_SEGMENT_AND_OFFSET_ULEB
            seg = imm
            seg_off, pos = uleb128(data, pos)
        elif op == 0x80:  # ADD_ADDR_ULEB
            delta, pos = uleb128(data, pos)
            seg_off = (seg_off + delta) & 0xFFFFFFFFFFFFFFFF
        elif op == 0x90:  # DO_BIND
            emit()
            seg_off += ptr
        elif op == 0xA0:  # DO_BIND_ADD_ADDR_ULEB
            emit()
            delta, pos = uleb128(data, pos)
            seg_off = (seg_off + ptr + delta) & 0xFFFFFFFFFFFFFFFF
        elif op == 0xB0:  # DO_BIND_ADD_ADDR_IMM_SCALED
            emit()
            seg_off += ptr + imm * ptr
        elif op == 0xC0:  # DO_BIND_ULEB_TIMES_SKIPPING_ULEB
            count, pos = uleb128(data, pos)
            skip, pos = uleb128(data, pos)
            for _ in range(count):
                emit()
                seg_off += ptr + skip
        elif op == 0xD0:  # THREADED (arm64e): only the ordinal table matters here
            if imm == 0x00:  # SET_BIND_ORDINAL_TABLE_SIZE_ULEB
                _n, pos = uleb128(data, pos)
        else:
            raise MachOError(f"unknown bind opcode 0x{byte:02x}")
    return out


def rebases(image: ParsedImage) -> list[int]:
    """Addresses of the pointers dyld slides (dyld-info rebase opcodes)."""
    info = image.commands.get(LC_DYLD_INFO_ONLY) or image.commands.get(LC_DYLD_INFO)
    if info is None:
        return []
    off, size = info[0], info[1]
    image.need(off + size)
    data, pos, end = image.data, off, off + size
    ptr = 8 if image.arch in ("x86_64", "arm64") else 4
    seg, seg_off, out = 0, 0, []
    while pos < end:
        byte = data[pos]
        pos += 1
        op, imm = byte & 0xF0, byte & 0x0F
        if op == 0x00:
            break
        if op == 0x10:  # SET_TYPE_IMM
            continue
        if op == 0x20:  # SET_SEGMENT_AND_OFFSET_ULEB
            seg = imm
            seg_off, pos = uleb128(data, pos)
        elif op == 0x30:  # ADD_ADDR_ULEB
            delta, pos = uleb128(data, pos)
            seg_off += delta
        elif op == 0x40:  # ADD_ADDR_IMM_SCALED
            seg_off += imm * ptr
        elif op in (0x50, 0x60, 0x70, 0x80):
            count, skip = imm, 0
            if op == 0x60:  # DO_REBASE_ULEB_TIMES
                count, pos = uleb128(data, pos)
            elif op == 0x70:  # DO_REBASE_ADD_ADDR_ULEB
                count = 1
                skip, pos = uleb128(data, pos)
            elif op == 0x80:  # DO_REBASE_ULEB_TIMES_SKIPPING_ULEB
                count, pos = uleb128(data, pos)
                skip, pos = uleb128(data, pos)
            base = segment_at(image, seg).vmaddr
            for _ in range(count):
                out.append(base + seg_off)
                seg_off += ptr + skip
        else:
            raise MachOError(f"unknown rebase opcode 0x{byte:02x}")
    return out


def chained_imports(image: ParsedImage) -> list[Import]:
    """The import table of LC_DYLD_CHAINED_FIXUPS (dyld_chained_fixups_header)."""
    off, size = image.commands[LC_DYLD_CHAINED_FIXUPS]
    image.need(off + size)
    blob = image.data[off:off + size]
    _ver, _starts, imports_off, symbols_off, count, fmt, _comp = struct.unpack_from("<7I", blob, 0)
    out = []
    for i in range(count):
        weak, name_off, addend = False, 0, 0
        if fmt == 1:  # DYLD_CHAINED_IMPORT
            raw, = struct.unpack_from("<I", blob, imports_off + 4 * i)
            lib, weak, name_off = raw & 0xFF, bool(raw >> 8 & 1), raw >> 9
            lib = lib - 256 if lib > 0xF0 else lib
        elif fmt == 2:  # DYLD_CHAINED_IMPORT_ADDEND
            raw, addend = struct.unpack_from("<Ii", blob, imports_off + 8 * i)
            lib, weak, name_off = raw & 0xFF, bool(raw >> 8 & 1), raw >> 9
            lib = lib - 256 if lib > 0xF0 else lib
        elif fmt == 3:  # DYLD_CHAINED_IMPORT_ADDEND64
            raw, addend = struct.unpack_from("<Qq", blob, imports_off + 16 * i)
            lib, weak, name_off = raw & 0xFFFF, bool(raw >> 16 & 1), raw >> 32 & 0xFFFFFFFF
            lib = lib - 65536 if lib > 0xFFF0 else lib
        else:
            raise MachOError(f"unknown chained import format {fmt}")
        end = blob.index(b"\0", symbols_off + name_off)
        name = blob[symbols_off + name_off:end].decode("utf-8", "replace")
        out.append(Import(name, image.library(lib), weak))
    return out


def chained_fixups(image: ParsedImage) -> tuple[list[tuple[int, int]], list[Bind]]:
    """Walk the fixup chains of every page: (address, unslid target) of each rebase and
    each bind. Formats DYLD_CHAINED_PTR_64 (2) and _64_OFFSET (6), what arm64 macOS uses."""
    off, size = image.commands[LC_DYLD_CHAINED_FIXUPS]
    image.need(off + size)
    blob = image.data[off:off + size]
    starts, = struct.unpack_from("<I", blob, 4)
    imports = chained_imports(image)
    base = image.base_address()
    seg_count, = struct.unpack_from("<I", blob, starts)
    rebases: list[tuple[int, int]] = []
    binds: list[Bind] = []
    for i in range(seg_count):
        info, = struct.unpack_from("<I", blob, starts + 4 + 4 * i)
        if not info:
            continue
        at = starts + info
        _size, page_size, fmt, seg_offset, _max, page_count = struct.unpack_from("<IHHQIH", blob, at)
        if fmt not in (2, 6):
            raise MachOError(f"chained pointer format {fmt} is not supported")
        seg = segment_at(image, i)
        for page in range(page_count):
            start, = struct.unpack_from("<H", blob, at + 22 + 2 * page)
            if start == 0xFFFF:
                continue
            vm = base + seg_offset + page * page_size + start
            while True:
                fileoff = seg.fileoff + (vm - seg.vmaddr)
                image.need(fileoff + 8)
                raw, = struct.unpack_from("<Q", image.data, fileoff)
                if raw >> 63:
                    ordinal, addend = raw & 0xFFFFFF, (raw >> 24) & 0xFF
                    if ordinal >= len(imports):
                        raise MachOError(f"chained bind to import {ordinal} of {len(imports)}")
                    imp = imports[ordinal]
                    binds.append(Bind(vm, imp.name, imp.library, addend, imp.weak))
                else:
                    target = (raw & 0xFFFFFFFFF) | ((raw >> 36) & 0xFF) << 56
                    rebases.append((vm, target + base if fmt == 6 else target))
                step = (raw >> 51) & 0xFFF
                if not step:
                    break
                vm += step * 4
    return rebases, binds


def segment_at(image: ParsedImage, index: int) -> Segment:
    """The segment a bind or chain names by index, or a MachOError when there is none."""
    if index >= len(image.segments):
        raise MachOError(f"segment index {index} out of range")
    return image.segments[index]
