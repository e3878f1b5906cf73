"""tfdoctor.triage.read_crash: what macOS's crash reporter and zsh's crash line say about the
process that died, from the fields Apple documents ("Examining the fields in a crash report":
Process, Path, Identifier, Code Type with (Native) or (Translated), OS Version) and zsh's job
message ("zsh: illegal hardware instruction  COMMAND")."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.outcome import triage_text

HOMEBREW_INTEL = ("/usr/local/Cellar/python@3.9/3.9.16/Frameworks/Python.framework/Versions/3.9/"
                  "Resources/Python.app/Contents/MacOS/Python")


def crash_report(path: str = HOMEBREW_INTEL, code_type: str = "X86-64 (Translated)",
                 process: str = "Python [4711]", identifier: str = "org.python.python") -> str:
    return ("-------------------------------------\nTranslated Report (Full Report Below)\n"
            "-------------------------------------\n\n"
            f"Process:               {process}\nPath:                  {path}\n"
            f"Identifier:            {identifier}\nVersion:               3.9.16 (3.9.16)\n"
            f"Code Type:             {code_type}\nParent Process:        zsh [4700]\n\n"
            "OS Version:            macOS 13.4 (22F66)\nReport Version:        12\n\n"
            "Exception Type:        EXC_BAD_INSTRUCTION (SIGILL)\n")


def facts(text: str) -> set[tuple[str, str, str]]:
    return {(f.name, f.value, f.how) for f in read_report(text).facts}


def test_a_translated_python_ran_x86_64_under_rosetta_on_apple_silicon():
    found = facts(crash_report())
    assert {("python_arch", "x86_64", "read"), ("translated", "true", "read"),
            ("hw_arm64", "true", "inferred"), ("macos_version", "13.4", "read"),
            ("python_path", HOMEBREW_INTEL, "read")} <= found


@pytest.mark.parametrize(("code_type", "arch", "translated", "apple_silicon"), [
    ("ARM-64 (Native)", "arm64", "false", "true"),
    ("X86-64 (Native)", "x86_64", "false", "false"),
    ("X86-64", "x86_64", None, None),  # before macOS 11 the field had no suffix: an Intel Mac's, or not said
])
def test_the_code_type_field_in_each_form(code_type, arch, translated, apple_silicon):
    found = facts(crash_report(code_type=code_type))
    assert ("python_arch", arch, "read") in found
    assert {v for n, v, _ in found if n == "translated"} == ({translated} if translated else set())
    assert {v for n, v, _ in found if n == "hw_arm64"} == ({apple_silicon} if apple_silicon else set())


def test_another_process_s_report_says_what_the_mac_is_not_what_python_runs_as():
    found = facts(crash_report(path="/Applications/Foo.app/Contents/MacOS/Foo", process="Foo [12]",
                               identifier="com.example.foo"))
    assert ("hw_arm64", "true", "inferred") in found
    assert not {f for f in found if f[0] in ("python_arch", "translated", "python_path")}


@pytest.mark.parametrize(("line", "x86"), [
    ("zsh: illegal hardware instruction  arch -x86_64 python3 train.py", True),
    ("zsh: illegal hardware instruction  /usr/bin/arch -x86_64 python -c 'import tensorflow'", True),
    ("zsh: illegal hardware instruction  python3 train.py", False),
    ("we run arch -x86_64 python now and then", False),
])
def test_zsh_names_the_command_that_died_and_how_it_was_started(line, x86):
    found = facts(line + "\n")
    assert (("python_arch", "x86_64", "read") in found) is x86
    assert (("hw_arm64", "true", "inferred") in found) is x86


def test_an_intel_homebrew_python_in_a_translated_crash_is_the_cause():
    """The crash report's path is an Intel Homebrew Python (x86_64-only bottles): the route, not
    only the Rosetta it leads to, comes first, with Homebrew for Apple silicon as the fix."""
    triaged = triage_text("report.md", ("import tensorflow crashes: Illegal instruction: 4\n\n"
                                        + crash_report()).encode())
    first = triaged.report.diagnosis()
    assert first.code == "arch.x86-only-interpreter"
    assert first.evidence["route"] == "homebrew-intel"
    assert "/opt/homebrew" in " ".join(first.remediation.commands)


def test_a_command_started_with_arch_x86_64_is_the_cause():
    text = ("import tensorflow dies:\n\n```\n$ arch -x86_64 python3 -c 'import tensorflow'\n"
            "zsh: illegal hardware instruction  arch -x86_64 python3 -c 'import tensorflow'\n```\n")
    first = triage_text("report.md", text.encode()).report.diagnosis()
    assert first.code == "arch.universal2-as-x86"
    assert "arch -arm64" in " ".join(first.remediation.commands)


def test_an_intel_r_on_apple_silicon_is_the_cause_with_cras_arm64_r_as_the_fix():
    """A reticulate user on an M1 Pro whose tf_config() shows TensorFlow 1.14 in an Anaconda Python
    and who quotes `R.version$arch` as "x86_64": the Python runs inside an Intel R, under Rosetta 2."""
    text = ("I am using an Apple M1 Pro.\nOUTPUT from `tf_config()`\nTensorFlow v1.14.0 ()\n"
            "Python v3.7 (~/anaconda3/bin/python)\n\nThe command `R.version$arch` returned \"x86_64\".\n")
    first = triage_text("report.md", text.encode()).report.diagnosis()
    assert first.code == "arch.rosetta" and "arm64 R" in first.remediation.text
    assert "R.version$arch" in " ".join(first.remediation.commands)
