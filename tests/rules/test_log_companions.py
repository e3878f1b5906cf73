"""checks/log_companions.py: "Op type not registered" texts from real public threads
(tests/data/logs/, sources in SOURCES.json): the companion package, the release that goes with the
installed TensorFlow, and whether PyPI has it for this Mac's Python."""

from __future__ import annotations

from log_cases import ARM, LogRules, commands, one
from snapshots import _pkg, apple_silicon

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
