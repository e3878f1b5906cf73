"""What a text says of its process's memory growing as it trains or predicts.

A leak shows in a report in two shapes:
- words: a sentence that names memory (RAM, the footprint), its growth (grows, increases,
  climbs, growth) and the work going on (every epoch, each call, in a loop, over time,
  continuously, keeps) in any order ("in each epoch the memory usage is increasing", "when
  calling model.predict in a loop memory grows"), and "memory leak" itself; a negation before
  the growth takes it back ("the memory does not increase");
- figures: three or more sizes (MB, GB) in a row, in one line that says they follow in time (an
  arrow, epochs, steps, "after"; not a table's row, which compares machines) or in nearby lines
  that each name memory and give one size ("Current memory usage: 904.02 MB", ...), that go up (a dip of 1% is
  a collection's), by a tenth or more, and still in their second half (a cache filled once then
  flat is no leak).
TensorFlow's own log lines (its allocator, the Metal plugin's systemMemory / maxCacheSize) give
sizes for their own reasons and are not read; a single out-of-memory error is no growth.
checks/model_health.py turns what is kept into model.memory-leak, as reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tfdoctor.facts.pasted_log import TextGrowth
from tfdoctor.logtext.devices import LONGEST, TF_LOG_LINE
from tfdoctor.logtext.scan import lines_with

MAX_KEPT = 4
"""Sayings kept: the first ones."""
SERIES_GAP = 3
"""Lines at most between two sizes of one series."""
GROWTH = 1.1
"""How much a series of sizes must grow, last over first, to be growth and not noise."""
STILL_GROWING = 1.03
"""How much its second half must grow too: memory that rose and then stayed flat is a cache filled
once, not a leak (the model probe's own criterion: growth that does not slow down)."""
DIP = 0.99
"""A size this far below the one before it still continues the series (a collection's dip)."""

_MEMORY = re.compile(r"\b(?:memory|RAM|footprint|RSS)\b", re.IGNORECASE)
_UP = re.compile(r"\b(?:grow(?:s|ing|n|th)?|increas(?:e|es|ed|ing)|ris(?:e|es|ing)|climb(?:s|ed|ing)?|"
                 r"go(?:es|ing)?[ \t]up|balloon(?:s|ed|ing)?|accumulat(?:e|es|ed|ing)|explod(?:e|es|ed|ing))\b",
                 re.IGNORECASE)
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno[ \t]longer|\bno)[ \t]{1,3}(?:\w{1,12}[ \t]{1,3})?$", re.IGNORECASE)
_WORK = re.compile(
    r"\b(?:every|each|per|after|with|over)[ \t]{1,3}(?:\w{1,12}[ \t]{1,3})?"
    r"(?:epochs?|steps?|batch(?:es)?|iterations?|calls?|predictions?|inferences?|loops?|runs?|time)\b"
    r"|\b(?:in|inside)[ \t]{1,3}a[ \t]{1,3}loop\b|\bcontinu(?:ous|ously|es|ing)\b|\bsteadily\b|"
    r"\bkeeps?\b|\bkept\b|\bendless(?:ly)?\b",
    re.IGNORECASE)
"""What ties growth to the work going on: every epoch, each call, in a loop, continuously, keeps
("memory grows until it crashes" says no more than that it is large)."""
_LEAK = re.compile(r"\bmemory[ \t]{1,3}leak(?:s|ing|age)?\b|\bleak(?:s|ing|ed)?[ \t]{1,3}(?:GPU[ \t]{1,3}|host[ \t]{1,3})?memory\b",
                   re.IGNORECASE)
_OVER_TIME = re.compile(r"→|->|=>|\b(?:epochs?|steps?|iterations?|batch(?:es)?|calls?|predictions?|after|then)\b",
                        re.IGNORECASE)
"""What makes the sizes of one line a run over time ("after each epoch: 1771 MB, 2377 MB, ...",
"1771 → 2377 → 2984 MB"), not sizes side by side (a table's row, "8GB, 16GB or 32GB of RAM")."""
_SENTENCE = re.compile(r"(?<=[.!?;])[ \t]{1,20}")
_SIZE = re.compile(r"(?<![\w.])(?P<n>\d{1,7}(?:\.\d{1,9})?)[ \t]?(?P<unit>[KMG]i?B)\b")
_UNIT_MB = {"kb": 1 / 1024, "kib": 1 / 1024, "mb": 1.0, "mib": 1.0, "gb": 1024.0, "gib": 1024.0}
_NAMES_MEMORY = re.compile(r"\b(?:memory|RAM|footprint|RSS|mem)\b", re.IGNORECASE)
_NOT_THE_USERS = re.compile(TF_LOG_LINE + r"|systemMemory|maxCacheSize|Allocator|ran out of memory", re.IGNORECASE)
"""TensorFlow's and absl's log lines, its allocator's and the Metal plugin's sizes."""
_CANDIDATE = re.compile(r"[Mm][Ee][Mm]|RAM|[Ff]ootprint|[Ll]eak|RSS")
"""What a line must hold to matter (a quick search over a whole block)."""


@dataclass
class GrowthReader:
    """Fed a text's lines in order (each once), keeps what says its memory grows."""

    last_line: int = 0
    series: list[tuple[int, float, str]] = field(default_factory=list)
    """The sizes of the series being read: (line, MB, as written)."""
    kept: list[TextGrowth] = field(default_factory=list)

    def feed_block(self, text: str, first: int) -> None:
        """A block of the text whose first line is line `first`: only its lines that name memory
        are read, each once."""
        for number, line in lines_with(text, first, _CANDIDATE, self.last_line):
            self.last_line = number
            self.feed(number, line)

    def feed(self, number: int, line: str) -> None:
        if len(self.kept) >= MAX_KEPT:
            return
        if len(line) > LONGEST or _NOT_THE_USERS.search(line) or not _NAMES_MEMORY.search(line):
            return
        words = _said_growing(line)
        if words:
            self.kept.append(TextGrowth(number, words, []))
            return
        sizes = [(m.group(0), float(m.group("n")) * _UNIT_MB[m.group("unit").lower()]) for m in _SIZE.finditer(line)]
        if len(sizes) >= 3:
            if line.count("|") < 2 and (_OVER_TIME.search(line) or _UP.search(line)):  # one run, over time
                self._keep_if_growing([(number, mb, said) for said, mb in sizes])
        elif len(sizes) == 1:
            said, mb = sizes[0]
            if self.series and (number - self.series[-1][0] > SERIES_GAP or mb < DIP * self.series[-1][1]):
                self.series = []  # too far, or it fell: a series starts again here
            self.series.append((number, mb, said))
            if len(self.series) >= 3 and self._keep_if_growing(self.series):
                self.series = []

    def _keep_if_growing(self, series: list[tuple[int, float, str]]) -> bool:
        """Keep a series of sizes that only goes up, by GROWTH or more."""
        sizes = [mb for _line, mb, _said in series]
        if not all(b >= DIP * a for a, b in zip(sizes, sizes[1:])) or not sizes[-1] >= GROWTH * sizes[0] > 0 \
                or sizes[-1] < STILL_GROWING * sizes[len(sizes) // 2]:
            return False
        said = " → ".join(s for _line, _mb, s in series[:6])
        self.kept.append(TextGrowth(series[0][0], said, [round(mb, 1) for mb in sizes[:12]]))
        return True


def _said_growing(line: str) -> str | None:
    """The sentence's words that say memory grows as the work goes on ("in each epoch the memory
    usage is increasing", "memory grows over time", "continuous memory growth"), or a memory leak
    named; None where a negation takes the growth back ("the memory does not increase")."""
    leak = _LEAK.search(line)
    if leak:
        return leak.group(0)
    begins = 0
    for cut in [*(m.end() for m in _SENTENCE.finditer(line)), len(line)]:
        sentence = line[begins:cut]
        begins = cut
        memory, up, work = _MEMORY.search(sentence), _UP.search(sentence), _WORK.search(sentence)
        if memory and up and work and not _NEGATED.search(sentence, max(0, up.start() - 30), up.start()):
            ends = [memory.end(), up.end(), *(m.end() for m in _WORK.finditer(sentence))]
            first, last = min(memory.start(), up.start(), work.start()), max(ends)
            return sentence[first:last].strip()
    return None
