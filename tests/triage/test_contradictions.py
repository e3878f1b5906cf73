"""tfdoctor.triage.contradictions and conclusions: facts of one name that cannot all hold, and what
follows from the facts (Rosetta from an Apple-silicon Mac and an x86_64 Python)."""

from __future__ import annotations

from tfdoctor.triage.conclusions import conclusions
from tfdoctor.triage.contradictions import MAX_VALUES, contradictions
from tfdoctor.triage.evidence import Fact
from tfdoctor.triage.facts import read_report


def _fact(name: str, value: str, line: int = 1, how: str = "read", source: str = "x") -> Fact:
    return Fact(name, value, line, how, source)  # type: ignore[arg-type]


def test_shorter_forms_agree_and_different_values_do_not():
    agree = [_fact("python_version", "3.10"), _fact("python_version", "3.10.4"),
             _fact("macos_version", "13"), _fact("macos_version", "13.2.1"),
             _fact("chip", "Apple M1"), _fact("chip", "Apple M1 Max"),
             _fact("python_binary_archs", "x86_64 arm64"), _fact("python_binary_archs", "arm64 x86_64"),
             _fact("package:numpy", "1.26"), _fact("package:numpy", "1.26.4")]
    assert contradictions(agree) == []
    disagree = [_fact("python_version", "3.9"), _fact("python_version", "3.10", 2),
                _fact("chip", "Apple M1 Max"), _fact("chip", "Apple M2", 3),
                _fact("python_binary_archs", "x86_64"), _fact("python_binary_archs", "x86_64 arm64", 4)]
    assert [c.name for c in contradictions(disagree)] == ["python_version", "chip", "python_binary_archs"]


def test_only_the_facts_that_disagree_are_named():
    facts = [_fact("python_version", "3.10"), _fact("python_version", "3.10.4", 2),
             _fact("python_version", "3.10.5", 3)]
    (found,) = contradictions(facts)
    assert [f.value for f in found.facts] == ["3.10.4", "3.10.5"]
    assert "line 2" in found.why and "line 3" in found.why


def test_quotes_and_names_with_several_values_are_not_contradictions():
    facts = [_fact("chip", "Apple M2"), _fact("chip", "Intel Core i9", 2, "stated", "prose (quoted)"),
             _fact("python_path", "/usr/bin/python3"), _fact("python_path", "/opt/homebrew/bin/python3"),
             _fact("env_manager", "venv"), _fact("env_manager", "pyenv")]
    assert contradictions(facts) == []


def test_a_container_on_a_mac_runs_linux_without_contradiction():
    mac_and_linux = [_fact("os", "Darwin", 1, "stated", "prose"), _fact("os", "Linux", 5, "read", "uname")]
    assert [c.name for c in contradictions(mac_and_linux)] == ["os"]
    assert contradictions(mac_and_linux + [_fact("container", "docker amd64", 3)]) == []


def test_an_x86_64_python_on_an_arm64_mac_is_explained_as_rosetta():
    report = read_report("M1 Pro, arm64 Python\n```\n$ python3 -c 'import platform; print(platform.machine())'\nx86_64\n```")
    (found,) = report.contradictions
    assert found.name == "python_arch" and "Rosetta 2" in found.why
    assert report.first("translated").value == "true" and report.first("translated").how == "inferred"


def test_two_machines_in_one_report_are_not_rosetta():
    # a pull request "tested on" a Mac Pro and an M1 Pro: each platform string is its own machine's
    text = ("Tested on:\n\n**macOS-14.5-x86_64-i386-64bit**\n* CPU: 2.5 GHz 28-Core Intel Xeon W\n"
            "* Python: 3.11.9\n\n**macOS-14.5-arm64-arm-64bit**\n* CPU: Apple M1 Pro\n* Python: 3.10.3\n")
    report = read_report(text)
    assert {f.value for f in report.facts if f.name == "chip"} == {"Intel Xeon", "Apple M1 Pro"}
    why = next(c.why for c in report.contradictions if c.name == "python_arch")
    assert "two machines" in why and "Rosetta 2, not a mistake" not in why
    assert "translated" not in {f.name for f in report.facts}


def test_many_values_are_compared_within_a_bound():
    facts = [_fact("python_version", f"3.{i}", i) for i in range(1, 200)]
    (found,) = contradictions(facts)
    assert len({f.value for f in found.facts}) <= MAX_VALUES


def test_conclusions():
    native = conclusions([_fact("chip", "Apple M3", 1, "stated", "prose"), _fact("python_arch", "arm64", 5)])
    assert {(f.name, f.value, f.how) for f in native} == {("hw_arm64", "true", "inferred"),
                                                          ("translated", "false", "inferred"),
                                                          ("os", "Darwin", "inferred")}  # a Mac's chip
    intel = conclusions([_fact("chip", "Intel Core i7"), _fact("python_arch", "x86_64")])
    assert {(f.name, f.value) for f in intel} == {("hw_arm64", "false")}
    thin = conclusions([_fact("python_binary_archs", "x86_64")])
    assert [(f.name, f.value, f.source) for f in thin] == [("python_arch", "x86_64", "python_binary_archs")]
    belief = conclusions([_fact("hw_arm64", "true"), _fact("python_arch", "arm64", 2, "stated", "prose")])
    assert not [f for f in belief if f.name == "translated"]  # what it runs as is read, not believed
    container = conclusions([_fact("hw_arm64", "true"), _fact("python_arch", "x86_64"), _fact("container", "docker amd64")])
    assert not [f for f in container if f.name == "translated"]  # QEMU, not Rosetta 2


def test_a_tensorflow_older_than_every_arm64_build_printed_on_apple_silicon_is_an_x86_64_python():
    """No TensorFlow before 2.4.0rc0 (Apple's fork; the registry's first arm64 wheel is
    tensorflow-macos 2.5.0) was built for arm64: one the environment printed there runs in an
    x86_64 Python, under Rosetta 2. A version stated in prose may be one wanted; 2.4.1 may be the
    fork's neighbour, and a printed architecture outranks the inference."""
    printed = conclusions([_fact("chip", "Apple M1", 1, "stated", "prose"),
                           _fact("tensorflow_version", "2.3.0", 5, "read", "tf.__version__")])
    assert ("python_arch", "x86_64", "tensorflow version") in {(f.name, f.value, f.source) for f in printed}
    assert ("translated", "true") in {(f.name, f.value) for f in printed}
    wanted = conclusions([_fact("chip", "Apple M1", 1, "stated", "prose"),
                          _fact("tensorflow_version", "1.15.0", 2, "stated", "prose")])
    assert not [f for f in wanted if f.name in ("python_arch", "translated")]
    newer = conclusions([_fact("hw_arm64", "true"), _fact("tensorflow_version", "2.4.1", 5, "read", "tf.__version__")])
    assert not [f for f in newer if f.name == "python_arch"]
    shown = conclusions([_fact("hw_arm64", "true"), _fact("python_arch", "arm64", 3),
                         _fact("tensorflow_version", "2.3.0", 5, "read", "tf.__version__")])
    assert not [f for f in shown if f.name == "python_arch"]


def test_a_tensorflow_pip_installed_whose_macos_wheels_are_all_x86_64_is_an_x86_64_python():
    # tensorflow 2.8.0's macOS wheels are macosx_10_14_x86_64 only: pip put it into an x86_64 Python
    report = read_report("M1 MacBook Air\n```\nSuccessfully installed absl-py-1.0.0 tensorflow-2.8.0\n```\n")
    arch = report.first("python_arch")
    assert (arch.value, arch.how, arch.source) == ("x86_64", "inferred", "wheel pip installed")
    assert report.first("translated").value == "true"
    native = read_report("M1 MacBook Air\n```\nSuccessfully installed tensorflow-2.16.1\n```\n")
    assert native.first("python_arch") is None  # 2.16.1 has arm64 wheels: either Python
    listed = read_report("M1 MacBook Air\n```\n$ pip list\nPackage    Version\n---------- -------\ntensorflow 2.8.0\n```\n")
    assert listed.first("python_arch") is None  # a listing's row may be conda-forge's arm64 build
