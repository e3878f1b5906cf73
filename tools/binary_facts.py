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
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import http.client
import json
import re
import ssl
import struct
import sys
import threading
import time
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
import macho  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
INDEX = "https://pypi.org/simple/"
FIRST_TF = (2, 5)
PYTHON_PREFERENCE = ("cp311", "cp310", "cp312", "cp39", "cp313", "cp38", "cp314")
"""One wheel per version and architecture is enough (the TensorFlow libraries and the plugin do
not link Python); cp311 is the tag the shared reference was read from."""


@dataclass(frozen=True)
class WheelRef:
    """One wheel on the index."""

    package: str
    version: str
    arch: str
    filename: str
    url: str
    size: int


class Fetcher:
    """GETs and streamed range reads, counting what came over the network."""

    def __init__(self, timeout: float = 120.0) -> None:
        self.timeout, self.bytes, self.requests = timeout, 0, 0
        self._lock = threading.Lock()
        self._context = ssl.create_default_context()  # once: loading the CA store is slow
        self._local = threading.local()

    def _open(self, req: urllib.request.Request) -> Any:
        return urllib.request.urlopen(req, timeout=self.timeout, context=self._context)

    def _count(self, n: int, request: bool = False) -> None:
        with self._lock:
            self.bytes += n
            self.requests += int(request)

    def get(self, url: str, headers: dict[str, str] | None = None) -> bytes:
        with self._open(urllib.request.Request(url, headers=headers or {})) as resp:
            body = resp.read()
        self._count(len(body), request=True)
        return body

    def _connection(self, scheme: str, host: str) -> http.client.HTTPConnection:
        pool = self._local.__dict__.setdefault("pool", {})
        if (scheme, host) not in pool:
            pool[scheme, host] = (http.client.HTTPSConnection(host, timeout=self.timeout, context=self._context)
                                  if scheme == "https" else http.client.HTTPConnection(host, timeout=self.timeout))
        return pool[scheme, host]

    def stream(self, url: str, first: int, last: int, chunk: int = 1 << 20) -> Iterator[bytes]:
        """The bytes first..last of a file, over a kept-alive connection (one TLS handshake per
        host and thread instead of one per zip member); what the caller leaves is drained."""
        parts = urllib.parse.urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = {"Range": f"bytes={first}-{last}", "User-Agent": "tfdoctor-binary-facts"}
        for attempt in (1, 2):
            conn = self._connection(parts.scheme, parts.netloc)
            try:
                conn.request("GET", path, headers=headers)
                resp = conn.getresponse()
                break
            except (OSError, http.client.HTTPException):
                conn.close()
                self._local.pool.pop((parts.scheme, parts.netloc), None)
                if attempt == 2:
                    raise
        if resp.status in (301, 302, 303, 307, 308):
            resp.read()
            yield from self.stream(urllib.parse.urljoin(url, resp.getheader("Location", "")), first, last, chunk)
            return
        if resp.status != 206:
            resp.read()
            raise OSError(f"{url}: the server did not answer the range request ({resp.status})")
        self._count(0, request=True)
        try:
            while True:
                block = resp.read(chunk)
                if not block:
                    return
                self._count(len(block))
                yield block
        finally:
            self._count(len(resp.read()))


_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-\d[^-]*)?-(?P<py>[^-]+)-[^-]+-(?P<plat>[^-]+)\.whl$")


def _version_key(version: str) -> tuple[Any, ...]:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)(?:(a|b|rc)(\d+))?", version)
    if not m:
        return (0,)
    pre = (m.group(4), int(m.group(5))) if m.group(4) else ("z", 0)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre)


def index_wheels(fetcher: Fetcher, project: str, index: str = INDEX) -> list[WheelRef]:
    """The project's macOS wheels from the index's PEP 691 JSON page."""
    body = fetcher.get(index.rstrip("/") + f"/{project}/",
                       {"Accept": "application/vnd.pypi.simple.v1+json"})
    out = []
    for f in json.loads(body)["files"]:
        m = _WHEEL.match(f["filename"])
        if not m or "macosx" not in m.group("plat"):
            continue
        for arch in ("arm64", "x86_64"):
            if any(p.endswith(arch) or p.endswith("universal2") or (arch == "x86_64" and p.endswith("intel"))
                   for p in m.group("plat").split(".")):
                out.append(WheelRef(project, m.group("version"), arch, f["filename"], f["url"],
                                    int(f.get("size") or 0)))
    return out


def pick(wheels: Iterable[WheelRef]) -> dict[tuple[str, str, str], WheelRef]:
    """One wheel per (package, version, arch): the preferred Python tag."""

    def rank(w: WheelRef) -> int:
        py = _WHEEL.match(w.filename).group("py")  # type: ignore[union-attr]
        return next((i for i, p in enumerate(PYTHON_PREFERENCE) if p in py.split(".")), 99)

    out: dict[tuple[str, str, str], WheelRef] = {}
    for w in sorted(wheels, key=rank):
        out.setdefault((w.package, w.version, w.arch), w)
    return out


# ---------------------------------------------------------------------------------------------
# the load check: what dyld does with the plugin's LC_LOAD_DYLIBs and binds


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
        if imp.library == macho.FLAT:
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
            if i.library == macho.FLAT or not i.library.startswith(SYSTEM_PREFIXES + ("<",))}


# ---------------------------------------------------------------------------------------------
# the zip, read remotely


@dataclass(frozen=True)
class Member:
    name: str
    method: int
    compressed: int
    size: int
    offset: int


def central_directory(fetcher: Fetcher, url: str, size: int) -> list[Member]:
    """The members of a remote zip, from its end records and central directory only."""
    tail_start = max(0, size - 65536 - 22)
    tail = b"".join(fetcher.stream(url, tail_start, size - 1))
    eocd = tail.rfind(b"PK\x05\x06")
    if eocd < 0:
        raise OSError(f"{url}: no end of central directory")
    _d, _dc, _n, count, cd_size, cd_off, _cl = struct.unpack_from("<HHHHIIH", tail, eocd + 4)
    loc = tail.rfind(b"PK\x06\x07", 0, eocd)
    if loc >= 0 and (cd_off == 0xFFFFFFFF or count == 0xFFFF):
        z64_off, = struct.unpack_from("<Q", tail, loc + 8)
        z64 = tail[z64_off - tail_start:] if z64_off >= tail_start else b"".join(
            fetcher.stream(url, z64_off, z64_off + 55))
        count, _c, cd_size, cd_off = struct.unpack_from("<QQQQ", z64, 24)
    cd = (tail[cd_off - tail_start:cd_off - tail_start + cd_size] if cd_off >= tail_start
          else b"".join(fetcher.stream(url, cd_off, cd_off + cd_size - 1)))
    members, pos = [], 0
    for _ in range(count):
        (_sig, _v, _vn, _fl, method, _t, _dt, _crc, csize, usize, nlen, xlen, clen, _disk, _ia, _ea,
         off) = struct.unpack_from("<IHHHHHHIIIHHHHHII", cd, pos)
        name = cd[pos + 46:pos + 46 + nlen].decode("utf-8", "replace")
        extra = cd[pos + 46 + nlen:pos + 46 + nlen + xlen]
        csize, usize, off = _zip64_sizes(extra, csize, usize, off)
        members.append(Member(name, method, csize, usize, off))
        pos += 46 + nlen + xlen + clen
    return members


def _zip64_sizes(extra: bytes, csize: int, usize: int, off: int) -> tuple[int, int, int]:
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        if tag == 1:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, pos + 4))
            usize = next(values) if usize == 0xFFFFFFFF else usize
            csize = next(values) if csize == 0xFFFFFFFF else csize
            off = next(values) if off == 0xFFFFFFFF else off
        pos += 4 + length
    return csize, usize, off


def member_stream(fetcher: Fetcher, url: str, member: Member) -> Iterator[bytes]:
    """The member's uncompressed bytes, inflated as they arrive."""
    raw = fetcher.stream(url, member.offset, member.offset + 30 + len(member.name.encode()) + 64
                         + member.compressed)
    head = b""
    for block in raw:
        head += block
        if len(head) >= 30:
            break
    nlen, xlen = struct.unpack_from("<HH", head, 26)
    while len(head) < 30 + nlen + xlen:
        head += next(raw)
    left, first = member.compressed, head[30 + nlen + xlen:]
    inflate = zlib.decompressobj(-15) if member.method == 8 else None
    try:
        for block in _chain([first], raw):
            block = block[:left]
            left -= len(block)
            if block:
                yield inflate.decompress(block) if inflate else block
            if left <= 0:
                break
        if inflate:
            yield inflate.flush()
    finally:
        raw.close()


def _chain(*parts: Iterable[bytes]) -> Iterator[bytes]:
    for part in parts:
        yield from part


def read_image(chunks: Iterator[bytes], path: str, arch: str, wanted: set[str] | None) -> Image | None:
    """An image's install name, links and exports (those in `wanted`, or all) from a stream
    of the file, keeping only the load commands and the export trie (or symbol table)."""
    head = bytearray()
    for block in chunks:
        head += block
        if len(head) >= 1 << 16:
            break
    try:
        _arch, base, _size = next(s for s in macho.slices(bytes(head[:4096])) if s[0] == arch)
    except (macho.MachOError, StopIteration, struct.error):
        return None
    while len(head) < base + (1 << 16):
        more = next(chunks, b"")
        if not more:
            break
        head += more
    try:
        image = macho.parse_thin(bytes(head[base:]))
    except macho.MachOError:
        return None
    spans = {k: (base + o, n) for k, (o, n) in _linkedit_spans(image).items()}
    captured = {k: _capture(bytes(head), o, n) for k, (o, n) in spans.items()}
    pos, end = len(head), max((o + n for o, n in spans.values()), default=0)
    for block in chunks:
        if pos >= end:
            break
        for k, (o, n) in spans.items():
            if o < pos + len(block) and o + n > pos:
                lo, hi = max(o, pos), min(o + n, pos + len(block))
                captured[k][lo - o:hi - o] = block[lo - pos:hi - pos]
        pos += len(block)
    if hasattr(chunks, "close"):
        chunks.close()  # type: ignore[attr-defined]
    exports = _exports(image, {k: bytes(v) for k, v in captured.items()}, wanted)
    return Image(path=path, id_name=image.id_name,
                 dylibs=[(d.name, d.kind) for d in image.dylibs], rpaths=list(image.rpaths),
                 exports=exports, build=dict(image.build))


def _capture(head: bytes, offset: int, size: int) -> bytearray:
    """A buffer for one span of the file, with what the head already holds of it."""
    buf = bytearray(size)
    if offset < len(head):
        part = head[offset:offset + size]
        buf[:len(part)] = part
    return buf


def _linkedit_spans(image: macho.MachO) -> dict[str, tuple[int, int]]:
    trie = image.commands.get(macho.LC_DYLD_EXPORTS_TRIE)
    if trie is None and (macho.LC_DYLD_INFO_ONLY in image.commands or macho.LC_DYLD_INFO in image.commands):
        info = image.commands.get(macho.LC_DYLD_INFO_ONLY) or image.commands[macho.LC_DYLD_INFO]
        trie = info[8:10]
    if trie and trie[1]:
        return {"trie": (trie[0], trie[1])}
    if macho.LC_SYMTAB in image.commands:
        symoff, nsyms, stroff, strsize = image.commands[macho.LC_SYMTAB]
        return {"symbols": (symoff, nsyms * (16 if image.is64 else 12)), "strings": (stroff, strsize)}
    return {}


def _exports(image: macho.MachO, spans: dict[str, bytes], wanted: set[str] | None) -> set[str]:
    if "trie" in spans:
        if wanted is None:
            return set(macho.parse_export_trie(spans["trie"]))
        return {s for s in wanted if macho.trie_lookup(spans["trie"], s) is not None}
    if "symbols" in spans:
        _symoff, nsyms, _stroff, strsize = image.commands[macho.LC_SYMTAB]
        blob = spans["symbols"] + spans["strings"]
        names = macho.exported_names(macho.parse_nlist(blob, 0, nsyms, len(spans["symbols"]),
                                                       strsize, image.is64))
        return names if wanted is None else names & wanted
    return set()


@dataclass
class WheelRead:
    """The Mach-O images of one wheel, and how long reading it took."""

    wheel: WheelRef
    images: list[Image] = field(default_factory=list)
    seconds: float = 0.0


def read_wheel(fetcher: Fetcher, wheel: WheelRef, wanted: set[str] | None, jobs: int = 6) -> WheelRead:
    """Every .so/.dylib member of a wheel as an Image, several members at once (the registry's
    latency, not its bandwidth, bounds the many small members)."""
    start = time.monotonic()
    members = [m for m in central_directory(fetcher, wheel.url, wheel.size)
               if re.search(r"\.(so|dylib)$", m.name) and m.size >= 4096]
    members.sort(key=lambda m: -m.compressed)  # the big one first, the small ones around it
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        images = pool.map(lambda m: read_image(member_stream(fetcher, wheel.url, m), m.name, wheel.arch, wanted),
                          members)
        out = WheelRead(wheel, sorted((i for i in images if i is not None), key=lambda i: i.path))
    out.seconds = time.monotonic() - start
    return out


# ---------------------------------------------------------------------------------------------
# the sweep


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
LIST_LIMIT = 30
"""Symbols kept per list in a reason (the counts are whole)."""


@dataclass
class PluginRead:
    """One tensorflow-metal wheel: its plugin image and, on arm64, its kernel table."""

    wheel: WheelRef
    image: macho.MachO
    kernels: list[dict[str, Any]] | None = None
    kernel_error: str | None = None


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
        except (metal_kernels.EmulationError, macho.MachOError) as exc:
            read.kernel_error = str(exc)
    return read


def tf_key(wheel: WheelRef) -> str:
    return f"{wheel.package} {wheel.version}"


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
            "flat_lookups": sum(1 for i in imports if i.library == macho.FLAT)}


def _min_macos(images: list[Image]) -> str | None:
    """The newest LC_BUILD_VERSION minos among a wheel's images: the macOS it really needs
    (often newer than its wheel tag: tensorflow-macos 2.5.0 is tagged macosx_11_0, needs 12.0)."""
    mins = [i.build["minos"] for i in images if i.build.get("minos")]
    return max(mins, key=lambda v: tuple(int(x) for x in v.split("."))) if mins else None


def build_kernels(plugins: list[PluginRead]) -> dict[str, Any]:
    """The `metal_kernels` section (format: tfdoctor/kernels.py): the newest release whole,
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
