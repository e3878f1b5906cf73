"""What the three log rule test modules share: the real error texts (tests/data/logs/, each with
its public source in SOURCES.json), read into a snapshot as `tfdoctor check --log` does, and the
checks every finding of an error text must pass."""

from __future__ import annotations

import json
from pathlib import Path

from snapshots import RuleModules, snap

from tfdoctor.logtext import keep
from tfdoctor.sanitize.redact import Identity

LOGS = Path(__file__).parent / "data" / "logs"
SOURCES = {t["file"]: t for t in json.loads((LOGS / "SOURCES.json").read_text(encoding="utf-8"))["texts"]}
WHO = Identity("/Users/ada", "ada", "ada-mbp")
ARM = ["cp311-cp311-macosx_12_0_arm64"]


class LogRules(RuleModules):
    def diagnose(self, data: dict, name: str) -> list:
        """The module's findings on a snapshot of `data` with the real text `name` as --log."""
        assert name in SOURCES, f"{name} has no public source"
        s = snap(data)
        s.log = keep.read(LOGS / name, identity=WHO)
        return self.run(s)


def one(findings: list, code: str):
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, [f.code for f in findings]
    assert found[0].basis == "observed" and found[0].evidence["matched"]
    return found[0]


def commands(finding) -> str:
    return " ".join(finding.remediation.commands)


def code(finding) -> str:
    """The lines of the user's code a finding asks to change (never shell commands)."""
    return " ".join(finding.remediation.code)
