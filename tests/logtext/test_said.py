"""tfdoctor/logtext/said.py: a report's own words about a cause. Each phrase family is read over
its phrasings and only with a TensorFlow word near; a finding that rests on one is "reported";
a printed message of the same code says more and is used instead."""

from __future__ import annotations

import pytest
from log_cases import WHO
from snapshots import apple_silicon, snap

from tfdoctor.logtext import keep
from tfdoctor.logtext.catalog import recognise

SAID = {
    "log.pip-no-matching-distribution": [
        "tensorflow isn't building wheels for macOS/arm64, so pip install -r requirements.txt fails",
        "You can't pip install tensorflow natively on an M1 Mac, since there are no pre-built wheels for macosx_arm64",
        "TensorFlow 2.17 did not publish macOS x86_64 binaries to PyPI",
        "pip3 install tf-text results in no matching distribution",
        "tensorflow 1.14 cannot be installed with pip, since there are no available built packages",
        "TensorFlow 1.15 has no prebuilt wheels for Python 3.8",
        "there aren't any compiled wheels of tensorflow-io for this Python",
    ],
    "log.macos-too-old": ["tensorflow-metal requires macOS 12.0 or later",
                          "the metal plugin released above only works right now in macOS 12.0+",
                          "the new procedure throws an error for tensorflow-metal if MacOS version <12.5.1",
                          "tensorflow-addons 0.8.2 is only compatible with Mac OS version 10.15",
                          "the tensorflow-metal wheels only support macOS 12",
                          "tensorflow-macos is only available for macOS 12.0 and later"],
    "log.h5py-build": ["I encountered a build problem with h5py at the last step"],
    "log.pip-depends-on-tensorflow": [
        "The `tensorflow` dependency doesn't work on Apple Silicon machines (which need `tensorflow-macos` ).",
        "To install on an Apple Silicon machine, you will need tensorflow-macos instead of tensorflow.",
        "If the user is using an Apple Silicon Macbook, change the package name from **tensorflow==1.15.2** to "
        "tensorflow-macos.",  # mayurmadnani/fer#28
        "Apple silicon uses pip install tensorflow-macos , the regular tensorflow requirement causing issue",  # gmalivenko/onnx2keras#144
        "For installing on MacOS (in my case M1), change 'tensorflow-gpu' to 'tensorflow-macos' in setup.py > "
        "requirements",  # TensorSpeech/TensorFlowTTS#788
        "The package depends on `tensorflow` but on macOS the distribution is `tensorflow-macos`, so the "
        "upgrade fails",
        "its setup.py requires tensorflow>=2.4, while the M1 needs tensorflow-macos",
        "on Apple silicon TensorFlow is `tensorflow-macos`, which the package's requirement does not recognise",
        "the package does not recognize tensorflow-macos as TensorFlow on my M1",
        "its tensorflow>=2.4 requirement is not satisfied by tensorflow-macos on the Mac",
        "Install on macOS fails because in requirements there's only `tensorflow` specified.",
        "on my M1 the requirements.txt just lists tensorflow",
        "TensorFlow on the M1 is called tensorflow-**macos**, which is in conflict with the requirements "
        "in `setup.cfg` (tensorflow).",
        "the setup.py dependency on tensorflow conflicts with tensorflow-macos on my Mac",
        'I\'ve tried changing the install_require to "tensorflow-mac>=3" and it worked fine on my M1',
        "after editing the requirements.txt to tensorflow-macos==2.9 it installs on the Mac",
    ],
    "log.plugin-registered-twice": [
        "I get the error about the METAL plugin having been already registered",
        "importing tensorflow fails because the tensorflow-metal plugin is registered twice",
        "with Metal the platform was already registered, so the import aborts",
        "pip installs tensorflow-metal into two places, which registers the plugin twice",
        "an already-registered METAL platform error on import",
    ],
    "log.arch-mismatch": [
        "the tensorflow still can't be imported for the architecture reason",
        "importing tensorflow in PyCharm fails because of the CPU architecture",
        "a tensorflow binary architecture mismatch between the venv and the IDE",
    ],
    "log.no-gpu-listed": ["TensorFlow can't find any local GPUs, so the models take a long time to fit",
                          "the GPU is not detected by tensorflow-macos",
                          "tensorflow 2.16 can't utilize the gpu on my machine"],
    "log.gpu-libraries": ['there is a bug while trying to load "libcudart.so.10.1" in tensorflow',
                          "TensorFlow cannot find cudart64_110.dll although CUDA is installed",
                          "tensorflow fails to open `libcudnn.so.8`",
                          "with tensorflow-gpu, libcublas.so.10.0 is missing",
                          "tensorflow gives the error: 'Cannot open dynamic library **libcublas.so.10**'",
                          "tensorflow was looking for CUDA 11 libraries, instead of 12",
                          "TensorFlow cannot find the CUDA 10.1 libraries although CUDA 10.2 is installed",
                          "tensorflow-gpu tries to load CUDA 9.0 DLLs"],
}
NOT_SAID = [
    "I installed the CUDA 11.2 libraries for tensorflow",
    "tensorflow 2.11 requires CUDA 11.2 and cuDNN 8.1",
    "I'm not sure which wheel to use for M1 with tensorflow",
    "pyarrow has no arm64 wheels for macOS",  # another project's, no TensorFlow word near
    "tensorflow-metal requires Python 3.9",
    "tensorflow detects the GPU, but it is slow",
    "the GPU is not used by tensorflow for this op",
    "tensorflow doesn't use the GPU for this op",
    "I can't use the GPU's full memory with tensorflow",
    "tensorflow-macos 2.13 wheels are now available on PyPI for arm64",
    "I installed tensorflow-macos and tensorflow-metal and it works",
    "tensorflow-macos is faster than tensorflow on my M1",
    "pip install tensorflow instead of tensorflow-macos since 2.13",
    "the tensorflow package dependency fails to resolve on Linux",  # no Mac in it: not the name
    "keras requires tensorflow, so I installed tensorflow-macos and tensorflow-metal on my M1",
    "tensorflow-macos was not found by pip on my Mac",
    "the tensorflow-metal plugin is registered and the GPU is listed",
    "tensorflow is compatible with macOS 12 and my Mac runs 14",
    "only tested tensorflow-metal on macOS 14",
    "I imported the weights for the architecture of the model in tensorflow",  # a model's architecture
    "loading the Keras weights fails because of the different architecture",   # a model's, not a CPU's
    "tensorflow imports fine on arm64; the architecture of my network is a ResNet",
    "the Metal plugin is not registered twice, only once",
    "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been "
    "registered",  # TensorFlow's CUDA build at every start: no Metal, and harmless
    "I already registered for the Apple developer program to get tensorflow-metal",
    "requirements.txt only lists tensorflow-macos on my Mac",  # the Mac's own name: nothing wrong
    "its requirements only pin numpy; tensorflow installs fine on my Mac",
    "the requirements only list tensorflow and it installs on my Linux box",  # no Mac near
    "tensorflow-macos conflicts with numpy 2 on my Mac",  # a conflict, not over the name
    "I have no binary packages of tensorflow installed yet",  # what is installed, not what exists
    "there are no built-in packages for tensorflow in this image",
    "I changed the requirements to tensorflow-metal on my Mac",  # the plugin added, not the name
    "tensorflow loads libcudart.so.11.0 and finds the GPU",  # loaded, nothing failed
    "I installed libcudart.so.10.2 for tensorflow",
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
    "'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file",  # TensorFlow's own line
    "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc] Couldn't open CUDA library libcuda.so.1. "
    "LD_LIBRARY_PATH: /usr/local/nvidia/lib64",  # TensorFlow 1.x's own line
]


@pytest.mark.parametrize("code,text", [(c, t) for c, texts in SAID.items() for t in texts])
def test_each_phrase_family_is_read_over_its_phrasings(code: str, text: str) -> None:
    assert [(m.code, m.variant.startswith("said-")) for m in recognise(text)] == [(code, True)]


@pytest.mark.parametrize("text", NOT_SAID)
def test_near_phrases_that_state_no_cause_are_not_read(text: str) -> None:
    assert not [m for m in recognise(text) if m.variant.startswith("said-")]


def test_the_macos_the_phrase_names_is_its_floor() -> None:
    (match,) = recognise("the new procedure throws an error for tensorflow-metal if MacOS version <12.5.1")
    assert match.fields == {"built_for": "12.5.1"}


def _findings(tmp_path, text: str) -> dict:
    from tfdoctor.engine.diagnose import diagnose

    s = snap(apple_silicon(packages=[{"name": "tensorflow", "version": "2.15.0"}], python={"site_packages": []}))
    (tmp_path / "posted.md").write_text(text, encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    return {f.code: f for f in diagnose(s).findings}


def test_a_finding_on_the_reports_words_is_reported_and_a_printed_message_says_more(tmp_path) -> None:
    words = "tensorflow-text has no arm64 wheels for macOS, so pip fails."
    said = _findings(tmp_path, words)["log.pip-no-matching-distribution"]
    assert said.basis == "reported" and said.evidence["said"] is True
    printed = _findings(tmp_path, words + "\nERROR: No matching distribution found for tensorflow-text==2.15.0\n")
    found = printed["log.pip-no-matching-distribution"]
    assert found.basis == "observed" and "said" not in found.evidence
    assert found.evidence["log_package"] == "tensorflow-text"


def test_a_reports_words_are_read_in_its_first_block_only() -> None:
    """A long log is a program's: prose patterns read its first block (where a report's own
    words stand), so they add a constant, not a share of every megabyte, to the reading."""
    from tfdoctor.logtext.scan import BLOCK

    words = "tensorflow-text has no arm64 wheels for macOS\n"
    filler = "step 1 loss 0.1 accuracy 0.9\n" * (2 * BLOCK // 29)
    assert [m.variant for m in recognise(words + filler)] == ["said-no-wheel"]
    assert not [m for m in recognise(filler + words) if m.variant.startswith("said-")]


def test_a_phrase_inside_a_condition_is_a_guides_advice_not_a_report() -> None:
    """CihatAcar/TensorFlow-AppleSilicon-Mac-GPU-Setup's README: "If TensorFlow doesn't recognize
    the GPU, double-check the installation steps." A guide's case is not a report of it; a comma
    or a colon closes the condition, and a condition after the phrase leaves it a report."""
    for advice in ("If TensorFlow doesn't recognize the GPU, double-check the installation steps.",
                   "If no GPU is detected, TensorFlow will default to using the CPU.",
                   "In case tensorflow-text has no arm64 wheels for macOS, build it from source",
                   "Works on my Mac. If tensorflow can't find the GPU, reinstall tensorflow-metal."):
        assert not [m for m in recognise(advice) if m.variant.startswith("said-")], advice
    for report in ("Even if I reinstall tensorflow-metal, TensorFlow doesn't find the GPU.",
                   "TensorFlow can't find the GPU if I use Python 3.12",
                   "My Mac: TensorFlow doesn't find the GPU, if that matters",
                   "If I run it in my venv TensorFlow doesn't find the GPU"):
        assert [m.variant for m in recognise(report)] == ["said-no-gpu"], report


def test_a_phrase_in_a_string_argument_of_a_call_is_code_not_words() -> None:
    """A tutorial's `print("No GPU detected ...")` is that code's message: no report said it. The
    same words in a person's sentence, quoted or not, are read; so is the line after the call."""
    code = ('physical_devices = tf.config.list_physical_devices("GPU")\n'
            'if not physical_devices:\n'
            '    print("No GPU detected. Please ensure MPS is enabled and TF was built with MPS support.")\n')
    assert not [m for m in recognise(code) if m.variant.startswith("said-")]
    for words in ('With TensorFlow on my M1 no GPU detected, as "No GPU detected" says.\n',
                  'print(x)  # no GPU detected by TensorFlow here\n',
                  code + 'TensorFlow: no GPU detected on my Mac\n'):
        assert [m.variant for m in recognise(words) if m.variant.startswith("said-")] == ["said-no-gpu"], words


def test_a_gpu_tensorflow_macos_does_not_recognise_is_the_gpus_story_not_the_names() -> None:
    """"Not recognised" is said of a requirement that does not take tensorflow-macos for tensorflow
    (pip-depends-on-tensorflow) and of a GPU tensorflow-macos does not see (no-gpu-listed): which
    one is told by what is not recognised."""
    assert [m.code for m in recognise("the GPU is not recognized by tensorflow-macos on my M1")] == ["log.no-gpu-listed"]
