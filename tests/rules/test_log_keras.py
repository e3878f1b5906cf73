"""checks/log_keras.py: Keras' errors from real public threads (tests/data/logs/, sources in
SOURCES.json), each diagnosed with the installed Keras and TensorFlow: Keras 2 code under Keras 3,
two Kerases in one program, the slow v2.11+ optimizers and Keras' failed fallback to legacy ones."""

from __future__ import annotations

import pytest
from log_cases import ARM, LogRules, code, commands, one
from snapshots import _pkg, apple_silicon, linux_cpu

from tfdoctor.logtext.catalog import recognise
from tfdoctor.model import Severity

check = LogRules("log_keras")
diagnose = check.diagnose
KERAS2_ENV = [_pkg("tensorflow-macos", "2.15.0", ARM), _pkg("keras", "2.15.0", ["py3-none-any"]),
              _pkg("tensorflow-metal", "1.1.0", ARM)]


def test_optimizer_slowdown_with_keras_2_uses_the_legacy_optimizer():
    # sktime/sktime#6096: the warning alone, Keras did not switch
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), "optimizer_slowdown_no_fallback.txt"),
            "log.optimizer-slowdown")
    assert code(f) == "optimizer = tf.keras.optimizers.legacy.Adam(...)" and f.severity == Severity.WARNING


def test_optimizer_slowdown_with_keras_3_needs_pinned_tf_keras():
    f = one(diagnose(apple_silicon(), "optimizer_slowdown_no_fallback.txt"), "log.optimizer-slowdown")
    assert "install -- 'tf-keras~=2.19.0'" in commands(f) and "TF_USE_LEGACY_KERAS=1" in commands(f)


@pytest.mark.parametrize("name", ["optimizer_slowdown_warning.txt", "optimizer_fallback_legacy.txt"])
def test_keras_that_fell_back_by_itself_is_information(name):
    # tensorflow/tensorflow#61092 and keras-team/tf-keras#35: "Falling back to the legacy Keras
    # optimizer" follows the warning: Keras 2.12-2.13 already use the legacy optimizer
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), name), "log.optimizer-slowdown")
    assert f.severity == Severity.INFO and "already fell back to tf.keras.optimizers.legacy.Adam" in f.title


def test_a_failed_fallback_to_a_legacy_adamw():
    # keras-team/keras#18224: AdamW has no legacy twin on M1/M2 (Keras 2.11-2.14)
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), "optimizer_fallback_str_minimize.txt"),
            "log.optimizer-fallback-failed")
    assert f.severity == Severity.ERROR and "tf.keras.optimizers.legacy.Adam" in code(f)
    elsewhere = one(diagnose(apple_silicon(), "optimizer_fallback_str_minimize.txt"), "log.optimizer-fallback-failed")
    assert elsewhere.severity == Severity.INFO and "not the Apple-silicon fallback" in elsewhere.title


def test_a_legacy_optimizer_without_build_when_a_keras_model_is_loaded():
    # tensorflow/tensorflow#61915: Keras 2.13 on an M1 fell back to the legacy Adam, which
    # compile_from_config cannot build; fixed in TensorFlow 2.14
    keras_2_13 = [_pkg("tensorflow-macos", "2.13.0", ARM), _pkg("keras", "2.13.1", ["py3-none-any"])]
    f = one(diagnose(apple_silicon(packages=keras_2_13), "optimizer_fallback_no_build.txt"),
            "log.optimizer-fallback-failed")
    assert f.severity == Severity.ERROR and "legacy Adam" in f.title and "compile=False" in code(f)
    assert "'tensorflow>=2.14'" in commands(f) and "uninstall -y -- tensorflow-macos &&" in commands(f)
    elsewhere = one(diagnose(linux_cpu(), "optimizer_fallback_no_build.txt"), "log.optimizer-fallback-failed")
    assert elsewhere.severity == Severity.INFO and "not the Apple-silicon fallback" in elsewhere.title


def test_keras_3_rejects_a_keras_2_layer_argument():
    # keras-team/keras#19282: Embedding(input_length=...) under Keras 3
    f = one(diagnose(apple_silicon(), "keras3_unrecognized_layer_kwargs.txt"), "log.keras3-api")
    assert f.evidence["log_layer"] == "Embedding" and f.evidence["log_argument"] == "input_length"


KERAS3 = [("keras3_legacy_optimizer.txt", "keras.optimizers.Adam"), ("keras3_save_extension.txt", "model.export"),
          ("keras3_checkpoint_extension.txt", ".weights.h5"), ("keras3_lr_argument.txt", "learning_rate="),
          ("keras3_fit_generator.txt", "model.fit(generator)"), ("keras3_layers_experimental_attr.txt", "keras.layers"),
          ("keras3_layers_experimental_module.txt", "keras.layers"), ("keras3_kerastensor_tf_function.txt", "keras.ops"),
          ("keras3_transformers_tf_keras.txt", "transformers imports tf-keras"),
          ("keras3_layer_never_called.txt", "keras.Input(shape=...)"),
          ("keras3_requires_tf_keras.txt", "imports tf-keras for them"),
          ("keras3_tf_keras_shim_attribute.txt", "(tf.keras.backend.learning_phase): Keras 3 (tf.keras from"),
          ("keras3_tf_keras_shim_import.txt", "(tensorflow.keras.losses.mean_absolute_error): Keras 3"),
          ("keras3_load_savedmodel.txt", "keras.layers.TFSMLayer(path, call_endpoint='serving_default')"),
          ("keras3_foreign_layer_hub.txt", "goes in tf_keras.Sequential"),
          ("keras3_hub_layer_cut.txt", "goes in tf_keras.Sequential"),
          ("keras3_foreign_optimizer_tf_keras.txt", "tf_keras.optimizers for a tf-keras model"),
          ("keras3_removed_image_data_generator.txt", "(keras.preprocessing.image.ImageDataGenerator): Keras 3 "
                                                      "has no such name"),
          ("keras3_tf_keras_not_installed.txt", "(tf-keras, not installed): something asks for Keras 2")]


@pytest.mark.parametrize("name,port", KERAS3)
def test_keras_2_code_under_keras_3_gets_the_port_and_pinned_tf_keras(name, port):
    f = one(diagnose(apple_silicon(), name), "log.keras3-api")
    assert port in f.title and f.evidence["keras"] == "3.10.0"
    assert "install -- 'tf-keras~=2.19.0'" in commands(f)


@pytest.mark.parametrize("name", ["keras3_foreign_layer_hub.txt", "keras3_hub_layer_cut.txt"])
def test_two_kerases_in_one_program_are_named_as_such(name):
    """TF Hub's layer received and named, or the message cut before it in a text that builds with
    it: one diagnosis."""
    f = one(diagnose(apple_silicon(), name), "log.keras3-api")
    assert f.title.startswith("Two Kerases in one program (a tensorflow_hub.keras_layer.KerasLayer (Keras 2)")
    assert "is Keras 2 API" not in f.remediation.text


def test_the_users_own_objects_of_no_keras_class_are_the_users_code():
    for text in ("ValueError: Could not interpret optimizer identifier: 0.9",
                 "ValueError: Could not interpret optimizer identifier: <class 'keras.optimizers.Adam'>",
                 "ValueError: Only instances of `keras.Layer` can be added to a Sequential model. Received: "
                 "<function EfficientNetB2 at 0x7fff3c935da0> (of type <class 'function'>)"):
        assert not [m for m in recognise(text) if m.code == "log.keras3-api"], text


def test_keras_3_error_seen_from_a_keras_2_environment():
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), "keras3_lr_argument.txt"), "log.keras3-api")
    # Keras 2.15 here cannot print Keras 3's error: the text is not this environment's diagnosis
    assert "another environment" in f.remediation.text and f.severity == Severity.INFO
    assert "keras.__file__" in commands(f)


def test_keras_2s_private_engine_missing_is_keras_3():
    """CPython's 'No module named {name!r}' naming keras.src.engine (Keras 2.13-2.15's private
    package, gone from Keras 3's keras/src): TensorSpeech/TensorFlowASR#297, TF 2.18 with Keras 3.9.
    keras.src alone missing is Keras <= 2.12, not Keras 3."""

    f = one(diagnose(apple_silicon(), "keras3_no_src_engine.txt"), "log.keras3-api")
    assert "keras.src.engine" in f.title and "keras.Model" in f.remediation.text
    assert not [m for m in recognise("ModuleNotFoundError: No module named 'keras.src'") if m.code == "log.keras3-api"]


def test_a_failed_fallback_where_the_machine_is_not_stated_names_both_and_the_question():
    # keras-team/keras#18224 as a bare line: an unstated chip is not an Intel Mac (unknown is not absent)
    unstated = {"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": {"system": "Darwin"},
                "packages": [], "unknown": ["packages", "python", "host.hw_arm64", "host.chip"]}
    f = one(diagnose(unstated, "optimizer_fallback_str_minimize.txt"), "log.optimizer-fallback-failed")
    assert f.severity is Severity.WARNING and "on an Apple-silicon Mac this is Keras" in f.title
    assert "platform.machine()" in commands(f)


def test_tf_hubs_layer_refused_in_words_is_the_same_diagnosis_as_reported():
    (f,) = [f for f in diagnose(apple_silicon(), "said_sequential_cannot_take_hub_layer.txt") if f.code == "log.keras3-api"]
    assert f.basis == "reported" and "goes in tf_keras.Sequential" in f.title
    assert f.title.startswith("Two Kerases in one program (a tensorflow_hub.keras_layer.KerasLayer (Keras 2)")
