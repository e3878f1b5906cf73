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
(tests/test_refresh_matrix.py). Last live run (2026-11-23, pypi.org): 621 wheels, 1107
requests, 40.8 MB, 84 s.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import difflib
import email.parser
import html.parser
import io
import json
import os
import re
import shlex
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from packaging.markers import InvalidMarker
from packaging.requirements import InvalidRequirement, Requirement
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
WHEEL_SECTIONS = ("tensorflow", "tensorflow_metal", "apple_table", "keras_packages")
"""The sections of compat_matrix.json this tool owns; every other one is hand-curated."""

ORIGIN_INDEX = "registry index file list + wheel METADATA (tools/refresh_matrix.py)"
ORIGIN_RECORDS = "reference tf_wheels_2026-11.json records: wheel filenames + METADATA"
ORIGIN_FILENAMES = ("reference tf_wheels_2026-11.json tf_minor_table: index filenames only "
                    "(METADATA not read)")
DEFAULT_INDEX = "https://pypi.org/simple/"
JSON_ACCEPT = ("application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
               "text/html;q=0.01")


# ---------------------------------------------------------------------------------------------
# pip's configuration: where the index is and how to reach it


@dataclass(frozen=True)
class PipSettings:
    """The parts of pip's configuration that decide how the index is reached."""

    index_url: str = DEFAULT_INDEX
    extra_index_urls: tuple[str, ...] = ()
    proxy: str | None = None
    cert: str | None = None
    timeout: float = 60.0

    @property
    def index_urls(self) -> tuple[str, ...]:
        return (self.index_url, *self.extra_index_urls)


_SECTION_PRIORITY = (":env:", "download", "install", "global")
"""Highest first: PIP_* variables, then the command's section, then [global] (pip's own order)."""


def parse_pip_config_list(text: str) -> dict[str, str]:
    """`pip config list` output (`section.key='value'` lines) -> {key: value}, by pip's priority."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for line in text.splitlines():
        name, sep, raw = line.partition("=")
        if not sep or "." not in name:
            continue
        section, key = name.rsplit(".", 1) if not name.startswith(":env:.") else (":env:", name[6:])
        try:
            value = " ".join(shlex.split(raw))
        except ValueError:
            value = raw.strip("'\"")
        found[key][section] = value
    merged = {}
    for key, by_section in found.items():
        for section in _SECTION_PRIORITY:
            if section in by_section:
                merged[key] = by_section[section]
                break
        else:
            merged[key] = next(iter(by_section.values()))
    return merged


def pip_settings(config: Mapping[str, str], environ: Mapping[str, str]) -> PipSettings:
    """Combine pip's config (already merged) with PIP_* variables, which win as they do in pip."""

    def get(key: str) -> str | None:
        env = environ.get("PIP_" + key.upper().replace("-", "_"))
        return env if env else config.get(key)

    timeout = get("timeout") or get("default-timeout")
    return PipSettings(
        index_url=get("index-url") or DEFAULT_INDEX,
        extra_index_urls=tuple((get("extra-index-url") or "").split()),
        proxy=get("proxy") or None,
        cert=get("cert") or None,
        timeout=float(timeout) if timeout else 60.0,
    )


def read_pip_settings() -> PipSettings:
    """Ask the pip of this interpreter for its configuration (files and PIP_* variables)."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True,
                             text=True, timeout=60, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    return pip_settings(parse_pip_config_list(out), os.environ)


# ---------------------------------------------------------------------------------------------
# index pages (PEP 691 JSON, or PEP 503 HTML with the PEP 658/714/700 attributes)


@dataclass(frozen=True)
class IndexFile:
    """One file listed on a project's index page."""

    filename: str
    url: str
    requires_python: str | None = None
    upload_time: str | None = None
    size: int | None = None
    has_core_metadata: bool = False
    yanked: bool = False


def parse_index_page(body: bytes, content_type: str, page_url: str) -> list[IndexFile]:
    """The files of a simple-API project page, in whichever form the index answered."""
    if "json" in content_type:
        return _parse_json_page(json.loads(body), page_url)
    parser = _LinkParser()
    parser.feed(body.decode("utf-8", "replace"))
    return [_file_from_anchor(attrs, text, page_url) for attrs, text in parser.links]


def _parse_json_page(page: Mapping[str, Any], page_url: str) -> list[IndexFile]:
    files = []
    for f in page.get("files", ()):
        meta = f.get("core-metadata", f.get("dist-info-metadata", False))
        files.append(IndexFile(
            filename=f["filename"],
            url=urllib.parse.urljoin(page_url, f["url"]),
            requires_python=f.get("requires-python") or None,
            upload_time=f.get("upload-time"),
            size=f.get("size"),
            has_core_metadata=bool(meta),
            yanked=bool(f.get("yanked", False)),
        ))
    return files


class _LinkParser(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            self.links.append((self._open, "".join(self._text).strip()))
            self._open = None


def _file_from_anchor(attrs: Mapping[str, str | None], text: str, page_url: str) -> IndexFile:
    url = urllib.parse.urljoin(page_url, attrs.get("href") or "")
    filename = text or urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    meta = attrs.get("data-core-metadata", attrs.get("data-dist-info-metadata"))
    return IndexFile(
        filename=filename,
        url=url,
        requires_python=attrs.get("data-requires-python") or None,
        upload_time=attrs.get("data-upload-time"),
        has_core_metadata=meta is not None and meta != "false",
        yanked="data-yanked" in attrs,
    )


# ---------------------------------------------------------------------------------------------
# what a wheel says about itself: filename tags, METADATA, WHEEL, Apple's table


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
        python_tags=tuple(sorted({t.interpreter for t in tags}, key=_tag_order)),
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


# ---------------------------------------------------------------------------------------------
# building the sections


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
        return tuple(p for p in (_python_of(t) for t in self.python_tags) if p)


def build_sections(wheels: Iterable[WheelInfo]) -> dict[str, Any]:
    """The wheel-derived sections of compat_matrix.json: tensorflow, tensorflow_metal,
    apple_table, and keras_packages when keras/tf-keras wheels were read."""
    groups: dict[tuple[str, str, str], list[WheelInfo]] = defaultdict(list)
    keras: list[WheelInfo] = []
    for w in wheels:
        package = canonicalize_name(w.package)
        if package in KERAS_PACKAGES and _keras_in_scope(package, w.version):
            keras.append(w)
        elif package in PACKAGES and w.arch and _is_release(w.version):
            groups[(package, str(Version(w.version)), w.arch)].append(w)
    table_source, rows = _apple_table(groups)
    sections = {
        "tensorflow": _build_tensorflow(groups),
        "tensorflow_metal": _build_metal(groups, rows, table_source),
        "apple_table": {"source": table_source, "rows": list(rows)},
    }
    if keras:
        sections["keras_packages"] = build_keras(keras)
    return sections


TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-macos", "tensorflow-cpu", "tf-nightly")


def build_keras(wheels: Iterable[WheelInfo]) -> dict[str, Any]:
    """keras and tf-keras releases: Requires-Python and the Requires-Dist lines that name a
    TensorFlow distribution (tf-keras pins one minor; keras 3 names none), with upload date,
    yanked flag and the wheel read. Oldest first."""
    out: dict[str, Any] = {
        "about": ("keras and tf-keras releases read from their wheels' METADATA: Requires-Python "
                  "and the Requires-Dist lines naming TensorFlow. pip never installs a yanked "
                  "release unless pinned to it exactly."),
        "source": ORIGIN_INDEX,
    }
    for package in KERAS_PACKAGES:
        by_version: dict[str, WheelInfo] = {}
        for w in sorted(wheels, key=lambda w: w.filename or ""):
            if canonicalize_name(w.package) == package:
                by_version.setdefault(str(Version(w.version)), w)
        out[package] = {v: {
            "requires_python": w.requires_python,
            "tensorflow": sorted(str(r) for r in _requirements(w.requires_dist or ())
                                 if canonicalize_name(r.name) in TF_DISTRIBUTIONS),
            "prerelease": not _is_final(v),
            "yanked": w.yanked,
            "upload_date": w.upload_time[:10] if w.upload_time else None,
            "wheel": w.filename,
        } for v, w in sorted(by_version.items(), key=lambda kv: Version(kv[0]))}
    return out


def _requirements(texts: Iterable[str]) -> list[Requirement]:
    out = []
    for text in texts:
        try:
            out.append(Requirement(text))
        except InvalidRequirement:
            continue
    return out


def _build_tensorflow(groups: Mapping[tuple[str, str, str], list[WheelInfo]]) -> dict[str, Any]:
    releases: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: defaultdict(dict))
    for (package, version, arch), group in groups.items():
        if package in TF_PACKAGES and Version(_minor(version)) >= FIRST_TF_MINOR:
            releases[version][package][arch] = _wheels_entry(package, version, arch, group)
    minors: dict[str, dict[str, Any]] = defaultdict(lambda: {"releases": {}, "prereleases": {}})
    for version in sorted(releases, key=Version):
        by_package = releases[version]
        code = {arch: _code_package(by_package, arch) for arch in ARCHES}
        pins = _pins(groups.get((code["arm64"], version, "arm64"), ())) if code["arm64"] else {}
        bucket = "releases" if _is_final(version) else "prereleases"
        minors[_minor(version)][bucket][version] = {
            "tensorflow": dict(sorted(by_package.get("tensorflow", {}).items())),
            "tensorflow-macos": dict(sorted(by_package.get("tensorflow-macos", {}).items())),
            "code": {arch: pkg for arch, pkg in code.items() if pkg},
            "pins_macos_arm64": pins,
            "pins_source": (f"Requires-Dist of the {code['arm64']} {version} arm64 wheels (files "
                            "above), markers evaluated for Darwin/arm64 per wheel Python"
                            if pins else None),
        }
    out = {}
    for minor in sorted(minors, key=Version):
        rels, pre = minors[minor]["releases"], minors[minor]["prereleases"]
        basis = rels or pre  # a minor with no final yet (2.22) is described by its pre-releases
        with_pins = [v for v in basis if basis[v]["pins_macos_arm64"]]
        keras = _keras_major(basis[with_pins[-1]]["pins_macos_arm64"]) if with_pins else None
        out[minor] = {
            "newest_patch": max(basis, key=Version),
            "prerelease_only": not rels,
            "keras_major": keras,
            "source": ("derived from the releases below (keras_major from the newest one with pins; "
                       "from the pre-releases where there is no final release yet)"),
            "releases": rels,
            "prereleases": pre,
        }
    return out


def _wheels_entry(package: str, version: str, arch: str, group: Sequence[WheelInfo]) -> dict[str, Any]:
    platform_tags = sorted({t for w in group for t in w.platform_tags})
    kind, depends_on = _kind(package, version, arch, group)
    requires_python = sorted({w.requires_python for w in group if w.requires_python})
    return {
        "kind": kind,
        "depends_on": depends_on,
        "python": sorted({p for w in group for p in w.pythons}, key=Version),
        "min_macos": min((_macos_of(t) for t in platform_tags), key=Version),
        "platform_tags": platform_tags,
        "requires_python": "; ".join(requires_python) if requires_python else None,
        "files": sorted(w.filename for w in group if w.filename),
        "source": "; ".join(sorted({w.origin for w in group})),
    }


def _kind(package: str, version: str, arch: str, group: Sequence[WheelInfo]) -> tuple[str | None, str | None]:
    """full, thin (depends_on names the code), self-shim (depends only on itself), or None."""
    targets = set()
    for w in group:
        for py in w.pythons:
            for req in effective_requires(w.requires_dist or (), py, arch):
                name = canonicalize_name(req.name)
                if name in TF_PACKAGES and any(
                        s.operator == "==" and _same_version(s.version, version) for s in req.specifier):
                    targets.add(name)
    if targets == {package}:
        return "self-shim", f"{package}=={version}"
    if targets - {package}:
        return "thin", f"{min(targets - {package})}=={version}"
    sizes = [w.size for w in group if w.size is not None]
    if sizes and max(sizes) < THIN_WHEEL_MAX_BYTES:
        return "thin", None
    if sizes or any(w.requires_dist is not None for w in group):
        return "full", None
    return None, None


def _code_package(by_package: Mapping[str, Mapping[str, Mapping[str, Any]]], arch: str) -> str | None:
    """Which distribution brings TensorFlow's code on this arch (Apple's build first)."""
    for package in ("tensorflow-macos", "tensorflow"):
        entry = by_package.get(package, {}).get(arch)
        if entry and (entry["kind"] == "full" or (entry["kind"] is None and arch == "x86_64")):
            return package
    return None


def effective_requires(requires_dist: Iterable[str], python: str, arch: str) -> list[Requirement]:
    """The requirements that apply on macOS/arch under this Python (no extras selected)."""
    env = {"platform_system": "Darwin", "sys_platform": "darwin", "os_name": "posix",
           "platform_machine": arch, "python_version": python, "python_full_version": python + ".0",
           "implementation_name": "cpython", "platform_python_implementation": "CPython",
           "extra": ""}
    out = []
    for text in requires_dist:
        try:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate(env):
                out.append(req)
        except (InvalidRequirement, InvalidMarker):
            continue
    return out


def _pins(group: Sequence[WheelInfo]) -> dict[str, list[str]]:
    """The pins that bite, as requirement strings. A line that only some wheels of the group
    carry (tensorflow 2.22.0rc0: h5py~=3.15.1 in the cp314 wheel, h5py<3.15.0 in the others)
    gets a python_version marker naming those wheels' Pythons, so per-Python answers stay right."""
    everywhere = set.intersection(*(set(w.requires_dist or ()) for w in group)) if group else set()
    pins: dict[str, set[str]] = defaultdict(set)
    for w in group:
        for py in w.pythons:
            for line in w.requires_dist or ():
                for req in effective_requires((line,), py, "arm64"):
                    name = canonicalize_name(req.name)
                    if name not in PIN_NAMES:
                        continue
                    req.name = name  # ml_dtypes -> ml-dtypes, so keys and strings agree
                    if line not in everywhere:
                        marker = f'python_version == "{py}"'
                        marker = f"({req.marker}) and {marker}" if req.marker else marker
                        req = Requirement(f"{req.name}{req.specifier}; {marker}")
                    pins[name].add(str(req))
    return {name: sorted(pins[name]) for name in PIN_NAMES if name in pins}


def _keras_major(pins: Mapping[str, Sequence[str]]) -> int | None:
    for name in ("keras", "keras-nightly"):
        for text in pins.get(name, ()):
            for spec in Requirement(text).specifier:
                if spec.operator in (">=", "~=", "==", ">"):
                    return Version(spec.version.rstrip(".*")).major
    return None


def _apple_table(groups: Mapping[tuple[str, str, str], list[WheelInfo]]) -> tuple[str | None, tuple[str, ...]]:
    """The table of the newest tensorflow-metal whose METADATA has one, and where it came from."""
    metal = [(Version(v), w) for (p, v, _a), ws in groups.items() if p == "tensorflow-metal" for w in ws]
    for _version, w in sorted(metal, key=lambda vw: (vw[0], vw[1].filename or ""), reverse=True):
        lines = table_lines(w.description or "")
        if any(parse_table_row(line) for line in lines):
            return f"long description in the METADATA of {w.filename or w.package + ' ' + w.version}", lines
    return None, ()


def _build_metal(groups: Mapping[tuple[str, str, str], list[WheelInfo]], rows: Sequence[str],
                 table_source: str | None) -> dict[str, Any]:
    parsed = [r for r in (parse_table_row(line) for line in rows) if r]
    documented: dict[str, list[TableRow]] = defaultdict(list)
    for row in parsed:
        documented[str(Version(row.metal))].append(row)
    by_version: dict[str, dict[str, list[WheelInfo]]] = defaultdict(dict)
    for (package, version, arch), group in groups.items():
        if package == "tensorflow-metal":
            by_version[version][arch] = group
    dates = {v: _upload_date([w for g in arches.values() for w in g]) for v, arches in by_version.items()}
    minors = {v: sorted({m for r in rs for m in r.tf_minors}, key=Version) for v, rs in documented.items()}
    out = {}
    for version in sorted(by_version, key=Version):
        arches = by_version[version]
        everything = [w for g in arches.values() for w in g]
        own = _own_rows(everything, version)
        doc_rows = documented.get(version, [])
        inferred, basis = (None, None) if doc_rows else _infer_minor(version, minors, dates)
        out[version] = {
            "wheels": {arch: _wheels_entry("tensorflow-metal", version, arch, arches[arch])
                       for arch in sorted(arches)},
            "depends_on_tensorflow": any(
                canonicalize_name(r.name) in TF_PACKAGES
                for w in everything for py in w.pythons for r in effective_requires(
                    w.requires_dist or (), py, w.arch or "arm64")),
            "upload_date": dates[version],
            "documented_tf_minors": minors.get(version) if doc_rows else None,
            "documented_rows": [r.text for r in doc_rows],
            "apple_table_min_macos": (max((r.min_macos for r in doc_rows if r.min_macos), key=Version)
                                      if doc_rows else None),
            "own_metadata_rows": own,
            "undocumented": not doc_rows,
            "inferred_tf_minor": inferred,
            "inference": basis,
            "source": "; ".join(sorted({w.origin for w in everything}))
                      + (f"; documented_* from {table_source}" if table_source else ""),
        }
    return out


def _own_rows(wheels: Sequence[WheelInfo], version: str) -> list[str] | None:
    """Rows of this release's own METADATA table that name it; None where it has no table."""
    lines = next((table_lines(w.description) for w in sorted(wheels, key=lambda w: w.filename or "")
                  if w.description and table_lines(w.description)), None)
    if lines is None:
        return None
    return [line for line in lines if (row := parse_table_row(line)) and _same_version(row.metal, version)]


def _infer_minor(version: str, minors: Mapping[str, Sequence[str]],
                 dates: Mapping[str, str | None]) -> tuple[str | None, str | None]:
    """Inference (labelled so) for a release no table names: the era of its documented neighbour."""
    older = [v for v in minors if Version(v) < Version(version)]
    newer = [v for v in minors if Version(v) > Version(version)]
    when = f"uploaded {dates.get(version)}" if dates.get(version) else "upload date unknown"
    if older:
        prev = max(older, key=Version)
        after = min(newer, key=Version) if newer else None
        text = (f"INFERENCE, not documented: no table row names {version}; {when}, after {prev} "
                f"(documented for TF {_span(minors[prev])}, uploaded {dates.get(prev)})")
        if after:
            text += f" and before {after} (TF {_span(minors[after])}, uploaded {dates.get(after)})"
        return minors[prev][-1], text + f"; taken to serve TF {minors[prev][-1]}."
    if newer:
        nxt = min(newer, key=Version)
        return minors[nxt][0], (f"INFERENCE, not documented: no table row names {version}; {when}, "
                                f"before {nxt} (documented for TF {_span(minors[nxt])}, uploaded "
                                f"{dates.get(nxt)}); taken to serve TF {minors[nxt][0]}.")
    return None, None


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
# network: the index pages and range reads of the wheels


class RangeNotSupported(Exception):
    """The server answered a range request with the whole body (kept, so it is fetched once)."""

    def __init__(self, url: str, body: bytes) -> None:
        super().__init__(url)
        self.body = body


class Http:
    """GETs through pip's proxy and certificate settings; file:// URLs are read from disk."""

    def __init__(self, settings: PipSettings) -> None:
        handlers: list[urllib.request.BaseHandler] = []
        if settings.proxy:
            handlers.append(urllib.request.ProxyHandler({"http": settings.proxy, "https": settings.proxy}))
        if settings.cert:
            handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=settings.cert)))
        self._opener = urllib.request.build_opener(*handlers)
        self._timeout = settings.timeout
        self._lock = threading.Lock()
        self.requests = 0
        self.bytes = 0
        """Requests made and body bytes received (the figures the closing summary prints)."""

    def get(self, url: str, headers: Mapping[str, str] | None = None) -> tuple[bytes, str, Mapping[str, str]]:
        """Body, content type and headers; a file:// directory reads its index.html."""
        if url.startswith("file:"):
            path = Path(urllib.request.url2pathname(urllib.parse.urlsplit(url).path))
            path = path / "index.html" if path.is_dir() else path
            return path.read_bytes(), "text/html", {}
        req = urllib.request.Request(url, headers=dict(headers or {}))
        with self._opener.open(req, timeout=self._timeout) as resp:
            body = resp.read()
            with self._lock:
                self.requests += 1
                self.bytes += len(body)
            return body, resp.headers.get("Content-Type", ""), dict(resp.headers)

    def open_range_file(self, url: str) -> io.RawIOBase | io.BufferedReader:
        if url.startswith("file:"):
            return open(urllib.request.url2pathname(urllib.parse.urlsplit(url).path), "rb")
        return HttpRangeFile(self, url)


class HttpRangeFile(io.RawIOBase):
    """A read-only seekable file over HTTP range requests, so zipfile fetches only the central
    directory and the members it opens instead of the whole wheel."""

    BLOCK = 256 * 1024

    def __init__(self, http: Http, url: str) -> None:
        super().__init__()
        self._http, self._url, self._pos = http, url.split("#", 1)[0], 0
        self._blocks: dict[int, bytes] = {}
        self.size = self._probe()

    def _probe(self) -> int:
        body, _ctype, headers = self._http.get(self._url, {"Range": "bytes=0-0"})
        match = re.search(r"/(\d+)$", headers.get("Content-Range", headers.get("content-range", "")))
        if not match:
            raise RangeNotSupported(self._url, body)
        return int(match.group(1))

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self.size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer: Any) -> int:
        want = min(len(buffer), max(0, self.size - self._pos))
        done = 0
        while done < want:
            index, start = divmod(self._pos + done, self.BLOCK)
            block = self._block(index)
            chunk = block[start:start + want - done]
            buffer[done:done + len(chunk)] = chunk
            done += len(chunk)
        self._pos += done
        return done

    def _block(self, index: int) -> bytes:
        if index not in self._blocks:
            first = index * self.BLOCK
            last = min(self.size, first + self.BLOCK) - 1
            body, _ctype, _headers = self._http.get(self._url, {"Range": f"bytes={first}-{last}"})
            self._blocks[index] = body
        return self._blocks[index]


_EOCD = b"PK\x05\x06"
_CENTRAL = b"PK\x01\x02"
TAIL_BYTES = 64 * 1024


@dataclass(frozen=True)
class ZipMember:
    """A central-directory entry: where a member's local header starts and how it is stored."""

    name: str
    method: int
    compressed_size: int
    local_offset: int


def central_members(tail: bytes, tail_start: int) -> list[ZipMember] | None:
    """The central-directory entries found in the last bytes of a zip (`tail` begins at file
    offset `tail_start`). The dist-info files are written last, so their entries sit at the end
    of the directory; entries are read forward from the first signature whose chain lands
    exactly on the end record. None when the end record is not there or is zip64."""
    eocd = tail.rfind(_EOCD)
    if eocd < 0 or len(tail) < eocd + 22:
        return None
    cd_size, cd_offset = struct.unpack("<II", tail[eocd + 12:eocd + 20])
    if cd_offset == 0xFFFFFFFF or cd_offset + cd_size != tail_start + eocd:
        return None
    pos = max(cd_offset - tail_start, 0)
    while True:
        pos = tail.find(_CENTRAL, pos)
        if pos < 0 or pos >= eocd:
            return None
        members = _chain(tail, pos, eocd)
        if members is not None:
            return members
        pos += 1


def _chain(tail: bytes, pos: int, end: int) -> list[ZipMember] | None:
    out = []
    while pos < end:
        if tail[pos:pos + 4] != _CENTRAL or pos + 46 > end:
            return None
        method, = struct.unpack("<H", tail[pos + 10:pos + 12])
        csize, = struct.unpack("<I", tail[pos + 20:pos + 24])
        name_len, extra_len, comment_len = struct.unpack("<HHH", tail[pos + 28:pos + 34])
        offset, = struct.unpack("<I", tail[pos + 42:pos + 46])
        name = tail[pos + 46:pos + 46 + name_len].decode("utf-8", "replace")
        out.append(ZipMember(name, method, csize, offset))
        pos += 46 + name_len + extra_len + comment_len
    return out if pos == end else None


def read_members_from_tail(http: Http, url: str, wanted: Sequence[str]
                           ) -> tuple[dict[str, bytes], int] | None:
    """Top-level `*.dist-info/<name>` members of a remote wheel in two range requests: the last
    64 KB (end record and the end of the central directory), then the members' bytes. Reading
    the whole central directory of a TensorFlow wheel costs ~2 MB; this costs ~70 KB. None when
    the layout is not the usual one (the caller then falls back to zipfile). Also returns the
    wheel's size."""
    body, _ctype, headers = http.get(url, {"Range": f"bytes=-{TAIL_BYTES}"})
    match = re.search(r"/(\d+)$", headers.get("Content-Range", headers.get("content-range", "")))
    if not match:
        raise RangeNotSupported(url, body)
    total = int(match.group(1))
    start = total - len(body)
    members = central_members(body, start)
    picked = {m.name.rsplit("/", 1)[1]: m for m in members or ()
              if m.name.count("/") == 1 and m.name.split("/", 1)[0].endswith(".dist-info")
              and m.name.rsplit("/", 1)[1] in wanted and m.method in (0, 8)}
    if set(picked) != set(wanted):
        return None
    first = min(m.local_offset for m in picked.values())
    last = max(m.local_offset + 30 + 4096 + m.compressed_size for m in picked.values())
    last = min(last, start + len(body)) - 1
    if first >= start:
        data, data_start = body, start
    else:
        data, _c, _h = http.get(url, {"Range": f"bytes={first}-{last}"})
        data_start = first
    out = {}
    for key, m in picked.items():
        at = m.local_offset - data_start
        if data[at:at + 4] != b"PK\x03\x04":
            return None
        name_len, extra_len = struct.unpack("<HH", data[at + 26:at + 30])
        raw = data[at + 30 + name_len + extra_len:at + 30 + name_len + extra_len + m.compressed_size]
        if len(raw) != m.compressed_size:
            return None
        out[key] = raw if m.method == 0 else zlib.decompressobj(-15).decompress(raw)
    return out, total


def fetch_index_files(http: Http, settings: PipSettings, project: str) -> list[IndexFile]:
    """The project's files over every configured index, first index winning a filename."""
    seen: dict[str, IndexFile] = {}
    for base in settings.index_urls:
        url = base.rstrip("/") + f"/{canonicalize_name(project)}/"
        try:
            body, ctype, _headers = http.get(url, {"Accept": JSON_ACCEPT})
        except (urllib.error.URLError, OSError) as exc:
            print(f"  {url}: {exc}", file=sys.stderr)
            continue
        for f in parse_index_page(body, ctype, url):
            seen.setdefault(f.filename, f)
    return list(seen.values())


def in_scope(name: WheelName) -> bool:
    """macOS wheels of tensorflow-metal, and of TensorFlow from 2.5 on, pre-releases included;
    keras from 2.6 and every tf-keras (pure-Python wheels: finals, and tf-keras pre-releases)."""
    package = canonicalize_name(name.package)
    if package in KERAS_PACKAGES:
        return _keras_in_scope(package, name.version)
    if package not in PACKAGES or not _is_release(name.version):
        return False
    info = WheelInfo(name.package, name.version, name.python_tags, name.platform_tags)
    if info.arch is None:
        return False
    return package == "tensorflow-metal" or Version(_minor(name.version)) >= FIRST_TF_MINOR


def _keras_in_scope(package: str, version: str) -> bool:
    if not _is_release(version) or Version(version) < FIRST_KERAS:
        return False
    return package == "tf-keras" or _is_final(version)


def read_wheel(http: Http, file: IndexFile) -> WheelInfo:
    """METADATA (PEP 658 file first) and WHEEL of one wheel, without downloading it if possible."""
    name = parse_wheel_name(file.filename)
    assert name is not None
    metadata_text = wheel_text = None
    size = file.size
    if file.has_core_metadata:
        body, _ctype, _headers = http.get(file.url.split("#", 1)[0] + ".metadata")
        metadata_text = body.decode("utf-8", "replace")
    try:
        tail = None if file.url.startswith("file:") else read_members_from_tail(
            http, file.url.split("#", 1)[0], ("WHEEL",) if metadata_text else ("METADATA", "WHEEL"))
        if tail is not None:
            members, size = tail
            wheel_text = members["WHEEL"].decode("utf-8", "replace")
            metadata_text = metadata_text or members["METADATA"].decode("utf-8", "replace")
            return _wheel_info(name, file, size, metadata_text, wheel_text)
        source: Any = http.open_range_file(file.url)
        size = getattr(source, "size", size)
    except RangeNotSupported as refused:
        print(f"  {file.filename}: no range requests, downloading it whole", file=sys.stderr)
        source = io.BytesIO(refused.body)
        size = len(refused.body)
    with zipfile.ZipFile(source) as wheel:
        dist_info = next(n.split("/", 1)[0] for n in wheel.namelist()
                         if n.count("/") == 1 and n.split("/", 1)[0].endswith(".dist-info")
                         and n.endswith("/WHEEL"))
        wheel_text = wheel.read(f"{dist_info}/WHEEL").decode("utf-8", "replace")
        if metadata_text is None:
            metadata_text = wheel.read(f"{dist_info}/METADATA").decode("utf-8", "replace")
    return _wheel_info(name, file, size, metadata_text, wheel_text)


def _wheel_info(name: WheelName, file: IndexFile, size: int | None, metadata_text: str,
                wheel_text: str) -> WheelInfo:
    meta = parse_metadata(metadata_text)
    return WheelInfo(
        package=name.package, version=name.version, python_tags=name.python_tags,
        platform_tags=name.platform_tags, filename=file.filename, size=size,
        upload_time=file.upload_time, requires_python=meta.requires_python or file.requires_python,
        requires_dist=meta.requires_dist, description=meta.description,
        wheel_file_tags=parse_wheel_tags(wheel_text), origin=ORIGIN_INDEX, yanked=file.yanked,
    )


def wheels_from_index(settings: PipSettings, jobs: int = 8, http: Http | None = None) -> list[WheelInfo]:
    """Every in-scope wheel of the TensorFlow, tensorflow-metal, keras and tf-keras projects,
    read with a progress line every 50 wheels. Yanked TensorFlow wheels are skipped (pip never
    picks them); yanked keras/tf-keras releases are kept and marked, since a pin may name them."""
    http = http or Http(settings)
    todo = []
    for project in PACKAGES + KERAS_PACKAGES:
        files = fetch_index_files(http, settings, project)
        keep_yanked = project in KERAS_PACKAGES
        picked = [f for f in files if (n := parse_wheel_name(f.filename)) and in_scope(n)
                  and (keep_yanked or not f.yanked)]
        print(f"{project}: {len(files)} files listed, reading {len(picked)} wheels", file=sys.stderr)
        todo.extend(picked)
    done = []

    def read(f: IndexFile) -> WheelInfo:
        w = read_wheel(http, f)
        with http._lock:
            done.append(f.filename)
            if len(done) % 50 == 0 or len(done) == len(todo):
                print(f"  {len(done)}/{len(todo)} wheels read, {http.requests} requests, "
                      f"{http.bytes / 1e6:.1f} MB", file=sys.stderr)
        return w

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(read, todo))


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


# ---------------------------------------------------------------------------------------------
# small helpers


def _is_release(version: str) -> bool:
    """A final or a pre-release (alpha, beta, rc); not a dev build."""
    try:
        return not Version(version).is_devrelease
    except InvalidVersion:
        return False


def _is_final(version: str) -> bool:
    try:
        v = Version(version)
    except InvalidVersion:
        return False
    return not (v.is_prerelease or v.is_devrelease)


def _same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False


def _minor(version: str) -> str:
    v = Version(version)
    return f"{v.major}.{v.minor}"


def _python_of(tag: str) -> str | None:
    """cp312 -> 3.12 (CPython tags only; these packages ship no other)."""
    m = re.fullmatch(r"cp(\d)(\d+)", tag)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _tag_order(tag: str) -> tuple[int, str]:
    py = _python_of(tag)
    return (int(py.split(".")[1]) if py else 999, tag)


def _macos_of(platform_tag: str) -> str:
    """macosx_12_0_arm64 -> 12.0"""
    parts = platform_tag.split("_")
    return f"{parts[1]}.{parts[2]}"


def _upload_date(wheels: Iterable[WheelInfo]) -> str | None:
    dates = sorted(w.upload_time[:10] for w in wheels if w.upload_time)
    return dates[0] if dates else None


def _span(minors: Sequence[str]) -> str:
    return minors[0] if len(minors) == 1 else f"{minors[0]}-{minors[-1]}"


if __name__ == "__main__":
    raise SystemExit(main())
