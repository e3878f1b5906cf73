"""tfdoctor.logtext.model_errors: a model a text failed to load, and model.corrupt and
model.custom-objects drawn from it (checks/model_health.py), as reported. Real texts
(tests/data/model_errors/, each with its public source) and the messages' templates: h5py's and
zipfile's for a file that is not a whole model, Keras 2's and 3's for a name it does not know."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from snapshots import RuleModules, apple_silicon, snap

from tfdoctor.logtext import keep
from tfdoctor.logtext.model_errors import MAX_KEPT
from tfdoctor.model import Severity

TEXTS_DIR = Path(__file__).resolve().parents[1] / "data" / "model_errors"
TEXTS = json.loads((TEXTS_DIR / "SOURCES.json").read_text(encoding="utf-8"))["texts"]
health = RuleModules("model_health")


def kept(text: str) -> list[tuple[str, str | None]]:
    return [(e.kind, e.name) for e in keep.from_bytes(text.encode("utf-8"), "posted.md").model_errors]


@pytest.mark.parametrize("entry", TEXTS, ids=[t["file"] for t in TEXTS])
def test_real_texts(entry):
    s = snap(apple_silicon())
    s.log = keep.read(TEXTS_DIR / entry["file"])
    found = [f for f in health.run(s) if f.code in ("model.corrupt", "model.custom-objects")]
    expect = {"corrupt": "model.corrupt", "custom-objects": "model.custom-objects"}.get(entry["expect"])
    assert [f.code for f in found] == ([expect] if expect else [])
    for f in found:
        assert f.severity is Severity.WARNING and f.basis == "reported"


@pytest.mark.parametrize("text, expected", [
    ("model = load_model('m.h5')\nOSError: Unable to open file (file signature not found)", [("corrupt", None)]),
    ("keras.models.load_model('m.h5')\nOSError: Unable to synchronously open file (truncated file: eof = 96, "
     "sblock->base_addr = 0, stored_eof = 2048)", [("corrupt", None)]),
    ("keras.saving.load_model('m.keras')\nzipfile.BadZipFile: File is not a zip file", [("corrupt", None)]),
    ("ValueError: Unknown layer: 'AttentionLayer'. Please ensure this object is passed to the `custom_objects` "
     "argument.", [("custom-objects", "AttentionLayer")]),
    ("ValueError: Unknown loss function: focal_loss", [("custom-objects", "focal_loss")]),
    ("TypeError: Could not locate class 'PositionalEmbedding'. Make sure custom classes are decorated with "
     "`@keras.saving.register_keras_serializable()`.", [("custom-objects", "PositionalEmbedding")]),
])
def test_the_templates_are_kept(text, expected):
    assert kept(text) == expected


@pytest.mark.parametrize("text", [
    "df = pd.read_hdf('data.h5')\nOSError: Unable to open file (file signature not found)",  # no model, no Keras
    "unzip data.zip\nzipfile.BadZipFile: File is not a zip file",
    "TypeError: Could not locate class 'Functional'.",   # saved by another Keras, not a custom object
    "ValueError: Unknown layer:layers",
    "ValueError: Unknown optimizer: Custom>Adam. Please ensure this object is passed to the `custom_objects` argument.",
    "Unable to open file (unable to open file: name = 'm.h5', errno = 2)",  # no such file: not a damaged one
])
def test_near_misses_are_not(text):
    assert kept(text) == []


def test_the_fixes_name_the_file_and_the_custom_object():
    s = snap(apple_silicon())
    s.log = keep.from_bytes(b"import keras\nValueError: Unknown layer: TrigPosEmbedding", "posted.md")
    (f,) = [f for f in health.run(s) if f.code == "model.custom-objects"]
    assert f.title.endswith(": TrigPosEmbedding")
    assert f.remediation.code == ('keras.models.load_model(PATH, custom_objects={"TrigPosEmbedding": TrigPosEmbedding})',)
    s.log = keep.from_bytes(b"tensorflow\nOSError: Unable to open file (file signature not found)", "posted.md")
    (f,) = [f for f in health.run(s) if f.code == "model.corrupt"]
    assert "git lfs pull" in f.remediation.text and f.remediation.commands[0] == "ls -l MODEL_FILE"


def test_only_the_first_errors_are_kept():
    text = "import keras\n" + "\n".join(f"ValueError: Unknown layer: Layer{i}" for i in range(20))
    assert len(kept(text)) == MAX_KEPT
