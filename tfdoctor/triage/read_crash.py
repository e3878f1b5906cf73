"""How macOS reports a crashed process, pasted: the crash reporter's report and the shell's
one-line message.

The crash reporter's text report (Apple, "Examining the fields in a crash report") names the
process ("Process:", "Path:", "Identifier:"), its "Code Type:" (ARM-64, X86-64, with
"(Native)" or "(Translated)" since macOS 11: translated means Rosetta 2, which runs only on Apple
silicon) and the "OS Version:" ("macOS 14.2.1 (23C71)", "Mac OS X 10.15.7 (19H2)"). A report's
fields hold for the process it names, so the code type is the Python's only under a header that
names a Python.

zsh (Src/jobs.c printjob) names the job that died after the signal's text: "zsh: illegal
hardware instruction  arch -x86_64 python3". A command started with `arch -x86_64` ran as
x86_64 (macOS's arch(1) refuses a binary without that slice; Linux's `arch` takes no such
option), and people type it on Apple silicon only: on an Intel Mac x86_64 is the slice that runs
anyway.
"""

from __future__ import annotations

import re

from tfdoctor.triage.evidence import Found
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.vocabulary import macos_version

CRASH_REPORT = "macOS crash report"
SHELL_CRASH = "shell crash line"

_FIELD = re.compile(r"^[ \t]{0,8}(?P<key>Process|Path|Identifier|Code Type|OS Version):[ \t]{1,40}(?P<value>\S.{0,400})$")
_CODE_TYPE = re.compile(r"^(?P<cpu>X86-64|ARM-64|ARM64|X86)(?:[ \t]{1,4}\((?P<how>Native|Translated)\))?", re.I)
_OS_VERSION = re.compile(r"^(?:macOS|Mac OS X|OS X)[ \t]{1,4}(?P<version>\d{2}(?:\.\d{1,2}){0,2})\b")
_ZSH = re.compile(r"\bzsh: (?:illegal hardware instruction|bus error|segmentation fault)[ \t]{1,8}"
                  r"(?:[\w./~-]{1,200}/)?arch[ \t]{1,4}(?:-\w{1,20}[ \t]{1,4}){0,3}?-(?P<arch>x86_64|i386)\b")
_PROCESS_KEYS = ("Process", "Path", "Identifier")
_HEADER_SPAN = 40
"""Lines a crash report's Code Type may stand below the header that names its process."""


def read(doc: Document, found: Found) -> None:
    python_at = -_HEADER_SPAN - 1  # the line of the last header naming a Python
    for line in doc.lines:
        text = line.text
        if len(text) > 4000:
            continue
        if "zsh:" in text and "arch" in text:
            _shell_crash(line, text, found)
        if ":" not in text or line.code:
            continue
        field = _FIELD.match(text)
        if field is None:
            continue
        key, value = field.group("key"), field.group("value").strip()
        if key in _PROCESS_KEYS:
            if "python" in value.lower():
                python_at = line.number
                if key == "Path" and value.startswith("/"):
                    found.add(line, "python_path", value, "read", CRASH_REPORT)
        elif key == "Code Type":
            _code_type(line, value, line.number - python_at <= _HEADER_SPAN, found)
        elif key == "OS Version":
            version = _OS_VERSION.match(value)
            if version and macos_version(version.group("version")):
                found.add(line, "os", "Darwin", "read", CRASH_REPORT)
                found.add(line, "macos_version", version.group("version"), "read", CRASH_REPORT)


def _code_type(line: Line, value: str, of_python: bool, found: Found) -> None:
    """The crashed process's architecture and whether Rosetta 2 ran it; the Mac's own kind
    follows from either suffix."""
    match = _CODE_TYPE.match(value)
    if match is None:
        return
    arch = "x86_64" if match.group("cpu").upper().startswith("X86") else "arm64"
    how = (match.group("how") or "").lower()
    found.add(line, "os", "Darwin", "read", CRASH_REPORT)
    if how == "translated" or arch == "arm64":
        found.add(line, "hw_arm64", "true", "inferred", CRASH_REPORT)
    elif how == "native":
        found.add(line, "hw_arm64", "false", "inferred", CRASH_REPORT)
    if of_python:
        found.add(line, "python_arch", arch, "read", CRASH_REPORT)
        if how:
            found.add(line, "translated", "true" if how == "translated" else "false", "read", CRASH_REPORT)
    found.claim(line)


def _shell_crash(line: Line, text: str, found: Found) -> None:
    match = _ZSH.search(text)
    if match is None:
        return
    found.add(line, "python_arch", "x86_64", "read", SHELL_CRASH)
    found.add(line, "os", "Darwin", "inferred", SHELL_CRASH)
    found.add(line, "hw_arm64", "true", "inferred", SHELL_CRASH)
    found.claim(line)
