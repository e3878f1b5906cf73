"""Symbol tables and export tries: which names a Mach-O image defines for others, and which it
leaves undefined.

nlist entries (<mach-o/nlist.h>) are read for images without an export trie and for `nm -m -u`
style imports; dyld's export trie (LC_DYLD_EXPORTS_TRIE or the dyld-info export span) is what
dyld itself binds against. Maintainer tooling only (tools/macho.py's MachO and
tools/binary_zip.py read images with these).
"""

from __future__ import annotations

import struct

from macho_base import (
    EXPORT_REEXPORT,
    N_ABS,
    N_EXT,
    N_INDR,
    N_PEXT,
    N_SECT,
    N_STAB,
    N_TYPE,
    MachOError,
    uleb128,
)


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
