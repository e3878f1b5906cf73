"""The model child's result document as ModelFacts (tfdoctor.facts.user_model): a pure function,
so tests feed it recordings. Where no GPU was present (Linux, an Intel Mac, CI), the CPU fallback
is predicted from the shipped kernel table of a tensorflow-metal release
(tfdoctor.knowledge.kernels), so a model can be checked before buying into a setup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfdoctor.facts.user_model import (
    Agreement,
    LayerError,
    ModelError,
    ModelFacts,
    OpFallback,
    SpeedFacts,
    Timing,
)
from tfdoctor.gather.model_memory import memory_trend
from tfdoctor.gather.model_settings import setting_issues

HOST_DTYPES = frozenset({"int32", "int64"})
"""Integer ops in a float model are shape and index arithmetic, which TensorFlow keeps in host
memory on every GPU (its CUDA kernels for int32 are registered with HostMemory too): they are
counted apart (`host_ops`), not reported as fallbacks."""


def default_plugin() -> str | None:
    """The newest tensorflow-metal release whose kernel table ships: what is predicted without
    a GPU when no --plugin is given."""
    from tfdoctor.knowledge import kernels

    found = kernels.releases()
    return found[0] if found else None


def facts_from_document(doc: Mapping[str, Any], plugin: str | None = None) -> ModelFacts:
    """ModelFacts from the model child's result document (a pure function: tests feed recordings)."""
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
