"""Read the format and CPU architectures of an executable or shared library from its header.

An x86_64-only interpreter, a universal2 one, or an x86_64 plugin inside an arm64 environment
can all be told from the first bytes of the file, without loading it. Standard library only:
this module also runs inside the diagnosed interpreter (Python 3.8+).
"""

from __future__ import annotations

import struct

# Mach-O CPU types (mach/machine.h).
_CPU_ARCH_ABI64 = 0x01000000
_CPU_ARCH_ABI64_32 = 0x02000000
_MACHO_CPUS = {
    7: "i386",
    7 | _CPU_ARCH_ABI64: "x86_64",
    12: "arm",
    12 | _CPU_ARCH_ABI64: "arm64",
    12 | _CPU_ARCH_ABI64_32: "arm64_32",
    18: "ppc",
    18 | _CPU_ARCH_ABI64: "ppc64",
}
_CPU_SUBTYPE_MASK = 0x00FFFFFF
_CPU_SUBTYPE_ARM64E = 2

# ELF e_machine values (elf.h).
_ELF_MACHINES = {3: "i386", 40: "arm", 62: "x86_64", 183: "arm64", 243: "riscv", 21: "ppc64"}
# PE/COFF machine values.
_PE_MACHINES = {0x14C: "i386", 0x8664: "x86_64", 0xAA64: "arm64"}

_THIN_MAGICS = {
    b"\xfe\xed\xfa\xce": ">",
    b"\xce\xfa\xed\xfe": "<",
    b"\xfe\xed\xfa\xcf": ">",
    b"\xcf\xfa\xed\xfe": "<",
}
_FAT_MAGIC = b"\xca\xfe\xba\xbe"
_FAT_MAGIC_64 = b"\xca\xfe\xba\xbf"
# Java class files share the fat magic; their "count" field is a class-file version (>= 45).
_MAX_FAT_ARCHS = 30


def _macho_cpu_name(cputype: int, cpusubtype: int) -> str:
    name = _MACHO_CPUS.get(cputype, "cpu-0x%x" % cputype)
    if name == "arm64" and (cpusubtype & _CPU_SUBTYPE_MASK) == _CPU_SUBTYPE_ARM64E:
        return "arm64e"
    return name


def describe_header(head: bytes) -> dict:
    """Return {"format": ..., "archs": [...]} for the first bytes (4 KiB is plenty) of a file.

    Formats: "mach-o", "mach-o-fat" (universal), "elf", "pe", "empty", "unknown".
    """
    if not head:
        return {"format": "empty", "archs": []}
    magic = head[:4]
    if magic in _THIN_MAGICS and len(head) >= 12:
        order = _THIN_MAGICS[magic]
        cputype, cpusubtype = struct.unpack(order + "iI", head[4:12])
        return {"format": "mach-o", "archs": [_macho_cpu_name(cputype & 0xFFFFFFFF, cpusubtype)]}
    if magic in (_FAT_MAGIC, _FAT_MAGIC_64) and len(head) >= 8:
        (count,) = struct.unpack(">I", head[4:8])
        if 0 < count <= _MAX_FAT_ARCHS:
            entry_size = 32 if magic == _FAT_MAGIC_64 else 20
            archs = []
            for i in range(count):
                start = 8 + i * entry_size
                if len(head) < start + 8:
                    break
                cputype, cpusubtype = struct.unpack(">II", head[start : start + 8])
                archs.append(_macho_cpu_name(cputype, cpusubtype))
            return {"format": "mach-o-fat", "archs": archs}
    if magic == b"\x7fELF" and len(head) >= 20:
        order = "<" if head[5:6] == b"\x01" else ">"
        (machine,) = struct.unpack(order + "H", head[18:20])
        return {"format": "elf", "archs": [_ELF_MACHINES.get(machine, "machine-%d" % machine)]}
    if head[:2] == b"MZ" and len(head) >= 0x40:
        (pe_offset,) = struct.unpack("<I", head[0x3C:0x40])
        if len(head) >= pe_offset + 6 and head[pe_offset : pe_offset + 4] == b"PE\x00\x00":
            (machine,) = struct.unpack("<H", head[pe_offset + 4 : pe_offset + 6])
            return {"format": "pe", "archs": [_PE_MACHINES.get(machine, "machine-0x%x" % machine)]}
        return {"format": "pe", "archs": []}
    return {"format": "unknown", "archs": []}


def describe_file(path: str) -> dict:
    """Like describe_header, for a path; unreadable files give {"format": None, "error": ...}."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError as exc:
        return {"format": None, "archs": [], "error": "%s: %s" % (type(exc).__name__, exc)}
    return describe_header(head)
