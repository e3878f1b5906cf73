"""The Mach-O vocabulary the maintainers' reader shares: load-command and nlist constants, the
records it returns (Dylib, Import, Bind, Segment), its error, and LEB128 decoding.

Formats: Apple's <mach-o/loader.h>, <mach-o/nlist.h> and <mach-o/fixup-chains.h>
(apple-oss-distributions/dyld, cctools). Split out of tools/macho.py so the symbol-table and
fixup readers can share it without importing the image class.
"""

from __future__ import annotations

from dataclasses import dataclass

FAT_MAGIC, FAT_MAGIC_64 = 0xCAFEBABE, 0xCAFEBABF
MH_MAGIC, MH_MAGIC_64 = 0xFEEDFACE, 0xFEEDFACF
MH_TWOLEVEL = 0x80
CPU_NAMES = {7: "i386", 0x01000007: "x86_64", 12: "arm", 0x0100000C: "arm64", 0x0200000C: "arm64_32"}

LC_REQ_DYLD = 0x80000000
LC_SEGMENT, LC_SEGMENT_64 = 0x1, 0x19
LC_SYMTAB = 0x2
LC_LOAD_DYLIB, LC_ID_DYLIB = 0xC, 0xD
LC_LOAD_WEAK_DYLIB = 0x18 | LC_REQ_DYLD
LC_REEXPORT_DYLIB = 0x1F | LC_REQ_DYLD
LC_LAZY_LOAD_DYLIB = 0x20
LC_LOAD_UPWARD_DYLIB = 0x23 | LC_REQ_DYLD
LC_RPATH = 0x1C | LC_REQ_DYLD
LC_DYLD_INFO, LC_DYLD_INFO_ONLY = 0x22, 0x22 | LC_REQ_DYLD
LC_VERSION_MIN_MACOSX = 0x24
LC_BUILD_VERSION = 0x32
LC_DYLD_EXPORTS_TRIE = 0x33 | LC_REQ_DYLD
LC_DYLD_CHAINED_FIXUPS = 0x34 | LC_REQ_DYLD
DYLIB_COMMANDS = {LC_LOAD_DYLIB: "load", LC_LOAD_WEAK_DYLIB: "weak", LC_REEXPORT_DYLIB: "reexport",
                  LC_LAZY_LOAD_DYLIB: "lazy", LC_LOAD_UPWARD_DYLIB: "upward"}

SELF, MAIN_EXECUTABLE, FLAT, WEAK_LOOKUP = "<self>", "<main-executable>", "<flat>", "<weak>"
"""Library names for dyld's special ordinals 0, -1, -2 (flat lookup) and -3 (weak coalescing)."""

N_STAB, N_PEXT, N_TYPE, N_EXT = 0xE0, 0x10, 0x0E, 0x01
N_UNDF, N_ABS, N_SECT, N_INDR = 0x0, 0x2, 0xE, 0xA
N_WEAK_REF = 0x40
DYNAMIC_LOOKUP_ORDINAL, EXECUTABLE_ORDINAL = 0xFE, 0xFF

EXPORT_KIND_MASK, EXPORT_REEXPORT, EXPORT_STUB_AND_RESOLVER = 0x03, 0x08, 0x10


class MachOError(ValueError):
    """The bytes are not a Mach-O file this reader understands, or are cut short."""


@dataclass(frozen=True)
class Dylib:
    """One library this image links (kind: load, weak, reexport, lazy, upward)."""

    name: str
    kind: str


@dataclass(frozen=True)
class Import:
    """One symbol this image needs from another: `library` is the linked library's name for a
    two-level bind, FLAT for a flat-namespace lookup; weak imports may stay unresolved."""

    name: str
    library: str
    weak: bool = False


@dataclass(frozen=True)
class Bind:
    """A pointer dyld fills in with an imported symbol's address (+ addend)."""

    address: int
    name: str
    library: str
    addend: int = 0
    weak: bool = False
    lazy: bool = False


@dataclass(frozen=True)
class Segment:
    name: str
    vmaddr: int
    vmsize: int
    fileoff: int
    filesize: int
    initprot: int
    sections: tuple[tuple[str, int, int, int], ...] = ()
    """(name, addr, size, offset) of each section."""


def uleb128(data: bytes, pos: int) -> tuple[int, int]:
    """(value, position after it) of an unsigned LEB128 number at `pos`."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise MachOError("truncated ULEB128")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def sleb128(data: bytes, pos: int) -> tuple[int, int]:
    """(value, position after it) of a signed LEB128 number at `pos`."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise MachOError("truncated SLEB128")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return (value - (1 << shift) if byte & 0x40 else value), pos
