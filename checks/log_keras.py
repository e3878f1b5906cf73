"""Keras' errors in a pasted or recorded log, diagnosed with this environment's Keras: Keras 2 code
under Keras 3 (TensorFlow 2.16+), two Kerases in one program, the v2.11+ optimizers that run
slowly on Apple silicon, and Keras' fallback to legacy optimizers where it broke training or
loading. Keras 2 code keeps running on tf-keras pinned to the TensorFlow minor."""

from __future__ import annotations

from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import export_variable, machine_check, pip, python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import install_commands
from tfdoctor.advice.keras_expected import tf_keras_pin, unpinned_risk
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived, installed_keras, pip_arch
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule

KERAS3_MIGRATION = "https://keras.io/guides/migrating_to_keras_3/"
OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"


def _legacy_keras(s: Snapshot, d: Derived, what: str) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """Keras 2 for Keras 2 code: tf-keras pinned to the TensorFlow minor, and the variable."""
    keras, major = installed_keras(s)
    facts: dict[str, Any] = {"keras": keras, "tensorflow": d.tf_version,
                             "TF_USE_LEGACY_KERAS": s.env.get("TF_USE_LEGACY_KERAS")}
    if major is not None and major < 3:
        return (f"Keras {keras} is installed here, so this error came from another environment "
                "with Keras 3", (), facts)
    pin = tf_keras_pin(s, d)
    if pin is None and not d.tf_version:
        return (f"{what}; or keep Keras 2 with the tf-keras of the installed TensorFlow's minor (the "
                "report does not state it: `pip show tensorflow` tells) and TF_USE_LEGACY_KERAS=1", (), facts)
    if pin is None:
        return (f"{what}; no tf-keras release matches TensorFlow {d.tf_version}: port the code "
                "to Keras 3", (), facts)
    facts.update(tf_keras_requirement=pin.requirement, tf_keras_source=pin.source,
                 unpinned_tf_keras_moves_tensorflow=pin.unpinned_moves_tensorflow)
    return (f"{what}: keep Keras 2 with {pin.requirement} (pinned: an unpinned tf-keras "
            f"{unpinned_risk(pin)}) and "
            "TF_USE_LEGACY_KERAS=1, or port the code to Keras 3",
            (pip(s, "install", pin.requirement), export_variable("TF_USE_LEGACY_KERAS", "1")), facts)


_KERAS3_PORT = {
    "keras.optimizers.legacy": "use keras.optimizers.Adam (Keras 3 has no legacy optimizers)",
    "model.save": "save to a path ending in .keras, or model.export(DIR) for a SavedModel",
    "load_model of a SavedModel": "load the SavedModel as keras.layers.TFSMLayer(path, call_endpoint='serving_default') "
                                  "(inference only), or re-save it as .keras with the Keras that wrote it",
    "ModelCheckpoint": "end the filepath in .keras (or .weights.h5 with save_weights_only=True)",
    "optimizer lr": "pass learning_rate= instead of lr=",
    "Model.fit_generator": "call model.fit(generator) instead",
    "keras.layers.experimental": "use the layers from keras.layers (keras.layers.RandomFlip, ...)",
    "KerasTensor in a TensorFlow function": "wrap the TensorFlow call in a keras.layers.Layer or use keras.ops",
    "layer.input / layer.output": "give the model a keras.Input(shape=...) (Keras 3 defines them only for layers "
                                  "called on symbolic inputs; a Sequential built with build() or loaded has none)",
    "a package's Keras 2 models": "the package imports tf-keras for them: install it",
    "tf-keras, not installed": "something asks for Keras 2 (a package's Keras 2 models, or TF_USE_LEGACY_KERAS=1): "
                               "install tf-keras pinned to the TensorFlow minor, or unset the variable",
    "transformers' TensorFlow models": "they need Keras 2: transformers imports tf-keras before keras, or use "
                                       "its PyTorch models",
    "keras3-tf-keras-shim": "Keras 3 (tf.keras from TensorFlow 2.16 on: keras/_tf_keras) has no such name: port "
                            "the call, or move the package that made it to a release for Keras 3",
    "keras.src.engine": "import the public names (keras.Model, keras.layers.Layer) instead of Keras 2's private "
                        "engine, or run the code with Keras 2 (tf-keras)",
    "keras3-removed-name": "Keras 3 has no such name (Keras 2.15 had it): use its Keras 3 replacement "
                           "(ImageDataGenerator: keras.utils.image_dataset_from_directory and the preprocessing "
                           "layers; keras.preprocessing.text: keras.layers.TextVectorization; keras.backend's "
                           "functions: keras.ops)",
    "keras3-foreign-layer": "build the model with the Keras its layers come from: a Keras 2 layer (tensorflow_hub's "
                            "KerasLayer, tf-keras') goes in tf_keras.Sequential, or in tf.keras.Sequential with "
                            "TF_USE_LEGACY_KERAS=1",
    "keras3-foreign-object": "make the optimizer (loss, metric) with the Keras that built the model: tf_keras.optimizers "
                             "for a tf-keras model (transformers' TensorFlow models are), keras.optimizers for a "
                             "Keras 3 one; TF_USE_LEGACY_KERAS=1 makes tf.keras tf-keras",
}


_NAME_TF_KERAS = ("keras3-requires-tf-keras", "keras3-transformers")
"""Variants where a package says it needs tf-keras: Python's bare "No module named 'tf_keras'" beside
them is the same need, told without its name."""

_TWO_KERASES = ("keras3-foreign-layer", "keras3-foreign-object")
"""Variants where Keras 3 met Keras 2 (tf-keras) in one program, rather than old code meeting Keras 3."""
_TOLD_AS = {"keras3-hub-layer-cut": "keras3-foreign-layer", "said-keras3-hub-layer": "keras3-foreign-layer"}
"""Variants that tell another's failure (cut, or in words): read as that one (its port, its kind)."""


@rule(codes.LOG_KERAS3_API, "Keras 2 code failed under Keras 3", Severity.ERROR,
      "TensorFlow 2.16+ ships Keras 3, which removed or renamed Keras 2 APIs: legacy optimizers, "
      "SavedModel through model.save, `lr=`, fit_generator, layers.experimental, the private "
      "keras.src.engine that code reached into, Keras 2 names reached through tf.keras (whose module, "
      "keras._tf_keras, only Keras 3 has), TensorFlow ops on symbolic tensors, a layer's "
      ".output read from a model never called on a keras.Input; packages whose Keras 2 models need "
      "tf-keras (deepface, retinaface), Keras 2 asked for and not installed ('No module named "
      "tf_keras', TensorFlow's TF_USE_LEGACY_KERAS warning), "
      "transformers 4.41+ refusing Keras 3 for its TensorFlow models, public Keras 2 names no "
      "Keras 3 has (ImageDataGenerator, keras.preprocessing.text: read from the wheels); and two Kerases in one program, "
      "one handed the other's layer or optimizer (a tensorflow_hub KerasLayer in Keras 3's "
      "Sequential, Keras 3's Adam in a tf-keras model) "
      "(amaiya/ktrain#525, adriangb/scikeras#314, philipperemy/keras-tcn#284, ...). tf-keras "
      "(Keras 2) with TF_USE_LEGACY_KERAS=1 keeps old code running; it must be the "
      "tf-keras of the installed TensorFlow's minor. Where the environment has Keras 2 only, the "
      "text cannot be Keras 3's failure here: information.",
      "Port the call (the finding says how) or install tf-keras pinned to the TensorFlow minor and "
      "set TF_USE_LEGACY_KERAS=1.", KERAS3_MIGRATION, fix_answer=ABOUT_THE_LOG)
def keras3_api(s: Snapshot, d: Derived):
    out = []
    keras, major = installed_keras(s)
    matches = matches_of(s, codes.LOG_KERAS3_API)
    named = any(m.variant in _NAME_TF_KERAS for m in matches)
    for match in matches:
        if match.variant == "keras3-no-tf-keras" and named:
            continue  # the package's own message says the same, and names the package
        api = match.fields.get("api", "")
        if major == 2:
            text = (f"the error reads like Keras 3's ({api}), but this environment has Keras {keras}: "
                    "it came from another environment, or from the script's own names")
            out.append(keras3_api.finding(evidence(s, match, keras=keras), Remediation(
                text, ("python -c 'import keras; print(keras.__version__, keras.__file__)'",)),
                title=text, severity=Severity.INFO))
            continue
        variant = _TOLD_AS.get(match.variant, match.variant)
        port = _KERAS3_PORT.get(api) or _KERAS3_PORT.get(variant, "port the call to Keras 3")
        mixed = variant in _TWO_KERASES
        text, commands, facts = _legacy_keras(s, d, f"{api}: {port}" if mixed else f"{api} is Keras 2 API; {port}")
        out.append(keras3_api.finding(evidence(s, match, **facts),
                                      Remediation(text, commands, KERAS3_MIGRATION),
                                      title=f"{'Two Kerases in one program' if mixed else 'Keras 2 code under Keras 3'} "
                                            f"({api}): {port}"))
    return out


@rule(codes.LOG_OPTIMIZER_SLOWDOWN, "The v2.11+ Keras optimizer runs slowly on Apple silicon",
      Severity.WARNING,
      "TensorFlow warns that the v2.11+ optimizers 'run slowly on M1/M2 Macs': tensorflow-metal "
      "has fused kernels only for the legacy optimizers (tensorflow/tensorflow#59438, #61092). "
      "Keras 3 (TensorFlow 2.16+) has no legacy optimizers; tf-keras keeps them. Keras "
      "2.12-2.13 print 'Falling back to the legacy Keras optimizer' when they switched by "
      "themselves: then nothing runs slowly and the finding is information.",
      "Use tf.keras.optimizers.legacy.<Name> (Keras 2), or tf-keras pinned to the TensorFlow "
      "minor with TF_USE_LEGACY_KERAS=1 on TensorFlow 2.16+.", OPTIMIZER_ISSUE, fix_answer=ABOUT_THE_LOG)
def optimizer_slowdown(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_OPTIMIZER_SLOWDOWN)
    fell_back = next((m for m in matches if m.fields.get("fallback")), None)
    if fell_back is not None:
        legacy = fell_back.fields.get("legacy", "the legacy optimizer")
        text = f"Keras already fell back to {legacy} on this Mac: the slow path is not used, nothing to do"
        return optimizer_slowdown.finding(evidence(s, fell_back, keras=installed_keras(s)[0]),
                                          Remediation(text, (), OPTIMIZER_ISSUE), title=text,
                                          severity=Severity.INFO)
    for match in matches:
        name = (match.fields.get("optimizer") or "Adam").rsplit(".", 1)[-1]
        keras, major = installed_keras(s)
        code: tuple[str, ...] = ()
        if major == 3:
            text, commands, facts = _legacy_keras(s, d, f"the legacy {name} exists only in Keras 2")
        else:
            text = f"use tf.keras.optimizers.legacy.{name} (Keras {keras or '2'} has it)"
            commands, facts = (), {"keras": keras}
            code = (f"optimizer = tf.keras.optimizers.legacy.{name}(...)",)
        return optimizer_slowdown.finding(evidence(s, match, **facts),
                                          Remediation(text, commands, OPTIMIZER_ISSUE, code=code),
                                          title=f"The v2.11+ {name} runs slowly on Metal: {text}")
    return None


def _fallback_if_apple_silicon(s: Snapshot, match: Any, keras: str | None, legacy: str | None):
    """The machine is not stated: on Apple silicon the error is Keras' fallback, elsewhere the
    code's own; the finding says both and the command that tells them apart."""
    error = f"'{legacy}' object has no attribute 'build'" if legacy else "'str' object has no attribute 'minimize'"
    way = ("load the model with compile=False and compile it again, or move to TensorFlow 2.14+" if legacy else
           "compile with tf.keras.optimizers.legacy.Adam (AdamW has no legacy twin)")
    text = (f"{error}: on an Apple-silicon Mac this is Keras {keras or '2.11-2.14'}'s fallback to legacy "
            f"optimizers ({way}); elsewhere the code passed another kind of optimizer. The report does not "
            "say which machine ran it")
    return optimizer_fallback_failed.finding(
        evidence(s, match, keras=keras), Remediation(text, (machine_check(python_cmd(s)),),
                                                     "https://github.com/keras-team/keras/issues/18224"),
        title=text, severity=Severity.WARNING)


@rule(codes.LOG_OPTIMIZER_FALLBACK_FAILED, "Keras' fallback to a legacy optimizer broke training or loading",
      Severity.ERROR,
      "On M1/M2 Macs Keras 2.11-2.14 replace a v2.11+ optimizer by its legacy twin. AdamW (and "
      "the other optimizers without a legacy version) has none, the fallback leaves the name as a "
      "string, and `fit` fails with \"'str' object has no attribute 'minimize'\" "
      "(keras-team/keras#18224, Apple developer forums thread 731019). A legacy twin has no "
      "build(), which Keras 2.12-2.13 call when they load a .keras model: \"'Adam' object has no "
      "attribute 'build'\" (tensorflow/tensorflow#61915, fixed in TensorFlow 2.14). Elsewhere "
      "the same Python errors are the user's own code.",
      "Pass an optimizer that has a legacy twin (tf.keras.optimizers.legacy.Adam); to load a saved "
      "model, load it with compile=False and compile it again, or move to TensorFlow 2.14+.",
      "https://github.com/keras-team/keras/issues/18224", fix_answer=ABOUT_THE_LOG)
def optimizer_fallback_failed(s: Snapshot, d: Derived):
    fell_back = any(m.fields.get("fallback") for m in matches_of(s, codes.LOG_OPTIMIZER_SLOWDOWN))
    for match in matches_of(s, codes.LOG_OPTIMIZER_FALLBACK_FAILED):
        keras, major = installed_keras(s)
        legacy = match.fields.get("optimizer")
        if not (d.apple_silicon or fell_back) and major in (None, 2) and pip_arch(s) is None:
            return _fallback_if_apple_silicon(s, match, keras, legacy)
        if not (d.apple_silicon or fell_back) or major not in (None, 2):
            text = (f"'{legacy}' object has no attribute 'build': a legacy optimizer where Keras "
                    f"{keras or '(version not stated)'} expected a v2.11+ one (not the Apple-silicon fallback)" if legacy else
                    "'str' object has no attribute 'minimize': an optimizer given as a name where an "
                    f"object was expected (Keras {keras or 'unknown'}; not the Apple-silicon fallback)")
            return optimizer_fallback_failed.finding(evidence(s, match, keras=keras), Remediation(
                text, code=(f"model.compile(optimizer=tf.keras.optimizers.{legacy or 'Adam'}(...), ...)",)),
                title=text, severity=Severity.INFO)
        if legacy:
            text = (f"Keras fell back to the legacy {legacy} on this Mac, which has no build(): "
                    "loading the .keras model fails; load it with compile=False and compile it "
                    "again, or move to TensorFlow 2.14+")
            return optimizer_fallback_failed.finding(
                evidence(s, match, keras=keras, tensorflow=d.tf_version),
                Remediation(text, tuple(install_commands(s, ["tensorflow>=2.14"], d=d)),
                            "https://github.com/tensorflow/tensorflow/issues/61915",
                            code=("model = keras.models.load_model(path, compile=False)",
                                  f"model.compile(optimizer=tf.keras.optimizers.legacy.{legacy}(), ...)")),
                title=text)
        text = ("Keras' Apple-silicon fallback to a legacy optimizer failed (AdamW has no legacy "
                "version): compile with tf.keras.optimizers.legacy.Adam, or move to TensorFlow 2.16+")
        return optimizer_fallback_failed.finding(
            evidence(s, match, keras=keras, tensorflow=d.tf_version),
            Remediation(text, (), "https://github.com/keras-team/keras/issues/18224",
                        code=("model.compile(optimizer=tf.keras.optimizers.legacy.Adam(learning_rate=1e-3), ...)",)),
            title=text)
    return None
