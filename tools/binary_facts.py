"""Binary facts for compat_matrix.json: does each tensorflow-metal load with each TensorFlow,
and which GPU kernels does each release register.

Maintainer tooling (`pip install -e ".[maintainers]"`), run from the repository root:

    python3 tools/binary_facts.py [--metal 1.2.0 ...] [--tensorflow 2.19.1 ...] [--dry-run]

For every tensorflow-metal release and every TensorFlow release with macOS wheels
(tensorflow-macos and tensorflow, 2.5 to the newest, pre-releases included; arm64, and x86_64
where metal had Intel wheels) it reads one wheel per version and architecture from the package
index, with HTTP range reads: the zip's central directory, then each Mach-O member streamed
through zlib keeping only its load commands and export trie (nothing is written to disk). The
plugin's imports are checked against the TensorFlow wheel's install names and exports
(`check_load`), its kernels read by emulation (tools/metal_kernels.py). It then
rewrites only the `metal_load_check` and `metal_kernels` sections of compat_matrix.json.

This module is the command line and the sweep; its parts live beside it: binary_index (which
wheels, the HTTP client), binary_zip (images out of remote wheels), binary_load (the load check)
and binary_sections (the sections written).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import sys
import time
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import macho  # noqa: E402
from binary_index import FIRST_TF, INDEX, Fetcher, WheelRef, _version_key, index_wheels, pick  # noqa: E402
from binary_load import Image, wanted_symbols  # noqa: E402
from binary_sections import PluginRead, build_kernels, build_load_check, tf_key, write_sections  # noqa: E402
from binary_zip import central_directory, member_stream, read_wheel  # noqa: E402
from macho_base import MachOError  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def read_plugin(fetcher: Fetcher, wheel: WheelRef) -> PluginRead:
    """The plugin of one tensorflow-metal wheel (0.1.x keep it under .data/purelib/)."""
    members = central_directory(fetcher, wheel.url, wheel.size)
    member = next((m for m in members if m.name.endswith("libmetal_plugin.dylib")), None)
    if member is None:
        member = next(m for m in members if m.name.startswith("tensorflow-plugins/") and m.name.endswith(".dylib"))
    data = b"".join(member_stream(fetcher, wheel.url, member))
    read = PluginRead(wheel, macho.parse(data, wheel.arch))
    if wheel.arch == "arm64":
        import metal_kernels

        try:
            read.kernels = [k.as_dict() for k in metal_kernels.emulate_init_kernel(data).kernels]
        except (metal_kernels.EmulationError, MachOError) as exc:
            read.kernel_error = str(exc)
    return read


def _cached(cache: dict[str, Any], wheel: WheelRef, wanted: set[str]) -> list[Image] | None:
    entry = cache.get(wheel.filename)
    if not entry or not wanted <= set(entry["wanted"]):
        return None
    return [Image(i["path"], i["id"], [tuple(d) for d in i["dylibs"]], i["rpaths"],  # type: ignore[misc]
                  set(i["exports"]) & wanted, i.get("build", {})) for i in entry["images"]]


def _to_cache(images: list[Image], wanted: set[str]) -> dict[str, Any]:
    return {"wanted": sorted(wanted), "images": [
        {"path": i.path, "id": i.id_name, "dylibs": i.dylibs, "rpaths": i.rpaths,
         "exports": sorted(i.exports), "build": i.build} for i in images]}


def select_tensorflow(fetcher: Fetcher, index: str, archs: set[str], only: list[str] | None) -> list[WheelRef]:
    """One wheel per TensorFlow version (2.5 on, pre-releases too) and architecture; shims
    without code (tensorflow-macos 2.15.1 on) are left out."""
    out = []
    for project in ("tensorflow-macos", "tensorflow"):
        for (_p, version, arch), w in pick(index_wheels(fetcher, project, index)).items():
            if arch in archs and _version_key(version)[:2] >= FIRST_TF and w.size > 5_000_000 \
                    and (not only or version in only):
                out.append(w)
    return sorted(out, key=lambda w: (w.arch, _version_key(w.version), w.package))


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    fetcher = Fetcher()
    metal = [w for w in pick(index_wheels(fetcher, "tensorflow-metal", args.index)).values()
             if (not args.metal or w.version in args.metal) and (not args.arch or w.arch in args.arch)]
    metal.sort(key=lambda w: (w.arch, _version_key(w.version)))
    print(f"tensorflow-metal: {len(metal)} wheels ({', '.join(sorted({w.version for w in metal}, key=_version_key))})",
          file=sys.stderr)
    plugins = [read_plugin(fetcher, w) for w in metal]
    for p in plugins:
        kernels = f"{len(p.kernels)} kernels" if p.kernels is not None else (p.kernel_error or "no kernels (x86_64)")
        print(f"  {p.wheel.filename}: macOS {p.image.build.get('minos')}, {kernels}", file=sys.stderr)
    wanted = wanted_symbols(p.image for p in plugins)
    tf_wheels = select_tensorflow(fetcher, args.index, {p.wheel.arch for p in plugins}, args.tensorflow)
    cache = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    print(f"TensorFlow: {len(tf_wheels)} wheels to check against {len(wanted)} imported symbols", file=sys.stderr)
    reads: dict[WheelRef, list[Image]] = {}
    done, hits = 0, 0

    def one(w: WheelRef) -> tuple[WheelRef, list[Image], str]:
        images = _cached(cache, w, wanted)
        if images is not None:
            return w, images, "cached"
        before = fetcher.bytes
        r = read_wheel(fetcher, w, wanted)
        return w, r.images, f"{(fetcher.bytes - before) / 1e6:.0f} MB (all threads), {r.seconds:.1f} s"

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for w, images, note in pool.map(one, tf_wheels):
            done += 1
            hits += note == "cached"
            reads[w] = images
            cache[w.filename] = _to_cache(images, wanted)
            print(f"[{done}/{len(tf_wheels)}] {tf_key(w)} {w.arch}: {len(images)} Mach-O files, {note}",
                  file=sys.stderr, flush=True)
    if args.cache:
        args.cache.write_text(json.dumps(cache))
    load = build_load_check(plugins, reads)
    kernels = build_kernels(plugins)
    pairs = sum(len(row.split()) for by_plugin in load["results"].values() for row in by_plugin.values())
    minutes = (time.monotonic() - started) / 60
    print(f"done: {pairs} pairs checked, {len(plugins)} plugin and {len(tf_wheels)} TensorFlow wheels read "
          f"({hits} from the cache), "
          f"{fetcher.bytes / 1e9:.2f} GB fetched in {fetcher.requests} requests, {minutes:.1f} minutes",
          file=sys.stderr)
    if args.dry_run:
        print(json.dumps({"metal_load_check": load, "metal_kernels": kernels}, indent=2))
        return 0
    write_sections(args.matrix, {"metal_load_check": load, "metal_kernels": kernels})
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--matrix", type=Path, default=REPO / "compat_matrix.json")
    parser.add_argument("--index", default=INDEX)
    parser.add_argument("--metal", nargs="*", help="only these tensorflow-metal versions")
    parser.add_argument("--tensorflow", nargs="*", help="only these TensorFlow versions")
    parser.add_argument("--arch", choices=("arm64", "x86_64"), action="append")
    parser.add_argument("--jobs", type=int, default=2, help="TensorFlow wheels read at once")
    parser.add_argument("--cache", type=Path, help="JSON file keeping each TensorFlow wheel's facts between runs")
    parser.add_argument("--dry-run", action="store_true", help="print the sections, do not write")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
