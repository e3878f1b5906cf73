"""Binary evidence: whether a tensorflow-metal release can load with a TensorFlow build, as read
from the Mach-O files of both wheels (compat_matrix.json `metal_load_check`).

The section is written by tools/binary_facts.py: for every plugin release and every TensorFlow
wheel with macOS binaries it checks that the libraries `libmetal_plugin.dylib` links are install
names the TensorFlow wheel provides, and that every symbol it imports is exported. A failed check
names what is missing, which is what dyld's "Symbol not found" would name on a Mac. It ranks with
runtime reports: a pair that passes still says nothing about training at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from tfdoctor.knowledge.kernels import bundled_section

SECTION = "metal_load_check"
PLUGIN_FILE = "libmetal_plugin.dylib"
PACKAGES = ("tensorflow", "tensorflow-macos")
"""Where TensorFlow's code lives: tensorflow 2.13.0-2.15.0 on arm64 are shims onto
tensorflow-macos, tensorflow-macos 2.15.1 on shims onto tensorflow; the build read is the one
with the code."""


@dataclass(frozen=True)
class LoadCheck:
    """The static load check of one plugin release against one TensorFlow build."""

    metal_version: str
    tensorflow: str
    """'PACKAGE VERSION' of the build read (the package with the code)."""
    arch: str
    loads: bool
    missing_libraries: tuple[str, ...] = ()
    missing_two_level: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """library -> symbols the plugin binds to it that it does not export (may be cut short)"""
    missing_two_level_count: int = 0
    missing_flat: tuple[str, ...] = ()
    missing_flat_count: int = 0
    tf_wheel: str = ""
    plugin_wheel: str = ""
    method: str = ""
    read_on: str = ""

    def first_missing(self) -> str | None:
        """One sentence naming the first thing that is missing, as dyld would report it."""
        if self.loads:
            return None
        if self.missing_libraries:
            return (f"{PLUGIN_FILE} links {self.missing_libraries[0]}, which no Mach-O file of "
                    f"{self.tensorflow} provides (install name)")
        for library, symbols in self.missing_two_level.items():
            if symbols:
                return (f"{PLUGIN_FILE} needs `{symbols[0]}` from {library.rsplit('/', 1)[-1]}, "
                        f"which {self.tensorflow} does not export")
        if self.missing_flat:
            return f"{PLUGIN_FILE} needs `{self.missing_flat[0]}`, which {self.tensorflow} does not export"
        return f"{PLUGIN_FILE} cannot resolve its imports from {self.tensorflow}"

    def summary(self) -> str:
        """What the check found, in one line, with the counts."""
        if self.loads:
            return (f"tensorflow-metal {self.metal_version} resolves every library and symbol it imports "
                    f"from {self.tensorflow} ({self.arch})")
        parts = []
        if self.missing_libraries:
            parts.append(f"{len(self.missing_libraries)} missing librar{'y' if len(self.missing_libraries) == 1 else 'ies'}")
        for count, kind in ((self.missing_two_level_count, "two-level"), (self.missing_flat_count, "flat-namespace")):
            if count:
                parts.append(f"{count} {kind} symbol{'' if count == 1 else 's'} missing")
        return f"{self.first_missing()} ({', '.join(parts)})"


@dataclass(frozen=True)
class PluginBinary:
    """What one plugin wheel's Mach-O header says."""

    version: str
    arch: str
    wheel: str
    minos: str | None
    sdk: str | None


def _section(raw: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return bundled_section(SECTION, raw)


def _norm(version: str) -> str:
    return version.strip().split("+", 1)[0]


def load_check(tf_version: str, metal_version: str, arch: str = "arm64",
               raw: Mapping[str, Any] | None = None, package: str | None = None) -> LoadCheck | None:
    """The check of tensorflow-metal `metal_version` against TensorFlow `tf_version` on `arch`;
    None when the shipped section does not cover the pair. `package` picks tensorflow or
    tensorflow-macos first; the other is used when that one has no build of its own."""
    section = _section(raw)
    columns = section.get("tensorflow", {}).get(arch, {})
    row = section.get("results", {}).get(arch, {}).get(_norm(metal_version))
    if not isinstance(row, str) or not isinstance(columns, Mapping):
        return None
    verdicts = dict(zip(columns, row.split()))
    order = ((package,) if package else ()) + tuple(p for p in PACKAGES if p != package)
    key = next((f"{p} {_norm(tf_version)}" for p in order if f"{p} {_norm(tf_version)}" in verdicts), None)
    if key is None:
        return None
    verdict = verdicts[key]
    plugin = section.get("plugins", {}).get(_norm(metal_version), {}).get(arch, {})
    common = dict(
        metal_version=_norm(metal_version), tensorflow=key, arch=arch,
        tf_wheel=str(columns.get(key, "")),
        plugin_wheel=str(plugin.get("wheel", "")), method=str(section.get("method", "")),
        read_on=str(section.get("read_on", "")),
    )
    if verdict == "loads":
        return LoadCheck(loads=True, **common)
    reason = section.get("reasons", {}).get(verdict)
    if not isinstance(reason, Mapping):
        return None
    return LoadCheck(
        loads=False,
        missing_libraries=tuple(reason.get("missing_libraries", ())),
        missing_two_level={k: tuple(v) for k, v in reason.get("missing_two_level", {}).items()},
        missing_two_level_count=int(reason.get("missing_two_level_count", 0)),
        missing_flat=tuple(reason.get("missing_flat", ())),
        missing_flat_count=int(reason.get("missing_flat_count", 0)),
        **common,
    )


def plugin_binary(metal_version: str, arch: str = "arm64",
                  raw: Mapping[str, Any] | None = None) -> PluginBinary | None:
    """The minimum macOS and SDK (LC_BUILD_VERSION) of a plugin release's wheel, if read."""
    entry = _section(raw).get("plugins", {}).get(_norm(metal_version), {}).get(arch)
    if not isinstance(entry, Mapping):
        return None
    return PluginBinary(_norm(metal_version), arch, str(entry.get("wheel", "")), entry.get("minos"), entry.get("sdk"))


def tensorflow_min_macos(tf_version: str, arch: str = "arm64", raw: Mapping[str, Any] | None = None,
                         package: str | None = None) -> tuple[str, str] | None:
    """('PACKAGE VERSION', minimum macOS) that a TensorFlow build's binaries declare
    (LC_BUILD_VERSION minos; it can be newer than the wheel's platform tag).

    Evidence, not a floor: dyld loads a library whose minos is newer than the running macOS, and
    working setups prove it (tensorflow-macos 2.5.0 and tensorflow-metal 0.1.1, minos 12.0, ran
    on the GPU on macOS 11.4: tests/scenarios/healthy_m1_tfmacos250_metal011_bigsur_114.json;
    tensorflow-metal 0.5.1, minos 13.0, on 12.6). compat.macos-too-old uses the wheel tags and
    Apple's table only."""
    table = _section(raw).get("tensorflow_min_macos", {}).get(arch, {})
    order = ((package,) if package else ()) + tuple(p for p in PACKAGES if p != package)
    for p in order:
        key = f"{p} {_norm(tf_version)}"
        if table.get(key):
            return key, str(table[key])
    return None


def pairs(arch: str = "arm64", raw: Mapping[str, Any] | None = None) -> dict[str, dict[str, bool]]:
    """plugin version -> 'PACKAGE VERSION' -> loads, for every pair the section covers."""
    section = _section(raw)
    columns = list(section.get("tensorflow", {}).get(arch, {}))
    return {v: {tf: word == "loads" for tf, word in zip(columns, row.split())}
            for v, row in section.get("results", {}).get(arch, {}).items() if isinstance(row, str)}


def binary_check(arch: str = "arm64", raw: Mapping[str, Any] | None = None, package: str | None = None
                 ) -> Callable[[str, str], "tuple[bool, str] | None"]:
    """The (TensorFlow version, tensorflow-metal version) -> (loads, what was found) callable
    tfdoctor.knowledge.matrix's `BinaryCheck` expects; None for pairs the section does not cover.
    `package`: the installed TensorFlow's distribution, whose build is checked first (Google's
    tensorflow 2.5.0 for Intel lacks symbols that tensorflow-macos 2.5.0 exports)."""

    def check(tf_version: str, metal_version: str) -> tuple[bool, str] | None:
        found = load_check(tf_version, metal_version, arch, raw, package=package)
        return None if found is None else (found.loads, found.summary())

    return check
