"""The TensorFlow each companion release is built for, for compat_matrix.json's `companion_pins`.

Maintainer tooling, run from the repository root:

    python3 tools/companion_pins.py [--dry-run]

tensorflow-text, tensorflow-io and tensorflow-decision-forests ship compiled ops linked against
one TensorFlow minor and say which in their METADATA (Requires-Dist: tensorflow>=2.15.0,<2.16 for
tensorflow-text 2.15.0; tensorflow-io's through its `tensorflow` extra; tensorflow-decision-forests
as tensorflow~=2.16.1). tensorflow-addons says it in its code: from 0.9 its
tensorflow_addons/utils/resource_loader.py names the TensorFlow range its custom ops are
ABI-compatible with ([INCLUSIVE_]MIN_ / [EXCLUSIVE_]MAX_TF_VERSION_FOR_ABI_COMPATIBILITY, the range
of its "compiled against TensorFlow x.y" warning), which is kept as a requirement; its METADATA
gives the wider range of its Python ops. tensorflow-probability has no compiled ops and its METADATA
names no TensorFlow, but its import refuses an older one than its `required_tensorflow_version`
("This version of TensorFlow Probability requires TensorFlow version >= 2.18"), which is kept as
`tensorflow>=X`. For every final release with wheels this reads one wheel
(a macOS one where there is) with HTTP range reads. Only that section of compat_matrix.json is
rewritten.
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

COMPANIONS = ("tensorflow-text", "tensorflow-io", "tensorflow-decision-forests", "tensorflow-addons",
              "tensorflow-probability")
ABI_RANGE_FILE = {"tensorflow-addons": "tensorflow_addons/utils/resource_loader.py"}
"""The module in which a companion names the TensorFlow its compiled ops were built for."""
IMPORT_CHECK_FILES = {"tensorflow-probability": ("tensorflow_probability/python/__init__.py",
                                                 "tensorflow_probability/__init__.py")}
"""The module whose _ensure_tf_install refuses an older TensorFlow at import (TFP 0.12+ in python/,
0.5-0.11 at the top): its `required_tensorflow_version`. Its METADATA names no TensorFlow (0.0.1-0.4.0
name it there, an install requirement; later ones in an extra, if at all)."""
_IMPORT_FLOOR = re.compile(r"^[ \t]+required_tensorflow_version\s*=\s*['\"](?P<version>\d+(?:\.\d+){0,2})['\"]", re.MULTILINE)
_ABI_BOUND = re.compile(r'^(?P<side>(?:INCLUSIVE_)?MIN|(?:EXCLUSIVE_)?MAX)_TF_VERSION_FOR_ABI_COMPATIBILITY\s*=\s*'
                        r'["\'](?P<version>\d+(?:\.\d+){1,2})["\']', re.MULTILINE)
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


def member_text(fetcher: Fetcher, url: str, size: int, suffix: str) -> str | None:
    """The text of the remote wheel's member whose name ends with `suffix`, None without one."""
    member = next((m for m in central_directory(fetcher, url, size) if m.name.endswith(suffix)), None)
    if member is None:
        return None
    raw = b"".join(fetcher.stream(url, member.offset, member.offset + 30 + len(member.name.encode()) + 1024
                                  + member.compressed))
    nlen, xlen = int.from_bytes(raw[26:28], "little"), int.from_bytes(raw[28:30], "little")
    body = raw[30 + nlen + xlen:30 + nlen + xlen + member.compressed]
    return (zlib.decompressobj(-15).decompress(body) if member.method == 8 else body).decode("utf-8", "replace")


def requires_dist(fetcher: Fetcher, url: str, size: int) -> list[str]:
    """The Requires-Dist lines of a remote wheel's METADATA."""
    text = member_text(fetcher, url, size, ".dist-info/METADATA") or ""
    return [line.split(":", 1)[1].strip() for line in text.split("\n\n", 1)[0].splitlines()
            if line.startswith("Requires-Dist:")]


def abi_requirement(code: str) -> str | None:
    """`tensorflow>=MIN,<MAX` from a module naming its ABI-compatible range, None where it names none."""
    bounds = {m.group("side").split("_")[-1]: m.group("version") for m in _ABI_BOUND.finditer(code)}
    if "MIN" not in bounds or "MAX" not in bounds:
        return None
    return f"tensorflow>={bounds['MIN']},<{bounds['MAX']}"


def import_requirement(code: str) -> str | None:
    """`tensorflow>=X` from a module whose import check requires TensorFlow X (the first assignment
    not commented out), None where it names none."""
    found = _IMPORT_FLOOR.search(code)
    return f"tensorflow>={found.group('version')}" if found else None


def tensorflow_requirements(fetcher: Fetcher, package: str, url: str, size: int) -> tuple[list[str], str]:
    """The TensorFlow requirements a wheel states, and what in the wheel states them."""
    for module in IMPORT_CHECK_FILES.get(package, ()):
        requirement = import_requirement(member_text(fetcher, url, size, module) or "")
        if requirement:
            return [requirement], module
    if package in ABI_RANGE_FILE:
        requirement = abi_requirement(member_text(fetcher, url, size, ABI_RANGE_FILE[package]) or "")
        if requirement:
            return [requirement], ABI_RANGE_FILE[package]
    return [r for r in requires_dist(fetcher, url, size) if _TENSORFLOW.match(r)], "METADATA"


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
        reads = list(pool.map(lambda p: tensorflow_requirements(fetcher, p[0], p[2]["url"], int(p[2].get("size") or 0)),
                              picked))
    releases: dict[str, dict[str, Any]] = {}
    for (package, version, wheel), (requires, where) in zip(picked, reads):
        entry: dict[str, Any] = {"requires": requires, "source": wheel["filename"]}
        if where != "METADATA":
            entry["read_from"] = where
        if package in IMPORT_CHECK_FILES and where != "METADATA":
            entry["checked_at"] = "import"
        releases.setdefault(package, {})[version] = entry
    print(f"{len(picked)} wheels read, {fetcher.bytes / 1e6:.1f} MB in {fetcher.requests} requests", file=sys.stderr)
    return {
        "about": ("The TensorFlow each release of a companion package with compiled ops is built for: "
                  "package -> release -> requires (its METADATA Requires-Dist lines naming tensorflow, "
                  "tensorflow-macos, tensorflow-cpu or tf-keras, markers and extras as written; for "
                  "tensorflow-addons from 0.9 the ABI range its custom ops were built for, from the "
                  "module `read_from` names; for tensorflow-probability the TensorFlow its import "
                  "check requires, `checked_at` import) and source (the wheel read). A companion built "
                  "for another TensorFlow fails to load its ops ('undefined symbol', 'Symbol not found', "
                  "'Op type not registered'); tensorflow-probability refuses to import."),
        "source": "the registry's PEP 691 file lists and the METADATA of one wheel per release "
                  "(range reads; tools/companion_pins.py)",
        "read_on": datetime.date.today().isoformat(),
        "releases": releases,
    }


def main(argv: list[str] | None = None) -> int:
    return section_tool(__doc__, "companion_pins", build_section, argv)


if __name__ == "__main__":
    sys.exit(main())
