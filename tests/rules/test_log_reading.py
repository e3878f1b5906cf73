"""checks/log_reading.py: a log that could not be read, and one read but recognised nowhere, are
findings of their own, never a crash."""

from __future__ import annotations

from log_cases import WHO, LogRules
from snapshots import apple_silicon, snap

from tfdoctor.logtext import keep

check = LogRules("log_reading")


def test_unreadable_logs_are_a_finding_not_a_crash(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    binary = tmp_path / "model.h5"
    binary.write_bytes(b"\x89HDF\r\n\x1a\n\x00\x00\x00\x00" * 100)
    for path, problem in ((empty, "empty"), (binary, "a binary file, not a log"),
                          (tmp_path / "missing.log", "no such file"), (tmp_path, "is a directory, not a log file")):
        s = snap(apple_silicon())
        s.log = keep.read(path, identity=WHO)
        f = one_plain(check.run(s), "log.unreadable")
        assert f.evidence["problem"] == problem


def one_plain(findings: list, code: str):
    found = [f for f in findings if f.code == code]
    assert len(found) == 1, [f.code for f in findings]
    return found[0]


def test_a_log_without_known_errors_says_so(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("Epoch 1/3\n469/469 - loss: 0.31 - accuracy: 0.91\n", encoding="utf-8")
    s = snap(apple_silicon())
    s.log = keep.read(path, identity=WHO)
    f = one_plain(check.run(s), "log.not-recognised")
    assert "2 lines" in f.title
