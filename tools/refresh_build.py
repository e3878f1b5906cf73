"""The wheel-derived sections of compat_matrix.json, built from WheelInfo records: `tensorflow`
(per minor: releases, pre-releases, which package brings the code, the pins that bite on
macOS arm64), `tensorflow_metal` (wheels, Apple's table rows, labelled inferences for releases
the table does not name), `apple_table` and `keras_packages`.

Pure functions of what was read (tools/refresh_matrix.py feeds them from the index, a saved
run or the reference dataset).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from packaging.markers import InvalidMarker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from refresh_wheels import (  # noqa: E402
    ARCHES,
    FIRST_TF_MINOR,
    KERAS_PACKAGES,
    ORIGIN_INDEX,
    PACKAGES,
    PIN_NAMES,
    TF_PACKAGES,
    THIN_WHEEL_MAX_BYTES,
    TableRow,
    WheelInfo,
    is_final,
    is_release,
    keras_in_scope,
    macos_of,
    minor_of,
    parse_table_row,
    same_version,
    span,
    table_lines,
    upload_date,
)


def build_sections(wheels: Iterable[WheelInfo]) -> dict[str, Any]:
    """The wheel-derived sections of compat_matrix.json: tensorflow, tensorflow_metal,
    apple_table, and keras_packages when keras/tf-keras wheels were read."""
    groups: dict[tuple[str, str, str], list[WheelInfo]] = defaultdict(list)
    keras: list[WheelInfo] = []
    for w in wheels:
        package = canonicalize_name(w.package)
        if package in KERAS_PACKAGES and keras_in_scope(package, w.version):
            keras.append(w)
        elif package in PACKAGES and w.arch and is_release(w.version):
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
            "prerelease": not is_final(v),
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
        if package in TF_PACKAGES and Version(minor_of(version)) >= FIRST_TF_MINOR:
            releases[version][package][arch] = _wheels_entry(package, version, arch, group)
    minors: dict[str, dict[str, Any]] = defaultdict(lambda: {"releases": {}, "prereleases": {}})
    for version in sorted(releases, key=Version):
        by_package = releases[version]
        code = {arch: _code_package(by_package, arch) for arch in ARCHES}
        pins = _pins(groups.get((code["arm64"], version, "arm64"), ())) if code["arm64"] else {}
        bucket = "releases" if is_final(version) else "prereleases"
        minors[minor_of(version)][bucket][version] = {
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
        "min_macos": min((macos_of(t) for t in platform_tags), key=Version),
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
                        s.operator == "==" and same_version(s.version, version) for s in req.specifier):
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
    dates = {v: upload_date([w for g in arches.values() for w in g]) for v, arches in by_version.items()}
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
    return [line for line in lines if (row := parse_table_row(line)) and same_version(row.metal, version)]


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
                f"(documented for TF {span(minors[prev])}, uploaded {dates.get(prev)})")
        if after:
            text += f" and before {after} (TF {span(minors[after])}, uploaded {dates.get(after)})"
        return minors[prev][-1], text + f"; taken to serve TF {minors[prev][-1]}."
    if newer:
        nxt = min(newer, key=Version)
        return minors[nxt][0], (f"INFERENCE, not documented: no table row names {version}; {when}, "
                                f"before {nxt} (documented for TF {span(minors[nxt])}, uploaded "
                                f"{dates.get(nxt)}); taken to serve TF {minors[nxt][0]}.")
    return None, None

