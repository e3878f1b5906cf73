"""The network half of tools/refresh_matrix.py: GETs through pip's settings, files read over HTTP
range requests (the end of a wheel's central directory and its dist-info members, ~70 KB for a
245 MB TensorFlow wheel; zipfile over ranges as the fallback, a whole download the last resort),
and the sweep over every in-scope wheel of the index.
"""

from __future__ import annotations

import concurrent.futures
import io
import re
import ssl
import struct
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from packaging.utils import canonicalize_name

if str(Path(__file__).resolve().parent) not in sys.path:  # loaded by path (tests, tools)
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from refresh_pip import JSON_ACCEPT, IndexFile, PipSettings, parse_index_page  # noqa: E402
from refresh_wheels import (  # noqa: E402
    KERAS_PACKAGES,
    ORIGIN_INDEX,
    PACKAGES,
    WheelInfo,
    WheelName,
    in_scope,
    parse_metadata,
    parse_wheel_name,
    parse_wheel_tags,
)

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
