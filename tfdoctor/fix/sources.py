"""Where a distribution can be installed from again: the index, by name and version, only when it
came from an index; otherwise the path, VCS commit or URL it came from (PEP 610).

A distribution installed from a path, a VCS or a URL has a name an index may give to another
project (issue 25: `pip install .` of tfdoctor, then `tfdoctor==0.1.0` looked up on PyPI), so it
is never asked of an index by name: it is reinstalled from its source, or not at all, with why.
Names and versions are checked against their grammars here, so that nothing from a snapshot
becomes a requirement it does not look like.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable
from urllib.parse import unquote, urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tfdoctor.facts.snapshot import PackageFacts
from tfdoctor.facts.versions import parse_version
from tfdoctor.sanitize.redact import MASK, mask_secrets

_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
"""PEP 508's distribution name."""
_VCS = frozenset({"git", "hg", "svn", "bzr"})


def is_distribution_name(name: str | None) -> bool:
    return bool(name) and _NAME.match(name or "") is not None


def is_version(version: str | None) -> bool:
    """A version pip can pin (PEP 440): `abc` or `1.0; rm -rf` is not one."""
    return bool(version) and version == (version or "").strip() and parse_version(version) is not None


@dataclass(frozen=True)
class Source:
    """How to install a distribution again: `requirement` (after `--`), or `editable` (a
    directory for `-e`), or neither and `why_not`."""

    requirement: str | None = None
    editable: str | None = None
    why_not: str | None = None
    from_index: bool = False


def source_of(pkg: PackageFacts, path_exists: Callable[[str], bool]) -> Source:
    """Where `pkg` can come from again; `path_exists` says whether a local source is still there."""
    label = pkg.name or pkg.key or "?"
    if not is_distribution_name(pkg.name):
        return Source(why_not=f"{label!r} is not a valid distribution name")
    key = canonicalize_name(pkg.name or "")
    if pkg.direct_kind is None:
        if not is_version(pkg.version):
            return Source(why_not=f"its version {pkg.version!r} is not a version pip can pin")
        return Source(f"{key}=={pkg.version}", from_index=True)
    url = mask_secrets(pkg.direct_url or "")
    if pkg.direct_kind == "unreadable" or not url:
        return Source(why_not="it was not installed from an index, and its direct_url.json cannot "
                      "be read: install it again yourself from where it came from")
    if MASK in url:
        return Source(why_not=f"it came from {url}, which needs credentials (masked here): "
                      "install it again yourself")
    parts = urlsplit(url)
    local = unquote(parts.path) if parts.scheme == "file" else None
    if pkg.editable:
        if local is None:
            return Source(why_not=f"it is an editable install from {url}, not a local directory")
        if not path_exists(local):
            return Source(why_not=f"it is an editable install from {local}, which is no longer there")
        return Source(editable=local)
    if local is not None and not path_exists(local):
        return Source(why_not=f"it was installed from {local}, which is no longer there")
    if pkg.direct_kind == "vcs":
        if pkg.vcs not in _VCS or not pkg.vcs_commit:
            return Source(why_not=f"it came from the repository {url}, and the facts do not say "
                          "which commit")
        if url.startswith("file:///"):  # pip before 24 refuses a VCS URL without a host
            url = "file://localhost/" + url[len("file:///"):]
        url = f"{pkg.vcs}+{url}@{pkg.vcs_commit}"
    if pkg.subdirectory:
        url += f"#subdirectory={pkg.subdirectory}"
    requirement = f"{key} @ {url}"
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return Source(why_not=f"its source {url} cannot be written as a requirement")
    if canonicalize_name(parsed.name) != key or parsed.url is None:
        return Source(why_not=f"its source {url} cannot be written as a requirement")
    return Source(requirement)
