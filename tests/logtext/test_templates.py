"""Signatures cover the message template of the code that prints them, not one user's paste (issue
19 class 3). tests/data/logs/templates.json records, per signature, the template as the code
formats it, where it is printed and in which releases, and instances that fill its placeholders
with real values; every instance of an existing signature must be recognised as that signature's
code (or the finer code the signature chooses), and an instance marked `must_not_match` must not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfdoctor.logtext.catalog import SIGNATURES, recognise

TEMPLATES = json.loads((Path(__file__).parents[1] / "data" / "logs" / "templates.json").read_text(encoding="utf-8"))
VARIANTS = {s.variant: s for s in SIGNATURES}
FINER = {"log.conda-packages-not-found": {"log.conda-tensorflow-deps-missing"},
         "log.symbol-not-found-plugin": {"log.symbol-not-found"}}
"""Codes a signature's `code_for` may choose instead of its own."""

KNOWN_MISSES = {
    "F0000 00:00:1700000000.000000 12345 message_lite.cc:450] Check failed: target + size == res (12 vs. 10)":
        "protobuf 22+ (absl) wording not confirmed in a release",
    "{{node x}} was explicitly assigned to /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device specification refers to a valid device.":
        "a sibling wording of the placer (no GPU device at all), not a missing kernel",
    "Cannot assign a device for operation x: Could not satisfy explicit device specification '/device:GPU:0' because the node {{colocation_node x}} was colocated with a group of nodes that required incompatible device '/job:localhost/replica:0/task:0/device:CPU:0'":
        "a colocation conflict of the placer, not a missing kernel",
    "Execution of the command buffer was aborted due to an error during execution. Internal Error (0000000e:Internal Error)":
        "MPS wording not seen in a TensorFlow paste yet",
}

CASES = [(entry["signature"], item) for entry in TEMPLATES["templates"] for item in entry["instances"]
         if entry["signature"].split("/")[-1] in VARIANTS]


def test_the_templates_cover_every_signature_with_a_source():
    covered = {entry["signature"].split("/")[-1] for entry in TEMPLATES["templates"]}
    missing = sorted(v for v in VARIANTS if v not in covered)
    assert len(missing) <= len(VARIANTS) // 3, missing  # the newest variants come with their real text
    for entry in TEMPLATES["templates"]:
        assert entry["template"] and entry["printed_by"] and entry["source_ref"], entry["signature"]


@pytest.mark.parametrize("signature,item", CASES, ids=[f"{s}:{i['text'][:40]}" for s, i in CASES])
def test_every_filled_template_is_recognised(signature: str, item: dict, request: pytest.FixtureRequest) -> None:
    code = VARIANTS[signature.split("/")[-1]].code
    found = {m.code for m in recognise(item["text"])}
    if item.get("must_not_match"):
        assert code not in found, item["must_not_match"]
        return
    if item["text"] in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_MISSES[item["text"]], strict=True))
    assert found & ({code} | FINER.get(code, set())), item["text"]
