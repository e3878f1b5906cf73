"""tools/macho.py on excerpts cut from real wheels (tests/data/macho, sources in SOURCES.md).

The expected counts are not this reader's own output: they were read from the same files with
LLVM's tools (llvm-nm -m --undefined-only, llvm-objdump --macho --exports-trie), and the build
versions agree with the reference facts (tests/data/reference/metal_binaries_2026-11.json.gz
plugin_build_version).
"""

from __future__ import annotations

import gzip
import json
import struct
import sys
from collections import Counter
from pathlib import Path

import pytest
from support.reference import METAL_BINARIES, load_reference

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "macho"
sys.path.insert(0, str(REPO / "tools"))

import macho  # noqa: E402
import macho_base  # noqa: E402
import macho_symbols  # noqa: E402

PYWRAP = "@rpath/_pywrap_tensorflow_internal.so"


def excerpt(name: str) -> bytes:
    """The file an excerpt was cut from, with the bytes outside its spans zeroed."""
    meta_line, _, body = gzip.decompress((DATA / name).read_bytes()).partition(b"\n")
    meta = json.loads(meta_line)
    buf, pos = bytearray(meta["size"]), 0
    for offset, size in meta["spans"]:
        buf[offset:offset + size] = body[pos:pos + size]
        pos += size
    assert pos == len(body)
    return bytes(buf)


@pytest.fixture(scope="module")
def metal_120() -> macho.MachO:
    return macho.parse(excerpt("tensorflow_metal-1.2.0-arm64-libmetal_plugin.excerpt.gz"))


@pytest.fixture(scope="module")
def metal_110() -> macho.MachO:
    return macho.parse(excerpt("tensorflow_metal-1.1.0-arm64-libmetal_plugin.excerpt.gz"))


@pytest.fixture(scope="module")
def metal_060() -> macho.MachO:
    return macho.parse(excerpt("tensorflow_metal-0.6.0-arm64-libmetal_plugin.excerpt.gz"))


def test_load_commands_of_metal_120(metal_120):
    m = metal_120
    assert (m.arch, m.twolevel) == ("arm64", True)
    assert m.id_name == "bazel-out/darwin_arm64-opt/bin/metal_plugin/libmetal_plugin.dylib"
    names = [d.name for d in m.dylibs]
    assert names[:4] == ["/usr/lib/libc++.1.dylib", PYWRAP, "/usr/lib/libSystem.B.dylib",
                         "/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation"]
    assert {d.kind for d in m.dylibs} == {"load"}
    assert m.rpaths and m.rpaths[0].startswith("@loader_path/../_solib_darwin_arm64/")
    assert m.build == {"platform": "macos", "minos": "12.1", "sdk": "15.2"}
    assert [s.name for s in m.segments] == ["__TEXT", "__DATA_CONST", "__DATA", "__LINKEDIT"]


def test_build_versions_agree_with_the_reference(metal_110, metal_120):
    expected = {"1.1.0": {"minos": "11.3", "sdk": "14.0"}, "1.2.0": {"minos": "12.1", "sdk": "15.2"}}
    assert load_reference(METAL_BINARIES)["plugin_build_version"] == expected
    for image, version in ((metal_110, "1.1.0"), (metal_120, "1.2.0")):
        assert {k: image.build[k] for k in ("minos", "sdk")} == expected[version]


@pytest.mark.parametrize("fixture, two_level, flat, libcxx", [
    ("metal_120", 27, 120, 161),  # llvm-nm -m --undefined-only: 458 undefined symbols in all
    ("metal_110", 36, 124, 138),
])
def test_imports_from_bind_opcodes_match_llvm_nm(request, fixture, two_level, flat, libcxx):
    image = request.getfixturevalue(fixture)
    by_library = Counter(i.library for i in image.imports())
    assert by_library[PYWRAP] == two_level
    assert by_library[macho_base.FLAT] == flat
    assert by_library["/usr/lib/libc++.1.dylib"] == libcxx
    assert sum(by_library.values()) == 458


def test_binds_land_in_data_segments_and_lazy_pointers(metal_120):
    segments = {s.name: s for s in metal_120.segments}
    lazy = next(s for s in segments["__DATA"].sections if s[0] == "__la_symbol_ptr")
    binds = metal_120.binds()
    for b in binds:
        if b.lazy:
            assert lazy[1] <= b.address < lazy[1] + lazy[2]
        else:
            assert any(s.vmaddr <= b.address < s.vmaddr + s.vmsize
                       for s in (segments["__DATA_CONST"], segments["__DATA"]))
    # llvm-objdump --macho --bind / --lazy-bind: the first bind, and 354 lazy-bind rows
    assert (binds[0].address, binds[0].name, binds[0].library) == (0x320038, "_TF_GetInputPropertiesList", macho_base.FLAT)
    assert sum(b.lazy for b in binds) == 354


def test_rebases_and_fixups_of_dyld_info(metal_120):
    rebases, binds = metal_120.fixups()
    assert len(rebases) == 5354
    assert binds == metal_120.binds()


def test_export_trie_of_metal_120(metal_120):
    trie = metal_120.export_trie()
    assert trie is not None
    assert metal_120.address_of("_TF_InitKernel") == 0x63D20
    assert {"_TF_InitKernel", "_SE_InitPlugin", "_TF_InitGraph"} <= set(trie)


def test_export_trie_with_reexports_of_tensorflow_2191():
    image = macho.parse(excerpt("tensorflow-2.19.1-arm64-_pywrap_tensorflow_internal.excerpt.gz"))
    assert image.id_name == PYWRAP
    assert [d.name for d in image.dylibs if d.name.startswith("@rpath")] == [
        "@rpath/libtensorflow_cc.2.dylib", "@rpath/libtensorflow_framework.2.dylib"]
    trie = image.export_trie()
    assert len(trie) == 1739  # llvm-objdump --macho --exports-trie
    reexports = {n for n, (flags, _v) in trie.items() if flags & macho_base.EXPORT_REEXPORT}
    assert len(reexports) == 450
    assert trie["_TF_NewKernelBuilder"] == (8, "reexport:2:_TF_NewKernelBuilder")
    exports = image.exports()
    assert "_TF_RegisterKernelBuilder" in exports
    # what tensorflow-metal 1.1.0 binds to this library and 2.19.1 no longer has (reference reason a)
    assert "__ZN3tsl8internal10LogMessageC1EPKcii" not in exports
    off, size = image.commands[macho_base.LC_DYLD_INFO_ONLY][8:10]
    raw = image.data[off:off + size]
    for name in list(trie)[::50] + ["_TF_Nope", "_TF", ""]:
        assert macho_symbols.trie_lookup(raw, name) == trie.get(name)


def test_chained_fixups_of_metal_060(metal_060):
    m = metal_060
    assert macho_base.LC_DYLD_CHAINED_FIXUPS in m.commands and macho_base.LC_DYLD_INFO_ONLY not in m.commands
    assert m.build == {"platform": "macos", "minos": "12.5", "sdk": "12.5"}
    by_library = Counter(i.library for i in m.imports())
    assert by_library[macho_base.FLAT] == 57  # llvm-nm: 57 "dynamically looked up"
    assert not any(lib.startswith("@rpath") for lib in by_library)  # no TensorFlow library linked
    rebases, binds = m.chained_fixups()
    sections = {s[0]: s for seg in m.segments for s in seg.sections}
    _name, got_addr, got_size, _off = sections["__got"]
    slots = {a for a, _t in rebases if got_addr <= a < got_addr + got_size}
    slots |= {b.address for b in binds if got_addr <= b.address < got_addr + got_size}
    assert slots == set(range(got_addr, got_addr + got_size, 8))  # the chains cover the GOT exactly
    assert {b.name for b in binds} == {i.name for i in m.chained_imports()}


def test_universal_binary_slices():
    head = (REPO / "tests" / "data" / "binheads" /
            "markupsafe-_speedups.cpython-311-darwin.so-macosx_10_9_universal2.head").read_bytes()
    assert [s[0] for s in macho.slices(head)] == ["x86_64", "arm64"]
    with pytest.raises(macho_base.MachOError):
        macho.parse(head, "arm64_32")


@pytest.mark.parametrize("data", [b"", b"\xcf\xfa", b"\x7fELF" + b"\0" * 60, b"\xca\xfe\xba\xbe\0\0\0\x34" + b"\0" * 64])
def test_garbage_is_a_macho_error(data):
    with pytest.raises(macho_base.MachOError):
        macho.parse(data)


def test_truncated_linkedit_is_a_macho_error(metal_120):
    cut = macho.parse_thin(metal_120.data[:200_000])
    assert cut.id_name == metal_120.id_name  # load commands are all there
    with pytest.raises(macho_base.MachOError):
        cut.binds()


def test_leb128():
    assert macho_base.uleb128(bytes([0xE5, 0x8E, 0x26]), 0) == (624485, 3)
    assert macho_base.sleb128(bytes([0xC0, 0xBB, 0x78]), 0) == (-123456, 3)
    with pytest.raises(macho_base.MachOError):
        macho_base.uleb128(bytes([0x80]), 0)


# -- weak imports: dyld leaves a missing one NULL instead of failing the load ----------------------


def test_weak_imports_from_bind_opcodes_match_llvm_objdump(metal_110, metal_120):
    """BIND_SYMBOL_FLAGS_WEAK_IMPORT in real bind opcodes: `llvm-objdump --macho --bind` (LLVM 14)
    marks exactly these rows `(weak_import)`: Objective-C classes of newer macOS releases."""
    mpsg = "/System/Library/Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/MetalPerformanceShadersGraph"
    mps = "/System/Library/Frameworks/MetalPerformanceShaders.framework/Versions/A/MetalPerformanceShaders"
    assert {(i.name, i.library) for i in metal_110.imports() if i.weak} == {
        ("_OBJC_CLASS_$_MPSGraphCompilationDescriptor", mpsg),
        ("_OBJC_CLASS_$_MPSGraphExecutableExecutionDescriptor", mpsg),
        ("_OBJC_CLASS_$_MPSGraphGRUDescriptor", mpsg), ("_OBJC_CLASS_$_MPSGraphLSTMDescriptor", mpsg)}
    assert {(i.name, i.library) for i in metal_120.imports() if i.weak} == {
        ("_OBJC_CLASS_$_MPSNDArrayIdentity", mps),
        ("_OBJC_CLASS_$_MPSGraphGRUDescriptor", mpsg), ("_OBJC_CLASS_$_MPSGraphLSTMDescriptor", mpsg)}


WEAK_CASE = [("_TF_Required", 1, False), ("_TF_Optional", 1, True),
             ("_TF_FlatRequired", -2, False), ("_TF_FlatOptional", -2, True)]
"""(name, library ordinal, weak): two binds to the linked TensorFlow library, two flat lookups."""


def minimal_dylib(fixups: str, imports=WEAK_CASE) -> bytes:
    """A thin arm64 MH_DYLIB that links @rpath/_pywrap_tensorflow_internal.so and imports only
    `imports`, recorded as dyld-info bind opcodes ("opcodes") or chained-fixup imports
    ("chained"), with an nlist symbol table (N_WEAK_REF in n_desc) either way. Layouts from
    <mach-o/loader.h> (mach_header_64, segment_command_64, dylib_command, symtab_command,
    dyld_info_command, linkedit_data_command), <mach-o/nlist.h> and <mach-o/fixup-chains.h>
    (dyld_chained_fixups_header, DYLD_CHAINED_IMPORT), apple-oss-distributions/dyld."""
    strings = b"\0" + b"".join(n.encode() + b"\0" for n, _o, _w in imports)
    offsets = [strings.index(b"\0" + n.encode() + b"\0") + 1 for n, _o, _w in imports]
    nlist = b"".join(struct.pack("<IBBHQ", off, macho_base.N_EXT, 0,
                                 ((0xFE if o == -2 else o) << 8) | (macho_base.N_WEAK_REF if w else 0), 0)
                     for off, (_n, o, w) in zip(offsets, imports))
    if fixups == "chained":
        table = b"".join(struct.pack("<I", (o & 0xFF) | (w << 8) | (off << 9))
                         for off, (_n, o, w) in zip(offsets, imports))
        header = struct.pack("<7I", 0, 28, 32, 32 + len(table), len(imports), 1, 0)
        blob = header + struct.pack("<I", 0) + table + strings  # starts_in_image: no segments
    else:
        blob = b""
        for i, (name, o, w) in enumerate(imports):
            blob += bytes([0x10 | o]) if o > 0 else bytes([0x30 | (o & 0x0F)])  # ordinal imm / special
            blob += bytes([0x40 | int(w)]) + name.encode() + b"\0" + b"\x51"  # symbol + flags, pointer
            blob += bytes([0x70, 8 * i, 0x90])  # segment 0 at offset 8*i, DO_BIND
        blob += b"\0"
    name = b"@rpath/_pywrap_tensorflow_internal.so\0".ljust(40, b"\0")
    cmds_size = 72 + (24 + len(name)) + 24 + (16 if fixups == "chained" else 48)
    start = 32 + cmds_size
    sym_off, str_off, blob_off = start, start + len(nlist), start + len(nlist) + len(strings)
    cmds = struct.pack("<II16sQQQQiiII", 0x19, 72, b"__DATA", 0, 0x1000, 0, 0, 3, 3, 0, 0)
    cmds += struct.pack("<6I", macho_base.LC_LOAD_DYLIB, 24 + len(name), 24, 2, 0x10000, 0x10000) + name
    cmds += struct.pack("<6I", macho_base.LC_SYMTAB, 24, sym_off, len(imports), str_off, len(strings))
    if fixups == "chained":
        cmds += struct.pack("<4I", macho_base.LC_DYLD_CHAINED_FIXUPS, 16, blob_off, len(blob))
    else:
        cmds += struct.pack("<12I", macho_base.LC_DYLD_INFO_ONLY, 48, 0, 0, blob_off, len(blob), 0, 0, 0, 0, 0, 0)
    head = struct.pack("<8I", macho_base.MH_MAGIC_64, 0x0100000C, 0, 6, 4, cmds_size, macho_base.MH_TWOLEVEL, 0)
    return head + cmds + nlist + strings + blob


@pytest.mark.parametrize("fixups", ["opcodes", "chained"])
def test_the_weak_flag_is_read_from_binds_chained_imports_and_nlist(fixups):
    image = macho.parse(minimal_dylib(fixups))
    expected = {(n, PYWRAP if o == 1 else macho_base.FLAT, w) for n, o, w in WEAK_CASE}
    assert {(i.name, i.library, i.weak) for i in image.imports()} == expected
    assert {(i.name, i.library, i.weak) for i in image.symtab_imports()} == expected
    if fixups == "opcodes":
        assert [(b.name, b.weak, b.address) for b in image.binds()] == [
            (n, w, 8 * k) for k, (n, _o, w) in enumerate(WEAK_CASE)]
    else:
        assert {(i.name, i.weak) for i in image.chained_imports()} == {(n, w) for n, _o, w in WEAK_CASE}
