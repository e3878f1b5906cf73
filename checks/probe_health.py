"""Did the probes run, run where they were sent, and compute the right numbers? A GPU that is
listed but not used, results that differ from the CPU's, a probe that crashed, hung or failed, or
probes that never ran: the verdicts of tfdoctor.derived.probe_verdicts other than speed, stated as findings."""

from __future__ import annotations

import shlex

from tfdoctor import codes
from tfdoctor.advice.commands import pip, python_cmd
from tfdoctor.advice.fix_answers import A_SYMPTOM, ABOUT_THE_FACTS, MEASURED_ON_THE_GPU
from tfdoctor.advice.probe_evidence import (
    dev,
    probe_cmd,
    probe_pair_fix,
    run_evidence,
    size,
)
from tfdoctor.derived import Derived
from tfdoctor.derived.probe_verdicts import Verdict
from tfdoctor.facts.probes import ProbeFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.inside.shared.probe_stats import ALPHA, MARGIN
from tfdoctor.inside.shared.workloads import KINDS, is_training_step
from tfdoctor.model import Finding, Remediation, Severity, emitter, rule

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
WRONG_ISSUE = "https://github.com/tensorflow/tensorflow/issues/92686"
DECISION_RULE = (f"exact one-sided Mann-Whitney test on the raw repeats at p <= {ALPHA:g}, and a "
                 f"median ratio beyond {MARGIN:.0%}; judged at the largest size measured")


def _not_used(s: Snapshot, v: Verdict) -> Finding:
    run = v.runs[0]
    workload, gpu = v.workload or "", v.device or "GPU"
    ran = dev(run.placed_on)
    if is_training_step(workload):
        where = ", ".join(f"{k} on {dev(d)}" for k, d in run.placement.items()
                          if k in ("conv1", "conv2", "dense"))
        title = f"The training step's Conv2D and Dense layers pinned to {gpu} ran elsewhere ({where})"
    else:
        title = f"{workload} {size(workload, run.size)} pinned to {gpu} ran on {ran}"
    title += ": the GPU is listed but the work never reaches it"
    ev = {"workload": workload, "gpu": gpu, "runs": [run_evidence(r) for r in v.runs],
          "placement": run.placement, "inputs": run.inputs}
    reqs, why = probe_pair_fix(s)
    if reqs:
        fix = Remediation(f"Install a TensorFlow/tensorflow-metal pair known to work{': ' + why if why else ''}, "
                          "then probe again",
                          (pip(s, "install", "--force-reinstall", *reqs),
                           probe_cmd(s, "--workload", workload, "--device", "gpu")))
    else:
        fix = Remediation("The GPU plugin registers no kernel for these ops: reinstall the plugin "
                          "that matches this TensorFlow, then probe again",
                          (probe_cmd(s, "--workload", workload, "--device", "gpu"),))
    return _emit(codes.PROBE_GPU_NOT_USED, title, ev, fix,
                    explains=(codes.PROBE_GPU_SLOWER, codes.PROBE_NO_CLEAR_DIFFERENCE))


def _wrong(s: Snapshot, v: Verdict) -> Finding:
    run = v.runs[0]
    workload, gpu = v.workload or "", v.device or "GPU"
    agreement = run.agreement
    if run.loss_finite is False or (agreement is not None and not agreement.finite):
        what = "non-finite values" + (f" (loss {run.loss_first} -> {run.loss_last})"
                                      if is_training_step(workload) else "")
    else:
        worst = agreement.worst() if agreement else None
        what = (f"a relative error of {worst[1]:.2g} in the {worst[0]}"
                f" (tolerance {agreement.tolerance_of(worst[0]):.2g})" if worst else "wrong values")
    title = f"{gpu} computes {workload} {size(workload, run.size)} wrong: {what} against the CPU"
    ev = {"workload": workload, "gpu": gpu, "runs": [run_evidence(r) for r in v.runs],
          "metric": "relative L2 error ||gpu - cpu|| / ||cpu|| on identical inputs"}
    py = python_cmd(s)
    snippet = None
    reproducer = getattr(KINDS.get(workload), "reproducer", None)
    if reproducer:
        op, shapes = reproducer
        snippet = "\n".join((
            "import tensorflow as tf",
            f"a = tf.random.uniform({shapes[0]}, -1, 1); b = tf.random.uniform({shapes[1]}, -1, 1)",
            f'with tf.device("/CPU:0"): c = {op}',
            f'with tf.device("/{gpu}"): g = {op}',
            'print("ran on", g.device, "relative error", float(tf.norm(g - c) / tf.norm(c)))',
        ))
    commands = tuple(c for c in (
        f"{py} -c {shlex.quote(snippet)}" if snippet else None,
        probe_cmd(s, "--workload", workload, "--device", "all"),
    ) if c)
    fix = Remediation(
        f"Do not trust {gpu} for {workload}: run it on the CPU (with tf.device('/CPU:0'), or "
        "tf.config.set_visible_devices([], 'GPU') first thing), try another tensorflow-metal "
        "release, and report the reproducer below to Apple (developer forums, tensorflow-metal)",
        commands, WRONG_ISSUE)
    return _emit(codes.PROBE_GPU_WRONG, title, ev, fix)


def _failed(s: Snapshot, v: Verdict) -> Finding:
    if not v.runs:
        note = v.notes[0] if v.notes else "unknown error"
        return _emit(codes.PROBE_FAILED, f"The probes stopped early: {note}"[:300], {"error": note},
                        Remediation("Run the probes alone to see the error",
                                    (probe_cmd(s, "--workload", "all"),)))
    run = v.runs[0]
    phase = {"setup": "setting up", "warmup": "running", "verify": "checking its result"}.get(
        run.error_phase or "", "running")
    first = ((run.error or "").strip().splitlines() or [""])[0][:240]
    title = f"{v.workload} {size(v.workload, run.size)} failed on {v.device} while {phase}: {first}"
    ev = {"workload": v.workload, "device": v.device, "error": run.error, "error_type": run.error_type,
          "phase": run.error_phase, "traceback": run.error_traceback,
          "runs": [run_evidence(r) for r in v.runs]}
    text = "Reproduce it alone and read the error"
    if "compiler for platform" in (run.error or "") or "XLA" in (run.error or ""):
        text += "; XLA is not available on Metal: turn jit_compile off"
    fix = Remediation(text, (probe_cmd(s, "--workload", v.workload or "all", "--device",
                                        "gpu" if v.device and v.device.startswith("GPU") else "cpu"),))
    return _emit(codes.PROBE_FAILED, title, ev, fix)


def _stopped(s: Snapshot, facts: ProbeFacts, v: Verdict) -> Finding:
    current = facts.current
    doing = (f"{current.workload} {size(current.workload, current.size)} on {current.device} "
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
            (probe_cmd(s, "--workload", workload, "--device", device),
             probe_cmd(s, "--workload", workload, "--device", "cpu")))
    else:
        title = (f"The probes hung: {doing} did not finish within "
                 f"{facts.timeout_s:g} s" if facts.timeout_s else f"The probes hung while running {doing}")
        fix = Remediation("Run the workload alone with a larger budget to tell a hang from a very "
                          "slow device",
                          (probe_cmd(s, "--workload", workload, "--device", device, "--budget", "120"),))
    return _emit(v.code, title, ev, fix, explains=(codes.PROBE_INCOMPLETE,))


def _incomplete(s: Snapshot, facts: ProbeFacts, v: Verdict) -> Finding:
    names = [f"{r.workload} {size(r.workload, r.size)} on {r.device}" for r in v.runs]
    budget = facts.budget_s
    title = (f"{len(names)} measurement(s) were not taken"
             + (f" within the {budget:g} s budget" if budget and facts.outcome == "ok" else "")
             + f": {', '.join(names[:4])}" + (" ..." if len(names) > 4 else ""))
    ev = {"skipped": [{"workload": r.workload, "device": r.device, "size": r.size, "role": r.role,
                       "why": r.skipped} for r in v.runs], "budget_s": budget,
          "elapsed_s": facts.elapsed_s}
    more = str(int(max(60.0, 2 * (budget or 30.0))))
    return _emit(codes.PROBE_INCOMPLETE, title, ev,
                    Remediation("Give the probes more time", (probe_cmd(s, "--budget", more),)))


# ---------------------------------------------------------------------------------------------
# the rules


@rule(codes.PROBE_NOT_RUN, "The speed probes did not run",
      Severity.INFO,
      "The probes run in the TensorFlow child after TensorFlow has imported; when the import "
      "failed, crashed or hung (or TensorFlow is not installed) there is nothing to measure. "
      "The finding that explains the import is the one to act on.",
      "Fix the import first (see the runtime findings), then `tfdoctor probe`.", fix_answer=ABOUT_THE_FACTS)
def not_run(s: Snapshot, d: Derived):
    facts = s.probes
    if facts.outcome != "not-run":
        return None
    title = facts.message or not_run.doc.title
    if not d.providers and not d.shims and s.runtime is not None and s.runtime.outcome != "ok":
        title = "The probes did not run: TensorFlow is not installed"  # as runtime.not-installed says
    return not_run.finding({"outcome": facts.outcome, "message": facts.message}, title=title)


@rule(codes.PROBE_GPU_NOT_USED, "Work pinned to the GPU ran on the CPU",
      Severity.ERROR,
      "A probe ran under tf.device('/GPU:i'), but its output's .device is the CPU (for the "
      "training step: the outputs of its Conv2D and Dense layers): soft placement moved the "
      "ops to the CPU because the GPU plugin registered no kernel for them. The GPU is listed "
      "but does nothing; every 'GPU' timing is the CPU's.",
      "Install a TensorFlow/tensorflow-metal pair known to work together (the finding names "
      "it), then run `tfdoctor probe` again.", fix_answer=A_SYMPTOM)
def gpu_not_used(s: Snapshot, d: Derived):
    return [_not_used(s, v) for v in d.verdicts_of(gpu_not_used.code)]


@rule(codes.PROBE_GPU_WRONG, "The GPU's results differ from the CPU's",
      Severity.ERROR,
      "On identical inputs (training: identical weights), the GPU's result differs from the "
      "CPU's by more than float32 rounding allows: relative L2 error over 1e-4 for matmul, "
      "1e-3 for conv and for the training step's logits and Dense(bias, relu) check; for each of "
      "its gradients, which pass ReLU and max-pooling kinks, over max(0.05, 30 x sqrt(the "
      "logits' error)), at most 0.3; or a non-finite value. This is a kernel bug in the GPU plugin (as in tensorflow/tensorflow#92686 and #71577); "
      "models trained on it learn from wrong numbers. It is reported on its own, as a root "
      "cause: nothing else explains it.",
      "Do not trust the GPU for this workload: run it on the CPU, try another tensorflow-metal "
      "release, and report the reproducer to Apple.",
      WRONG_ISSUE, fix_answer=MEASURED_ON_THE_GPU)
def gpu_wrong(s: Snapshot, d: Derived):
    return [_wrong(s, v) for v in d.verdicts_of(gpu_wrong.code)]


@rule(codes.PROBE_FAILED, "A probe raised an error inside TensorFlow",
      Severity.ERROR,
      "Running a standard workload (matmul, conv, a Keras training step) raised an exception, "
      "e.g. a missing kernel without soft placement, an XLA compiler the device lacks, or an "
      "out-of-memory error. Code doing the same in a training script fails the same way.",
      "Reproduce it with `tfdoctor probe --workload W --device gpu` and read the error; "
      "reinstall a known-good TensorFlow/plugin pair.", fix_answer=MEASURED_ON_THE_GPU)
def failed(s: Snapshot, d: Derived):
    return [_failed(s, v) for v in d.verdicts_of(failed.code)]


@rule(codes.PROBE_CRASHED, "TensorFlow crashed while probing",
      Severity.ERROR,
      "The process running the probes died (a signal such as SIGSEGV, SIGBUS or SIGABRT inside "
      "TensorFlow or its GPU plugin, or an exit without a result) while it measured the "
      "workload named in the finding. Everything measured before the crash is kept.",
      "Reproduce it alone with `tfdoctor probe --workload W --device D`; if only the GPU "
      "crashes, reinstall a known-good tensorflow-metal, else TensorFlow.", fix_answer=MEASURED_ON_THE_GPU)
def crashed(s: Snapshot, d: Derived):
    return [_stopped(s, s.probes, v) for v in d.verdicts_of(crashed.code)]


@rule(codes.PROBE_TIMEOUT, "The probes hung",
      Severity.ERROR,
      "The process running the probes did not finish before its hard timeout (about twice the "
      "time budget) and was killed with its process group, while it measured the workload "
      "named in the finding: the GPU (or TensorFlow) hung, or one call takes far longer than "
      "the budget.",
      "Run the workload alone with a larger budget (`tfdoctor probe --workload W --budget 120`) "
      "to tell a hang from a very slow device.", fix_answer=MEASURED_ON_THE_GPU)
def timeout(s: Snapshot, d: Derived):
    return [_stopped(s, s.probes, v) for v in d.verdicts_of(timeout.code)]


@rule(codes.PROBE_INCOMPLETE, "Some probes were not measured",
      Severity.INFO,
      "Measurements that did not fit in the time budget were skipped (the probes never start "
      "work after it), or a crash or a hang stopped the probes before them.",
      "Give the probes more time: `tfdoctor probe --budget 60`.", fix_answer=ABOUT_THE_FACTS)
def incomplete(s: Snapshot, d: Derived):
    return [_incomplete(s, s.probes, v) for v in d.verdicts_of(incomplete.code)]


_emit = emitter(not_run, gpu_not_used, gpu_wrong, failed, crashed, timeout, incomplete)
