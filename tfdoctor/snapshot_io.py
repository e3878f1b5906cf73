"""Snapshots as files: written on the user's machine (redacted by default), read on another.

A file handed over by someone else may be anything: truncated, binary, huge, another JSON
document. Each case becomes one SnapshotError with a clear message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tfdoctor.redact import Identity, redact
from tfdoctor.snapshot import Snapshot, SnapshotError
from tfdoctor.typed import json_text

MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
"""Far above a real snapshot (a few hundred KB with every package); refuses runaway input."""


def read_snapshot(path: str) -> Snapshot:
    """Load a snapshot from a path, or from stdin for "-"."""
    if path == "-":
        raw = sys.stdin.buffer.read(MAX_SNAPSHOT_BYTES + 1)
        name = "<stdin>"
    else:
        file = Path(path)
        name = path
        if not file.exists():
            raise SnapshotError(f"{name}: no such file")
        if file.is_dir():
            raise SnapshotError(f"{name}: is a directory, not a snapshot file")
        if file.stat().st_size > MAX_SNAPSHOT_BYTES:
            raise SnapshotError(f"{name}: {file.stat().st_size} bytes is too large for a snapshot "
                                f"(limit {MAX_SNAPSHOT_BYTES})")
        try:
            raw = file.read_bytes()
        except OSError as exc:
            raise SnapshotError(f"{name}: cannot read: {exc.strerror or exc}") from None
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
    if isinstance(data, dict) and "target" not in data and isinstance(data.get("snapshot"), dict):
        data = data["snapshot"]  # a `check --json` report, or a document that wraps a snapshot
    try:
        return Snapshot.from_dict(data)
    except RecursionError:
        raise SnapshotError(f"{name}: JSON nested too deeply") from None
    except SnapshotError as exc:
        raise SnapshotError(f"{name}: {exc}") from None


def redact_snapshot(snapshot: Snapshot, identity: Identity | None = None) -> Snapshot:
    """A copy with home directory, user and host names replaced in every string."""
    who = identity or Identity.current()
    data = _map_strings(snapshot.to_dict(), lambda text: redact(text, who))
    data["redacted"] = True
    return Snapshot.from_dict(data)


def snapshot_json(snapshot: Snapshot) -> str:
    return json_text(snapshot.to_dict(), indent=1) + "\n"


def _map_strings(value: Any, change) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [_map_strings(v, change) for v in value]
    if isinstance(value, dict):
        return {change(k): _map_strings(v, change) for k, v in value.items()}
    return value
