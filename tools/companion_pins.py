"""The TensorFlow each companion release is built for, for compat_matrix.json's `companion_pins`.

Maintainer tooling, run from the repository root:

    python3 tools/companion_pins.py [--dry-run]

tensorflow-text, tensorflow-io and tensorflow-decision-forests ship compiled ops linked against
one TensorFlow minor and say which in their METADATA (Requires-Dist: tensorflow>=2.15.0,<2.16 for
tensorflow-text 2.15.0; tensorflow-io's through its `tensorflow` extra; tensorflow-decision-forests
as tensorflow~=2.16.1). For every final release with wheels this reads the METADATA of one wheel
(a macOS one where there is) with HTTP range reads, and keeps its TensorFlow requirements. Only that
section of compat_matrix.json is rewritten.
"""

from __future__ import annotations

import concurrent.futures
import datetime
import json
import re
import sys
import zlib
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from binary_index import Fetcher, _version_key  # noqa: E402
from binary_sections import section_tool  # noqa: E402
from binary_zip import central_directory  # noqa: E402

COMPANIONS = ("tensorflow-text", "tensorflow-io", "tensorflow-decision-forests")
_FINAL = re.compile(r"^\d+(?:\.\d+)*$")
_TENSORFLOW = re.compile(r"^(?:tensorflow|tensorflow-macos|tensorflow-cpu|tf-keras)\s*(?:[(<>=!~;]|$)", re.IGNORECASE)


def wheel_of(files: list[dict[str, Any]], version: str) -> dict[str, Any] | None:
    """One wheel of `version`: a macOS arm64 one, else any macOS one, else any."""
    wheels = [f for f in files if f["filename"].endswith(".whl") and f"-{version}-" in f["filename"]]
    for want in ("macosx_*arm64", "macosx", ""):
        picked = [f for f in wheels if re.search(want.replace("*", ".*"), f["filename"])]
        if picked:
            return picked[0]
    return None


def requires_dist(fetcher: Fetcher, url: str, size: int) -> list[str]:
    """The Requires-Dist lines of a remote wheel's METADATA."""
    member = next(m for m in central_directory(fetcher, url, size) if m.name.endswith(".dist-info/METADATA"))
    raw = b"".join(fetcher.stream(url, member.offset, member.offset + 30 + len(member.name.encode()) + 1024
                                  + member.compressed))
    nlen, xlen = int.from_bytes(raw[26:28], "little"), int.from_bytes(raw[28:30], "little")
    body = raw[30 + nlen + xlen:30 + nlen + xlen + member.compressed]
    text = (zlib.decompressobj(-15).decompress(body) if member.method == 8 else body).decode("utf-8", "replace")
    return [line.split(":", 1)[1].strip() for line in text.split("\n\n", 1)[0].splitlines()
            if line.startswith("Requires-Dist:")]


def build_section(fetcher: Fetcher, index: str, jobs: int) -> dict[str, Any]:
    picked: list[tuple[str, str, dict[str, Any]]] = []
    for package in COMPANIONS:
        page = json.loads(fetcher.get(index.rstrip("/") + f"/{package}/",
                                      {"Accept": "application/vnd.pypi.simple.v1+json"}))
        for version in sorted((v for v in page["versions"] if _FINAL.match(v)), key=_version_key):
            wheel = wheel_of(page["files"], version)
            if wheel:
                picked.append((package, version, wheel))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        reads = list(pool.map(lambda p: requires_dist(fetcher, p[2]["url"], int(p[2].get("size") or 0)), picked))
    releases: dict[str, dict[str, Any]] = {}
    for (package, version, wheel), requires in zip(picked, reads):
        releases.setdefault(package, {})[version] = {
            "requires": [r for r in requires if _TENSORFLOW.match(r)], "source": wheel["filename"]}
    print(f"{len(picked)} wheels read, {fetcher.bytes / 1e6:.1f} MB in {fetcher.requests} requests", file=sys.stderr)
    return {
        "about": ("The TensorFlow each release of a companion package with compiled ops is built for: "
                  "package -> release -> requires (its METADATA Requires-Dist lines naming tensorflow, "
                  "tensorflow-macos, tensorflow-cpu or tf-keras, markers and extras as written) and "
                  "source (the wheel read). A companion built for another TensorFlow fails to load its "
                  "ops ('undefined symbol', 'Symbol not found', 'Op type not registered')."),
        "source": "the registry's PEP 691 file lists and the METADATA of one wheel per release "
                  "(range reads; tools/companion_pins.py)",
        "read_on": datetime.date.today().isoformat(),
        "releases": releases,
    }


def main(argv: list[str] | None = None) -> int:
    return section_tool(__doc__, "companion_pins", build_section, argv)


if __name__ == "__main__":
    sys.exit(main())
