"""checks/compat_era.py: Apple's 2020-21 ML Compute fork (tensorflow_macos 0.1alpha, TensorFlow 2.4)
told apart from the plugin era, by the installed version (the fork's wheel is tensorflow-macos 0.1a1;
tests/scenarios/*_tensorflow_macos_fork.json record it) or by the fork's own text
(apple/tensorflow_macos#58 and #218, tests/data/logs/), and never advised to take tensorflow-metal."""

from __future__ import annotations

from log_cases import LOGS, WHO, LogRules
from snapshots import _pkg, apple_silicon, merge, snap

from tfdoctor.logtext import keep
from tfdoctor.model import Severity

check = LogRules("compat_era", "compat_platform", "log_era")
FORK = _pkg("tensorflow-macos", "0.1a1", ["cp38-cp38-macosx_11_0_arm64"],
            ["numpy~=1.19.2", "h5py~=2.10.0", "protobuf>=3.9.2", "grpcio~=1.32.0"])


def fork_mac(macos: str = "13.4") -> dict:
    return merge(apple_silicon(packages=[FORK, _pkg("numpy", "1.19.5", ["cp38-cp38-macosx_11_0_arm64"])]),
                 {"python": {"version": "3.8.6"}, "host": {"macos_version": macos, "macos_version_reported": macos}})


def test_the_installed_fork_is_named_and_gets_the_way_to_the_plugin_era_not_the_plugin():
    findings = check.run(snap(fork_mac()))
    codes = [f.code for f in findings]
    assert "compat.no-metal" not in codes  # no tensorflow-metal exists for the fork
    (f,) = [f for f in findings if f.code == "compat.mlcompute-fork"]
    assert f.severity is Severity.INFO and "unmaintained ML Compute fork" in f.title  # works, but old
    assert f.remediation.commands == (("python3.12 -m venv ~/venvs/tf && ~/venvs/tf/bin/python -m pip "
                                       "install -- 'tensorflow==2.19.*' tensorflow-metal==1.2.0"),)
    assert "mlcompute.set_mlc_device" in f.remediation.code[0]
    assert "compat.no-metal" in f.explains


def test_on_big_sur_the_fork_is_told_to_wait_for_macos_12_not_given_an_empty_environment():
    (f,) = [f for f in check.run(snap(fork_mac("11.4"))) if f.code == "compat.mlcompute-fork"]
    assert f.remediation.commands == () and "macOS 12" in f.remediation.text


def test_the_forks_own_text_where_the_report_lists_no_packages_is_the_texts_story():
    """Observed in a text only, the fork is log.mlcompute-fork (the cause, with the same way out);
    compat.mlcompute-fork speaks of an installed fork and does not repeat it."""
    for name in ("mlcompute_device_before_init.txt", "mlcompute_subgraph_failed.txt"):
        data = merge(apple_silicon(packages=[]), {"unknown": ["packages"]})
        found = {f.code: f for f in check.diagnose(data, name)}
        assert "compat.mlcompute-fork" not in found
        f = found["log.mlcompute-fork"]
        assert f.severity is Severity.WARNING and f.basis == "observed"
        assert "Move to the plugin era" in f.remediation.text and f.remediation.commands
        assert "mlcompute.set_mlc_device" in f.remediation.code[0]


def test_the_fork_at_work_is_information_and_its_failure_a_warning(tmp_path):
    """A working fork selects the GPU through mlcompute (its README's lines) and lists no GPU by
    design (Apple, apple/tensorflow_macos#5): nothing of that is a failure. The fork's own error
    text is."""
    at_work = tmp_path / "fork_at_work.txt"
    at_work.write_text("from tensorflow.python.compiler.mlcompute import mlcompute\n"
                       "mlcompute.set_mlc_device(device_name='gpu')\n"
                       ">>> tf.config.list_physical_devices('GPU')\n[]\n")
    s = snap(fork_mac())
    s.log = keep.read(at_work, identity=WHO)
    findings = LogRules("compat_era", "log_era", "log_import").run(s)
    worked = {f.code: f.severity for f in findings}
    assert worked == {"compat.mlcompute-fork": Severity.INFO, "log.mlcompute-fork": Severity.INFO,
                      "log.no-gpu-listed": Severity.INFO}
    failed = {f.code: f.severity for f in check.diagnose(fork_mac(), "mlcompute_device_before_init.txt")}
    assert failed["log.mlcompute-fork"] is Severity.WARNING  # its own failing text is the cause
    assert "compat.mlcompute-fork" not in failed


def test_an_empty_gpu_list_on_the_fork_is_the_fork_at_work_and_its_installers_refusal_a_failure(tmp_path):
    """The fork lists no GPU by design, whichever way the code asks (a report in Markdown puts the
    echo in a fence of its own): working setups of it show exactly that, so it stays information,
    and the empty list is explained by the fork. The installer's own refusal of a macOS before 11
    (apple/tensorflow_macos scripts/download_and_install.sh) is the fork failing."""
    asked = tmp_path / "asked.txt"
    asked.write_text("```\nimport tensorflow as tf\n\ntf.config.list_physical_devices('GPU')\n```\n"
                     "the result is:\n```\n[]\n```\n")
    s = snap(fork_mac())
    s.log = keep.read(asked, identity=WHO)
    found = {f.code: f for f in LogRules("compat_era", "log_era", "log_import").run(s)}
    assert found["compat.mlcompute-fork"].severity is Severity.INFO
    assert found["log.no-gpu-listed"].severity is Severity.INFO
    refused = tmp_path / "refused.txt"
    refused.write_text("ERROR: TensorFlow with ML Compute acceleration is only available on macOS 11.0 and later.\n")
    s = snap(merge(apple_silicon(packages=[]), {"unknown": ["packages"]}))
    s.log = keep.read(refused, identity=WHO)
    (era,) = [f for f in check.run(s) if f.code == "log.mlcompute-fork"]
    assert era.severity is Severity.WARNING and era.basis == "observed"
    at_work = snap(fork_mac())  # the installer's own lines, the fork installed: the fork at work
    at_work.log = keep.read(LOGS / "mlcompute_installer_wheel.txt", identity=WHO)
    (era,) = [f for f in check.run(at_work) if f.code == "compat.mlcompute-fork"]
    assert era.severity is Severity.INFO and "tensorflow_macos-0.1a1" in era.evidence["observed_in"]


def test_a_writer_who_says_the_gpu_cannot_be_found_on_the_fork_is_answered_by_the_fork():
    """An empty list printed is the fork at work; its writer saying TensorFlow does not find the GPU
    is the complaint the fork's design causes (it lists none), so the fork is the warning."""
    found = {f.code: f for f in LogRules("compat_era", "log_era", "log_import").diagnose(
        fork_mac(), "said_tensorflow_no_gpu.txt")}
    assert found["compat.mlcompute-fork"].severity is Severity.WARNING
    assert "log.no-gpu-listed" in found["compat.mlcompute-fork"].explains


def test_the_fork_on_another_python_than_3_8_was_never_built_for_it():
    """The fork's bundled wheels are cp38 only (apple/tensorflow_macos install_venv.sh); a fork
    reported on Python 3.9 has no wheel for it: that, not the fork's age, is the error."""
    on_39 = merge(fork_mac(), {"python": {"version": "3.9.1"}})
    (f,) = [f for f in LogRules("compat_era", "compat_platform").run(snap(on_39)) if f.code == "compat.no-wheel-for-python"]
    assert f.severity is Severity.ERROR and f.evidence["wheel_pythons"] == ["cp38"]
    assert f.title.endswith("this is Python 3.9")
    assert not [f for f in LogRules("compat_platform").run(snap(fork_mac())) if f.code == "compat.no-wheel-for-python"]


def test_a_tensorflow_2_4_0rc0_running_natively_on_apple_silicon_is_the_fork():
    """The fork gives itself TensorFlow's version 2.4.0rc0 (`tf.__version__`), and no upstream
    2.4.0rc0 ran natively on Apple silicon (arm64 `tensorflow` wheels start at 2.13): a report of
    that version there is the fork. Under Rosetta 2, or on an Intel Mac, it is PyPI's release."""
    native = merge(apple_silicon(packages=[_pkg("tensorflow", "2.4.0rc0", [])]), {"python": {"version": "3.8.10"}})
    (f,) = [f for f in check.run(snap(native)) if f.code == "compat.mlcompute-fork"]
    assert f.title.startswith("tensorflow 2.4.0rc0 is Apple's unmaintained ML Compute fork")
    rosetta = merge(native, {"python": {"process_arch": "x86_64", "translated": True}})
    assert "compat.mlcompute-fork" not in [f.code for f in check.run(snap(rosetta))]


def test_any_failure_shown_with_the_fork_installed_is_the_forks_to_leave(tmp_path):
    """The fork gets no fixes: with it installed, an error nothing else explains (a traceback, a
    crash) makes it a warning with the way to the plugin era; a benchmark of it at work does not."""
    def era(text: str):
        (tmp_path / "posted.txt").write_text(text)
        s = snap(fork_mac())
        s.log = keep.read(tmp_path / "posted.txt", identity=WHO)
        (f,) = [f for f in check.run(s) if f.code == "compat.mlcompute-fork"]
        return f

    crashed = era("Epoch 1/5\nlibc++abi.dylib: terminating with uncaught exception of type NSException\nAbort trap: 6\n")
    assert crashed.severity is Severity.WARNING
    assert era("Epoch 1/5\n469/469 [==============================] - 12s 24ms/step - loss: 0.31\n").severity is Severity.INFO
