"""tfdoctor.logtext.outcomes: what a text says of its own results on the GPU and on the CPU, and
model.gpu-wrong drawn from it (checks/model_health.py). Real texts (tests/data/outcomes/, each
with its public source) and the shapes the module documents, built from Keras' progress-line
template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from snapshots import RuleModules, apple_silicon, snap

from tfdoctor.logtext import keep
from tfdoctor.logtext.outcomes import MAX_PER_KIND
from tfdoctor.model import Severity

OUTCOMES = Path(__file__).resolve().parents[1] / "data" / "outcomes"
TEXTS = json.loads((OUTCOMES / "SOURCES.json").read_text(encoding="utf-8"))["texts"]
health = RuleModules("model_health")


def said(text: str) -> list[tuple[str, bool, str]]:
    return [(o.device, o.right, o.said) for o in keep.from_bytes(text.encode("utf-8"), "posted.md").outcomes]


def wrong_on_the_gpu(log) -> list:
    s = snap(apple_silicon())
    s.log = log
    return [f for f in health.run(s) if f.code == "model.gpu-wrong"]


@pytest.mark.parametrize("entry", TEXTS, ids=[t["file"] for t in TEXTS])
def test_real_texts(entry):
    found = wrong_on_the_gpu(keep.read(OUTCOMES / entry["file"]))
    assert bool(found) == (entry.get("reader", entry["expect"]) == "gpu-wrong")
    if found:
        assert found[0].severity is Severity.WARNING and found[0].basis == "reported"


def test_a_sentence_gives_its_result_to_the_one_device_it_names():
    assert said("With tensorflow-metal the loss becomes nan after two epochs, while on the CPU it converges.") == [
        ("GPU", False, "loss becomes nan"), ("CPU", True, "converges")]
    assert said("Without the GPU it trains fine.") == [("CPU", True, "trains fine")]  # the GPU taken away
    assert said("On the GPU the predictions are all wrong.") == [("GPU", False, "predictions are all wrong")]


def test_a_right_result_negated_is_wrong_and_a_wrong_one_outranks_a_right_one():
    assert said("On the GPU the model does not converge.") == [("GPU", False, "does not converge")]
    assert said("On the CPU the loss does not become nan.") == []  # a wrong result denied says no result
    assert said("On the GPU it converges at first, then the loss becomes nan.") == [
        ("GPU", False, "loss becomes nan")]


def test_the_other_half_of_a_contrast_without_its_verb_is_the_verb_undone():
    """tensorflow/tensorflow#61772's words: "GPU does not minimize loss and CPU does"."""
    assert said("With all other factors the same, GPU does not minimize loss and CPU does.") == [
        ("GPU", False, "does not minimize"), ("CPU", True, "CPU does")]
    assert said("The CPU does.") == []  # no contrast before it
    assert said("On the GPU the loss becomes nan and the CPU does.") == [  # the same result again
        ("GPU", False, "loss becomes nan"), ("CPU", False, "the CPU does")]


def test_a_result_with_both_devices_or_none_says_nothing_of_either():
    assert said("The loss is nan on both the CPU and the GPU.") == []
    assert said("My loss becomes nan after a few steps.") == []


def test_noise_for_outputs_is_a_wrong_result_and_not_just_noise_is_none():
    assert said("On tensorflow-metal, model.predict() returns random noise.") == [
        ("GPU", False, "returns random noise")]
    assert said("The predictions are pure noise on the GPU.") == [("GPU", False, "predictions are pure noise")]
    assert said("On the CPU the output is not just noise.") == []
    assert said("On the GPU there is a lot of noise in the fan.") == []


def test_a_run_collapsed_onto_one_answer_is_wrong_and_the_same_as_the_cpu_is_not():
    assert said("On the GPU the model always predicts the same class.") == [
        ("GPU", False, "always predicts the same class")]
    assert said("With tensorflow-metal, tf.random.uniform always returns the same value.") == [
        ("GPU", False, "always returns the same value")]
    assert said("On the GPU I get the same output for every image.") == [
        ("GPU", False, "the same output for every image")]
    assert said("On the GPU it always gives the same results as the CPU.") == []  # agreement
    assert said("On the CPU it gives the same results on every run.") == []  # reproducible


def test_a_problem_said_not_to_happen_is_a_right_result_where_the_plugin_is_not_installed():
    assert said("The problem does not occur on the CPU.") == [("CPU", True, "The problem does not occur")]
    assert said("Neither does this issue happen when tensorflow-metal is not installed.") == [
        ("CPU", True, "Neither does this issue happen")]
    assert said("Once the metal plugin was removed, training doesn't have this problem.") == [
        ("CPU", True, "doesn't have this problem")]
    assert said("The crash does not happen when the plugin isn't installed.") == []  # not a result


def test_wrong_values_with_the_plugin_beside_none_without_it_is_the_gpu_computing_wrong():
    text = ("With tensorflow-metal 0.4 installed, my sampler always returns the same number. "
            "The problem does not occur when the Metal plugin is not installed.")
    (found,) = wrong_on_the_gpu(keep.from_bytes(text.encode(), "posted.md"))
    assert found.basis == "reported" and "always returns the same number" in found.title


def test_a_comparisons_half_without_a_device_speaks_of_the_half_before():
    assert said("On the CPU it is very slow, but the results are consistent.") == [
        ("CPU", True, "results are consistent")]
    assert said("On the GPU it is fast, but the loss becomes nan.") == [("GPU", False, "loss becomes nan")]
    assert said("On the GPU it is fast, but on the CPU it converges.") == [("CPU", True, "converges")]
    assert said("On the GPU it is fast. The results are consistent.") == []  # a new sentence, not a half
    assert said("On the GPU the loss is nan, but the model still converges.") == [("GPU", False, "loss is nan")]


def test_another_machines_gpu_is_no_device_of_the_report():
    """A Mac report compares with the GPU of another machine: it is the reference, not Metal."""
    assert said("I trained the same model on an Nvidia GPU and it trains fine.") == []
    assert said("On my RTX 3090 GPU it works fine, while with tensorflow-metal the outputs are garbage.") == [
        ("GPU", False, "outputs are garbage")]
    assert said("With Colab's GPU it converges.") == []
    assert said("On my M1 GPU it converges.") == [("GPU", True, "converges")]


def test_progress_lines_take_the_device_of_their_heading():
    text = ("with tensorflow-metal (GPU)\n"
            "1875/1875 [==============================] - 16s 8ms/step - loss: nan - accuracy: 0.0987\n"
            "CPU only:\n"
            "1875/1875 [==============================] - 9s 5ms/step - loss: 0.2934 - accuracy: 0.9143\n")
    assert said(text) == [("GPU", False, "loss: nan"), ("CPU", True, "loss: 0.2934")]
    assert said(text.replace("with tensorflow-metal (GPU)\n", "")) == [("CPU", True, "loss: 0.2934")]


def test_the_gpu_wrong_needs_the_cpu_right_and_no_cpu_run_wrong():
    both = keep.from_bytes(b"With TensorFlow on the GPU the loss becomes nan. On the CPU it trains fine.", "posted.md")
    (f,) = wrong_on_the_gpu(both)
    assert f.title == ('By the text\'s own words, the GPU computes wrong where the CPU is right '
                       '(GPU: "loss becomes nan"; CPU: "trains fine")')
    assert f.remediation.commands[0].startswith("tfdoctor probe --model MODEL")
    torch = keep.from_bytes(b"With torch on mps the loss becomes nan. On the CPU it trains fine.", "posted.md")
    assert wrong_on_the_gpu(torch) == []  # PyTorch's GPU, not TensorFlow's
    alone = keep.from_bytes(b"On the GPU the loss becomes nan.", "posted.md")
    assert wrong_on_the_gpu(alone) == []
    mixed = keep.from_bytes(b"With tf.keras on the GPU the loss becomes nan. On the CPU it trains fine. "
                            b"With a larger learning rate the CPU diverges too.", "posted.md")
    assert wrong_on_the_gpu(mixed) == []


def test_a_gpu_not_found_beside_a_cpu_that_works_is_no_wrong_result():
    assert wrong_on_the_gpu(keep.from_bytes(
        b"What am I doing wrong? TensorFlow does not find the GPU, but the CPU works fine.", "posted.md")) == []


def test_only_the_first_results_per_device_and_verdict_are_kept():
    lines = "CPU only:\n" + "\n".join(
        f"100/100 [==============================] - 1s 5ms/step - loss: 0.{i}" for i in range(50))
    assert len(said(lines)) == MAX_PER_KIND
