"""Results of the speed probes (tfdoctor/inside/probes/), as a typed, plain-data model.

The probes run inside the diagnosed interpreter (in the runtime child, or standalone) and write a
plain JSON document; `from_document` turns it, and how the process ended, into ProbeFacts. Plain
data only (dataclasses, lists, dicts, str/int/float/bool/None), so a snapshot with probe facts
round-trips through tfdoctor.facts.typed and can be judged on another machine. Every raw timing is
kept: each warm-up call, each autorange trial, each repeat.

Times are seconds. A "repeat" is `number` back-to-back calls followed by one read-back to the
host; `per_call_s[i] = repeats_s[i] / number`, and the statistics (median, quartiles...) are of
`per_call_s`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tfdoctor.facts import typed
from tfdoctor.facts.runtime import STDERR_TAIL, RuntimeFacts

OUTCOMES = ("ok", "error", "crashed", "timeout", "not-run")
"""How the probes ended:
ok        they finished (some measurements may have failed or been skipped: see the runs);
error     the probe code stopped early with a Python exception (`error`), e.g. a bad config;
crashed   the process died while probing (a signal such as SIGSEGV or SIGABRT inside TensorFlow
          or its GPU plugin, or an exit without a result); `current` says what was running;
timeout   the process was killed at its hard timeout while probing (`current`: what hung);
not-run   the probes were not started (TensorFlow did not import, the child died before)."""

ROLES = ("main", "retry", "sweep")
"""Why a run exists: the configured size, the larger size tried when the GPU did not win, or a
point of a --sweep."""


@dataclass
class ProbeConfig:
    """The resolved configuration the probes ran with (see tfdoctor/inside/shared/probe_config.py DEFAULTS)."""

    preset: str = "probe"
    workloads: list[str] = field(default_factory=list)
    devices: str = "all"
    size: int | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    repeats: int = 7
    min_repeats: int = 3
    warmup: int = 2
    repeat_s: float = 0.1
    min_repeat_s: float = 0.01
    budget_s: float = 30.0
    sweep: bool = False
    sweep_sizes: dict[str, list[int]] = field(default_factory=dict)
    retry: bool = True
    retry_factor: dict[str, int] = field(default_factory=dict)
    tolerance: dict[str, float] = field(default_factory=dict)
    seed: int = 0


@dataclass
class ProbeTiming:
    number: int
    """Calls per repeat, found by autoranging."""
    repeats_s: list[float] = field(default_factory=list)
    """Raw wall time of each repeat (`number` calls and one read-back)."""
    per_call_s: list[float] = field(default_factory=list)
    warmup_s: list[float] = field(default_factory=list)
    """Each warm-up call with its read-back; the first one includes tracing and compilation."""
    first_call_s: float | None = None
    readback_s: float | None = None
    """One read-back alone, of an output already computed."""
    calibration: list[list[float]] = field(default_factory=list)
    """The autorange trials: [number, seconds]."""
    repeat_target_s: float | None = None
    budget_limited: bool = False
    """Fewer repeats than configured were taken, to stay within the budget."""
    median_s: float = 0.0
    min_s: float = 0.0
    max_s: float = 0.0
    q1_s: float = 0.0
    q3_s: float = 0.0
    iqr_s: float = 0.0


@dataclass
class ProbeAgreement:
    """A GPU result against the CPU's, on identical inputs (train: identical weights)."""

    reference: str = "CPU:0"
    metric: str = "relative L2 error"
    values: dict[str, float | None] = field(default_factory=dict)
    """"output" (matmul, conv); "logits", "gradients" (the worst variable's), "dense_relu_eager",
    "dense_relu_graph" and "loss" (train; loss is informative, not checked). None: not finite."""
    tolerance: float = 0.0
    """The workload's tolerance."""
    tolerances: dict[str, float] = field(default_factory=dict)
    """The tolerance each checked value was held to: the workload's, except the training step's
    gradients, which pass through ReLU and max-pooling kinks (workloads.gradient_tolerance)."""
    ok: bool = False
    finite: bool = True

    def tolerance_of(self, key: str) -> float:
        return self.tolerances.get(key, self.tolerance)

    def worst(self) -> tuple[str, float] | None:
        """The checked value furthest over (or nearest to) its tolerance, with its error."""
        checked = [(k, v) for k, v in self.values.items() if k != "loss" and v is not None]
        return max(checked, key=lambda kv: kv[1] / (self.tolerance_of(kv[0]) or 1.0), default=None)


@dataclass
class ProbeRun:
    """One workload at one size on one device."""

    workload: str
    device: str
    """"CPU:0", "GPU:0"..."""
    size: int
    role: str = "main"
    shape: str = ""
    flops: float | None = None
    """Floating-point operations of one call (train: an estimate, 3x the forward pass)."""
    samples: int | None = None
    """Samples one call processes (conv, train: the batch)."""
    inputs: dict[str, str] = field(default_factory=dict)
    """Device of each input after it was copied to the device."""
    placed_on: str | None = None
    """Where the result was computed (an output's .device)."""
    on_device: bool | None = None
    placement: dict[str, str] = field(default_factory=dict)
    """Devices of the outputs checked (train: each layer's output in an eager forward pass)."""
    timing: ProbeTiming | None = None
    gflops: float | None = None
    samples_per_s: float | None = None
    agreement: ProbeAgreement | None = None
    """Against the CPU; None on the CPU itself."""
    loss_first: float | None = None
    loss_last: float | None = None
    loss_finite: bool | None = None
    optimizer: str | None = None
    error: str | None = None
    error_type: str | None = None
    error_phase: str | None = None
    """"setup", "warmup" or "verify"."""
    error_traceback: list[str] = field(default_factory=list)
    skipped: str | None = None
    """Why it was not measured (the budget)."""
    duration_s: float | None = None

    @property
    def is_gpu(self) -> bool:
        return self.device.upper().startswith("GPU")

    @property
    def measured(self) -> bool:
        return self.timing is not None and bool(self.timing.per_call_s)


@dataclass
class ProbeCurrent:
    """What the probes were doing when last reported."""

    workload: str
    device: str
    size: int
    phase: str


@dataclass
class ProbeFacts:
    outcome: str = "ok"
    """One of OUTCOMES."""
    message: str = ""
    config: ProbeConfig | None = None
    tf_version: str | None = None
    devices: list[str] = field(default_factory=list)
    """Devices probed."""
    gpus: list[str] = field(default_factory=list)
    """GPUs TensorFlow listed (logical devices), probed or not."""
    runs: list[ProbeRun] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    """The progress lines, in order."""
    current: ProbeCurrent | None = None
    complete: bool = False
    elapsed_s: float | None = None
    budget_s: float | None = None
    budget_exhausted: bool = False
    timer: str = "time.perf_counter"
    timer_resolution_s: float | None = None
    error: str | None = None
    # How the process that ran them ended (filled in by the parent):
    signal: str | None = None
    returncode: int | None = None
    duration_s: float | None = None
    timeout_s: float | None = None
    stderr_tail: str = ""

    def runs_of(self, workload: str | None = None, device: str | None = None,
                role: str | None = None) -> list[ProbeRun]:
        return [r for r in self.runs if (workload is None or r.workload == workload)
                and (device is None or r.device == device) and (role is None or r.role == role)]


def from_document(data: Any, *, outcome: str | None = None, message: str = "",
                  signal: str | None = None, returncode: int | None = None,
                  duration_s: float | None = None, timeout_s: float | None = None,
                  stderr_tail: str = "") -> ProbeFacts:
    """ProbeFacts from the probes' result (the dict of tfdoctor.inside.probes.run.run_probes,
    possibly partial) and how the process ended. `outcome` None means "as the document says" ("ok" when it is complete);
    the parent passes "crashed" or "timeout" when the child died or hung before completing.
    Raises typed.ShapeError when the document is not what the probes write."""
    if data is None:
        facts = ProbeFacts(outcome=outcome or "not-run", message=message)
    else:
        if not isinstance(data, dict):
            raise typed.ShapeError("probes: expected an object, got %s" % type(data).__name__)
        facts = typed.from_plain(ProbeFacts, data, "probes")
        if outcome is not None and not (facts.complete and outcome in ("crashed", "timeout")):
            facts.outcome = outcome
        elif not facts.complete and outcome is None:
            facts.outcome = "crashed"
        if message:
            facts.message = message
    if facts.outcome not in OUTCOMES:
        raise typed.ShapeError(f"probes: unknown outcome {facts.outcome!r}")
    facts.signal = signal
    facts.returncode = returncode
    facts.duration_s = duration_s
    facts.timeout_s = timeout_s
    facts.stderr_tail = stderr_tail
    return facts


def from_runtime(document: Any, runtime: RuntimeFacts) -> ProbeFacts:
    """ProbeFacts from the runtime child's `result["probes"]` (what run_probes handed
    to `on_result`, or returned; None when the probes never started) and the RuntimeFacts the
    parent made of how the child ended: a child killed by a signal or dying without a result
    while probing makes the probes "crashed", a child killed at its timeout "timeout"."""
    ending = {"signal": runtime.signal, "returncode": runtime.returncode,
              "duration_s": runtime.duration_s, "timeout_s": runtime.timeout_s,
              "stderr_tail": runtime.stderr_tail[-STDERR_TAIL:]}
    if document is None:
        why = runtime.message or runtime.outcome
        return from_document(None, outcome="not-run", message=f"the probes did not run: {why}", **ending)
    outcome = None
    if runtime.outcome == "timeout":
        outcome = "timeout"
    elif runtime.outcome in ("signal", "no-result", "bad-output"):
        outcome = "crashed"
    try:
        return from_document(document, outcome=outcome,
                             message=f"the child {runtime.message}" if outcome else "", **ending)
    except typed.ShapeError as exc:
        return from_document(None, outcome="crashed",
                             message=f"the probes' result has the wrong shape: {exc}", **ending)
