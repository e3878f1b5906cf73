"""Is the GPU faster than the CPU, and by how much? The speed probes (tfdoctor/inside/shared/workloads.py)
timed a matmul, a convolution and a Keras training step on the CPU and on each GPU; tfdoctor.derived.probe_verdicts
turns the repeats into a size-aware verdict, and these rules state it with the achieved GFLOP/s next
to the chip's peak where the chip is known. Reads only snapshot.probes (and the host's chip)."""

from __future__ import annotations

from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import python_cmd
from tfdoctor.advice.fix_answers import A_SYMPTOM, MEASURED_ON_THE_GPU, NOTHING_WRONG
from tfdoctor.advice.probe_evidence import (
    chip,
    comparison_evidence,
    ms,
    peak,
    peak_text,
    probe_cmd,
    rate,
    run_evidence,
    size,
    times,
)
from tfdoctor.derived import Derived
from tfdoctor.derived.probe_verdicts import Verdict
from tfdoctor.facts.probes import ProbeFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.inside.shared.probe_stats import ALPHA, MARGIN
from tfdoctor.inside.shared.workloads import is_training_step
from tfdoctor.knowledge.apple_gpus import AppleGpu
from tfdoctor.model import Finding, Remediation, Severity, emitter, rule

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
WRONG_ISSUE = "https://github.com/tensorflow/tensorflow/issues/92686"
DECISION_RULE = (f"exact one-sided Mann-Whitney test on the raw repeats at p <= {ALPHA:g}, and a "
                 f"median ratio beyond {MARGIN:.0%}; judged at the largest size measured")


def _speed(s: Snapshot, v: Verdict, gpu_chip: AppleGpu | None) -> Finding:
    comp = v.deciding
    assert comp is not None
    workload, gpu = v.workload or "", v.device or "GPU"
    main = v.comparisons[0]
    st = comp.stats
    at = size(workload, comp.size)
    rates = f"{rate(comp.gpu)} vs {rate(comp.cpu)}".strip() if rate(comp.gpu) else ""
    peak_note = peak_text(gpu_chip, comp.gpu)
    if v.code == "probe.gpu-faster":
        title = f"{workload} {at}: {gpu} is {times(comp.speedup)} than the CPU"
        if comp is not main and len(v.comparisons) > 1 and main.decision != "faster":
            title += f" (not at {size(workload, main.size)}: {main.speedup:.2f}x)"
    elif v.code == "probe.gpu-slower":
        title = f"{workload} {at}: {gpu} is {times(comp.speedup)} than the CPU"
        if comp is not main:
            title += f" (at {size(workload, main.size)} too: {times(main.speedup)})"
    else:
        title = (f"{workload} {at}: no clear difference between {gpu} and the CPU "
                 f"({comp.speedup:.2f}x; {st['reason']})")
    if rates:
        title += f" [{rates}{peak_note}]"
    if v.wins_at is not None and v.code != "probe.gpu-faster":
        title += f"; the GPU wins from {size(workload, v.wins_at)}"
    ev: dict[str, Any] = {
        "workload": workload, "gpu": gpu, "decision_rule": DECISION_RULE,
        "decided_at": comparison_evidence(comp),
        "sizes": [comparison_evidence(c) for c in v.comparisons],
        "wins_at": v.wins_at, "cpu": run_evidence(comp.cpu), "gpu_run": run_evidence(comp.gpu),
        **peak(gpu_chip, comp.gpu),
    }
    if v.notes:
        ev["notes"] = list(v.notes)
    fix = None
    explains: tuple[str, ...] = ()
    if v.code == "probe.gpu-slower":
        text = (f"The GPU loses on {workload} even at {at}. Small workloads are latency-bound on a "
                "GPU: use larger batches or models (the sweep shows where the GPU starts to win)")
        link = None
        if is_training_step(workload):
            optimizer = comp.gpu.optimizer or ""
            keras3 = bool(s.runtime and s.runtime.keras and s.runtime.keras.is_keras3)
            if "legacy" in optimizer:
                text += "; this step already used a legacy Keras optimizer"
            elif not keras3:
                text += ("; on Keras 2.11-2.15 use the legacy optimizer (tf.keras.optimizers.legacy.Adam): "
                         "the new ones run op by op on Metal (tensorflow/tensorflow#59438)")
                link = OPTIMIZER_ISSUE
        text += "; keep jit_compile off on Metal"
        fix = Remediation(text, (probe_cmd(s, "--workload", workload, "--sweep"),), link)
    elif v.code == "probe.no-clear-difference":
        fix = Remediation("Measure again on an idle machine (plugged in), with more repeats and "
                          "the size sweep",
                          (probe_cmd(s, "--workload", workload, "--sweep", "--repeats", "15"),))
    detail = ""
    if len(v.comparisons) > 1:
        detail = "; ".join(f"{size(workload, c.size)}: GPU {times(c.speedup)} ({c.decision})"
                           for c in v.comparisons)
    return _emit(v.code, title, ev, fix, explains, detail)


def _cpu_only(s: Snapshot, facts: ProbeFacts, v: Verdict) -> Finding:
    main = [r for r in v.runs if r.role == "main"] or list(v.runs)
    figures = ", ".join(f"{r.workload} {size(r.workload, r.size)}: {rate(r)}" for r in main if rate(r))
    title = ("No GPU to probe: the probes ran on the CPU only" + (f" ({figures})" if figures else "")
             if v.runs else "No GPU to probe: TensorFlow lists none, so nothing was measured")
    ev = {"gpus": facts.gpus, "devices": facts.devices, "runs": [run_evidence(r) for r in v.runs]}
    if facts.config and facts.config.devices == "gpu":  # the GPU was asked for and there is none
        fix = Remediation("TensorFlow lists no GPU, so nothing could be measured on one; the "
                          "runtime findings say why", (f"tfdoctor check --python {python_cmd(s)}",))
        return cpu_only.finding(ev, fix, title="No GPU to probe: --device gpu was asked for, and "
                                "TensorFlow lists none", severity=Severity.ERROR)
    return _emit(codes.PROBE_CPU_ONLY, title, ev, None)


def _gpu_measured(s: Snapshot, v: Verdict, gpu_chip: AppleGpu | None) -> Finding:
    run = v.runs[0]
    title = (f"{v.workload} {size(v.workload, run.size)} on {v.device}: "
             f"{ms(run.timing.median_s) if run.timing else '?'} ms a call"
             + (f", {rate(run)}" if rate(run) else "") + peak_text(gpu_chip, run)
             + " (the CPU was not probed)")
    ev = {"workload": v.workload, "gpu": v.device, "runs": [run_evidence(r) for r in v.runs],
          **peak(gpu_chip, run)}
    return _emit(codes.PROBE_GPU_MEASURED, title, ev,
                    Remediation("Compare with the CPU",
                                (probe_cmd(s, "--workload", v.workload or "all", "--device", "all"),)))


# ---------------------------------------------------------------------------------------------
# the rules


@rule(codes.PROBE_GPU_FASTER, "The GPU is faster than the CPU",
      Severity.OK,
      "The workload ran on the GPU, matched the CPU's numbers, and its repeats were faster than "
      "the CPU's beyond the noise (an exact Mann-Whitney test on the raw repeats) and by more "
      "than 10% (the median ratio). When it won only at the larger size tried, the finding says "
      "from which size on: small workloads are latency-bound on a GPU.",
      "Nothing to do. For small models, larger batches let the GPU pull ahead.", fix_answer=NOTHING_WRONG)
def gpu_faster(s: Snapshot, d: Derived):
    return [_speed(s, v, chip(s)) for v in d.verdicts_of(gpu_faster.code)]


@rule(codes.PROBE_GPU_SLOWER, "The GPU is slower than the CPU",
      Severity.WARNING,
      "The workload ran on the GPU and matched the CPU, but its repeats were clearly slower, "
      "also at the larger size tried. Small workloads are dominated by per-op launch latency on "
      "a GPU; ops without GPU kernels fall back to the CPU and copy data back and forth; Keras "
      "2.11-2.15's new optimizers run op by op on Metal (tensorflow/tensorflow#59438).",
      "Use larger batches or models (the sweep shows where the GPU starts to win), the legacy "
      "Keras optimizers on Keras 2.11-2.15, and no jit_compile on Metal.",
      OPTIMIZER_ISSUE, fix_answer=MEASURED_ON_THE_GPU)
def gpu_slower(s: Snapshot, d: Derived):
    return [_speed(s, v, chip(s)) for v in d.verdicts_of(gpu_slower.code)]


@rule(codes.PROBE_NO_CLEAR_DIFFERENCE, "No clear speed difference between the GPU and the CPU",
      Severity.INFO,
      "The measurement cannot tell the GPU and the CPU apart, even at the larger size tried: the "
      "repeats overlap (a noisy machine: other processes, thermal throttling, a laptop on "
      "battery), there were too few repeats, or the two are within 10% of each other. It is "
      "information, not a warning: an inconclusive measurement must not fail a script run "
      "with --fail-on warning; a GPU that loses clearly is probe.gpu-slower.",
      "Measure again with more repeats and the size sweep (`tfdoctor probe --sweep --repeats "
      "15`) on an otherwise idle machine, plugged in.", fix_answer=MEASURED_ON_THE_GPU)
def no_clear_difference(s: Snapshot, d: Derived):
    return [_speed(s, v, chip(s)) for v in d.verdicts_of(no_clear_difference.code)]


@rule(codes.PROBE_CPU_ONLY, "The probes ran on the CPU only",
      Severity.INFO,
      "TensorFlow listed no GPU, so only the CPU was measured (its figures are in the "
      "evidence). Why no GPU is listed is the runtime rules' finding. An error when the GPU was "
      "asked for (`tfdoctor probe --device gpu`): nothing that was asked could be measured.",
      "See the runtime findings; on an Apple-silicon Mac, install tensorflow-metal for the "
      "installed TensorFlow.", fix_answer=A_SYMPTOM)
def cpu_only(s: Snapshot, d: Derived):
    return [_cpu_only(s, s.probes, v) for v in d.verdicts_of(cpu_only.code)]


@rule(codes.PROBE_GPU_MEASURED, "The GPU was measured without a CPU comparison",
      Severity.INFO,
      "The probes ran on the GPU only (--device gpu), so there is no CPU timing to compare "
      "with; placement and agreement were still checked (against one CPU run).",
      "Run `tfdoctor probe` with --device all to compare with the CPU.", fix_answer=MEASURED_ON_THE_GPU)
def gpu_measured(s: Snapshot, d: Derived):
    return [_gpu_measured(s, v, chip(s)) for v in d.verdicts_of(gpu_measured.code)]


_emit = emitter(gpu_faster, gpu_slower, no_clear_difference, cpu_only, gpu_measured)
