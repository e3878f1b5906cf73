"""Normalise architecture names from the many places they come from (uname, wheel tags, binary
headers), so `aarch64`, `arm64` and `arm64e` compare equal where they run the same code."""

from __future__ import annotations

ARM64 = "arm64"
X86_64 = "x86_64"

_ALIASES = {"arm64": ARM64, "aarch64": ARM64, "arm64e": ARM64, "x86_64": X86_64, "amd64": X86_64,
            "x86_64h": X86_64}
_MULTI = {"universal2": {ARM64, X86_64}, "universal": {X86_64, "i386", "ppc"},
          "intel": {X86_64, "i386"}, "fat64": {X86_64, "ppc64"}}


def normalise(arch: str | None) -> str | None:
    if not arch:
        return None
    return _ALIASES.get(arch.lower(), arch.lower())


def tag_archs(platform_tag: str) -> set[str] | None:
    """The architectures a wheel platform tag runs on; None for pure-Python `any`."""
    if platform_tag == "any":
        return None
    for multi, archs in _MULTI.items():
        if platform_tag.endswith("_" + multi):
            return archs
    if platform_tag.startswith(("macosx_", "manylinux", "musllinux", "linux_")):
        for arch in _ALIASES:
            if platform_tag.endswith("_" + arch):
                return {_ALIASES[arch]}
        return {platform_tag.rsplit("_", 1)[-1]}
    if platform_tag.startswith("win"):
        return {X86_64} if platform_tag.endswith("amd64") else {platform_tag.split("_", 1)[-1]}
    return None
