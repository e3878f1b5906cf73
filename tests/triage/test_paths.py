"""tfdoctor.triage.read_paths: what the paths of tracebacks and pip's output say about the Python
behind them, from the layouts Homebrew, python.org, Apple, conda's installers, pyenv and venv
document."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.read_paths import path_facts


@pytest.mark.parametrize(("path", "expected"), [
    ("/opt/homebrew/lib/python3.11/site-packages/tensorflow/__init__.py",
     {("env_manager", "homebrew-arm64"), ("hw_arm64", "true"), ("python_arch", "arm64"),
      ("python_binary_archs", "arm64"), ("python_version", "3.11"), ("python_prefix", "/opt/homebrew")}),
    ("/opt/homebrew/bin/brew", {("env_manager", "homebrew-arm64"), ("hw_arm64", "true")}),
    ("/usr/local/Cellar/python@3.9/3.9.16/Frameworks/Python.framework/Versions/3.9/lib/python3.9/runpy.py",
     {("env_manager", "homebrew-intel"), ("python_arch", "x86_64"), ("python_binary_archs", "x86_64"),
      ("python_version", "3.9")}),
    ("/Library/Frameworks/Python.framework/Versions/3.10/lib/python3.10/site-packages/keras/__init__.py",
     {("env_manager", "python.org"), ("python_version", "3.10")}),
    ("/Library/Developer/CommandLineTools/Library/Frameworks/Python3.framework/Versions/3.9/lib/python3.9/site-packages",
     {("env_manager", "system"), ("python_version", "3.9")}),
    ("/Users/ana/anaconda3/envs/tf/lib/python3.8/site-packages/numpy/__init__.py",
     {("os", "Darwin"), ("env_manager", "anaconda"), ("conda_root", "/Users/ana/anaconda3"),
      ("conda_prefix", "/Users/ana/anaconda3/envs/tf"), ("python_prefix", "/Users/ana/anaconda3/envs/tf")}),
    ("/Users/ana/mambaforge/bin/python3.10", {("env_manager", "miniforge"), ("conda_prefix", "/Users/ana/mambaforge"),
                                              ("python_path", "/Users/ana/mambaforge/bin/python3.10"), ("python_version", "3.10")}),
    ("/Users/ana/.pyenv/versions/3.8.12-x86/lib/python3.8/site-packages",
     {("env_manager", "pyenv"), ("python_version", "3.8.12")}),
    ("/Users/ana/projects/x/.venv/lib/python3.12/site-packages/tensorflow",
     {("env_manager", "venv"), ("python_prefix", "/Users/ana/projects/x/.venv")}),
    ("/usr/local/lib/python3.10/dist-packages/tensorflow/__init__.py", {("os", "Linux"), ("python_version", "3.10")}),
    ("/Users/ana/venv/lib/python3.9/site-packages/tensorflow_macos-2.9.2.dist-info/METADATA",
     {("package:tensorflow-macos", "2.9.2")}),
])
def test_path_facts(path, expected):
    assert expected <= set(path_facts(path))


def test_a_path_says_nothing_of_what_it_does_not_hold():
    assert path_facts("/usr/local/bin/python3") == [("python_path", "/usr/local/bin/python3")]
    assert not path_facts("/tmp/data/images")


def test_paths_in_a_traceback_are_inferred_and_in_code_ignored():
    text = ('Traceback (most recent call last):\n'
            '  File "/Users/ana/miniforge3/envs/tf/lib/python3.9/site-packages/keras/engine/training.py", line 1021, in fit\n'
            '```python\nsys.path.append("/opt/homebrew/lib/python3.11/site-packages")\n```\n')
    report = read_report(text)
    sources = {(f.name, f.value, f.how, f.source) for f in report.facts}
    assert ("env_manager", "miniforge", "inferred", "traceback path") in sources
    assert not [f for f in report.facts if f.value == "homebrew-arm64"]


def test_urls_are_not_paths():
    assert not read_report("see https://github.com/opt/homebrew/lib/python3.11/site-packages").facts


def test_a_windows_path_is_windows():
    report = read_report(r'  File "C:\Users\ana\AppData\Local\Programs\Python\Python310\lib\site.py", line 1')
    assert report.first("os").value == "Windows"
