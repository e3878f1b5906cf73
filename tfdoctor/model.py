"""The diagnosis vocabulary: severities, remediations, findings, rules and checks.

A rule (as in ruff) is one stable code, its documentation, and a pure function of the fact snapshot
and the facts derived from it, returning a finding or nothing; the finding is made from the rule's
own doc, so code and severity are never retyped. Every finding carries a remediation made of
commands a person or a script can run (brew's Finding/Remediation). Rules are grouped into report
areas by code prefix, as flutter groups validators; a crashing rule becomes a finding too.

`Check` is the older, coarser plugin interface (one `run(snapshot)` per area): third-party plugins
written against it keep working.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Mapping

if TYPE_CHECKING:
    from tfdoctor.derived import Derived
    from tfdoctor.facts.snapshot import Snapshot


class Severity(str, enum.Enum):
    """How bad a finding is; ordered so that `max()` picks the worst."""

    OK = "ok"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANKS[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank >= other.rank


_RANKS = {Severity.OK: 0, Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}

BASES = ("observed", "reported", "table", "inferred")
"""Kinds of evidence, strongest first: the report leads with what was observed."""


DIAGNOSED = "diagnosed"
"""The environment a Change acts on when it is the diagnosed interpreter's own."""


@dataclass(frozen=True)
class Change:
    """What one command does to an environment, as data before it is a command line: the
    what-if (tfdoctor.advice.whatif) applies it to the snapshot and the rules judge the result
    before the command is printed (tfdoctor.engine.vet).

    `action` is "install" (PEP 508 `requirements`, pip `options` such as --upgrade), "uninstall"
    (distribution names), "new-env" (a fresh environment at `environment` made with Python
    `python`, e.g. "3.12"), "set-env" / "unset-env" (the shell variable `variable`), "run-as"
    (the interpreter is started as the architecture `value` from now on: `arch -arm64`)."""

    action: Literal["install", "uninstall", "new-env", "set-env", "unset-env", "run-as"]
    environment: str = DIAGNOSED
    """DIAGNOSED, or the directory of the environment a "new-env" change created."""
    requirements: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    python: str | None = None
    variable: str | None = None
    value: str | None = None


class Command(str):
    """A shell command line that knows what it changes: printed as text, judged as `changes`.
    Rendered from its changes (tfdoctor.advice.commands), never parsed back from text."""

    changes: tuple[Change, ...]

    def __new__(cls, text: str, changes: Iterable[Change] = ()) -> "Command":
        made = super().__new__(cls, text)
        made.changes = tuple(changes)
        return made


@dataclass(frozen=True)
class Remediation:
    """What to do about a finding: a sentence, the shell commands to run, the lines of the user's
    own code to change (shown as code, never as something to paste into a shell), and a link.
    `changes` is what the commands do to environments, collected from them (see Command)."""

    text: str
    commands: tuple[str, ...] = ()
    link: str | None = None
    code: tuple[str, ...] = ()
    changes: tuple[Change, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "changes", tuple(
            change for command in self.commands for change in getattr(command, "changes", ())))

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "commands": [str(c) for c in self.commands], "link": self.link,
                "code": list(self.code), "changes": [dataclasses.asdict(c) for c in self.changes]}


@dataclass(frozen=True)
class FixAnswer:
    """What `tfdoctor fix` does about a code's findings, declared with the code (`fix_answer=` in
    `rule`): when `answered`, a step of fix's plan answers them and `how` says which; otherwise
    `how` says why no fix step can. tfdoctor.advice.fix_answers holds the built-in answers."""

    answered: bool
    how: str


@dataclass(frozen=True)
class Finding:
    """One conclusion drawn from the facts.

    `evidence` holds the facts the conclusion rests on (copied, so a report can show them without
    the snapshot); `explains` lists the codes of other findings that this one is the cause of, so
    the report can lead with root causes instead of symptoms.
    """

    code: str
    severity: Severity
    title: str
    evidence: Mapping[str, Any] = field(default_factory=dict)
    remediation: Remediation | None = None
    detail: str = ""
    explains: tuple[str, ...] = ()
    check: str = ""
    basis: str = "observed"
    """The kind of evidence it rests on, strongest first: "observed" (facts of this machine: the
    import, devices, placement, probes, binaries), "reported" (public reports, the plugin binary's
    load check), "table" (Apple's table, wheel tags), "inferred" (release dates)."""
    fix_answer: FixAnswer | None = None
    """What `tfdoctor fix` does about it, as its code declares (None: not declared, not answered)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "title": self.title,
            "detail": self.detail,
            "evidence": dict(self.evidence),
            "remediation": self.remediation.to_dict() if self.remediation else None,
            "explains": list(self.explains),
            "check": self.check,
            "basis": self.basis,
        }


@dataclass(frozen=True)
class CodeDoc:
    """What `tfdoctor explain CODE` prints: the stable meaning of a finding code."""

    title: str
    severity: Severity
    why: str
    fix: str
    link: str | None = None
    fix_answer: FixAnswer | None = None
    """Whether a step of `tfdoctor fix`'s plan answers this code's findings, and how (or why not)."""


@dataclass(frozen=True)
class Rule:
    """One diagnosis: its code, its documentation and the pure function that decides it.

    `explains` names the codes (tfdoctor.codes constants) of findings this one is the cause of.
    A `summary` rule states the all-clear of its module: it runs only when no other rule of the
    same module found a problem (a warning or worse).
    """

    code: str
    doc: CodeDoc
    func: Callable[["Snapshot", "Derived"], Any]
    explains: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    """Snapshot sections the rule reads (e.g. "runtime"): skipped when they were not gathered. A
    need of alternatives ("model|log") is met by any one of them."""
    summary: bool = False

    @property
    def area(self) -> str:
        return self.code.split(".", 1)[0]

    def __call__(self, snapshot: "Snapshot", derived: "Derived") -> list[Finding]:
        produced = self.func(snapshot, derived)
        if produced is None:
            return []
        return [produced] if isinstance(produced, Finding) else list(produced)

    def finding(self, evidence: Mapping[str, Any] | None = None, fix: Remediation | None = None, *,
                title: str | None = None, detail: str = "", explains: Iterable[str] = (),
                severity: Severity | None = None, basis: str = "observed") -> Finding:
        """A finding of this rule: its code, its severity (unless the evidence calls for another)
        and its title unless a more specific one is given."""
        return Finding(self.code, severity or self.doc.severity, title or self.doc.title,
                       dict(evidence or {}), fix, detail, tuple(self.explains) + tuple(explains),
                       basis=basis, fix_answer=self.doc.fix_answer)


def emitter(*rules: Rule) -> Callable[..., Finding]:
    """For a module where one classification of the facts picks among several of its rules (how
    an import failed, what a probe verdict says): `emit(code, title, evidence, fix, ...)` makes
    the finding of the rule named by `code`, from that rule's doc."""
    by_code = {r.code: r for r in rules}

    def emit(code: str, title: str, evidence: Mapping[str, Any], fix: Remediation | None,
             explains: Iterable[str] = (), detail: str = "", severity: Severity | None = None) -> Finding:
        return by_code[code].finding(evidence, fix, title=title, detail=detail, explains=explains,
                                     severity=severity)

    return emit


def rule(code: str, title: str, severity: Severity, why: str, fix: str, link: str | None = None, *,
         explains: Iterable[str] = (), needs: Iterable[str] = (), summary: bool = False,
         fix_answer: FixAnswer | None = None) -> Callable[[Callable[..., Any]], Rule]:
    """Declare a rule: `@rule(codes.X, title, severity, why, fix, fix_answer=...)` above
    `def f(s, d)`. The decorated name becomes the Rule, so its body builds findings with
    `f.finding(...)`."""

    def declare(func: Callable[..., Any]) -> Rule:
        return Rule(code, CodeDoc(title, severity, why, fix, link, fix_answer), func, tuple(explains),
                    tuple(needs), summary)

    return declare


@dataclass(frozen=True)
class Check:
    """A registered diagnosis: `run(snapshot)` returns findings and never gathers facts itself.

    Built-in and third-party checks register the same way, through the `tfdoctor.checks`
    entry-point group; an entry point names a Check (or a list of them).
    """

    name: str
    area: str
    summary: str
    run: Callable[["Snapshot"], Iterable[Finding]]
    codes: Mapping[str, CodeDoc] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    """Snapshot sections the check reads, e.g. ("runtime",): skipped when they were not gathered."""
    order: int = 100
    """Where its line goes in the report: the built-ins follow the way facts flow (interpreter,
    architecture, installation, compatibility, run time, speed); plugins come after them."""
