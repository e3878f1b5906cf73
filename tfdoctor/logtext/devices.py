"""Which device a line of a report speaks of: the words that name the GPU or the CPU, the words
that take the GPU away (what they describe ran on the CPU), and the lines that name devices for
their own reasons. tfdoctor.logtext.speeds (the text's timings) and tfdoctor.logtext.outcomes (its
results) read a report's sentences with them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

NOT_THE_USERS = re.compile(
    r"^[ \t>]{0,10}(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?:?[ \t]{1,3}[IWEF][ \t]|"
    r"[IWEF]\d{4}[ \t]\d\d:\d\d:\d\d|Metal device set to|Init (?:Plugin|Graph Optimizer|Kernel)|"
    r"systemMemory|maxCacheSize|Num GPUs Available|\[?PhysicalDevice\b|Epoch \d)", re.IGNORECASE)
"""TensorFlow's and absl's log lines, the Metal plugin's start-up lines, device lists, Keras' epoch
headers (and, anywhere in a line, IPython's %time output "CPU times: user 11.6 s": the process's
CPU time, not a run on the CPU): they name devices whatever ran, so they neither head lines nor
label what a line says."""
NO_GPU = re.compile(
    r"\b(?:without|w/o|no|uninstall(?:ed|ing)?|remov(?:e|ed|ing)|disabl(?:e|ed|ing)|"
    r"turn(?:ed|ing)?[ \t]off|deactivat(?:e|ed|ing))\b[^.!?\n]{0,30}?"
    r"(?:\bGPUs?\b|tensorflow[-_]metal\b|\bmetal\b|\bplugin\b)|set_visible_devices\([ \t]{0,4}\[[ \t]{0,4}\]",
    re.IGNORECASE)
"""Words that take the GPU away: what they describe ran on the CPU."""
CPU = re.compile(r"\bCPUs?\b|/cpu:0|cpu[-_ ]only", re.IGNORECASE)
GPU = re.compile(r"\bGPUs?\b|tensorflow[-_]metal\b|\bmetal\b|\bmps\b|/gpu:0", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?;])[ \t]{1,20}|"
                      r"[ \t]{1,20}(?:vs\.?|versus|compared (?:to|with)|whereas|while|but)[ \t]{1,20}",
                      re.IGNORECASE)
"""Where a sentence ends, and where a comparison's halves meet ("8ms on the GPU vs 1ms on the CPU")."""


@dataclass(frozen=True)
class Label:
    """A device a line names, and where."""

    device: str
    start: int
    end: int
    takes_gpu_away: bool = False


def labels(line: str) -> list[Label]:
    """The devices a line names, where: the GPU taken away first (its words name the GPU too)."""
    away = [Label("CPU", m.start(), m.end(), True) for m in NO_GPU.finditer(line)]
    ends = [label.end for label in away]  # in order, as the labels do not overlap
    found = list(away)
    for device, words in (("CPU", CPU), ("GPU", GPU)):
        for m in words.finditer(line):
            inside = bisect.bisect_right(ends, m.start())  # the first taken-away span ending after it
            if inside == len(away) or away[inside].start > m.start():
                found.append(Label(device, m.start(), m.end()))
    return sorted(found, key=lambda label: label.start)


def sentence_ends(line: str) -> list[int]:
    """Where the line's sentences end (and the halves of a comparison), the line's end last."""
    return [cut.end() for cut in SENTENCE.finditer(line)] + [len(line)]
