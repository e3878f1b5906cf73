"""What a text says of its own speed on the GPU and on the CPU.

People who find the Mac's GPU slower (or faster) show it with their own timings, in two shapes:
- Keras' progress lines under a line that says which device ran them: "with tensorflow-metal
  (GPU)" then "1875/1875 [====] - 16s 8ms/step - loss: ...", "CPU only:" then "... 481us/step"
  (Keras' Progbar prints the time per step, older releases per sample);
- sentences: "the time is 56 minutes/epoch. When I am only using the CPU is 264 seconds/epoch",
  "670ms/step. If I uninstall tensorflow-metal, it takes only 20ms/step".

A figure takes the device its own sentence names: the one right after it ("8ms on the GPU"),
else the nearest before it. Without one, it takes the device of the last line that named one
device alone and gave no figure (a heading: "with tensorflow-metal (GPU)", "with
tf.device('/CPU:0'):"). A sentence that takes the GPU away ("without tensorflow-metal",
"uninstall the plugin", "disable the GPU") names the CPU, and the figures just before it that no
device claims are the run it changed: the GPU's. TensorFlow's own log lines and the plugin's
start-up lines name devices for their own reasons and are not read (the device words are
tfdoctor.logtext.devices'). Only a few figures per device and unit are kept;
tfdoctor.derived.text_speed compares them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from tfdoctor.facts.pasted_log import TextTiming
from tfdoctor.logtext.devices import LONGEST, NOT_THE_USERS, PROGRESS, Label, heading_after, labels, sentence_ends
from tfdoctor.logtext.scan import lines_with

MAX_PER_KIND = 12
"""Figures kept per device and unit: the first ones (a long log repeats the same epoch line)."""
CHANGED_RUN_LINES = 8
"""How far before a sentence that takes the GPU away its unclaimed figures are the GPU's run."""

_UNITS = {"us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "secs": 1.0,
          "second": 1.0, "seconds": 1.0, "min": 60.0, "mins": 60.0, "minute": 60.0,
          "minutes": 60.0, "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0, "hours": 3600.0}
_PER = {"step": "step", "steps": "step", "it": "step", "iteration": "step", "batch": "step",
        "sample": "sample", "epoch": "epoch"}
_AMOUNT = (r"(?<![\w.,/-])~?(?P<n>\d{1,6}(?:\.\d{1,6})?)[ \t]?"
           r"(?P<unit>us|µs|μs|ms|secs?|[Ss]econds?|s|mins?|[Mm]inutes?|hrs?|[Hh]ours?|h)(?![\w])")
_PER_UNIT = r"[ \t]?(?:/|per[ \t])[ \t]?(?P<per>steps?|iteration|it|batch|sample|epoch)\b"
FIGURE = re.compile(f"{_AMOUNT}(?:{_PER_UNIT})?")
"""A duration: "8ms/step", "481us/step", "56 minutes/epoch", "~140s per epoch", "2.5 s" (not a
model number: "i7-9850H")."""
_PER_FIGURE = re.compile(_AMOUNT + _PER_UNIT)
"""A duration per step or sample, the one figure of a progress line that is read."""
_PER_HINT = re.compile(r"/(?:st|it|ba|sa|ep)|per ")
"""What a progress line's figure per step or sample holds (a quick test before _PER_FIGURE)."""
_COMPOUND = re.compile(r"[ \t]{0,3}")
"""What stands between the parts of one duration after its hours or minutes: "1min 25s", "2h 7min
25s" (Keras' "16s 8ms/step" is two figures: the epoch's time and the step's)."""
_EPOCH_WORDS = re.compile(r"\bepoch[ \t]times?\b|\btime[ \t]per[ \t]epoch\b|\b(?:each|every|an?|one)[ \t]epoch\b",
                          re.IGNORECASE)
"""A line whose figures without a unit of their own are the times of an epoch."""
_CANDIDATE = re.compile(r"\d[ \t]?(?:[uµμm]s|s|sec|[Ss]econd|min|[Mm]inute|h|[Hh]our)|"
                        r"[CcGg][Pp][Uu]|[Mm]etal|METAL|[Mm][Pp][Ss]")
"""What a line must hold to matter: a number with a unit's first letters, or a device word (a quick
search over a whole block; only the lines it finds are read)."""
_MARKS = (*"0123456789", "pu", "PU", "Pu", "etal", "ETAL", "ps", "PS")
"""Substrings one of which every candidate holds (a digit, or the tail of cpu, gpu, metal, mps)."""
_FOLLOWS = re.compile(r"[ \t]{0,3}(?:\(|(?:on|with|using|in|for|via|through|under)\b)[^,;:|()]{0,20}",
                      re.IGNORECASE)
"""What joins a figure to the device named right after it: "8ms/step on the GPU", "21 s (CPU)"."""


@dataclass
class SpeedReader:
    """Fed a text's lines in order (each once), keeps the figures it can give a device."""

    heading: str | None = None
    last_line: int = 0
    kept: list[TextTiming] = field(default_factory=list)
    unclaimed: list[TextTiming] = field(default_factory=list)
    """Figures no device claimed, in the last CHANGED_RUN_LINES lines."""

    def feed_block(self, text: str, first: int) -> None:
        """A block of the text whose first line is line `first`: only its lines that could hold a
        figure or name a device are read (a line without either changes nothing), each once."""
        if not any(mark in text for mark in _MARKS):
            return  # no digit and no device word: nothing to read (a quick test of the whole block)
        for number, line in lines_with(text, first, _CANDIDATE, self.last_line):
            self.last_line = number
            self.feed(number, line)

    def feed(self, number: int, line: str) -> None:
        if len(line) > LONGEST or NOT_THE_USERS.match(line) or "CPU times:" in line:
            return
        progress = PROGRESS.match(line) is not None  # only its figure per step or sample is read
        if progress and (_PER_HINT.search(line) is None or _PER_FIGURE.search(line) is None):
            return  # an update with its ETA only
        found = [] if progress else labels(line)
        figures = [f for f in _figures(line) if not progress or f.per]
        if not figures:
            self.heading = heading_after(line, found, self.heading)
            return
        self.unclaimed = [t for t in self.unclaimed if t.line > number - CHANGED_RUN_LINES][-MAX_PER_KIND:]
        ends = sentence_ends(line)
        starts = [label.start for label in found]
        per_epoch = bool(_EPOCH_WORDS.search(line))
        for figure in figures:
            sentence = bisect.bisect_right(ends, figure.start)
            begins = ends[sentence - 1] if sentence else 0
            label = _claim(line, figure, found, starts, begins, ends[min(sentence, len(ends) - 1)])
            device = label.device if label else self.heading
            timing = TextTiming(device or "", figure.seconds, figure.per or ("epoch" if per_epoch else ""),
                                number, figure.said)
            if not device:
                self.unclaimed = self.unclaimed[-MAX_PER_KIND + 1:] + [timing]
                continue
            self._keep(timing)
            if label and label.takes_gpu_away:
                for earlier in self.unclaimed:
                    self._keep(TextTiming("GPU", earlier.seconds, earlier.per, earlier.line, earlier.said))
                self.unclaimed = []

    def _keep(self, timing: TextTiming) -> None:
        if sum(1 for t in self.kept if (t.device, t.per) == (timing.device, timing.per)) < MAX_PER_KIND:
            self.kept.append(timing)


@dataclass(frozen=True)
class _Figure:
    start: int
    end: int
    seconds: float
    per: str
    said: str
    unit: str
    """The unit of its last part, lower case (what a following part must be smaller than)."""


def _figures(line: str) -> list[_Figure]:
    """The durations of a line, the parts of one ("1min 25s") added up."""
    out: list[_Figure] = []
    for match in FIGURE.finditer(line):
        unit = match.group("unit").lower()
        seconds = float(match.group("n")) * _UNITS[unit]
        per = _PER.get((match.group("per") or "").lower(), "")
        last = out[-1] if out else None
        if (last and not last.per and _UNITS[last.unit] >= 60 and _UNITS[last.unit] > _UNITS[unit]
                and _COMPOUND.fullmatch(line[last.end:match.start()])):
            out[-1] = _Figure(last.start, match.end(), last.seconds + seconds, per,
                              line[last.start:match.end()].strip()[:40], unit)
        elif seconds > 0:
            out.append(_Figure(match.start(), match.end(), seconds, per, match.group(0).strip()[:40], unit))
    return out


def _claim(line: str, figure: _Figure, labels: list[Label], starts: list[int], begins: int,
           ends: int) -> Label | None:
    """The device a figure's sentence (from `begins` to `ends`) gives it: named right after it
    ("8ms/step on the GPU"), else the nearest before it."""
    after = bisect.bisect_left(starts, figure.end)
    if (after < len(labels) and labels[after].start < ends and labels[after].start - figure.end <= 40
            and _FOLLOWS.fullmatch(line, figure.end, labels[after].start)):
        return labels[after]
    before = bisect.bisect_right(starts, figure.start) - 1
    if before >= 0 and labels[before].end > figure.start:
        before -= 1  # a label around the figure ("without 2 GPUs") is not before it
    return labels[before] if before >= 0 and labels[before].start >= begins else None
