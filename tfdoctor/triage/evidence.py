"""A fact read from a bug report, with where and how it was known, and the recorder every reader
writes its facts into.

A report mixes what a person believes ("I'm on an M1, native Python") with what their machine
printed (`platform.machine()` saying x86_64). Both are kept, each with its line and source, so
the diagnosis can prefer what was printed and say where the two part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal

from tfdoctor.facts.snapshot import canonicalize_name
from tfdoctor.sanitize.redact import Identity, redact
from tfdoctor.triage.layout import Line

How = Literal["stated", "read", "inferred"]
"""stated: prose a person wrote; read: output of a command, pasted; inferred: concluded from
another fact (a /opt/homebrew path -> arm64 Homebrew)."""

HOW_RANK: dict[str, int] = {"read": 0, "stated": 1, "inferred": 2}
"""Surest first: what a machine printed, then what a person says, then what follows from either."""

PACKAGE = "package:"
"""Prefix of a distribution's fact: "package:<canonical name>", its value the version ("" when the
report names the distribution without one, as `pip freeze` does for `name @ file://...`)."""
CONDA_PACKAGE = "conda_package:"
"""Prefix of a conda package's fact: "conda_package:<name>", value "<version> <build> <channel>"."""
ENVIRONMENT = "env:"
"""Prefix of an environment variable's fact: "env:<NAME>", its value as set."""

FACT_NAMES = (
    "os",                      # "Darwin", "Linux" or "Windows"
    "macos_version",           # "13.2.1"; "13" when only the name (Ventura) or Darwin's major says
    "macos_version_reported",  # "10.16": what macOS 11+ tells Pythons built against an old SDK
    "chip",                    # "Apple M1 Max", "Intel Core i9", "Intel", "AMD"
    "cpu_brand",               # machdep.cpu.brand_string as printed ("VirtualApple @ 2.50GHz processor")
    "hw_arm64",                # "true" on Apple silicon, "false" on an Intel Mac
    "shell_arch",              # what the terminal runs as (`uname -m`, `arch`): "arm64" or "x86_64"
    "python_version",          # "3.10.4", or "3.10" when only the minor is known
    "python_arch",             # the Python process: "arm64" or "x86_64"
    "translated",              # "true" when that process runs under Rosetta 2
    "python_binary_archs",     # the interpreter binary's architectures: "x86_64 arm64"
    "python_path",             # the interpreter's path
    "python_prefix",           # sys.prefix: the environment's directory
    "python_host",             # the program the Python runs inside: "R x86_64-apple-darwin17.0"
    "env_manager",             # conda, miniforge, anaconda, miniconda, venv, pyenv, homebrew-arm64,
                               # homebrew-intel, python.org, system
    "conda_subdir",            # "osx-arm64", "osx-64"
    "conda_prefix",            # the active conda environment's directory
    "conda_root",              # the conda installation (base environment)
    "tensorflow_version",      # TensorFlow's version where no distribution was named
    "container",               # "docker", "docker amd64", "docker arm64", "qemu-user" (QEMU named itself)
)
"""Every fact name but the package ones (PACKAGE and CONDA_PACKAGE prefixes)."""

TENSORFLOW_CPU_MESSAGE = "tensorflow log"
"""Source of the process's architecture read from TensorFlow's own CPU message (its x86 builds name
x86 instructions): that message is a log finding's evidence (log.avx-missing, log.x86-build), which
tells the Rosetta or emulator story itself, so it settles no fact of the Python (`settles`)."""


def settles(fact: "Fact") -> bool:
    """Whether a fact of the Python (what it runs as, its binary's architectures, Rosetta) settles
    it for the snapshot: read or inferred (not a belief), and not TensorFlow's CPU message, which
    the log's own findings read."""
    return fact.how != "stated" and fact.source != TENSORFLOW_CPU_MESSAGE


QEMU_CONTAINER = "qemu-user"
"""The container a process QEMU's user-mode emulator ran was in (QEMU named itself, not the
container): a Linux one on some host, which agrees with any container the report names."""
TEMPLATE = "issue template"
"""Source of a fact typed into an issue template's field."""
QUOTED = " (quoted)"
"""Appended to the source of a fact read from a quoted reply (`> ...`): someone else's text."""

LISTING_SOURCES = frozenset({"pip list", "pip freeze", "conda list", "conda env export",
                             "tfdoctor collect", "tfdoctor report"})
"""Sources that list every installed distribution when pasted whole."""

MAX_NOTES = 20
"""Notes kept at most: a report of a thousand cut snapshots gets twenty, not a thousand."""
_NOBODY = Identity("", "", "")
"""Redaction with no local identity: other people's home directories and credentials go."""


def is_fact_name(name: str) -> bool:
    """One of FACT_NAMES, or a package (conda package, variable) fact with a name after its prefix."""
    if name.startswith((PACKAGE, CONDA_PACKAGE, ENVIRONMENT)):
        return len(name.split(":", 1)[1]) > 0
    return name in FACT_NAMES


def package_fact(name: str) -> str:
    """The fact name of distribution `name` (any spelling)."""
    return PACKAGE + canonicalize_name(name)


@dataclass(frozen=True)
class Fact:
    name: str
    """One of FACT_NAMES, or "package:<canonical name>", "conda_package:<name>" or "env:<NAME>"."""
    value: str
    line: int
    """1-based line of the report it was read from."""
    how: How
    source: str
    """What it was read from: "prose", "pip list", "conda info", "wheel name", "traceback path"...;
    "... (quoted)" when read from a quoted reply."""

    @property
    def quoted(self) -> bool:
        return self.source.endswith(QUOTED)

    def rank(self) -> tuple[int, int, int, int]:
        """Sort key, surest first: how it was known, the reporter's own text before quotes, an
        issue template's field before a sentence (the field asks for the environment that failed;
        a sentence may tell what was tried before), then the earliest line."""
        return HOW_RANK[self.how], int(self.quoted), int(not self.source.startswith(TEMPLATE)), self.line


def surest(facts: Iterable[Fact], name: str) -> Fact | None:
    """The surest fact of `name` (read > stated > inferred; the reporter's own text before quotes;
    the earliest line first)."""
    return min((fact for fact in facts if fact.name == name), key=Fact.rank, default=None)


@dataclass(frozen=True)
class Contradiction:
    name: str
    facts: tuple[Fact, ...]
    """Two or more facts of one name that disagree."""
    why: str


@dataclass
class Found:
    """What the readers found so far. Every value is redacted as it is recorded (credentials, other
    people's home directories), and a fact already recorded from the same kind of source is kept
    once, at its first line."""

    facts: list[Fact] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)
    """Lines a reader took as command output or a template field: prose does not read them again."""
    listings: list[tuple[int, str]] = field(default_factory=list)
    """(line, source) of each complete package listing read from the reporter's own text."""
    notes: list[str] = field(default_factory=list)
    _seen: set[tuple[str, str, str, str]] = field(default_factory=set)
    _noted: set[str] = field(default_factory=set)

    def add(self, line: Line, name: str, value: str, how: How, source: str) -> None:
        value = redact(value.strip(), _NOBODY)
        source = source + (QUOTED if line.quoted else "")
        key = (name, value, how, source)
        if key in self._seen or not is_fact_name(name):
            return
        self._seen.add(key)
        self.facts.append(Fact(name, value, line.number, how, source))

    def claim(self, *lines: Line) -> None:
        self.claimed.update(line.number for line in lines)

    def listing(self, line: Line, source: str) -> None:
        """A complete package listing starts at `line`; one quoted from someone else is not ours."""
        if not line.quoted:
            self.listings.append((line.number, source))

    def note(self, text: str) -> None:
        """Say how something was read; after MAX_NOTES, one last note says more were left out."""
        if text in self._noted or len(self.notes) > MAX_NOTES:
            return
        self._noted.add(text)
        self.notes.append(text if len(self.notes) < MAX_NOTES else "more notes like these were left out")
