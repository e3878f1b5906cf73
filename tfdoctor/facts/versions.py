"""Version strings from other people's metadata: parsed where PEP 440 allows, else None, never
an exception (a hand-edited METADATA or snapshot must not crash a check)."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version


def parse_version(text: str | None) -> Version | None:
    try:
        return Version(text or "")
    except InvalidVersion:
        return None
