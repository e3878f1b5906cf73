"""What the model rule test modules share: a snapshot of the model probe's recorded facts (the
document tfdoctor.inside.model prints, read as tfdoctor.gather.model_result reads it)."""

from __future__ import annotations

from snapshots import apple_silicon

from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.user_model import ModelFacts
from tfdoctor.gather import model_result


def snapshot(facts: ModelFacts) -> Snapshot:
    data = apple_silicon()
    data["model"] = facts.to_json()
    return Snapshot.loads(typed.json_text(data))


def facts(doc: dict, plugin: str | None = None, gpus=("/physical_device:GPU:0",)) -> ModelFacts:
    doc = {"source": {"kind": "preset", "spec": "attention", "workload": True}, "complete": True,
           "stage": "done", "gpus": list(gpus),
           "inputs": [{"name": "tokens", "shape": [8, 32, 64], "dtype": "float32"}], **doc}
    return model_result.facts_from_document(doc, plugin)


def op(name, dtype="float32", layer="dense", graph="inference", gpu_kernel=None):
    return {"graph": graph, "layer": layer, "op": name, "dtype": dtype, "count": 1,
            "example": f"model/{layer}/{name}", "gpu_kernel": gpu_kernel}


def codes_of(found) -> dict:
    out: dict = {}
    for f in found:
        out.setdefault(f.code, []).append(f)
    return out
