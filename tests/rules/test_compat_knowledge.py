"""compat.stale-knowledge (checks/compat_knowledge.py): said when the bundled matrix's facts are
old against the snapshot or an installed release is newer than any it knows; never fetched.
Snapshots as tests/rules/test_compat_pairing.py builds them."""

from __future__ import annotations

from snapshots import RuleModules, linux_cpu, snap

from rules.test_compat_pairing import mac
from tfdoctor.knowledge.matrix import load_matrix
from tfdoctor.model import Severity

knowledge = RuleModules("compat_knowledge")


def run(data):
    return knowledge.run(snap(data))




def _stale(data):
    return [f for f in run(data) if f.code == "compat.stale-knowledge"]


def _days_after_facts(days: int) -> str:
    import datetime

    read = datetime.date.fromisoformat(load_matrix().facts_read[:10])
    return f"{read + datetime.timedelta(days=days)}T10:00:00+00:00"


def test_matrix_older_than_120_days_is_said_with_how_to_refresh():
    (f,) = _stale(mac("2.19.1", "1.2.0", created=_days_after_facts(200)))
    assert f.severity is Severity.INFO and f.evidence["age_days"] == 200
    assert f"read on {load_matrix().facts_read}, 200 days before this snapshot" in f.title
    assert "git pull" in f.remediation.text and not f.remediation.commands  # nothing fetched
    assert not _stale(mac("2.19.1", "1.2.0", created=_days_after_facts(100)))
    assert not _stale(mac("2.19.1", "1.2.0"))  # no date: nothing to compare


def test_installed_release_newer_than_the_matrix_knows_is_said():
    (f,) = _stale(mac("2.99.0", "9.1.0", created=_days_after_facts(1)))
    assert "the installed tensorflow 2.99.0 is newer than every TensorFlow release it knows" in f.title
    assert "tensorflow-metal 9.1.0 is newer than every tensorflow-metal release it knows" in f.title
    assert not _stale(linux_cpu())  # tensorflow-cpu 2.19.1 is known
