"""Which device a line of a report speaks of: the words that name the GPU or the CPU, the words
that take the GPU away (what they describe ran on the CPU), the lines that name devices for their
own reasons, a heading that gives its device to the lines after it, and Keras' progress lines.
tfdoctor.logtext.speeds (the text's timings) and tfdoctor.logtext.outcomes (its results) read a
report's sentences with them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

LONGEST = 2000
"""Characters of a line read at most (a longer one is not prose or a progress line)."""
HEADING = 120
"""A line naming one device alone, no longer than this and saying nothing else the reader wants,
heads the lines after it."""
TF_LOG_LINE = (r"^[ \t>]{0,10}(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?:?[ \t]{1,3}[IWEF][ \t]|"
               r"[IWEF]\d{4}[ \t]\d\d:\d\d:\d\d)")
"""The start of a TensorFlow or absl log line ("2021-07-27 14:56:50.639552: I ...", "I0727 14:56:50")."""
NOT_THE_USERS = re.compile(
    TF_LOG_LINE + r"|^[ \t>]{0,10}(?:Metal device set to|Init (?:Plugin|Graph Optimizer|Kernel)|"
    r"systemMemory|maxCacheSize|Num GPUs Available|\[?PhysicalDevice\b|Epoch \d)", re.IGNORECASE)
"""TensorFlow's and absl's log lines, the Metal plugin's start-up lines, device lists, Keras' epoch
headers (and, anywhere in a line, IPython's %time output "CPU times: user 11.6 s": the process's
CPU time, not a run on the CPU): they name devices whatever ran, so they neither head lines nor
label what a line says."""
NO_GPU = re.compile(
    r"\b(?:without|w/o|no|uninstall(?:ed|ing)?|remov(?:e|ed|ing)|disabl(?:e|ed|ing)|"
    r"turn(?:ed|ing)?[ \t]off|deactivat(?:e|ed|ing))\b[^.!?\n]{0,30}?"
    r"(?:\bGPUs?\b|tensorflow[-_]metal\b|\bmetal\b|\bplugin\b)|set_visible_devices\([ \t]{0,4}\[[ \t]{0,4}\]"
    r"|(?:tensorflow[-_]metal\b|\bmetal\b|\bplugin\b)[^.!?\n,]{0,20}?\b(?:is|was|are|were)(?:n't|[ \t]{1,3}not)[ \t]{1,3}"
    r"(?:installed|present|loaded|enabled)\b"
    r"|(?:tensorflow[-_]metal\b|\bmetal\b|\bplugin\b)[^.!?\n,]{0,20}?\b(?:is|was|are|were)[ \t]{1,3}"
    r"(?:uninstalled|removed|disabled)\b",
    re.IGNORECASE)
"""Words that take the GPU away: what they describe ran on the CPU ("without tensorflow-metal",
"after uninstalling the plugin", "when the Metal plugin is not installed", "once metal was
removed")."""
OTHER_GPU = re.compile(r"\b(?:nvidia|cuda|geforce|rtx|gtx|quadro|tesla|radeon|amd|colab(?:'s)?)\b"
                       r"(?:[ \t]{1,3}[\w-]{1,12}){0,2}?[ \t]{1,3}GPUs?\b", re.IGNORECASE)
"""Another machine's GPU ("an Nvidia GPU", "my RTX 3090 GPU", "Colab's GPU"): the reference a Mac
report compares with, not the GPU tensorflow-metal runs on, so it names no device of the report."""
CPU = re.compile(r"\bCPUs?\b|/cpu:0|cpu[-_ ]only", re.IGNORECASE)
GPU = re.compile(r"\bGPUs?\b|tensorflow[-_]metal\b|\bmetal\b|\bmps\b|/gpu:0", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?;])[ \t]{1,20}|"
                      r"[ \t]{1,20}(?:vs\.?|versus|compared (?:to|with)|whereas|while|but)[ \t]{1,20}",
                      re.IGNORECASE)
"""Where a sentence ends, and where a comparison's halves meet ("8ms on the GPU vs 1ms on the CPU")."""
PROGRESS = re.compile(r"^[ \t]{0,20}\d{1,9}/\d{1,9}[ \t]{0,4}(?:\[[=>.]{0,200}\]|━|─|\|)")
"""A Keras progress line ("1875/1875 [====] - 16s 8ms/step - loss: 0.29", Keras 3's "━━━━ 3s 1ms/step")."""


@dataclass(frozen=True)
class Label:
    """A device a line names, and where."""

    device: str
    start: int
    end: int
    takes_gpu_away: bool = False


def labels(line: str) -> list[Label]:
    """The devices a line names, where: the GPU taken away first (its words name the GPU too);
    another machine's GPU (OTHER_GPU) names none."""
    away = [Label("CPU", m.start(), m.end(), True) for m in NO_GPU.finditer(line)]
    taken = [(label.start, label.end) for label in away]
    other = [(m.start(), m.end()) for m in OTHER_GPU.finditer(line)]
    found = list(away)
    for device, words in (("CPU", CPU), ("GPU", GPU)):
        for m in words.finditer(line):
            if not _inside(m.start(), taken) and not _inside(m.start(), other):
                found.append(Label(device, m.start(), m.end()))
    return sorted(found, key=lambda label: label.start)


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `at` lies in one of the spans (in order, not overlapping)."""
    index = bisect.bisect_right(spans, (at, float("inf"))) - 1  # the last span starting at or before it
    return index >= 0 and at < spans[index][1]


def sentence_ends(line: str) -> list[int]:
    """Where the line's sentences end (and the halves of a comparison), the line's end last."""
    return [cut.end() for cut in SENTENCE.finditer(line)] + [len(line)]


def comparison_halves(line: str) -> set[int]:
    """Where a comparison's second half begins ("..., but ..."), as opposed to a new sentence."""
    return {cut.end() for cut in SENTENCE.finditer(line) if cut.group().strip()}


def heading_after(line: str, found: list[Label], heading: str | None) -> str | None:
    """The heading in force after a line that says nothing else the reader wants: the device it
    names alone when it is short ("with tensorflow-metal (GPU)", "CPU only:"), none after a line
    about both, the one before otherwise."""
    devices = {label.device for label in found}
    if len(devices) == 1 and len(line.strip()) <= HEADING:
        return devices.pop()
    return None if len(devices) > 1 else heading
