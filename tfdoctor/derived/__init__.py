"""Facts derived from a snapshot once and handed to every rule.

"Is this Apple silicon? Is Python translated? Which TensorFlow is installed?" are answered here and
nowhere else, so every rule (and the report's first line) reads the same answer, each tested once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from packaging.version import Version

from tfdoctor.derived.markers import marker_env
from tfdoctor.derived.providers import hollow_shims, providers, self_shims
from tfdoctor.facts.archnames import ARM64, X86_64, normalise
from tfdoctor.facts.snapshot import PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version

if TYPE_CHECKING:
    from tfdoctor.derived.probe_verdicts import Verdict
    from tfdoctor.knowledge.matrix import CompatMatrix

METAL_PLUGIN_DISTRIBUTIONS = ("tensorflow-metal", "tensorflow-metal-plugin")
"""Distributions that install a Metal PluggableDevice (`libmetal_plugin.dylib`): Apple's and the
third-party IPNP-BIPN/tensorflow-metal-plugin."""


@dataclass
class Derived:
    """What the rules ask of a snapshot, computed once (see `derive`)."""

    is_mac: bool
    apple_silicon: bool
    """macOS on Apple hardware (hw.optional.arm64), whatever the process runs as."""
    translated: bool
    """The diagnosed Python runs under Rosetta 2 (translated, or x86_64 on Apple silicon outside a container)."""
    hardware_arch: str
    """The architecture to install for: arm64 on Apple silicon even for a translated Python."""
    process_arch: str | None
    binary_archs: frozenset[str]
    macos: str | None
    """The macOS version when known and readable ("14.5")."""
    macos_version: Version | None
    providers: list[PackageFacts]
    """Installed TensorFlow distributions that ship its code."""
    shims: list[PackageFacts]
    """Installed TensorFlow shims that only depend on a provider."""
    self_shims: list[PackageFacts]
    hollow_shims: list[PackageFacts]
    tensorflow: PackageFacts | None
    """The one TensorFlow provider, or None when none or several are installed."""
    tf_main: PackageFacts | None
    """The TensorFlow distribution to name: the first provider, else the first shim."""
    tf_version: str | None
    """TensorFlow's version: the imported one when the runtime facts have it, else installed."""
    metal_plugins: list[PackageFacts]
    marker_env: dict[str, str] = field(default_factory=dict)
    probes: object = None
    """The snapshot's probe facts, judged lazily into `verdicts`."""
    runtime: object = None
    """The snapshot's runtime facts (what importing TensorFlow showed), or None."""
    _memo: dict = field(default_factory=dict, repr=False)

    def once(self, key: str, compute: Callable[[], Any]) -> Any:
        """`compute()` the first time `key` is asked for, the same answer after: for a judgement
        several rules of one module share (how the import failed, which pins apply)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    @property
    def metal(self) -> PackageFacts | None:
        """Apple's tensorflow-metal, when installed."""
        return next((p for p in self.metal_plugins if p.key == "tensorflow-metal"), None)

    @property
    def fork(self) -> bool:
        """The installed TensorFlow is Apple's 2020-21 ML Compute fork: tensorflow-macos before
        2.5, or natively on Apple silicon a `tensorflow` that says it is 2.4.0rc0, as the fork does
        (no other TensorFlow of that version ever ran natively there)."""
        from tfdoctor.knowledge import eras  # lazily, as the matrix: knowledge is read on demand

        return eras.installed_fork(self.tensorflow) or (
            self.apple_silicon and not self.translated and eras.names_itself_the_fork(self.tensorflow))

    @property
    def python_minor(self) -> str | None:
        return ".".join(self.marker_env.get("python_full_version", "").split(".")[:2]) or None

    @functools.cached_property
    def matrix(self) -> "CompatMatrix | None":
        """The bundled compatibility matrix (loaded on first use), None when unreadable."""
        from tfdoctor.knowledge.matrix import load_matrix_or_none

        return load_matrix_or_none()


    @property
    def gpu_ran(self) -> str | None:
        """The GPU ("GPU:0") on which tfdoctor saw TensorFlow run a pinned matmul: the strongest
        evidence that the installed pair works, whatever tables or dates say."""
        rt = self.runtime
        if rt is None or rt.outcome != "ok":
            return None
        ran = [p for p in rt.placements if p.requested.upper().startswith("/GPU")
               and p.on_requested_device and not p.error]
        return ran[0].requested.strip("/") if ran else None

    def verdicts_of(self, code: str, workload: str | None = None) -> "list[Verdict]":
        """The probe verdicts of one code (a probe rule's own), of one workload when given."""
        return [v for v in self.verdicts if v.code == code and workload in (None, v.workload)]

    @functools.cached_property
    def verdicts(self) -> "list[Verdict]":
        """What the speed probes' measurements mean (tfdoctor.derived.probe_verdicts), once per snapshot."""
        from tfdoctor.derived.probe_verdicts import judge

        if self.probes is None or getattr(self.probes, "outcome", None) == "not-run":
            return []
        return judge(self.probes)


def installed_keras(s: Snapshot) -> tuple[str | None, int | None]:
    """The installed keras's version and major (None where not listed or unreadable): Keras 3 is
    what TensorFlow 2.16+ brings, and what Keras errors are judged against."""
    keras = s.package("keras")
    if keras is None or not keras.version:
        return None, None
    version = parse_version(keras.version)
    return keras.version, version.major if version is not None else None


def pip_arch(s: Snapshot) -> str | None:
    """The architecture pip picks wheels for, where known: the diagnosed process's, else the Mac's
    own when the report states the hardware (as the recommendation assumes); None when neither is
    known, for an unstated chip is not an Intel one (unlike hardware_arch, which must name one)."""
    process = normalise(s.python.process_arch) if s.python else None
    return process or {True: ARM64, False: X86_64}.get(s.host.hw_arm64)


def verdict_archs(s: Snapshot, d: Derived) -> tuple[str, ...]:
    """The architectures a verdict about wheels must hold for: the one to install for where the
    report states the chip or the Python's architecture, else both a Mac can have (an unstated
    chip is unknown, not Intel: `hardware_arch` must name one, and names x86_64)."""
    return (d.hardware_arch,) if s.host.hw_arm64 is not None or pip_arch(s) else (ARM64, X86_64)


def derive(s: Snapshot) -> Derived:
    """Work out the derived facts of a snapshot."""
    host, py = s.host, s.python
    is_mac = host.system == "Darwin"
    apple_silicon = is_mac and bool(host.hw_arm64)
    process_arch = normalise(py.process_arch) if py else None
    # x86_64 code on Apple silicon is Rosetta 2's outside a container; inside one (a report's Mac
    # running Docker) QEMU or Rosetta for Linux runs it: arch.emulated-container's story
    translated = apple_silicon and py is not None and bool(
        py.translated or (process_arch == X86_64 and not host.container))
    if host.hw_arm64:
        hardware_arch = ARM64
    else:
        hardware_arch = process_arch or X86_64
    macos = host.macos_version if host.macos_version and parse_version(host.macos_version) else None
    real, shims = providers(s)
    main = real[0] if len(real) == 1 else None
    shown = real[0] if real else (shims[0] if shims else None)
    runtime_version = s.runtime.tf_version if s.runtime else None
    return Derived(
        is_mac=is_mac,
        apple_silicon=apple_silicon,
        translated=translated,
        hardware_arch=hardware_arch,
        process_arch=process_arch,
        binary_archs=frozenset(a for a in (normalise(x) for x in (py.binary.archs if py else [])) if a),
        macos=macos,
        macos_version=parse_version(macos) if macos else None,
        providers=real,
        shims=shims,
        self_shims=self_shims(s),
        hollow_shims=hollow_shims(s),
        tensorflow=main,
        tf_main=shown,
        tf_version=runtime_version or (shown.version if shown else None),
        metal_plugins=[p for p in (s.package(n) for n in METAL_PLUGIN_DISTRIBUTIONS) if p],
        marker_env=marker_env(s),
        probes=s.probes,
        runtime=s.runtime,
    )
