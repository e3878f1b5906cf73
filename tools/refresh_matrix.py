"""Rebuild the wheel-derived sections of compat_matrix.json from the package index.

For maintainers, not run in CI. The index is reached the way pip reaches it (index-url,
extra-index-url, proxy and cert from `pip config list` and PIP_* variables), pages are asked for
in the PEP 691 JSON form (HTML is parsed when that is what comes back), METADATA comes from the
PEP 658 `.metadata` file where the index serves one, and WHEEL (and METADATA otherwise) is read
from the end of the wheel: one range request for its last 64 KB (end record and the end of the
central directory, where the dist-info entries sit) and one for the members, so a 245 MB
TensorFlow wheel costs ~70 KB. zipfile over range requests is the fallback, a whole download the
last resort. Read: every macOS wheel of tensorflow and tensorflow-macos from 2.5 (release
candidates included, under `prereleases`), of tensorflow-metal, and the METADATA of keras (from
2.6) and tf-keras (Requires-Python and TensorFlow pins: `keras_packages`). The hand-curated and
the binary sections are never touched, and the file is read again just before writing, so other
tools' sections written meanwhile are kept. Without --write it only prints a diff; at the end it
prints the wheels read, requests, bytes and seconds.

    python tools/refresh_matrix.py                       # live, print the diff
    python tools/refresh_matrix.py --write               # live, update compat_matrix.json
    python tools/refresh_matrix.py --save-wheels w.json  # live, keep what was read
    python tools/refresh_matrix.py --from-wheels w.json --write   # rebuild offline from it
    python tools/refresh_matrix.py --from-reference shared/reference/tf_wheels_2026-11.json

The parsing and building functions are pure and unit-tested on recorded samples
(tests/knowledge/test_refresh_matrix.py). This module is the command line and the merge into the shipped
file; the parts live beside it: refresh_pip (pip's settings, index pages), refresh_fetch (range
reads, the sweep), refresh_wheels (what a wheel says about itself) and refresh_build (the
sections). Last live run (2026-11-23, pypi.org): 621 wheels, 1107 requests, 40.8 MB, 84 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import difflib
import json
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from refresh_build import build_sections  # noqa: E402
from refresh_fetch import Http, wheels_from_index  # noqa: E402
from refresh_pip import read_pip_settings  # noqa: E402
from refresh_wheels import (  # noqa: E402
    ARCHES,
    ORIGIN_FILENAMES,
    ORIGIN_RECORDS,
    WheelInfo,
    parse_wheel_name,
    tag_disagreements,
)

WHEEL_SECTIONS = ("tensorflow", "tensorflow_metal", "apple_table", "keras_packages")
"""The sections of compat_matrix.json this tool owns; every other one is hand-curated."""


# ---------------------------------------------------------------------------------------------
# the reference dataset as builder input


def wheels_from_reference(reference: Mapping[str, Any]) -> list[WheelInfo]:
    """Turn tf_wheels_2026-11.json into WheelInfo: its records, plus the official TensorFlow
    macOS wheels before 2.12 that it knows from index filenames only."""
    out = []
    covered = set()
    for rec in reference["records"]:
        covered.add((rec["package"], rec["version"]))
        variants = {f: tuple(v["requires_dist"]) for v in rec.get("requires_dist_variants") or ()
                    for f in v["files"]}
        rows = rec.get("metadata_table_rows")
        for f in rec["files"]:
            name = parse_wheel_name(f["filename"])
            if name is None:
                continue
            out.append(WheelInfo(
                package=rec["package"], version=rec["version"], python_tags=name.python_tags,
                platform_tags=name.platform_tags, filename=f["filename"], size=f.get("size"),
                upload_time=f.get("upload_time"), requires_python=rec.get("requires_python"),
                requires_dist=variants.get(f["filename"], tuple(rec["requires_dist"])),
                description="\n".join(rows) if rows else "",
                wheel_file_tags=tuple(f.get("wheel_file_tag") or ()), origin=ORIGIN_RECORDS,
            ))
    for row in reference["tf_minor_table"]:
        for official in row.get("tensorflow_official") or ():
            if ("tensorflow", official["version"]) in covered:
                continue
            for arch in ARCHES:
                wheels = official.get(f"macos_{arch}")
                if wheels and wheels.get("platform_tags"):
                    out.append(WheelInfo(
                        package="tensorflow", version=official["version"],
                        python_tags=tuple(wheels["python_tags"]),
                        platform_tags=tuple(wheels["platform_tags"]), origin=ORIGIN_FILENAMES,
                    ))
    return out


# ---------------------------------------------------------------------------------------------
# the shipped file: merge, diff, write


def merge(shipped: Mapping[str, Any], sections: Mapping[str, Any], facts_read: str) -> dict[str, Any]:
    """The shipped matrix with the wheel sections replaced; curated sections kept as they are."""
    merged = dict(shipped)
    merged["facts_read"] = facts_read
    for key in WHEEL_SECTIONS:
        if key in sections:  # keras_packages is read from the index only, not the reference
            merged[key] = sections[key]
    return merged


def dump(matrix: Mapping[str, Any]) -> str:
    return json.dumps(matrix, indent=2, ensure_ascii=False) + "\n"


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    return "".join(difflib.unified_diff(dump(old).splitlines(True), dump(new).splitlines(True),
                                        "compat_matrix.json (shipped)", "compat_matrix.json (rebuilt)"))


def main(argv: Sequence[str] | None = None) -> int:
    repo = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matrix", type=Path, default=repo / "compat_matrix.json")
    ap.add_argument("--write", action="store_true", help="write the rebuilt file (default: diff only)")
    ap.add_argument("--from-reference", type=Path, metavar="JSON",
                    help="build from a tf_wheels reference dataset instead of the index")
    ap.add_argument("--jobs", type=int, default=8, help="wheels read at once")
    ap.add_argument("--save-wheels", type=Path, metavar="JSON",
                    help="also write what was read from each wheel (to rebuild later with --from-wheels)")
    ap.add_argument("--from-wheels", type=Path, metavar="JSON",
                    help="build from a file written by --save-wheels instead of the index")
    args = ap.parse_args(argv)

    started = time.monotonic()
    shipped = json.loads(args.matrix.read_text(encoding="utf-8"))
    http = None
    if args.from_reference:
        reference = json.loads(args.from_reference.read_text(encoding="utf-8"))
        wheels = wheels_from_reference(reference)
        facts_read = reference["generated_utc"][:10]
    elif args.from_wheels:
        saved = json.loads(args.from_wheels.read_text(encoding="utf-8"))
        wheels = [_wheel_from_json(w) for w in saved["wheels"]]
        facts_read = saved["read_on"]
    else:
        settings = read_pip_settings()
        print(f"index: {', '.join(settings.index_urls)}", file=sys.stderr)
        http = Http(settings)
        wheels = wheels_from_index(settings, args.jobs, http)
        facts_read = datetime.date.today().isoformat()
        if args.save_wheels:
            args.save_wheels.write_text(json.dumps(
                {"read_on": facts_read, "wheels": [dataclasses.asdict(w) for w in wheels]}), encoding="utf-8")
    for line in tag_disagreements(wheels):
        print(f"note: {line}", file=sys.stderr)
    sections = build_sections(wheels)
    rebuilt = merge(shipped, sections, facts_read)
    changes = diff(shipped, rebuilt)
    print(changes or "no change", end="" if changes else "\n")
    if args.write:
        # read again: other tools own other sections and may have written them meanwhile
        current = json.loads(args.matrix.read_text(encoding="utf-8"))
        args.matrix.write_text(dump(merge(current, sections, facts_read)), encoding="utf-8")
        print(f"wrote {args.matrix}", file=sys.stderr)
    fetched = f", {http.requests} requests, {http.bytes / 1e6:.1f} MB fetched" if http else ""
    print(f"{len(wheels)} wheels{fetched}, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def _wheel_from_json(raw: Mapping[str, Any]) -> WheelInfo:
    fields = {f.name for f in dataclasses.fields(WheelInfo)}
    return WheelInfo(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items() if k in fields})


if __name__ == "__main__":
    raise SystemExit(main())
