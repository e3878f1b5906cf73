"""What pip printed, pasted: `pip list`, `pip freeze`, `pip show`, and an install's own output.

Formats, from pip's source (src/pip/_internal/commands/): `pip list` is a two-or-more column
table, a `Package Version` header and a rule of dashes over its columns (list.py,
format_for_columns and output_package_listing_columns); `pip freeze` and `pip list
--format=freeze` print `name==version`, `name @ URL` for a direct-URL install (PEP 610) and
`-e URL#egg=name` for an editable one (operations/freeze.py); `pip show` prints `Name:` then
`Version:` (show.py). An install prints "Requirement already satisfied: NAME in PATH (VERSION)",
the wheel files it downloads, and "Successfully installed NAME-VERSION ..."
(req/req_install.py, commands/install.py); its refusals ("No matching distribution found for
tensorflow==2.9.0") name what was asked for, which is not read as installed.

A listing pasted whole, from the reporter, is complete; one filtered through grep, elided with
"..." or running into a cut paste is not.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

from tfdoctor.triage.evidence import Found, package_fact
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.platforms import Wheel, read_wheel, wheel_names
from tfdoctor.triage.vocabulary import is_distribution_name, is_elision, is_package_row, version_at

_LONGEST_ROW = 4000
MAX_FILTERED = 500
"""Rows read under a `pip list | grep ...` at most."""
"""No row of pip's output is longer (an editable row's path included); longer lines are not rows."""
_RULE = re.compile(r"-{3,300}(?:[ \t]{1,3}-{3,300}){1,8}")
_PIP_COMMAND = re.compile(r"(?<![\w-])pip(?:3(?:\.\d{1,2})?)?[ \t]{1,5}(?P<verb>list|freeze)\b|-m[ \t]{1,5}pip[ \t]{1,5}(?P<mverb>list|freeze)\b")
_PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,200})(?:\[[^\]]{0,200}\])?[ \t]{0,3}===?[ \t]{0,3}(?P<version>\S{1,100})")
_DIRECT = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,200})(?:\[[^\]]{0,200}\])?[ \t]{1,3}@[ \t]{1,3}(?P<url>\S{1,2000})")
_EDITABLE = re.compile(r"-e[ \t]{1,3}(?P<url>\S{1,2000})")
_EDITABLE_NOTE = re.compile(r"#[ \t]{0,3}Editable install with no version control \((?P<pin>[^()]{1,300})\)")
_EGG = re.compile(r"[#&]egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,200})")
_SATISFIED = re.compile(r"Requirement already satisfied:[ \t]{1,3}(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,200})")
_INSTALLED = "Successfully installed "
_REFUSED = ("Could not find a version that satisfies the requirement ", "No matching distribution found for ",
            "Could not find a final version that satisfies the requirement ")
"""pip's refusals (resolution/resolvelib/factory.py): what they name was asked for, not installed."""
_UV_REFUSED = ("has no wheels with a matching", "can't be installed because it doesn't have")
"""uv's (uv-resolver's incompatible-wheel reasons, the installer's incompatible-dist error)."""


def read(doc: Document, found: Found) -> None:
    lines = doc.lines
    sizes = Counter(line.block for line in lines)
    _pip_list(doc, found)
    _pip_freeze(doc, found, sizes)
    _filtered(lines, found)
    _pip_show(lines, found)
    _pip_output(lines, found)
    _bare_rows(lines, found)


def _command_above(lines: Sequence[Line], at: int) -> Line | None:
    """The `pip list` or `pip freeze` command typed just above line index `at`, if any."""
    for index in range(at - 1, max(-1, at - 4), -1):
        if _PIP_COMMAND.search(lines[index].text):
            return lines[index]
    return None


def _runs_out(doc: Document, last: int) -> bool:
    """A listing that reaches the report's end where the paste may be cut."""
    return doc.cut_at_end and last >= len(doc.lines) - 1


def _pip_list(doc: Document, found: Found) -> None:
    lines = doc.lines
    index = 0
    while index < len(lines) - 1:
        header = lines[index]
        words = header.text.split(None, 2)[:2] if len(header.text) < _LONGEST_ROW else []
        if words != ["Package", "Version"] or not _RULE.fullmatch(lines[index + 1].text.strip()):
            index += 1
            continue
        complete, end = True, index + 2
        while end < len(lines):
            line = lines[end]
            if is_elision(line.text):
                complete = False
            elif not _list_row(line, found):
                break
            end += 1
        found.claim(*lines[index:end])
        command = _command_above(lines, index)
        if command is not None and "|" in command.text:
            complete = False
        stop = lines[end] if end < len(lines) else None
        if _runs_out(doc, end - 1) or (stop is not None and stop.block == header.block
                                        and stop.number == lines[end - 1].number + 1
                                        and _cut_row(stop.text)):
            complete = False
            found.note(f"the pip list at line {header.number} ends in a cut row: it is not taken "
                       "as complete")
        if complete:
            found.listing(header, "pip list")
        index = end


def _cut_row(text: str) -> bool:
    """A row cut short: a name alone, or a name with a version that is not one ("2.1…")."""
    cells = text.split()
    if not cells or len(text) > _LONGEST_ROW or not is_distribution_name(cells[0]):
        return False
    return len(cells) == 1 or (cells[1][:1].isdigit() and version_at(cells[1]) != cells[1])


def _list_row(line: Line, found: Found) -> bool:
    """Record one `pip list` row; False when the line is not one."""
    if not line.text.strip() or len(line.text) > _LONGEST_ROW:
        return False
    cells = line.text.split()
    if len(cells) < 2 or not is_distribution_name(cells[0]) or not cells[1][:1].isdigit():
        return False
    version = version_at(cells[1])
    if version is None or version != cells[1]:
        return False
    found.add(line, package_fact(cells[0]), version, "read", "pip list")
    found.claim(line)
    return True


def _freeze_row(line: Line, found: Found) -> bool | None:
    """Record one `pip freeze` row: True for a row, None for a comment pip prints among them,
    False for anything else."""
    text = line.text.strip()
    if line.code or not text or len(text) > _LONGEST_ROW:
        return False
    if text.startswith("#"):
        note = _EDITABLE_NOTE.match(text)
        if note and _PIN.fullmatch(note.group("pin")):
            _pin(line, _PIN.fullmatch(note.group("pin")), found)
        return None
    pin = _PIN.fullmatch(text)
    if pin:
        return _pin(line, pin, found)
    direct = _DIRECT.fullmatch(text)
    if direct:
        _direct(line, direct.group("name"), direct.group("url"), found)
        return True
    editable = _EDITABLE.fullmatch(text)
    if editable:
        egg = _EGG.search(editable.group("url"))
        if egg:
            found.add(line, package_fact(egg.group("name")), "", "read", "pip freeze")
        return True
    return False


def _pin(line: Line, pin: re.Match[str], found: Found) -> bool:
    version = version_at(pin.group("version"))
    if version is None or version != pin.group("version"):
        return False
    found.add(line, package_fact(pin.group("name")), version, "read", "pip freeze")
    return True


def _direct(line: Line, name: str, url: str, found: Found) -> None:
    """`name @ URL`: a wheel's file name gives the version and what the Python accepted."""
    wheel = next((read_wheel(n) for n in wheel_names(url)), None)
    found.add(line, package_fact(name), wheel.version if wheel else "", "read", "pip freeze")
    if wheel:
        _wheel_facts(line, wheel, found)


def _pip_freeze(doc: Document, found: Found, sizes: Counter) -> None:
    lines = doc.lines
    index = 0
    while index < len(lines):
        first = lines[index]
        if not _PIN.fullmatch(first.text.strip()) and not _DIRECT.fullmatch(first.text.strip()):
            index += 1
            continue
        probe = Found()
        rows, complete, end = 0, True, index
        while end < len(lines):
            line = lines[end]
            kind = _freeze_row(line, probe)
            if kind is False and is_elision(line.text):
                complete = False
            elif kind is False:
                break
            rows += kind is True
            end += 1
        command = _command_above(lines, index)
        whole_block = first.fenced and end - index == sizes[first.block] and rows >= 5
        if rows >= 3 or command is not None:
            for line in lines[index:end]:
                _freeze_row(line, found)
            found.claim(*lines[index:end])
            if command is not None:
                found.claim(command)
            piped = command is not None and "|" in command.text
            if complete and not _runs_out(doc, end - 1) and (whole_block or (command and not piped)):
                found.listing(first, "pip freeze")
        index = max(end, index + 1)


def _filtered(lines: Sequence[Line], found: Found) -> None:
    """The rows `pip list | grep tensorflow` (or `pip freeze | grep ...`) printed under the
    command: no header, never a whole listing."""
    for index, command in enumerate(lines):
        if "|" not in command.text or len(command.text) > _LONGEST_ROW or not _PIP_COMMAND.search(command.text):
            continue
        for row in (lines[i] for i in range(index + 1, min(len(lines), index + 1 + MAX_FILTERED))):
            if row.block != command.block or not (_list_row(row, found) or _freeze_row(row, found) is True):
                break
            found.claim(row)


_NOT_LISTED = frozenset({"python", "cuda", "cudnn", "macos", "os", "xcode", "gcc", "clang", "bazel", "ubuntu",
                         "windows", "driver", "nvidia", "gpu", "cpu", "ram", "memory"})
"""Systems, toolchains and hardware a report gives a version or size of on a line of its own
("Python   3.9.6", "CUDA   11.2"): never a row pip lists."""
_BARE_ROW = re.compile(r"[ \t]{0,4}(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,200})(?:[ \t]{2,200}|\t)(?P<version>\d\S{0,99})[ \t]{0,4}")


def _bare_rows(lines: Sequence[Line], found: Found) -> None:
    """`pip list` rows copied without their header ("tensorflow-macos   2.9.0" under "Having
    installed the following packages:"): a name and a version padded apart by pip's columns (two
    spaces or more, or a tab; a sentence puts one), on a line no other reader took. Never a whole listing."""
    for line in lines:
        if line.number in found.claimed or len(line.text) > _LONGEST_ROW:
            continue
        row = _BARE_ROW.fullmatch(line.text)
        if row and is_package_row((row["name"], row["version"])) and row["name"].lower() not in _NOT_LISTED \
                and not row["name"].isdigit():
            found.add(line, package_fact(row["name"]), row["version"], "read", "pip list")
            found.claim(line)


def _pip_show(lines: Sequence[Line], found: Found) -> None:
    for index in range(len(lines) - 1):
        line, after = lines[index], lines[index + 1]
        if not line.text.startswith("Name: ") or not after.text.startswith("Version: "):
            continue
        name, version = line.text[6:].strip(), version_at(after.text[9:].strip())
        if is_distribution_name(name) and version:
            found.add(line, package_fact(name), version, "read", "pip show")
            found.claim(line, after)


def _pip_output(lines: Sequence[Line], found: Found) -> None:
    for line in lines:
        if line.code or len(line.text) > 100_000:
            continue
        text = line.text.strip()
        if text.startswith(_INSTALLED):
            for item in text[len(_INSTALLED):].split():
                name, _, version = item.rpartition("-")
                if is_distribution_name(name) and version_at(version) == version:
                    found.add(line, package_fact(name), version, "read", "pip output")
            found.claim(line)
        elif text.startswith("Requirement already satisfied:"):
            _satisfied(line, text, found)
        elif text.removeprefix("ERROR: ").startswith(_REFUSED) or any(words in text for words in _UV_REFUSED):
            found.claim(line)  # a requirement pip or uv could not meet: no installed version to read
        elif text.startswith(("Downloading ", "Using cached ")) and "not a supported wheel" not in text:
            for name in wheel_names(text):
                wheel = read_wheel(name)
                if wheel:
                    _wheel_facts(line, wheel, found)
            found.claim(line)


def _satisfied(line: Line, text: str, found: Found) -> None:
    """"Requirement already satisfied: numpy>=1.20 in ./lib/python3.9/site-packages (from x)
    (1.23.5)": the version is the last parenthesis (pip 20.1+ prints it)."""
    match = _SATISFIED.match(text)
    if not match:
        return
    found.claim(line)
    tail = text.rstrip()
    if tail.endswith(")") and "(" in tail:
        version = tail[tail.rindex("(") + 1:-1].strip()
        if version_at(version) == version:
            found.add(line, package_fact(match.group("name")), version, "read", "pip output")


def _wheel_facts(line: Line, wheel: Wheel, found: Found) -> None:
    """What a wheel pip accepted says of the Python that accepted it."""
    if wheel.arch:
        found.add(line, "python_arch", wheel.arch, "read", "wheel name")
    if wheel.python:
        found.add(line, "python_version", wheel.python, "read", "wheel name")
    if wheel.os:
        found.add(line, "os", wheel.os, "read", "wheel name")
