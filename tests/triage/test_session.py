"""tfdoctor.triage.read_session: a command and the output printed under it, in a shell or at a
`>>>` prompt; the one kind of code whose printed answer is evidence."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.snapshot import to_snapshot


def _facts(text: str) -> set[tuple[str, str, str, str]]:
    return {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}


@pytest.mark.parametrize(("command", "output", "fact"), [
    ("uname -m", "arm64", ("shell_arch", "arm64", "read", "uname -m")),
    ("arch", "i386", ("shell_arch", "x86_64", "read", "arch")),
    ("python3.11 -V", "Python 3.11.4", ("python_version", "3.11.4", "read", "python --version")),
    ("~/venv/bin/python --version", "Python 3.9.6", ("python_version", "3.9.6", "read", "python --version")),
    ("which python", "/Users/kai/miniforge3/envs/tf/bin/python", ("python_path", "/Users/<user>/miniforge3/envs/tf/bin/python", "read", "which python")),
    ("sw_vers -productVersion", "13.4.1", ("macos_version", "13.4.1", "read", "sw_vers")),
    ("sysctl -n machdep.cpu.brand_string", "Apple M2 Max", ("chip", "Apple M2 Max", "read", "sysctl")),
    ("sysctl -n hw.optional.arm64", "1", ("hw_arm64", "true", "read", "sysctl")),
    ("sysctl -in sysctl.proc_translated", "1", ("shell_arch", "x86_64", "read", "sysctl")),
    ('python -c "import platform; print(platform.machine())"', "x86_64", ("python_arch", "x86_64", "read", "platform.machine()")),
    ("python3 -c 'import platform; print(platform.processor())'", "arm", ("python_arch", "arm64", "read", "platform.processor()")),
    ('python -c "import sys; print(sys.executable)"', "/opt/homebrew/bin/python3", ("python_path", "/opt/homebrew/bin/python3", "read", "sys.executable")),
    ('python -c "import tensorflow as tf; print(tf.__version__)"', "2.16.1", ("tensorflow_version", "2.16.1", "read", "tf.__version__")),
    ('python -c "import tensorflow; print(tensorflow.__version__)"', "2.4.0-rc0", ("tensorflow_version", "2.4.0-rc0", "read", "tf.__version__")),
])
def test_commands_and_their_output(command, output, fact):
    for prompt in ("$ ", "% ", "(tf) kai@mbp ~ % ", ""):
        assert fact in _facts(f"```\n{prompt}{command}\n{output}\n```"), prompt


def test_the_version_asked_of_tensorflow_without_an_alias_at_a_prompt():
    text = "```\n>>> import tensorflow\n>>> tensorflow.__version__\n'2.4.0-rc0'\n```"
    assert ("tensorflow_version", "2.4.0-rc0", "read", "tf.__version__") in _facts(text)


def test_output_below_tensorflows_log_lines():
    text = ('```\n$ python -c "import tensorflow as tf; print(tf.__version__)"\n'
            "2024-03-01 10:00:00.123456: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.\n"
            "2.15.0\n```")
    assert ("tensorflow_version", "2.15.0", "read", "tf.__version__") in _facts(text)


def test_no_answer_is_taken_from_the_next_command_or_from_prose():
    assert not _facts("```\n$ uname -m\n$ python --version\n```")
    assert not [f for f in _facts("Is this the right arch\narm64 or not?") if f[0] == "shell_arch"]
    assert not [f for f in _facts("```\n$ python --version\nsomething else\n```") if f[0] == "python_version"]


def test_two_values_printed_on_one_line_are_not_read_as_one():
    text = "```\n$ python3 -c 'import platform; print(platform.processor(), platform.machine())'\ni386 x86_64\n```"
    assert not [f for f in _facts(text) if f[0] == "python_arch"]


def test_a_python_script_is_no_evidence_but_a_session_is():
    script = "```python\nimport platform\nprint(platform.machine())\nx = 'arm64'\n```"
    assert not [f for f in _facts(script) if f[0] == "python_arch"]
    session = "```python\n>>> import platform\n>>> print(platform.machine())\narm64\n```"
    assert ("python_arch", "arm64", "read", "platform.machine()") in _facts(session)


def test_python_version_output_pasted_alone_in_a_fence():
    assert ("python_version", "3.12.1", "read", "python --version") in _facts("```\nPython 3.12.1\n```")


def test_what_a_script_printed_about_its_environment():
    text = ("```\nTensor Flow Version: 2.5.0\nKeras Version: 2.5.0\n\nPython 3.9.7 | packaged by conda-forge | "
            "(default, Sep 29 2021, 19:24:02)\n[Clang 11.1.0 ]\nPlatform: macOS-12.0.1-arm64-arm-64bit\n"
            "Machine: arm64\nNumPy version: 1.19.5\nGPU is available\n```")
    got = {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}
    assert {("tensorflow_version", "2.5.0", "read", "printed"), ("python_version", "3.9.7", "read", "python --version"),
            ("python_arch", "arm64", "read", "printed"), ("macos_version", "12.0.1", "read", "printed"),
            ("package:numpy", "1.19.5", "read", "printed")} <= got
    assert not [f for f in got if f[0] == "package:keras"]  # tf.keras.__version__ is no distribution


def test_what_r_tensorflow_prints_of_its_python():
    """R's tensorflow package, `tensorflow::tf_config()` (print.tensorflow_config in
    rstudio/tensorflow R/tf_config.R: cat("TensorFlow v", version_str, " (", location, ")"))."""
    text = ("```R\n> tensorflow::tf_config()\nTensorFlow v2.15.1 (~/.virtualenvs/r-tensorflow/lib/python3.10/"
            "site-packages/tensorflow)\nPython v3.10 (~/.virtualenvs/r-tensorflow/bin/python)\n```\n")
    assert {("tensorflow_version", "2.15.1", "read", "printed"), ("python_version", "3.10", "read", "printed")} <= _facts(text)
    assert not [f for f in read_report("TensorFlow v2.15.1 (see the notes)").facts if f.source == "printed"]


def test_the_build_r_says_it_is_is_the_embedded_pythons():
    """R's sessionInfo() prints R.version$platform ("x86_64-apple-darwin17.0": CRAN's Intel build;
    "aarch64-apple-darwin20": the arm64 one). reticulate loads libpython into R's process, so the
    Python it runs has R's architecture: an Intel R on an M1 is a Python under Rosetta 2."""
    intel = "```\nR version 4.0.3 (2020-10-10)\nPlatform: x86_64-apple-darwin17.0 (64-bit)\n```\n"
    arm = "```\nR version 4.2.2 (2022-10-31)\nPlatform: aarch64-apple-darwin20 (64-bit)\n```\n"
    assert ("python_arch", "x86_64", "inferred", "R sessionInfo()") in _facts(intel)
    assert ("python_arch", "arm64", "inferred", "R sessionInfo()") in _facts(arm)
    assert ("python_host", "R x86_64-apple-darwin17.0", "read", "R sessionInfo()") in _facts(intel)
    assert to_snapshot(read_report(intel)).python.host_program == "R x86_64-apple-darwin17.0"
    assert not [f for f in read_report("```\nPlatform: x86_64-pc-linux-gnu (64-bit)\n```\n").facts
                if f.name == "python_arch"]


def test_the_system_r_runs_under_is_the_macos_version():
    """sessionInfo()'s "Running under:" names macOS with its version on a Mac (R's own template,
    osVersion), and a Linux distribution elsewhere, whose numbers are no macOS version."""
    for named, version in (("macOS Monterey 12.1", "12.1"), ("macOS Sonoma 14.2.1", "14.2.1"),
                           ("macOS 13.4", "13.4"), ("OS X El Capitan 10.11.6", "10.11.6")):
        assert ("macos_version", version, "read", "printed") in _facts(f"```\nRunning under: {named}\n```\n")
    for other in ("Ubuntu 20.04.6 LTS", "Windows 10 x64 (build 19045)", "macOS"):
        assert not [f for f in read_report(f"```\nRunning under: {other}\n```\n").facts if f.name == "macos_version"]


def test_printed_keys_outside_fences_or_in_code_are_not_output():
    assert not [f for f in read_report("Machine: arm64").facts if f.source == "printed"]
    assert not [f for f in read_report("```python\nplatform = 'macOS-13.2-arm64-arm-64bit'\n```").facts
                if f.source == "printed"]


def test_the_banner_of_an_interactive_python():
    text = ("(.tf) % python3\nPython 3.8.2 (default, Nov  4 2020, 21:23:28) \n"
            "[Clang 12.0.0 (clang-1200.0.32.28)] on darwin\n>>> import tensorflow\n")
    got = {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}
    assert {("python_version", "3.8.2", "read", "python banner"), ("os", "Darwin", "read", "python banner")} <= got
    one_line = "Python 3.11.7 (main, Dec  4 2023, 18:10:11) [Clang 15.0.0 (clang-1500.1.0.2.5)] on darwin"
    assert ("python_version", "3.11.7", "read", "python banner") in {
        (f.name, f.value, f.how, f.source) for f in read_report(one_line).facts}


def test_a_labelled_value_printed_by_a_one_liner():
    text = ('```shell\npython -c "import tensorflow as tf; print(\'TensorFlow version:\', tf.__version__)"\n'
            "TensorFlow version: 2.18.0\n```")
    assert ("tensorflow_version", "2.18.0", "read", "tf.__version__") in _facts(text)


def test_the_arch_r_prints_is_the_embedded_pythons():
    """`R.version$arch` at R's console prints `[1] "x86_64"` for CRAN's Intel build, which Rosetta 2
    runs on Apple silicon, and `[1] "aarch64"` for the arm64 one (R's own R.version); reticulate's
    Python runs inside R, so as R was built. `arch` alone is the shell's question, R's is asked first."""
    intel = "```\n> R.version$arch\n[1] \"x86_64\"\n```\n"
    arm = "```r\n> R.version$arch\n[1] \"aarch64\"\n```\n"
    assert {("python_host", "R x86_64", "read", "R.version$arch"),
            ("python_arch", "x86_64", "inferred", "R.version$arch")} <= _facts(intel)
    assert ("python_arch", "arm64", "inferred", "R.version$arch") in _facts(arm)
    assert not [f for f in read_report(intel).facts if f.name == "shell_arch"]


@pytest.mark.parametrize("sentence,fact", [
    ('The command `R.version$arch` returned "x86_64".', ("python_host", "R x86_64", "read", "R.version$arch")),
    ("platform.machine() returns 'x86_64' in the notebook", ("python_arch", "x86_64", "read", "platform.machine()")),
    ("`uname -m` gives arm64", ("shell_arch", "arm64", "read", "uname -m")),
])
def test_an_answer_quoted_in_a_sentence_is_read_as_the_commands(sentence, fact):
    """A reporter who quotes what a command printed in a sentence gives its output all the same;
    a sentence about the command that quotes no answer of its shape gives nothing."""
    assert fact in _facts(sentence)


@pytest.mark.parametrize("sentence", ["platform.machine() is what I ran next", "uname -m says nothing useful",
                                      "`R.version$arch` shows the build"])
def test_a_sentence_about_a_command_without_its_answer_is_no_fact(sentence):
    assert not [f for f in read_report(sentence).facts if f.name in ("python_arch", "shell_arch", "python_host")]


def test_tf_config_lines_are_read_outside_a_fence_with_a_path_or_nothing_in_parentheses():
    """tf_config() pasted as plain text, its TensorFlow line with empty parentheses (the module
    printed no location); a sentence's parentheses are no location."""
    text = "OUTPUT from `tf_config()`\nTensorFlow v1.14.0 ()\nPython v3.7 (~/anaconda3/bin/python)\n"
    assert {("tensorflow_version", "1.14.0", "read", "printed"), ("python_version", "3.7", "read", "printed")} <= _facts(text)


@pytest.mark.parametrize(("printed", "version"), [
    # TensorFlow Probability's _ensure_tf_install (tensorflow_probability/python/__init__.py)
    ("ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.4; Detected an "
     "installation of version 2.3.0-dev20200603. Please upgrade TensorFlow to proceed.", "2.3.0-dev20200603"),
    # TensorFlow Addons' ensure_tf_install (tensorflow_addons/utils/ensure_tf_install.py)
    ("UserWarning: Tensorflow Addons supports using Python ops for all Tensorflow versions above or equal to 2.2.0 "
     "and strictly below 2.3.0 (nightly versions are not supported).\n The versions of TensorFlow you are currently "
     "using is 2.3.0 and is not supported.", "2.3.0"),
])
def test_the_tensorflow_a_companions_check_found_outranks_the_one_a_reporter_believes(printed, version):
    text = f"I have installed TensorFlow 2.4.\n\n{printed}\n"
    assert ("tensorflow_version", version, "read", "companion's version check") in _facts(text)
    assert to_snapshot(read_report(text)).package("tensorflow").version == version


@pytest.mark.parametrize(("printed", "package", "version", "source"), [
    # NumPy 2's numpy/core/_multiarray_umath.py: the NumPy that is running
    ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.1 as it may crash. To support both "
     "1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0.", "numpy", "2.0.1", "NumPy's own message"),
    # protobuf's runtime_version.ValidateProtobufRuntimeVersion: the runtime is the protobuf installed
    ("google.protobuf.runtime_version.VersionError: Detected incompatible Protobuf Gencode/Runtime versions when "
     "loading tensorflow/core/framework/attr_value.proto: gencode 5.28.3 runtime 5.27.2. Runtime version cannot "
     "be older than the linked gencode version.", "protobuf", "5.27.2", "protobuf's own message"),
])
def test_the_version_a_package_prints_of_itself_outranks_the_one_a_reporter_states(printed, package, version, source):
    text = f"I have {package} 1.26.4 installed.\n\n{printed}\n"
    assert (f"package:{package}", version, "read", source) in _facts(text)
    assert to_snapshot(read_report(text)).package(package).version == version
