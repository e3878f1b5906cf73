"""What a text says of its own results on the GPU and on the CPU.

A GPU that computes wrong shows in a report as a contrast: the same code whose loss turns to NaN,
which diverges, stops learning or gives other outputs on the GPU trains or predicts right on the
CPU ("with tensorflow-metal the loss becomes nan, while on the CPU it converges", "without the
GPU it trains fine"). Two shapes say it:
- sentences (and the halves of a comparison: "..., but on the CPU ...") that name one device
  (tfdoctor.logtext.devices: words that take the GPU away name the CPU) and a result: wrong
  (a NaN or infinite loss or output, diverges, wrong / different / garbage results, does not
  learn or converge, a loss or accuracy stuck) or right (converges, trains or works fine or
  correctly, correct results);
- Keras' progress lines under a line that names one device alone (a heading, as
  tfdoctor.logtext.speeds reads them): "loss: nan" is a wrong run, a finite loss a run that
  trained.
A half of a comparison that names no device speaks of the one the half before it named without
a result ("on the CPU it is slow, but the results are right"). Another machine's GPU ("an Nvidia
GPU") is no device of the report (tfdoctor.logtext.devices.OTHER_GPU). A result with no device, or
with both, says nothing of either. Only the contrast is a verdict,
and checks/model_health.py draws it: a GPU run wrong beside a CPU run right (a model's own NaN
fails everywhere). Only a few results per device and verdict are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tfdoctor.facts.pasted_log import TextOutcome
from tfdoctor.logtext.devices import (LONGEST, NOT_THE_USERS, PROGRESS, comparison_halves, heading_after, labels,
                                      sentence_ends)
from tfdoctor.logtext.scan import lines_with

MAX_PER_KIND = 6
"""Results kept per device and verdict: the first ones (a long log repeats the same epoch line)."""

_THING = r"(?:loss(?:es)?|outputs?|predictions?|values?|weights?|gradients?|results?|logits)"
_LEARN = r"(?:learn|converge|train|improve|minimi[sz]e)"
_SAME = r"(?:values?|numbers?|results?|outputs?|predictions?|class(?:es)?|labels?|tokens?)"
"""What a run that collapsed onto one answer gives the same of."""
_PROBLEM = r"(?:problem|issue|bug|behaviou?r)"
WRONG = re.compile(
    rf"\b{_THING}\b(?:(?!\bnot\b|n't|\bnever\b|\bno\b)[^.!?\n]){{0,40}}?\b(?:nan|inf)\b"
    rf"|\bnans?\b[ \t]{{0,3}}(?:in[ \t]{{1,3}})?(?:the[ \t]{{1,3}})?{_THING}\b"
    r"|\bdiverg(?:e|es|ed|ing|ence)\b"
    rf"|\b(?:wrong|incorrect|garbage|nonsense|meaningless|different)[ \t]{{1,3}}{_THING}"
    rf"|\b{_THING}[ \t]{{1,3}}(?:are|is|were|was)[ \t]{{1,3}}(?:all[ \t]{{1,3}})?(?:wrong|incorrect|garbage|nonsense|different)\b"
    r"|\b(?:returns?|returned|returning|gives?|gave|giving|produces?|produced|outputs?|predicts?)[ \t]{1,3}"
    r"(?:(?:just|only|pure|random)[ \t]{1,3}){0,2}noise\b"
    rf"|\b{_THING}[ \t]{{1,3}}(?:are|is|were|was)[ \t]{{1,3}}(?:(?:just|only|pure|random)[ \t]{{1,3}}){{0,2}}noise\b"
    rf"|\b(?:does(?:n't|[ \t]not)|did(?:n't|[ \t]not)|won't|will[ \t]not|never|unable[ \t]to|fails?[ \t]to)[ \t]{{1,3}}{_LEARN}\b"
    r"|\bnot[ \t]{1,3}(?:learning|converging|improving|minimi[sz]ing)\b"
    r"|\b(?:loss|accuracy)\b[^.!?\n]{0,30}?\bstuck\b"
    r"|\balways[ \t]{1,3}(?:returns?|gives?|picks?|produces?|predicts?|generates?|outputs?)[ \t]{1,3}the[ \t]{1,3}same"
    rf"[ \t]{{1,3}}(?:{_SAME})(?![ \t]{{1,3}}as\b)"
    rf"|\bthe[ \t]{{1,3}}same[ \t]{{1,3}}(?:{_SAME})[ \t]{{1,3}}(?:on|for|at|in|from)[ \t]{{1,3}}(?:every|each|all)[ \t]{{1,3}}"
    r"(?:calls?|inputs?|images?|samples?|examples?|rows?|draws?)\b",
    re.IGNORECASE)
"""A run that computed wrong: "the loss becomes nan" (not "the loss does not become nan"), "NaN
loss", "diverges", "wrong results", "the predictions are garbage", "predict() returns random
noise" (not "not just noise"), "doesn't learn", "does not minimize loss", "accuracy is stuck at
0.1", "always predicts the same class" (not "... the same result as the CPU"), "the same value
on every call" (a random op, or a model that collapsed onto one output; "on every run" may be
reproducibility, so it is not read)."""
RIGHT = re.compile(
    r"\bconverg(?:e|es|ed|ing)\b"
    r"|\b(?:works?|worked|working|trains?|trained|training|learns?|learned|behaves?)[ \t]{1,3}(?:just[ \t]{1,3})?"
    r"(?:fine|well|correctly|normal(?:ly)?|perfectly|properly|as[ \t]expected)\b"
    rf"|\b(?:correct|expected|sensible|reasonable)[ \t]{{1,3}}{_THING}"
    rf"|\b{_THING}[ \t]{{1,3}}(?:are|is|were|was|looks?)[ \t]{{1,3}}(?:correct|fine|ok|okay|as[ \t]expected|sensible|consistent)\b"
    rf"|\b(?:the|this|that)[ \t]{{1,3}}{_PROBLEM}[ \t]{{1,3}}(?:does(?:n't|[ \t]not)|did(?:n't|[ \t]not)|never)[ \t]{{1,3}}"
    r"(?:occur|happen|appear|show[ \t]up)"
    rf"|\bneither[ \t]{{1,3}}(?:does|did)[ \t]{{1,3}}(?:the|this|that)[ \t]{{1,3}}{_PROBLEM}[ \t]{{1,3}}(?:occur|happen|appear)"
    rf"|\b(?:does(?:n't|[ \t]not)|did(?:n't|[ \t]not)|do(?:n't|[ \t]not))[ \t]{{1,3}}have[ \t]{{1,3}}(?:the|this|that|the[ \t]same)[ \t]{{1,3}}{_PROBLEM}",
    re.IGNORECASE)
"""A run that computed right: "converges", "trains fine", "works as expected", "correct results",
"the results are consistent", and a wrong result said not to happen there: "the problem does not
occur", "neither does this issue happen", "does not have this problem"."""
_ELLIPSIS = re.compile(r"[ \t,]{0,3}(?:(?:but|and|while|whereas)[ \t]{1,3})?(?:the[ \t]{1,3})?(?:on[ \t]{1,3}(?:the[ \t]{1,3})?)?"
                       r"(?:CPUs?|GPUs?)[ \t]{1,3}(?:does|did|do|can|is|was|works?)[ \t]{0,3}[.!]?[ \t]{0,3}$",
                       re.IGNORECASE)
"""The other half of a contrast whose verb is left out: "GPU does not minimize loss and CPU does"."""
_DENIAL = re.compile(r"\bnot\b|n't\b|\bnever\b|\bunable\b|\bfails?\b", re.IGNORECASE)
"""A wrong result said by denying a right one ("does not minimize"), which an ellipsis undoes."""
_AND = re.compile(r"[ \t]{1,20}and[ \t]{1,20}(?=(?:on[ \t]{1,3})?(?:the[ \t]{1,3})?(?:CPU|GPU)s?\b)", re.IGNORECASE)
"""An "and" that opens the other half of a comparison ("..., and the CPU does")."""
_BOTH = re.compile(r"\bboth\b", re.IGNORECASE)
"""What makes an "and" join two devices of one result ("nan on both the CPU and the GPU")."""
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno[ \t]longer|\bfails?[ \t]to|\bunable[ \t]to|\bcannot)"
                      r"[ \t]{1,3}(?:\w{1,20}[ \t]{1,3}){0,2}$", re.IGNORECASE)
"""What turns a right result just after it around ("it does not converge")."""
_LOSS = re.compile(r"\bloss:[ \t]{0,3}(?P<value>nan|-?inf|-?\d{1,12}(?:\.\d{1,12})?(?:e[-+]?\d{1,3})?)\b",
                   re.IGNORECASE)
_DEVICE_WORD = re.compile(r"[CcGg][Pp][Uu]|[Mm]etal|METAL|[Mm][Pp][Ss]")
_CANDIDATE = re.compile(_DEVICE_WORD.pattern + "|loss:")
"""What a line must hold to matter: a device word, or a progress line's loss (a quick search over
a whole block; only the lines it finds are read)."""


@dataclass
class OutcomeReader:
    """Fed a text's lines in order (each once), keeps the results it can give a device."""

    heading: str | None = None
    last_line: int = 0
    kept: list[TextOutcome] = field(default_factory=list)

    def feed_block(self, text: str, first: int) -> None:
        """A block of the text whose first line is line `first`: only its lines that name a device
        or give a loss are read, each once."""
        if self.heading is None and not _DEVICE_WORD.search(text):
            return  # no heading to give a loss to and no device named: nothing to read (a quick test)
        for number, line in lines_with(text, first, _CANDIDATE, self.last_line):
            self.last_line = number
            self.feed(number, line)

    def feed(self, number: int, line: str) -> None:
        if len(line) > LONGEST or NOT_THE_USERS.match(line):
            return
        if PROGRESS.match(line):
            loss = _LOSS.search(line)
            if loss and self.heading:
                value = loss.group("value").lower()
                self._keep(TextOutcome(self.heading, value.lstrip("-") not in ("nan", "inf"), number, loss.group(0)))
            return
        said, previous = False, None  # previous: the result of the sentence before, when one was said
        ends = sorted(set(sentence_ends(line)) | {m.end() for m in _AND.finditer(line)
                                                  if not _BOTH.search(line, max(0, m.start() - 40), m.start())})
        found = labels(line)
        halves = comparison_halves(line)
        begins, carried = 0, set()
        for end in ends:
            devices = {label.device for label in found if begins <= label.start < end}
            result = _result(line[begins:end])
            if not devices and begins in halves:
                # "On the CPU it is slow, but the results are right": the half names no device of
                # its own, so it speaks of the one the half before named without a result
                devices = set(carried)
            if result is None and previous is not None and _ELLIPSIS.match(line, begins, end):
                # "GPU does not minimize loss and CPU does": the verb denied before, done here;
                # "GPU gives a nan loss and CPU does": the same result again
                undone = not previous[0] and _DENIAL.search(previous[1]) is not None
                result = (previous[0] or undone, line[begins:end].strip(" \t,."))
            if result is not None:
                said = True
                if len(devices) == 1:
                    self._keep(TextOutcome(devices.pop(), result[0], number, result[1]))
            previous = result
            carried = devices if result is None and len(devices) == 1 else set()
            begins = end
        if not said:
            self.heading = heading_after(line, found, self.heading)
        elif len({label.device for label in found}) > 1:
            self.heading = None  # a line about both heads neither

    def _keep(self, outcome: TextOutcome) -> None:
        if sum(1 for o in self.kept if (o.device, o.right) == (outcome.device, outcome.right)) < MAX_PER_KIND:
            self.kept.append(outcome)


def _result(sentence: str) -> tuple[bool, str] | None:
    """(right, the words) of what one sentence says of a run's result, if it says one: a wrong
    result outranks a right one in the same sentence."""
    wrong = WRONG.search(sentence)
    if wrong:
        return False, wrong.group(0)
    right = RIGHT.search(sentence)
    if right is None:
        return None
    if _NEGATED.search(sentence, max(0, right.start() - 40), right.start()):
        return False, sentence[max(0, right.start() - 40):right.end()].strip()
    return True, right.group(0)
