"""Evidence both probe rule modules quote: sizes, devices, milliseconds, achieved GFLOP/s next to
the chip's peak, and the pair to install when the GPU is not used."""

from __future__ import annotations

from typing import Any

from tfdoctor.advice.commands import python_cmd
from tfdoctor.advice.installs import pair_fix
from tfdoctor.derived.probe_verdicts import SizeComparison
from tfdoctor.facts.probes import ProbeRun
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.inside.shared.workloads import KINDS
from tfdoctor.knowledge.apple_gpus import AppleGpu, lookup


def size(workload: str | None, size: int | None) -> str:
    if workload is None or size is None:
        return ""
    kind = KINDS.get(workload)
    return (kind.size_label if kind else "size {}").format(size)


def training_step(run: ProbeRun) -> bool:
    """Whether `run` timed a training step: samples/s, and FLOPs that are only an estimate."""
    kind = KINDS.get(run.workload or "")
    return bool(kind and kind.training_step)


def dev(name: str | None) -> str:
    if not name:
        return "nowhere"
    tail = name.rsplit("/", 1)[-1]
    return tail.replace("device:", "").upper()


def ms(seconds: float | None) -> float | None:
    return round(seconds * 1e3, 4) if seconds is not None else None


def probe_cmd(s: Snapshot, *args: str) -> str:
    return " ".join(["tfdoctor", "probe", *args, "--python", python_cmd(s)])


def chip(s: Snapshot) -> AppleGpu | None:
    return lookup(s.host.chip) or lookup(s.host.cpu_brand)


def peak(gpu: AppleGpu | None, run: ProbeRun) -> dict[str, Any]:
    """Achieved GFLOP/s against the chip's FP32 peak (matmul and conv: their FLOPs are exact)."""
    if gpu is None or not run.gflops or training_step(run):
        return {}
    low, high = gpu.fraction_of_peak(run.gflops)
    return {"chip": gpu.chip, "chip_fp32_peak_tflops": list(gpu.fp32_tflops),
            "chip_gpu_cores": list(gpu.gpu_cores), "chip_peak_is_estimate": gpu.fp32_estimate,
            "fraction_of_peak": [round(low, 4), round(high, 4)]}


def peak_text(gpu: AppleGpu | None, run: ProbeRun) -> str:
    if gpu is None or not run.gflops or training_step(run):
        return ""
    low, high = gpu.fraction_of_peak(run.gflops)
    share = pct(low) if pct(low) == pct(high) else f"{pct(low)}-{pct(high)}"
    return f"; {share} of the {gpu.chip}'s {gpu.peak_text()}"


def pct(x: float) -> str:
    """0.71 -> "71%", 0.0072 -> "0.72%"."""
    return f"{x:.0%}" if x >= 0.1 else f"{x * 100:.2g}%"


def rate(run: ProbeRun) -> str:
    if training_step(run):
        return f"{num(run.samples_per_s)} samples/s" if run.samples_per_s else ""
    return f"{num(run.gflops)} GFLOP/s" if run.gflops else ""


def num(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def run_evidence(run: ProbeRun) -> dict[str, Any]:
    t = run.timing
    ev: dict[str, Any] = {"device": run.device, "size": run.size, "role": run.role, "shape": run.shape,
                          "placed_on": run.placed_on}
    if t is not None:
        ev.update({
            "median_ms": ms(t.median_s), "iqr_ms": ms(t.iqr_s), "min_ms": ms(t.min_s),
            "max_ms": ms(t.max_s), "first_call_ms": ms(t.first_call_s),
            "calls_per_repeat": t.number, "per_call_ms": [ms(v) for v in t.per_call_s],
            "warmup_ms": [ms(v) for v in t.warmup_s], "budget_limited": t.budget_limited,
        })
    if run.gflops:
        ev["gflops"] = round(run.gflops, 2)
    if run.samples_per_s:
        ev["samples_per_s"] = round(run.samples_per_s, 1)
    if run.optimizer:
        ev["optimizer"] = run.optimizer
    if run.loss_first is not None or run.loss_finite is not None:
        ev["loss"] = [run.loss_first, run.loss_last]
        ev["loss_finite"] = run.loss_finite
    if run.agreement is not None:
        ev["agreement"] = {"values": run.agreement.values, "tolerance": run.agreement.tolerance,
                           "tolerances": run.agreement.tolerances, "ok": run.agreement.ok}
    return ev


def comparison_evidence(comp: SizeComparison) -> dict[str, Any]:
    st = comp.stats
    return {"size": comp.size, "role": comp.role, "decision": comp.decision,
            "speedup": round(st["speedup"], 4),
            "speedup_range": [round(st["speedup_low"], 4), round(st["speedup_high"], 4)],
            "p_faster": round(st["p_faster"], 6), "p_slower": round(st["p_slower"], 6),
            "repeats": [st["n_cpu"], st["n_gpu"]], "reason": st["reason"],
            "cpu_median_ms": ms(comp.cpu.timing.median_s), "gpu_median_ms": ms(comp.gpu.timing.median_s)}


def times(speedup: float) -> str:
    if speedup >= 1:
        return f"{speedup:.1f}x faster"
    return f"{1 / speedup:.1f}x slower" if speedup > 0 else "infinitely slower"


def probe_pair_fix(s: Snapshot) -> tuple[tuple[str, ...], str]:
    """Requirements of a TensorFlow/tensorflow-metal pair that works (the runtime rules' matrix
    logic), on a Mac or wherever tensorflow-metal is installed."""
    if not s.package("tensorflow-metal") and not (s.host.system == "Darwin" and s.host.hw_arm64):
        return (), ""
    reqs, why, _facts = pair_fix(s)
    return tuple(reqs), why
