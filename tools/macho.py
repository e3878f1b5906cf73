"""A Mach-O reader for the maintainers' binary facts: what a dylib links, imports and exports.

Maintainer tooling only (tools/binary_facts.py, tools/metal_kernels.py); tfdoctor never imports
it. It reads what dyld reads when it loads tensorflow-metal's `libmetal_plugin.dylib` into a
TensorFlow process: the libraries it links (LC_LOAD_DYLIB and kin, matched against install
names, LC_ID_DYLIB), the symbols it binds to each of them in the two-level namespace or looks up
in the flat namespace (dyld-info bind opcodes or chained-fixup imports, cross-checked with the
symbol table), the symbols each TensorFlow library exports (the export trie, or the symbol
table where there is none), and LC_BUILD_VERSION. Formats: Apple's <mach-o/loader.h>,
<mach-o/nlist.h> and <mach-o/fixup-chains.h> (apple-oss-distributions/dyld, cctools).

This module reads the headers and load commands and holds the image; the shared vocabulary is
in macho_base, symbol tables and export tries in macho_symbols, binds and fixup chains in
macho_fixups. Import each name from the module that defines it.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import macho_fixups  # noqa: E402
from macho_base import (  # noqa: E402
    CPU_NAMES,
    DYLIB_COMMANDS,
    DYNAMIC_LOOKUP_ORDINAL,
    EXECUTABLE_ORDINAL,
    FAT_MAGIC,
    FAT_MAGIC_64,
    FLAT,
    LC_BUILD_VERSION,
    LC_DYLD_CHAINED_FIXUPS,
    LC_DYLD_EXPORTS_TRIE,
    LC_DYLD_INFO,
    LC_DYLD_INFO_ONLY,
    LC_ID_DYLIB,
    LC_RPATH,
    LC_SEGMENT,
    LC_SEGMENT_64,
    LC_SYMTAB,
    LC_VERSION_MIN_MACOSX,
    MAIN_EXECUTABLE,
    MH_MAGIC,
    MH_MAGIC_64,
    MH_TWOLEVEL,
    N_EXT,
    N_SECT,
    N_STAB,
    N_TYPE,
    N_UNDF,
    N_WEAK_REF,
    SELF,
    WEAK_LOOKUP,
    Bind,
    Dylib,
    Import,
    MachOError,
    Segment,
)
from macho_symbols import exported_names, parse_export_trie, parse_nlist  # noqa: E402


@dataclass
class MachO:
    """One thin Mach-O image; `data` is the whole slice (load commands and __LINKEDIT)."""

    data: bytes
    arch: str
    filetype: int
    flags: int
    id_name: str | None = None
    dylibs: list[Dylib] = field(default_factory=list)
    rpaths: list[str] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    build: dict[str, str] = field(default_factory=dict)
    commands: dict[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def twolevel(self) -> bool:
        return bool(self.flags & MH_TWOLEVEL)

    def library(self, ordinal: int) -> str:
        """The library a (1-based, or special) library ordinal names."""
        if ordinal == 0:
            return SELF
        if ordinal in (-1, EXECUTABLE_ORDINAL):
            return MAIN_EXECUTABLE
        if ordinal in (-2, DYNAMIC_LOOKUP_ORDINAL) or not self.twolevel:
            return FLAT
        if ordinal == -3:
            return WEAK_LOOKUP
        if 1 <= ordinal <= len(self.dylibs):
            return self.dylibs[ordinal - 1].name
        raise MachOError(f"library ordinal {ordinal} out of range ({len(self.dylibs)} libraries)")

    # -- symbol table ------------------------------------------------------------------------

    def symbols(self) -> list[tuple[str, int, int, int]]:
        """(name, n_type, n_desc, n_value) of every symbol-table entry."""
        if LC_SYMTAB not in self.commands:
            return []
        symoff, nsyms, stroff, strsize = self.commands[LC_SYMTAB]
        self.need(max(symoff + nsyms * (16 if self.is64 else 12), stroff + strsize))
        return parse_nlist(self.data, symoff, nsyms, stroff, strsize, self.is64)

    @property
    def is64(self) -> bool:
        return self.arch in ("x86_64", "arm64")

    def symtab_imports(self) -> list[Import]:
        """Undefined external symbols with their library ordinal (what `nm -m -u` prints)."""
        out = []
        for name, ntype, desc, _value in self.symbols():
            if ntype & N_STAB or not ntype & N_EXT or ntype & N_TYPE != N_UNDF:
                continue
            ordinal = (desc >> 8) & 0xFF
            ordinal = {EXECUTABLE_ORDINAL: -1, DYNAMIC_LOOKUP_ORDINAL: -2}.get(ordinal, ordinal)
            out.append(Import(name, self.library(ordinal), bool(desc & N_WEAK_REF)))
        return out

    def symtab_exports(self) -> set[str]:
        """External, non-private defined symbols (for images without an export trie)."""
        return exported_names(self.symbols())

    # -- exports -------------------------------------------------------------------------------

    def export_trie(self) -> dict[str, tuple[int, int | str]] | None:
        """name -> (flags, address or 'reexport:<ordinal>:<name>') from the export trie;
        None when the image has none."""
        span = self.commands.get(LC_DYLD_EXPORTS_TRIE)
        info = self.commands.get(LC_DYLD_INFO_ONLY) or self.commands.get(LC_DYLD_INFO)
        if span is None and info is not None:
            span = info[8:10]
        if not span or not span[1]:
            return None
        off, size = span
        self.need(off + size)
        return parse_export_trie(self.data[off:off + size])

    def exports(self) -> set[str]:
        """Every symbol another image can bind to here (re-exported ones included)."""
        trie = self.export_trie()
        return set(trie) if trie is not None else self.symtab_exports()

    def address_of(self, symbol: str) -> int | None:
        """The address (relative to the image's load address) of an exported symbol."""
        trie = self.export_trie()
        if trie is not None:
            entry = trie.get(symbol)
            return entry[1] if entry and isinstance(entry[1], int) else None
        for name, ntype, _d, value in self.symbols():
            if name == symbol and ntype & N_TYPE == N_SECT and ntype & N_EXT:
                return value - self.base_address()
        return None

    def base_address(self) -> int:
        return next((s.vmaddr for s in self.segments if s.fileoff == 0 and s.filesize), 0)

    # -- binds and imports ---------------------------------------------------------------------

    def binds(self) -> list[Bind]:
        """Every pointer dyld binds to an import: dyld-info bind and lazy-bind opcodes, or the
        chained-fixup chains. Weak coalescing binds (weak_bind) are left out: they never fail."""
        info = self.commands.get(LC_DYLD_INFO_ONLY) or self.commands.get(LC_DYLD_INFO)
        if info is None:
            return self.chained_fixups()[1] if LC_DYLD_CHAINED_FIXUPS in self.commands else []
        _ro, _rs, bind_off, bind_size, _wo, _ws, lazy_off, lazy_size = info[:8]
        out = self._bind_opcodes(bind_off, bind_size, lazy=False)
        return out + self._bind_opcodes(lazy_off, lazy_size, lazy=True)

    def imports(self) -> list[Import]:
        """Each imported symbol once, from the fixups (binds or chained imports)."""
        seen: dict[tuple[str, str], Import] = {}
        for b in self.binds():
            key = (b.name, b.library)
            if key not in seen or (seen[key].weak and not b.weak):
                seen[key] = Import(b.name, b.library, b.weak)
        if LC_DYLD_CHAINED_FIXUPS in self.commands:
            for imp in self.chained_imports():
                seen.setdefault((imp.name, imp.library), imp)
        return sorted(seen.values(), key=lambda i: (i.library, i.name))

    def _bind_opcodes(self, off: int, size: int, lazy: bool) -> list[Bind]:
        return macho_fixups.bind_opcodes(self, off, size, lazy)

    def rebases(self) -> list[int]:
        """Addresses of the pointers dyld slides (dyld-info rebase opcodes)."""
        return macho_fixups.rebases(self)

    # -- chained fixups ------------------------------------------------------------------------

    def chained_imports(self) -> list[Import]:
        """The import table of LC_DYLD_CHAINED_FIXUPS (dyld_chained_fixups_header)."""
        return macho_fixups.chained_imports(self)

    def chained_fixups(self) -> tuple[list[tuple[int, int]], list[Bind]]:
        """Walk the fixup chains of every page: (address, unslid target) of each rebase and
        each bind. Formats DYLD_CHAINED_PTR_64 (2) and _64_OFFSET (6), what arm64 macOS uses."""
        return macho_fixups.chained_fixups(self)

    def fixups(self) -> tuple[list[tuple[int, int]], list[Bind]]:
        """What a loader must do to the image: (address, unslid target) of each pointer to
        slide, and each bind; from dyld-info opcodes or from the fixup chains."""
        if LC_DYLD_CHAINED_FIXUPS in self.commands:
            return self.chained_fixups()
        out = []
        for address in self.rebases():
            seg = next(s for s in self.segments if s.vmaddr <= address < s.vmaddr + s.vmsize)
            value, = struct.unpack_from("<Q", self.data, seg.fileoff + address - seg.vmaddr)
            out.append((address, value))
        return out, self.binds()

    def need(self, end: int) -> None:
        """Fail with MachOError when the slice is shorter than `end` bytes."""
        if end > len(self.data):
            raise MachOError(f"truncated: need {end} bytes, have {len(self.data)}")


def slices(data: bytes) -> list[tuple[str, int, int]]:
    """(arch, offset, size) of each image in a thin or universal (fat) Mach-O file."""
    if len(data) < 8:
        raise MachOError("too short for a Mach-O header")
    magic, = struct.unpack_from(">I", data, 0)
    if magic in (FAT_MAGIC, FAT_MAGIC_64):
        count, = struct.unpack_from(">I", data, 4)
        if count > 30:
            raise MachOError("not a universal binary (a Java class file?)")
        out = []
        for i in range(count):
            if magic == FAT_MAGIC:
                cpu, _sub, off, size, _align = struct.unpack_from(">iiIII", data, 8 + 20 * i)
            else:
                cpu, _sub, off, size, _align, _r = struct.unpack_from(">iiQQII", data, 8 + 32 * i)
            out.append((CPU_NAMES.get(cpu & 0xFFFFFFFF, str(cpu)), off, size))
        return out
    little, = struct.unpack_from("<I", data, 0)
    if little not in (MH_MAGIC, MH_MAGIC_64):
        raise MachOError(f"not Mach-O (magic 0x{little:08x})")
    cpu, = struct.unpack_from("<I", data, 4)
    return [(CPU_NAMES.get(cpu, str(cpu)), 0, len(data))]


def parse(data: bytes, arch: str | None = None) -> MachO:
    """The image for `arch` (or the only/first one) of a thin or universal Mach-O file.
    Only the load commands are needed for dylibs, rpaths and build version; the rest of the
    methods need the whole slice."""
    picked = slices(data)
    chosen = next((s for s in picked if arch is None or s[0] == arch), None)
    if chosen is None:
        raise MachOError(f"no {arch} slice (has {', '.join(s[0] for s in picked)})")
    _arch, off, size = chosen
    return parse_thin(data[off:off + size] if (off, size) != (0, len(data)) else data)


def parse_thin(data: bytes) -> MachO:
    if len(data) < 28:
        raise MachOError("too short for a Mach-O header")
    magic, cpu, _sub, filetype, ncmds, sizeofcmds, flags = struct.unpack_from("<7I", data, 0)
    if magic not in (MH_MAGIC, MH_MAGIC_64):
        raise MachOError(f"not a thin little-endian Mach-O (magic 0x{magic:08x})")
    image = MachO(data, CPU_NAMES.get(cpu, str(cpu)), filetype, flags)
    pos = 32 if magic == MH_MAGIC_64 else 28
    if pos + sizeofcmds > len(data):
        raise MachOError("load commands cut short")
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, pos)
        if cmdsize < 8 or pos + cmdsize > len(data):
            raise MachOError(f"bad load command size {cmdsize}")
        _command(image, cmd, data, pos, cmdsize)
        pos += cmdsize
    return image


def _cstring(data: bytes, start: int, end: int) -> str:
    stop = data.find(b"\0", start, end)
    return data[start:stop if stop >= 0 else end].decode("utf-8", "replace")


def _version(v: int) -> str:
    major, minor, patch = v >> 16, (v >> 8) & 0xFF, v & 0xFF
    return f"{major}.{minor}" + (f".{patch}" if patch else "")


def _command(image: MachO, cmd: int, data: bytes, pos: int, size: int) -> None:
    if cmd in DYLIB_COMMANDS or cmd == LC_ID_DYLIB:
        name_off, = struct.unpack_from("<I", data, pos + 8)
        name = _cstring(data, pos + name_off, pos + size)
        if cmd == LC_ID_DYLIB:
            image.id_name = name
        else:
            image.dylibs.append(Dylib(name, DYLIB_COMMANDS[cmd]))
    elif cmd == LC_RPATH:
        path_off, = struct.unpack_from("<I", data, pos + 8)
        image.rpaths.append(_cstring(data, pos + path_off, pos + size))
    elif cmd == LC_BUILD_VERSION:
        platform, minos, sdk = struct.unpack_from("<III", data, pos + 8)
        image.build = {"platform": {1: "macos", 2: "ios"}.get(platform, str(platform)),
                       "minos": _version(minos), "sdk": _version(sdk)}
    elif cmd == LC_VERSION_MIN_MACOSX and not image.build:
        minos, sdk = struct.unpack_from("<II", data, pos + 8)
        image.build = {"platform": "macos", "minos": _version(minos), "sdk": _version(sdk)}
    elif cmd in (LC_SEGMENT, LC_SEGMENT_64):
        _segment(image, cmd, data, pos)
    elif cmd == LC_SYMTAB:
        image.commands[cmd] = struct.unpack_from("<4I", data, pos + 8)
    elif cmd in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
        image.commands[cmd] = struct.unpack_from("<10I", data, pos + 8)
    elif cmd in (LC_DYLD_EXPORTS_TRIE, LC_DYLD_CHAINED_FIXUPS):
        image.commands[cmd] = struct.unpack_from("<2I", data, pos + 8)


def _segment(image: MachO, cmd: int, data: bytes, pos: int) -> None:
    if cmd == LC_SEGMENT_64:
        name, vmaddr, vmsize, fileoff, filesize, _maxp, initprot, nsects, _fl = struct.unpack_from(
            "<16sQQQQiiII", data, pos + 8)
        sect_pos, sect_size, sect_fmt = pos + 72, 80, "<16s16sQQI"
    else:
        name, vmaddr, vmsize, fileoff, filesize, _maxp, initprot, nsects, _fl = struct.unpack_from(
            "<16sIIIIiiII", data, pos + 8)
        sect_pos, sect_size, sect_fmt = pos + 56, 68, "<16s16sIII"
    sections = []
    for i in range(nsects):
        sname, _seg, addr, ssize, offset = struct.unpack_from(sect_fmt, data, sect_pos + i * sect_size)
        sections.append((sname.rstrip(b"\0").decode(), addr, ssize, offset))
    image.segments.append(Segment(name.rstrip(b"\0").decode(), vmaddr, vmsize, fileoff, filesize,
                                  initprot, tuple(sections)))
