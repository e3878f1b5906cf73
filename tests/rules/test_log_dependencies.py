"""checks/log_dependencies.py: NumPy, h5py, Keras and pip's conflict errors from real public threads
(tests/data/logs/, sources in SOURCES.json), judged by what is installed: TensorFlow's pins and the
installed NumPy (can this environment have printed it?)."""

from __future__ import annotations

from log_cases import ARM, LOGS, WHO, LogRules, commands, one
from snapshots import _pkg, apple_silicon, snap

from tfdoctor.logtext import keep
from tfdoctor.model import Severity

check = LogRules("log_dependencies")
diagnose = check.diagnose


def test_numpy_2_with_tensorflow_2_15_needs_numpy_1():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.0", ARM, ["numpy<2.0.0,>=1.23.5"]),
                                   _pkg("numpy", "2.0.0", ARM)])
    f = one(diagnose(data, "numpy2_tensorflow_import.txt"), "log.numpy-abi")
    assert "built for NumPy 1.x" in f.title and "numpy<2.0.0,>=1.23.5" in commands(f)


def test_numpy_2_with_tensorflow_2_19_blames_another_module():
    f = one(diagnose(apple_silicon(), "numpy2_array_api_tf_session.txt"), "log.numpy-abi")
    assert "another compiled module" in f.title


def test_numpy_c_api_too_old():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.19.1", ARM, ["numpy<2.2.0,>=1.26.0"]),
                                   _pkg("numpy", "1.26.0", ARM)])
    for name in ("numpy_api_version_0xe.txt", "numpy_api_0x10_m1_notebook.txt"):
        f = one(diagnose(data, name), "log.numpy-abi")
        assert "newer NumPy C API" in f.title and "--upgrade -- 'numpy<2.2.0,>=1.26.0'" in commands(f)


def test_a_name_numpy_removed_in_tensorflows_own_code_is_a_numpy_too_new_for_it():
    """NumPy's own AttributeError for a name it removed, in TensorFlow's code (AnacondaRecipes/
    repodata-hotfixes#215: conda's tensorflow-gpu 2.4.1 beside numpy 1.26, np.object removed in 1.24)
    and TensorBoard's (tensorflow/tensorboard#6874: np.string_, removed in 2.0). A NumPy older than
    the removal here cannot have printed it: another environment did."""
    old_tf = apple_silicon(packages=[_pkg("tensorflow", "2.4.1", ARM), _pkg("numpy", "1.26.0", ARM)])
    f = one(diagnose(old_tf, "numpy_removed_alias_tensorflow.txt"), "log.numpy-abi")
    assert f.severity == Severity.ERROR and f.title.startswith("TensorFlow's own code (or TensorBoard's, Keras') uses "
                                                               "np.object, which NumPy 1.24 removed")
    assert "install -- 'numpy<1.24'" in commands(f) and f.evidence["removed_in"] == "1.24"
    two = one(diagnose(apple_silicon(), "numpy_removed_string_tensorboard.txt"), "log.numpy-abi")
    assert "np.string_, which NumPy 2.0 removed" in two.title and "'numpy<2.0'" in commands(two)
    older = apple_silicon(packages=[_pkg("tensorflow", "2.4.1", ARM), _pkg("numpy", "1.19.5", ARM)])
    here = one(diagnose(older, "numpy_removed_alias_tensorflow.txt"), "log.numpy-abi")
    assert here.severity == Severity.INFO and "another environment printed it" in here.title


def test_numpys_warning_naming_tensorflows_file_is_the_same_removal():
    """NumPy 1.24+ warns "FILE:LINE: FutureWarning: In the future `np.object` ..." just before it
    raises, FILE the code that used the name (BBillot/SynthSeg#92: TensorFlow's dtypes.py, the
    traceback cut). Conda's numpy-base 1.24.3 under pip's numpy 1.23.5 can have printed it: both
    are installed over each other, so it is this environment's, and pip's files go back over."""
    mixed = apple_silicon(packages=[_pkg("numpy", "1.23.5", ARM), _pkg("numpy-base", "1.24.3", ARM)])
    f = one(diagnose(mixed, "numpy_future_scalar_tensorflow.txt"), "log.numpy-abi")
    assert f.severity == Severity.ERROR and "np.object, which NumPy 1.24 removed" in f.title
    assert "numpy-base 1.24.3" in f.title and "--force-reinstall -- 'numpy<1.24'" in commands(f)
    alone = apple_silicon(packages=[_pkg("numpy", "1.23.5", ARM)])
    here = one(diagnose(alone, "numpy_future_scalar_tensorflow.txt"), "log.numpy-abi")
    assert here.severity == Severity.INFO and "another environment printed it" in here.title


def test_a_numpy_2_message_where_numpy_1_is_installed_came_from_another_environment():
    # observed beats read: this environment's NumPy cannot have printed a NumPy 2 message
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.0", ARM, ["numpy<2.0.0,>=1.23.5"]),
                                   _pkg("numpy", "1.26.4", ARM)])
    f = one(diagnose(data, "numpy2_tensorflow_import.txt"), "log.numpy-abi")
    assert f.severity == Severity.INFO and "NumPy 1.26.4: another environment printed it" in f.title
    assert "import sys, numpy" in commands(f)


def test_keras_decoding_an_hdf5_attribute_under_h5py_3_is_h5py_too_new():
    """h5py 3 returns str attributes; Keras' loader before TensorFlow 2.4 decodes them as bytes."""
    data = apple_silicon(packages=[_pkg("keras", "2.3.1", ARM), _pkg("h5py", "3.1.0", ARM)])
    f = one(diagnose(data, "h5py3_keras_version_decode.txt"), "log.h5py-too-new")
    assert f.severity is Severity.ERROR and f.evidence["h5py"] == "3.1.0" and f.evidence["log_attribute"] == "keras_version"
    assert "install -- 'h5py<3'" in commands(f)
    older = one(diagnose(apple_silicon(packages=[_pkg("h5py", "2.10.0", ARM)]), "h5py3_keras_version_decode.txt"),
                "log.h5py-too-new")
    assert older.severity is Severity.INFO and "another environment printed it" in older.title


def test_a_module_built_for_a_newer_numpys_structs():
    # tensorflow/tensorflow#98406: Cython's check, dtype of 96 bytes expected, 88 found
    f = one(diagnose(apple_silicon(), "numpy_dtype_size_changed.txt"), "log.numpy-abi")
    assert "newer NumPy (numpy.dtype of 96 bytes, not 88)" in f.title and "--upgrade" in commands(f)


def test_the_ufunc_table_of_numpy_1_headers_is_numpys_abi_too():
    # numpy 1.x's generated __ufunc_api.h prints this beside _ARRAY_API (numpy's own template)
    from tfdoctor.logtext.catalog import recognise

    assert "log.numpy-abi" in {m.code for m in recognise("AttributeError: _UFUNC_API not found")}


def test_numpy_2s_renamed_core_is_read_from_the_runtime_childs_stderr():
    # numpy 2's headers: "numpy._core.multiarray failed to import" (numpy.core before 2.0)
    from tfdoctor.logtext import stderr

    kinds = [e.kind for e in stderr.parse("ImportError: numpy._core.multiarray failed to import").events]
    assert kinds == ["numpy-multiarray"]


def _report_of(tmp_path, text: str):
    """A report's snapshot (its package list unknown) with `text` pasted."""
    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M2"}, "unknown": ["packages"]})
    (tmp_path / "posted.md").write_text(text, encoding="utf-8")
    s.log = keep.read(tmp_path / "posted.md", identity=WHO)
    return s


def test_numpys_abi_message_in_a_text_that_never_names_tensorflow_is_another_projects(tmp_path):
    """NumPy's own template (numpy/core/_multiarray_umath.py, NumPy 2.0: 'A module that was compiled
    using NumPy 1.x cannot be run in NumPy {version} as it may crash.') printed while importing
    another framework: information where no TensorFlow is known or named; with TensorFlow in the
    traceback it stays TensorFlow's error."""
    message = ("A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash. "
               "To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0.\n")
    other = one(check.run(_report_of(tmp_path, "import torch\n" + message)), "log.numpy-abi")
    assert other.severity is Severity.INFO and "another project's" in other.title
    ours = one(check.run(_report_of(tmp_path, "import tensorflow as tf\n" + message)), "log.numpy-abi")
    assert ours.severity is Severity.ERROR


# ---------------------------------------------------------------------------------------------
# Keras registered twice (log.keras-registered-twice): a Keras of another version than TensorFlow's


ARM39 = ["cp39-cp39-macosx_11_0_arm64"]
ANY = ["py2.py3-none-any"]


def _reported(packages: list, python: str | None = "3.9.13") -> dict:
    """A report's snapshot: an M1, the packages the report named (the list is not complete)."""
    data = {"schema_version": 1, "target": {"python": "python3", "ok": True},
            "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1", "macos_version": "12.1"},
            "packages": packages, "unknown": ["packages"]}
    if python:
        data["python"] = {"version": python, "implementation": "cpython", "executable": "python3"}
    return data


def test_keras_registered_twice_where_the_report_names_no_keras_names_tensorflows_own():
    """drivendataorg/cloud-cover-runtime#14's text with TensorFlow 2.6.0 stated and no Keras version
    (unknown, not absent): the finding names the cause, and the fix installs TensorFlow 2.6's own
    Keras (keras releases 2.6-2.15 follow TensorFlow's minors, compat_matrix.json keras_packages)."""
    f = one(diagnose(_reported([_pkg("tensorflow-macos", "2.6.0", ARM39)]), "keras_metric_registered_twice.txt"),
            "log.keras-registered-twice")
    assert f.severity is Severity.ERROR and "keras_installed" not in f.evidence
    assert "another version than TensorFlow 2.6.0's own" in f.title and "/tensorflow/api/keras/optimizers" in f.title
    assert "keras~=2.6.0" in commands(f) and f.evidence["keras_for_this_tensorflow"] == "keras~=2.6.0"


def test_the_python_line_alone_names_the_same_cause_without_a_tensorflow_version():
    # scikit-hep/pyhf#1683: only "AlreadyExistsError: Another metric with the same name already exists."
    f = one(diagnose(_reported([], python=None), "keras_metric_already_exists.txt"), "log.keras-registered-twice")
    assert f.severity is Severity.ERROR and "a Keras of another version than TensorFlow's own" in f.title
    assert "pip show tensorflow keras tf-keras keras-nightly" in commands(f)


def test_keras_registered_twice_where_only_tensorflows_own_keras_is_installed_came_from_elsewhere():
    # a whole listing (site-packages read): keras 2.6.0 beside tensorflow-macos 2.6.0 is one copy
    data = apple_silicon(python={"version": "3.9.13"}, packages=[
        _pkg("tensorflow-macos", "2.6.0", ARM39, ["keras~=2.6"]), _pkg("keras", "2.6.0", ANY)])
    f = one(diagnose(data, "keras_metric_registered_twice.txt"), "log.keras-registered-twice")
    assert f.severity is Severity.INFO and "another environment printed it" in f.title


def test_from_tensorflow_2_16_keras_3_is_its_own_and_a_tf_keras_of_another_minor_is_the_second_copy():
    pin = ["keras>=3.2.0"]  # tensorflow-2.17.1 Requires-Dist
    own = apple_silicon(packages=[_pkg("tensorflow", "2.17.1", ARM, pin), _pkg("keras", "3.6.0", ANY)])
    assert one(diagnose(own, "keras_metric_registered_twice.txt"), "log.keras-registered-twice").severity \
        is Severity.INFO
    stray = apple_silicon(packages=[_pkg("tensorflow", "2.17.1", ARM, pin), _pkg("keras", "3.6.0", ANY),
                                    _pkg("tf-keras", "2.15.0", ANY)])
    f = one(diagnose(stray, "keras_metric_registered_twice.txt"), "log.keras-registered-twice")
    assert f.severity is Severity.ERROR and "tf-keras~=2.17.0" in commands(f)


# --- pip's own word that an install broke a requirement -----------------------------------------------


def test_pip_breaking_tensorflows_pin_is_its_pin_and_another_packages_is_not_tensorflows(tmp_path):
    """pip's post-install check (abhishekkrthakur/approachingalmost#26, pip before 20.3): about the
    installed TensorFlow it is its pin, with the command; about another install of TensorFlow it
    came from elsewhere; between other packages it is not TensorFlow's business; a companion's
    requirement on TensorFlow means the companion was made for another one."""
    tf221 = apple_silicon(packages=[_pkg("tensorflow", "2.2.1", [])])
    f = one(diagnose(tf221, "pip_conflict_numpy_legacy.txt"), "log.pip-conflict")
    assert f.severity is Severity.WARNING and "install -- 'numpy<1.19.0,>=1.16.0'" in commands(f)
    elsewhere = one(diagnose(apple_silicon(), "pip_conflict_numpy_legacy.txt"), "log.pip-conflict")
    assert elsewhere.severity is Severity.INFO and "the line came from another install" in elsewhere.title

    def said(text: str):
        (tmp_path / "pip.txt").write_text(text, encoding="utf-8")
        s = snap(apple_silicon())
        s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
        (found,) = [x for x in check.run(s) if x.code == "log.pip-conflict"]
        return found

    # pip 20.3+'s template, filled
    other = said("ERROR: pip's dependency resolver does not currently take into account all the packages that are "
                 "installed.\nrequests 2.31.0 requires urllib3<3,>=1.21.1, but you have urllib3 3.0.0 which is incompatible.\n")
    assert other.severity is Severity.INFO and "not TensorFlow's own pins" in other.title
    companion = said("tensorflow-text 2.10.0 requires tensorflow<2.11,>=2.10.0; platform_machine != \"arm64\" or "
                     "platform_system != \"Darwin\", but you have tensorflow 2.19.1 which is incompatible.\n")
    assert companion.severity is Severity.WARNING and "made for another TensorFlow" in companion.title
    assert "requirement tensorflow<2.11,>=2.10.0:" in companion.title


def test_pkg_resources_refusing_tensorflows_pin_is_the_pin_as_an_error(tmp_path):
    """chklovski/CheckM2#24: pkg_resources would not load a console script, numpy 1.23.3 breaking
    TensorFlow's numpy~=1.19.2. It names the distribution, not its version: the installed
    TensorFlow's pin, an error (the program stopped, where pip only warns)."""
    tf24 = apple_silicon(packages=[_pkg("tensorflow", "2.4.1", []), _pkg("numpy", "1.23.3", [])])
    f = one(diagnose(tf24, "pkg_resources_conflict_tensorflow_pin.txt"), "log.pip-conflict")
    assert f.severity is Severity.ERROR and "pkg_resources refused to load tensorflow" in f.title
    assert "install -- 'numpy~=1.19.2'" in commands(f)
    (tmp_path / "guesslang.txt").write_text(
        "pkg_resources.ContextualVersionConflict: (tensorflow 2.9.1 (/usr/lib/python3.10/site-packages), "
        "Requirement.parse('tensorflow==2.5.0'), {'guesslang'})\n", encoding="utf-8")
    s = snap(apple_silicon())
    s.log = keep.read(tmp_path / "guesslang.txt", identity=WHO)
    (companion,) = [x for x in check.run(s) if x.code == "log.pip-conflict"]
    assert companion.severity is Severity.ERROR and "made for another TensorFlow" in companion.title


def test_a_symbolic_tensor_reaching_numpy_is_numpy_1_20_under_tensorflow_before_2_7():
    """TensorFlow's own __array__ message (ianscottknight/...#1, an LSTM in February 2021). With
    the versions known it is the pin they break; without them, the likely cause and its two ways
    out; with NumPy before 1.20, or a TensorFlow that no longer calls np.prod on symbolic shapes,
    the code's own NumPy call (information)."""
    name = "numpy_symbolic_tensor_lstm.txt"
    py38 = {"version": "3.8.10"}
    unknown = one(diagnose(apple_silicon(packages=[], python=py38), name), "log.numpy-abi")
    assert unknown.severity == Severity.WARNING and "lstm/strided_slice:0" in unknown.title
    assert commands(unknown) == "/Users/ada/venvs/tf/bin/python -m pip install -- 'numpy<1.20'"
    newer = one(diagnose(apple_silicon(packages=[]), name), "log.numpy-abi")  # Python 3.11: no NumPy 1.19
    assert commands(newer).endswith("install -- 'tensorflow>=2.7'")
    broken = [_pkg("tensorflow", "2.6.0", ARM, ["numpy~=1.19.2"]), _pkg("numpy", "1.21.4", ARM)]
    f = one(diagnose(apple_silicon(packages=broken, python=py38), name), "log.numpy-abi")
    assert f.severity == Severity.ERROR and "NumPy 1.21.4 is newer than TensorFlow 2.6.0 allows (numpy~=1.19.2)" in f.title
    loose = [_pkg("tensorflow", "2.4.1", ARM, ["numpy>=1.19"]), _pkg("numpy", "1.21.4", ARM)]  # a pin that lets it in
    f = one(diagnose(apple_silicon(packages=loose, python=py38), name), "log.numpy-abi")
    assert f.severity == Severity.WARNING and "allows" not in f.title
    for packages in ([_pkg("tensorflow", "2.6.0", ARM), _pkg("numpy", "1.19.5", ARM)],
                     [_pkg("tensorflow", "2.13.0", ARM), _pkg("numpy", "1.24.3", ARM)]):
        f = one(diagnose(apple_silicon(packages=packages), name), "log.numpy-abi")
        assert f.severity == Severity.INFO and "the code passes the symbolic tensor" in f.title


def test_tensorflows_bfloat16_that_numpy_could_not_make():
    # githubharald/SimpleHTR#148: pybind11's error at dtypes.py's bfloat16, NumPy 2 beside TensorFlow 2.15
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.0", ARM, ["numpy<2.0.0,>=1.23.5"]),
                                   _pkg("numpy", "2.0.0", ARM)])
    f = one(diagnose(data, "numpy_bfloat16_handle.txt"), "log.numpy-abi")
    assert f.severity is Severity.ERROR and "could not make its bfloat16 type with NumPy 2.0.0" in f.title
    assert "--force-reinstall -- 'numpy<2.0.0,>=1.23.5'" in commands(f)


def test_tensorflows_own_bfloat16_abort_where_numpy_failed_to_import():
    # deepfakes/faceswap#645 from its C API's failure on: TensorFlow 1.x aborts in bfloat16.cc
    text = (LOGS / "numpy_bfloat16_check_failed.txt").read_text(encoding="utf-8")
    s = snap(apple_silicon(packages=[]))
    s.log = keep.from_bytes(text[text.index("ImportError: numpy.core._multiarray_umath"):].encode(), "cut", identity=WHO)
    f = one(check.run(s), "log.numpy-abi")
    assert f.severity is Severity.ERROR and "another environment, such as ~/.local" in f.title
    assert commands(f).endswith("-m pip check")


def test_the_whole_faceswap_text_says_the_numpy_imported_was_older_than_1_16():
    # deepfakes/faceswap#645 as posted: its first line names the extension NumPy 1.16 added
    f = one(diagnose(apple_silicon(packages=[]), "numpy_bfloat16_check_failed.txt"), "log.numpy-abi")
    assert "1.16 or later" in f.title and "~/.local" in f.title and commands(f).endswith("'numpy>=1.16'")
    here = one(diagnose(apple_silicon(packages=[_pkg("numpy", "1.16.2", ARM)]), "numpy_bfloat16_check_failed.txt"),
               "log.numpy-abi")
    assert "NumPy 1.16.2 is installed here: an older NumPy from another environment" in here.title
    assert "numpy.__file__" in commands(here)


def test_a_module_built_for_numpy_1_16_under_an_older_numpy_asks_for_a_newer_numpy():
    # tensorflow/tensorflow#26273: TensorFlow 1.13.1 (built against NumPy 1.16) under NumPy 1.15
    data = apple_silicon(packages=[_pkg("tensorflow", "1.13.1", ARM, ["numpy>=1.13.3"]), _pkg("numpy", "1.15.4", ARM)])
    f = one(diagnose(data, "numpy_before_1_16_multiarray_umath.txt"), "log.numpy-abi")
    assert f.severity is Severity.ERROR and "1.16 or later" in f.title and "NumPy 1.15.4" in f.title
    assert commands(f).endswith("install --upgrade -- 'numpy>=1.13.3,>=1.16,<2'")  # not NumPy 2


def test_numpys_c_api_import_failing_alone_asks_for_the_newest_numpy_1_within_tensorflows_pin():
    # MaybeShewill-CV/CRNN_Tensorflow#9: "numpy.core.multiarray failed to import" without the line
    # before it (NumPy 1.x's __multiarray_api.h); the thread's answer is another NumPy imported
    # first (tensorflow/tensorflow#559)
    name = "numpy_multiarray_failed_native_runtime.txt"
    f = one(diagnose(apple_silicon(packages=[]), name), "log.numpy-abi")
    assert f.severity is Severity.ERROR and f.evidence["signature_source"].endswith("CRNN_Tensorflow/issues/9")
    assert "could not import NumPy's C API" in f.title and commands(f).endswith("install --upgrade -- 'numpy<2'")
    old = apple_silicon(packages=[_pkg("tensorflow", "1.13.1", ARM, ["numpy>=1.13.3"]), _pkg("numpy", "1.15.4", ARM)])
    f = one(diagnose(old, name), "log.numpy-abi")
    assert "'numpy>=1.13.3,<2'" in commands(f) and "numpy.__file__" in commands(f)
    assert "NumPy 1.15.4 is installed here" in f.title and "~/.local" in f.title


def test_numpys_c_api_import_failing_under_numpy_2_is_numpy_2_under_a_tensorflow_built_for_1():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.15.0", ARM, ["numpy<2.0.0,>=1.23.5"]),
                                   _pkg("numpy", "2.0.0", ARM)])
    f = one(diagnose(data, "numpy_multiarray_failed_native_runtime.txt"), "log.numpy-abi")
    assert "built for NumPy 1.x" in f.title and "numpy<2.0.0,>=1.23.5" in commands(f)


def test_the_line_that_says_why_numpys_c_api_failed_outranks_the_failure_itself():
    for name, said in (("numpy_api_0x10_m1_notebook.txt", "module compiled against API version"),
                       ("numpy_before_1_16_multiarray_umath.txt", "No module named 'numpy.core._multiarray_umath'"),
                       ("numpy_bfloat16_check_failed.txt", "No module named 'numpy.core._multiarray_umath'")):
        assert said in one(diagnose(apple_silicon(packages=[]), name), "log.numpy-abi").evidence["matched"]
