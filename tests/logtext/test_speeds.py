"""tfdoctor.logtext.speeds and tfdoctor.derived.text_speed: what a text's own timings say of the
GPU against the CPU. Real texts (tests/data/speeds/, each with its public source) and the shapes
the module documents, built from Keras' progress-line template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfdoctor.derived.text_speed import text_speed
from tfdoctor.inside.shared.probe_stats import FASTER, SLOWER
from tfdoctor.logtext import keep
from tfdoctor.logtext.scan import BLOCK
from tfdoctor.logtext.speeds import MAX_PER_KIND

SPEEDS = Path(__file__).resolve().parents[1] / "data" / "speeds"
TEXTS = json.loads((SPEEDS / "SOURCES.json").read_text(encoding="utf-8"))["texts"]
VERDICTS = {"slower": SLOWER, "faster": FASTER, None: None}
GPU_STEPS = "\n".join(f"1875/1875 [==============================] - 16s 8ms/step - loss: 0.{i}" for i in range(3))
CPU_STEPS = "\n".join(f"1875/1875 [==============================] - 1s 481us/step - loss: 0.{i}" for i in range(3))
TF_DEVICE_LINE = ("2021-07-27 14:56:50.639552: I tensorflow/core/common_runtime/pluggable_device/"
                  "pluggable_device_factory.cc:271] Created TensorFlow device (/job:localhost/replica:0/"
                  "task:0/device:GPU:0 with 0 MB memory) -> physical PluggableDevice (device: 0, name: METAL)")


def read(text: str):
    log = keep.from_bytes(text.encode("utf-8"), "posted.md")
    return log, text_speed(log)


@pytest.mark.parametrize("entry", TEXTS, ids=[t["file"] for t in TEXTS])
def test_real_texts(entry):
    speed = text_speed(keep.read(SPEEDS / entry["file"]))
    assert (speed.decision if speed else None) == VERDICTS[entry["verdict"]]
    if entry["verdict"]:
        assert speed.per == entry["per"]
        assert [t.seconds for t in speed.gpu] == pytest.approx(entry["gpu"])
        assert [t.seconds for t in speed.cpu] == pytest.approx(entry["cpu"])


def test_progress_lines_take_the_device_of_their_heading_whatever_tensorflow_logs_between():
    text = f"with tensorflow-metal (GPU)\nMetal device set to: Apple M1\n{GPU_STEPS}\n\n" \
           f"CPU only:\n{TF_DEVICE_LINE}\nNum GPUs Available: 1\n{CPU_STEPS}\n"
    log, speed = read(text)
    assert speed.decision == SLOWER and speed.per == "step"
    assert speed.gpu_seconds == pytest.approx(0.008) and speed.cpu_seconds == pytest.approx(0.000481)
    assert {t.line for t in speed.cpu} == {10, 11, 12}
    assert "16s" not in {t.said for t in log.timings}  # the epoch so far, not a step


def test_a_sentence_that_takes_the_gpu_away_names_the_cpu_and_the_run_before_it_the_gpus():
    _, speed = read("Training runs at 300ms/step and 45s per epoch.\n\n"
                    "Without the Metal plugin it runs at 25ms/step.\n")
    assert speed.decision == SLOWER
    assert [t.said for t in speed.gpu] == ["300ms/step"] and [t.said for t in speed.cpu] == ["25ms/step"]
    _, far = read("Training runs at 300ms/step.\n" + "\n".join(["some words"] * 9)
                  + "\nWithout the Metal plugin it runs at 25ms/step.\n")
    assert far is None  # too far before it to be the run it changed


@pytest.mark.parametrize("sentence, decision", [
    ("It takes 8ms/step on the GPU vs 0.5ms/step on the CPU.", SLOWER),
    ("GPU: 10 seconds, CPU: 40 seconds", FASTER),
    ("On the GPU an epoch takes 2 minutes while on the CPU it takes 9 minutes.", FASTER),
    ("With tf.device('/CPU:0') it is 1min 25s, on the GPU 21.3 s.", FASTER),
    ("GPU 10 s, CPU 11 s.", None),  # too close for a person's rounded figures
])
def test_sentences(sentence, decision):
    _, speed = read(sentence + "\n")
    assert (speed.decision if speed else None) == decision


def test_durations_in_parts_add_up_and_keras_epoch_and_step_figures_stay_apart():
    log, _ = read("CPU run: Wall time: 2h 7min 25s\n")
    assert [t.seconds for t in log.timings] == [2 * 3600 + 7 * 60 + 25]
    log, _ = read("GPU run: 16s 8ms/step\n")
    assert sorted(t.said for t in log.timings) == ["16s", "8ms/step"]


def test_what_is_not_a_run_on_a_device():
    log, speed = read("CPU times: user 11.6 s, sys: 7.35 s, total: 18.9 s\nWall time: 21.3 s\n"
                      "Dell i7-9850H / NVIDIA Quadro T2000|8.6|13.8|\nGPU run: 10 s\n")
    assert [(t.device, t.said) for t in log.timings] == [("GPU", "10 s")] and speed is None


def test_each_line_is_read_once_across_blocks_and_only_a_few_figures_are_kept():
    """A log longer than a block: the blocks overlap, the figures are not counted twice, and a
    long run keeps MAX_PER_KIND figures per device and unit, however many lines it has."""
    filler = "x" * 200 + "\n"
    text = "GPU:\n" + filler * (BLOCK // len(filler)) + GPU_STEPS + "\nCPU:\n" + "\n".join([CPU_STEPS] * 20) + "\n"
    log, speed = read(text)
    assert len(speed.gpu) == 3 and len(speed.cpu) == MAX_PER_KIND
    assert len({t.line for t in log.timings}) == len(log.timings)
