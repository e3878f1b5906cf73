"""tfdoctor.triage.read_pip: pip's own output formats (pypa/pip src/pip/_internal/commands/list.py,
operations/freeze.py, commands/show.py, req/req_install.py), pasted whole, filtered, elided, cut
or quoted."""

from __future__ import annotations

from tfdoctor.triage.facts import read_report


def _facts(text: str) -> set[tuple[str, str, str, str]]:
    return {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}


LIST = """```
Package                      Version  Editable project location
---------------------------- -------- -------------------------
absl-py                      1.4.0
mypkg                        0.1.0    /Users/dev/src/mypkg
tensorflow-macos             2.12.0
```"""


def test_pip_list_with_an_editable_column_is_a_complete_listing():
    report = read_report(LIST)
    assert report.package_list is True
    assert ("package:mypkg", "0.1.0", "read", "pip list") in _facts(LIST)


def test_pip_list_verbose_and_outdated_columns():
    verbose = ("Package    Version Location                                      Installer\n"
               "---------- ------- --------------------------------------------- ---------\n"
               "numpy      1.26.4  /opt/homebrew/lib/python3.11/site-packages     pip\n")
    outdated = ("Package    Version Latest Type\n---------- ------- ------ -----\n"
                "tensorflow 2.12.0  2.16.1 wheel\n")
    assert ("package:numpy", "1.26.4", "read", "pip list") in _facts(verbose)
    assert ("env_manager", "homebrew-arm64", "inferred", "path") in _facts(verbose)
    assert ("package:tensorflow", "2.12.0", "read", "pip list") in _facts(outdated)


def test_a_grepped_or_elided_pip_list_is_not_complete():
    grepped = ("$ pip list | grep tensorflow\nPackage          Version\n---------------- -------\n"
               "tensorflow-macos 2.12.0\n")
    elided = "Package Version\n------- -------\nabsl-py 1.4.0\n...\nnumpy   1.23.5\n"
    assert read_report(grepped).package_list is False
    report = read_report(elided)
    assert report.package_list is False and "numpy" in report.packages()


def test_a_quoted_pip_list_is_someone_elses():
    report = read_report("\n".join("> " + line for line in LIST.split("\n")))
    assert report.package_list is False
    assert report.packages()["tensorflow-macos"].source == "pip list (quoted)"


def test_pip_list_pasted_in_a_python_fence_is_still_output():
    report = read_report(LIST.replace("```\nPackage", "```python\nPackage", 1))
    assert report.package_list is True


def test_pip_freeze_rows_editables_and_comments():
    text = ("$ python -m pip freeze\n"
            "absl-py==1.4.0\n"
            "-e git+https://github.com/dev/tool.git@0123abcd#egg=tool\n"
            "# Editable install with no version control (mylib==0.3.0)\n"
            "-e /Users/dev/src/mylib\n"
            "tensorflow-macos @ git+https://github.com/dev/tensorflow-macos-fork@main\n"
            "tensorflow-metal==1.0.1\n")
    report = read_report(text)
    got = _facts(text)
    assert report.package_list is True
    assert {("package:tool", "", "read", "pip freeze"), ("package:mylib", "0.3.0", "read", "pip freeze"),
            ("package:tensorflow-macos", "", "read", "pip freeze"),
            ("package:tensorflow-metal", "1.0.1", "read", "pip freeze")} <= got


def test_a_lone_pin_or_a_requirements_file_is_not_a_freeze():
    assert read_report("```\ntensorflow==2.12.0\n```").package_list is False
    report = read_report("```\ntensorflow>=2.12\nnumpy<2\ntensorflow-metal==1.0.1\n```")
    assert report.package_list is False
    assert not [f for f in report.facts if f.source == "pip freeze"]


def test_a_long_fence_of_pins_is_a_freeze_and_a_short_one_is_not_complete():
    pins = "\n".join(f"pkg{i}=={i}.0" for i in range(6))
    assert read_report(f"```\n{pins}\n```").package_list is True
    short = "\n".join(f"pkg{i}=={i}.0" for i in range(3))
    report = read_report(f"```\n{short}\n```")
    assert report.package_list is False and len(report.packages()) == 3


def test_pip_show():
    text = "Name: tensorflow-macos\nVersion: 2.9.2\nSummary: TensorFlow is an open source machine learning framework for everyone.\n"
    assert ("package:tensorflow-macos", "2.9.2", "read", "pip show") in _facts(text)


def test_pip_install_output():
    text = ("Requirement already satisfied: numpy>=1.20 in ./venv/lib/python3.9/site-packages (from tensorflow-macos) (1.23.5)\n"
            "Requirement already satisfied: six in ./venv/lib/python3.9/site-packages\n"
            "Successfully installed tensorflow-metal-1.0.1 tf-nightly-2.14.0.dev20230601\n")
    got = _facts(text)
    assert ("package:numpy", "1.23.5", "read", "pip output") in got
    assert not [f for f in got if f[0] == "package:six"]  # pip before 20.1 printed no version
    assert ("package:tensorflow-metal", "1.0.1", "read", "pip output") in got
    assert ("package:tf-nightly", "2.14.0.dev20230601", "read", "pip output") in got
    assert ("python_version", "3.9", "inferred", "path") in got


def test_a_refused_wheel_says_nothing_of_the_python_and_metadata_files_are_no_wheels():
    text = ("ERROR: tensorflow_macos-2.9.0-cp39-cp39-macosx_11_0_arm64.whl is not a supported wheel on this platform.\n"
            "  Using cached numpy-1.26.4-cp311-cp311-macosx_10_9_x86_64.whl.metadata (61 kB)\n")
    assert not [f for f in read_report(text).facts if f.name == "python_arch"]


def test_old_pip_downloads_name_the_wheel_in_a_url():
    text = "  Downloading https://files.pythonhosted.org/packages/ab/cd/tensorflow-2.4.1-cp38-cp38-macosx_10_11_x86_64.whl (173.9 MB)\n"
    got = _facts(text)
    assert ("python_arch", "x86_64", "read", "wheel name") in got
    assert ("python_version", "3.8", "read", "wheel name") in got


def test_a_stable_abi_wheel_says_its_platform_but_not_the_python():
    """cp37-abi3 is CPython's stable ABI: any CPython from 3.7 takes the wheel (PEP 384, PEP 425)."""
    got = _facts("Collecting opencv-python==4.7.0.68\n"
                 "  Using cached opencv_python-4.7.0.68-cp37-abi3-macosx_11_0_arm64.whl (31.1 MB)\n")
    assert ("python_arch", "arm64", "read", "wheel name") in got
    assert not [f for f in got if f[0] == "python_version"]


def test_rows_under_a_grepped_command_have_no_header():
    text = ("```\n(tf) % pip list | grep -E 'tensorflow|numpy'\nnumpy                   1.23.5\n"
            "tensorflow-macos        2.9.2\ntensorflow-metal        0.5.0\n(tf) % python -V\nPython 3.9.16\n```")
    report = read_report(text)
    assert {name: f.value for name, f in report.packages().items()} == {
        "numpy": "1.23.5", "tensorflow-macos": "2.9.2", "tensorflow-metal": "0.5.0"}
    assert report.package_list is False
    assert report.first("python_version").value == "3.9.16"


def test_rows_copied_without_their_header_are_read_and_a_sentences_version_is_not():
    """`pip list` rows copied out of the table under a sentence (a report's "Having installed the
    following packages:"): pip's columns pad the name from the version. One space is a sentence's,
    and a system's or toolchain's version on a line of its own is no row pip lists."""
    text = ("Having installed the following packages:\ntensorflow-macos              2.9.0\n"
            "tensorflow-metal\t0.5.1\n\nPython    3.9.6\nCUDA   11.2\nkeras 2.9.0\n")
    report = read_report(text)
    assert {f.name: (f.value, f.how) for f in report.facts if f.source == "pip list"} == {
        "package:tensorflow-macos": ("2.9.0", "read"), "package:tensorflow-metal": ("0.5.1", "read")}
    assert report.packages()["keras"].how == "stated" and report.package_list is False


def test_what_pip_or_uv_refused_was_asked_for_not_installed():
    # pip's factory.py refusals and uv's resolver and installer errors, as reports paste them
    for text in ("ERROR: Could not find a version that satisfies the requirement tensorflow==2.9.0 (from versions: none)\n"
                 "ERROR: No matching distribution found for tensorflow==2.9.0\n",
                 "  ╰─▶ Because tensorflow==2.9.0 has no wheels with a matching platform tag (e.g., `macosx_15_0_arm64`)\n",
                 "error: Distribution `tensorflow==2.9.0 @ registry+https://pypi.org/simple` can't be installed because "
                 "it doesn't have a source distribution or wheel for the current platform\n"):
        assert not [f for f in _facts(text) if f[0].startswith("package:")], text
