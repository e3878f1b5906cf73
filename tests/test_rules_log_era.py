"""checks/log_era.py: the text of Apple's 2020-21 ML Compute fork (its device API, ML Compute's own
log lines: apple/tensorflow_macos#58 and #218, tests/data/logs/) judged with the installed TensorFlow."""

from __future__ import annotations

from log_cases import LOGS, WHO, LogRules, one
from snapshots import apple_silicon, merge, snap, tf_219_metal_120

from tfdoctor.logtext import keep
from tfdoctor.model import Severity

check = LogRules("log_era")


def test_the_forks_text_where_no_tensorflow_is_listed_is_the_fork_speaking():
    data = merge(apple_silicon(packages=[]), {"unknown": ["packages"]})
    for name in ("mlcompute_device_before_init.txt", "mlcompute_subgraph_failed.txt"):
        f = one(check.diagnose(data, name), "log.mlcompute-fork")
        assert f.severity is Severity.WARNING and "ML Compute fork" in f.title


def test_fork_code_run_on_a_plugin_era_tensorflow_is_told_to_drop_the_mlcompute_lines():
    s = snap(apple_silicon(packages=tf_219_metal_120()))
    s.log = keep.read(LOGS / "mlcompute_device_before_init.txt", identity=WHO)
    findings = check.run(s)
    assert "compat.mlcompute-fork" not in [f.code for f in findings]
    (f,) = [f for f in findings if f.code == "log.mlcompute-fork"]
    assert f.severity is Severity.ERROR and "tensorflow 2.19.1 does not have" in f.title
    assert f.remediation.commands == ()  # nothing to install: the code changes
