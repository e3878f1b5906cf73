"""Training errors in a pasted or recorded log, diagnosed with this environment: ops without a
Metal kernel (checked against the installed plugin's kernel table), XLA on Metal, ops of a
the slow v2.11+ optimizers, device configuration made too late, Keras 3 breaking Keras 2 code; and,
from `tfdoctor run --placement`, which ops TensorFlow placed on the CPU. (Ops of companion packages:
log_companions.py.)
"""

from __future__ import annotations

from typing import Any

from packaging.version import InvalidVersion, Version

from tfdoctor import codes
from tfdoctor.advice.commands import export_variable, pip, unset_variable
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import install_commands, listing_read
from tfdoctor.derived import Derived
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import keras_releases
from tfdoctor.knowledge.kernels import UnknownPluginRelease, kernel_table, releases
from tfdoctor.knowledge.layer_ops import ACTIVATIONS, FUNCTIONS, LAYERS
from tfdoctor.model import Remediation, Severity, rule

PLACEMENT_GUIDE = "https://www.tensorflow.org/guide/gpu#manual_device_placement"
KERAS3_MIGRATION = "https://keras.io/guides/migrating_to_keras_3/"
OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
OP_USERS = {
    "RngReadAndSkip": ("the random preprocessing layers of Keras 2 (RandomFlip, RandomRotation, "
                       "RandomZoom, ...), which draw from tf.random.Generator",
                       "https://github.com/mrdbourke/tensorflow-deep-learning/issues/298"),
    "GeneratorDataset": ("tf.data.Dataset.from_generator: input pipelines run on the CPU; build the "
                         "dataset outside `with tf.device('/GPU:0')`",
                         "https://github.com/tensorflow/tensorflow/issues/53026"),
    "CudnnRNNV3": ("LSTM/GRU on the cuDNN path, which exists only for CUDA",
                   "https://github.com/lewagon/data-setup/pull/137"),
}
"""Ops the kernel-table helpers (tfdoctor.knowledge.layer_ops) do not map, with who runs them."""


def _keras(s: Snapshot) -> tuple[str | None, int | None]:
    keras = s.package("keras")
    try:
        return (keras.version, Version(keras.version).major) if keras and keras.version else (None, None)
    except InvalidVersion:
        return keras.version, None


def _python(s: Snapshot) -> str | None:
    return s.python.minor if s.python else None


def _users(op: str) -> list[str]:
    """Layers, activations and functions that run `op`."""
    found = [f"layers.{name}" for name, use in LAYERS.items() if op in use.ops]
    found += [f"activation '{name}'" for name, use in ACTIVATIONS.items() if op in use.ops]
    found += [f"tf.{name.split('.', 1)[1]}" for name, use in FUNCTIONS.items() if op in use.ops]
    if op in OP_USERS:
        found.append(OP_USERS[op][0])
    return list(dict.fromkeys(found))


def _kernel_facts(d: Derived, op: str) -> dict[str, Any]:
    """What the installed plugin's kernel table says of an op."""
    if not d.metal:
        return {"tensorflow_metal": None}
    try:
        table = kernel_table(d.metal.version)
    except UnknownPluginRelease:
        return {"tensorflow_metal": d.metal.version, "kernel_table": "none for this release"}
    first = next((v for v in reversed(releases()) if kernel_table(v).has_kernel(op)), None)
    return {"tensorflow_metal": d.metal.version, "metal_gpu_kernel": table.has_kernel(op),
            "metal_gpu_kernel_dtypes": sorted(table.dtypes(op)) or None,
            "first_metal_with_kernel": first, "kernel_table_from": table.wheel}


@rule(codes.LOG_NO_GPU_KERNEL, "An op pinned to the GPU has no GPU kernel", Severity.ERROR,
      "tensorflow-metal registers GPU kernels for about 170 ops (read from its binary); an op "
      "without one fails when pinned to the GPU ('No registered 'RngReadAndSkip' OpKernel for "
      "'GPU' devices', mrdbourke/tensorflow-deep-learning#298) or runs on the CPU when TensorFlow "
      "may move it. TensorFlow's placer says the same of an op colocated with GPU-pinned nodes "
      "('was colocated with a group of nodes that required incompatible device'); its Colocation "
      "Debug Info lists the op type with CPU only. The op is checked against the installed "
      "plugin's kernel table.",
      "Run the layer that uses the op on the CPU (`with tf.device('/CPU:0'):`), allow soft "
      "placement, or replace the layer (the finding names it).", PLACEMENT_GUIDE, fix_answer=ABOUT_THE_LOG)
def no_gpu_kernel(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_NO_GPU_KERNEL):
        named = match.fields.get("op", "")
        if not named:  # a colocation error pasted without its debug info: the op is not named
            out.append(_unnamed_op(s, d, match))
            continue
        # the placer's debug info names the op type; else "loader/GeneratorDataset", a node
        # named after its op
        op = named.rsplit("/", 1)[-1]
        node = match.fields.get("node") or named
        facts = _kernel_facts(d, op)
        if node != op:
            facts["node"] = node
        users = _users(op)
        facts["op_used_by"] = users or None
        who = f" ({'; '.join(users)})" if users else ""
        if facts.get("metal_gpu_kernel") is True:
            text = (f"tensorflow-metal {d.metal.version} has a GPU kernel for {op} (dtypes: "
                    f"{', '.join(facts.get('metal_gpu_kernel_dtypes') or ['any'])}): the failing "
                    "call used another dtype, or the log came from another plugin version")
        elif d.metal and facts.get("first_metal_with_kernel"):
            text = (f"tensorflow-metal {d.metal.version} has no GPU kernel for {op}{who}; tensorflow-metal "
                    f"{facts['first_metal_with_kernel']} and later have one: upgrade the pair, or run that "
                    "part on the CPU")
        elif d.metal:
            text = (f"tensorflow-metal {d.metal.version} has no GPU kernel for {op}{who}: run that "
                    "part on the CPU, or replace it")
        else:
            text = (f"no GPU kernel for {op}{who}; this environment has no tensorflow-metal, so "
                    "the GPU in the log belongs to another environment")
        out.append(no_gpu_kernel.finding(evidence(s, match, **facts),
                                         Remediation(text, (), PLACEMENT_GUIDE, code=_on_the_cpu(op)),
                                         title=f"No GPU kernel for {op}: {text}"))
    return out


def _on_the_cpu(op: str) -> tuple[str, str]:
    """The lines of the user's code that run `op` where it has a kernel."""
    return ("with tf.device('/CPU:0'):  # around the layer or call that runs " + op,
            "tf.config.set_soft_device_placement(True)")


def _unnamed_op(s: Snapshot, d: Derived, match):
    """A colocation error whose paste lost the debug info that names the op without a kernel."""
    plugin = f"tensorflow-metal {d.metal.version}" if d.metal else "the GPU plugin"
    text = (f"an op colocated with nodes pinned to the GPU has no GPU kernel in {plugin}: the "
            "error's 'Colocation Debug Info' names it (the op type listed with CPU only); run "
            "that part on the CPU, or replace it")
    return no_gpu_kernel.finding(evidence(s, match, tensorflow_metal=d.metal.version if d.metal else None),
                                 Remediation(text, (), PLACEMENT_GUIDE, code=_on_the_cpu("that op")),
                                 title=f"No GPU kernel for an op of a colocation group: {text}")


@rule(codes.LOG_XLA_NO_METAL, "XLA (jit_compile) was asked for on Metal", Severity.ERROR,
      "XLA has no Metal backend: `jit_compile=True` in `model.compile`, "
      "`@tf.function(jit_compile=True)` or TF_XLA_FLAGS=--tf_xla_auto_jit fail on the Metal GPU "
      "with 'Could not find compiler for platform METAL' (NVlabs/sionna#78), or, from the XLA ops "
      "of TensorFlow 2.11's optimizers (which compile with XLA by default) and Keras 3's "
      "jit_compile='auto', with 'could not find registered platform with id' "
      "(tensorflow/tensorflow#58988). Without a Metal plugin the same lookup failing is a build "
      "without XLA for its device: information, not a Metal diagnosis.",
      "Remove jit_compile=True (pass jit_compile=False to model.compile and to the optimizer) and "
      "unset TF_XLA_FLAGS.", "https://github.com/NVlabs/sionna/issues/78", fix_answer=ABOUT_THE_LOG)
def xla_no_metal(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_XLA_NO_METAL):
        keras, major = _keras(s)
        flags = s.env.get("TF_XLA_FLAGS")
        code = ["model.compile(..., jit_compile=False)", "@tf.function  # without jit_compile=True"]
        commands = (unset_variable("TF_XLA_FLAGS"),) if flags else ()
        # unknown is not absent: a report's list of the packages it mentions says nothing of a plugin
        no_plugin = not (d.metal or d.metal_plugins) and "packages" not in s.unknown and listing_read(s)
        if match.variant == "xla-no-platform-id" and no_plugin:
            text = ("XLA could not find the platform it compiles for, and no Metal plugin is installed: "
                    "this TensorFlow build has no XLA backend for its device; run without XLA")
            return xla_no_metal.finding(evidence(s, match, TF_XLA_FLAGS=flags),
                                        Remediation(text, commands, code=tuple(code)), title=text,
                                        severity=Severity.INFO)
        if match.variant == "xla-no-platform-id":
            code.insert(1, "optimizer = tf.keras.optimizers.Adam(..., jit_compile=False)  # TF 2.11+")
        text = (f"XLA has no compiler for {match.fields.get('platform', 'METAL')}: remove jit_compile=True"
                + (" (Keras 3 compiles with jit_compile='auto': pass False explicitly)" if major == 3 else ""))
        return xla_no_metal.finding(
            evidence(s, match, tensorflow_metal=d.metal.version if d.metal else None, keras=keras,
                     TF_XLA_FLAGS=flags),
            Remediation(text, commands, "https://github.com/NVlabs/sionna/issues/78", code=tuple(code)), title=text)
    return None


def _legacy_keras(s: Snapshot, d: Derived, what: str) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """Keras 2 for Keras 2 code: tf-keras pinned to the TensorFlow minor, and the variable."""
    keras, major = _keras(s)
    facts: dict[str, Any] = {"keras": keras, "tensorflow": d.tf_version,
                             "TF_USE_LEGACY_KERAS": s.env.get("TF_USE_LEGACY_KERAS")}
    if major is not None and major < 3:
        return (f"Keras {keras} is installed here, so this error came from another environment "
                "with Keras 3", (), facts)
    pin = keras_releases.tf_keras_requirement(d.matrix, d.tf_version, _python(s)) if d.matrix and d.tf_version else None
    if pin is None and not d.tf_version:
        return (f"{what}; or keep Keras 2 with the tf-keras of the installed TensorFlow's minor (the "
                "report does not state it: `pip show tensorflow` tells) and TF_USE_LEGACY_KERAS=1", (), facts)
    if pin is None:
        return (f"{what}; no tf-keras release matches TensorFlow {d.tf_version}: port the code "
                "to Keras 3", (), facts)
    facts.update(tf_keras_requirement=pin.requirement, tf_keras_source=pin.source,
                 unpinned_tf_keras_moves_tensorflow=pin.unpinned_moves_tensorflow)
    return (f"{what}: keep Keras 2 with {pin.requirement} (pinned: an unpinned tf-keras "
            f"{'would replace TensorFlow' if pin.unpinned_moves_tensorflow else 'may drift'}) and "
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
    "transformers' TensorFlow models": "they need Keras 2: transformers imports tf-keras before keras, or use "
                                       "its PyTorch models",
    "keras3-tf-keras-shim": "Keras 3 (tf.keras from TensorFlow 2.16 on: keras/_tf_keras) has no such name: port "
                            "the call, or move the package that made it to a release for Keras 3",
    "keras.src.engine": "import the public names (keras.Model, keras.layers.Layer) instead of Keras 2's private "
                        "engine, or run the code with Keras 2 (tf-keras)",
    "keras3-foreign-layer": "build the model with the Keras its layers come from: a Keras 2 layer (tensorflow_hub's "
                            "KerasLayer, tf-keras') goes in tf_keras.Sequential, or in tf.keras.Sequential with "
                            "TF_USE_LEGACY_KERAS=1",
    "keras3-foreign-object": "make the optimizer (loss, metric) with the Keras that built the model: tf_keras.optimizers "
                             "for a tf-keras model (transformers' TensorFlow models are), keras.optimizers for a "
                             "Keras 3 one; TF_USE_LEGACY_KERAS=1 makes tf.keras tf-keras",
}


_TWO_KERASES = ("keras3-foreign-layer", "keras3-foreign-object")
"""Variants where Keras 3 met Keras 2 (tf-keras) in one program, rather than old code meeting Keras 3."""


@rule(codes.LOG_KERAS3_API, "Keras 2 code failed under Keras 3", Severity.ERROR,
      "TensorFlow 2.16+ ships Keras 3, which removed or renamed Keras 2 APIs: legacy optimizers, "
      "SavedModel through model.save, `lr=`, fit_generator, layers.experimental, the private "
      "keras.src.engine that code reached into, Keras 2 names reached through tf.keras (whose module, "
      "keras._tf_keras, only Keras 3 has), TensorFlow ops on symbolic tensors, a layer's "
      ".output read from a model never called on a keras.Input; packages whose Keras 2 models need "
      "tf-keras (deepface, retinaface) and "
      "transformers 4.41+ refuses Keras 3 for its TensorFlow models; and two Kerases in one program, "
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
    keras, major = _keras(s)
    for match in matches_of(s, codes.LOG_KERAS3_API):
        api = match.fields.get("api", "")
        if major == 2:
            text = (f"the error reads like Keras 3's ({api}), but this environment has Keras {keras}: "
                    "it came from another environment, or from the script's own names")
            out.append(keras3_api.finding(evidence(s, match, keras=keras), Remediation(
                text, ("python -c 'import keras; print(keras.__version__, keras.__file__)'",)),
                title=text, severity=Severity.INFO))
            continue
        port = _KERAS3_PORT.get(api) or _KERAS3_PORT.get(match.variant, "port the call to Keras 3")
        mixed = match.variant in _TWO_KERASES
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
        return optimizer_slowdown.finding(evidence(s, fell_back, keras=_keras(s)[0]),
                                          Remediation(text, (), OPTIMIZER_ISSUE), title=text,
                                          severity=Severity.INFO)
    for match in matches:
        name = (match.fields.get("optimizer") or "Adam").rsplit(".", 1)[-1]
        keras, major = _keras(s)
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
        keras, major = _keras(s)
        legacy = match.fields.get("optimizer")
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


@rule(codes.LOG_DEVICE_CONFIG_LATE, "Devices were configured after TensorFlow initialised them",
      Severity.WARNING,
      "set_visible_devices, set_memory_growth and logical device configuration only work before "
      "TensorFlow initialises its devices (the first op, list_logical_devices, building a model): "
      "later they raise 'Visible devices cannot be modified after being initialized' "
      "(Planet-AI-GmbH/tfaip#10) and the setting is not applied.",
      "Move the device configuration to the top of the script, right after `import tensorflow`.",
      PLACEMENT_GUIDE, fix_answer=ABOUT_THE_LOG)
def device_config_late(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_DEVICE_CONFIG_LATE):
        what = match.fields.get("what", "Visible")
        text = (f"{what} devices were configured after TensorFlow initialised them, so the setting "
                "did not apply: move it right after `import tensorflow`, before any op")
        return device_config_late.finding(
            evidence(s, match, tensorflow=d.tf_version),
            Remediation(text, ("tfdoctor lint SCRIPT  # shows where",), PLACEMENT_GUIDE), title=text)
    return None


@rule(codes.LOG_OPS_ON_CPU, "Ops ran on the CPU while a GPU was available", Severity.INFO,
      "With `tfdoctor run --placement`, TensorFlow logs where it places every op. Ops placed on "
      "the CPU while the GPU ran others are either missing from the plugin's kernel table (they "
      "always fall back) or kept there for their inputs (tf.data, host-memory arguments).",
      "Replace or move the layers whose ops have no GPU kernel (the finding names them), or "
      "accept the fallback where the op is cheap.", PLACEMENT_GUIDE, needs=("run",),
      fix_answer=ABOUT_THE_LOG)  # `tfdoctor run` records both
def ops_on_cpu(s: Snapshot, d: Derived):
    run = s.run
    if run is None or not run.placement or not run.cpu_ops or not run.gpu_ops:
        return None
    table = None
    if d.metal:
        try:
            table = kernel_table(d.metal.version)
        except UnknownPluginRelease:
            table = None
    rows = []
    for placed in run.cpu_ops[:20]:
        row: dict[str, Any] = {"op": placed.op, "count": placed.count}
        if table is not None:
            row["metal_gpu_kernel"] = table.has_kernel(placed.op)
        users = _users(placed.op)
        if users:
            row["used_by"] = users
        rows.append(row)
    missing = [r["op"] for r in rows if r.get("metal_gpu_kernel") is False]
    severity = Severity.WARNING if missing else None
    text = (f"{len(run.cpu_ops)} op types ran on the CPU while {len(run.gpu_ops)} ran on the GPU"
            + (f"; no Metal kernel for {', '.join(missing[:6])}" if missing else ""))
    return ops_on_cpu.finding({"cpu_ops": rows, "gpu_op_types": len(run.gpu_ops),
                               "tensorflow_metal": d.metal.version if d.metal else None},
                              Remediation(text), title=text, severity=severity)
