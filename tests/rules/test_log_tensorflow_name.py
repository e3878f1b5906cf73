"""checks/log_tensorflow_name.py: pip's resolver refusing a package over its requirement on
`tensorflow` (real texts in tests/data/logs/, sources in SOURCES.json), or a report saying so: the
name on a Mac before 2.13, a conflict between requirements elsewhere."""

from __future__ import annotations

from log_cases import LogRules, commands
from log_cases import one as observed_one
from snapshots import _pkg, apple_silicon, linux_cpu

from tfdoctor.model import Severity

check = LogRules("log_tensorflow_name")
diagnose = check.diagnose


def test_pips_conflict_over_tensorflow_on_linux_is_a_conflict_of_requirements():
    # spotify/basic-pitch#60's lines on a Linux machine: no Mac distribution name to blame
    f = observed_one(diagnose(linux_cpu(), "pip_conflict_basic_pitch.txt"), "log.pip-depends-on-tensorflow")
    assert f.severity is Severity.INFO and "a conflict between requirements" in f.title
    assert f.evidence["log_required_by"] == "basic-pitch" and f.evidence["log_specifier"] == "<2.10,>=2.4.1"
    assert commands(f) == "/usr/bin/python3 -m pip index versions tensorflow"


def test_pips_refusal_over_tensorflow_beside_tensorflow_macos_names_it():
    # tensorflow/models#10783: an M2 with tensorflow-macos 2.9.2 (install.requires-tensorflow-name explains it)
    data = apple_silicon(python={"version": "3.9.13"},
                         packages=[_pkg("tensorflow-macos", "2.9.2", ["cp39-cp39-macosx_11_0_arm64"])])
    f = observed_one(diagnose(data, "pip_conflict_tf_models_official.txt"), "log.pip-depends-on-tensorflow")
    assert f.severity is Severity.ERROR and f.title == (
        "pip refused tf-models-official 2.10.0: it depends on `tensorflow~=2.10.0`, and TensorFlow here "
        "is tensorflow-macos 2.9.2")


def test_words_where_tensorflow_is_installed_are_information():
    # logictensornetworks/logictensornetworks#32 in words, on a Mac with tensorflow 2.19.1 itself
    (f,) = [f for f in diagnose(apple_silicon(), "said_tensorflow_name.txt") if f.code == "log.pip-depends-on-tensorflow"]
    assert f.severity is Severity.INFO and "not so here" in f.title and f.evidence["said"] is True


def test_a_candidate_that_takes_any_tensorflow_on_apple_silicon_is_pip_before_the_arm64_wheels(tmp_path):
    """pip names each candidate with its own requirement; the newest here takes any `tensorflow`,
    which on Apple silicon pip could only have refused before the arm64 wheels (2.13): the
    older candidates' ranges below it are not its own."""
    from log_cases import WHO
    from snapshots import snap

    from tfdoctor.logtext import keep

    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"}, "unknown": ["packages"]})
    (tmp_path / "pip.txt").write_text("ERROR: Cannot install magenta because these package versions have conflicting "
                                      "dependencies.\n\nThe conflict is caused by:\n    magenta 2.1.3 depends on "
                                      "tensorflow\n    magenta 1.3.3 depends on tensorflow<2.0.0 and >=1.15.0\n",
                                      encoding="utf-8")
    s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
    f = observed_one(check.run(s), "log.pip-depends-on-tensorflow")
    assert f.severity is Severity.ERROR and f.title.startswith("pip refused magenta 2.1.3: it depends on `tensorflow`,")
    assert "from 2.13 on" in f.title and not f.explains  # pip named no tensorflow of its own
    (tmp_path / "pip.txt").write_text("ERROR: Could not find a version that satisfies the requirement tensorflow "
                                      "(from versions: none)\n" + (tmp_path / "pip.txt").read_text(), encoding="utf-8")
    s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
    f = observed_one(check.run(s), "log.pip-depends-on-tensorflow")
    assert f.explains == ("log.pip-no-matching-distribution",)  # pip's refusal of the same name
