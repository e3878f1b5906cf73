"""The installed distributions, read inside the diagnosed interpreter from each site directory's
*.dist-info / *.egg-info (and the *.egg-link files of old editable installs): name, version,
Requires-Dist, wheel tags, installer, whether the user asked for it (pip's REQUESTED marker),
where it came from when that was not an index (PEP 610's direct_url.json: a path, a VCS, a URL,
editable or not; credentials in the URL masked here, before they reach any snapshot), and the
headers of the first compiled libraries each installed.

METADATA is read by read_headers, which takes the header block the way the standard library's
email.parser (compat32, headersonly) does, without importing the email package: that import and
its parser were a third of the collector's time (tests/gather/test_collector.py holds the two equal on
every METADATA of the test machine and on folded, CRLF and malformed blocks).
Standard library only, Python 3.8+.
"""

from __future__ import annotations

import json
import os
import re
from urllib.parse import quote

from tfdoctor.inside.collector import core
from tfdoctor.inside.shared import binfmt

_HEADER_LINE = re.compile(r"From |[\041-\071\073-\176]*:|[\t ]")
"""email.feedparser's headerRE: a header, a continuation line, or the mbox "From " line."""
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
"""Lines with their endings, split on \\r\\n, \\r and \\n only (as email.feedparser splits)."""


def read_headers(text):
    """The header block at the start of `text` as (name, value) pairs in order, each value as
    email.message.Message.get returns it under the compat32 policy (continuation lines kept
    with their line breaks; the first line's leading blanks and the last line break cut)."""
    headers = []
    current = None  # the lines of the header being read
    for line in _LINES.findall(text):
        if not _HEADER_LINE.match(line):
            break  # a blank line, or a line that is no header, ends the block
        if line[0] in " \t":
            if current is not None:
                current.append(line)
            continue
        if current is not None:  # any other line ends the header before it
            headers.append(_joined(current))
            current = None
        if line.startswith("From ") or line.startswith(":"):
            continue  # the mbox envelope line, or a header without a name: both dropped
        current = [line]
    if current is not None:
        headers.append(_joined(current))
    return headers


def _joined(lines):
    name, value = lines[0].split(":", 1)
    return name, (value.lstrip(" \t") + "".join(lines[1:])).rstrip("\r\n")


def _first(headers, name):
    name = name.lower()
    return next((value for key, value in headers if key.lower() == name), None)


def read_text(path, limit=1 << 20):
    """A regular file's text (never blocks: a FIFO named METADATA or RECORD is not read)."""
    if not core.is_regular_file(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


MASK = "<redacted>"
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)@")
_ENV_VARS = re.compile(r"^\$\{[A-Za-z0-9_]+\}(:\$\{[A-Za-z0-9_]+\})?$")
"""PEP 610's ${USER}:${PASSWORD} form: names of variables, not credentials."""


def masked_url(url):
    """`url` with the password of its user part masked (https://user:<redacted>@host), and a
    user part long enough to be a token (https://<redacted>@host); git's ssh user and
    PEP 610 environment-variable forms are kept."""
    found = _USERINFO.match(url)
    if not found:
        return url
    userinfo = found.group(2)
    if userinfo == "git" or _ENV_VARS.match(userinfo):
        return url
    user, colon, _password = userinfo.partition(":")
    if colon:
        kept = user + ":" + MASK
    elif len(user) >= 20:
        kept = MASK
    else:
        return url
    return found.group(1) + kept + "@" + url[found.end():]


def _text_or_none(value):
    return value if isinstance(value, str) else None


def direct_url_facts(dist_path):
    """Where a distribution was installed from when not from an index (PEP 610), as PackageFacts
    fields; {} for one from an index (no direct_url.json)."""
    path = os.path.join(dist_path, "direct_url.json")
    if not os.path.lexists(path):
        return {}
    text = read_text(path, limit=1 << 16)
    try:
        data = json.loads(text) if text is not None else None
    except ValueError:
        data = None
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str):
        return {"direct_kind": "unreadable"}
    facts = {"direct_url": masked_url(url), "direct_kind": "unreadable",
             "subdirectory": _text_or_none(data.get("subdirectory"))}
    for kind in ("vcs", "archive", "dir"):
        info = data.get(kind + "_info")
        if isinstance(info, dict):
            facts["direct_kind"] = kind
            if kind == "dir":
                facts["editable"] = info.get("editable") is True
            elif kind == "vcs":
                facts["vcs"] = _text_or_none(info.get("vcs"))
                facts["vcs_commit"] = _text_or_none(info.get("commit_id"))
            break
    return facts


def read_dist(site_dir, entry):
    path = os.path.join(site_dir, entry)
    record = {"location": path, "name": None, "version": None, "wheel_tags": [],
              "requires_dist": [], "requires_python": None, "installer": None, "error": None}
    if entry.endswith(".dist-info"):
        record["requested"] = core.is_regular_file(os.path.join(path, "REQUESTED"))
        record.update(direct_url_facts(path))
    meta_name = "METADATA" if entry.endswith(".dist-info") else "PKG-INFO"
    text = read_text(os.path.join(path, meta_name))
    if text is None:
        record["error"] = "%s missing or unreadable" % meta_name
    else:
        headers = read_headers(text)
        record["name"] = _first(headers, "Name")
        record["version"] = _first(headers, "Version")
        record["requires_dist"] = [value for key, value in headers if key.lower() == "requires-dist"]
        record["requires_python"] = _first(headers, "Requires-Python")
        if not record["name"] or not record["version"]:
            record["error"] = "%s has no Name or Version" % meta_name
    if record["name"] is None:
        stem = entry.rsplit(".", 1)[0]
        name, _, version = stem.partition("-")
        record["name"], record["version"] = name or None, version or None
    wheel = read_text(os.path.join(path, "WHEEL"))
    if wheel:
        record["wheel_tags"] = [
            line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")
        ]
    installer = read_text(os.path.join(path, "INSTALLER"))
    record["installer"] = installer.strip() if installer else None
    record["binaries"] = dist_binaries(site_dir, path)
    return record


BINARIES_PER_DIST = 3


def dist_binaries(site_dir, dist_path):
    """Headers of the first compiled libraries a distribution installed (from its RECORD).

    The architecture of the installed code is read from the files themselves: the `Tag:` lines
    in WHEEL files often name another platform than the wheel's file name (tensorflow-macos
    2.11 and 2.12 arm64 wheels say x86_64), so they cannot be trusted for this.
    """
    text = read_text(os.path.join(dist_path, "RECORD"), limit=8 << 20)
    found = []
    for line in (text or "").splitlines():
        rel = line.split(",", 1)[0]
        if not rel.endswith(core.COMPILED_SUFFIXES) or rel.startswith(".."):
            continue
        full = os.path.join(site_dir, rel)
        if core.is_regular_file(full):
            info = binfmt.describe_file(full)
        else:
            info = {"format": None, "archs": [], "error": "not a regular file, or missing"}
        info["path"] = rel
        found.append(info)
        if len(found) >= BINARIES_PER_DIST:
            break
    return found


def package_facts(site_dirs, errors):
    """Every distribution in `site_dirs`, in order; a directory that cannot be listed is
    recorded in `errors`."""
    packages = []
    for site_dir in site_dirs:
        try:
            entries = sorted(os.listdir(site_dir))
        except OSError as exc:
            errors.append({"what": "packages", "error": "cannot list %s: %s" % (site_dir, exc)})
            continue
        for entry in entries:
            if entry.endswith((".dist-info", ".egg-info")):
                packages.append(read_dist(site_dir, entry))
            elif entry.endswith(".egg-link"):
                linked = read_egg_link(site_dir, entry)
                if linked is not None:
                    packages.append(linked)
    return packages


def read_egg_link(site_dir, entry):
    """An old editable install (`setup.py develop`): the .egg-link names the source directory,
    whose .egg-info holds the metadata; None when that cannot be found."""
    text = read_text(os.path.join(site_dir, entry), limit=1 << 12)
    source = text.splitlines()[0].strip() if text and text.strip() else ""
    if not source:
        return None
    source = os.path.normpath(os.path.join(site_dir, source))
    wanted = re.sub(r"[-_.]+", "-", entry[:-len(".egg-link")]).lower()
    for where in (source, os.path.join(source, "src")):
        try:
            names = sorted(os.listdir(where))
        except OSError:
            continue
        for name in names:
            if name.endswith(".egg-info") and re.sub(r"[-_.]+", "-", name[:-9].split("-")[0]).lower() == wanted:
                record = read_dist(where, name)
                record.update({"location": os.path.join(site_dir, entry), "direct_kind": "dir",
                               "direct_url": "file://" + quote(source), "editable": True,
                               "binaries": []})
                return record
    return None
