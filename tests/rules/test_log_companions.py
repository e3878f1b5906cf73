"""checks/log_companions.py: "Op type not registered" texts from real public threads
(tests/data/logs/, sources in SOURCES.json): the companion package, the release that goes with the
installed TensorFlow, and whether PyPI has it for this Mac's Python."""

from __future__ import annotations

from log_cases import ARM, LogRules, commands, one

from tfdoctor.logtext.catalog import recognise
from tfdoctor.model import Severity
from snapshots import _pkg, apple_silicon, linux_cpu, snap

check = LogRules("log_companions")
diagnose = check.diagnose
KERAS2_ENV = [_pkg("tensorflow-macos", "2.15.0", ARM), _pkg("keras", "2.15.0", ["py3-none-any"]),
              _pkg("tensorflow-metal", "1.1.0", ARM)]


def test_sentencepiece_op_names_tensorflow_text_for_the_installed_minor():
    f = one(diagnose(apple_silicon(), "op_not_registered_sentencepiece.txt"), "log.op-not-registered")
    assert f.evidence["companion"] == "tensorflow-text"
    assert "install -- 'tensorflow-text~=2.19.0'" in commands(f)


def test_sentencepiece_op_on_tensorflow_2_15_has_no_arm64_text_wheel():
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), "op_not_registered_sentencepiece.txt"),
            "log.op-not-registered")
    assert f.evidence["companion_requirement"] == "tensorflow-text~=2.15.0"
    assert "only from 2.17.0" in f.title


def test_regex_split_with_the_matching_text_installed_needs_the_import():
    data = apple_silicon(packages=[_pkg("tensorflow", "2.19.1", ARM), _pkg("tensorflow-text", "2.19.0", ARM)])
    f = one(diagnose(data, "op_not_registered_regex_split.txt"), "log.op-not-registered")
    assert "import tensorflow_text before loading" in f.title


def test_tensorflow_addons_says_its_python_ops_support_another_tensorflow():
    # tensorflow_addons/utils/ensure_tf_install.py's warning (mindee/doctr#998)
    f = one(diagnose(apple_silicon(packages=[]), "addons_python_ops_unsupported_tf.txt"), "log.companion-mismatch")
    assert f.title.startswith("tensorflow-addons supports TensorFlow >=2.5.0,<2.8.0; it ran with 2.9.1")
    assert f.severity.value == "warning" and "install TensorFlow >=2.5.0,<2.8.0" in f.remediation.text


def test_tensorflow_addons_custom_ops_compiled_against_another_tensorflow_are_the_cause():
    # tensorflow_addons/utils/resource_loader.py's warning (tensorflow/addons#1716)
    f = one(diagnose(apple_silicon(packages=[]), "addons_custom_ops_compiled_against.txt"), "log.companion-mismatch")
    assert f.severity.value == "error" and "compiled its custom ops against TensorFlow 2.1.0" in f.title
    assert f.evidence["log_needs"] == ">=2.1.0,<2.2.0"


def test_tensorflow_probability_refusing_an_older_tensorflow_is_the_companions_mismatch(tmp_path):
    """TFP's own check (tensorflow_probability/python/__init__.py, its template filled): pip put
    the newest TFP beside TensorFlow 2.3.0; the import fails, so it is an error naming the floor."""
    from log_cases import WHO

    from tfdoctor.logtext import keep

    (tmp_path / "tfp.txt").write_text(
        "ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.4; Detected an "
        "installation of version 2.3.0. Please upgrade TensorFlow to proceed.\n")
    data = linux_cpu()
    data["packages"] = [_pkg("tensorflow", "2.3.0", [])]
    s = snap(data)
    s.log = keep.read(tmp_path / "tfp.txt", identity=WHO)
    (f,) = [f for f in LogRules("log_companions").run(s) if f.code == "log.companion-mismatch"]
    assert f.severity is Severity.ERROR and f.evidence["log_needs"] == ">=2.4"
    assert f.title.startswith("tensorflow-probability supports TensorFlow >=2.4; it ran with 2.3.0")
    assert f.remediation.link == "https://github.com/tensorflow/probability"
    elsewhere = snap(linux_cpu())  # TensorFlow 2.19 here: the text came from another environment
    elsewhere.log = s.log
    assert [f.severity for f in LogRules("log_companions").run(elsewhere) if f.code == "log.companion-mismatch"] \
        == [Severity.INFO]
    # the same release spelled two ways is this environment's (TFP prints 2.0.0-beta1, pip lists
    # 2.0.0b1: tensorflow/probability#1060)
    (tmp_path / "beta.txt").write_text(
        "ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.3; Detected an "
        "installation of version 2.0.0-beta1. Please upgrade TensorFlow to proceed.\n")
    data["packages"] = [_pkg("tensorflow", "2.0.0b1", [])]
    beta = snap(data)
    beta.log = keep.read(tmp_path / "beta.txt", identity=WHO)
    assert [f.severity for f in LogRules("log_companions").run(beta) if f.code == "log.companion-mismatch"] \
        == [Severity.ERROR]


def test_the_import_check_other_companions_share_names_each_of_them():
    """google-research/task_adaptation#11: TensorFlow Datasets' ensure_tf_install prints TFP's
    template with its own name; tensorflow-datasets 4.0.1 needs TensorFlow 2.1+, 1.15.0 is installed."""
    data = linux_cpu(packages=[_pkg("tensorflow", "1.15.0", []), _pkg("tensorflow-datasets", "4.0.1", [])])
    f = one(diagnose(data, "datasets_needs_tensorflow.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR and f.evidence["log_package"] == "tensorflow-datasets"
    assert f.evidence["log_needs"] == ">=2.1.0" and "tensorflow-datasets" in f.title
    cut = recognise("ImportError: This version of TensorFlow Datasets requires TensorFlow...")  # a title's cut
    assert [m.fields["package"] for m in cut] == ["tensorflow-datasets"]
    assert f.remediation.link == "https://github.com/tensorflow/datasets"
    lowered = recognise("importerror: this version of tensorflow datasets requires tensorflow version >= 2.1.0")
    assert [m.fields["package"] for m in lowered] == ["tensorflow-datasets"]  # the flat view ignores case


def test_each_companion_is_pointed_to_its_own_repository(tmp_path):
    """TF Agents' repository is tensorflow/agents, not tensorflow/tf-agents (the template filled as
    its import check prints it)."""
    from log_cases import WHO

    from tfdoctor.logtext import keep

    (tmp_path / "agents.txt").write_text(
        "ImportError: This version of TF Agents requires TensorFlow version >= 2.6; Detected an installation "
        "of version 2.3.0. Please upgrade TensorFlow to proceed.\n", encoding="utf-8")
    s = snap(linux_cpu(packages=[_pkg("tensorflow", "2.3.0", [])]))
    s.log = keep.read(tmp_path / "agents.txt", identity=WHO)
    (f,) = [x for x in check.run(s) if x.code == "log.companion-mismatch"]
    assert f.remediation.link == "https://github.com/tensorflow/agents"


def test_keras_2_4_refusing_a_tensorflow_before_2_2_names_both_ways_out():
    """rolux/stylegan2encoder#26: Keras 2.4 wraps tf.keras of TensorFlow 2.2+; beside a TensorFlow
    1.x (or an unstated one) the fix is that TensorFlow, or the last Keras of its own."""
    data = linux_cpu(packages=[_pkg("tensorflow-gpu", "1.14.0", []), _pkg("keras", "2.4.3", [])])
    f = one(diagnose(data, "keras_requires_tensorflow_22.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR and f.evidence["log_package"] == "keras"
    assert f.title.startswith("keras supports TensorFlow >=2.2; it ran with 1.14.0")
    assert "keras==2.3.1" in f.remediation.text and "TensorFlow 1.14.0" in f.remediation.text
    assert f.remediation.link == "https://github.com/keras-team/keras"
    unstated = one(diagnose(linux_cpu(packages=[]), "keras_requires_tensorflow_22.txt"), "log.companion-mismatch")
    assert unstated.severity is Severity.ERROR and "an older TensorFlow" in unstated.remediation.text
    lowered = recognise("importerror: keras requires tensorflow 2.2 or higher.")
    assert [m.fields["needs"] for m in lowered] == [">=2.2"]


def test_keras_2_4_refusing_a_tensorflow_new_enough_is_tensorflows_own_import_failing():
    """tensorflow/tensorflow#43152's shape: TensorFlow 2.3 installed, its DLL failing first; Keras'
    check says 2.2 or higher, which 2.3 is: the error before it is the story."""
    data = linux_cpu(packages=[_pkg("tensorflow", "2.3.0", []), _pkg("keras", "2.4.3", [])])
    f = one(diagnose(data, "keras_requires_tensorflow_22.txt"), "log.companion-mismatch")
    assert f.severity is Severity.INFO and "TensorFlow's own import failed" in f.title


def test_a_package_importing_an_internal_this_tensorflow_lacks_is_the_companions_mismatch():
    """tensorflow/probability#987: "cannot import name 'naming' from 'tensorflow.python.autograph.core'"
    beside conda-forge's tensorflow-probability 0.8.0: the package built against another TensorFlow's
    internals is named from what is installed; without one, the frame is what tells."""
    with_tfp = apple_silicon(packages=[_pkg("tensorflow", "2.19.1", ARM), _pkg("tensorflow-probability", "0.8.0", [])])
    f = one(diagnose(with_tfp, "import_tensorflow_internal_probability.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR and f.title.startswith(
        "tensorflow-probability 0.8.0 imports naming from tensorflow.python.autograph.core, which TensorFlow 2.19.1")
    assert "pip index versions tensorflow-probability" in commands(f)
    alone = one(diagnose(apple_silicon(), "import_tensorflow_internal_probability.txt"), "log.companion-mismatch")
    assert alone.title.startswith("a package that uses TensorFlow's internals imports naming") and not alone.remediation.commands


def test_before_python_3_7_the_import_line_names_the_internal_the_message_does_not():
    """LZQthePlane/Online-Realtime-Action-Recognition-based-on-OpenPose#40's title: Python 3.6's
    "cannot import name 'tf_utils'" after the line that imported it from tensorflow.python."""
    data = linux_cpu(packages=[_pkg("tensorflow", "2.3.0", []), _pkg("tensorflow-addons", "0.18.0", [])])
    f = one(diagnose(data, "tf_internal_import_line_title.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR and f.title.startswith(
        "tensorflow-addons 0.18.0 imports tf_utils from tensorflow.python.keras.utils, which TensorFlow 2.3.0")


def test_keras_reaching_a_tensorflow_internal_its_tensorflow_lacks_is_keras_of_another_tensorflow():
    """divamgupta/image-segmentation-keras#309: Keras 2.6's "module 'tensorflow.compat.v2.__internal__'
    has no attribute 'tf2'" (tf.__internal__ came with TensorFlow 2.5), and spotify/basic-pitch#82:
    keras 2.12's "cannot import name 'dtensor' from 'tensorflow.compat.v2.experimental'", pasted
    without Python's prefix. Keras 2 reaches TensorFlow through tf.compat.v2 and tf.__internal__: with
    the versions stated the fix is TensorFlow's own Keras; without them, the command that names both."""
    keras29 = apple_silicon(packages=[_pkg("tensorflow-macos", "2.8.0", ARM), _pkg("keras", "2.9.0", ["py2.py3-none-any"])])
    f = one(diagnose(keras29, "import_tensorflow_compat_dtensor.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR and f.title.startswith(
        "keras 2.9.0 imports dtensor from tensorflow.compat.v2.experimental, which TensorFlow 2.8.0 does not have")
    assert "install -- 'keras~=2.8.0'" in commands(f) and f.evidence["own_keras"] == "keras~=2.8.0"
    alone = one(diagnose(apple_silicon(packages=[]), "import_tensorflow_internal_attribute_keras.txt"),
                "log.companion-mismatch")
    assert alone.title.startswith("Keras 2 (or a package built like it) uses tensorflow.compat.v2.__internal__.tf2")
    assert "pip show tensorflow keras" in commands(alone)


def test_tensorflow_probabilitys_twin_of_a_tensorflow_function_with_other_arguments_is_the_mismatch():
    """tensorflow/probability#1752: TensorFlow 2.14's tf.ones_like gained `layout`, TFP 0.21's twin
    (prefer_static._copy_docstring) did not, and importing TFP raises: the companion was written
    for another TensorFlow. The installed TensorFlow is named in the fix where it is known."""
    with_tf = apple_silicon(packages=[_pkg("tensorflow", "2.14.0", ARM), _pkg("tensorflow-probability", "0.21.0", [])])
    f = one(diagnose(with_tf, "probability_arg_specs.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR
    assert f.title == ("tensorflow-probability's twin of ones_like_v2 takes other arguments than TensorFlow 2.14.0: "
                       "the companion is built for another TensorFlow")
    assert f.remediation.text.startswith("Install the tensorflow-probability release made for TensorFlow 2.14.0")
    unknown = one(diagnose(apple_silicon(packages=[]), "probability_arg_specs.txt"), "log.companion-mismatch")
    assert "than the TensorFlow it ran with" in unknown.title and "`pip show tensorflow`" in unknown.remediation.text


def test_decision_forests_ops_that_did_not_load_name_the_tensorflow_its_release_is_built_for():
    # tensorflow/decision-forests#217: TF-DF's own warning; 1.12.0's METADATA pins tensorflow==2.19.0
    data = linux_cpu(packages=[_pkg("tensorflow", "2.20.0", ARM), _pkg("tensorflow-decision-forests", "1.12.0", ARM)])
    f = one(diagnose(data, "decision_forests_custom_ops.txt"), "log.companion-mismatch")
    assert f.severity is Severity.ERROR
    assert "tensorflow-decision-forests supports TensorFlow ==2.19.0; it ran with 2.20.0" in f.title
