"""The Metal GPU kernel table: which ops (and dtypes) each tensorflow-metal release runs on the GPU.

Read from the plugin binaries themselves (compat_matrix.json `metal_kernels`, with its method and
the wheel it came from), so tfdoctor can say which ops of a model, a script or an error message
fall back to the CPU on a Mac, and predict it on machines without one (`--plugin VERSION`).
An op missing here may still run on the GPU through one of TensorFlow's own DEVICE_DEFAULT kernels
(Identity, Fill, Shape...): `DEFAULT_DEVICE_OPS` lists those, so they are not reported.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Any, Mapping

SECTION = "metal_kernels"

DEFAULT_DEVICE_OPS = frozenset({
    "_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv", "NoOp", "Const",
    "Identity", "IdentityN", "Placeholder", "PlaceholderWithDefault", "StopGradient",
    "Shape", "ShapeN", "Size", "Rank", "Fill", "Reshape", "ExpandDims", "Squeeze",
    "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "VarIsInitializedOp", "DestroyResourceOp",
    "_ReadVariablesOp", "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
    "ControlTrigger", "StatelessIf", "StatelessWhile", "If", "While", "PartitionedCall",
    "StatefulPartitionedCall",
})
"""Ops TensorFlow itself registers for every pluggable device (DEVICE_DEFAULT kernels, control
flow, resource handles): they run on the GPU whatever the plugin registers."""


class UnknownPluginRelease(LookupError):
    """No kernel table for that tensorflow-metal release."""


@dataclass(frozen=True)
class Kernel:
    """One registered GPU kernel: its dtype constraints and the inputs it keeps in host memory."""

    op: str
    constraints: Mapping[str, str] = field(default_factory=dict)
    host_memory: tuple[str, ...] = ()

    @classmethod
    def decode(cls, op: str, text: str) -> "Kernel":
        spec, _, host = text.partition(";host=")
        constraints = dict(part.split("=", 1) for part in spec.split(",") if "=" in part)
        return cls(op, constraints, tuple(h for h in host.split(",") if h))

    def encode(self) -> str:
        text = ",".join(f"{k}={v}" for k, v in sorted(self.constraints.items()))
        return text + (";host=" + ",".join(self.host_memory) if self.host_memory else "")


@dataclass(frozen=True)
class KernelTable:
    """The GPU kernels of one tensorflow-metal release, with where the table was read from."""

    plugin_version: str
    wheel: str
    method: str
    read_on: str
    kernels: Mapping[str, tuple[Kernel, ...]]

    def ops(self) -> frozenset[str]:
        return frozenset(self.kernels)

    def dtypes(self, op: str) -> frozenset[str]:
        """Every dtype a constraint of one of the op's kernels names."""
        return frozenset(v for k in self.kernels.get(op, ()) for v in k.constraints.values())

    def has_kernel(self, op: str, dtype: str | None = None) -> bool:
        """True when the plugin (or TensorFlow's default device kernels) run `op` on the GPU;
        with `dtype`, for a kernel of that dtype (kernels without constraints accept any)."""
        if op in DEFAULT_DEVICE_OPS:
            return True
        kernels = self.kernels.get(op, ())
        if dtype is None:
            return bool(kernels)
        return any(not k.constraints or dtype in k.constraints.values() for k in kernels)


def bundled_section(name: str, raw: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """Section `name` of compat_matrix.json as read (`raw`, else the bundled file, read once);
    empty when absent or unreadable: binary facts are advice, never a reason to crash."""
    if raw is None:
        raw = _bundled()
    section = raw.get(name)
    return section if isinstance(section, Mapping) else {}


def _section(raw: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return bundled_section(SECTION, raw)


@functools.lru_cache(maxsize=1)
def _bundled() -> Mapping[str, Any]:
    from tfdoctor.knowledge.matrix import default_path

    try:
        return json.loads(default_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def releases(raw: Mapping[str, Any] | None = None) -> list[str]:
    """tensorflow-metal releases with a kernel table, newest first."""
    from packaging.version import InvalidVersion, Version

    def key(v: str) -> Any:
        try:
            return Version(v)
        except InvalidVersion:
            return Version("0")

    return sorted(_section(raw).get("releases", {}), key=key, reverse=True)


def ops_of_every_release(raw: Mapping[str, Any] | None = None) -> frozenset[str]:
    """Every op some tensorflow-metal release has a GPU kernel for: real op names, even the few
    the plugin registers itself (`_FusedBatchMatMulV2`) that TensorFlow's own registry lacks."""
    return frozenset(op for version in releases(raw) for op in kernel_table(version, raw).ops())


def kernel_table(version: str, raw: Mapping[str, Any] | None = None) -> KernelTable:
    """The kernel table of a tensorflow-metal release; UnknownPluginRelease when none is shipped."""
    section = _section(raw)
    rels = section.get("releases", {})
    if version not in rels:
        known = ", ".join(releases(raw)) or "none"
        raise UnknownPluginRelease(f"no GPU kernel table for tensorflow-metal {version} (known: {known})")
    entry = rels[version]
    table = _resolve(rels, version, set())
    return KernelTable(
        plugin_version=version,
        wheel=str(entry.get("wheel", "")),
        method=str(section.get("method", "")),
        read_on=str(section.get("read_on", "")),
        kernels={op: tuple(Kernel.decode(op, t) for t in texts) for op, texts in sorted(table.items())},
    )


def _resolve(rels: Mapping[str, Any], version: str, seen: set[str]) -> dict[str, list[str]]:
    """op -> encoded kernels of `version`: its full table, or its base's with differences applied."""
    if version in seen or version not in rels:
        raise UnknownPluginRelease(f"kernel table of tensorflow-metal {version} has a broken base chain")
    seen.add(version)
    entry = rels[version]
    if "full" in entry:
        return {op: list(texts) for op, texts in entry["full"].items()}
    table = _resolve(rels, entry["base"], seen)
    for op, texts in entry.get("removed", {}).items():
        kept = [t for t in table.get(op, []) if t not in set(texts)]
        if kept:
            table[op] = kept
        else:
            table.pop(op, None)
    for op, texts in entry.get("added", {}).items():
        table[op] = sorted(set(table.get(op, [])) | set(texts))
    return table
