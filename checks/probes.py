"""Does TensorFlow really accelerate on this GPU? The speed probes (tfdoctor/target/workloads.py)
timed a matmul, a convolution and a Keras training step on the CPU and on each GPU, checked where
the work ran and that the GPU's numbers match the CPU's; this check turns those measurements
into findings (tfdoctor.verdict), with the achieved GFLOP/s next to the chip's peak where the
chip is known. Reads only snapshot.probes (and the host's chip)."""

from __future__ import annotations

import shlex
from typing import Any

from tfdoctor.apple_gpus import AppleGpu, lookup
from tfdoctor.checks.runtime import pair_fix
from tfdoctor.fixes import pip, python_cmd
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.probe_facts import ProbeFacts, ProbeRun
from tfdoctor.snapshot import Snapshot
from tfdoctor.target.probe_stats import ALPHA, MARGIN
from tfdoctor.verdict import SizeComparison, Verdict, judge

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
WRONG_ISSUE = "https://github.com/tensorflow/tensorflow/issues/92686"
DECISION_RULE = (f"exact one-sided Mann-Whitney test on the raw repeats at p <= {ALPHA:g}, and a "
                 f"median ratio beyond {MARGIN:.0%}; judged at the largest size measured")

CODES = {
    "probe.gpu-faster": CodeDoc(
        "The GPU is faster than the CPU",
        Severity.OK,
        "The workload ran on the GPU, matched the CPU's numbers, and its repeats were faster than "
        "the CPU's beyond the noise (an exact Mann-Whitney test on the raw repeats) and by more "
        "than 10% (the median ratio). When it won only at the larger size tried, the finding says "
        "from which size on: small workloads are latency-bound on a GPU.",
        "Nothing to do. For small models, larger batches let the GPU pull ahead.",
    ),
    "probe.no-clear-difference": CodeDoc(
        "No clear speed difference between the GPU and the CPU",
        Severity.INFO,
        "The measurement cannot tell the GPU and the CPU apart, even at the larger size tried: the "
        "repeats overlap (a noisy machine: other processes, thermal throttling, a laptop on "
        "battery), there were too few repeats, or the two are within 10% of each other. It is "
        "information, not a warning: an inconclusive measurement must not fail a script run "
        "with --fail-on warning; a GPU that loses clearly is probe.gpu-slower.",
        "Measure again with more repeats and the size sweep (`tfdoctor probe --sweep --repeats "
        "15`) on an otherwise idle machine, plugged in.",
    ),
    "probe.gpu-slower": CodeDoc(
        "The GPU is slower than the CPU",
        Severity.WARNING,
        "The workload ran on the GPU and matched the CPU, but its repeats were clearly slower, "
        "also at the larger size tried. Small workloads are dominated by per-op launch latency on "
        "a GPU; ops without GPU kernels fall back to the CPU and copy data back and forth; Keras "
        "2.11-2.15's new optimizers run op by op on Metal (tensorflow/tensorflow#59438).",
        "Use larger batches or models (the sweep shows where the GPU starts to win), the legacy "
        "Keras optimizers on Keras 2.11-2.15, and no jit_compile on Metal.",
        OPTIMIZER_ISSUE,
    ),
    "probe.gpu-not-used": CodeDoc(
        "Work pinned to the GPU ran on the CPU",
        Severity.ERROR,
        "A probe ran under tf.device('/GPU:i'), but its output's .device is the CPU (for the "
        "training step: the outputs of its Conv2D and Dense layers): soft placement moved the "
        "ops to the CPU because the GPU plugin registered no kernel for them. The GPU is listed "
        "but does nothing; every 'GPU' timing is the CPU's.",
        "Install a TensorFlow/tensorflow-metal pair known to work together (the finding names "
        "it), then run `tfdoctor probe` again.",
    ),
    "probe.gpu-wrong": CodeDoc(
        "The GPU's results differ from the CPU's",
        Severity.ERROR,
        "On identical inputs (training: identical weights), the GPU's result differs from the "
        "CPU's by more than float32 rounding allows: relative L2 error over 1e-4 for matmul, "
        "1e-3 for conv and for the training step's logits and gradients, or a non-finite value. "
        "This is a kernel bug in the GPU plugin (as in tensorflow/tensorflow#92686 and #71577); "
        "models trained on it learn from wrong numbers. It is reported on its own, as a root "
        "cause: nothing else explains it.",
        "Do not trust the GPU for this workload: run it on the CPU, try another tensorflow-metal "
        "release, and report the reproducer to Apple.",
        WRONG_ISSUE,
    ),
    "probe.failed": CodeDoc(
        "A probe raised an error inside TensorFlow",
        Severity.ERROR,
        "Running a standard workload (matmul, conv, a Keras training step) raised an exception, "
        "e.g. a missing kernel without soft placement, an XLA compiler the device lacks, or an "
        "out-of-memory error. Code doing the same in a training script fails the same way.",
        "Reproduce it with `tfdoctor probe --workload W --device gpu` and read the error; "
        "reinstall a known-good TensorFlow/plugin pair.",
    ),
    "probe.crashed": CodeDoc(
        "TensorFlow crashed while probing",
        Severity.ERROR,
        "The process running the probes died (a signal such as SIGSEGV, SIGBUS or SIGABRT inside "
        "TensorFlow or its GPU plugin, or an exit without a result) while it measured the "
        "workload named in the finding. Everything measured before the crash is kept.",
        "Reproduce it alone with `tfdoctor probe --workload W --device D`; if only the GPU "
        "crashes, reinstall a known-good tensorflow-metal, else TensorFlow.",
    ),
    "probe.timeout": CodeDoc(
        "The probes hung",
        Severity.ERROR,
        "The process running the probes did not finish before its hard timeout (about twice the "
        "time budget) and was killed with its process group, while it measured the workload "
        "named in the finding: the GPU (or TensorFlow) hung, or one call takes far longer than "
        "the budget.",
        "Run the workload alone with a larger budget (`tfdoctor probe --workload W --budget 120`) "
        "to tell a hang from a very slow device.",
    ),
    "probe.cpu-only": CodeDoc(
        "The probes ran on the CPU only",
        Severity.INFO,
        "TensorFlow listed no GPU, so only the CPU was measured (its figures are in the "
        "evidence). Why no GPU is listed is the runtime check's finding.",
        "See the runtime findings; on an Apple-silicon Mac, install tensorflow-metal for the "
        "installed TensorFlow.",
    ),
    "probe.gpu-measured": CodeDoc(
        "The GPU was measured without a CPU comparison",
        Severity.INFO,
        "The probes ran on the GPU only (--device gpu), so there is no CPU timing to compare "
        "with; placement and agreement were still checked (against one CPU run).",
        "Run `tfdoctor probe` with --device all to compare with the CPU.",
    ),
    "probe.incomplete": CodeDoc(
        "Some probes were not measured",
        Severity.INFO,
        "Measurements that did not fit in the time budget were skipped (the probes never start "
        "work after it), or a crash or a hang stopped the probes before them.",
        "Give the probes more time: `tfdoctor probe --budget 60`.",
    ),
    "probe.not-run": CodeDoc(
        "The speed probes did not run",
        Severity.INFO,
        "The probes run in the TensorFlow child after TensorFlow has imported; when the import "
        "failed, crashed or hung (or TensorFlow is not installed) there is nothing to measure. "
        "The finding that explains the import is the one to act on.",
        "Fix the import first (see the runtime findings), then `tfdoctor probe`.",
    ),
}

_WORKLOAD_SIZE = {"matmul": "n={}", "conv": "batch {}", "train": "batch {}"}


def _finding(code: str, title: str, evidence: dict[str, Any], fix: Remediation | None,
             explains: tuple[str, ...] = (), detail: str = "") -> Finding:
    return Finding(code, CODES[code].severity, title, evidence, fix, detail, explains)


def _size(workload: str | None, size: int | None) -> str:
    if workload is None or size is None:
        return ""
    return _WORKLOAD_SIZE.get(workload, "size {}").format(size)


def _dev(name: str | None) -> str:
    if not name:
        return "nowhere"
    tail = name.rsplit("/", 1)[-1]
    return tail.replace("device:", "").upper()


def _ms(seconds: float | None) -> float | None:
    return round(seconds * 1e3, 4) if seconds is not None else None


def _probe_cmd(s: Snapshot, *args: str) -> str:
    return " ".join(["tfdoctor", "probe", *args, "--python", python_cmd(s)])


def _chip(s: Snapshot) -> AppleGpu | None:
    return lookup(s.host.chip) or lookup(s.host.cpu_brand)


def _peak(gpu: AppleGpu | None, run: ProbeRun) -> dict[str, Any]:
    """Achieved GFLOP/s against the chip's FP32 peak (matmul and conv: their FLOPs are exact)."""
    if gpu is None or not run.gflops or run.workload == "train":
        return {}
    low, high = gpu.fraction_of_peak(run.gflops)
    return {"chip": gpu.chip, "chip_fp32_peak_tflops": list(gpu.fp32_tflops),
            "chip_gpu_cores": list(gpu.gpu_cores), "chip_peak_is_estimate": gpu.fp32_estimate,
            "fraction_of_peak": [round(low, 4), round(high, 4)]}


def _peak_text(gpu: AppleGpu | None, run: ProbeRun) -> str:
    if gpu is None or not run.gflops or run.workload == "train":
        return ""
    low, high = gpu.fraction_of_peak(run.gflops)
    share = _pct(low) if _pct(low) == _pct(high) else f"{_pct(low)}-{_pct(high)}"
    return f"; {share} of the {gpu.chip}'s {gpu.peak_text()}"


def _pct(x: float) -> str:
    """0.71 -> "71%", 0.0072 -> "0.72%"."""
    return f"{x:.0%}" if x >= 0.1 else f"{x * 100:.2g}%"


def _rate(run: ProbeRun) -> str:
    if run.workload == "train":
        return f"{_num(run.samples_per_s)} samples/s" if run.samples_per_s else ""
    return f"{_num(run.gflops)} GFLOP/s" if run.gflops else ""


def _num(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def _run_evidence(run: ProbeRun) -> dict[str, Any]:
    t = run.timing
    ev: dict[str, Any] = {"device": run.device, "size": run.size, "role": run.role, "shape": run.shape,
                          "placed_on": run.placed_on}
    if t is not None:
        ev.update({
            "median_ms": _ms(t.median_s), "iqr_ms": _ms(t.iqr_s), "min_ms": _ms(t.min_s),
            "max_ms": _ms(t.max_s), "first_call_ms": _ms(t.first_call_s),
            "calls_per_repeat": t.number, "per_call_ms": [_ms(v) for v in t.per_call_s],
            "warmup_ms": [_ms(v) for v in t.warmup_s], "budget_limited": t.budget_limited,
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
                           "ok": run.agreement.ok}
    return ev


def _comparison_evidence(comp: SizeComparison) -> dict[str, Any]:
    st = comp.stats
    return {"size": comp.size, "role": comp.role, "decision": comp.decision,
            "speedup": round(st["speedup"], 4),
            "speedup_range": [round(st["speedup_low"], 4), round(st["speedup_high"], 4)],
            "p_faster": round(st["p_faster"], 6), "p_slower": round(st["p_slower"], 6),
            "repeats": [st["n_cpu"], st["n_gpu"]], "reason": st["reason"],
            "cpu_median_ms": _ms(comp.cpu.timing.median_s), "gpu_median_ms": _ms(comp.gpu.timing.median_s)}


def _times(speedup: float) -> str:
    if speedup >= 1:
        return f"{speedup:.1f}x faster"
    return f"{1 / speedup:.1f}x slower" if speedup > 0 else "infinitely slower"


def _pair_fix(s: Snapshot) -> tuple[tuple[str, ...], str]:
    """Requirements of a TensorFlow/tensorflow-metal pair that works (the runtime check's
    matrix logic), on a Mac or wherever tensorflow-metal is installed."""
    if not s.package("tensorflow-metal") and not (s.host.system == "Darwin" and s.host.hw_arm64):
        return (), ""
    reqs, why, _facts = pair_fix(s)
    return tuple(reqs), why


# ---------------------------------------------------------------------------------------------


def _speed(s: Snapshot, v: Verdict, chip: AppleGpu | None) -> Finding:
    comp = v.deciding
    assert comp is not None
    workload, gpu = v.workload or "", v.device or "GPU"
    main = v.comparisons[0]
    st = comp.stats
    at = _size(workload, comp.size)
    rates = f"{_rate(comp.gpu)} vs {_rate(comp.cpu)}".strip() if _rate(comp.gpu) else ""
    peak = _peak_text(chip, comp.gpu)
    if v.code == "probe.gpu-faster":
        title = f"{workload} {at}: {gpu} is {_times(comp.speedup)} than the CPU"
        if comp is not main and len(v.comparisons) > 1 and main.decision != "faster":
            title += f" (not at {_size(workload, main.size)}: {main.speedup:.2f}x)"
    elif v.code == "probe.gpu-slower":
        title = f"{workload} {at}: {gpu} is {_times(comp.speedup)} than the CPU"
        if comp is not main:
            title += f" (at {_size(workload, main.size)} too: {_times(main.speedup)})"
    else:
        title = (f"{workload} {at}: no clear difference between {gpu} and the CPU "
                 f"({comp.speedup:.2f}x; {st['reason']})")
    if rates:
        title += f" [{rates}{peak}]"
    if v.wins_at is not None and v.code != "probe.gpu-faster":
        title += f"; the GPU wins from {_size(workload, v.wins_at)}"
    ev: dict[str, Any] = {
        "workload": workload, "gpu": gpu, "decision_rule": DECISION_RULE,
        "decided_at": _comparison_evidence(comp),
        "sizes": [_comparison_evidence(c) for c in v.comparisons],
        "wins_at": v.wins_at, "cpu": _run_evidence(comp.cpu), "gpu_run": _run_evidence(comp.gpu),
        **_peak(chip, comp.gpu),
    }
    if v.notes:
        ev["notes"] = list(v.notes)
    fix = None
    explains: tuple[str, ...] = ()
    if v.code == "probe.gpu-slower":
        text = (f"The GPU loses on {workload} even at {at}. Small workloads are latency-bound on a "
                "GPU: use larger batches or models (the sweep shows where the GPU starts to win)")
        link = None
        if workload == "train":
            optimizer = comp.gpu.optimizer or ""
            keras3 = bool(s.runtime and s.runtime.keras and s.runtime.keras.is_keras3)
            if "legacy" in optimizer:
                text += "; this step already used a legacy Keras optimizer"
            elif not keras3:
                text += ("; on Keras 2.11-2.15 use the legacy optimizer (tf.keras.optimizers.legacy.Adam): "
                         "the new ones run op by op on Metal (tensorflow/tensorflow#59438)")
                link = OPTIMIZER_ISSUE
        text += "; keep jit_compile off on Metal"
        fix = Remediation(text, (_probe_cmd(s, "--workload", workload, "--sweep"),), link)
    elif v.code == "probe.no-clear-difference":
        fix = Remediation("Measure again on an idle machine (plugged in), with more repeats and "
                          "the size sweep",
                          (_probe_cmd(s, "--workload", workload, "--sweep", "--repeats", "15"),))
    detail = ""
    if len(v.comparisons) > 1:
        detail = "; ".join(f"{_size(workload, c.size)}: GPU {_times(c.speedup)} ({c.decision})"
                           for c in v.comparisons)
    return _finding(v.code, title, ev, fix, explains, detail)


def _not_used(s: Snapshot, v: Verdict) -> Finding:
    run = v.runs[0]
    workload, gpu = v.workload or "", v.device or "GPU"
    ran = _dev(run.placed_on)
    if workload == "train":
        where = ", ".join(f"{k} on {_dev(d)}" for k, d in run.placement.items()
                          if k in ("conv1", "conv2", "dense"))
        title = f"The training step's Conv2D and Dense layers pinned to {gpu} ran elsewhere ({where})"
    else:
        title = f"{workload} {_size(workload, run.size)} pinned to {gpu} ran on {ran}"
    title += ": the GPU is listed but the work never reaches it"
    ev = {"workload": workload, "gpu": gpu, "runs": [_run_evidence(r) for r in v.runs],
          "placement": run.placement, "inputs": run.inputs}
    reqs, why = _pair_fix(s)
    if reqs:
        fix = Remediation(f"Install a TensorFlow/tensorflow-metal pair known to work{': ' + why if why else ''}, "
                          "then probe again",
                          (pip(s, "install", "--force-reinstall", *reqs),
                           _probe_cmd(s, "--workload", workload, "--device", "gpu")))
    else:
        fix = Remediation("The GPU plugin registers no kernel for these ops: reinstall the plugin "
                          "that matches this TensorFlow, then probe again",
                          (_probe_cmd(s, "--workload", workload, "--device", "gpu"),))
    return _finding("probe.gpu-not-used", title, ev, fix,
                    explains=("probe.gpu-slower", "probe.no-clear-difference"))


def _wrong(s: Snapshot, v: Verdict) -> Finding:
    run = v.runs[0]
    workload, gpu = v.workload or "", v.device or "GPU"
    agreement = run.agreement
    if run.loss_finite is False or (agreement is not None and not agreement.finite):
        what = "non-finite values" + (f" (loss {run.loss_first} -> {run.loss_last})"
                                      if workload == "train" else "")
    else:
        worst = max(((k, x) for k, x in (agreement.values if agreement else {}).items()
                     if k != "loss" and x is not None), key=lambda kv: kv[1], default=("output", None))
        what = (f"a relative error of {worst[1]:.2g} in the {worst[0]}"
                f" (tolerance {agreement.tolerance:g})" if worst[1] is not None and agreement else "wrong values")
    title = f"{gpu} computes {workload} {_size(workload, run.size)} wrong: {what} against the CPU"
    ev = {"workload": workload, "gpu": gpu, "runs": [_run_evidence(r) for r in v.runs],
          "metric": "relative L2 error ||gpu - cpu|| / ||cpu|| on identical inputs"}
    py = python_cmd(s)
    snippet = None
    if workload in ("matmul", "conv"):
        op = "tf.linalg.matmul(a, b)" if workload == "matmul" else 'tf.nn.conv2d(a, b, 1, "SAME")'
        shapes = ((512, 512), (512, 512)) if workload == "matmul" else ((8, 64, 64, 32), (3, 3, 32, 64))
        snippet = "\n".join((
            "import tensorflow as tf",
            f"a = tf.random.uniform({shapes[0]}, -1, 1); b = tf.random.uniform({shapes[1]}, -1, 1)",
            f'with tf.device("/CPU:0"): c = {op}',
            f'with tf.device("/{gpu}"): g = {op}',
            'print("ran on", g.device, "relative error", float(tf.norm(g - c) / tf.norm(c)))',
        ))
    commands = tuple(c for c in (
        f"{py} -c {shlex.quote(snippet)}" if snippet else None,
        _probe_cmd(s, "--workload", workload, "--device", "all"),
    ) if c)
    fix = Remediation(
        f"Do not trust {gpu} for {workload}: run it on the CPU (with tf.device('/CPU:0'), or "
        "tf.config.set_visible_devices([], 'GPU') first thing), try another tensorflow-metal "
        "release, and report the reproducer below to Apple (developer forums, tensorflow-metal)",
        commands, WRONG_ISSUE)
    return _finding("probe.gpu-wrong", title, ev, fix)


def _failed(s: Snapshot, v: Verdict) -> Finding:
    if not v.runs:
        note = v.notes[0] if v.notes else "unknown error"
        return _finding("probe.failed", f"The probes stopped early: {note}"[:300], {"error": note},
                        Remediation("Run the probes alone to see the error",
                                    (_probe_cmd(s, "--workload", "all"),)))
    run = v.runs[0]
    phase = {"setup": "setting up", "warmup": "running", "verify": "checking its result"}.get(
        run.error_phase or "", "running")
    first = ((run.error or "").strip().splitlines() or [""])[0][:240]
    title = f"{v.workload} {_size(v.workload, run.size)} failed on {v.device} while {phase}: {first}"
    ev = {"workload": v.workload, "device": v.device, "error": run.error, "error_type": run.error_type,
          "phase": run.error_phase, "traceback": run.error_traceback,
          "runs": [_run_evidence(r) for r in v.runs]}
    text = "Reproduce it alone and read the error"
    if "compiler for platform" in (run.error or "") or "XLA" in (run.error or ""):
        text += "; XLA is not available on Metal: turn jit_compile off"
    fix = Remediation(text, (_probe_cmd(s, "--workload", v.workload or "all", "--device",
                                        "gpu" if v.device and v.device.startswith("GPU") else "cpu"),))
    return _finding("probe.failed", title, ev, fix)


def _stopped(s: Snapshot, facts: ProbeFacts, v: Verdict) -> Finding:
    current = facts.current
    doing = (f"{current.workload} {_size(current.workload, current.size)} on {current.device} "
             f"({current.phase})" if current else "probing")
    ev = {"outcome": facts.outcome, "message": facts.message, "signal": facts.signal,
          "returncode": facts.returncode, "duration_s": facts.duration_s, "timeout_s": facts.timeout_s,
          "current": {"workload": current.workload, "device": current.device, "size": current.size,
                      "phase": current.phase} if current else None,
          "measured_before": [f"{r.workload} {r.size} {r.device}" for r in facts.runs if r.measured],
          "stderr": [line[:300] for line in facts.stderr_tail.strip().splitlines()[-8:]]}
    workload = current.workload if current else "all"
    device = "gpu" if current and current.device.startswith("GPU") else "cpu"
    if v.code == "probe.crashed":
        how = f"({facts.signal})" if facts.signal else (
            f"(exit code {facts.returncode})" if facts.returncode not in (None, 0) else "")
        title = f"TensorFlow crashed {how} while running {doing}".replace("  ", " ")
        fix = Remediation(
            "Reproduce it alone; if only the GPU crashes, reinstall a known-good tensorflow-metal, "
            "else TensorFlow",
            (_probe_cmd(s, "--workload", workload, "--device", device),
             _probe_cmd(s, "--workload", workload, "--device", "cpu")))
    else:
        title = (f"The probes hung: {doing} did not finish within "
                 f"{facts.timeout_s:g} s" if facts.timeout_s else f"The probes hung while running {doing}")
        fix = Remediation("Run the workload alone with a larger budget to tell a hang from a very "
                          "slow device",
                          (_probe_cmd(s, "--workload", workload, "--device", device, "--budget", "120"),))
    return _finding(v.code, title, ev, fix, explains=("probe.incomplete",))


def _cpu_only(s: Snapshot, facts: ProbeFacts, v: Verdict) -> Finding:
    main = [r for r in v.runs if r.role == "main"] or list(v.runs)
    figures = ", ".join(f"{r.workload} {_rate(r)}" for r in main if _rate(r))
    title = ("No GPU to probe: the probes ran on the CPU only" + (f" ({figures})" if figures else "")
             if v.runs else "No GPU to probe: TensorFlow lists none, so nothing was measured")
    ev = {"gpus": facts.gpus, "devices": facts.devices, "runs": [_run_evidence(r) for r in v.runs]}
    fix = None
    if facts.config and facts.config.devices == "gpu":
        fix = Remediation("TensorFlow lists no GPU; the runtime findings say why",
                          (f"tfdoctor check --python {python_cmd(s)}",))
    return _finding("probe.cpu-only", title, ev, fix)


def _gpu_measured(s: Snapshot, v: Verdict, chip: AppleGpu | None) -> Finding:
    run = v.runs[0]
    title = (f"{v.workload} {_size(v.workload, run.size)} on {v.device}: "
             f"{_ms(run.timing.median_s) if run.timing else '?'} ms a call"
             + (f", {_rate(run)}" if _rate(run) else "") + _peak_text(chip, run)
             + " (the CPU was not probed)")
    ev = {"workload": v.workload, "gpu": v.device, "runs": [_run_evidence(r) for r in v.runs],
          **_peak(chip, run)}
    return _finding("probe.gpu-measured", title, ev,
                    Remediation("Compare with the CPU",
                                (_probe_cmd(s, "--workload", v.workload or "all", "--device", "all"),)))


def _incomplete(s: Snapshot, facts: ProbeFacts, v: Verdict) -> Finding:
    names = [f"{r.workload} {_size(r.workload, r.size)} on {r.device}" for r in v.runs]
    budget = facts.budget_s
    title = (f"{len(names)} measurement(s) were not taken"
             + (f" within the {budget:g} s budget" if budget and facts.outcome == "ok" else "")
             + f": {', '.join(names[:4])}" + (" ..." if len(names) > 4 else ""))
    ev = {"skipped": [{"workload": r.workload, "device": r.device, "size": r.size, "role": r.role,
                       "why": r.skipped} for r in v.runs], "budget_s": budget,
          "elapsed_s": facts.elapsed_s}
    more = str(int(max(60.0, 2 * (budget or 30.0))))
    return _finding("probe.incomplete", title, ev,
                    Remediation("Give the probes more time", (_probe_cmd(s, "--budget", more),)))


def run(s: Snapshot) -> list[Finding]:
    facts = s.probes
    assert facts is not None
    if facts.outcome == "not-run":
        return [Finding("probe.not-run", Severity.INFO, facts.message or CODES["probe.not-run"].title,
                        {"outcome": facts.outcome, "message": facts.message})]
    chip = _chip(s)
    findings: list[Finding] = []
    for v in judge(facts):
        if v.code in ("probe.gpu-faster", "probe.gpu-slower", "probe.no-clear-difference"):
            findings.append(_speed(s, v, chip))
        elif v.code == "probe.gpu-not-used":
            findings.append(_not_used(s, v))
        elif v.code == "probe.gpu-wrong":
            findings.append(_wrong(s, v))
        elif v.code == "probe.failed":
            findings.append(_failed(s, v))
        elif v.code in ("probe.crashed", "probe.timeout"):
            findings.append(_stopped(s, facts, v))
        elif v.code == "probe.cpu-only":
            findings.append(_cpu_only(s, facts, v))
        elif v.code == "probe.gpu-measured":
            findings.append(_gpu_measured(s, v, chip))
        elif v.code == "probe.incomplete":
            findings.append(_incomplete(s, facts, v))
    return findings


CHECK = Check(
    name="probes",
    area="GPU speed probes",
    summary="matmul, conv and a Keras training step are faster on the GPU, run there, and match the CPU",
    run=run,
    codes=CODES,
    needs=("probes",),
    order=80,
)
