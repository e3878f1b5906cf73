"""What to ask a reporter: the fewest commands whose output would decide between the causes a
report leaves open.

Each fact the report does not state is tried with the values it can take on such a machine
(the Python's architecture: arm64 or x86_64; the Mac: Apple silicon or Intel; the package list:
complete as pasted; the macOS: releases either side of the plugin's floor; TF_USE_LEGACY_KERAS
set or not, where tf-keras is installed), and the report is
diagnosed again for each. A fact whose values lead to different diagnoses is worth a command;
the commands are chosen greedily until every pair of diagnoses the facts allow is told apart.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import product
from typing import Callable

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.unknown import KNOWABLE

LEGACY_KERAS = "TF_USE_LEGACY_KERAS"
"""Whether tf.keras is tf_keras (Keras 2) or Keras 3, where both are installed."""
COLLECT = "tfdoctor collect --format markdown"
"""Always worth asking of an undecided Mac report: every fact at once, redacted, ready to paste."""
UNDECIDED = "(no diagnosis)"


@dataclass(frozen=True)
class Question:
    command: str
    fact: str
    """The KNOWABLE name it reads ("" for tfdoctor collect, which reads them all)."""
    separates: tuple[str, ...]
    """The diagnoses (finding codes) its answer tells apart."""


def _arch(s: Snapshot, arch: str) -> Snapshot:
    assert s.python is not None
    translated = bool(s.host.hw_arm64) and arch == "x86_64"
    return dataclasses.replace(s, python=dataclasses.replace(s.python, process_arch=arch, translated=translated))


def _chip(s: Snapshot, apple: bool) -> Snapshot:
    host = dataclasses.replace(s.host, hw_arm64=apple, chip=s.host.chip or ("Apple M1" if apple else "Intel"))
    return dataclasses.replace(s, host=host)


def _legacy_keras(s: Snapshot, value: str | None) -> Snapshot:
    env = {k: v for k, v in s.env.items() if k != LEGACY_KERAS}
    return dataclasses.replace(s, env=env if value is None else {**env, LEGACY_KERAS: value})


def _macos(s: Snapshot, version: str) -> Snapshot:
    return dataclasses.replace(s, host=dataclasses.replace(s.host, macos_version=version,
                                                           macos_version_reported=version))


Variant = Callable[[Snapshot], Snapshot]
VARIANTS: dict[str, list[tuple[str, Variant]]] = {
    "chip": [("Apple silicon", lambda s: _chip(s, True)), ("Intel", lambda s: _chip(s, False))],
    "macos": [(v, lambda s, v=v: _macos(s, v)) for v in ("11.7", "12.7", "14.5")],
    "python-arch": [(a, lambda s, a=a: _arch(s, a)) for a in ("arm64", "x86_64")],
    "environment": [(f"{LEGACY_KERAS}=1", lambda s: _legacy_keras(s, "1")),
                    (f"{LEGACY_KERAS} unset", lambda s: _legacy_keras(s, None))],
}
"""For each fact a report may leave open, the machines it could describe, in the order they are
applied (the chip first: whether an x86_64 Python is translated depends on it)."""


def _applies(s: Snapshot, fact: str) -> bool:
    if fact == "python-arch":
        return s.python is not None
    if fact == "environment":  # the one variable a rule decides on where the report is silent
        return s.package("tf-keras") is not None and LEGACY_KERAS not in s.env
    return s.host.system in ("Darwin", "")


def _known(s: Snapshot, *facts: str) -> Snapshot:
    return dataclasses.replace(s, unknown=[n for n in s.unknown if n not in facts])


def _top(s: Snapshot) -> str:
    found = diagnose(s, check_advice=False).diagnosis()  # only ranked: its advice is never shown
    return found.code if found else UNDECIDED


def questions(s: Snapshot, base: str) -> list[Question]:
    """The commands worth asking for, fewest first; `base` is the report's own diagnosis. Every
    machine the open facts allow is diagnosed (at most 2 x 3 x 2 x 2); a fact matters when two
    machines that differ only in it get different diagnoses, and its command tells those two
    apart (not every pair of diagnoses it is part of)."""
    open_facts = [f for f in VARIANTS if f in s.unknown and _applies(s, f)]
    worlds: dict[tuple[str, ...], str] = {}
    if open_facts:
        for labels in product(*(range(len(VARIANTS[f])) for f in open_facts)):
            world = _known(s, *open_facts)
            for fact, i in zip(open_facts, labels):
                world = VARIANTS[fact][i][1](world)
            worlds[labels] = _top(world)
    # per open fact: the pairs of diagnoses of two machines that differ in it alone
    pairs: dict[str, set[tuple[str, str]]] = {}
    for n, fact in enumerate(open_facts):
        for labels, top in worlds.items():
            for i in range(len(VARIANTS[fact])):
                other = worlds[labels[:n] + (i,) + labels[n + 1:]]
                if other != top:
                    pairs.setdefault(fact, set()).add((min(top, other), max(top, other)))
    if "packages" in s.unknown:
        complete = _top(_known(s, "packages"))
        if complete != base:
            pairs["packages"] = {(min(base, complete), max(base, complete))}
    wanted = set().union(*pairs.values())
    chosen: list[Question] = []
    while wanted:
        fact, told = max(pairs.items(), key=lambda kv: (len(wanted & kv[1]), kv[0]))
        if not wanted & told:
            break
        wanted -= told
        chosen.append(Question(KNOWABLE[fact].command, fact, tuple(sorted({t for pair in told for t in pair}))))
    if s.host.system in ("Darwin", "") and (chosen or base == UNDECIDED):
        separates = tuple(sorted({t for q in chosen for t in q.separates})) or (UNDECIDED,)
        chosen.append(Question(COLLECT, "", separates))
    return chosen
