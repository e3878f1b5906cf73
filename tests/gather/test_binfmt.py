"""Binary header reading, on real headers cut from registry wheels (tests/data/binheads)."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

from tfdoctor.inside.shared import binfmt

HEADS = Path(__file__).parents[1] / "data" / "binheads"


@pytest.mark.parametrize(
    "name, fmt, archs",
    [
        ("tensorflow_metal-libmetal_plugin.dylib-macosx_12_0_arm64.head", "mach-o", ["arm64"]),
        ("tensorflow_metal-libmetal_plugin.dylib-macosx_12_0_x86_64.head", "mach-o", ["x86_64"]),
        ("markupsafe-_speedups.cpython-311-darwin.so-macosx_10_9_universal2.head", "mach-o-fat", ["x86_64", "arm64"]),
        ("markupsafe-_speedups.cpython-311-darwin.so-macosx_11_0_arm64.head", "mach-o", ["arm64"]),
    ],
)
def test_real_macho_headers(name, fmt, archs):
    assert binfmt.describe_file(str(HEADS / name)) == {"format": fmt, "archs": archs}


def test_this_interpreter_is_elf_of_its_own_arch():
    import platform

    info = binfmt.describe_file(sys.executable)
    assert info["format"] == "elf"
    assert info["archs"] == [{"aarch64": "arm64"}.get(platform.machine(), platform.machine())]


def test_java_class_is_not_mistaken_for_universal_binary():
    java = b"\xca\xfe\xba\xbe" + struct.pack(">HH", 0, 52) + b"\x00" * 100
    assert binfmt.describe_header(java)["format"] == "unknown"


def test_arm64e_subtype_and_pe_and_garbage():
    arm64e = b"\xcf\xfa\xed\xfe" + struct.pack("<iI", 0x0100000C, 2)
    assert binfmt.describe_header(arm64e) == {"format": "mach-o", "archs": ["arm64e"]}
    pe = bytearray(b"MZ" + b"\x00" * 0x3E)
    struct.pack_into("<I", pe, 0x3C, 0x40)
    pe += b"PE\x00\x00" + struct.pack("<H", 0xAA64)
    assert binfmt.describe_header(bytes(pe)) == {"format": "pe", "archs": ["arm64"]}
    assert binfmt.describe_header(b"") == {"format": "empty", "archs": []}
    assert binfmt.describe_header(b"\xcf\xfa") == {"format": "unknown", "archs": []}
    assert binfmt.describe_header(b"not a library at all")["format"] == "unknown"


def test_unreadable_file_is_an_error_not_an_exception(tmp_path):
    info = binfmt.describe_file(str(tmp_path / "missing.dylib"))
    assert info["format"] is None and "FileNotFoundError" in info["error"]
