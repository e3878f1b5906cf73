"""The two sections tools/binary_facts.py writes into compat_matrix.json: `metal_load_check`
(every plugin release against every TensorFlow build, reasons shared between pairs) and
`metal_kernels` (the newest release's GPU kernels whole, older ones as differences), and the
writer that replaces only those sections.

Maintainer tooling, a part of tools/binary_facts.py's sweep.
"""

from __future__ import annotations

import datetime
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import macho  # noqa: E402
from macho_base import FLAT  # noqa: E402
from binary_index import WheelRef, _version_key  # noqa: E402
from binary_load import LOAD_METHOD, SYSTEM_PREFIXES, Image, check_load  # noqa: E402

LIST_LIMIT = 30
"""Symbols kept per list in a reason (the counts are whole)."""


@dataclass
class PluginRead:
    """One tensorflow-metal wheel: its plugin image and, on arm64, its kernel table."""

    wheel: WheelRef
    image: macho.MachO
    kernels: list[dict[str, Any]] | None = None
    kernel_error: str | None = None


def tf_key(wheel: WheelRef) -> str:
    return f"{wheel.package} {wheel.version}"


def build_load_check(plugins: list[PluginRead], reads: dict[WheelRef, list[Image]]) -> dict[str, Any]:
    """The `metal_load_check` section: plugins, TensorFlow wheels, reasons, per-pair results."""
    reasons: dict[str, dict[str, Any]] = {}
    ids: dict[str, str] = {}
    columns = {arch: sorted((w for w in reads if w.arch == arch), key=lambda w: (_version_key(w.version), w.package))
               for arch in sorted({w.arch for w in reads})}
    results: dict[str, dict[str, str]] = {}
    for p in plugins:
        row = []
        for w in columns.get(p.wheel.arch, []):
            r = check_load(p.image, reads[w])
            if r.loads:
                row.append("loads")
                continue
            reason = {"missing_libraries": r.missing_libraries,
                      "missing_two_level": {k: v[:LIST_LIMIT] for k, v in r.missing_two_level.items()},
                      "missing_two_level_count": sum(len(v) for v in r.missing_two_level.values()),
                      "missing_flat": r.missing_flat[:LIST_LIMIT], "missing_flat_count": len(r.missing_flat)}
            text = json.dumps(reason, sort_keys=True)
            if text not in ids:
                ids[text] = f"r{len(ids) + 1}"
                reasons[ids[text]] = reason
            row.append(ids[text])
        results.setdefault(p.wheel.arch, {})[p.wheel.version] = " ".join(row)
    return {
        "about": ("Whether each tensorflow-metal release's libmetal_plugin.dylib can resolve what it imports "
                  "from each TensorFlow build (static load check). tensorflow: arch -> 'PACKAGE VERSION' -> the "
                  "wheel read, in column order; results: arch -> plugin version -> one word per column, 'loads' or "
                  "a reason id; reasons list the missing libraries and symbols (at most "
                  f"{LIST_LIMIT} names per list, with the whole counts); tensorflow_min_macos and each plugin's "
                  "minos/sdk are LC_BUILD_VERSION (the newest minos among the wheel's Mach-O files). Shims without code (tensorflow 2.13.0-2.15.0 "
                  "on arm64, tensorflow-macos 2.15.1 on) have no column: their code is the other package's."),
        "method": LOAD_METHOD,
        "read_on": datetime.date.today().isoformat(),
        "plugins": {v: {p.wheel.arch: _plugin_entry(p) for p in plugins if p.wheel.version == v}
                    for v in sorted({p.wheel.version for p in plugins}, key=_version_key, reverse=True)},
        "tensorflow": {arch: {tf_key(w): w.filename for w in ws} for arch, ws in columns.items()},
        "tensorflow_min_macos": {arch: {tf_key(w): _min_macos(reads[w]) for w in ws} for arch, ws in columns.items()},
        "reasons": reasons,
        "results": results,
    }


def _plugin_entry(p: PluginRead) -> dict[str, Any]:
    imports = p.image.imports()
    libraries = [d.name for d in p.image.dylibs if not d.name.startswith(SYSTEM_PREFIXES)]
    return {"wheel": p.wheel.filename, **{k: v for k, v in p.image.build.items() if k != "platform"},
            "tensorflow_libraries": libraries,
            "two_level_imports": sum(1 for i in imports if i.library in libraries),
            "flat_lookups": sum(1 for i in imports if i.library == FLAT)}


def _min_macos(images: list[Image]) -> str | None:
    """The newest LC_BUILD_VERSION minos among a wheel's images: the macOS it really needs
    (often newer than its wheel tag: tensorflow-macos 2.5.0 is tagged macosx_11_0, needs 12.0)."""
    mins = [i.build["minos"] for i in images if i.build.get("minos")]
    return max(mins, key=lambda v: tuple(int(x) for x in v.split("."))) if mins else None


def build_kernels(plugins: list[PluginRead]) -> dict[str, Any]:
    """The `metal_kernels` section (format: tfdoctor/knowledge/kernels.py): the newest release whole,
    each older one as its differences from the next newer one."""
    import metal_kernels

    tables = {}
    for p in plugins:
        if p.kernels is not None:
            table: dict[str, set[str]] = {}
            for k in p.kernels:
                if k["device"] != "GPU":  # none so far (0.1.0-1.2.0); the format has no device field
                    continue
                text = ",".join(f"{a}={d}" for a, d in sorted(k["constraints"].items()))
                text += (";host=" + ",".join(k["host_memory"])) if k["host_memory"] else ""
                table.setdefault(k["op"], set()).add(text)
            tables[p.wheel.version] = (p.wheel.filename, table)
    versions = sorted(tables, key=_version_key, reverse=True)
    releases: dict[str, Any] = {}
    for i, v in enumerate(versions):
        wheel, table = tables[v]
        if i == 0:
            releases[v] = {"wheel": wheel, "full": {op: sorted(t) for op, t in sorted(table.items())}}
            continue
        base = tables[versions[i - 1]][1]
        added = {op: sorted(table[op] - base.get(op, set())) for op in sorted(table) if table[op] - base.get(op, set())}
        removed = {op: sorted(base[op] - table.get(op, set())) for op in sorted(base) if base[op] - table.get(op, set())}
        releases[v] = {"wheel": wheel, "base": versions[i - 1], "added": added, "removed": removed}
    return {
        "about": ("GPU kernels each tensorflow-metal release registers: op -> kernels, each 'ATTR=dtype,...' with "
                  "';host=INPUT,...' for host-memory inputs. One release is listed whole (full); the others as "
                  "differences from a base release (added, removed)."),
        "method": metal_kernels.METHOD,
        "read_on": datetime.date.today().isoformat(),
        "source": "tools/binary_facts.py: the arm64 wheels of every tensorflow-metal release on the registry",
        "releases": releases,
    }


def write_sections(path: Path, sections: dict[str, Any]) -> None:
    """Replace (or append) only these sections; every other section and the order stay."""
    matrix = json.loads(path.read_text(encoding="utf-8"))
    for name, value in sections.items():
        matrix[name] = value
    path.write_text(json.dumps(matrix, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def section_tool(doc: str | None, name: str, build: Any, argv: list[str] | None = None) -> int:
    """The command line of a tool that reads one section from the registry: `build(fetcher,
    index, jobs)` makes it, and it is printed (--dry-run) or written into compat_matrix.json."""
    import argparse

    from binary_index import INDEX, Fetcher

    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--matrix", type=Path, default=Path(__file__).resolve().parents[1] / "compat_matrix.json")
    parser.add_argument("--index", default=INDEX)
    parser.add_argument("--jobs", type=int, default=6)
    parser.add_argument("--dry-run", action="store_true", help="print the section, do not write")
    args = parser.parse_args(argv)
    section = build(Fetcher(), args.index, args.jobs)
    if args.dry_run:
        print(json.dumps(section, indent=2))
        return 0
    write_sections(args.matrix, {name: section})
    return 0

