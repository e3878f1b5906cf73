"""checks/log_import.py: import errors from real public threads (tests/data/logs/, sources in
SOURCES.json), each diagnosed with the facts that change the answer: the installed
TensorFlow/tensorflow-metal pair, the plugins installed, the system."""

from __future__ import annotations

import pytest

from log_cases import ARM, LOGS, WHO, LogRules, commands, one
from snapshots import _pkg, apple_silicon, linux_cpu, snap

from tfdoctor.logtext import keep
from tfdoctor.model import Severity

check = LogRules("log_import")
diagnose = check.diagnose
ROSETTA = {"python": {"process_arch": "x86_64", "translated": True}}


def pair(tf: str, metal: str | None, *extra: dict) -> list[dict]:
    packages = [_pkg("tensorflow", tf, ARM)] + list(extra)
    return packages + ([_pkg("tensorflow-metal", metal, ARM)] if metal else [])


# --- plugins registered twice --------------------------------------------------------------------


def test_metal_registered_twice_with_both_metal_plugins_installed():
    data = apple_silicon(packages=pair("2.19.1", "1.2.0", _pkg("tensorflow-metal-plugin", "0.4.1", ARM)))
    f = one(diagnose(data, "metal_registered_twice.txt"), "log.plugin-registered-twice")
    assert f.evidence["log_platform"] == "METAL"
    assert "uninstall -y -- tensorflow-metal tensorflow-metal-plugin" in commands(f)


def test_directml_registered_twice_names_its_platform():
    f = one(diagnose(linux_cpu(), "directml_registered_twice.txt"), "log.plugin-registered-twice")
    assert "Platform DML registered twice" in f.title


def test_registered_twice_through_the_environment_variable():
    data = apple_silicon(env={"TF_PLUGGABLE_DEVICE_LIBRARY_PATH": "/opt/metal/libmetal_plugin.dylib"})
    f = one(diagnose(data, "metal_registered_twice.txt"), "log.plugin-registered-twice")
    assert commands(f) == "unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH"


def test_registered_twice_in_a_report_that_lists_no_plugins_asks_for_them():
    """A report's unlisted plugins are unknown, not absent: no "0 plugin files" verdict, but the
    command that lists every copy on the path."""
    data = apple_silicon()
    data["unknown"] = ["plugins", "packages"]
    f = one(diagnose(data, "metal_registered_twice.txt"), "log.plugin-registered-twice")
    assert "0 plugin file" not in f.remediation.text and "keep one" in f.remediation.text
    assert "glob.glob(d + '/tensorflow-plugins/*')" in commands(f)
    known = one(diagnose(apple_silicon(), "metal_registered_twice.txt"), "log.plugin-registered-twice")
    assert "this environment shows 1 plugin file(s)" in known.remediation.text  # tfdoctor read this one


# --- no GPU --------------------------------------------------------------------------------------------


def test_empty_gpu_list_without_tensorflow_metal_installs_the_pair():
    data = apple_silicon(packages=pair("2.19.1", None), plugins=[])
    f = one(diagnose(data, "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert "tensorflow-metal is not installed" in f.title and "tensorflow-metal==1.2.0" in commands(f)
    # a report naming TensorFlow only (no listing): the plugin is unknown, not absent
    named = apple_silicon(packages=[{"name": "tensorflow", "version": "2.19.1"}], python={"site_packages": []})
    unknown = one(diagnose(named, "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert "no Metal plugin was loaded" in unknown.title and "is not installed" not in unknown.title


def test_empty_gpu_list_under_rosetta():
    f = one(diagnose(apple_silicon(**ROSETTA), "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert "Rosetta 2" in f.title


def test_empty_gpu_list_on_linux_is_a_warning():
    f = one(diagnose(linux_cpu(), "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert f.severity.value == "warning" and "macOS only" in f.title


def test_empty_gpu_list_on_native_windows_after_2_10_has_no_gpu_build_to_find():
    """TensorFlow 2.10 was the last release with a GPU build for native Windows: 2.15's list is
    empty there whatever CUDA is installed (an error, the way out named); 2.10's may be CUDA's."""
    later = linux_cpu(host={"system": "Windows"}, packages=[_pkg("tensorflow", "2.15.0", [])])
    f = one(diagnose(later, "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert f.severity == Severity.ERROR and "no GPU build for native Windows (2.10 was the last)" in f.title
    assert "WSL2" in f.title
    older = linux_cpu(host={"system": "Windows"}, packages=[_pkg("tensorflow", "2.10.1", [])])
    g = one(diagnose(older, "gpu_list_empty_tf215.txt"), "log.no-gpu-listed")
    assert g.severity == Severity.WARNING and "2.10 and older have a GPU build" in g.title


def test_empty_gpu_list_where_the_system_is_not_stated_is_not_another_system(tmp_path):
    """A report that names no OS: the system is unknown, not Linux. With the ML Compute fork's
    own import (apple/tensorflow_macos README: `from tensorflow.python.compiler.mlcompute import
    mlcompute`) beside the empty list, the fork lists no GPU by design: information."""
    text = (LOGS / "gpu_list_empty_tf215.txt").read_text(encoding="utf-8")
    (tmp_path / "posted.md").write_text(text + "\nfrom tensorflow.python.compiler.mlcompute import mlcompute\n",
                                        encoding="utf-8")
    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "unknown": ["packages"]})
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    f = one(check.run(s), "log.no-gpu-listed")
    assert f.severity is Severity.INFO and "macOS only" not in f.title and "ML Compute" in f.title


def test_empty_gpu_list_where_the_system_is_not_stated_but_the_text_names_an_nvidia_gpu_is_cudas(tmp_path):
    """An issue template's empty OS field beside "GPU model and memory: K80" and "CUDA/cuDNN version: 10.1":
    the machine's GPU is NVIDIA's, so the Metal plugin's advice does not apply; without those words the
    system stays unknown and the plugin is the likelier story."""
    text = (LOGS / "gpu_list_empty_tf215.txt").read_text(encoding="utf-8")
    for words, cuda in (("- GPU model and memory: K80\n- CUDA/cuDNN version: 10.1\n", True), ("", False)):
        (tmp_path / "posted.md").write_text(words + text, encoding="utf-8")
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "unknown": ["packages"]})
        s.log = keep.read(tmp_path / "posted.md", identity=WHO)
        f = one(check.run(s), "log.no-gpu-listed")
        assert ("a GPU needs CUDA" in f.title) is cuda and ("Metal plugin" in f.title) is not cuda
        assert (f.remediation.commands == ()) is cuda


def test_the_interpreters_own_no_module_named_tensorflow_says_what_a_report_list_cannot():
    """CPython's 'No module named {name!r}' for the top package (kyleskom/NBA-Machine-Learning-
    Sports-Betting#180): where the package list is only what a report mentioned, the interpreter
    that ran says TensorFlow is missing; where TensorFlow is installed here, the text came from
    another interpreter (information)."""
    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def run(packages):
        s = snap(apple_silicon(packages=packages, python={"site_packages": []}))
        s.log = keep.read(LOGS / "no_module_named_tensorflow.txt", identity=WHO)
        return diagnose(s)

    report = run([])
    assert report.diagnosis().code == "install.no-tensorflow"
    assert "log.no-tensorflow-module" in {c.code for c in report.consequences(report.diagnosis())}
    elsewhere = next(f for f in run(apple_silicon()["packages"]).findings if f.code == "log.no-tensorflow-module")
    assert elsewhere.severity is Severity.INFO and "another interpreter" in elsewhere.title


def test_a_report_that_lists_tensorflow_and_shows_no_module_named_tensorflow_has_two_interpreters():
    """The same text beside a report's own listing (a snapshot that lists what it does not know):
    the listing is where pip installed TensorFlow, the text the interpreter that ran: the report's
    cause, not another environment's text. A GPU build's name (tensorflow-gpu) is TensorFlow too."""
    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    for name in ("tensorflow", "tensorflow-gpu"):
        s = snap(linux_cpu(packages=[{"name": name, "version": "2.4.1"}], python={"site_packages": []}))
        s.unknown = ["packages", "plugins", "environment"]
        s.log = keep.read(LOGS / "no_module_named_tensorflow.txt", identity=WHO)
        f = diagnose(s).diagnosis()
        assert f.code == "log.no-tensorflow-module" and f.severity is Severity.ERROR, name
        assert f"the report shows {name} 2.4.1 installed" in f.title and "two interpreters" in f.title


NOTEBOOK_NO_MODULE = (  # IPython 8's ultratb template for an exception in a cell
    "---------------------------------------------------------------------------\n"
    "ModuleNotFoundError                       Traceback (most recent call last)\n"
    "Cell In[1], line 1\n"
    "----> 1 import tensorflow as tf\n\n"
    "ModuleNotFoundError: No module named 'tensorflow'\n")
SCRIPT_NO_MODULE = ("Traceback (most recent call last):\n  File \"train.py\", line 1, in <module>\n"
                    "ModuleNotFoundError: No module named 'tensorflow'\n")


@pytest.mark.parametrize(("words", "packages", "kernel"), [
    ("In a python prompt I can `import tensorflow`, but in a Jupyter notebook:\n", None, True),
    ("import tensorflow works in the terminal. Jupyter says:\n", None, True),
    ("My Jupyter notebook:\n", [{"name": "tensorflow", "version": "2.15.0"}], True),
    ("My Jupyter notebook:\n", None, False),
    ("I can't import tensorflow in the terminal either, nor in Jupyter:\n", None, False),
    ("In a python prompt I can `import tensorflow`, and the script says:\n", None, False),
])
def test_a_notebooks_no_module_named_tensorflow_where_it_imports_elsewhere_is_the_kernels(
        tmp_path, words, packages, kernel):
    """A notebook's "No module named 'tensorflow'" (IPython's traceback, Jupyter named) where the
    report lists TensorFlow or its writer says it imports elsewhere: the kernel starts another
    interpreter, and the fix registers the environment that has TensorFlow as a kernel. Without
    either, or outside a notebook, it stays the interpreter without TensorFlow."""
    from tfdoctor.engine.diagnose import diagnose

    data = linux_cpu(packages=packages or [], python={"site_packages": []})
    s = snap(data)
    s.unknown = ["packages", "plugins", "environment"]
    error = NOTEBOOK_NO_MODULE if "Jupyter" in words else SCRIPT_NO_MODULE
    (tmp_path / "posted.md").write_text(words + error, encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    f = diagnose(s).diagnosis()
    assert f.code == "log.no-tensorflow-module" and f.severity is Severity.ERROR
    assert ("the notebook's kernel runs another Python" in f.title) is kernel
    assert ("-m ipykernel install --user --name" in commands(f)) is kernel
    if kernel and packages:
        assert "lists tensorflow 2.15.0" in f.title


def test_a_notebook_kernel_that_died_is_a_question_for_the_kernels_python():
    """conda-forge/tensorflow-feedstock#154: Jupyter's two lines and nothing else. The reason is
    printed where the kernel ran: information, with the commands that find and diagnose the
    kernel's Python; a crash message pasted beside it is the diagnosis instead."""
    f = one(diagnose(apple_silicon(), "jupyter_kernel_died.txt"), "log.kernel-died")
    assert f.severity is Severity.INFO and "tfdoctor check --kernel NAME" in commands(f)


def test_the_crash_pasted_beside_a_dead_kernel_is_the_diagnosis(tmp_path):
    # apple/tensorflow_macos#51's two texts: the notebook's line and the terminal's
    from tfdoctor.engine.diagnose import diagnose as whole

    (tmp_path / "posted.txt").write_text("The kernel appears to have died. It will restart automatically.\n"
                                         "zsh: illegal hardware instruction  python3\n", encoding="utf-8")
    s = snap(apple_silicon())
    s.log = keep.read(tmp_path / "posted.txt", identity=WHO)
    assert whole(s).diagnosis().code != "log.kernel-died"


def test_an_empty_gpu_list_in_a_text_that_times_a_gpu_run_against_a_cpu_run_is_the_cpu_runs(tmp_path):
    """The tensorflow.org guide's GPU count printed twice, around Keras' progress lines (its
    Progbar template): once with the plugin, once without it. The empty list is the comparison's
    CPU run, not a missing plugin; without the timings it stays the error it is."""
    steps = "1875/1875 [==============================] - {} - loss: 0.2980"
    text = ("with tensorflow-metal (GPU)\nNum GPUs Available:  1\n" + steps.format("16s 8ms/step")
            + "\nwith tensorflow-macos alone (CPU)\nNum GPUs Available:  0\n" + steps.format("1s 481us/step") + "\n")
    (tmp_path / "posted.md").write_text(text, encoding="utf-8")
    s = snap(apple_silicon(packages=pair("2.13.0", "1.0.0")))
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    f = one(check.run(s), "log.no-gpu-listed")
    assert f.severity == Severity.INFO and "the empty list is of the run without the GPU" in f.title
    (tmp_path / "posted.md").write_text("Num GPUs Available:  0\n", encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    assert one(check.run(s), "log.no-gpu-listed").severity == Severity.ERROR


def test_transformers_that_does_not_see_tensorflow():
    # apple/tensorflow_macos#144: `import tensorflow` works, transformers finds no TensorFlow 2.0+ by name
    unknown = one(diagnose(apple_silicon(packages=[]), "transformers_requires_tensorflow.txt"), "log.no-tensorflow-module")
    assert unknown.severity is Severity.ERROR and "one it does not know by name (Apple's 2020-21 fork" in unknown.title
    seen = one(diagnose(apple_silicon(), "transformers_requires_tensorflow.txt"), "log.no-tensorflow-module")
    assert seen.severity is Severity.WARNING and "transformers did not find tensorflow 2.19.1" in seen.title
    assert "--upgrade -- transformers" in commands(seen)
    fork = apple_silicon(packages=[_pkg("tensorflow-macos", "0.1a3", ["cp38-cp38-macosx_11_0_arm64"])])
    assert one(diagnose(fork, "transformers_requires_tensorflow.txt"), "log.no-tensorflow-module").severity is Severity.INFO


def test_r_bound_to_a_python_without_tensorflow():
    # rstudio/keras3#1100: reticulate's own message, R on Windows
    f = one(diagnose(linux_cpu(), "reticulate_tensorflow_keras_not_found.txt"), "log.no-tensorflow-module")
    assert f.title.startswith("R's reticulate is bound to a Python without TensorFlow")
    assert "tensorflow::install_tensorflow()" in commands(f)


def test_a_gpu_older_than_the_build_s_kernels_is_why_no_gpu_is_listed():
    # tensorflow/tensorflow#17445: a Quadro K2000M (compute capability 3.0) under a pip build that needs 3.5
    f = one(diagnose(linux_cpu(packages=[]), "gpu_below_minimum_capability.txt"), "log.no-gpu-listed")
    assert f.severity is Severity.ERROR and "ignored the Quadro K2000M" in f.title
    assert "compute capability 3.0 is below the 3.5" in f.title and "TF_CUDA_COMPUTE_CAPABILITIES=3.0" in f.title
    s = snap(linux_cpu(packages=[]))
    s.log = keep.from_bytes(((LOGS / "gpu_below_minimum_capability.txt").read_text(encoding="utf-8")
                             + ">>> tf.config.list_physical_devices('GPU')\n[]\n").encode(), "paste", identity=WHO)
    assert "ignored the Quadro K2000M" in one(check.run(s), "log.no-gpu-listed").title  # the reason before the list


_CUINIT = ("E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: CUDA_ERROR_NO_DEVICE: "
           "no CUDA-capable device is detected\n")


def _on_linux(text: str) -> list:
    s = snap(linux_cpu(packages=[]))
    s.log = keep.from_bytes(text.encode(), "paste", identity=WHO)
    return check.run(s)


def test_the_drivers_no_device_in_a_container_without_the_kernel_driver_is_the_gpu_not_passed_in():
    # tensorflow/tensorflow#44869: cuInit's CUDA_ERROR_NO_DEVICE, then cuda_diagnostics.cc's "kernel
    # driver does not appear to be running on this host (16c54693e7f2)", beside CUDA 10.1's compat path
    f = one(diagnose(linux_cpu(packages=[]), "cuinit_no_device_container.txt"), "log.no-gpu-listed")
    assert f.severity is Severity.ERROR and "kernel driver is not running" in f.title
    assert "--gpus all" in f.title and "cat /proc/driver/nvidia/version" in commands(f)


def test_the_drivers_no_device_where_a_gpu_is_wanted_names_what_hides_it():
    f = one(_on_linux("I have an RTX 3060 but TensorFlow runs on the CPU.\n" + _CUINIT), "log.no-gpu-listed")
    assert "CUDA_VISIBLE_DEVICES" in f.title and "CUDA_VISIBLE_DEVICES" in commands(f)


def test_the_drivers_no_device_alone_is_what_a_cpu_runtime_with_the_driver_prints():
    """A cloud notebook's CPU runtime has the driver's library and no GPU: it prints the line on
    every run, so alone, and beside a library not opened, it is information."""
    f = one(_on_linux(_CUINIT), "log.no-gpu-listed")
    assert f.severity is Severity.INFO and "prints this on every run" in f.title
    libraries = LogRules("log_libraries")
    s = snap(linux_cpu(packages=[]))
    s.log = keep.from_bytes((_CUINIT + "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not "
                             "load dynamic library 'libcudart.so.11.0'\n").encode(), "paste", identity=WHO)
    assert not [f for f in libraries.run(s) if f.code == "log.gpu-libraries"]
