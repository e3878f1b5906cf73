"""What the model probe found about one model: JSON-friendly dataclasses the rules and renderers read.

Filled by tfdoctor.gather.user_model from the result of tfdoctor/inside/model/ (which ran the
model in the diagnosed interpreter); `to_json()` gives plain data for snapshots and `--json`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

SCHEMA = 1


@dataclass(frozen=True)
class ModelError:
    """A bad input or a failure, as a finding to show (never a traceback)."""

    stage: str
    kind: str
    """not-found, not-a-model, corrupt, custom-objects, import-failed, no-such-function,
    function-raised, not-a-model-returned, too-big, inputs-failed, trace-failed, timeout,
    crashed, no-result, import-failed, internal..."""
    message: str
    op: str | None = None
    """no-gpu-kernel: the op without a kernel on the device it had to run on"""
    layer: str | None = None


@dataclass(frozen=True)
class OpFallback:
    """A group of ops (same graph, layer, op type and dtype) without a GPU kernel."""

    graph: str
    """inference or training"""
    layer: str
    op: str
    dtype: str | None
    count: int
    example: str
    source: str
    """registry (TensorFlow's kernels after the plugin loaded), executed (ran on the CPU with
    the model pinned to the GPU), or table:VERSION (predicted from the shipped kernel table)"""


@dataclass(frozen=True)
class LayerError:
    layer: str
    rel_error: float | None
    agrees: bool


@dataclass(frozen=True)
class Agreement:
    """GPU against CPU on the same weights and inputs."""

    tolerance: float
    per_layer: bool
    """False for subclassed models: only their outputs are compared."""
    layers: list[LayerError]
    first_bad: str | None
    output_error: float | None
    losses: dict[str, list[float | None]]
    """Device -> the loss after each training step; None for a loss that was not finite (JSON
    has no NaN)."""
    loss_rel_diff: float | None
    error: str | None = None


@dataclass(frozen=True)
class Timing:
    device: str
    median_s: float | None = None
    min_s: float | None = None
    max_s: float | None = None
    iqr_s: float | None = None
    first_call_s: float | None = None
    calls_per_repeat: int | None = None
    times_s: list[float] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None


@dataclass(frozen=True)
class SpeedFacts:
    """Inference and training-step time per device, and the CPU-vs-GPU verdict of each."""

    inference: list[Timing]
    train_step: list[Timing]
    verdicts: dict[str, dict[str, Any]]
    """kind -> tfdoctor.inside.shared.probe_stats.compare result (decision, speedup, p-values, reason)"""
    sweep: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryTrend:
    device: str
    source: str | None
    """phys_footprint (macOS, includes Metal's buffers), rss, peak_rss"""
    process_bytes: list[int]
    device_bytes: list[int]
    slope_bytes_per_step: float | None
    growth_bytes: int | None
    leak: bool
    message: str
    error: str | None = None
    stopped: str | None = None
    """"budget" when the budget ran out before all the steps were taken."""


@dataclass(frozen=True)
class SettingIssue:
    """A setting that breaks or slows Metal."""

    code: str
    """xla-unsupported, jit-compile-on-metal, optimizer-slow, float16-fallback, cudnn-rnn"""
    message: str
    source: str


@dataclass
class ModelFacts:
    schema: int = SCHEMA
    outcome: str = "ok"
    """ok, error (a bad input: see errors), timeout, crashed, no-result"""
    source: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    inputs: list[dict[str, Any]] = field(default_factory=list)
    assumptions: list[dict[str, Any]] = field(default_factory=list)
    tf_version: str | None = None
    gpus: list[str] = field(default_factory=list)
    fallback_source: str | None = None
    """registry when a GPU was present, table:VERSION when predicted, None when unknown"""
    fallbacks: list[OpFallback] = field(default_factory=list)
    ran_on_cpu: list[OpFallback] = field(default_factory=list)
    host_ops: list[str] = field(default_factory=list)
    """Integer (shape and index) ops without a GPU kernel: normal, kept in host memory."""
    ops_total: int = 0
    ops_report_s: float | None = None
    agreement: Agreement | None = None
    speed: SpeedFacts | None = None
    memory: MemoryTrend | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    setting_issues: list[SettingIssue] = field(default_factory=list)
    errors: list[ModelError] = field(default_factory=list)
    elapsed_s: float | None = None
    stage: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def probe_args(self) -> list[str]:
        """The `tfdoctor probe` arguments that examine this model again."""
        spec = str(self.source.get("spec") or "MODEL")
        return ["--workload", spec] if self.source.get("workload") else ["--model", spec]

    def batch(self) -> int | None:
        """The batch size the model was run with (the first input's first dimension)."""
        shape = self.inputs[0].get("shape") if self.inputs else None
        return int(shape[0]) if shape else None

    def fallback_ops(self, graph: str | None = None) -> list[str]:
        """Sorted op names (with dtype) that fall back to the CPU, optionally of one graph."""
        return sorted({f"{f.op}:{f.dtype}" if f.dtype else f.op for f in self.fallbacks
                       if graph is None or f.graph == graph})
