"""tfdoctor.triage.questions: a command is asked for the diagnoses its own fact tells apart, so
one fact's command never stands in for another's."""

from __future__ import annotations

from tfdoctor.facts.unknown import KNOWABLE
from tfdoctor.triage.outcome import triage_text


def test_the_python_and_the_macos_are_each_asked_for_what_they_alone_decide():
    """An M1 with tensorflow-macos 2.16.1 and tensorflow-metal 1.1.0, neither the Python's
    architecture nor the macOS stated: an x86_64 Python is Rosetta whatever the macOS; on an
    arm64 Python, macOS 11 is below TensorFlow 2.16's floor and macOS 14 is not. Knowing the
    Python does not tell the macOS, so both commands are asked."""
    got = triage_text("report", b"MacBook Pro M1, tensorflow-macos 2.16.1 and tensorflow-metal 1.1.0. "
                                b"The GPU is not used.\n")
    asked = {q.fact: set(q.separates) for q in got.questions}
    assert {"arch.rosetta"} <= asked["python-arch"]
    assert {"compat.macos-too-old", "(no diagnosis)"} <= asked["macos"]
    assert "arch.rosetta" not in asked["macos"]  # the macOS does not decide Rosetta
    assert [q.command for q in got.questions if q.fact == "macos"] == [KNOWABLE["macos"].command]
