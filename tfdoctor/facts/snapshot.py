"""The fact snapshot: everything tfdoctor gathered, as plain, versioned, JSON-ready data.

Checks read only this. A snapshot can be written on one machine and diagnosed on another, and
tests build them from recorded facts, which is how macOS logic is tested on Linux.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tfdoctor.facts import typed
from tfdoctor.facts.pasted_log import LogTextFacts
from tfdoctor.facts.notebooks import EditorFacts, JupyterFacts
from tfdoctor.facts.probes import ProbeFacts
from tfdoctor.facts.run import RunFacts
from tfdoctor.facts.runtime import RuntimeFacts
from tfdoctor.facts.user_model import ModelFacts
from tfdoctor.facts.written_versions import read_written_package

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
    "tensorflow-gpu",
    "tf-nightly-gpu",
    "tensorflow-rocm",
    "intel-tensorflow",
)
"""Distributions that install the `tensorflow` import package (they overwrite each other): the
GPU builds of TensorFlow 1.x to 2.11 (tensorflow-gpu, tf-nightly-gpu; from 2.12 tensorflow-gpu
is an error at install), AMD's ROCm and Intel's builds among them."""


_SEPARATORS = re.compile(r"[-_.]+")


def canonicalize_name(name: str) -> str:
    """PEP 503's normalised distribution name (packaging's, without importing packaging.tags
    on every start-up)."""
    return _SEPARATORS.sub("-", name).lower()


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
    distribution: str | None = None
    """A Linux distribution as its os-release names it ("Debian GNU/Linux 12 (bookworm)")."""


@dataclass
class BinaryInfo:
    path: str = ""
    format: str | None = None
    archs: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class CondaPackage:
    """One conda-meta/*.json record: what conda itself installed (the apple channel's
    tensorflow-deps has no dist-info, so only these show it)."""

    name: str | None = None
    version: str | None = None
    build: str | None = None
    channel: str | None = None
    """As recorded, e.g. "https://conda.anaconda.org/apple/osx-arm64"; URL passwords and
    token-channel tokens are cut by the collector."""
    subdir: str | None = None
    """"osx-arm64", "osx-64", "noarch"..."""


@dataclass
class CondaFacts:
    prefix: str
    root: str
    subdir: str | None = None
    packages: list[CondaPackage] = field(default_factory=list)
    conda_version: str | None = None
    """conda's own version, as the root's conda-meta records it."""


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
    externally_managed: bool | None = None
    """PEP 668: the interpreter's stdlib holds EXTERNALLY-MANAGED, so pip refuses to install
    into it outside a venv (Debian's and Homebrew's Pythons); None when not read."""
    compiler: str | None = None
    """The C compiler it was built with (platform.python_compiler(): "Clang 14.0.6 ")."""
    build_date: str | None = None
    libc: str | None = None
    """"glibc 2.36" (platform.libc_ver()); None on macOS, which has no glibc."""
    platform: str | None = None
    """platform.platform(), PyTorch's collect_env's "Python platform"."""
    host_program: str | None = None
    """The program that runs this Python inside its own process, when a report shows one ("R
    x86_64-apple-darwin17.0": reticulate loads libpython into R): its build decides what the
    Python runs as, so the fix for a wrong architecture is that program's."""

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
    requested: bool | None = None
    """pip's REQUESTED marker: true when the user asked for this distribution, false when it
    came in as a dependency; None when not known (an .egg-info, a snapshot from before)."""
    direct_url: str | None = None
    """Where it was installed from when that was not an index (PEP 610 direct_url.json): a
    file:// path, a VCS repository or a URL, its credentials masked; None for an index."""
    direct_kind: str | None = None
    """"dir", "archive" or "vcs" (the direct_url.json kind); "unreadable" when that file is
    there but cannot be read: not from an index, but from where is not known."""
    editable: bool = False
    """Installed in editable mode (pip install -e): the code stays in its source directory."""
    vcs: str | None = None
    """"git", "hg", "svn" or "bzr" for a VCS install."""
    vcs_commit: str | None = None
    """The commit a VCS install was made from."""
    subdirectory: str | None = None
    """The project's directory inside the repository or archive, when not its top."""

    @property
    def key(self) -> str:
        return canonicalize_name(self.name) if self.name else ""

    @property
    def label(self) -> str:
        """Name and version as a person reads them; a version a report did not state says so."""
        return f"{self.name} {self.version}" if self.version else f"{self.name} (version not stated)"


@dataclass
class PluginBinary:
    dir: str
    name: str | None
    format: str | None = None
    archs: list[str] = field(default_factory=list)
    size: int | None = None
    error: str | None = None
    source: str = "tensorflow-plugins"
    """"tensorflow-plugins" or "TF_PLUGGABLE_DEVICE_LIBRARY_PATH" (which named it)."""
    kind: str = "file"
    """"file", "not-a-file" (a directory, FIFO, socket or device: never opened) or "missing"
    (absent, or a dangling link)."""
    file_type: str | None = None
    """"regular", "directory", "fifo", "socket", "dangling-link"..."""
    loaded_by_tensorflow: bool | None = None
    """Whether TensorFlow loads this name (load_library's suffix rule for the system)."""


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
    chosen_by: str = ""
    """Why this interpreter: "--python", "--kernel" (a Jupyter kernel's), "this kernel" (a
    notebook's own, tfdoctor.notebook), "this interpreter", "VIRTUAL_ENV", "CONDA_PREFIX" or
    "PATH" (the last three when tfdoctor runs from an isolated tool environment); "" in
    snapshots from before this was recorded."""
    chosen_reason: str = ""
    """The same, in a sentence for people."""
    tool_env: str | None = None
    """"pipx", "uv tool" or "venv" (a venv made for tfdoctor alone) when tfdoctor itself runs from
    such an isolated environment."""
    tool_python: str | None = None
    """tfdoctor's own interpreter (never the place to install anything)."""
    started: bool | None = None
    """Whether tfdoctor's collector got control: false for a hang or crash in the
    interpreter's own start-up (sitecustomize.py, a .pth file)."""


@dataclass
class ParentProcess:
    """The process tfdoctor was started from (normally the user's shell)."""

    pid: int
    executable: str | None = None
    translated: bool | None = None
    """macOS: P_TRANSLATED of the process (Rosetta runs it as x86_64); None elsewhere."""
    format: str | None = None
    archs: list[str] = field(default_factory=list)
    """Architectures of its binary (a universal2 shell started under Rosetta runs as x86_64)."""
    error: str | None = None

    def runs_as(self, hw_arm64: bool | None) -> str | None:
        """The architecture the process runs as: x86_64 when Rosetta translates it; arm64 when
        it is not translated on Apple silicon; else its binary's only architecture; None when
        the facts do not say (a universal binary, nothing read)."""
        if self.translated:
            return "x86_64"
        if self.translated is False and hw_arm64:
            return "arm64"
        thin = {"arm64e": "arm64"}.get(self.archs[0], self.archs[0]) if len(self.archs) == 1 else None
        return thin


@dataclass
class PathPython:
    """A python3 or python on PATH, in PATH order."""

    name: str
    path: str
    realpath: str = ""
    is_target: bool = False
    """It is the interpreter diagnosed (same real file)."""


@dataclass
class Compiler:
    """A C compiler on PATH (gcc, clang): what building a package from source would use."""

    name: str
    path: str
    version: str | None = None
    """The first line of its `--version`."""
    error: str | None = None
    """Why there is no version (not run, no answer)."""


@dataclass
class ShellFacts:
    parent: ParentProcess | None = None
    pythons_on_path: list[PathPython] = field(default_factory=list)
    """The first python3 here is what a new terminal runs."""
    compilers: list[Compiler] = field(default_factory=list)


@dataclass
class Snapshot:
    target: TargetOutcome
    host: HostFacts = field(default_factory=HostFacts)
    python: PythonFacts | None = None
    packages: list[PackageFacts] = field(default_factory=list)
    plugins: list[PluginBinary] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    errors: list[CollectionError] = field(default_factory=list)
    shell: ShellFacts = field(default_factory=ShellFacts)
    runtime: RuntimeFacts | None = None
    """Facts from importing TensorFlow in a child process; None when not gathered (--no-runtime)."""
    probes: ProbeFacts | None = None
    """Speed probe results; None when not run (--no-probes)."""
    log: LogTextFacts | None = None
    """An error log given with --log (or recorded by `tfdoctor run`), redacted; None without one."""
    run: RunFacts | None = None
    """How a command supervised by `tfdoctor run` ran and ended; None outside `run`."""
    model: ModelFacts | None = None
    """What `tfdoctor probe --model`/`--workload` found about a model; None without a model probe."""
    jupyter: JupyterFacts | None = None
    """The Jupyter kernels found (facts.notebooks); None when not gathered: unknown, not none."""
    editor: EditorFacts | None = None
    """The working folder's VS Code interpreter setting; None when not gathered."""
    schema_version: int = SCHEMA_VERSION
    tfdoctor_version: str = ""
    created: str = ""
    redacted: bool = False
    unknown: list[str] = field(default_factory=list)
    """Facts this snapshot does not know (tfdoctor.facts.unknown.KNOWABLE names): empty for what
    tfdoctor gathers; a snapshot built from a report lists what the report does not state."""

    def package(self, name: str) -> PackageFacts | None:
        """The installed distribution called `name` (any spelling), if there is one (the first
        listed). An index, not a scan: checks look packages up per requirement, and a scan made
        diagnose quadratic in the number of packages (issue 15)."""
        key = canonicalize_name(name)
        index = self._package_index()
        found = index.get(key)
        if found is not None and found.key != key:  # renamed since the index was built
            self.__dict__.pop("_index", None)
            found = self._package_index().get(key)
        return found

    def _package_index(self) -> dict[str, PackageFacts]:
        """Key -> first package with it; rebuilt when the list is replaced or changes length."""
        stamp = (id(self.packages), len(self.packages))
        cached = self.__dict__.get("_index")
        if cached is None or cached[0] != stamp:
            index: dict[str, PackageFacts] = {}
            for pkg in self.packages:
                index.setdefault(pkg.key, pkg)
            cached = (stamp, index)
            self.__dict__["_index"] = cached
        return cached[1]

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
            snapshot = typed.from_plain(cls, data, "snapshot")
        except typed.ShapeError as exc:
            raise SnapshotError(f"malformed snapshot: {exc}") from None
        if not snapshot.tfdoctor_version:  # written by a person (from a report), not gathered
            snapshot.packages = [p for p in snapshot.packages if _read_as_written(p)]
        return snapshot

    @classmethod
    def loads(cls, text: str) -> "Snapshot":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SnapshotError(f"not JSON: {exc}") from None
        return cls.from_dict(data)


def _read_as_written(package: PackageFacts) -> bool:
    """Read a version a person wrote ("2.6.0 (conda-forge)") as the version it names, and a
    package written as Apple's ML Compute fork as the fork; False for a package the words say was
    only asked for ("2.12 (requested)"), which is not installed."""
    package.name, written = read_written_package(package.name, package.version)
    package.version = written.version
    return written.installed
