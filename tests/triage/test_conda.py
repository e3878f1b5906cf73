"""tfdoctor.triage.read_conda: `conda list` (and its --export form), `conda info` and `conda env
export`, in the formats conda/cli/main_list.py, conda/cli/main_info.py and conda/env/env.py
print."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.outcome import triage_text

INFO = """     active environment : {env}
    active env location : /Users/kai/miniforge3{suffix}
            shell level : 2
       user config file : /Users/kai/.condarc
          conda version : 24.3.0
         python version : 3.10.14.final.0
       virtual packages : __archspec=1=m1
                          __osx=14.4.1=0
                          __unix=0=0
       base environment : /Users/kai/miniforge3  (writable)
               platform : osx-arm64
             user-agent : conda/24.3.0 requests/2.31.0 CPython/3.10.14 Darwin/23.4.0 OSX/14.4.1
"""


def _facts(text: str) -> set[tuple[str, str, str, str]]:
    return {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}


def test_conda_info_of_base_gives_condas_own_python():
    got = _facts(INFO.format(env="base", suffix=""))
    assert {("conda_subdir", "osx-arm64", "read", "conda info"),
            ("python_arch", "arm64", "inferred", "conda subdir"),
            ("python_arch", "arm64", "read", "conda info"),  # __archspec=1=m1
            ("python_version", "3.10.14", "read", "conda info"),
            ("macos_version", "14.4.1", "read", "conda info"),
            ("conda_root", "/Users/<user>/miniforge3", "read", "conda info"),
            ("conda_prefix", "/Users/<user>/miniforge3", "read", "conda info")} <= got


def test_conda_info_in_another_environment_does_not_take_bases_python_for_it():
    got = _facts(INFO.format(env="tf", suffix="/envs/tf"))
    assert ("conda_prefix", "/Users/<user>/miniforge3/envs/tf", "read", "conda info") in got
    assert not [f for f in got if f[0] == "python_version" or f[:2] == ("python_arch", "arm64") and f[3] == "conda info"]


def test_one_key_value_line_is_not_conda_info():
    assert not _facts("               platform : osx-64\n")


def test_conda_list_export_names_the_subdir():
    text = ("# This file may be used to create an environment using:\n"
            "# $ conda create --name <env> --file <this file>\n"
            "# platform: osx-64\n"
            "numpy=1.24.3=py311h728a8a3_0\n"
            "python=3.11.5=hf27a42d_0\n"
            "tensorflow-deps=2.9.0=0\n")
    report = read_report(text)
    got = {(f.name, f.value, f.how, f.source) for f in report.facts}
    assert {("conda_subdir", "osx-64", "read", "conda list"),
            ("python_arch", "x86_64", "inferred", "conda subdir"),
            ("package:numpy", "1.24.3", "read", "conda list"),
            ("python_version", "3.11.5", "read", "conda list"),
            ("conda_package:tensorflow-deps", "2.9.0 0", "read", "conda list")} <= got
    assert "tensorflow-deps" not in report.packages()  # conda metadata, no Python distribution


def test_conda_list_rows_of_pip_installs():
    text = ("# packages in environment at /opt/miniconda3/envs/tf:\n#\n"
            "# Name                    Version                   Build  Channel\n"
            "tensorflow                1.0.0                     <pip>\n"
            "tensorflow-macos          2.9.0                    pypi_0    pypi\n")
    report = read_report(text)
    assert {"tensorflow", "tensorflow-macos"} <= set(report.packages())
    assert report.package_list is True
    assert report.first("env_manager").value == "miniconda"


def test_env_export_from_history_is_no_listing():
    text = "name: tf\nchannels:\n  - apple\ndependencies:\n  - python=3.9\n  - tensorflow-deps\nprefix: /Users/kai/miniforge3/envs/tf\n"
    report = read_report(text)
    assert report.package_list is False
    assert report.first("conda_prefix").value == "/Users/<user>/miniforge3/envs/tf"


def test_rows_under_a_grepped_conda_list():
    text = "```\n$ conda list | grep tensorflow\ntensorflow-deps           2.9.0                         0    apple\ntensorflow-macos          2.9.2                    pypi_0    pypi\n```"
    report = read_report(text)
    got = {(f.name, f.value, f.source) for f in report.facts}
    assert {("conda_package:tensorflow-deps", "2.9.0 0 apple", "conda list"),
            ("package:tensorflow-macos", "2.9.2", "conda list")} <= got
    assert report.package_list is False


def test_rows_of_a_conda_list_pasted_without_its_header():
    """An excerpt of `conda list`: the rows alone, in a fence (conda's row format: name, version,
    build, channel). Read as rows, never as a whole listing; fewer than HEADERLESS_ROWS such rows,
    or rows outside a fence, are not."""
    from tfdoctor.triage.read_conda import HEADERLESS_ROWS

    rows = ["tensorflow                2.6.0            py38h44df477_1    conda-forge",
            "tensorflow-deps           2.6.0                         0    apple",
            "tensorflow-metal          0.6.0                    pypi_0    pypi",
            "tensorflow-probability    0.8.0                      py_0    conda-forge"]
    report = read_report("My environment:\n```\n" + "\n".join(rows) + "\n```\n")
    got = {(f.name, f.value, f.source) for f in report.facts}
    assert {("package:tensorflow", "2.6.0", "conda list"), ("package:tensorflow-metal", "0.6.0", "conda list"),
            ("conda_package:tensorflow-deps", "2.6.0 0 apple", "conda list"),
            ("package:tensorflow-probability", "0.8.0", "conda list")} <= got
    assert report.package_list is False
    few = read_report("```\n" + "\n".join(rows[:HEADERLESS_ROWS - 1]) + "\n```\n")
    assert not [f for f in few.facts if f.source == "conda list"]
    unfenced = read_report("\n".join(rows) + "\n")
    assert not [f for f in unfenced.facts if f.source == "conda list"]


@pytest.mark.parametrize("line, subdir", [
    # the steps of a report (DeepLabCut's M1 guide of 2022, followed on an M2)
    ("5. `conda activate DEEPLABCUT_M1`\n`conda env config vars set CONDA_SUBDIR=osx-64`", "osx-64"),
    ("$ conda config --env --set subdir osx-64", "osx-64"),
    ("CONDA_SUBDIR=osx-arm64 conda create -n tf python=3.10", "osx-arm64"),
    ("- export CONDA_SUBDIR=osx-64", "osx-64"),
    # a sentence about the setting, or code, is not a command run
    ("I never ran CONDA_SUBDIR=osx-64 anywhere", None),
    ("```python\nos.environ['CONDA_SUBDIR'] = 'osx-64'\n```", None),
    ("> conda env config vars set CONDA_SUBDIR=osx-64", None),  # someone else's reply
])
def test_a_command_that_sets_the_environments_subdir_is_read(line, subdir):
    got = {(f.value, f.source) for f in read_report(line).facts if f.name == "conda_subdir"}
    assert got == ({(subdir, "conda command")} if subdir else set())


def test_an_osx_64_subdir_set_on_an_apple_chip_is_the_rosetta_conda():
    text = ("macOS Ventura 13.0.1 (M2)\n\n1. `conda env create -f env.yaml`\n"
            "2. `conda env config vars set CONDA_SUBDIR=osx-64`\n3. `conda env update -f env.yaml`\n")
    assert triage_text("report.md", text.encode()).cause == "arch.conda-osx-64"
