"""checks/log_era.py: the text of Apple's 2020-21 ML Compute fork (its device API, ML Compute's own
log lines: apple/tensorflow_macos#58 and #218, tests/data/logs/) judged with the installed TensorFlow."""

from __future__ import annotations

from log_cases import LOGS, WHO, LogRules, one
from snapshots import _pkg, apple_silicon, merge, snap, tf_219_metal_120

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


def test_a_tensorflow_before_the_plugin_era_printing_the_forks_text_is_the_fork():
    """The fork names itself TensorFlow 2.4.0-rc0 (its README: "TensorFlow r2.4rc0"), and no
    TensorFlow before 2.5 has tensorflow-metal or the fork's mlcompute module: a report stating
    that version with the fork's text is the fork at work, not fork code on another TensorFlow."""
    s = snap(apple_silicon(packages=[_pkg("tensorflow", "2.4.0rc0", [])]))
    s.log = keep.read(LOGS / "mlcompute_device_before_init.txt", identity=WHO)
    findings = LogRules("log_era", "compat_era").run(s)
    (f,) = [f for f in findings if f.code == "log.mlcompute-fork"]
    assert "does not have" not in f.title and f.severity is Severity.WARNING  # its failure
    assert f.title.startswith("ML Compute fork: tensorflow 2.4.0rc0 is Apple's unmaintained fork")
    assert "compat.mlcompute-fork" not in [f.code for f in findings]  # installed as `tensorflow`: the text tells it


def test_the_forks_ops_in_a_graph_are_the_fork():
    # apple/tensorflow_macos#133: TFLiteConverter meets the fork's MLCMatMul on an Intel Mac
    s = snap(merge(apple_silicon(packages=[]), {"unknown": ["packages"]}))
    s.log = keep.read(LOGS / "mlcompute_op_tflite.txt", identity=WHO)
    (f,) = [f for f in LogRules("log_era", "compat_era").run(s) if f.code == "log.mlcompute-fork"]
    assert f.severity is Severity.WARNING and f.evidence["log_op"] == "MLCMatMul"


def test_a_traceback_through_the_fork_installers_environment_is_the_fork():
    """install_venv.sh's default environment (~/tensorflow_macos_venv, Python 3.8 only):
    apple/tensorflow_macos#225's import failure there is the fork failing, whatever the report
    lists; with a plugin-era TensorFlow here, only the folder's name is the fork's (information)."""
    f = one(check.diagnose(merge(apple_silicon(packages=[]), {"unknown": ["packages"]}),
                           "mlcompute_installer_venv_import.txt"), "log.mlcompute-fork")
    assert f.severity is Severity.WARNING and f.title.startswith("ML Compute fork:")
    s = snap(apple_silicon(packages=tf_219_metal_120()))
    s.log = keep.read(LOGS / "mlcompute_installer_venv_import.txt", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.mlcompute-fork"]
    assert f.severity is Severity.INFO and "installer's environment" in f.title and "2.19.1" in f.title


def test_the_forks_code_beside_an_objective_c_exception_named_in_words_is_the_fork_failing(tmp_path):
    """A report of the fork that names only the exception's type ("I get an error due to an exception
    `NSInvalidArgumentException`", the abort's line cut) shows the fork failing: a warning, the way
    out of the fork; the same code with no failure is the fork at work (information)."""
    code = ("from tensorflow.python.compiler.mlcompute import mlcompute\n"
            "mlcompute.set_mlc_device(device_name='gpu')\n")
    data = merge(apple_silicon(packages=[]), {"unknown": ["packages"]})
    for words, severity in (("I also get an error due to an exception `NSInvalidArgumentException`.\n",
                             Severity.WARNING), ("It trains.\n", Severity.INFO)):
        (tmp_path / "posted.md").write_text(code + words)
        s = snap(data)
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        (f,) = [f for f in check.run(s) if f.code == "log.mlcompute-fork"]
        assert f.severity is severity
