"""Normalise architecture names from the many places they come from (uname, binary headers), so
`aarch64`, `arm64` and `arm64e` compare equal where they run the same code."""

from __future__ import annotations

ARM64 = "arm64"
X86_64 = "x86_64"

_ALIASES = {"arm64": ARM64, "aarch64": ARM64, "arm64e": ARM64, "x86_64": X86_64, "amd64": X86_64,
            "x86_64h": X86_64}


def normalise(arch: str | None) -> str | None:
    if not arch:
        return None
    return _ALIASES.get(arch.lower(), arch.lower())
