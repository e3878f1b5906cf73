"""Does the user's model really run on the GPU, and faster? The ops of the model that have no GPU
kernel (TensorFlow's own registry where a GPU is present, else predicted from the kernel table
of a tensorflow-metal release), those that really ran on the CPU, the CPU-vs-GPU verdict on the
model's own inference and training step (checks/model_settings.py has the settings that break
or slow Metal). Reads snapshot.model, and for the CPU-vs-GPU verdict without one, the timings
a pasted text gives (tfdoctor.derived.text_speed)."""

from __future__ import annotations

from typing import Any

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_CODE, ABOUT_THE_FACTS, NOTHING_WRONG
from tfdoctor.advice.probe_evidence import probe_cmd, times
from tfdoctor.derived import Derived
from tfdoctor.derived.text_speed import APART, text_speed
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.user_model import ModelFacts, OpFallback, Timing
from tfdoctor.inside.shared.probe_stats import ALPHA, FASTER, MARGIN, SLOWER, UNCLEAR
from tfdoctor.model import Finding, Remediation, Rule, Severity, rule

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
LSTM_ISSUE = "https://github.com/tensorflow/tensorflow/issues/56782"
"""An LSTM training far slower on the Metal GPU than on the CPU."""
DECISION_RULE = (f"exact one-sided Mann-Whitney test on the raw repeats at p <= {ALPHA:g}, and a "
                 f"median ratio beyond {MARGIN:.0%}")

REPLACEMENTS = (
    ("Einsum", "MultiHeadAttention and EinsumDense run tf.einsum on Keras 2 (tf.keras <= 2.15, "
               "tf-keras); Keras 3's TensorFlow backend turns these einsums into MatMul and "
               "BatchMatMulV2, which have Metal kernels (keras/src/backend/tensorflow/numpy.py)"),
    ("Erfc", "exact gelu: use gelu with approximate=True, whose tanh form runs Tanh, Pow and Mul "
             "(Metal kernels)"),
    ("Elu", "use relu, leaky_relu or swish instead (Relu, LeakyRelu, Sigmoid and Mul have Metal "
            "kernels)"),
    ("Selu", "use relu, leaky_relu or swish instead"),
    ("Softplus", "use relu, leaky_relu or swish instead"),
    ("Softsign", "use tanh instead (Tanh has a Metal kernel)"),
    ("StatelessRandom", "Dropout and random augmentation draw stateless random numbers (in "
                        "training only): apply augmentation in the tf.data pipeline (dataset.map "
                        "runs on the CPU), or place the layer on the CPU"),
    ("RandomUniform", "apply random augmentation in the tf.data pipeline (on the CPU)"),
)
"""Advice per op (prefix) without a Metal kernel; the replacement ops named have kernels in
tensorflow-metal 1.2.0's table (tests/rules/test_model_speed.py checks it)."""


def _advice(op: str) -> str:
    for prefix, text in REPLACEMENTS:
        if op.startswith(prefix):
            return text
    return "run that layer on the CPU (`with tf.device('/CPU:0'):` around it) or replace it"


def _group(found: list[OpFallback]) -> dict[tuple[str, str | None], list[str]]:
    groups: dict[tuple[str, str | None], list[str]] = {}
    for f in found:
        layers = groups.setdefault((f.op, f.dtype), [])
        if f.layer not in layers:
            layers.append(f.layer)
    return groups


def _fallback_evidence(found: list[OpFallback]) -> list[dict[str, Any]]:
    return [{"op": f.op, "dtype": f.dtype, "layer": f.layer, "graph": f.graph, "count": f.count,
             "example": f.example} for f in found]


def _where(m: ModelFacts) -> str:
    source = m.fallback_source or ""
    if source == "registry":
        return "in this machine's GPU plugin"
    return f"in tensorflow-metal {source.split(':', 1)[1]} (predicted from its kernel table)"


@rule(codes.MODEL_CPU_FALLBACK, "Ops of the model run on the CPU", Severity.WARNING,
      "Every op of the model's inference and training graphs was looked up, with its layer and "
      "dtype: where a GPU is present, in the kernels TensorFlow registered after loading the "
      "plugin, and the ops that really ran on the CPU with the model pinned to the GPU were "
      "read from the executed graphs; without a Metal GPU (Linux, an Intel Mac, CI) the same "
      "list is predicted from the kernel table read from the named tensorflow-metal release's "
      "binary. An op without a GPU kernel runs on the CPU, and its inputs and outputs are "
      "copied between the devices on every step. Integer shape arithmetic is kept in host "
      "memory on every GPU and is not counted.",
      "For each op the finding names the layer and the fix: a replacement with Metal kernels, "
      "or that layer placed on the CPU.", fix_answer=ABOUT_THE_CODE, needs=("model",))
def cpu_fallback(s: Snapshot, d: Derived):
    m = s.model
    if not m.fallbacks and not m.ran_on_cpu:
        return None
    groups = _group(m.fallbacks or m.ran_on_cpu)
    shown = "; ".join(f"{op}{':' + dtype if dtype else ''} in {', '.join(layers[:3])}"
                      + (f" and {len(layers) - 3} more" if len(layers) > 3 else "")
                      for (op, dtype), layers in sorted(groups.items()))
    where = _where(m) if m.fallbacks else "on this machine"
    ev = {"source": m.fallback_source, "plugin_kernels": _fallback_evidence(m.fallbacks),
          "ran_on_cpu": _fallback_evidence(m.ran_on_cpu), "host_ops": m.host_ops,
          "ops_total": m.ops_total}
    by_advice: dict[str, tuple[list[str], set[str]]] = {}
    for (op, _), layers in sorted(groups.items()):
        ops, where_ = by_advice.setdefault(_advice(op), ([], set()))
        if op not in ops:
            ops.append(op)
        where_.update(layers)
    advice = [f"{', '.join(ops)} ({', '.join(sorted(layers)[:3])}): {text}"
              for text, (ops, layers) in by_advice.items()]
    again = list(m.probe_args())
    if (m.fallback_source or "").startswith("table:"):
        again += ["--plugin", (m.fallback_source or "").split(":", 1)[1]]
    fix = Remediation("; ".join(advice), (probe_cmd(s, *again),))
    observed = bool(m.ran_on_cpu) or m.fallback_source == "registry"
    title = (f"{len(groups)} op type{'s' if len(groups) != 1 else ''} of the model "
             f"{'have' if len(groups) != 1 else 'has'} no GPU kernel {where}: {shown}")
    if m.ran_on_cpu:
        ran = sorted({f.op for f in m.ran_on_cpu})
        title += f" (ran on the CPU with the model pinned to the GPU: {', '.join(ran)})"
    return cpu_fallback.finding(ev, fix, title=title, basis="observed" if observed else "table",
                                explains=(codes.MODEL_GPU_SLOWER,) if m.ran_on_cpu else ())


@rule(codes.MODEL_FLOAT16_FALLBACK, "Mixed precision: ops without float16 GPU kernels",
      Severity.WARNING,
      "The model computes in float16 (a mixed_float16 policy), and some of its ops have no "
      "float16 kernel in the GPU plugin: they run on the CPU, casting and copying every step, "
      "which can make mixed precision slower than float32.",
      "Keep the layers named in float32 (dtype=\"float32\" on the layer), or drop the "
      "mixed_float16 policy on Metal.", fix_answer=ABOUT_THE_CODE, needs=("model",))
def float16_fallback(s: Snapshot, d: Derived):
    m = s.model
    found = [issue for issue in m.setting_issues if issue.code == "float16-fallback"]
    if not found:
        return None
    half = [f for f in m.fallbacks if f.dtype in ("float16", "bfloat16")]
    layers = sorted({f.layer for f in half})
    fix = Remediation(f"Give these layers dtype=\"float32\": {', '.join(layers[:6])}; or train "
                      "in float32 on Metal", (probe_cmd(s, *m.probe_args()),))
    ev = {"setting": found[0].code, "source": found[0].source, "settings": m.settings,
          "ops": _fallback_evidence(half)}
    return float16_fallback.finding(ev, fix, title=found[0].message,
                                    basis="observed" if m.fallback_source == "registry" else "table")


def _timing(timings: list[Timing], device: str) -> Timing | None:
    return next((t for t in timings if t.device == device), None)


def _ms(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds * 1e3:.3g} ms"


def wins_at(sweep: list[dict[str, Any]]) -> int | None:
    """The smallest batch of the sweep from which the GPU's inference median beats the CPU's by
    the margin at that batch and every larger one; None when it never does."""
    found = None
    for row in sorted((r for r in sweep if "batch" in r), key=lambda r: r["batch"]):
        cpu = (row.get("/CPU:0") or {}).get("median_s")
        gpu = (row.get("/GPU:0") or {}).get("median_s")
        if cpu is None or gpu is None:
            continue
        if cpu >= gpu * (1.0 + MARGIN):
            found = row["batch"] if found is None else found
        else:
            found = None
    return found


def _speed_findings(s: Snapshot, r: Rule, decision: str) -> list[Finding]:
    m = s.model
    speed = m.speed
    if speed is None:
        return []
    out = []
    batch = m.batch()
    for kind, verdict in sorted(speed.verdicts.items()):
        if verdict.get("decision") != decision:
            continue
        timings = speed.inference if kind == "inference" else speed.train_step
        cpu, gpu = _timing(timings, "/CPU:0"), _timing(timings, "/GPU:0")
        label = "inference" if kind == "inference" else "training step"
        speedup = float(verdict.get("speedup") or 0.0)
        at = f" at batch {batch}" if batch else ""
        if decision == UNCLEAR:
            head = f"no clear difference between the GPU and the CPU ({speedup:.2f}x; " \
                   f"{verdict.get('reason')})"
        else:
            head = f"the GPU is {times(speedup)} than the CPU"
        title = (f"Your model's {label}{at}: {head} (GPU {_ms(gpu and gpu.median_s)}, CPU "
                 f"{_ms(cpu and cpu.median_s)} a call; first calls, timed apart: GPU "
                 f"{_ms(gpu and gpu.first_call_s)}, CPU {_ms(cpu and cpu.first_call_s)})")
        won = wins_at(speed.sweep)
        if speed.sweep and decision != FASTER:
            title += (f"; the sweep: the GPU wins inference from batch {won}" if won is not None
                      else "; the sweep: the GPU did not win inference at any batch tried")
        ev = {"kind": kind, "batch": batch, "decision_rule": DECISION_RULE, "verdict": verdict,
              "cpu": _timing_evidence(cpu), "gpu": _timing_evidence(gpu),
              "sweep": speed.sweep, "gpu_wins_from_batch": won}
        out.append(r.finding(ev, _speed_fix(s, m, decision, kind), title=title))
    return out


def _timing_evidence(t: Timing | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {"median_s": t.median_s, "min_s": t.min_s, "max_s": t.max_s, "iqr_s": t.iqr_s,
            "first_call_s": t.first_call_s, "calls_per_repeat": t.calls_per_repeat,
            "times_s": t.times_s}


def _speed_fix(s: Snapshot, m: ModelFacts, decision: str, kind: str) -> Remediation | None:
    if decision == FASTER:
        return None
    sweep = probe_cmd(s, *m.probe_args(), "--sweep")
    if decision == UNCLEAR:
        return Remediation("Measure again on an idle machine, plugged in, with a batch sweep",
                           (sweep,))
    text = ("Small batches are latency-bound on a GPU: train with larger batches (the sweep "
            "shows from which batch the GPU wins)")
    if m.fallbacks or m.ran_on_cpu:
        text += "; ops that fall back to the CPU copy data every step (see model.cpu-fallback)"
    recurrent = [str(l) for l in (m.model.get("layer_types") or []) if l in ("LSTM", "GRU")]
    if recurrent:
        text += ("; recurrent layers launch kernels step by step and are often faster on the "
                 "CPU (tensorflow/tensorflow#56782): train them on the CPU")
    if kind == "train_step":
        text += "; on Keras 2.11-2.15 use the legacy optimizers (tensorflow/tensorflow#59438)"
    return Remediation(text, (sweep,), LSTM_ISSUE if recurrent else OPTIMIZER_ISSUE)


@rule(codes.MODEL_GPU_SLOWER, "Your model is slower on the GPU than on the CPU", Severity.WARNING,
      "The model's own inference and training step were timed on the CPU and on the GPU (first "
      "call apart, autoranged repeats closed by reading a result back); the GPU's repeats were "
      "clearly slower. Without the model probe, a pasted text's own timings say it: Keras' "
      "progress lines or sentences that give a time per step or epoch on each device ('56 "
      "minutes/epoch' with the GPU, '264 seconds/epoch' on the CPU; 'if I uninstall "
      "tensorflow-metal, it takes only 20ms/step'), every GPU figure above every CPU figure and "
      "the GPU's median over 1.3 times the CPU's. "
      "Small batches are latency-bound on a GPU, ops without GPU kernels copy data between the "
      "devices, recurrent layers launch kernels step by step (tensorflow/tensorflow#56782), and "
      "Keras 2.11-2.15's optimizers run op by op on Metal (tensorflow/tensorflow#59438). With "
      "--sweep the finding says from which batch the GPU wins.",
      "Use larger batches, fix the ops that fall back to the CPU, train recurrent models on the "
      "CPU when they lose there, and use the legacy optimizers on Keras 2.11-2.15.",
      OPTIMIZER_ISSUE, fix_answer=ABOUT_THE_CODE)
def gpu_slower(s: Snapshot, d: Derived):
    if s.model is not None:
        return _speed_findings(s, gpu_slower, SLOWER)
    return _text_finding(s, gpu_slower, SLOWER)


@rule(codes.MODEL_GPU_FASTER, "Your model is faster on the GPU", Severity.OK,
      "The model's inference or training step ran faster on the GPU than on the CPU beyond the "
      "noise (an exact Mann-Whitney test on the raw repeats) and by more than 10%; or, without "
      "the model probe, a pasted text's own timings on the two devices say so (the CPU's median "
      "over 1.3 times the GPU's).",
      "Nothing to do.", fix_answer=NOTHING_WRONG)
def gpu_faster(s: Snapshot, d: Derived):
    if s.model is not None:
        return _speed_findings(s, gpu_faster, FASTER)
    return _text_finding(s, gpu_faster, FASTER)


def _text_finding(s: Snapshot, r: Rule, decision: str) -> Finding | None:
    """The verdict of a pasted text's own timings (reported, not measured here)."""
    speed = text_speed(s.log)
    if speed is None or speed.decision != decision:
        return None
    unit = {"": "a run", "epoch": "an epoch"}.get(speed.per, f"a {speed.per}")
    ratio = speed.gpu_seconds / speed.cpu_seconds
    head = f"the GPU is {times(1 / ratio)} than the CPU"
    title = (f"By the text's own timings, {head} (GPU {_duration(speed.gpu_seconds)}, CPU "
             f"{_duration(speed.cpu_seconds)} {unit})")
    ev = {"source": "the pasted text's timings", "per": speed.per or "run",
          "gpu_median_s": speed.gpu_seconds, "cpu_median_s": speed.cpu_seconds,
          "gpu_said": speed.said("GPU"), "cpu_said": speed.said("CPU"),
          "decision_rule": (f"every figure of one side beyond every figure of the other, medians more "
                            f"than {APART}x apart (tfdoctor.derived.text_speed)")}
    fix = None
    if decision == SLOWER:
        fix = Remediation(
            "Time the model itself, op by op, on both devices: the probe names the ops that fall "
            "back to the CPU and the batch from which the GPU wins. Small batches are "
            "latency-bound on a GPU (train with larger ones); recurrent layers launch kernels "
            "step by step and are often faster on the CPU (tensorflow/tensorflow#56782: train "
            "them there); on Keras 2.11-2.15 use the legacy optimizers "
            "(tensorflow/tensorflow#59438)",
            (probe_cmd(s, "--model", "MODEL", "--sweep"),), LSTM_ISSUE)
    return r.finding(ev, fix, title=title, basis="reported")


def _duration(seconds: float) -> str:
    if seconds >= 60:
        return f"{seconds / 60:.3g} min"
    return f"{seconds:.3g} s" if seconds >= 1 else _ms(seconds)


@rule(codes.MODEL_NO_CLEAR_DIFFERENCE, "No clear speed difference for your model",
      Severity.INFO,
      "The repeats on the GPU and the CPU overlap, were too few, or differ by less than 10%: the "
      "measurement cannot tell them apart at this batch (a busy machine, a laptop on battery).",
      "Measure again on an idle machine with the batch sweep (`--sweep`).", fix_answer=ABOUT_THE_CODE,
      needs=("model",))
def no_clear_difference(s: Snapshot, d: Derived):
    return _speed_findings(s, no_clear_difference, UNCLEAR)


def _skipped(m: ModelFacts) -> list[str]:
    """What the budget left unmeasured: timings, sweep rows, memory steps."""
    out = []
    if m.speed is not None:
        for kind, timings in (("inference", m.speed.inference), ("training step", m.speed.train_step)):
            out += [f"{kind} on {t.device.strip('/')}" for t in timings if t.skipped == "budget"]
        out += [f"the sweep at batch {r.get('batch')}" for r in m.speed.sweep
                if r.get("skipped") == "budget"]
    if m.memory is not None and m.memory.stopped == "budget":
        out.append(f"memory ({len(m.memory.process_bytes)} steps taken)")
    return out


@rule(codes.MODEL_NOT_MEASURED, "Part of the model was not measured: the budget ran out",
      Severity.INFO,
      "Every stage of the model probe shares the --budget (loading, tracing and the first calls "
      "on each device come first, then timing and the memory steps); on a large model or a busy "
      "machine the budget can run out before the timings or the memory steps, which are then "
      "skipped rather than overrun. No verdict is given on what was not measured.",
      "Give a larger --budget (a large model on a busy machine needs 60-120 s), or a smaller "
      "--batch.", fix_answer=ABOUT_THE_FACTS, needs=("model",))
def not_measured(s: Snapshot, d: Derived):
    m = s.model
    skipped = _skipped(m)
    if not skipped:
        return None
    fix = Remediation("Give the probe a larger budget",
                      (probe_cmd(s, *m.probe_args(), "--budget", "120"),))
    return not_measured.finding({"skipped": skipped, "stage_reached": m.stage}, fix,
                                title="Not measured, the budget ran out: " + ", ".join(skipped))
