"""The words of a bug report that name versions, macOS releases and chips, read the same way by
every reader.

A report says "Ventura", "macOS 13.2", "Darwin 22.3.0" or "M1 Max"; the snapshot wants "13",
"13.2", "Apple M1 Max". Versions cut at the end of a paste ("2.1…") are not versions.
"""

from __future__ import annotations

import re
from typing import Sequence

VERSION = r"\d{1,4}(?:\.\d{1,8}){0,4}(?:-?(?:alpha|beta|a|b|rc)\d{0,12}|\.?post\d{0,12}|\.?dev\d{0,12})?(?:\+[\w.]{1,40})?"
"""A release version as pip, conda and TensorFlow print them (2.16.0rc0, 2.4.0-rc0,
2.14.0.dev20230601, 1.0.1+local), and as people write them (the fork's "0.1alpha3", pip's 0.1a3)."""
_VERSION = re.compile(VERSION)


def typed_command(prompts: str) -> str:
    """Where a command is typed at a line's start: one of `prompts` (regex class characters, e.g.
    "$%>"), a step's number or a bullet, then an opening backtick; all optional. A sentence that
    mentions a command is not one typed."""
    return rf"[ \t]{{0,20}}(?:[{prompts}][ \t]{{0,3}}|\d{{1,2}}[.)][ \t]{{1,3}}|[-*][ \t]{{1,3}})?`?"
_CUT = ("…", "...")

MACOS_NAMES = {
    "mountain lion": "10.8", "mavericks": "10.9", "yosemite": "10.10", "el capitan": "10.11",
    "sierra": "10.12", "high sierra": "10.13", "mojave": "10.14", "catalina": "10.15", "big sur": "11",
    "monterey": "12", "ventura": "13", "sonoma": "14", "sequoia": "15", "tahoe": "26",
}
"""Apple's names of macOS releases (Apple's "macOS version history" support page, HT201260)."""

SYSTEMS = (("ubuntu", "Linux"), ("debian", "Linux"), ("linux", "Linux"), ("centos", "Linux"),
           ("fedora", "Linux"), ("windows", "Windows"), ("macos", "Darwin"), ("mac os", "Darwin"),
           ("osx", "Darwin"), ("os x", "Darwin"), ("mac", "Darwin"))
"""Words that name a system (lower case) -> platform.system()'s name for it, the first that fits
winning ("macos" before "mac")."""
_WINDOWS_SHORT = re.compile(r"(?i)\bwin[ \t-]?(?:7|8(?:\.1)?|10|11|xp)\b")
"""Windows named in short: "Win 10 pro", "win11"."""


def system_named(text: str) -> str | None:
    """The system a short answer names (SYSTEMS' words, or Windows in short), None if none."""
    low = text.lower()
    found = next((name for word, name in SYSTEMS if word in low), None)
    return found or ("Windows" if _WINDOWS_SHORT.search(text) else None)
_DARWIN_MACOS = {18: "10.14", 19: "10.15", 20: "11", 21: "12", 22: "13", 23: "14", 24: "15",
                 25: "26"}
"""Darwin kernel major -> macOS major (XNU releases: Darwin 20 shipped with macOS 11 Big Sur,
each later major with the next macOS; Darwin 25 is macOS 26 Tahoe)."""

_CHIP = re.compile(r"(?i)(?<![\w-])(?:apple[ \t]{1,3})?m([1-9])(?:[ \t-]{0,2}(pro|max|ultra))?(?![\w-])")
_INTEL_CORE = re.compile(r"(?i)(?<![\w-])intel(?:\((?:r|tm)\))?[ \t-]{1,3}(?:core(?:\((?:r|tm)\))?[ \t]{1,3})?(i[3579])(?![\w])")
_INTEL_XEON = re.compile(r"(?i)(?<![\w-])intel(?:\((?:r|tm)\))?[ \t-]{1,3}xeon(?![\w])")
"""The Mac Pro's and iMac Pro's chip, as About This Mac names it ("2.5 GHz 28-Core Intel Xeon W")."""
_INTEL_OTHER = re.compile(r"(?i)(?<![\w-])intel(?:\((?:r|tm)\))?[ \t-]{1,3}(?:core(?:\((?:r|tm)\))?[ \t]?2|pentium|celeron|atom"
                          r"|[qetxlpu]\d{4})(?![\w-])")
"""Intel's other x86 CPUs: Core 2 (and its model numbers, "Intel Q9650"), Pentium, Celeron, Atom."""
_AMD = re.compile(r"(?i)(?<![\w-])AMD[ \t]{1,3}(?:Ryzen|Athlon|Phenom|FX|Opteron|EPYC|Threadripper|Turion|Sempron)(?![\w-])")
"""AMD's x86 CPUs by their brand (not its Radeon GPUs, which Intel Macs have beside an Intel chip)."""
_INTEL_MAC = re.compile(r"(?i)(?<![\w-])intel[ \t-]{1,3}(?:based[ \t]{1,3})?(?:mac|macbook|imac|chip|cpu|processor)")


def version_at(text: str, start: int = 0) -> str | None:
    """The version that starts at `start`, unless the paste was cut inside it ("2.1…")."""
    match = _VERSION.match(text, start)
    if not match:
        return None
    tail = text[match.end():match.end() + 3]
    if tail.startswith(_CUT) or (tail[:1] == "." and not tail[1:2].isdigit() and tail[1:2] not in ("", " ")):
        return None
    return match.group().rstrip(".")


def version_in(text: str) -> str | None:
    """The first whole version in `text` (a field such as "tf 2.8" or "2.12.0")."""
    for match in re.finditer(r"(?<![\w.])v?(\d)", text):
        found = version_at(text, match.start(1))
        if found and "." in found:
            return found
    return None


def minor_of(version: str) -> str:
    return ".".join(version.split(".")[:2])


def compatible(a: str, b: str) -> bool:
    """Whether two versions can both be true: equal, or one the other's shorter form (3.10 and
    3.10.4; macOS 13 and 13.2.1)."""
    left, right = a.split("."), b.split(".")
    shorter = min(len(left), len(right))
    return left[:shorter] == right[:shorter]


def macos_from_darwin(release: str) -> str | None:
    """The macOS major of a Darwin kernel release ("22.3.0" -> "13")."""
    head = release.split(".", 1)[0]
    return _DARWIN_MACOS.get(int(head)) if head.isdigit() and len(head) <= 3 else None


def macos_version(text: str) -> str | None:
    """A macOS version as written ("13.2.1"), None for what no macOS release was called."""
    if not re.fullmatch(r"\d{2}(?:\.\d{1,2}){0,2}", text):
        return None
    major = int(text.split(".")[0])
    return text if major == 10 or 11 <= major <= 15 or 26 <= major <= 30 else None


def chip_name(text: str) -> str | None:
    """The chip a text names: "Apple M1 Max", "Intel Core i9", "Intel", "AMD"."""
    match = _CHIP.search(text)
    if match:
        tier = f" {match.group(2).capitalize()}" if match.group(2) else ""
        return f"Apple M{match.group(1)}{tier}"
    match = _INTEL_CORE.search(text)
    if match:
        return f"Intel Core {match.group(1).lower()}"
    if _INTEL_XEON.search(text):
        return "Intel Xeon"
    if _AMD.search(text):
        return "AMD"
    return "Intel" if _INTEL_OTHER.search(text) or _INTEL_MAC.search(text) else None


def chips_in(text: str) -> list[tuple[int, str]]:
    """Every chip a prose line names, with its offset."""
    found = []
    for match in _CHIP.finditer(text):
        tier = f" {match.group(2).capitalize()}" if match.group(2) else ""
        found.append((match.start(), f"Apple M{match.group(1)}{tier}"))
    for match in _INTEL_CORE.finditer(text):
        found.append((match.start(), f"Intel Core {match.group(1).lower()}"))
    found += [(m.start(), "Intel Xeon") for m in _INTEL_XEON.finditer(text)]
    found += [(m.start(), "AMD") for m in _AMD.finditer(text)]
    if not found:
        found += [(m.start(), "Intel") for m in _INTEL_OTHER.finditer(text)]
        found += [(m.start(), "Intel") for m in _INTEL_MAC.finditer(text)]
    return sorted(found)


def is_apple_chip(chip: str) -> bool:
    return chip.startswith("Apple M")


_DISTRIBUTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,200}[A-Za-z0-9])?")
"""A distribution name as PEP 508 allows it."""


def is_distribution_name(text: str) -> bool:
    return _DISTRIBUTION.fullmatch(text) is not None


def is_package_row(cells: Sequence[str]) -> bool:
    """Cells that begin with a distribution's name and its whole version ("numpy 1.26.2 ...", as
    conda's and tf_env_collect's listings print a package)."""
    return len(cells) >= 2 and is_distribution_name(cells[0]) and version_at(cells[1]) == cells[1]


def is_elision(text: str) -> bool:
    """A line that stands for lines left out of a paste ("...", "[...]", "<snip>")."""
    body = text.strip().lower()
    return body.startswith(("...", "…", "[...]", "(...)", "[…]", "<snip", "[snip", "# ...")) or body in (
        "etc", "etc.", "snip")
