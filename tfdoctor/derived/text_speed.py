"""The GPU against the CPU, by a text's own timings (tfdoctor.logtext.speeds reads them).

A text's figures are compared only like for like: per step with per step (Keras' progress lines
print that), else per sample, per epoch, or whole runs; the median of each side, so one slow
first epoch does not decide. A verdict needs every figure of one side above every figure of the
other, and the medians APART: a person's figures are rounded, from runs on a busy laptop, and
carry no repeats to test.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from tfdoctor.facts.pasted_log import LogTextFacts, TextTiming
from tfdoctor.inside.shared.probe_stats import FASTER, SLOWER

APART = 1.3
"""How much slower one side must be for a verdict (the probes' own margin is 10%, on repeats)."""
UNITS = ("step", "sample", "epoch", "")
"""Which figures are compared, in order of preference."""


@dataclass(frozen=True)
class TextSpeed:
    """The text's GPU and CPU figures for one unit, and what they say."""

    per: str
    gpu: tuple[TextTiming, ...]
    cpu: tuple[TextTiming, ...]

    @property
    def gpu_seconds(self) -> float:
        return median(t.seconds for t in self.gpu)

    @property
    def cpu_seconds(self) -> float:
        return median(t.seconds for t in self.cpu)

    @property
    def decision(self) -> str | None:
        """The probes' SLOWER or FASTER for the GPU; None when the figures are too close to tell
        or the two sides overlap (a table of several models, or runs that differ in more than
        the device, is no verdict)."""
        gpu = [t.seconds for t in self.gpu]
        cpu = [t.seconds for t in self.cpu]
        if min(gpu) > max(cpu) and self.gpu_seconds >= self.cpu_seconds * APART:
            return SLOWER
        if min(cpu) > max(gpu) and self.cpu_seconds >= self.gpu_seconds * APART:
            return FASTER
        return None

    def said(self, device: str) -> str:
        """The figures of one side as the text wrote them, with their lines."""
        side = self.gpu if device == "GPU" else self.cpu
        return ", ".join(f"{t.said} (line {t.line})" for t in side[:3]) + (" ..." if len(side) > 3 else "")


def text_speed(log: LogTextFacts | None) -> TextSpeed | None:
    """The first unit for which the text gives figures on both devices."""
    if log is None:
        return None
    for per in UNITS:
        gpu = tuple(t for t in log.timings if t.per == per and t.device == "GPU")
        cpu = tuple(t for t in log.timings if t.per == per and t.device == "CPU")
        if gpu and cpu:
            return TextSpeed(per, gpu, cpu)
    return None
