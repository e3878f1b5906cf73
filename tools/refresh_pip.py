"""Where the package index is and how pip reaches it (index-url, extra-index-url, proxy, cert from
`pip config list` and PIP_* variables), and what a project's index page lists: PEP 691 JSON, or
PEP 503 HTML with the PEP 658/714/700 attributes. For tools/refresh_matrix.py; pure except
read_pip_settings, which asks this interpreter's pip.
"""

from __future__ import annotations

import html.parser
import json
import os
import shlex
import subprocess
import sys
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Mapping

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
