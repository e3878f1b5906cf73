"""Facts of one name that cannot all be true, and why that may be.

Two values agree when both can hold: equal, or one a shorter form of the other (Python 3.10 and
3.10.4, macOS 13 and 13.2.1, "Apple M1" and "Apple M1 Max"). Only the reporter's own text is
compared: a quoted reply may describe someone else's machine. Some disagreements are not errors
but the diagnosis itself (an arm64 Mac, an x86_64 Python: Rosetta), and the reason says so.
"""

from __future__ import annotations

from typing import Callable

from tfdoctor.triage.evidence import CONDA_PACKAGE, ENVIRONMENT, PACKAGE, QEMU_CONTAINER, Contradiction, Fact
from tfdoctor.triage.vocabulary import compatible

SEVERAL_ALLOWED = frozenset({"env_manager", "python_path", "python_prefix", "conda_prefix",
                             "conda_root", "cpu_brand"})
"""Names a report may rightly give several values of (a venv made from a pyenv Python; a
traceback through two environments)."""
MAX_VALUES = 16
"""Distinct values of one name compared pairwise at most (a report has two or three)."""

_VERSIONS = frozenset({"macos_version", "macos_version_reported", "python_version", "tensorflow_version"})
_HINTS = {
    "python_arch": "on an Apple-silicon Mac this is Rosetta 2, not a mistake: the machine is arm64 "
                   "while an x86_64 Python runs translated; what the process printed is what it "
                   "runs as",
    "python_version": "more than one Python may be installed; the one that ran the failing command "
                      "is the one to diagnose",
    "hw_arm64": "a Mac cannot be both: one of the pastes may come from another machine",
    "macos_version": "an upgrade between the pastes, or output from another machine",
}
_PACKAGE_HINT = "two environments, or an install between the pastes"
_VARIABLE_HINT = ("set one way, then another: which value held when the error was printed is not "
                  "known, so the variable is not judged")
_TWO_MACHINES = ("the report's chips disagree too: it describes two machines, each Python its own "
                 "machine's (not Rosetta 2)")


def _words_prefix(a: str, b: str) -> bool:
    left, right = a.lower().split(), b.lower().split()
    shorter = min(len(left), len(right))
    return left[:shorter] == right[:shorter]


def _agree(name: str) -> Callable[[str, str], bool]:
    if name in _VERSIONS or name.startswith(PACKAGE):
        return lambda a, b: not a or not b or compatible(a, b)
    if name.startswith(CONDA_PACKAGE):
        return lambda a, b: compatible(a.split(" ", 1)[0], b.split(" ", 1)[0])
    if name == "container":
        return lambda a, b: QEMU_CONTAINER in (a, b) or _words_prefix(a, b)
    if name == "chip":
        return _words_prefix
    if name == "python_binary_archs":
        return lambda a, b: set(a.split()) == set(b.split())
    return lambda a, b: a.lower() == b.lower()


def contradictions(facts: list[Fact]) -> list[Contradiction]:
    """Every name whose facts in the reporter's own text disagree, in the order names first
    appear."""
    by_name: dict[str, list[Fact]] = {}
    several = SEVERAL_ALLOWED | ({"os"} if any(f.name == "container" for f in facts) else set())
    for fact in facts:  # a container runs Linux on its Mac host: both OSs hold
        if not fact.quoted and fact.name not in several:
            by_name.setdefault(fact.name, []).append(fact)
    out = []
    two_machines = _disagree(by_name.get("hw_arm64", []))
    for name, group in by_name.items():
        values = list(dict.fromkeys(fact.value for fact in sorted(group, key=Fact.rank)))[:MAX_VALUES]
        if len(values) < 2:
            continue
        agree = _agree(name)
        against = {v for v in values if any(not agree(v, w) for w in values if w != v)}
        if against:
            parts = tuple(sorted((f for f in group if f.value in against), key=lambda f: f.line))
            out.append(Contradiction(name, parts, _why(name, parts, two_machines)))
    return out


def _disagree(group: list[Fact]) -> bool:
    return len({fact.value for fact in group}) > 1


def _why(name: str, facts: tuple[Fact, ...], two_machines: bool = False) -> str:
    said = "; ".join(f"{fact.value or '(no version)'} ({fact.how}, {fact.source}, line {fact.line})"
                     for fact in facts[:6])
    more = f"; and {len(facts) - 6} more" if len(facts) > 6 else ""
    hint = _HINTS.get(name) or (_PACKAGE_HINT if name.startswith((PACKAGE, CONDA_PACKAGE)) else
                                _VARIABLE_HINT if name.startswith(ENVIRONMENT) else "")
    if name == "python_arch" and not {"arm64", "x86_64"} <= {f.value for f in facts}:
        hint = ""
    elif name == "python_arch" and two_machines:
        hint = _TWO_MACHINES
    return f"{name} is {said}{more}" + (f": {hint}" if hint else "")
