"""The target.* rules (checks/target.py): could the diagnosed interpreter be examined, completely?"""

from __future__ import annotations

from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, snap

from tfdoctor.model import Severity

target = RuleModules("target")


def codes(findings):
    return [f.code for f in findings]


def test_examined_interpreter_is_ok_with_counts_and_plurals():
    (finding,) = target.run(snap(linux_cpu()))
    assert finding.code == "target.ok" and finding.severity is Severity.OK
    assert finding.title == "2 distributions read from 1 site dir"


def test_unusable_interpreter_is_the_only_finding():
    """The collector crashed (a Python killed by SIGABRT at start-up, as a dyld failure does)."""
    data = linux_cpu(target={"python": "/opt/py/bin/python", "ok": False, "problem": "crashed",
                             "message": "killed by SIGABRT", "stderr_tail": "dyld: Library not loaded"})
    (finding,) = target.run(snap(data))
    assert finding.code == "target.unusable" and finding.severity is Severity.ERROR
    assert "SIGABRT" in finding.title and finding.evidence["stderr_tail"] == "dyld: Library not loaded"
    assert finding.remediation.commands == ("/opt/py/bin/python -c 'import sys; print(sys.version)'",)


def test_partial_facts_and_corrupt_metadata_are_warnings_and_silence_ok():
    broken = {**_pkg("numpy", "1.26.4", []), "name": None, "version": None,
              "error": "METADATA missing", "location": "/site/numpy-1.26.4.dist-info"}
    data = apple_silicon(errors=[{"what": "site-packages /Users/ada/x", "error": "PermissionError"}],
                         packages=apple_silicon()["packages"] + [broken])
    found = target.run(snap(data))
    assert codes(found) == ["target.partial-facts", "target.corrupt-metadata"]
    assert found[0].title == "1 part of the facts could not be collected"
    assert found[1].title == "1 installed distribution has missing or corrupt metadata"
    assert all(f.severity is Severity.WARNING for f in found)


def test_a_program_that_is_not_python_is_named_so():
    """`--python rm`: tfdoctor asks the candidate to answer as a Python before giving it a script."""
    data = linux_cpu(target={"python": "/bin/rm", "ok": False, "problem": "not-python",
                             "message": "is not a Python interpreter"})
    (finding,) = target.run(snap(data))
    assert finding.code == "target.unusable"
    assert finding.remediation.text.startswith("This is not a Python interpreter")
    assert finding.remediation.commands == ("/bin/rm --version",)


def test_no_temporary_directory_does_not_blame_the_interpreter():
    data = linux_cpu(target={"python": "/usr/bin/python3", "ok": False, "problem": "temp-dir",
                             "message": "no usable temporary directory (TMPDIR=/nonexistent)"})
    (finding,) = target.run(snap(data))
    assert finding.code == "target.temp-dir" and finding.severity is Severity.ERROR
    assert "export TMPDIR=~/tmp" in finding.remediation.commands


def test_a_new_terminals_python3_that_is_another_interpreter_is_information():
    shell = {"pythons_on_path": [
        {"name": "python3", "path": "/opt/homebrew/bin/python3", "realpath": "/opt/homebrew/Cellar/python@3.13/bin/python3.13"},
        {"name": "python3", "path": "/usr/bin/python3", "realpath": "/usr/bin/python3", "is_target": True}]}
    found = {f.code: f for f in target.run(snap(linux_cpu(shell=shell)))}
    f = found["target.other-python-on-path"]
    assert f.severity is Severity.INFO and f.evidence["first_on_path"] == "/opt/homebrew/bin/python3"
    assert "target.ok" in found  # information does not make the area a problem
    shell["pythons_on_path"].reverse()
    assert "target.other-python-on-path" not in [f.code for f in target.run(snap(linux_cpu(shell=shell)))]
