"""A Mach-O reader for the maintainers' binary facts: what a dylib links, imports and exports.

Maintainer tooling only (tools/binary_facts.py, tools/metal_kernels.py); tfdoctor never imports
it. It reads what dyld reads when it loads tensorflow-metal's `libmetal_plugin.dylib` into a
TensorFlow process: the libraries it links (LC_LOAD_DYLIB and kin, matched against install
names, LC_ID_DYLIB), the symbols it binds to each of them in the two-level namespace or looks up
in the flat namespace (dyld-info bind opcodes or chained-fixup imports, cross-checked with the
symbol table), the symbols each TensorFlow library exports (the export trie, or the symbol
table where there is none), and LC_BUILD_VERSION. Formats: Apple's <mach-o/loader.h>,
<mach-o/nlist.h> and <mach-o/fixup-chains.h> (apple-oss-distributions/dyld, cctools).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

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
        self._need(max(symoff + nsyms * (16 if self.is64 else 12), stroff + strsize))
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
        self._need(off + size)
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
            return self._chained_binds() if LC_DYLD_CHAINED_FIXUPS in self.commands else []
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

    def _segment_at(self, index: int) -> Segment:
        if index >= len(self.segments):
            raise MachOError(f"segment index {index} out of range")
        return self.segments[index]

    def _bind_opcodes(self, off: int, size: int, lazy: bool) -> list[Bind]:
        self._need(off + size)
        data, pos, end = self.data, off, off + size
        ptr = 8 if self.arch in ("x86_64", "arm64") else 4
        ordinal, name, weak, addend, seg, seg_off = 0, "", False, 0, 0, 0
        out: list[Bind] = []

        def emit() -> None:
            out.append(Bind(self._segment_at(seg).vmaddr + seg_off, name, self.library(ordinal),
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

    def rebases(self) -> list[int]:
        """Addresses of the pointers dyld slides (dyld-info rebase opcodes)."""
        info = self.commands.get(LC_DYLD_INFO_ONLY) or self.commands.get(LC_DYLD_INFO)
        if info is None:
            return []
        off, size = info[0], info[1]
        self._need(off + size)
        data, pos, end = self.data, off, off + size
        ptr = 8 if self.arch in ("x86_64", "arm64") else 4
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
                base = self._segment_at(seg).vmaddr
                for _ in range(count):
                    out.append(base + seg_off)
                    seg_off += ptr + skip
            else:
                raise MachOError(f"unknown rebase opcode 0x{byte:02x}")
        return out

    # -- chained fixups ------------------------------------------------------------------------

    def chained_imports(self) -> list[Import]:
        """The import table of LC_DYLD_CHAINED_FIXUPS (dyld_chained_fixups_header)."""
        off, size = self.commands[LC_DYLD_CHAINED_FIXUPS]
        self._need(off + size)
        blob = self.data[off:off + size]
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
            out.append(Import(name, self.library(lib), weak))
        return out

    def _chained_binds(self) -> list[Bind]:
        return self.chained_fixups()[1]

    def chained_fixups(self) -> tuple[list[tuple[int, int]], list[Bind]]:
        """Walk the fixup chains of every page: (address, unslid target) of each rebase and
        each bind. Formats DYLD_CHAINED_PTR_64 (2) and _64_OFFSET (6), what arm64 macOS uses."""
        off, size = self.commands[LC_DYLD_CHAINED_FIXUPS]
        self._need(off + size)
        blob = self.data[off:off + size]
        starts, = struct.unpack_from("<I", blob, 4)
        imports = self.chained_imports()
        base = self.base_address()
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
            seg = self._segment_at(i)
            for page in range(page_count):
                start, = struct.unpack_from("<H", blob, at + 22 + 2 * page)
                if start == 0xFFFF:
                    continue
                vm = base + seg_offset + page * page_size + start
                while True:
                    fileoff = seg.fileoff + (vm - seg.vmaddr)
                    self._need(fileoff + 8)
                    raw, = struct.unpack_from("<Q", self.data, fileoff)
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

    def _need(self, end: int) -> None:
        if end > len(self.data):
            raise MachOError(f"truncated: need {end} bytes, have {len(self.data)}")


def parse_nlist(data: bytes, symoff: int, nsyms: int, stroff: int, strsize: int,
                is64: bool) -> list[tuple[str, int, int, int]]:
    """(name, n_type, n_desc, n_value) of each nlist entry; offsets are into `data`."""
    fmt, size = ("<IBBHQ", 16) if is64 else ("<IBBHI", 12)
    strings = data[stroff:stroff + strsize]
    out = []
    for strx, ntype, _sect, desc, value in struct.iter_unpack(fmt, data[symoff:symoff + nsyms * size]):
        end = strings.find(b"\0", strx)
        out.append((strings[strx:end if end >= 0 else None].decode("utf-8", "replace"), ntype, desc, value))
    return out


def exported_names(symbols: list[tuple[str, int, int, int]]) -> set[str]:
    """The external, non-private, defined names among symbol-table entries."""
    return {name for name, ntype, _d, _v in symbols
            if not ntype & N_STAB and ntype & N_EXT and not ntype & N_PEXT
            and ntype & N_TYPE in (N_SECT, N_ABS, N_INDR)}


def uleb128(data: bytes, pos: int) -> tuple[int, int]:
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


def parse_export_trie(trie: bytes) -> dict[str, tuple[int, int | str]]:
    """Walk dyld's export trie: name -> (flags, address, or 'reexport:<ordinal>:<name>')."""
    out: dict[str, tuple[int, int | str]] = {}
    stack = [(0, "")]
    visited: set[int] = set()
    while stack:
        node, prefix = stack.pop()
        if node in visited or node >= len(trie):
            raise MachOError(f"export trie loops or points outside ({node})")
        visited.add(node)
        info_size, pos = uleb128(trie, node)
        if info_size:
            flags, p = uleb128(trie, pos)
            if flags & EXPORT_REEXPORT:
                ordinal, p = uleb128(trie, p)
                end = trie.index(b"\0", p)
                other = trie[p:end].decode("utf-8", "replace") or prefix
                out[prefix] = (flags, f"reexport:{ordinal}:{other}")
            else:
                address, p = uleb128(trie, p)
                out[prefix] = (flags, address)
        pos += info_size
        children = trie[pos]
        pos += 1
        for _ in range(children):
            end = trie.index(b"\0", pos)
            label = trie[pos:end].decode("utf-8", "replace")
            child, pos = uleb128(trie, end + 1)
            stack.append((child, prefix + label))
    return out


def trie_lookup(trie: bytes, symbol: str) -> tuple[int, int | str] | None:
    """One symbol's export-trie entry, walking only the edges that spell it (fast on the
    hundreds of thousands of exports of libtensorflow_cc); None when it is not exported.
    Every matching edge is tried: lld's tries (TensorFlow 2.14 on) have empty edge labels."""
    stack, seen = [(0, symbol.encode("utf-8"))], set()
    while stack:
        node, rest = stack.pop()
        if (node, len(rest)) in seen or node >= len(trie):
            continue
        seen.add((node, len(rest)))
        info_size, pos = uleb128(trie, node)
        if not rest and info_size:
            flags, p = uleb128(trie, pos)
            if flags & EXPORT_REEXPORT:
                ordinal, p = uleb128(trie, p)
                end = trie.index(b"\0", p)
                return flags, f"reexport:{ordinal}:{trie[p:end].decode('utf-8', 'replace') or symbol}"
            address, _p = uleb128(trie, p)
            return flags, address
        pos += info_size
        children = trie[pos]
        pos += 1
        for _ in range(children):
            end = trie.index(b"\0", pos)
            label = trie[pos:end]
            child, pos = uleb128(trie, end + 1)
            if rest.startswith(label):
                stack.append((child, rest[len(label):]))
    return None


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
