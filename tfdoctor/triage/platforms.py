"""Platform strings machines print, read into facts: Python's `platform.platform()` and wheel file
names (PEP 427), the two places a report shows what a Python process really is.

`macOS-10.16-x86_64-i386-64bit` is an x86_64 Python on macOS 11 or later: macOS answers 10.16 to
programs built against an SDK older than 11 (Python's platform.mac_ver; the SYSTEM_VERSION_COMPAT
shim), and no arm64 build is that old. A wheel pip chose to download fits the Python that chose
it, so `...-macosx_10_15_x86_64.whl` from an Apple-silicon Mac means an x86_64 Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfdoctor.facts.archnames import normalise
from tfdoctor.triage.evidence import Found
from tfdoctor.triage.layout import Line
from tfdoctor.triage.vocabulary import macos_version

PLATFORM = re.compile(
    r"(?<![\w-])(?:(?P<mac>macOS|Darwin)-(?P<release>\d{1,2}(?:\.\d{1,3}){0,2})-(?P<machine>arm64|x86_64)-(?:arm|i386)-64bit"
    r"|(?P<linux>Linux)-[\w.+~]{1,60}(?:-[\w.+~]{1,60}){0,4}?-(?P<lmachine>x86_64|aarch64)(?:-with-[\w.-]{1,40})?"
    r"|(?P<windows>Windows)-\d{1,3}-[\d.]{1,30}(?:-SP\d)?)(?![\w-])")
"""platform.platform() as CPython prints it (Lib/platform.py: system-release-machine-processor
and '64bit', 'macOS-' since 3.8, 'Darwin-' before; 'Linux-<release>-<machine>-with-<libc>')."""

ARCHSPEC = {"m1": "arm64", "m2": "arm64", "m3": "arm64", "m4": "arm64", "arm64": "arm64",
            "aarch64": "arm64", "x86_64": "x86_64", "x86_64_v2": "x86_64", "x86_64_v3": "x86_64",
            "x86_64_v4": "x86_64", "haswell": "x86_64", "broadwell": "x86_64",
            "skylake": "x86_64", "icelake": "x86_64", "cascadelake": "x86_64",
            "ivybridge": "x86_64", "sandybridge": "x86_64", "westmere": "x86_64", "nehalem": "x86_64"}
"""archspec microarchitecture names (conda's `__archspec=1=...` virtual package) -> architecture."""

_WHEEL = re.compile(
    r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.]{0,100})-(?P<version>\d[\w.!+]{0,60})(?:-\d[\w.]{0,20})?"
    r"-(?P<python>[\w.]{1,40})-(?P<abi>[\w.]{1,40})-(?P<platform>[\w.]{1,200})\.whl")


@dataclass(frozen=True)
class PlatformFacts:
    os: str
    python_arch: str | None = None
    macos_version: str | None = None
    macos_version_reported: str | None = None
    darwin_release: str | None = None

    def record(self, line: Line, source: str, found: Found) -> None:
        """Add what the platform string says (the kernel release aside: readers differ on it)."""
        for name in ("os", "python_arch", "macos_version", "macos_version_reported"):
            if getattr(self, name):
                found.add(line, name, getattr(self, name), "read", source)


def read_platform(match: re.Match[str]) -> PlatformFacts:
    """What one `PLATFORM` match says of the Python that printed it."""
    if match.group("mac"):
        release = match.group("release")
        arch = normalise(match.group("machine"))
        if match.group("mac") == "Darwin":  # Python < 3.8 printed the kernel release
            return PlatformFacts("Darwin", arch, darwin_release=release)
        if release == "10.16":
            return PlatformFacts("Darwin", arch, macos_version_reported=release)
        return PlatformFacts("Darwin", arch, macos_version(release))
    if match.group("linux"):
        return PlatformFacts("Linux", normalise(match.group("lmachine")))
    return PlatformFacts("Windows")


def kernel_hardware(text: str) -> str | None:
    """"true"/"false" for hw_arm64 from a Darwin kernel version string: xnu's build names the
    hardware it was built for (RELEASE_ARM64_T6000, RELEASE_X86_64), and Rosetta does not change
    what the kernel is."""
    if "RELEASE_ARM64" in text:
        return "true"
    if "RELEASE_X86_64" in text:
        return "false"
    return None


@dataclass(frozen=True)
class Wheel:
    name: str
    version: str
    python: str | None
    """"3.11" for a cp311 wheel; None for py3, a stable-ABI wheel (cp37-abi3 runs on every CPython
    from 3.7) and other untied tags."""
    os: str | None
    arch: str | None
    """"arm64" or "x86_64"; None for universal2 and pure-Python wheels."""


def read_wheel(filename: str) -> Wheel | None:
    """A wheel file name's distribution, version, Python and platform (PEP 427)."""
    match = _WHEEL.fullmatch(filename)
    if not match:
        return None
    tags = match.group("python").split(".")
    cpython = [t for t in tags if re.fullmatch(r"cp3\d{1,2}", t)]
    stable_abi = "abi3" in match.group("abi").split(".")  # cp37-abi3: any CPython from 3.7 (PEP 384, 425)
    python = f"3.{cpython[0][3:]}" if len(cpython) == 1 and not stable_abi else None
    plat = match.group("platform")
    os_name, arch = None, None
    if plat.startswith("macosx_"):
        os_name = "Darwin"
        arch = "arm64" if plat.endswith("_arm64") else "x86_64" if plat.endswith("_x86_64") else None
    elif "linux" in plat:
        os_name = "Linux"
        arch = "arm64" if plat.endswith("_aarch64") else "x86_64" if plat.endswith("_x86_64") else None
    elif plat.startswith("win"):
        os_name = "Windows"
        arch = "x86_64" if plat == "win_amd64" else "arm64" if plat == "win_arm64" else None
    return Wheel(match.group("name"), match.group("version"), python, os_name, arch)


_STOP = frozenset(" \t/\\\"'()<>=,;:")
"""Characters that end a file name written in a line (a path's /, a URL's =, quotes)."""


def wheel_names(text: str) -> list[str]:
    """The wheel file names in a line (a bare name, or the last part of a URL or path). Found by
    their `.whl` ending and walked back to their start, each character looked at once."""
    out, done = [], 0
    at = text.find(".whl")
    while at != -1:
        end = at + 4
        if end == len(text) or not (text[end].isalnum() or text[end] in "._-"):
            start = at
            while start > max(done, at - 300) and text[start - 1] not in _STOP:
                start -= 1
            if start < at:
                out.append(text[start:end])
        done = end
        at = text.find(".whl", end)
    return out
