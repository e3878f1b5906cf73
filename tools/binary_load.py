"""The static load check: would dyld resolve what libmetal_plugin.dylib imports against one
TensorFlow wheel's Mach-O files (install names, rpaths, re-exports, two-level and flat lookups)?

Pure: it works on images already read (tools/binary_zip.py reads them from the wheels). Weak
imports (N_WEAK_REF, BIND_SYMBOL_FLAGS_WEAK_IMPORT, a chained import's weak_import bit, all
kept by tools/macho.py) never fail it, nor do weakly linked libraries (LC_LOAD_WEAK_DYLIB):
dyld leaves them NULL. Maintainer tooling, a part of tools/binary_facts.py's sweep.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import macho  # noqa: E402
from macho_base import FLAT  # noqa: E402

SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")
"""Libraries every macOS has (dyld shared cache): assumed present, never read."""
PLUGIN_PATH = "tensorflow-plugins/libmetal_plugin.dylib"
"""Where the plugin lies in site-packages, for @loader_path in its rpaths."""


TENSORFLOW_SYMBOL = re.compile(r"^_(TF|TFE|TP|TSL|TFL)_|tensorflow|\dtsl|google8protobuf|\dabsl|\dxla|stream_executor")
"""Names TensorFlow's libraries provide. A flat lookup of any other name (`_objc_msgSend`) is
served by the macOS libraries the plugin links, which dyld has loaded before the lookup."""


@dataclass
class Image:
    """One Mach-O file of a wheel: its path in site-packages, install name, links, exports."""

    path: str
    id_name: str | None
    dylibs: list[tuple[str, str]]
    rpaths: list[str]
    exports: set[str]
    build: dict[str, str] = field(default_factory=dict)


@dataclass
class LoadResult:
    """Whether every non-weak import of the plugin resolves against one TensorFlow wheel."""

    missing_libraries: list[str]
    missing_two_level: dict[str, list[str]]
    missing_flat: list[str]

    @property
    def loads(self) -> bool:
        return not (self.missing_libraries or self.missing_two_level or self.missing_flat)


def resolve_library(name: str, loader: str, rpaths: Iterable[str], images: list[Image]) -> Image | None:
    """The image dyld uses for a load command: one already loaded with that install name, or
    the file an @rpath/@loader_path expansion names."""
    for image in images:
        if image.id_name == name:
            return image
    by_path = {i.path: i for i in images}
    loader_dir = loader.rsplit("/", 1)[0]
    candidates = []
    if name.startswith("@rpath/"):
        candidates = [r.replace("@loader_path", loader_dir) + "/" + name[len("@rpath/"):] for r in rpaths]
    elif name.startswith("@loader_path/"):
        candidates = [loader_dir + name[len("@loader_path"):]]
    for candidate in candidates:
        path = _normalise(candidate)
        if path in by_path:
            return by_path[path]
    return None


def _normalise(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return "/".join(parts)


def exported_through(image: Image, images: list[Image], seen: set[str] | None = None) -> set[str]:
    """An image's exports plus those of the libraries it re-exports (LC_REEXPORT_DYLIB)."""
    seen = seen if seen is not None else set()
    if image.path in seen:
        return set()
    seen.add(image.path)
    out = set(image.exports)
    for name, kind in image.dylibs:
        if kind == "reexport":
            other = resolve_library(name, image.path, image.rpaths, images)
            if other is not None:
                out |= exported_through(other, images, seen)
    return out


def check_load(plugin: macho.MachO, images: list[Image]) -> LoadResult:
    """Resolve the plugin's libraries and non-weak imports against a TensorFlow wheel's images."""
    missing_libs: list[str] = []
    targets: dict[str, set[str] | None] = {}
    for dylib in plugin.dylibs:
        if dylib.name.startswith(SYSTEM_PREFIXES):
            continue
        found = resolve_library(dylib.name, PLUGIN_PATH, plugin.rpaths, images)
        if found is None:
            if dylib.kind != "weak":
                missing_libs.append(dylib.name)
            targets[dylib.name] = None
        else:
            targets[dylib.name] = exported_through(found, images)
    flat_pool: set[str] = set().union(*(i.exports for i in images)) if images else set()
    two_level: dict[str, list[str]] = {}
    flat: list[str] = []
    for imp in plugin.imports():
        if imp.weak:
            continue
        if imp.library == FLAT:
            if imp.name not in flat_pool and TENSORFLOW_SYMBOL.search(imp.name):
                flat.append(imp.name)
        elif imp.library in targets:
            exported = targets[imp.library]
            if exported is None or imp.name not in exported:
                two_level.setdefault(imp.library, []).append(imp.name)
    return LoadResult(sorted(missing_libs), {k: sorted(v) for k, v in sorted(two_level.items())}, sorted(flat))


def wanted_symbols(plugins: Iterable[macho.MachO]) -> set[str]:
    """Every symbol a plugin may look for in TensorFlow: flat lookups and binds to
    non-system libraries (the only exports worth reading from the TensorFlow wheels)."""
    return {i.name for p in plugins for i in p.imports()
            if i.library == FLAT or not i.library.startswith(SYSTEM_PREFIXES + ("<",))}


LOAD_METHOD = (
    "Whether libmetal_plugin.dylib's imports resolve, decided as dyld does from the Mach-O files: each "
    "library it links (LC_LOAD_DYLIB, e.g. @rpath/_pywrap_tensorflow_internal.so) must be the install name "
    "(LC_ID_DYLIB) of a Mach-O file in the TensorFlow wheel or a file its LC_RPATHs name; each symbol it "
    "binds to that library in the two-level namespace (dyld-info bind opcodes or chained-fixup imports) must "
    "be in that library's export trie (or re-exported by it); each flat-namespace lookup of a TensorFlow, "
    "tsl, protobuf or absl symbol must be exported by some Mach-O file of the wheel. Lazy binds count too: "
    "TensorFlow loads plugins with dlopen(RTLD_NOW | RTLD_LOCAL) (tensorflow/tensorflow, "
    "tsl/platform/default/load_library.cc), which binds them all at load. macOS libraries "
    "(/usr/lib, /System) are assumed present; weak imports may stay unresolved. Read by tools/binary_facts.py "
    "with HTTP range reads of one wheel per version and architecture. Passing is necessary for the plugin "
    "to load, not proof that training works."
)
