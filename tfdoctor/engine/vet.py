"""Advice is checked before it is printed.

- It acts on the environment the evidence came from, or on none: a log finding whose log names
  another OS or Python (tfdoctor.derived.log_origin) changes nothing here; its advice is to find
  that environment and diagnose it.
- It does no harm: a finding's commands are applied to the snapshot as data
  (tfdoctor.advice.whatif) and the rules run again on the result. A command after which the
  environment has an error or a warning it did not have is withheld, and the finding says what
  it would have caused. A change the what-if cannot model is neither confirmed nor withheld.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from tfdoctor import codes
from tfdoctor.advice.whatif import WouldFail, after
from tfdoctor.derived import derive
from tfdoctor.derived.log_origin import log_origin
from tfdoctor.engine.registry import load_registry
from tfdoctor.engine.run import (
    ENGINE_CODES,
    applicable,
    findings_of,
    run_rules,
    sections_of,
)
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.model import Change, Finding, Remediation, Severity

WITHHELD = "withheld_advice"
ELSEWHERE = "log_from_elsewhere"
OTHER_PYTHON = "PYTHON"
"""The placeholder for another environment's interpreter in a printed `tfdoctor --python`."""
"""Evidence key of a log finding whose log came from another environment: why tfdoctor thinks so."""
PIP_REFUSES = codes.LOG_PIP_NO_MATCHING_DISTRIBUTION
"""What a prescription pip would refuse brings: the user pastes pip's refusal next."""
"""Evidence key of a finding whose commands were withheld."""


@dataclass(frozen=True)
class Verdict:
    """What the rules say of the environment after a prescription."""

    conclusive: bool
    """False when the what-if could not model a change (nothing is known of the result)."""
    new_problems: tuple[str, ...] = ()
    """Codes of errors and warnings the result has that the environment did not have."""

    @property
    def wrong(self) -> bool:
        return bool(self.new_problems)


class Vet:
    """Judges prescriptions for one snapshot, each distinct set of changes once."""

    def __init__(self, snapshot: Snapshot, findings: Iterable[Finding], matrix: CompatMatrix | None) -> None:
        self.snapshot = snapshot
        self.matrix = matrix
        self.before = {f.code for f in findings if f.severity >= Severity.WARNING}
        self.origin = log_origin(snapshot)
        self._verdicts: dict[tuple[Change, ...], Verdict] = {}

    def judge(self, changes: Sequence[Change]) -> Verdict:
        key = tuple(changes)
        if key not in self._verdicts:
            self._verdicts[key] = self._judge(key)
        return self._verdicts[key]

    def _judge(self, changes: tuple[Change, ...]) -> Verdict:
        if not changes:
            return Verdict(True)
        try:
            result = after(self.snapshot, changes, self.matrix) if self.matrix is not None else None
            if result is None:
                return Verdict(False)
            registry = applicable(result, load_registry(sections_of(result)))
            found = {f.code for f in run_rules(result, registry, derived=derive(result))
                     if f.severity >= Severity.WARNING and f.code not in ENGINE_CODES}  # a crash is not the advice's
        except WouldFail:
            return Verdict(True, (PIP_REFUSES,))
        except Exception:  # noqa: BLE001 - facts the what-if cannot read leave the advice unjudged
            return Verdict(False)
        return Verdict(True, tuple(sorted(found - self.before)))

    def vetted(self, finding: Finding) -> Finding:
        """The finding, with the commands whose changes would bring a new problem withheld."""
        fix = finding.remediation
        if fix is None or not fix.changes:
            return finding
        if finding.code.startswith("log.") and self.origin.elsewhere:
            return self._elsewhere(finding, fix)
        verdict = self.judge(fix.changes)
        if not verdict.wrong:
            return finding
        kept = tuple(c for c in fix.commands if not getattr(c, "changes", ()))
        withheld = [str(c) for c in fix.commands if getattr(c, "changes", ())]
        text = (f"{fix.text} (tfdoctor withheld the command it would have given: after it, it "
                f"would find {', '.join(verdict.new_problems)})")
        evidence = {**finding.evidence, WITHHELD: {"commands": withheld,
                                                    "would_find": list(verdict.new_problems)}}
        return replace(finding, remediation=Remediation(text, kept, fix.link, fix.code), evidence=evidence)


    def _elsewhere(self, finding: Finding, fix: Remediation) -> Finding:
        """The log's advice, for the environment that printed it: find that Python, diagnose it."""
        log = self.snapshot.log
        source = log.source if log is not None and log.source not in ("", "-", "<stdin>") else "FILE"
        find = ('python -c "import sys; print(sys.executable)"',
                f"tfdoctor check --python {OTHER_PYTHON} --log {shlex.quote(source)}")
        kept = tuple(c for c in fix.commands if not getattr(c, "changes", ()))
        why = "; ".join(self.origin.reasons)
        text = (f"This log came from another environment ({why}), so nothing here needs to change: "
                "in the shell where the error happened, print that Python's path, and diagnose it "
                f"with the log ({OTHER_PYTHON} is the path printed)")
        evidence = {**finding.evidence, ELSEWHERE: list(self.origin.reasons),
                    WITHHELD: {"commands": [str(c) for c in fix.commands if getattr(c, "changes", ())],
                               "would_find": []}}
        return replace(finding, remediation=Remediation(text, kept + find, fix.link, fix.code), evidence=evidence)


def vet_findings(snapshot: Snapshot, findings: list[Finding], matrix: CompatMatrix | None) -> list[Finding]:
    """Every finding with its advice checked (see the module's doc)."""
    vet = Vet(snapshot, findings, matrix)
    return [vet.vetted(f) for f in findings]


def checked_commands(snapshot: Snapshot, commands: Sequence[str],
                     matrix: CompatMatrix | None) -> tuple[list[str], Verdict]:
    """Commands given outside any finding (`tfdoctor matrix --for-this-machine`), checked as a
    finding's are: all of them when the result brings no new problem, none otherwise."""
    vet = Vet(snapshot, findings_of(snapshot), matrix)  # only what it finds
    verdict = vet.judge([c for command in commands for c in getattr(command, "changes", ())])
    return ([] if verdict.wrong else list(commands)), verdict
