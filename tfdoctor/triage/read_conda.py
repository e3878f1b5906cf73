"""What conda printed, pasted: `conda list`, `conda info` and `conda env export`.

Formats, from conda's source (conda/cli/): `conda list` prints "# packages in environment at
PREFIX:", "#", a "# Name Version Build Channel" header and one "%-25s %-15s %15s  channel" row
per package (main_list.py, list_packages); `conda list --export` prints "# platform: SUBDIR" and
`name=version=build` rows (print_export_header). `conda info` right-aligns its keys before
" : " (main_info.py, get_main_info_str): "active env location", "base environment", "python
version" (3.9.7.final.0, of the Python conda itself runs on: the base environment's),
"virtual packages" (__osx=12.3.1=0, __archspec=1=x86_64), "platform" (the subdir: osx-64,
osx-arm64), "user-agent" (... Darwin/21.4.0 OSX/12.3.1). `conda env export` is YAML: name,
channels, dependencies as `name=version=build` (only `name=version` with --from-history) and a
`pip:` list of `name==version`, then `prefix:` (conda/env/env.py, to_yaml).

osx-64 on an Apple-silicon Mac is the Rosetta conda: every package in it, Python included, is
x86_64.
"""

from __future__ import annotations

import re
from typing import Sequence

from tfdoctor.facts.archnames import normalise
from tfdoctor.triage.evidence import CONDA_PACKAGE, Found, package_fact
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.platforms import ARCHSPEC
from tfdoctor.triage.vocabulary import (is_distribution_name, is_elision, is_package_row, macos_version,
                                        typed_command, version_at)

SUBDIR_ARCH = {"osx-64": "x86_64", "osx-arm64": "arm64", "linux-64": "x86_64",
               "linux-aarch64": "arm64", "win-64": "x86_64"}
SUBDIR_OS = {"osx": "Darwin", "linux": "Linux", "win": "Windows"}

_LIST_HEADER = re.compile(r"#[ \t]{1,3}packages in environment at[ \t]{1,3}(?P<prefix>.{1,2000}?):?[ \t]{0,5}")
_EXPORT_PLATFORM = re.compile(r"#[ \t]{1,3}platform:[ \t]{1,3}(?P<subdir>[\w-]{1,40})[ \t]{0,5}")
_INFO = re.compile(r"[ \t]{0,40}(?P<key>[A-Za-z][A-Za-z :/-]{0,40}?)[ \t]{1,5}:(?:[ \t]{1,5}(?P<value>\S.{0,2000}?))?[ \t]{0,5}")
_INFO_KEYS = frozenset({"active environment", "active env location", "shell level", "conda version",
                        "python version", "virtual packages", "base environment", "platform",
                        "user-agent", "channel URLs", "package cache", "envs directories",
                        "conda-build version", "user config file", "populated config files"})
_VIRTUAL_OS = {"__linux": "Linux", "__glibc": "Linux", "__win": "Windows"}
_AGENT_OS = re.compile(r"\bOSX/(?P<macos>\d{2}(?:\.\d{1,2}){0,2})\b")
_EXPORT_ROW = re.compile(r"[ \t]{0,10}-[ \t]{1,3}(?P<spec>\S{1,400})[ \t]{0,5}")
_LONGEST_ROW = 4000
MAX_FILTERED = 500
"""Rows read under a `conda list | grep ...` at most."""
_CONDA_LIST = re.compile(r"(?<![\w-])(?:conda|mamba|micromamba)[ \t]{1,5}list\b")
_CONDA_BUILD = re.compile(r"(?:py\w{0,40}|h[0-9a-f]{7}_\d{1,4}|[\w.]{0,40}_\d{1,4}|\d{1,4}|<pip>)")
"""A conda build string: "py38h44df477_1", "pyhd8ed1ab_0", "h39c3846_1", "pypi_0", "0" (an apple
channel package), "<pip>" (conda before 4.6 listing a pip install)."""
HEADERLESS_ROWS = 3
"""Rows of `conda list`'s shape in a row, in one fenced block, that are read without its header."""


def read(doc: Document, found: Found) -> None:
    _conda_list(doc, found)
    _filtered(doc.lines, found)
    _headerless(doc.lines, found)
    _conda_info(doc.lines, found)
    _env_export(doc, found)
    _subdir_set(doc.lines, found)


_SET_SUBDIR = re.compile(
    typed_command("$%#>") +
    r"(?:export[ \t]{1,3}CONDA_SUBDIR=|CONDA_SUBDIR=|(?:conda|mamba|micromamba)[ \t]{1,3}"
    r"(?:env[ \t]{1,3}config[ \t]{1,3}vars[ \t]{1,3}set[ \t]{1,3}CONDA_SUBDIR=|config[ \t]{1,3}"
    r"(?:--env[ \t]{1,3})?--set[ \t]{1,3}subdir[ \t]{1,3}))(?P<subdir>(?:osx|linux|win)-[\w]{1,10})\b")
"""A command that sets an environment's subdir, typed at the start of a line (a prompt, a step's
number or a bullet before it): `conda env config vars set CONDA_SUBDIR=osx-64`, `conda config
--env --set subdir osx-64`, `CONDA_SUBDIR=osx-64 conda create ...`, `export CONDA_SUBDIR=...`
(conda's docs, "Specifying a subdir"). A sentence that mentions one is not a command run."""


def _subdir_set(lines: Sequence[Line], found: Found) -> None:
    """The subdir the reporter set for their environment: conda installs that platform's
    packages into it from then on (osx-64 on an Apple chip: x86_64 Python, run by Rosetta 2)."""
    for line in lines:
        if ("SUBDIR" not in line.text and "subdir" not in line.text) or len(line.text) > _LONGEST_ROW \
                or line.code or line.quoted:
            continue
        match = _SET_SUBDIR.match(line.text)
        if match:
            _subdir(line, match.group("subdir"), "conda command", found)


def conda_row(line: Line, cells: Sequence[str], source: str, found: Found) -> None:
    """One package conda lists: a conda package, and a Python distribution when it is one."""
    name, version = cells[0], cells[1]
    build = cells[2] if len(cells) > 2 else ""
    channel = cells[3] if len(cells) > 3 else ""
    found.add(line, CONDA_PACKAGE + name.lower(), f"{version} {build} {channel}".strip(), "read", source)
    if name.lower() == "python":
        found.add(line, "python_version", version, "read", source)
    elif channel == "pypi" or build == "<pip>" or _python_build(build):
        found.add(line, package_fact(name), version, "read", source)


def _python_build(build: str) -> bool:
    """A build string naming a Python (py39h..., pyhd8ed1ab_0, cpu_py310...): the package is a
    Python distribution, which pip would list too."""
    return re.search(r"(?:^|_)py(?:\d{2,3}|\d\.\d{1,2}|h|_)", build) is not None


def _conda_list(doc: Document, found: Found) -> None:
    lines = doc.lines
    index = 0
    while index < len(lines):
        head = lines[index]
        header = _LIST_HEADER.fullmatch(head.text.strip()) if len(head.text) < 2100 else None
        export = _EXPORT_PLATFORM.fullmatch(head.text.strip()) if header is None else None
        if header is None and export is None:
            index += 1
            continue
        if header:
            found.add(head, "conda_prefix", header.group("prefix").strip(), "read", "conda list")
        else:
            _subdir(head, export.group("subdir"), "conda list", found)
        found.claim(head)
        complete, end, rows = True, index + 1, 0
        while end < len(lines):
            line = lines[end]
            text = line.text.strip()
            if text.startswith("#") or (not text and rows == 0):
                found.claim(line)
            elif is_elision(text):
                complete = False
            elif not text or len(text) > _LONGEST_ROW:
                break
            else:
                cells = text.split("=") if export else text.split()
                if not is_package_row(cells):
                    complete = complete and end < len(lines) - 1  # the report's last line: a cut row
                    break
                conda_row(line, cells, "conda list", found)
                found.claim(line)
                rows += 1
            end += 1
        if complete and rows and not (doc.cut_at_end and end >= len(lines) - 1):
            found.listing(head, "conda list")
        index = max(end, index + 1)


def _filtered(lines: Sequence[Line], found: Found) -> None:
    """The rows `conda list | grep tensorflow` printed under the command: no header, never a
    whole listing."""
    for index, command in enumerate(lines):
        if "|" not in command.text or len(command.text) > _LONGEST_ROW or not _CONDA_LIST.search(command.text):
            continue
        for row in (lines[i] for i in range(index + 1, min(len(lines), index + 1 + MAX_FILTERED))):
            cells = row.text.split() if len(row.text) < _LONGEST_ROW else []
            if row.block != command.block or len(cells) < 3 or not is_package_row(cells):
                break
            conda_row(row, cells, "conda list", found)
            found.claim(row)


def _headerless(lines: Sequence[Line], found: Found) -> None:
    """`conda list` rows pasted without their header (an excerpt of the listing): at least
    HEADERLESS_ROWS consecutive rows of one fenced block, each "name version build [channel]"
    with a conda build string. Never a whole listing."""
    run: list[tuple[Line, list[str]]] = []
    for line in (*lines, None):
        cells = line.text.split() if line is not None and len(line.text) < _LONGEST_ROW else []
        shaped = (line is not None and line.fenced and line.number not in found.claimed
                  and 3 <= len(cells) <= 4 and is_package_row(cells) and _CONDA_BUILD.fullmatch(cells[2]) is not None)
        if shaped and (not run or run[-1][0].block == line.block):
            run.append((line, cells))
            continue
        if len(run) >= HEADERLESS_ROWS:
            for row_line, row_cells in run:
                conda_row(row_line, row_cells, "conda list", found)
                found.claim(row_line)
        run = [(line, cells)] if shaped else []


def _subdir(line: Line, subdir: str, source: str, found: Found) -> None:
    found.add(line, "conda_subdir", subdir, "read", source)
    arch = SUBDIR_ARCH.get(subdir)
    if arch:
        found.add(line, "python_arch", arch, "inferred", "conda subdir")
    system = SUBDIR_OS.get(subdir.split("-", 1)[0])
    if system:
        found.add(line, "os", system, "read", source)


def _info_fields(lines: Sequence[Line], start: int) -> tuple[dict[str, tuple[Line, str]], int]:
    """The `key : value` block from `start`: key -> (line, value), continuation lines of a
    multi-line value (virtual packages, channel URLs) joined with spaces; and where it ends."""
    fields: dict[str, tuple[Line, str]] = {}
    key = ""
    end = start
    while end < len(lines) and len(lines[end].text) < 2100:
        line = lines[end]
        match = _INFO.fullmatch(line.text)
        if match:
            key = match.group("key").strip()
            fields.setdefault(key, (line, match.group("value") or ""))
        elif key and line.text.startswith("  ") and line.text.strip() and ":" not in line.text.strip()[:3]:
            first, value = fields[key]
            fields[key] = (first, f"{value} {line.text.strip()}")
        else:
            break
        end += 1
    return fields, end


def _conda_info(lines: Sequence[Line], found: Found) -> None:
    index = 0
    while index < len(lines):
        fields, end = _info_fields(lines, index)
        if len(_INFO_KEYS.intersection(fields)) < 2:
            index = max(end, index + 1)
            continue
        found.claim(*lines[index:end])
        _info_facts(fields, found)
        index = end


def _info_facts(fields: dict[str, tuple[Line, str]], found: Found) -> None:
    def field(key: str) -> tuple[Line, str] | None:
        return fields.get(key)

    base_active = (field("active environment") or (None, ""))[1].strip() == "base"
    if field("active env location") and field("active env location")[1].strip() != "None":
        line, value = field("active env location")
        found.add(line, "conda_prefix", value, "read", "conda info")
    if field("base environment"):
        line, value = field("base environment")
        found.add(line, "conda_root", value.split("  (", 1)[0].strip(), "read", "conda info")
    if field("platform"):
        line, value = field("platform")
        _subdir(line, value.strip(), "conda info", found)
    if field("python version") and base_active:  # the base Python conda runs on
        line, value = field("python version")
        version = value.strip().split(".final", 1)[0]
        if version_at(version) == version:
            found.add(line, "python_version", version, "read", "conda info")
    if field("virtual packages"):
        line, value = field("virtual packages")
        for package in value.split():
            name, _, rest = package.partition("=")
            version = rest.split("=", 1)[0]
            if name == "__osx" and macos_version(version):
                found.add(line, "os", "Darwin", "read", "conda info")
                key = "macos_version_reported" if version == "10.16" else "macos_version"
                found.add(line, key, version, "read", "conda info")
            elif name in _VIRTUAL_OS:
                found.add(line, "os", _VIRTUAL_OS[name], "read", "conda info")
            elif name == "__archspec" and base_active:
                arch = ARCHSPEC.get(rest.rsplit("=", 1)[-1].lower())
                if arch:
                    found.add(line, "python_arch", normalise(arch) or arch, "read", "conda info")
    if field("user-agent"):
        line, value = field("user-agent")
        agent = _AGENT_OS.search(value)
        if agent and macos_version(agent.group("macos")) and agent.group("macos") != "10.16":
            found.add(line, "macos_version", agent.group("macos"), "read", "conda info")


def _env_export(doc: Document, found: Found) -> None:
    lines = doc.lines
    for index, line in enumerate(lines):
        if line.text.strip() != "dependencies:" or not _yaml_head(lines, index):
            continue
        rows, complete, pip, end = 0, True, False, index + 1
        while end < len(lines):
            row = lines[end]
            text = row.text.rstrip()
            if text.strip() == "- pip:":
                pip = True
            elif is_elision(text):
                complete = False
            else:
                match = _EXPORT_ROW.fullmatch(text) if len(text) < 500 else None
                if not match:
                    break
                complete = _export_row(row, match.group("spec"), pip, found) and complete
                rows += 1
            found.claim(row)
            end += 1
        if end < len(lines) and lines[end].text.startswith("prefix:"):
            found.add(lines[end], "conda_prefix", lines[end].text[7:].strip(), "read", "conda env export")
            found.claim(lines[end])
        found.claim(*(lines[i] for i in range(max(0, index - 8), index + 1) if _yaml_key(lines[i].text)))
        if rows and complete and not (doc.cut_at_end and end >= len(lines) - 1):
            found.listing(line, "conda env export")


def _yaml_key(text: str) -> bool:
    return text.startswith(("name:", "channels:", "  - ", "dependencies:"))


def _yaml_head(lines: Sequence[Line], index: int) -> bool:
    """`dependencies:` of an environment file: `name:` or `channels:` a few lines above."""
    return any(lines[i].text.startswith(("name:", "channels:")) for i in range(max(0, index - 30), index))


def _export_row(line: Line, spec: str, pip: bool, found: Found) -> bool:
    """One dependency of an export; False when it is no exact pin (an export --from-history lists
    what was asked for, not what is installed)."""
    if pip:
        name, _, version = spec.partition("==")
        if is_distribution_name(name) and version and version_at(version) == version:
            found.add(line, package_fact(name), version, "read", "conda env export")
            return True
        return False
    cells = spec.split("=")
    if len(cells) < 3 or not is_package_row(cells):
        return False
    conda_row(line, [cells[0], cells[1], cells[2]], "conda env export", found)
    return True
