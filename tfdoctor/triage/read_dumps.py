"""Environment dumps that projects ask bug reporters to paste: PyTorch's collect_env and
TensorFlow's tf_env_collect.sh.

PyTorch's torch/utils/collect_env.py prints "Collecting environment information...", then
`Key: value` lines (env_info_fmt): "PyTorch version: 2.1.2", "OS: macOS 14.2.1 (arm64)" (the
macOS from `sw_vers -productVersion` and, in parentheses, platform.machine() of the Python
running it; "Mac OSX 10.15.7 (x86_64)" in older releases), "Python version: 3.11.5 (main, ...)
[Clang 14.0.6 ] (64-bit runtime)", "Python platform: macOS-14.2.1-arm64-arm-64bit", "CPU:"
followed by `sysctl -n machdep.cpu.brand_string` on a Mac, and the pip and conda rows it filtered
with grep ("[pip3] numpy==1.26.2", "[conda] numpy 1.26.2 pypi_0 pypi": never a whole list).
TensorFlow's tools/tf_env_collect.sh prints "== check python ===..." sections of
`key: value` lines from Python's platform module ("python version: 3.9.7", "os kernel version:",
"os platform:", "mac version: ('12.3.1', ('', '', ''), 'arm64')", "machine: arm64"), a grep of
`pip list`, and "tf.version.VERSION = 2.9.0".
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from tfdoctor.facts.archnames import normalise
from tfdoctor.triage.evidence import Found, package_fact
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.platforms import PLATFORM, kernel_hardware, read_platform
from tfdoctor.triage.read_conda import conda_row
from tfdoctor.triage.vocabulary import (chip_name, is_distribution_name, is_package_row, macos_from_darwin,
                                        macos_version, version_at)

WINDOW = 120
"""Lines a dump spans at most after its first line."""
COLLECT_ENV = "collect_env"
TF_ENV = "tf_env_collect.sh"

_OS_MAC = re.compile(r"(?:macOS|Mac OSX)[ \t](?P<version>\d{2}(?:\.\d{1,2}){0,2})(?:[ \t]\((?P<machine>\w{1,20})\))?")
_OS_MACHINE = re.compile(r"\((?P<machine>x86_64|arm64|aarch64|AMD64|ARM64)\)[ \t]*$")
_PY_VERSION = re.compile(r"(?P<version>[23]\.\d{1,2}(?:\.\d{1,3})?)(?:[ \t(]|$)")
_MAC_VER = re.compile(r"\(\s?'(?P<version>[\d.]{0,12})',\s?\(.{0,40}?\),\s?'(?P<machine>\w{0,20})'\)")
_TUPLE_VERSION = re.compile(r"\((?P<major>[23]),[ \t](?P<minor>\d{1,2}),[ \t](?P<micro>\d{1,3}),")


def read(doc: Document, found: Found) -> None:
    lines = doc.lines
    for start, end in _windows(lines, _collect_env_marker):
        for index in range(start, end):
            _collect_env_line(lines, index, found)
    for start, end in _windows(lines, _tf_env_marker):
        section = ""
        for index in range(start, end):
            text = lines[index].text.strip()
            if text.startswith("== ") and text.endswith("=="):
                section = text.strip("= ").lower()
                found.claim(lines[index])
                continue
            _tf_env_line(lines[index], text, section, found)


def _collect_env_marker(line: Line) -> bool:
    return line.text.startswith(("Collecting environment information", "PyTorch version: "))


def _tf_env_marker(line: Line) -> bool:
    text = line.text.strip()
    return text.startswith("== check ") and text.endswith("==")


def _windows(lines: Sequence[Line], marker: Callable[[Line], bool]) -> list[tuple[int, int]]:
    """(start, end) of each dump: from its first line to the next first line, the end of its
    fenced block or WINDOW lines on; each line belongs to one window at most."""
    out: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        if len(lines[index].text) > 200 or not marker(lines[index]):
            index += 1
            continue
        block, end = lines[index].block, index + 1
        while end < len(lines) and end - index < WINDOW and lines[end].block == block:
            if len(lines[end].text) < 200 and marker(lines[end]) and _is_start(lines[end]):
                break
            end += 1
        out.append((index, end))
        index = end
    return out


def _is_start(line: Line) -> bool:
    """A dump's first line (a second dump begins there), not one of its sections."""
    return line.text.startswith(("Collecting environment information", "== check python"))


def _collect_env_line(lines: Sequence[Line], index: int, found: Found) -> None:
    line = lines[index]
    text = line.text.strip()
    key, _, value = text.partition(": ")
    value = value.strip()
    if key == "PyTorch version" and version_at(value) == value:
        found.add(line, package_fact("torch"), value, "read", COLLECT_ENV)
    elif key == "OS":
        _os_description(line, value, found)
    elif key == "Python version":
        match = _PY_VERSION.match(value)
        if match:
            found.add(line, "python_version", match.group("version"), "read", COLLECT_ENV)
    elif key == "Python platform":
        _platform(line, value, COLLECT_ENV, found)
    elif text == "CPU:" and index + 1 < len(lines):
        _brand(lines[index + 1], found)
    elif text.startswith("[") and "] " in text[:12]:
        _package_row(line, text, found)
    else:
        return
    found.claim(line)


def _os_description(line: Line, value: str, found: Found) -> None:
    """"macOS 14.2.1 (arm64)": the OS, and in parentheses the Python's platform.machine()."""
    mac = _OS_MAC.match(value)
    if mac and macos_version(mac.group("version")):
        found.add(line, "os", "Darwin", "read", COLLECT_ENV)
        key = "macos_version_reported" if mac.group("version") == "10.16" else "macos_version"
        found.add(line, key, mac.group("version"), "read", COLLECT_ENV)
    elif value.startswith(("Microsoft Windows", "Windows")):
        found.add(line, "os", "Windows", "read", COLLECT_ENV)
    elif value and value not in ("Could not collect", "None"):
        found.add(line, "os", "Linux", "read", COLLECT_ENV)
    machine = _OS_MACHINE.search(value[-40:])
    if machine:
        found.add(line, "python_arch", normalise(machine.group("machine")) or "", "read", COLLECT_ENV)


def _platform(line: Line, value: str, source: str, found: Found) -> None:
    match = PLATFORM.search(value[:300])
    if not match:
        return
    facts = read_platform(match)
    facts.record(line, source, found)
    if facts.darwin_release:
        _darwin(line, facts.darwin_release, source, found)


def _darwin(line: Line, release: str, source: str, found: Found) -> None:
    macos = macos_from_darwin(release)
    if macos:
        found.add(line, "macos_version", macos, "inferred", source)


def _brand(line: Line, found: Found) -> None:
    """The line after "CPU:" on a Mac: machdep.cpu.brand_string."""
    text = line.text.strip()
    if not text or ":" in text or len(text) > 120:
        return  # Linux's lscpu table, not a brand string
    found.add(line, "cpu_brand", text, "read", COLLECT_ENV)
    chip = chip_name(text)
    if chip and not text.startswith("VirtualApple"):
        found.add(line, "chip", chip, "read", COLLECT_ENV)
    if text.startswith("VirtualApple"):
        found.add(line, "hw_arm64", "true", "read", COLLECT_ENV)
    found.claim(line)


def _package_row(line: Line, text: str, found: Found) -> None:
    """"[pip3] numpy==1.26.2" or "[conda] numpy 1.26.2 pypi_0 pypi"."""
    tag, _, row = text[1:].partition("] ")
    if tag in ("pip", "pip3"):
        name, _, version = row.strip().partition("==")
        if is_distribution_name(name) and version_at(version) == version:
            found.add(line, package_fact(name), version, "read", COLLECT_ENV)
    elif tag == "conda":
        cells = row.split()
        if is_package_row(cells):
            conda_row(line, cells, COLLECT_ENV, found)


def _tf_env_line(line: Line, text: str, section: str, found: Found) -> None:
    key, _, value = text.partition(": ")
    value = value.strip()
    if text.startswith("tf.version.VERSION = "):
        version = text.split("= ", 1)[1].strip()
        if version_at(version) == version:
            found.add(line, "tensorflow_version", version, "read", TF_ENV)
    elif key == "python version" and version_at(value) == value:
        found.add(line, "python_version", value, "read", TF_ENV)
    elif key == "os" and value in ("Darwin", "Linux", "Windows"):
        found.add(line, "os", value, "read", TF_ENV)
    elif key == "os kernel version" and kernel_hardware(value):
        found.add(line, "hw_arm64", kernel_hardware(value) or "", "read", TF_ENV)
    elif key == "os release version" and section.startswith("check os"):
        _darwin(line, value, TF_ENV, found)
    elif key == "os platform":
        _platform(line, value, TF_ENV, found)
    elif key == "mac version":
        _mac_ver(line, value, found)
    elif key == "machine" and normalise(value) in ("arm64", "x86_64"):
        found.add(line, "python_arch", normalise(value) or "", "read", TF_ENV)
    elif section == "are we in docker" and text == "Yes":
        found.add(line, "container", "docker", "read", TF_ENV)
    elif section == "python version" and _TUPLE_VERSION.match(text):
        match = _TUPLE_VERSION.match(text)
        version = f"{match.group('major')}.{match.group('minor')}.{match.group('micro')}"
        found.add(line, "python_version", version, "read", TF_ENV)
    elif section == "check pips":
        cells = text.split()
        if is_package_row(cells):
            found.add(line, package_fact(cells[0]), cells[1], "read", TF_ENV)
    else:
        return
    found.claim(line)


def _mac_ver(line: Line, value: str, found: Found) -> None:
    """platform.mac_ver(): ('12.3.1', ('', '', ''), 'arm64'), the machine of the Python itself."""
    match = _MAC_VER.match(value)
    if not match:
        return
    version = match.group("version")
    if macos_version(version):
        key = "macos_version_reported" if version == "10.16" else "macos_version"
        found.add(line, key, version, "read", TF_ENV)
    if normalise(match.group("machine")) in ("arm64", "x86_64"):
        found.add(line, "python_arch", normalise(match.group("machine")) or "", "read", TF_ENV)
