"""Verdicts on the speed probes: pure functions of ProbeFacts (no TensorFlow).

For each workload and each GPU, in this order of precedence:

1. a run that raised            -> probe.failed
2. the work did not run on it   -> probe.gpu-not-used (the output's device is not the GPU)
3. its numbers disagree         -> probe.gpu-wrong (relative error over the tolerance, or a
                                   non-finite loss or output)
4. otherwise the speed, from the CPU and GPU repeats at each size both measured
   (tfdoctor.inside.shared.probe_stats.compare: exact one-sided Mann-Whitney at p <= 0.05 on the raw
   repeats, and a 10% margin on the median ratio):
   faster -> probe.gpu-faster, slower -> probe.gpu-slower, neither -> probe.no-clear-difference.
   The decision is taken at the largest size measured: when the GPU did not win at the
   configured size the probes measured a larger one, and a GPU is only called slower if it loses
   there too (small workloads are latency-bound on a GPU). `wins_at` is the smallest size from
   which the GPU won at every larger size measured.

Around them: probe.crashed / probe.timeout (the process died or hung while probing; `current`
says where), probe.cpu-only (no GPU was probed), probe.gpu-measured (GPU probed without the CPU
to compare with), probe.incomplete (measurements skipped for the budget).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tfdoctor.facts.probes import ProbeFacts, ProbeRun
from tfdoctor.inside.shared.probe_stats import FASTER, SLOWER, UNCLEAR, compare

DECISION_CODES = {FASTER: "probe.gpu-faster", SLOWER: "probe.gpu-slower",
                  UNCLEAR: "probe.no-clear-difference"}


@dataclass(frozen=True)
class SizeComparison:
    size: int
    role: str
    cpu: ProbeRun
    gpu: ProbeRun
    stats: dict[str, Any]
    """tfdoctor.inside.shared.probe_stats.compare's result."""

    @property
    def decision(self) -> str:
        return self.stats["decision"]

    @property
    def speedup(self) -> float:
        return self.stats["speedup"]


@dataclass(frozen=True)
class Verdict:
    code: str
    workload: str | None = None
    device: str | None = None
    runs: tuple[ProbeRun, ...] = ()
    """The runs the verdict rests on (the GPU's for gpu-*, every run concerned otherwise)."""
    comparisons: tuple[SizeComparison, ...] = ()
    """Ascending size."""
    deciding: SizeComparison | None = None
    wins_at: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def comparisons(facts: ProbeFacts, workload: str, gpu: str) -> list[SizeComparison]:
    """CPU vs `gpu` at every size both measured `workload`, ascending."""
    found = []
    for run in facts.runs_of(workload, gpu):
        if not run.measured:
            continue
        cpu = next((c for c in facts.runs_of(workload, "CPU:0")
                    if c.size == run.size and c.measured), None)
        if cpu is None:
            continue
        stats = compare(cpu.timing.per_call_s, run.timing.per_call_s)
        found.append(SizeComparison(run.size, run.role, cpu, run, stats))
    return sorted(found, key=lambda c: c.size)


def wins_at(comps: list[SizeComparison]) -> int | None:
    """The smallest size from which the GPU was faster at every larger size measured."""
    size = None
    for comp in reversed(comps):
        if comp.decision != FASTER:
            break
        size = comp.size
    return size


def _workloads(facts: ProbeFacts) -> list[str]:
    order = list(facts.config.workloads) if facts.config else []
    for run in facts.runs:
        if run.workload not in order:
            order.append(run.workload)
    return order


def judge(facts: ProbeFacts) -> list[Verdict]:
    """Every verdict the probe facts support."""
    verdicts: list[Verdict] = []
    if facts.outcome in ("crashed", "timeout"):
        code = "probe.crashed" if facts.outcome == "crashed" else "probe.timeout"
        current = facts.current
        verdicts.append(Verdict(code, current.workload if current else None,
                                current.device if current else None,
                                tuple(r for r in facts.runs if current and r.workload == current.workload
                                      and r.device == current.device and r.size == current.size)))
    elif facts.outcome == "error":
        verdicts.append(Verdict("probe.failed", notes=(facts.error or facts.message,)))
    elif facts.outcome == "not-run":
        return verdicts
    gpus = [d for d in facts.devices if d.upper().startswith("GPU")]
    for workload in _workloads(facts):
        for gpu in gpus:
            verdict = _judge_gpu(facts, workload, gpu)
            if verdict is not None:
                verdicts.append(verdict)
    cpu_failed = [r for r in facts.runs_of(device="CPU:0") if r.error]
    for run in cpu_failed:
        verdicts.append(Verdict("probe.failed", run.workload, run.device, (run,)))
    if not gpus and facts.complete:
        # Also when nothing was measured (`--device gpu` and no GPU): say there was no GPU.
        verdicts.append(Verdict("probe.cpu-only", runs=tuple(r for r in facts.runs if r.measured)))
    skipped = tuple(r for r in facts.runs if r.skipped)
    if skipped or (facts.outcome in ("crashed", "timeout") and facts.config):
        missing = skipped + tuple(_never_started(facts))
        if missing:
            verdicts.append(Verdict("probe.incomplete", runs=missing))
    return verdicts


def _never_started(facts: ProbeFacts) -> list[ProbeRun]:
    """Planned main measurements that a crash or a hang prevented (not recorded at all)."""
    if facts.complete or not facts.config or facts.config.sweep:
        return []
    found = []
    current = facts.current
    for workload in facts.config.workloads:
        size = facts.config.sizes.get(workload)
        for device in facts.devices:
            if current is not None and (current.workload, current.device) == (workload, device):
                continue  # the one that crashed or hung: reported as such
            if size is not None and not facts.runs_of(workload, device):
                found.append(ProbeRun(workload=workload, device=device, size=size,
                                      skipped=f"not started: the probes {facts.outcome}"))
    return found


def _judge_gpu(facts: ProbeFacts, workload: str, gpu: str) -> Verdict | None:
    runs = facts.runs_of(workload, gpu)
    if not runs:
        return None
    current = facts.current
    failed = [r for r in runs if r.error]
    if failed:
        return Verdict("probe.failed", workload, gpu, tuple(failed))
    measured = [r for r in runs if r.measured]
    if not measured:
        return None  # skipped (probe.incomplete) or interrupted (probe.crashed / probe.timeout)
    elsewhere = [r for r in measured if r.on_device is False]
    if elsewhere:
        return Verdict("probe.gpu-not-used", workload, gpu, tuple(elsewhere))
    wrong = [r for r in measured if (r.agreement is not None and not r.agreement.ok)
             or r.loss_finite is False]
    if wrong:
        return Verdict("probe.gpu-wrong", workload, gpu, tuple(wrong))
    comps = comparisons(facts, workload, gpu)
    if not comps:
        if current is not None and current.workload == workload and facts.outcome != "ok":
            return None
        return Verdict("probe.gpu-measured", workload, gpu, tuple(measured))
    deciding = comps[-1]
    notes = []
    for run in runs:
        if run.skipped and run.role == "retry":
            notes.append(f"the larger size {run.size} was not measured: {run.skipped}")
    return Verdict(DECISION_CODES[deciding.decision], workload, gpu, tuple(measured), tuple(comps),
                   deciding, wins_at(comps), tuple(notes))
