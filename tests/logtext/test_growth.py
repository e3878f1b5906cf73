"""tfdoctor.logtext.growth: what a text says of its memory growing as it runs, and
model.memory-leak drawn from it (checks/model_health.py). Real texts (tests/data/leaks/, each with
its public source) and the shapes the module documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from snapshots import RuleModules, apple_silicon, snap

from tfdoctor.logtext import keep
from tfdoctor.logtext.growth import MAX_KEPT
from tfdoctor.model import Severity

LEAKS = Path(__file__).resolve().parents[1] / "data" / "leaks"
TEXTS = json.loads((LEAKS / "SOURCES.json").read_text(encoding="utf-8"))["texts"]
health = RuleModules("model_health")


def growth(text: str) -> list[tuple[str, list[float]]]:
    return [(g.said, g.sizes_mb) for g in keep.from_bytes(text.encode("utf-8"), "posted.md").growth]


def leaks(log) -> list:
    s = snap(apple_silicon())
    s.log = log
    return [f for f in health.run(s) if f.code == "model.memory-leak"]


@pytest.mark.parametrize("entry", TEXTS, ids=[t["file"] for t in TEXTS])
def test_real_texts(entry):
    found = leaks(keep.read(LEAKS / entry["file"]))
    assert bool(found) == (entry.get("reader", entry["expect"]) == "leak")
    if found:
        assert found[0].severity is Severity.WARNING and found[0].basis == "reported"


def test_words_that_say_memory_grows_with_the_work():
    assert growth("Memory usage keeps increasing every epoch until the Mac runs out of memory.") == [
        ("Memory usage keeps increasing every epoch", [])]
    assert growth("RAM grows with each batch") == [("RAM grows with each batch", [])]
    assert growth("I think there is a memory leak in model.predict") == [("memory leak", [])]
    assert growth("The memory does not increase with each epoch.") == []  # denied
    assert growth("It needs a lot of memory for each batch.") == []  # no growth


def test_sizes_that_only_go_up_in_a_line_or_in_nearby_lines():
    grew = [("1771 MB → 2377 MB → 2984 MB", [1771.0, 2377.0, 2984.0])]
    assert growth("memory after each epoch: 1771 MB, 2377 MB, 2984 MB") == grew
    assert growth("Epoch 1: memory 1771 MB\nEpoch 2: memory 2377 MB\nEpoch 3: memory 2984 MB") == grew
    assert growth("memory 3000 MB, 2900 MB, 3100 MB") == []  # it fell
    assert growth("| **Memory (RAM)** | 16GB | 16GB | 64GB |") == []  # a table of three Macs, not one run
    assert growth("The Mac comes with 8GB, 16GB or 32GB of memory") == []  # sizes side by side
    assert growth("memory 3000 MB, 3010 MB, 3020 MB") == []  # noise, not a fifth more
    far = "memory 1771 MB\n" + "\n".join(["words"] * 4) + "\nmemory 2377 MB\nmemory 2984 MB"
    assert growth(far) == []  # too far apart to be one series


def test_tensorflows_own_sizes_and_a_single_out_of_memory_are_no_growth():
    assert growth("systemMemory: 16.00 GB\nmaxCacheSize: 5.33 GB\nmemory 24.00 GB") == []
    assert growth("W tensorflow/core/common_runtime/bfc_allocator.cc:290] Allocator (GPU_0_bfc) ran out of "
                  "memory trying to allocate 2.00GiB") == []


def test_a_leak_needs_a_text_about_tensorflow():
    about_tf = keep.from_bytes(b"With tensorflow-metal the memory keeps growing every epoch.", "posted.md")
    (f,) = leaks(about_tf)
    assert f.title == "By the text's own words, memory grows as it runs: memory keeps growing every epoch"
    assert f.remediation.commands[0].startswith("tfdoctor probe --model MODEL")
    assert leaks(keep.from_bytes(b"My web server's memory keeps growing every request... every day.", "p")) == []


def test_only_the_first_sayings_are_kept():
    text = "\n".join("the memory keeps growing every epoch" for _ in range(20))
    assert len(growth(text)) == MAX_KEPT


def test_keras_progress_bar_says_the_text_is_about_tensorflow_and_sizes_keep_their_decimals():
    """A training log that names neither TensorFlow nor Keras but prints Keras' progress bar and
    the process's memory after each epoch (psutil's bytes / 1e6: six decimals)."""
    text = "\n".join(f"300/300 [==============================] - 3s 10ms/step - loss: 0.5382\nMemory used: {mb} MB"
                     for mb in ("1771.257856", "2377.908224", "2984.542208"))
    log = keep.from_bytes(text.encode(), "posted.md")
    assert log.names_tensorflow
    assert [g.sizes_mb for g in log.growth] == [[1771.3, 2377.9, 2984.5]]
    assert keep.from_bytes(b"Downloading 300/300 files", "p").names_tensorflow is False
