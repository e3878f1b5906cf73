"""`tfdoctor probe --model`: run the user's model in the diagnosed interpreter and say what falls
back to the CPU, where the GPU and the CPU disagree, how fast each is, and whether memory leaks.

The work happens in tfdoctor/target/model_child.py and its model_*.py siblings (TensorFlow
child, run from a private copy of tfdoctor/target/, own process group, hard timeout); this
module builds its configuration, maps its result onto tfdoctor.facts.user_model, and, where no GPU
was present (Linux, an Intel Mac, CI), predicts the CPU fallback from the shipped
kernel table of a tensorflow-metal release (tfdoctor.knowledge.kernels), so a model can be checked before
buying into a setup.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from tfdoctor.child.process import ChildResult, run_child
from tfdoctor.facts.user_model import (
    Agreement,
    LayerError,
    MemoryTrend,
    ModelError,
    ModelFacts,
    OpFallback,
    SettingIssue,
    SpeedFacts,
    Timing,
)
from tfdoctor.gather.child_status import ChildStatus
from tfdoctor.gather.model_deadline import ModelDeadline
from tfdoctor.gather.static import child_program, private_scripts
from tfdoctor.inside.shared.model_presets import MODEL_PRESETS

IMPORT_ALLOWANCE_S = 60.0
"""Seconds for `import tensorflow` and loading the model, before the budget (ModelDeadline)."""

HOST_DTYPES = frozenset({"int32", "int64"})
"""Integer ops in a float model are shape and index arithmetic, which TensorFlow keeps in host
memory on every GPU (its CUDA kernels for int32 are registered with HostMemory too): they are
counted apart (`host_ops`), not reported as fallbacks."""

LEAK_MIN_BYTES_PER_STEP = 64 * 1024
"""Smallest steady growth per training step called a leak: allocator caches and Python objects
move the resident set by a few pages now and then, not by 64 KiB on every step."""
LEAK_MIN_TOTAL_BYTES = 1 << 20
LEAK_WARMUP_STEPS = 3
"""Steps whose growth is not judged (at least; a third of the steps when there are more): the
first steps build kernels, caches and slot variables, and allocators grow their pools."""
LEAK_MIN_JUDGED = 6

XLA_SOURCE = ("XLA has no Metal backend: jit_compile=True fails with \"Could not find compiler "
              "for platform METAL\" (NVlabs/sionna#78)")
OPTIMIZER_SOURCE = ("TensorFlow 2.11+ warns \"the v2.11+ optimizer ... runs slowly on M1/M2 Macs\" "
                    "(tensorflow/tensorflow#59438)")
FLOAT16_SOURCE = "tensorflow-metal's kernel table (compat_matrix.json metal_kernels)"
CUDNN_SOURCE = ("Keras 3 uses the cuDNN LSTM/GRU whenever any GPU is listed "
                "(keras/src/backend/tensorflow/rnn.py, cudnn_ok and _is_gpu_available); a Mac "
                "reported \"No OpKernel was registered to support Op 'CudnnRNNV3'\" "
                "(lewagon/data-setup#137), seen failing here by the model probe")


def default_plugin() -> str | None:
    from tfdoctor.knowledge import kernels

    found = kernels.releases()
    return found[0] if found else None


def child_config(*, model: str | None, workload: str | None, batch: int, budget_s: float,
                 sweep: Sequence[int] | None = None, memory_steps: int = 12,
                 compare: bool = True, timing: bool = True, memory: bool = True,
                 sys_path: Sequence[str] = (), trust_model: bool = False,
                 memory_limit: int | None = None) -> dict[str, Any]:
    """The child's configuration; ValueError for a usage error (exit 2 in the CLI).
    `trust_model` lets the child load what runs code from the model file (a Lambda layer, a
    SavedModel's graph); `memory_limit` caps the child's memory and the bytes a `.keras` archive
    may inflate to (default: the memory available now, at least MIN_MEMORY_LIMIT)."""
    if (model is None) == (workload is None):
        raise ValueError("give either a model (PATH or module:function) or a workload")
    if workload is not None and workload not in MODEL_PRESETS:
        raise ValueError(f"unknown workload {workload!r} (known: {', '.join(MODEL_PRESETS)})")
    if not 1 <= int(batch) <= 4096:
        raise ValueError("--batch must be between 1 and 4096")
    if not (math.isfinite(budget_s) and 1 <= budget_s <= 3600):
        raise ValueError("--budget must be between 1 and 3600 seconds")
    if model is not None and not model.strip():  # abspath("") would probe the current directory
        raise ValueError("--model needs a model: a .keras or .h5 file, a SavedModel folder, "
                         "or module:function")
    spec = model
    if model is not None and ":" not in model or (model and os.path.exists(model)):
        spec = os.path.abspath(model)
    return {"model": spec, "workload": workload, "batch": int(batch), "budget_s": float(budget_s),
            "sweep": [int(b) for b in sweep] if sweep else None, "memory_steps": int(memory_steps),
            "compare": compare, "timing": timing, "memory": memory,
            "sys_path": [os.path.abspath(p) for p in sys_path], "trust_model": bool(trust_model),
            "memory_limit": int(memory_limit or memory_bound()),
            "inflate_limit": int(memory_limit or memory_bound())}


MIN_MEMORY_LIMIT = 2 << 30
"""Least memory the model child is given (importing TensorFlow and a small model fit in it)."""


def memory_bound() -> int:
    """Bytes the model child may use: the memory available now (more would swap or wake the OOM
    killer), at least MIN_MEMORY_LIMIT."""
    import psutil

    try:
        available = int(psutil.virtual_memory().available)
    except (OSError, RuntimeError, AttributeError):
        available = 0
    return max(MIN_MEMORY_LIMIT, available)


def plugin_problem(plugin: str | None) -> str | None:
    """Why `--plugin` cannot be used (no kernel table shipped for it), or None."""
    from tfdoctor.knowledge import kernels

    if plugin is None:
        return None
    try:
        kernels.kernel_table(plugin)
    except kernels.UnknownPluginRelease as exc:
        return str(exc)
    return None


MODEL_DOING = {
    None: "importing TensorFlow for the model", "load": "loading the model",
    "ops": "listing the model's ops", "placement": "checking where the model's ops run",
    "agreement": "comparing GPU and CPU outputs", "speed": "timing the model",
    "sweep": "timing the model over batch sizes", "memory": "watching memory over steps",
    "losses": "comparing GPU and CPU losses",
}
"""What the model child does at each stage it announces (model_state.doing), in words short
enough for one progress line of 80 columns with the figures."""


def probe_model(python: str, config: Mapping[str, Any], *, plugin: str | None = None,
                env: Mapping[str, str] | None = None, timeout: float | None = None,
                progress: Any | None = None) -> ModelFacts:
    """Run the model probe in `python`; never raises for anything the child does (ValueError
    for a `plugin` without a kernel table: a usage error, checked before anything runs).
    `progress` (a console) shows the stage the child is at and the budget. `timeout` (default
    IMPORT_ALLOWANCE_S) bounds importing TensorFlow and loading the model, the budget what follows
    (tfdoctor.gather.model_deadline)."""
    problem = plugin_problem(plugin)
    if problem:
        raise ValueError(problem)
    allowance = IMPORT_ALLOWANCE_S if timeout is None else timeout
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    budget = float(config.get("budget_s", 30.0))
    deadline = ModelDeadline(allowance, budget)
    status = ChildStatus(progress, lambda stage, _doc: MODEL_DOING.get(stage, f"the model probe's {stage}"),
                         lambda _stage, _doc, elapsed: (elapsed, f"budget {budget:g} s, timeout {allowance:g} s"),
                         key="doing")

    def stop_at_deadline(result_path: Path, elapsed: float) -> bool:
        status.tick(result_path, elapsed)
        stage = status.document.get("stage")
        return deadline.passed(stage if isinstance(stage, str) else None, elapsed)

    try:
        with private_scripts() as scripts:  # the interpreter never gets tfdoctor's own files
            child = run_child(python, child_program(scripts, "model"), [json.dumps(dict(config))],
                              timeout=deadline.hard_limit, env=child_env, also_remove=[scripts],
                              tick=stop_at_deadline)
    except OSError as exc:
        return ModelFacts(outcome="error", errors=[ModelError("start", "not-run",
                                                              f"{python} could not be started: {exc}")])
    finally:
        status.stop()
    facts = facts_from_child(child, *deadline.limit(), plugin=plugin)
    # What was asked, even when the child ended before it said (a timeout while loading).
    facts.source.setdefault("spec", config.get("workload") or config.get("model"))
    facts.source.setdefault("workload", bool(config.get("workload")))
    return facts


def facts_from_child(child: ChildResult, timeout: float, bounds: str = "", *,
                     plugin: str | None = None) -> ModelFacts:
    """`timeout`: the limit that applied, in seconds from the child's start; `bounds`: what it
    bounds (ModelDeadline.limit)."""
    doc = child.result if isinstance(child.result, dict) else None
    facts = facts_from_document(doc or {}, plugin)
    if child.timed_out:
        facts.outcome = "timeout"
        facts.errors.append(ModelError(facts.stage or "start", "timeout",
                                       f"the model probe did not finish within {timeout:g} s"
                                       + (f" ({bounds})" if bounds else "")
                                       + f", stopped after {child.duration_s:.1f} s "
                                       f"(last stage: {facts.stage or 'none'})"))
    elif doc is None or not doc.get("complete"):
        how = (f"killed by {child.signal_name}" if child.signal_name
               else f"exited with code {child.returncode}")
        facts.outcome = "crashed" if doc is not None else "no-result"
        facts.errors.append(ModelError(facts.stage or "start", facts.outcome,
                                       f"the model probe was {how} (last stage: "
                                       f"{facts.stage or 'none'})"))
    return facts


def facts_from_document(doc: Mapping[str, Any], plugin: str | None = None) -> ModelFacts:
    """ModelFacts from model_child's result document (a pure function: tests feed recordings)."""
    facts = ModelFacts(source=dict(doc.get("source") or {}), model=dict(doc.get("model") or {}),
                       inputs=list(doc.get("inputs") or []),
                       assumptions=list(doc.get("assumptions") or []),
                       tf_version=doc.get("tf_version"), gpus=list(doc.get("gpus") or []),
                       settings=dict(doc.get("settings") or {}), elapsed_s=doc.get("elapsed_s"),
                       stage=doc.get("stage"))
    facts.errors = [ModelError(str(e.get("stage")), str(e.get("kind")), str(e.get("message")),
                               e.get("op"), e.get("layer"))
                    for e in doc.get("errors") or []]
    if facts.errors:
        facts.outcome = "error"
    ops = (doc.get("ops") or {}).get("ops") or []
    facts.ops_total = sum(int(o.get("count", 1)) for o in ops)
    facts.ops_report_s = (doc.get("ops") or {}).get("seconds")
    found, facts.fallback_source = fallbacks(ops, bool(facts.gpus), plugin)
    facts.fallbacks = [f for f in found if f.dtype not in HOST_DTYPES]
    executed = [_fallback(o, "executed") for o in (doc.get("placement") or {}).get("cpu_ops") or []]
    facts.ran_on_cpu = [f for f in executed if f.dtype not in HOST_DTYPES and f.op != "Identity"]
    facts.host_ops = sorted({f.op for f in found + executed if f.dtype in HOST_DTYPES})
    facts.agreement = _agreement(doc.get("agreement"))
    facts.speed = _speed(doc.get("speed"), doc.get("sweep"))
    facts.memory = memory_trend(doc.get("memory"))
    facts.setting_issues = setting_issues(facts)
    return facts


def _fallback(entry: Mapping[str, Any], source: str) -> OpFallback:
    return OpFallback(str(entry.get("graph")), str(entry.get("layer")), str(entry.get("op")),
                      entry.get("dtype"), int(entry.get("count", 1)), str(entry.get("example", "")),
                      source)


def fallbacks(ops: Sequence[Mapping[str, Any]], gpu_present: bool,
              plugin: str | None) -> tuple[list[OpFallback], str | None]:
    """Op groups without a GPU kernel: from TensorFlow's registry when a GPU is present (the
    plugin's kernels are registered then), else predicted from the kernel table of `plugin`
    (default: the newest shipped release)."""
    from tfdoctor.knowledge import kernels

    if gpu_present and plugin is None:
        found = [_fallback(o, "registry") for o in ops
                 if o.get("gpu_kernel") is False and o.get("op") not in kernels.DEFAULT_DEVICE_OPS]
        return found, "registry"
    version = plugin or default_plugin()
    if version is None:
        return [], None
    table = kernels.kernel_table(version)
    source = f"table:{version}"
    found = [_fallback(o, source) for o in ops
             if not table.has_kernel(str(o.get("op")), o.get("dtype"))]
    return found, source


def _agreement(raw: Mapping[str, Any] | None) -> Agreement | None:
    if not raw:
        return None
    return Agreement(float(raw.get("tolerance", 0.0)), bool(raw.get("per_layer")),
                     [LayerError(str(l["layer"]), l.get("rel_error"), bool(l.get("agrees")))
                      for l in raw.get("layers") or []],
                     raw.get("first_bad"), raw.get("output_error"),
                     dict(raw.get("losses") or {}), raw.get("loss_rel_diff"), raw.get("error"))


def _timings(raw: Mapping[str, Any]) -> list[Timing]:
    out = []
    for device, t in (raw or {}).items():
        out.append(Timing(device, t.get("median_s"), t.get("min_s"), t.get("max_s"),
                          t.get("iqr_s"), t.get("first_call_s"), t.get("number"),
                          list(t.get("times_s") or []), t.get("error"), t.get("skipped")))
    return out


def _speed(raw: Mapping[str, Any] | None, sweep: Any) -> SpeedFacts | None:
    if not raw:
        return None
    return SpeedFacts(_timings(raw.get("inference")), _timings(raw.get("train_step")),
                      dict(raw.get("verdicts") or {}), list(sweep or []))


def slope(values: Sequence[float]) -> float:
    """Least-squares slope of values against their index."""
    n = len(values)
    mean_x = (n - 1) / 2.0
    mean_y = sum(values) / n
    sxx = sum((i - mean_x) ** 2 for i in range(n))
    return sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values)) / sxx if sxx else 0.0


def memory_trend(raw: Mapping[str, Any] | None) -> MemoryTrend | None:
    """Steady growth of the process's memory across training steps, after the warm-up steps: a
    leak when it grows by LEAK_MIN_BYTES_PER_STEP or more per step (least squares), by at least
    LEAK_MIN_TOTAL_BYTES overall, on most steps (not one jump), and no slower in the later
    half of the steps than in the earlier (not a cache filling up)."""
    if not raw:
        return None
    steps = raw.get("steps") or []
    process = [int(s["process_bytes"]) for s in steps if s.get("process_bytes") is not None]
    device = [int(s["device_current"]) for s in steps if s.get("device_current") is not None]
    warmup = max(LEAK_WARMUP_STEPS, len(process) // 3)
    judged = process[warmup:]
    rate = growth = None
    leak = False
    message = (f"too few steps to judge ({len(process)}; "
               f"{LEAK_WARMUP_STEPS + LEAK_MIN_JUDGED} needed)")
    if not process and raw.get("stopped") == "budget":
        message = "not measured: the budget ran out before the memory steps"
    if len(judged) >= LEAK_MIN_JUDGED:
        rate = slope(judged)
        growth = judged[-1] - judged[0]
        rising = sum(1 for a, b in zip(judged, judged[1:]) if b > a) / (len(judged) - 1)
        half = len(judged) // 2
        # Steady: the later half grows about as fast as the earlier (caches that fill up
        # and stop, as TensorFlow's allocators do in the first steps, slow down).
        steady = slope(judged[half:]) >= 0.5 * slope(judged[:half + 1])
        leak = (rate >= LEAK_MIN_BYTES_PER_STEP and growth >= LEAK_MIN_TOTAL_BYTES
                and rising >= 0.6 and steady)
        message = (f"memory grows by {rate / 1024:.0f} KiB per training step "
                   f"({growth / 2 ** 20:.1f} MiB over {len(judged)} steps)" if leak else
                   f"no steady growth ({rate / 1024:+.0f} KiB per step over {len(judged)} steps)")
    return MemoryTrend(str(raw.get("device")), raw.get("source"), process, device, rate, growth,
                       leak, message, raw.get("error"), raw.get("stopped"))


def setting_issues(facts: ModelFacts) -> list[SettingIssue]:
    found = []
    settings = facts.settings
    xla = settings.get("xla_on_gpu") or {}
    if settings.get("jit_compile") is True and xla.get("ok") is False:
        found.append(SettingIssue("xla-unsupported", "the model is compiled with jit_compile=True "
                                  f"and XLA cannot compile for this GPU: {xla.get('error')}",
                                  XLA_SOURCE))
    elif settings.get("jit_compile") is True and not facts.gpus:
        found.append(SettingIssue("jit-compile-on-metal", "the model is compiled with "
                                  "jit_compile=True: on a Mac's Metal GPU it fails; compile it "
                                  "with jit_compile=False", XLA_SOURCE))
    version = str(settings.get("keras_version") or "")
    if settings.get("optimizer") and settings.get("optimizer_legacy") is False and _at_least(version, 2, 11):
        found.append(SettingIssue("optimizer-slow", f"{settings['optimizer']} is a Keras 2.11+ "
                                  "optimizer, reported to run slowly on M1/M2 Macs (the legacy "
                                  "optimizers have fused Metal kernels)", OPTIMIZER_SOURCE))
    if any(str(d) in ("float16", "bfloat16") for d in settings.get("compute_dtypes") or []):
        half = sorted({f.op for f in facts.fallbacks if f.dtype in ("float16", "bfloat16")})
        if half:
            found.append(SettingIssue("float16-fallback", "mixed precision: these ops have no "
                                      f"float16 GPU kernel and run on the CPU: {', '.join(half)}",
                                      FLOAT16_SOURCE))
    for err in facts.errors:
        if err.kind == "no-gpu-kernel" and (err.op or "").startswith("CudnnRNN"):
            found.append(SettingIssue("cudnn-rnn", f"layer {err.layer or '?'} takes the cuDNN "
                                      f"path ({err.op}), which failed on this GPU: build it with "
                                      "use_cudnn=False", CUDNN_SOURCE))
            break
    return found


def _at_least(version: str, major: int, minor: int) -> bool:
    parts = version.split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return False


def summarize(facts: ModelFacts) -> str:
    """A plain-text summary the CLI can print as is."""
    lines = []
    name = facts.source.get("spec") or "model"
    model = facts.model
    if model:
        lines.append(f"{name}: {model.get('class')} ({model.get('kind')}), {model.get('layers')} "
                     f"layers, {model.get('params')} parameters, TensorFlow {facts.tf_version}")
    for err in facts.errors:
        lines.append(f"  error ({err.kind}, {err.stage}): {err.message}")
    for a in facts.assumptions:
        lines.append(f"  assumed: {a}")
    if facts.fallback_source and facts.ops_total:  # no op read (never loaded): nothing to say
        where = ("registered kernels on this machine" if facts.fallback_source == "registry"
                 else f"predicted for tensorflow-metal {facts.fallback_source.split(':', 1)[1]}")
        ops = facts.fallback_ops()
        lines.append(f"CPU fallback ({where}): {len(ops)} op types" + (": " + ", ".join(ops) if ops else ""))
        by_op: dict[str, set[str]] = {}
        for f in facts.fallbacks:
            by_op.setdefault(f.op, set()).add(f.layer)
        for name, layers in sorted(by_op.items()):
            shown = sorted(layers)
            more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
            lines.append(f"  {name}: {', '.join(shown[:3])}{more}")
    if facts.ran_on_cpu:
        ran = sorted({f.op for f in facts.ran_on_cpu})
        lines.append(f"Ran on the CPU with the model pinned to the GPU: {', '.join(ran)}")
    ag = facts.agreement
    if ag:
        if ag.first_bad:
            err = next((l.rel_error for l in ag.layers if l.layer == ag.first_bad), ag.output_error)
            lines.append(f"GPU and CPU disagree from layer {ag.first_bad} (relative error {err}, "
                         f"tolerance {ag.tolerance:g})")
        else:
            lines.append(f"GPU and CPU agree (output relative error {ag.output_error})")
        if ag.loss_rel_diff is not None:
            lines.append(f"  loss after {len(next(iter(ag.losses.values()), []))} steps: "
                         + ", ".join(f"{d} {'not finite' if v[-1] is None else format(v[-1], '.6g')}"
                                   for d, v in ag.losses.items() if v))
    if facts.speed:
        for kind, timings in (("inference", facts.speed.inference), ("train step", facts.speed.train_step)):
            parts = [f"{t.device} {t.median_s * 1e3:.2f} ms (first call {t.first_call_s * 1e3:.0f} ms)"
                     for t in timings if t.median_s is not None and t.first_call_s is not None]
            if parts:
                lines.append(f"{kind}: " + "; ".join(parts))
        for kind, verdict in facts.speed.verdicts.items():
            lines.append(f"  {kind}: {verdict.get('reason')} (speedup {verdict.get('speedup', 0):.2f}x)")
    if facts.memory:
        lines.append(f"memory ({facts.memory.source}, {facts.memory.device}): {facts.memory.message}"
                     + (" -- LEAK" if facts.memory.leak else ""))
    for issue in facts.setting_issues:
        lines.append(f"setting ({issue.code}): {issue.message}")
    return "\n".join(lines)
