"""Which wheels the binary facts are read from: the index's macOS wheels of a project, one per
version and architecture, and the HTTP client that fetches them (GETs and streamed range reads,
counting the bytes and requests the closing summary prints).

Maintainer tooling, a part of tools/binary_facts.py's sweep.
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
import threading
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

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
