"""What a failed or killed pip run left in an environment, outside any distribution.

pip writes a wheel's files one by one and, when it fails half-way through a distribution that
was not installed before, leaves the files it wrote: no distribution owns them, so uninstalling
cannot remove them. A listing of the directories pip writes to (the site directories and the
scripts directory), taken just before a fix changes them, tells them apart: what is there when
that fix is undone and was not then goes. Nothing else in the environment is looked at (a
notebook kept beside a venv's bin/ stays).
"""

from __future__ import annotations

import json
import os

LISTING = "listing.json"
"""In the restore record's directory: the paths before the latest fix changed the environment."""


def _paths(roots: list[str]) -> tuple[set[str], set[str]]:
    """(files and links, directories) under `roots`, as absolute paths."""
    files, dirs = set(), set()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames:
                path = os.path.join(dirpath, name)
                (files if os.path.islink(path) else dirs).add(path)
            files.update(os.path.join(dirpath, name) for name in filenames)
    return files, dirs


def take(roots: list[str], record_dir: str) -> str:
    """Write the listing of `roots` into the record's directory; its path."""
    roots = sorted({os.path.abspath(r) for r in roots if os.path.isdir(r)})
    files, dirs = _paths(roots)
    path = os.path.join(record_dir, LISTING)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"roots": roots, "files": sorted(files), "dirs": sorted(dirs)}, handle)
    os.replace(tmp, path)
    return path


def sweep(listing: str | None) -> int:
    """Remove what is under the listed roots now and was not when the listing was taken (files
    first, then the directories left empty); how many paths went (0 without a listing)."""
    try:
        with open(listing or "", encoding="utf-8") as handle:
            before = json.load(handle)
        roots, had_files, had_dirs = before["roots"], set(before["files"]), set(before["dirs"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0
    files, dirs = _paths(roots)
    gone = 0
    for path in sorted(files - had_files):
        os.unlink(path)
        gone += 1
    for path in sorted(dirs - had_dirs, key=len, reverse=True):
        try:
            os.rmdir(path)
            gone += 1
        except OSError:
            pass  # not empty: something in it was there before
    return gone
