"""The fact snapshot: everything tfdoctor gathered, as plain, versioned, JSON-ready data.

Checks read only this. A snapshot can be written on one machine and diagnosed on another, and
tests build them from recorded facts, which is how macOS logic is tested on Linux.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from packaging.utils import canonicalize_name

from tfdoctor import typed
from tfdoctor.probe_facts import ProbeFacts
from tfdoctor.runtime_facts import RuntimeFacts

SCHEMA_VERSION = 1

TENSORFLOW_DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-macos",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tensorflow-aarch64",
    "tf-nightly",
    "tf-nightly-macos",
    "tf-nightly-cpu",
)
"""Distributions that install the `tensorflow` import package (they overwrite each other)."""


class SnapshotError(ValueError):
    """A snapshot that cannot be used: corrupt, of the wrong shape, or from an unknown version."""


@dataclass
class HostFacts:
    system: str = ""
    release: str = ""
    macos_version: str | None = None
    macos_version_reported: str | None = None
    """What `platform.mac_ver()` says: "10.16" from a Python built against an old SDK."""
    hw_arm64: bool | None = None
    """sysctl hw.optional.arm64: true on Apple silicon, even inside a Rosetta-translated process."""
    chip: str | None = None
    cpu_brand: str | None = None
    """CPU brand as the diagnosed process sees it (Rosetta shows a virtual Intel CPU)."""
    cpu_flags: list[str] = field(default_factory=list)
    cpu_implementer: str | None = None
    """ARM implementer code from /proc/cpuinfo (0x61 is Apple): an ARM host kernel."""
    memory_bytes: int | None = None
    memory_available_bytes: int | None = None
    """RAM free when the facts were gathered (psutil): Apple GPUs allocate from it too."""
    container: str | None = None
    binfmt_handlers: list[str] | None = None


@dataclass
class BinaryInfo:
    path: str = ""
    format: str | None = None
    archs: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class CondaFacts:
    prefix: str
    root: str
    subdir: str | None = None


@dataclass
class PythonFacts:
    version: str
    implementation: str
    executable: str
    prefix: str = ""
    base_prefix: str = ""
    process_arch: str = ""
    pointer_bits: int = 64
    translated: bool | None = None
    """sysctl.proc_translated read inside the process: true when Rosetta 2 runs it."""
    binary: BinaryInfo = field(default_factory=BinaryInfo)
    framework: str | None = None
    conda: CondaFacts | None = None
    platform_tag: str = ""
    site_packages: list[str] = field(default_factory=list)

    @property
    def in_venv(self) -> bool:
        return bool(self.base_prefix) and self.prefix != self.base_prefix

    @property
    def minor(self) -> str:
        return ".".join(self.version.split(".")[:2])


@dataclass
class PackageFacts:
    name: str | None
    version: str | None
    location: str = ""
    wheel_tags: list[str] = field(default_factory=list)
    requires_dist: list[str] = field(default_factory=list)
    requires_python: str | None = None
    installer: str | None = None
    error: str | None = None
    binaries: list[BinaryInfo] = field(default_factory=list)
    """Headers of the first compiled libraries listed in RECORD: the real architecture."""

    @property
    def key(self) -> str:
        return canonicalize_name(self.name) if self.name else ""


@dataclass
class PluginBinary:
    dir: str
    name: str | None
    format: str | None = None
    archs: list[str] = field(default_factory=list)
    size: int | None = None
    error: str | None = None


@dataclass
class CollectionError:
    what: str
    error: str


@dataclass
class TargetOutcome:
    """How running the collector in the diagnosed interpreter went."""

    python: str
    ok: bool
    problem: str | None = None
    """None when ok; else "crashed", "timeout", "no-output" or "bad-output"."""
    message: str = ""
    stderr_tail: str = ""


@dataclass
class Snapshot:
    target: TargetOutcome
    host: HostFacts = field(default_factory=HostFacts)
    python: PythonFacts | None = None
    packages: list[PackageFacts] = field(default_factory=list)
    plugins: list[PluginBinary] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    errors: list[CollectionError] = field(default_factory=list)
    runtime: RuntimeFacts | None = None
    """Facts from importing TensorFlow in a child process; None when not gathered (--no-runtime)."""
    probes: ProbeFacts | None = None
    """Speed probe results; None when not run (--no-probes)."""
    schema_version: int = SCHEMA_VERSION
    tfdoctor_version: str = ""
    created: str = ""
    redacted: bool = False

    def package(self, name: str) -> PackageFacts | None:
        """The installed distribution called `name` (any spelling), if there is one."""
        key = canonicalize_name(name)
        for pkg in self.packages:
            if pkg.key == key:
                return pkg
        return None

    def tensorflow_distributions(self) -> list[PackageFacts]:
        return [p for p in (self.package(n) for n in TENSORFLOW_DISTRIBUTIONS) if p]

    def to_dict(self) -> dict[str, Any]:
        return typed.to_plain(self)

    @classmethod
    def from_dict(cls, data: Any) -> "Snapshot":
        if not isinstance(data, dict):
            raise SnapshotError("not a tfdoctor snapshot: the document is not a JSON object")
        version = data.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise SnapshotError("not a tfdoctor snapshot: no integer schema_version")
        if version > SCHEMA_VERSION:
            raise SnapshotError(
                f"snapshot schema_version {version} is newer than this tfdoctor understands "
                f"({SCHEMA_VERSION}): upgrade tfdoctor"
            )
        try:
            return typed.from_plain(cls, data, "snapshot")
        except typed.ShapeError as exc:
            raise SnapshotError(f"malformed snapshot: {exc}") from None

    @classmethod
    def loads(cls, text: str) -> "Snapshot":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SnapshotError(f"not JSON: {exc}") from None
        return cls.from_dict(data)
