"""Snapshots as files: written on the user's machine (redacted by default), read on another.

A file handed over by someone else may be anything: truncated, binary, huge, another JSON
document. Each case becomes one SnapshotError with a clear message.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any

from tfdoctor.child.files import read_at_most
from tfdoctor.facts.snapshot import Snapshot, SnapshotError
from tfdoctor.facts.typed import clean_text, depth_within, json_text
from tfdoctor.sanitize.redact import Identity, mask_plain, redact

MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
"""Far above a real snapshot (a few hundred KB with every package); refuses runaway input."""
MAX_DEPTH = 64
"""A snapshot nests about 8 levels; deeper input is refused before anything walks it."""

SNAPSHOT_SCHEMA = "tfdoctor-snapshot"
"""What a snapshot file names as its schema (`tfdoctor schema snapshot`)."""
COLLECT_SUMMARY = "tfdoctor snapshot (JSON)"
"""The summary line of the block `collect --format markdown` writes around the snapshot:
`tfdoctor triage` reads the snapshot back from a pasted report, and not as error text."""


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot from a path, or from stdin for "-". Credential-looking values in it are
    masked at once, so no output of tfdoctor can repeat them."""
    if path == "-":
        raw = sys.stdin.buffer.read(MAX_SNAPSHOT_BYTES + 1)
        name = "<stdin>"
    else:
        name = clean_text(path)
        raw = _read_regular_file(path, name)
    if len(raw) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(f"{name}: too large for a snapshot (limit {MAX_SNAPSHOT_BYTES} bytes)")
    if b"\x00" in raw:
        raise SnapshotError(f"{name}: binary data, not a JSON snapshot")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SnapshotError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise SnapshotError(f"{name}: JSON nested too deeply") from None
    except ValueError as exc:
        raise SnapshotError(f"{name}: not JSON ({exc})") from None
    if not depth_within(data, MAX_DEPTH):
        raise SnapshotError(f"{name}: JSON nested too deeply (more than {MAX_DEPTH} levels)")
    if isinstance(data, dict) and "target" not in data and isinstance(data.get("snapshot"), dict):
        data = data["snapshot"]  # a `check --json` report, or a document that wraps a snapshot
    try:
        return Snapshot.from_dict(mask_plain(data))
    except RecursionError:
        raise SnapshotError(f"{name}: JSON nested too deeply") from None
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from None


def _read_regular_file(path: str, name: str) -> bytes:
    """The bytes of a regular file, at most MAX_SNAPSHOT_BYTES + 1 of them. Never blocks on a
    FIFO, never reads a device such as /dev/zero forever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise SnapshotError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise SnapshotError(f"{name}: is a directory, not a snapshot file") from None
    except (OSError, ValueError) as exc:
        raise SnapshotError(f"{name}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise SnapshotError(f"{name}: is a directory, not a snapshot file")
        if not stat.S_ISREG(info.st_mode):
            raise SnapshotError(f"{name}: not a regular file (a pipe or a device); use - for stdin")
        if info.st_size > MAX_SNAPSHOT_BYTES:
            raise SnapshotError(f"{name}: {info.st_size} bytes is too large for a snapshot "
                                f"(limit {MAX_SNAPSHOT_BYTES})")
        return read_at_most(fd, MAX_SNAPSHOT_BYTES + 1)
    except OSError as exc:
        raise SnapshotError(f"{name}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def mask_snapshot_secrets(snapshot: Snapshot) -> Snapshot:
    """A copy with every credential-looking value masked (applied to every snapshot shown or
    written, redacted or not)."""
    return Snapshot.from_dict(mask_plain(snapshot.to_dict()))


def redact_snapshot(snapshot: Snapshot, identity: Identity | None = None) -> Snapshot:
    """A copy with credentials masked and home directory, user and host names replaced in every
    string."""
    who = identity or Identity.current()
    data = _map_strings(mask_plain(snapshot.to_dict()), lambda text: redact(text, who))
    data["redacted"] = True
    return Snapshot.from_dict(data)


def snapshot_json(snapshot: Snapshot) -> str:
    """The snapshot file's text: its schema named first, as every document tfdoctor prints;
    credentials masked (also with --no-redact), valid UTF-8."""
    data = mask_plain(snapshot.to_dict())
    data = {"schema": SNAPSHOT_SCHEMA, "schema_version": data.pop("schema_version"), **data}
    return json_text(data, indent=1) + "\n"


def _map_strings(value: Any, change) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {change(k): _map_strings(v, change) for k, v in value.items()}
    return value
