"""tfdoctor.triage.read_prose and read_template: what a person states about their setup, in
sentences or in TensorFlow's issue-template fields (.github/ISSUE_TEMPLATE/tensorflow_issue_template.yml
and 00-bug-issue.md)."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.read_prose import statements
from tfdoctor.triage.read_template import answer_facts


@pytest.mark.parametrize(("text", "expected"), [
    ("MacBook Pro M2, Python 3.10.4", {("chip", "Apple M2"), ("python_version", "3.10.4")}),
    ("Mac mini (M1, 2020) on macOS Sonoma", {("chip", "Apple M1"), ("macos_version", "14"), ("os", "Darwin")}),
    ("macOS Ventura 13.2.1", {("macos_version", "13.2.1")}),
    ("Mac OS X 10.15.7 on an Intel i7", {("macos_version", "10.15.7"), ("chip", "Intel Core i7")}),
    ("Big Sur (11.6), Apple M1 Ultra", {("macos_version", "11.6"), ("chip", "Apple M1 Ultra")}),
    ("an intel-based MacBook", {("chip", "Intel")}),
    ("I'm on Apple Silicon", {("hw_arm64", "true")}),
    ("I am using a fish shell via Rosetta (`uname -m` gives me x86_64)", {("hw_arm64", "true")}),  # Rosetta 2: Apple silicon only
    ("it works in a Terminal opened with Rosetta 2", {("hw_arm64", "true")}),
    ("TensorFlow 2.12 with tensorflow-metal 0.8.0", {("tensorflow_version", "2.12"), ("package:tensorflow-metal", "0.8.0"),
                                                     ("os", "Darwin")}),  # a distribution made for macOS only
    ("arm64 needs tensorflow-macos, which the package does not recognise", {("os", "Darwin"), ("python_arch", "arm64")}),
    ("tf version: 2.8", {("tensorflow_version", "2.8")}),
    ("pip install tensorflow==2.13.0 keras==2.13.1", {("package:tensorflow", "2.13.0"), ("package:keras", "2.13.1")}),
    ("tensorflow_macos (2.9.0)", {("package:tensorflow-macos", "2.9.0")}),
    # the ML Compute fork's own spelling of its releases (apple/tensorflow_macos: "0.1alpha3")
    ("tensorflow_macos 0.1alpha3", {("package:tensorflow-macos", "0.1alpha3")}),
    ("python3.9 and a native arm64 build", {("python_version", "3.9"), ("python_arch", "arm64")}),
    ("running it in a docker container with --platform linux/amd64", {("container", "docker amd64"), ("container", "docker")}),
    ("installed with Miniforge3, then pyenv", {("env_manager", "miniforge"), ("env_manager", "pyenv")}),
    ("gpflow does not install correctly on Mac because it depends on `tensorflow`", {("os", "Darwin")}),  # GPflow#1872 style
    ("Importing tensorflow breaks the kernel on my MacBook Air", {("os", "Darwin")}),
    ("the same script on macOS fails", {("os", "Darwin")}),
    ("Maybe need to update my osx version? I'm on 10.10.5", {("macos_version", "10.10.5")}),  # said just after
    ("Is macOS the problem? I am running 12.6 on an M1.", {("macos_version", "12.6"), ("chip", "Apple M1")}),
    ("Predictions are cut off on Apple M1/macOS11/tensorflow-metal", {("macos_version", "11"), ("chip", "Apple M1")}),
    ("works on OSX10.15, fails on macOS13.4", {("macos_version", "10.15"), ("macos_version", "13.4")}),  # titles squeeze
    ("I'm running OSX High Sierra 10.13.6", {("macos_version", "10.13.6")}),  # the names before Mojave too
    ("still on El Capitan", {("macos_version", "10.11")}),
    ("macOS Sierra 10.12.6 here", {("macos_version", "10.12.6")}),
    ("OS X Yosemite on a 2014 iMac", {("macos_version", "10.10")}),
    ("High Sierra 10.12", {("macos_version", "10.13")}),  # a number of another release: the name's
    ("OS Platform and Distribution: MAC version 10.10.5", {("macos_version", "10.10.5"), ("os", "Darwin")}),
    ("on Mac 12.6 with an M1", {("macos_version", "12.6")}),  # a bare Mac before a dotted release
])
def test_statements(text, expected):
    assert expected <= set(statements(text))


@pytest.mark.parametrize("text", [
    "tensorflow-intel is installed",            # a distribution, not an Intel chip
    "see https://pypi.org/project/tensorflow-macos/2.9.0/ for wheels",
    "a lake Tahoe holiday",
    "lib/python3.9/site-packages is where it lives",  # a path: read_paths infers from it
    "TensorFlow 2.1… and then it stops",         # a version cut by the paste
    "the osx-arm64 build",
    "the Rosetta Stone of error messages",
    "the MAC address of the device",             # a network address, not a Mac
    "pip install macholib",
    "see tensorflow-metal-plugin-docs for more",   # a longer name than the distribution's
    "On Ubuntu 22.04 I cannot pip install tensorflow-metal",  # another system named: not a Mac
    "the wheel is tagged macosx_11_0_arm64",     # a wheel tag, not the Mac's macOS
    "it lives in /opt/macos/12",                 # a path
    "hiking in the Sierra Nevada with tensorflow",  # places, unless macOS or OS X comes first
    "a Yosemite photo dataset",
    "The aliases was originally deprecated in NumPy 1.20; for more details",  # NumPy's message: a release
    "`np.string_` was removed in the NumPy 2.0 release. Use `np.bytes_` instead.",
    "as of Keras 2.4 the backend is TensorFlow",
    "the two packages have been identical since TensorFlow 2.1",  # tensorflow-gpu's removal notice: a release
    "prior to TensorFlow 2.11 the GPU worked on native Windows",
    "importing tf_keras to use Keras 2 fails",    # an API major wanted or needed, not the one installed
    "transformers currently relies on Keras 2",
    "the wheel requires NumPy 2",
    "we are moving to Keras 3 next month",
    "the tf-keras package can make Keras 2 APIs available",  # the API named
    "NumPy 2 support is coming",
    "works with Keras 2 and 3",
])
def test_what_is_not_a_statement(text):
    said = set(statements(text))
    assert not said, said


@pytest.mark.parametrize("text", ["my Mac 2019 model", "the Mac 13 inch", "a Mac 16GB"])
def test_a_bare_mac_before_a_number_that_is_no_dotted_release_gives_no_version(text):
    assert not [value for name, value in statements(text) if name.startswith("macos_version")]


@pytest.mark.parametrize("text", ["macOS, I'm on TensorFlow 2.12", "Using macOS. I'm on 3.9"])
def test_a_version_said_after_the_os_that_no_macos_was_called_is_not_the_macs(text):
    assert not [v for k, v in statements(text) if k == "macos_version"]


def test_prose_inside_fences_and_code_is_not_read_as_prose():
    report = read_report("```\nmy python 3.8 notes\n```\n```python\n# runs on Python 3.7\n```")
    assert not [f for f in report.facts if f.source == "prose"]


def test_issue_form_fields_and_empty_answers():
    text = ("### TensorFlow Version\n\ntf 2.8\n\n### OS Platform and Distribution\n\n_No response_\n\n"
            "### Python Version\n\n3.9\n\n### GPU Model and Memory\n\nM1 Pro 16 GB\n")
    got = {(f.name, f.value, f.how, f.source) for f in read_report(text).facts}
    assert {("tensorflow_version", "2.8", "stated", "issue template"),
            ("python_version", "3.9", "stated", "issue template"),
            ("chip", "Apple M1 Pro", "stated", "issue template")} <= got
    # the OS field was left empty: no OS is stated, only inferred from the Apple chip named
    assert [f for f in got if f[0] in ("os", "macos_version")] == [("os", "Darwin", "inferred", "chip")]


def test_a_template_hint_is_not_the_answer():
    report = read_report("- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): \n- Python version: 3.10\n")
    assert not [f for f in report.facts if f.name == "os"]
    assert report.first("python_version").source == "issue template"


@pytest.mark.parametrize(("kind", "answer", "expected"), [
    ("tensorflow", "v2.12.0-rc1-12-g0db597d0d75 2.12.0", ("tensorflow_version", "2.12.0")),
    ("tensorflow", "tensorflow-macos 2.9.2", ("package:tensorflow-macos", "2.9.2")),
    ("os", "Ubuntu 22.04 in Docker", ("os", "Linux")),
    ("os", "Win 10 pro", ("os", "Windows")),
    ("os", "win11 x64", ("os", "Windows")),
    ("os", "macOS 14.5 (M3 Max)", ("chip", "Apple M3 Max")),
    ("python", "Python 3.11.7", ("python_version", "3.11.7")),
])
def test_answer_facts(kind, answer, expected):
    assert expected in set(answer_facts(kind, answer))


@pytest.mark.parametrize("answer", ["1.9-1.13", "2.9 to 2.12", "v2.10 - 2.12"])
def test_a_range_of_tensorflow_versions_tried_is_no_single_version(answer):
    assert not [fact for fact in answer_facts("tensorflow", answer) if fact[0] == "tensorflow_version"]


@pytest.mark.parametrize("text", [
    "running TensorFlow 2.3 and TensorFlow 2.4 on a MacBook Pro with an Intel chip",
    "it worked with tensorflow 2.8, tf 2.9 broke it",
])
def test_a_line_naming_two_tensorflow_versions_states_neither(text):
    """A comparison or a history does not say which TensorFlow is in use; one version said twice
    is still said, and a named distribution keeps its own version."""
    assert not [v for k, v in statements(text) if k == "tensorflow_version"]
    assert ("tensorflow_version", "2.4") in set(statements("TensorFlow 2.4 here, TensorFlow 2.4 there"))
    assert ("package:tensorflow-metal", "0.5.0") in set(statements(text + " with tensorflow-metal 0.5.0"))


def test_template_labels_are_not_the_reporters_words():
    text = ("- Installed using virtualenv? pip? conda?: conda\n"
            "- TensorFlow installed from (source or binary): binary\n"
            "- Bazel version (if compiling from source): n/a\n")
    got = {(f.name, f.value, f.source) for f in read_report(text).facts}
    assert got == {("env_manager", "conda", "issue template")}


def test_the_macos_a_binary_was_built_for_is_not_this_macs():
    # dyld's "Referenced from: PATH (which was built for Mac OS X 10.12)" (rstudio/keras3#791)
    said = set(statements("Referenced from: /x/libtensorflow_framework.so (which was built for Mac OS X 10.12)"))
    assert not [fact for fact in said if fact[0].startswith("macos_version")], said


@pytest.mark.parametrize("text, mac", [
    ("N.B. upgrading to macOS 10.12 is not really a suitable option for me right now", None),
    ("tensorflow-metal requires macOS 12 or later", None),
    ("the wheels need at least macOS 11.0", None),
    ("I upgraded to macOS 13.4 yesterday and now it fails", "13.4"),
    ("I'm on macOS 11.6, and the plugin requires macOS 12", "11.6"),
    ("Are recent versions of this package only compatible with OSX 10.15?", None),
    ("tensorflow-macos is only available for macOS 12 and later", None),
])
def test_a_macos_version_a_sentence_requires_or_plans_is_not_this_macs(text, mac):
    said = [value for name, value in statements(text) if name == "macos_version"]
    assert said == ([mac] if mac else [])



@pytest.mark.parametrize("text, mac, python", [
    # a guide's requirements (asadsk8r02/Macbook_M2_GPU_enable's README): floors, not the machine
    ("Mac computers with Apple silicon M2, macOS 12.0 or later, Python 3.8 or later", None, None),
    ("Python 3.9+ and macOS Monterey or later", None, None),
    ("this plugin requires macOS Monterey and python>=3.9", None, None),
    # a report's failing Python is the reporter's own
    ("tensorflow-metal doesn't work with python 3.12", None, "3.12"),
    ("I use Python 3.10 on macOS 13.4", "13.4", "3.10"),
    ("Python 3.11 and macOS 14.1, and it works", "14.1", "3.11"),
    ("After the update to macOS Monterey the GPU is gone", "12", None),  # an update done: this Mac's
    ("macOS 12.3 + tensorflow-metal 0.4: no GPU with Python 3.9 + TF 2.8", "12.3", "3.9"),  # a plus as "and"
])
def test_a_version_stated_as_a_floor_or_a_requirement_is_not_the_machines(text, mac, python):
    said = list(statements(text))
    assert [v for n, v in said if n == "macos_version"] == ([mac] if mac else [])
    assert [v for n, v in said if n == "python_version"] == ([python] if python else [])


def test_a_comment_after_a_setting_is_the_files_note_not_the_machines():
    # a pixi.toml pasted without fences (henrikekeus' tensorflow-keras-osx README): the comment
    # says what its author knew of tensorflow-metal, not the Python of the machine
    text = ('[pypi-dependencies]\n'
            'tensorflow-metal = ">=1.1.0,<2" # Limitting factor: 1.1.0 is the latest, which doesn\'t work with python 3.12\n'
            'PYTHON_VERSION=3.11  # on macOS 14.1\n')
    facts = {(f.name, f.value) for f in read_report(text).facts}
    assert not [fact for fact in facts if fact[0] in ("python_version", "macos_version")], facts
    # the setting is read as before, and prose with a hash is prose
    facts = {(f.name, f.value) for f in read_report("Python 3.12 on macOS 14.1 # see issue #4\n").facts}
    assert {("python_version", "3.12"), ("macos_version", "14.1")} <= facts


@pytest.mark.parametrize("text, fact", [
    # what a person could not, or wanted to, install is not installed (tensorflow/probability#1060)
    ("I cannot install TensorFlow 2.3 because it says there is no match.", None),
    ("trying to pip install tensorflow==2.9.0 on my Mac", None),
    ("I want to upgrade to the tensorflow-macos 2.12 release", None),
    ("I installed TensorFlow 2.3 yesterday", ("tensorflow_version", "2.3")),
    ("I upgraded to tensorflow-macos 2.12", ("package:tensorflow-macos", "2.12")),
])
def test_a_version_someone_could_not_or_wanted_to_install_is_not_installed(text, fact):
    said = [(n, v) for n, v in statements(text) if n == "tensorflow_version" or n.startswith("package:")]
    assert said == ([fact] if fact else [])


def test_an_answer_typed_under_an_empty_template_line_is_the_fields():
    """tensorflow/federated's bug template ("* Python package versions (e.g., TensorFlow
    Federated, TensorFlow):") with each answer on the line below, as reporters fill it in."""
    text = ("**Environment (please complete the following information):**\n"
            "* OS Platform and Distribution: \nmacOS Monterey 12.1, 6 Core Intel Core i7\n"
            "* Python package versions (e.g., TensorFlow Federated, TensorFlow): \n"
            "tensorflow-macos==2.5.0 tensorflow-federated==0.19.0 tensorflow-metal==0.3.0\n"
            "* Python version: \npython@3.8/3.8.12_1\n"
            "* Bazel version (if building from source):\n* CUDA/cuDNN version:\n")
    got = {(f.name, f.value, f.line) for f in read_report(text).facts if f.source == "issue template"}
    assert {("macos_version", "12.1", 3), ("package:tensorflow-metal", "0.3.0", 5),
            ("package:tensorflow-macos", "2.5.0", 5), ("python_version", "3.8", 7)} <= got
    # an empty field followed by another field has no answer: the next field is not it
    assert not [f for f in got if f[2] in (8, 9)]


def test_a_template_field_outranks_what_a_sentence_says_was_tried():
    """The field asks for the environment that failed; a sentence may tell what worked before."""
    text = ("I can use it with\n```\npip install tensorflow-macos==2.5.0 tensorflow-metal==0.2.0\n```\n"
            "but with tensorflow-metal 0.3.0 it fails.\n\n**Environment**\n"
            "* Python package versions (e.g., TensorFlow Federated, TensorFlow): \n"
            "tensorflow-macos==2.5.0 tensorflow-metal==0.3.0\n")
    report = read_report(text)
    assert report.packages()["tensorflow-metal"].value == "0.3.0"
    assert report.packages()["tensorflow-metal"].source == "issue template"


@pytest.mark.parametrize(("text", "expected"), [
    ("I have both `tensorflow` and `tensorflow-gpu` installed.", {"tensorflow", "tensorflow-gpu"}),
    ("both tensorflow-macos and tensorflow are installed", {"tensorflow-macos", "tensorflow"}),
    ("Should I install both tensorflow and tensorflow-gpu?", set()),
    ("I uninstalled both tensorflow and tensorflow-gpu", set()),
    ("I have both tensorflow and keras installed", set()),  # keras is not a TensorFlow distribution
    ("I don't have both tensorflow and tensorflow-cpu installed", set()),
])
def test_two_tensorflow_distributions_said_to_be_installed_together(text, expected):
    """tensorflow and tensorflow-gpu both installed took the GPU away before 2.1: a report that
    says so names both, versions unsaid."""
    got = {name[len("package:"):]: value for name, value in statements(text) if name.startswith("package:")}
    assert set(got) == expected and not any(got.values())


@pytest.mark.parametrize(("text", "expected"), [
    ("installation of tensorflow v2.15.0, tensorflow-probability v0.23.0, and keras v3 causes a",
     ("package:keras", "3")),
    ("Keras 3 breaks Tensorflow Probability upon import", ("package:keras", "3")),
    ("I have numpy 2 installed beside tensorflow", ("package:numpy", "2")),
])
def test_a_major_alone_is_a_version_where_it_is_the_api(text, expected):
    """Keras 3 and NumPy 2 are said by their major; for other packages a number without a dot
    is no version ("tensorflow 2 on my mac", "keras 34 layers")."""
    assert expected in set(statements(text))
    assert not [f for f in statements("tensorflow 2 on my mac, keras 34 layers, removed in Keras 3")
                if f[0].startswith("package:") or f[0] == "tensorflow_version"]


@pytest.mark.parametrize(("text", "expected"), [
    ("my tensorflow version is 2.10.0", ("tensorflow_version", "2.10.0")),
    ("numpy version is 1.26.4", ("package:numpy", "1.26.4")),
    ("tensorflow-macos is 2.9.0 on this Mac", ("package:tensorflow-macos", "2.9.0")),
    ("pip install tensorflow@2.12 did it", ("tensorflow_version", "2.12")),
    ("the install downloads tensorflow-probability-0.25.0, which is too new",
     ("package:tensorflow-probability", "0.25.0")),
    ("it requires the tensorflow-macos module, which is stuck on version 2.16.2.",
     ("package:tensorflow-macos", "2.16.2")),
    ("keras, that is at 2.15.0, came with it", ("package:keras", "2.15.0")),
])
def test_a_version_said_with_is_or_at_is_the_packages(text, expected):
    assert expected in set(statements(text))
    # a past version, or a number of times, is not what is installed
    assert not [f for f in statements("tensorflow was 2.4.1 before; keras is 3 times faster; "
                                      "tensorflow, which is on 2 machines")
                if f[0].startswith("package:") or f[0] == "tensorflow_version"]
    # a wheel's file name is a file pip was given or refused (tfdoctor.triage.read_pip reads it)
    assert not list(statements("tensorflow-2.4.1-cp36-cp36m-macosx_10_11_x86_64.whl is not a supported wheel"))


@pytest.mark.parametrize(("text", "fork"), [
    ("1. install tf for mac m1(https://github.com/apple/tensorflow_macos)", True),
    ("I tried to download and install [https://github.com/apple/tensorflow_macos/releases]"
     "(https://github.com/apple/tensorflow_macos/releases) manually", True),
    ("same as https://github.com/apple/tensorflow_macos/issues/153 after I install tensorflow-metal", False),
    ("Apple's repository is https://github.com/apple/tensorflow_macos", False),  # named, not installed from
])
def test_a_line_that_installs_from_the_forks_repository_infers_the_fork(text, fork):
    """apple/tensorflow_macos published only the 2020-21 ML Compute fork (its releases and install
    scripts); its issues later collected tensorflow-metal's reports. The release stays unsaid."""
    got = {(f.name, f.value, f.how) for f in read_report(text + "\n").facts}
    assert (("package:tensorflow-macos", "0.1alpha", "inferred") in got) is fork

