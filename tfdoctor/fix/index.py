"""What the package index is doing, for a step that waits on it: read from pip's debug log.

At its default verbosity pip says nothing while a page does not come, and on failure only "No
matching distribution found", whether the index refused (HTTP 403), was not there (connection
refused) or never answered. Its debug log (PIP_LOG, a file of the step's own) says which, so the
step's progress can say it is still waiting on the index, and its failure why. uv says why in its
own output, which is read the same way.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

WAIT_NOTICE_S = 5.0
"""A step quiet this long gets a line saying what it waits on, and again as long as it lasts."""
WIDTH = 80

_FETCH_FAILED = re.compile(r"Could not fetch URL (\S+?): (.*?)(?: - skipping)?$", re.MULTILINE)
_READ_TIMEOUT = re.compile(r"timeout=([0-9.]+)")
_URL = re.compile(r"https?://[^\s'\"()<>]+")
_HTTP_STATUS = re.compile(r"\b([1-5][0-9][0-9]) (?:Client|Server) Error: ([A-Za-z ]+?) for url"
                          r"|HTTP status (?:client|server) error \(([1-5][0-9][0-9]) (.+?)\) for url")


def _host(url: str) -> str:
    """host[:port] of a URL: never its user or password."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or ""
    return f"{host}:{port}" if host and port else host


def index_trouble(text: str) -> str | None:
    """Why the package index gave nothing, from pip's debug log or uv's output; None when the
    text does not say (the index answered: the trouble is elsewhere)."""
    for url, reason in reversed(_FETCH_FAILED.findall(text)):
        said = _reason(reason, _host(url), url)
        if said:
            return said
    urls = _URL.findall(text)
    return _reason(text, _host(urls[-1]) if urls else "", urls[-1] if urls else "")


def _reason(reason: str, host: str, url: str) -> str | None:
    where = f"the package index {host}".rstrip()
    low = reason.lower()
    status = _HTTP_STATUS.search(reason)
    if status:
        code, words = status.group(1) or status.group(3), (status.group(2) or status.group(4)).strip()
        if code == "404":
            project = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
            return f"{where} has no project {project} (HTTP 404)" if project else f"{where} answered HTTP 404"
        return f"{where} answered HTTP {code} {words}"
    if "timed out" in low or "timeout" in low:
        limit = _READ_TIMEOUT.search(reason)
        return f"{where} did not answer" + (f" within {float(limit.group(1)):g}s" if limit else " in time")
    if "connection refused" in low:
        return f"{where} refused the connection"
    if "name or service not known" in low or "name resolution" in low or "nodename nor servname" in low:
        return f"the name of {where} could not be resolved"
    if "certificate" in low or "ssl" in low:
        return f"the TLS connection to {where} failed"
    return None


def waiting_line(elapsed: float, quiet: float, log_tail: str, installer_log: bool,
                 doing: str | None = None) -> str:
    """A progress line for a step that has been quiet `quiet` s, within WIDTH columns (a host
    cut to fit): what it waits on, from the last lines of pip's debug log when there is one,
    else what it was last seen `doing` (installing 31 packages: pip says nothing until all are
    in)."""
    head = f"  [{elapsed:6.1f}s] "
    urls = _URL.findall(log_tail)
    last = log_tail.rstrip().rsplit("\n", 1)[-1]
    host = _host(urls[-1]) if urls else ""
    if host and "Downloading" in last:
        what, tail = "still downloading from ", f", nothing new for {quiet:.0f}s"
    elif host and any(word in last for word in ("Getting page", "Fetching project page", "Starting new",
                                                "Looking in indexes")):
        what, tail = "waiting on the package index ", f", no answer for {quiet:.0f}s"
    else:
        host = ""
        if doing:
            what = f"still {doing}"
        else:
            what = "still running" if installer_log else "still running (it may be waiting on the index)"
        tail = f": nothing new for {quiet:.0f}s"
    room = WIDTH - len(head) - len(what) - len(tail)
    if len(host) > room:
        host = host[:max(room - 1, 0)] + "…"
    return f"{head}{what}{host}{tail}"
