"""Versions as people write them in a snapshot made by hand from a report.

tfdoctor's own collector writes what the installed metadata says. A snapshot written from a bug
report carries the reporter's words instead: "2.6.0 (conda-forge)", "tf2.4 for mac", "0.1 alpha
(ML Compute)", "2.12 (requested)". Read as PEP 440 they are all unknown, so the rules judged
nothing. Read as a person means them, one version plus remarks is that version; several different
versions ("2.9.0, 2.9.1 (2.8.0 worked)") say no single one; and a version that was only asked for
("requested", "attempted") was never installed, so the package is not in the environment.
Apple's 2020-21 ML Compute fork is written by its repository or its framework ("tensorflow
(apple/tensorflow_macos)", "Apple ML Compute fork"): that is the fork, whatever number is beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

_VERSION = re.compile(
    r"(?<![\w.])(?:v|r|tf|tensorflow)?(?P<release>\d+(?:\.\d+){1,3})"
    r"(?:(?:[ -]?(?P<pre>alpha|beta)|-?(?P<pre_short>a|b|rc))(?P<pre_n>\d+)?)?(?P<dev>\.dev\d+)?(?![\w.])",
    re.I)
"""A release number in prose: "2.6.0", "v2.13.0-rc2", "tf2.4", "0.1 alpha", "2.13.0.dev20230406"."""

_ONLY_ASKED = re.compile(r"\b(?:requested|attempt(?:ed|ing)?|tried|trying|wanted|asked for|"
                         r"(?:fails|failed|would not|won't|cannot|can't) (?:to )?install|not installed)\b", re.I)
_NOT_PROSE = re.compile(r"[;|&$`<>=!\\]")
"""Characters of requirements, markers and shells, which a person's remark on a version has not."""
_INSTALLED = re.compile(r"\binstall(?:ed|s)\b(?! (?:fails|failed))", re.I)
_FORK_WORDS = re.compile(r"apple/tensorflow_macos|\bml ?compute\b", re.I)
"""The fork's repository (github.com/apple/tensorflow_macos) or its framework, named by a person."""
_FORK_NAMES = ("tensorflow", "tensorflow-macos")
"""What a person calls the fork's distribution (its wheel is tensorflow_macos)."""
FORK_AS_WRITTEN = ("tensorflow-macos", "2.4.0rc0")
"""The fork's distribution and the TensorFlow it says it is (`tf.__version__` '2.4.0-rc0'; the
same facts as tfdoctor.knowledge.eras FORK_PACKAGE and FORK_BASE): its wheels' own numbers
(0.1a0-0.1a3) are rarely what a report gives."""
PLUGIN_ERA = "2.5"
"""A number beside the fork's words from this one on is the plugin era's, not the fork's
(tfdoctor.knowledge.eras PLUGIN_ERA_FROM)."""


@dataclass(frozen=True)
class WrittenVersion:
    installed: bool
    """False where the words say it was only asked for (the package is then not installed)."""
    version: str | None
    """The one version the words name, PEP 440 normalised; None where they name none or several."""


def read_written(text: str) -> WrittenVersion:
    """What a version field written by a person says. A field that already is a version, or that
    is not prose, is returned as it is."""
    try:
        Version(text)
        return WrittenVersion(True, text)
    except (InvalidVersion, ValueError):  # ValueError: more digits than int() takes
        if _NOT_PROSE.search(text):
            return WrittenVersion(True, text)  # a requirement or a command, not words: left as it is
    found = []
    for m in _VERSION.finditer(text):
        spelled = m["release"] + (m["pre"] or m["pre_short"] or "") + (m["pre_n"] or "") + (m["dev"] or "")
        try:
            found.append(Version(spelled))
        except (InvalidVersion, ValueError):
            continue
    releases = {v.release + (0,) * (3 - len(v.release)) for v in found}
    version = str(found[0]) if len(releases) == 1 else None
    asked = _ONLY_ASKED.search(text)
    installed = not asked or bool(_INSTALLED.search(text[asked.end():] + text[:asked.start()]))
    return WrittenVersion(installed, version)


def read_written_package(name: str | None, version: str | None) -> tuple[str | None, WrittenVersion]:
    """A package entry written by a person: its name (the fork's distribution where the words name
    Apple's ML Compute fork of TensorFlow) and what its version field says."""
    written = read_written(version) if version is not None else WrittenVersion(True, None)
    first = re.sub(r"[-_.]+", "-", name.split()[0].lower()) if name and name.split() else ""
    if first not in _FORK_NAMES or not _FORK_WORDS.search(f"{name} {version or ''}"):
        return name, written
    fork, base = FORK_AS_WRITTEN
    try:
        before_plugins = written.version is not None and Version(written.version) < Version(PLUGIN_ERA)
    except InvalidVersion:  # a requirement left as written
        before_plugins = False
    return fork, WrittenVersion(written.installed, written.version if before_plugins else base)
