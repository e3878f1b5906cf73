"""A PEP 503 simple package index on 127.0.0.1, served from a thread of the test process.

It serves the wheels of a folder (`/simple/`, `/simple/<project>/`, `/files/<wheel>`), records
every request path, and can misbehave the ways a real index does: refuse everything with an
HTTP status (403, 404), accept connections and never answer, or send wheels only after a delay.
`refused_url()` is an address where nothing listens (connection refused). Point pip at it with
`pip_env`.
"""

from __future__ import annotations

import hashlib
import html
import os
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from support.wheels import normalised


@dataclass
class IndexState:
    folder: Path
    mode: str = "serve"
    """"serve", "hang" (accept, never answer), or an HTTP status to answer everything with."""
    delay: float = 0.0
    """Seconds each wheel download waits before it starts (a slow index: steps last that long)."""
    requests: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def projects(self) -> dict[str, list[Path]]:
        found: dict[str, list[Path]] = {}
        for wheel in sorted(self.folder.glob("*.whl")):
            found.setdefault(normalised(wheel.name.split("-")[0]), []).append(wheel)
        return found

    def asked_for(self, project: str) -> bool:
        """Whether anything under /simple/<project>/ or a file of it was requested."""
        key = normalised(project)
        return any(path.rstrip("/").endswith(f"/simple/{key}")
                   or path.startswith(f"/files/{key.replace('-', '_')}-") for path in self.requests)


def _handler(state: IndexState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass  # quiet: the test reads state.requests

        head_only = False

        def do_HEAD(self) -> None:  # noqa: N802 - uv asks what a file is before it fetches it
            self.head_only = True
            self.do_GET()

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            state.requests.append(self.path)
            if state.mode == "hang":
                state.stop.wait(120)  # never answers while the test runs
                return
            if state.mode != "serve":
                self.send_error(int(state.mode))
                return
            path = self.path.split("?", 1)[0]
            projects = state.projects()
            if path.rstrip("/") == "/simple":
                links = "".join(f'<a href="/simple/{p}/">{p}</a>\n' for p in projects)
                self._send(f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode(), "text/html")
            elif path.startswith("/simple/"):
                wheels = projects.get(normalised(path[len("/simple/"):].strip("/")))
                if wheels is None:
                    self.send_error(404)
                    return
                links = "".join(
                    f'<a href="/files/{html.escape(w.name)}#sha256={hashlib.sha256(w.read_bytes()).hexdigest()}">'
                    f"{html.escape(w.name)}</a>\n" for w in wheels)
                self._send(f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode(), "text/html")
            elif path.startswith("/files/") and (state.folder / path[len("/files/"):]).is_file():
                state.stop.wait(state.delay)
                self._send((state.folder / path[len("/files/"):]).read_bytes(), "application/octet-stream")
            else:
                self.send_error(404)

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not self.head_only:
                self.wfile.write(body)

    return Handler


class LocalIndex:
    """`with LocalIndex(folder) as index:` serves `folder` at `index.url` until the block ends."""

    def __init__(self, folder: Path, mode: str = "serve", delay: float = 0.0) -> None:
        self.state = IndexState(folder, mode, delay)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "LocalIndex":
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.state.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(10)

    def set_mode(self, mode: str) -> None:
        self.state.mode = mode

    @property
    def requests(self) -> list[str]:
        return list(self.state.requests)

    def asked_for(self, project: str) -> bool:
        return self.state.asked_for(project)


def refused_url() -> str:
    """An index address on 127.0.0.1 where nothing listens: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple/"


def pip_env(url: str, nowhere: Path, timeout_s: int = 2) -> dict[str, str]:
    """The environment of a process whose pip must use `url` alone: every PIP_ variable of this
    one dropped, the machine's configured extra indexes and find-links overridden (`nowhere` is
    an empty folder), no cache (every run asks the index), a short timeout and no retries."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "UV_"))}
    env.update({"PIP_INDEX_URL": url, "PIP_EXTRA_INDEX_URL": url, "PIP_FIND_LINKS": str(nowhere),
                "PIP_CONFIG_FILE": os.devnull, "PIP_TIMEOUT": str(timeout_s), "PIP_RETRIES": "0",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "PIP_NO_INPUT": "1"})
    return env
