"""What one wheel says about itself, for tools/refresh_matrix.py: its filename's tags, METADATA
(Requires-Python, Requires-Dist, the long description with Apple's TensorFlow/tensorflow-metal
table), WHEEL's `Tag:` lines; the WheelInfo record the builder works on; which wheels are in
scope; and the version and tag helpers they share.

Pure functions, unit-tested on recorded samples (tests/knowledge/test_refresh_matrix.py).
"""

from __future__ import annotations

import email.parser
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

PACKAGES = ("tensorflow", "tensorflow-macos", "tensorflow-metal")
TF_PACKAGES = ("tensorflow", "tensorflow-macos")
FIRST_TF_MINOR = Version("2.5")  # tensorflow-macos and tensorflow-metal start here
KERAS_PACKAGES = ("keras", "tf-keras")
"""Their Requires-Python and TensorFlow pins decide what `pip install keras` / `tf-keras` drags in."""
FIRST_KERAS = Version("2.6")  # Keras left the TensorFlow repository at 2.6 (2.5 used keras-nightly)
ARCHES = ("arm64", "x86_64")
PIN_NAMES = ("numpy", "keras", "keras-nightly", "protobuf", "h5py", "ml-dtypes")
"""The dependencies whose pins bite on macOS arm64 (ABI or API breaks outside them)."""
THIN_WHEEL_MAX_BYTES = 100_000
"""A TensorFlow wheel this small carries no code (the shims are ~2 KB, real builds >100 MB)."""
ORIGIN_INDEX = "registry index file list + wheel METADATA (tools/refresh_matrix.py)"
ORIGIN_RECORDS = "reference tf_wheels_2026-11.json records: wheel filenames + METADATA"
ORIGIN_FILENAMES = ("reference tf_wheels_2026-11.json tf_minor_table: index filenames only "
                    "(METADATA not read)")


@dataclass(frozen=True)
class WheelName:
    """The parts of a wheel filename pip decides with."""

    package: str
    version: str
    python_tags: tuple[str, ...]
    platform_tags: tuple[str, ...]


def parse_wheel_name(filename: str) -> WheelName | None:
    """Split a wheel filename into its tags; None for sdists and malformed names."""
    try:
        name, version, _build, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    return WheelName(
        package=str(name),
        version=str(version),
        python_tags=tuple(sorted({t.interpreter for t in tags}, key=tag_order)),
        platform_tags=tuple(sorted({t.platform for t in tags})),
    )


@dataclass(frozen=True)
class Metadata:
    """The fields of a core-metadata file this tool needs."""

    name: str
    version: str
    requires_python: str | None
    requires_dist: tuple[str, ...]
    description: str


def parse_metadata(text: str) -> Metadata:
    """Parse METADATA (RFC 822 headers, then the long description as the body)."""
    msg = email.parser.Parser().parsestr(text)
    body = msg.get_payload()
    description = body if isinstance(body, str) and body.strip() else (msg.get("Description") or "")
    return Metadata(
        name=msg.get("Name", ""),
        version=msg.get("Version", ""),
        requires_python=msg.get("Requires-Python") or None,
        requires_dist=tuple(msg.get_all("Requires-Dist") or ()),
        description=description,
    )


def parse_wheel_tags(text: str) -> tuple[str, ...]:
    """The `Tag:` lines of a WHEEL file (which pip ignores: it trusts the filename)."""
    msg = email.parser.Parser().parsestr(text)
    return tuple(msg.get_all("Tag") or ())


@dataclass(frozen=True)
class TableRow:
    """One row of the TensorFlow/tensorflow-metal table in tensorflow-metal's METADATA."""

    text: str
    tf_minors: tuple[str, ...]
    metal: str
    min_macos: str | None


_TF_CELL = re.compile(r"v(\d+)\.(\d+)(?:\s*-\s*v(\d+)\.(\d+))?")
_METAL_CELL = re.compile(r"v(\d+(?:\.\d+)+)")
_MACOS_CELL = re.compile(r"(\d+(?:\.\d+)*)\+?")


def table_lines(description: str) -> tuple[str, ...]:
    """The markdown table lines of a long description, verbatim (trailing spaces kept)."""
    return tuple(line.rstrip("\r") for line in description.split("\n") if line.startswith("|"))


def parse_table_row(line: str) -> TableRow | None:
    """A data row -> its TF minors, metal version and macOS; None for header and rule rows."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 3:
        return None
    tf, metal, macos = (_TF_CELL.fullmatch(cells[0]), _METAL_CELL.fullmatch(cells[1]),
                        _MACOS_CELL.fullmatch(cells[2]))
    if not tf or not metal:
        return None
    major, first = int(tf.group(1)), int(tf.group(2))
    last = int(tf.group(4)) if tf.group(4) else first
    return TableRow(
        text=line,
        tf_minors=tuple(f"{major}.{m}" for m in range(first, last + 1)),
        metal=metal.group(1),
        min_macos=macos.group(1) if macos else None,
    )


@dataclass(frozen=True)
class WheelInfo:
    """What one wheel says about itself (or, from the reference, one group of wheels)."""

    package: str
    version: str
    python_tags: tuple[str, ...]
    platform_tags: tuple[str, ...]
    filename: str | None = None
    size: int | None = None
    upload_time: str | None = None
    requires_python: str | None = None
    requires_dist: tuple[str, ...] | None = None
    """None: METADATA was not read."""
    description: str | None = None
    wheel_file_tags: tuple[str, ...] | None = None
    origin: str = ORIGIN_INDEX
    yanked: bool = False

    @property
    def arch(self) -> str | None:
        """arm64 or x86_64 for a macOS wheel, None for any other platform (or universal2)."""
        arches = set()
        for tag in self.platform_tags:
            if not tag.startswith("macosx_"):
                return None
            arches.add("x86_64" if tag.endswith("_x86_64") else tag.rsplit("_", 1)[-1])
        return arches.pop() if len(arches) == 1 and arches <= set(ARCHES) else None

    @property
    def pythons(self) -> tuple[str, ...]:
        return tuple(p for p in (python_of(t) for t in self.python_tags) if p)


def in_scope(name: WheelName) -> bool:
    """macOS wheels of tensorflow-metal, and of TensorFlow from 2.5 on, pre-releases included;
    keras from 2.6 and every tf-keras (pure-Python wheels: finals, and tf-keras pre-releases)."""
    package = canonicalize_name(name.package)
    if package in KERAS_PACKAGES:
        return keras_in_scope(package, name.version)
    if package not in PACKAGES or not is_release(name.version):
        return False
    info = WheelInfo(name.package, name.version, name.python_tags, name.platform_tags)
    if info.arch is None:
        return False
    return package == "tensorflow-metal" or Version(minor_of(name.version)) >= FIRST_TF_MINOR


def keras_in_scope(package: str, version: str) -> bool:
    if not is_release(version) or Version(version) < FIRST_KERAS:
        return False
    return package == "tf-keras" or is_final(version)


def tag_disagreements(wheels: Iterable[WheelInfo]) -> list[str]:
    """Wheels whose WHEEL `Tag:` lines name another platform than their filename (pip uses the
    filename; a tool that trusts WHEEL would misjudge the architecture)."""
    out = []
    for w in wheels:
        if w.filename and w.wheel_file_tags:
            inner = {t.rsplit("-", 1)[-1] for t in w.wheel_file_tags}
            if inner != set(w.platform_tags):
                out.append(f"{w.filename}: WHEEL says {', '.join(sorted(w.wheel_file_tags))}")
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# small helpers


def is_release(version: str) -> bool:
    """A final or a pre-release (alpha, beta, rc); not a dev build."""
    try:
        return not Version(version).is_devrelease
    except InvalidVersion:
        return False


def is_final(version: str) -> bool:
    try:
        v = Version(version)
    except InvalidVersion:
        return False
    return not (v.is_prerelease or v.is_devrelease)


def same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False


def minor_of(version: str) -> str:
    v = Version(version)
    return f"{v.major}.{v.minor}"


def python_of(tag: str) -> str | None:
    """cp312 -> 3.12 (CPython tags only; these packages ship no other)."""
    m = re.fullmatch(r"cp(\d)(\d+)", tag)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def tag_order(tag: str) -> tuple[int, str]:
    py = python_of(tag)
    return (int(py.split(".")[1]) if py else 999, tag)


def macos_of(platform_tag: str) -> str:
    """macosx_12_0_arm64 -> 12.0"""
    parts = platform_tag.split("_")
    return f"{parts[1]}.{parts[2]}"


def upload_date(wheels: Iterable[WheelInfo]) -> str | None:
    dates = sorted(w.upload_time[:10] for w in wheels if w.upload_time)
    return dates[0] if dates else None


def span(minors: Sequence[str]) -> str:
    return minors[0] if len(minors) == 1 else f"{minors[0]}-{minors[-1]}"
