"""The macOS floor of every TensorFlow wheel for macOS, for compat_matrix.json's `macos_floors`.

Maintainer tooling, run from the repository root:

    python3 tools/macos_floors.py [--dry-run] [--jobs N]

Two facts per (package, release, architecture, platform tag), for tensorflow, tensorflow-cpu,
tensorflow-gpu and tensorflow-macos, every release with a macOS wheel (0.12 on):
- the wheel tag's minimum macOS (macosx_10_11_x86_64: 10.11) and the Python tags that carry it,
  from the registry's PEP 691 file list: pip installs a wheel on no older macOS;
- the minimum macOS its binaries were built for: the newest LC_BUILD_VERSION (or
  LC_VERSION_MIN_MACOSX) minos among the wheel's Mach-O files, read from one wheel per tag with
  HTTP range reads of each member's first bytes only (the load commands). A tag can be looser
  than the binaries: TensorFlow 2.0.1's cp37 wheel is tagged macosx_10_6_intel (the tag of the
  Python it was built with), and builds made for newer macOS fail at import on an older one with
  'Symbol not found: ____chkstk_darwin ... Expected in: /usr/lib/libSystem.B.dylib'
  (tensorflow/tensorflow#38601).
Only that section of compat_matrix.json is rewritten.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import re
import struct
import sys
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import macho  # noqa: E402
from binary_index import Fetcher, WheelRef, _version_key, index_wheels, pick  # noqa: E402
from binary_sections import section_tool  # noqa: E402
from binary_zip import Member, central_directory  # noqa: E402
from macho_base import MachOError  # noqa: E402

PACKAGES = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos")
HEAD = 1 << 16
"""Bytes of each Mach-O member inflated: its header and load commands are in the first pages."""

_TAG = re.compile(r"macosx_(\d+)_(\d+)_(\w+)$")
_WHEEL = re.compile(r"^[^-]+-[^-]+(?:-\d[^-]*)?-(?P<py>[^-]+)-[^-]+-(?P<plat>[^-]+)\.whl$")


def tag_floor(platform: str) -> str | None:
    """macosx_10_11_x86_64 -> '10.11' (the minimum macOS pip installs the wheel on)."""
    m = _TAG.match(platform)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def arch_tags(wheel: WheelRef) -> list[str]:
    """The wheel's macOS platform tags that serve its architecture (intel and universal2 too)."""
    plat = _WHEEL.match(wheel.filename).group("plat")  # type: ignore[union-attr]
    ends = (wheel.arch, "universal2") + (("intel",) if wheel.arch == "x86_64" else ())
    return sorted(p for p in plat.split(".") if p.startswith("macosx_") and p.endswith(ends))


def python_tags(wheel: WheelRef) -> list[str]:
    return _WHEEL.match(wheel.filename).group("py").split(".")  # type: ignore[union-attr]


def member_head(fetcher: Fetcher, url: str, member: Member, size: int = HEAD) -> bytes:
    """The first `size` inflated bytes of a zip member, from one bounded range read."""
    want = min(member.compressed, size + 4096)
    raw = b"".join(fetcher.stream(url, member.offset, member.offset + 30 + len(member.name.encode()) + 512 + want))
    nlen, xlen = struct.unpack_from("<HH", raw, 26)
    body = raw[30 + nlen + xlen:30 + nlen + xlen + want]
    if member.method != 8:
        return body[:size]
    inflate = zlib.decompressobj(-15)
    return inflate.decompress(body, size)


def binaries_minos(fetcher: Fetcher, wheel: WheelRef) -> tuple[str | None, str | None]:
    """(the newest minos among the wheel's Mach-O files, the file that declares it)."""
    members = [m for m in central_directory(fetcher, wheel.url, wheel.size)
               if re.search(r"\.(so|dylib)$", m.name) and m.size >= 4096]
    best: tuple[tuple[int, ...], str, str] | None = None
    for m in members:
        try:
            image = macho.parse(member_head(fetcher, wheel.url, m), wheel.arch)
        except (MachOError, struct.error, zlib.error, StopIteration, ValueError):
            continue
        minos = image.build.get("minos")
        if minos:
            key = tuple(int(x) for x in minos.split("."))
            if best is None or key > best[0]:
                best = (key, minos, m.name)
    return (best[1], best[2]) if best else (None, None)


def groups(fetcher: Fetcher, index: str) -> dict[tuple[str, str, str, str], list[WheelRef]]:
    """(package, version, arch, platform tag) -> its wheels."""
    out: dict[tuple[str, str, str, str], list[WheelRef]] = defaultdict(list)
    for package in PACKAGES:
        for w in index_wheels(fetcher, package, index):
            tags = arch_tags(w)
            if tags:
                out[(package, w.version, w.arch, max(tags, key=lambda t: _key(tag_floor(t))))].append(w)
    return out


def _key(version: str | None) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split(".")) if version else ()


def build_section(fetcher: Fetcher, index: str, jobs: int) -> dict[str, Any]:
    found = groups(fetcher, index)
    chosen = {g: next(iter(pick(ws).values())) for g, ws in found.items()}
    print(f"{len(found)} (package, release, arch, tag) groups; reading one wheel each", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        minos = dict(zip(chosen, pool.map(lambda w: binaries_minos(fetcher, w), chosen.values())))
    releases: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    for (package, version, arch, tag), wheels in sorted(found.items(), key=lambda kv: (
            kv[0][0], _version_key(kv[0][1]), kv[0][2], _key(tag_floor(kv[0][3])))):
        built_for, by = minos[(package, version, arch, tag)]
        pythons = sorted({p for w in wheels for p in python_tags(w)}, key=lambda p: (len(p), p))
        row = {"tag": tag_floor(tag), "platform_tag": tag, "python": pythons,
               "binaries": built_for, "binaries_file": by,
               "source": f"index file list; binaries of {chosen[(package, version, arch, tag)].filename}"}
        releases.setdefault(package, {}).setdefault(version, {}).setdefault(arch, []).append(row)
    print(f"fetched {fetcher.bytes / 1e6:.0f} MB in {fetcher.requests} requests", file=sys.stderr)
    return {
        "about": ("The minimum macOS of every TensorFlow wheel for macOS: package -> release -> arch -> one row "
                  "per platform tag: tag (the tag's macOS, which pip enforces), python (the Python tags "
                  "with that platform tag), binaries (the newest LC_BUILD_VERSION / LC_VERSION_MIN_MACOSX "
                  "minos among the Mach-O files of one of those wheels: the macOS the build was made for; "
                  "null where no file declares one). The floor of a wheel is the higher of the two; a build "
                  "made for a newer macOS than its tag installs on an older one and fails at import with a "
                  "system symbol missing (tensorflow/tensorflow#38601, #3034)."),
        "source": "the registry's PEP 691 file lists of tensorflow, tensorflow-cpu, tensorflow-gpu and "
                  "tensorflow-macos, and range reads of one wheel per tag (tools/macos_floors.py)",
        "read_on": datetime.date.today().isoformat(),
        "releases": releases,
    }


def main(argv: list[str] | None = None) -> int:
    return section_tool(__doc__, "macos_floors", build_section, argv)


if __name__ == "__main__":
    sys.exit(main())
