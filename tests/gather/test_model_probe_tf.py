"""`probe --model` end to end: real TensorFlow (cached test venv) with the simulated GPU.

Models are built and saved by a script run in the TensorFlow venv (this process never imports
TensorFlow): a functional `.keras`, a sequential `.h5`, a subclassed model returned by a
`module:function`, and broken inputs made from them. Each scenario runs
tfdoctor.gather.user_model.probe_model exactly as the CLI will; they start together (three at a time)
when the module's fixture is first used and each test waits for its own.
"""

from __future__ import annotations

import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from simgpu import build as simgpu_build
from support import tfenv

from tfdoctor.facts.user_model import ModelFacts
from tfdoctor.gather import user_model
from tfdoctor.render.model_summary import summarize

pytestmark = [
    pytest.mark.tf,
    pytest.mark.skipif(simgpu_build.compiler() is None, reason="no C compiler for the simulated GPU"),
]

PARALLEL = 3

BUILD_MODELS = r'''
import os, sys
import keras
from keras import layers
out = sys.argv[1]
keras.utils.set_random_seed(3)

# functional: conv + dense, saved as .keras
image = keras.Input((12, 12, 3), name="image")
x = layers.Conv2D(8, 3, activation="relu", name="conv")(image)
x = layers.Flatten(name="flatten")(x)
x = layers.Dense(16, activation="relu", name="hidden")(x)
functional = keras.Model(image, layers.Dense(4, name="logits")(x), name="func")
functional.compile(optimizer="adam",
                   loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
functional.save(os.path.join(out, "models", "functional.keras"))

# sequential with a Dense before two convolutions, saved as .h5
sequential = keras.Sequential([
    keras.Input((10, 10, 3)), layers.Dense(4, name="mix"),
    layers.Conv2D(4, 3, name="conv_a"), layers.Conv2D(4, 3, name="conv_b"),
    layers.Flatten(name="flat"), layers.Dense(3, name="out")], name="seq")
sequential.compile(optimizer="sgd", loss="mse")
sequential.save(os.path.join(out, "models", "sequential.h5"))

# a sequence model whose length is unknown (None)
seq_in = keras.Input((None, 8), name="steps")
y = layers.Dense(32, name="proj")(seq_in)
y = layers.GlobalAveragePooling1D(name="pool")(y)
unknown = keras.Model(seq_in, layers.Dense(2, name="head")(y), name="unknown_len")
unknown.save(os.path.join(out, "models", "unknown_len.keras"))
functional.export(os.path.join(out, "models", "saved_model"))  # a SavedModel directory

# custom objects that the loading process cannot import
@keras.saving.register_keras_serializable(package="userpkg")
class Scale(layers.Layer):
    def call(self, x):
        return x * 2.0
custom = keras.Sequential([keras.Input((4,)), Scale(name="scale"), layers.Dense(2)])
custom.save(os.path.join(out, "models", "custom.keras"))

for name in ("functional.keras", "sequential.h5"):
    data = open(os.path.join(out, "models", name), "rb").read()
    with open(os.path.join(out, "bad", "truncated-" + name), "wb") as handle:
        handle.write(data[: len(data) // 2])
with open(os.path.join(out, "bad", "notes.keras"), "w") as handle:
    handle.write("not a model\n")
'''

USER_MODULE = '''
import keras


class Tower(keras.Model):
    """A subclassed model: only its outputs can be compared."""

    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(4, 3, name="conv")
        self.flat = keras.layers.Flatten()
        self.head = keras.layers.Dense(3, name="head")

    def call(self, x, training=False):
        return self.head(self.flat(self.conv(x)))


def subclassed():
    model = Tower()
    model(keras.ops.zeros((1, 8, 8, 3)))
    model.compile(optimizer="adam", loss="mse")
    return model


def raises():
    raise RuntimeError("cannot reach the data server")


def not_a_model():
    return {"layers": 3}


def big():
    return keras.Sequential([keras.Input((512,)), keras.layers.Dense(512)])
'''


@dataclass(frozen=True)
class Case:
    model: str | None = None
    workload: str | None = None
    mode: str | None = "ok"
    extra_env: tuple = ()
    plugin: str | None = None
    options: tuple = ()


QUICK = (("timing", False), ("memory", False), ("compare", False))
CASES = {
    "functional-ok": Case("models/functional.keras", options=(("memory_steps", 10),
                                                              ("sweep", [2, 16]))),
    "savedmodel": Case("models/saved_model", mode=None, options=QUICK + (("trust_model", True),)),
    "wrong-conv": Case("models/sequential.h5", mode="wrong",
                       extra_env=(("SIMGPU_WRONG_OPS", "Conv2D"),),
                       options=(("timing", False), ("memory", False))),
    "leak": Case("models/unknown_len.keras", mode="leak", extra_env=(("SIMGPU_LEAK_KB", "1024"),),
                 options=(("timing", False), ("compare", False), ("memory_steps", 12))),
    "subclassed": Case("usermodels:subclassed", options=(("timing", False), ("memory", False))),
    "predict-attention": Case(workload="attention", mode=None, plugin="1.2.0", options=QUICK),
    "lstm-gpu": Case(workload="lstm", options=(("memory", False), ("timing", False))),
    "lstm-predict": Case(workload="lstm", mode=None, plugin="1.2.0", options=QUICK),
    "cifar-cnn": Case(workload="cifar-cnn", options=(("memory", False), ("timing", False))),
    "not-a-model": Case("bad/notes.keras", mode=None, options=QUICK),
    "truncated-keras": Case("bad/truncated-functional.keras", mode=None, options=QUICK),
    "truncated-h5": Case("bad/truncated-sequential.h5", mode=None, options=QUICK),
    "custom-objects": Case("models/custom.keras", mode=None, options=QUICK),
    "raises": Case("usermodels:raises", mode=None, options=QUICK),
    "not-a-model-returned": Case("usermodels:not_a_model", mode=None, options=QUICK),
    "not-on-path": Case("no_such_usermodels:build", mode=None, options=QUICK),
    "too-big": Case("usermodels:big", mode=None, extra_env=(("TFDOCTOR_MODEL_MEMORY_MB", "2"),),
                    options=QUICK),
}


def _run(name: str, case: Case, work: Path, plugin: Path) -> ModelFacts:
    extra = dict(case.extra_env)
    if case.mode is not None:
        extra.update(SIMGPU_MODE=case.mode, SIMGPU_QUIET="1",
                     TF_PLUGGABLE_DEVICE_LIBRARY_PATH=str(plugin))
    home = work / "homes" / name
    home.mkdir(parents=True)
    extra["HOME"] = str(home)  # a home without ~/.keras: Keras must not write one there
    env = tfenv.tf_subprocess_env(userbase=home / "userbase", extra=extra)
    model = case.model
    if model is not None and ":" not in model:
        model = str(work / model)
    config = user_model.child_config(model=model, workload=case.workload, batch=4, budget_s=20.0,
                                      sys_path=[str(work / "code")])
    config.update(dict(case.options))
    return user_model.probe_model(str(tfenv.tf_python()), config, plugin=case.plugin, env=env,
                                   timeout=150.0)


def _listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("model-probe")
    for sub in ("models", "bad", "code"):
        (root / sub).mkdir()
    (root / "code" / "usermodels.py").write_text(USER_MODULE)
    env = tfenv.tf_subprocess_env(extra={"TF_CPP_MIN_LOG_LEVEL": "3"})
    proc = subprocess.run([str(tfenv.tf_python()), "-c", BUILD_MODELS, str(root)], env=env,
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def runs(work):
    plugin = simgpu_build.build_plugin(tfenv.tf_python())
    before = {d: _listing(work / d) for d in ("models", "bad", "code")}
    pool = ThreadPoolExecutor(max_workers=PARALLEL)
    futures: dict[str, Future] = {n: pool.submit(_run, n, c, work, plugin) for n, c in CASES.items()}
    yield futures
    pool.shutdown(wait=True)
    # Nothing written next to the user's models or code (no .pyc, no extracted archives).
    assert {d: _listing(work / d) for d in ("models", "bad", "code")} == before


def get(runs, name: str) -> ModelFacts:
    return runs[name].result()


def show(facts: ModelFacts) -> str:
    return summarize(facts) + "\n" + repr(facts.errors)


def test_functional_model_on_the_simulated_gpu(runs, work):
    facts = get(runs, "functional-ok")
    assert facts.outcome == "ok" and not facts.errors, show(facts)
    assert facts.model["kind"] == "functional" and facts.gpus
    # simgpu registers only float32 MatMul and Conv2D: the rest of the model has no GPU kernel,
    # by TensorFlow's own registry, and really ran on the CPU with the model pinned to the GPU.
    assert facts.fallback_source == "registry"
    missing = {(f.layer, f.op) for f in facts.fallbacks}
    assert {("conv", "BiasAdd"), ("conv", "Relu"), ("hidden", "BiasAdd")} <= missing
    assert not {op for _, op in missing} & {"MatMul", "Conv2D"}
    ran = {(f.layer, f.op) for f in facts.ran_on_cpu}
    assert ("hidden", "BiasAdd") in ran and not {op for _, op in ran} & {"MatMul", "Conv2D"}
    agreement = facts.agreement
    assert agreement.per_layer and agreement.first_bad is None, show(facts)
    assert [l.layer for l in agreement.layers] == ["conv", "flatten", "hidden", "logits"]
    assert all(l.rel_error < 1e-4 for l in agreement.layers)
    assert agreement.loss_rel_diff is not None and agreement.loss_rel_diff < 1e-3
    speed = facts.speed
    devices = {t.device for t in speed.inference} | {t.device for t in speed.train_step}
    assert devices == {"/CPU:0", "/GPU:0"}
    for timing in speed.inference + speed.train_step:
        assert timing.median_s > 0 and timing.first_call_s > timing.median_s
    assert set(speed.verdicts) == {"inference", "train_step"}
    assert facts.memory.device == "/GPU:0" and len(facts.memory.process_bytes) == 10
    assert not facts.memory.leak, facts.memory.message  # ok mode: the leak finding stays silent
    assert not (work / "homes" / "functional-ok" / ".keras").exists()
    assert {i.code for i in facts.setting_issues} >= {"optimizer-slow"}
    # The batch sweep: inference at each size on both devices.
    assert [row["batch"] for row in speed.sweep] == [2, 16]
    assert all(row[d]["median_s"] > 0 for row in speed.sweep for d in ("/CPU:0", "/GPU:0"))


def test_a_savedmodel_directory_is_examined_for_inference(runs):
    facts = get(runs, "savedmodel")
    assert not facts.errors, show(facts)
    assert facts.source["kind"] in ("savedmodel", "savedmodel-inference")
    assert facts.inputs[0]["shape"] == [4, 12, 12, 3]
    assert facts.ops_total > 0


def test_wrong_convolutions_are_pinned_on_the_first_conv_layer(runs):
    facts = get(runs, "wrong-conv")
    assert not facts.errors, show(facts)
    agreement = facts.agreement
    assert agreement.first_bad == "conv_a", show(facts)
    by_layer = {l.layer: l for l in agreement.layers}
    assert by_layer["mix"].agrees and by_layer["mix"].rel_error < 1e-5  # MatMul on the GPU is right
    assert by_layer["conv_a"].rel_error > 1e-3


def test_leak_mode_is_found_with_its_rate_and_unknown_length_is_assumed(runs):
    facts = get(runs, "leak")
    assert not facts.errors, show(facts)
    memory = facts.memory
    assert memory.leak, memory
    # Every step launches at least two MatMuls (forward and backward), each losing 1 MiB.
    assert memory.slope_bytes_per_step >= 2 * 2 ** 20 * 0.9
    assert "per training step" in memory.message
    assert facts.assumptions[0]["axis"] == 1 and facts.assumptions[0]["assumed"] == 32
    assert facts.inputs[0]["shape"] == [4, 32, 8]


def test_subclassed_model_compares_its_outputs(runs):
    facts = get(runs, "subclassed")
    assert not facts.errors, show(facts)
    assert facts.model["kind"] == "subclassed"
    assert facts.agreement.per_layer is False and facts.agreement.first_bad is None
    assert facts.agreement.output_error < 1e-4
    assert facts.inputs[0]["shape"] == [4, 8, 8, 3]


def test_attention_fallback_is_predicted_for_metal_without_a_gpu(runs):
    facts = get(runs, "predict-attention")
    assert not facts.errors and not facts.gpus, show(facts)
    assert facts.fallback_source == "table:1.2.0"
    ops = {(f.layer, f.op) for f in facts.fallbacks}
    # reference/metal_binaries_2026-11.json: tensorflow-metal 1.2.0 has no Erfc kernel (gelu)
    # and no stateless random kernels (Dropout, here also inside MultiHeadAttention).
    assert ("ff1", "Erfc") in ops
    assert {("ff_dropout", "StatelessRandomUniformV2"), ("dropout", "StatelessRandomUniformV2")} <= ops
    # Keras 3's TensorFlow backend turns MultiHeadAttention's einsums into MatMul/BatchMatMulV2
    # (keras/src/backend/tensorflow/numpy.py, einsum's use_custom_ops), which Metal has; the
    # Einsum fallback is Keras 2's (tf.keras <= 2.15, tf-keras).
    assert facts.settings["keras_version"].startswith("3.")
    assert not {op for _, op in ops} & {"Einsum", "BatchMatMulV2", "MatMul"}
    assert ("mha", "BatchMatMulV2") not in ops


def test_lstm_with_a_gpu_listed_takes_the_cudnn_path_and_fails_clearly(runs):
    facts = get(runs, "lstm-gpu")
    assert facts.outcome == "error", show(facts)
    kernel = [e for e in facts.errors if e.kind == "no-gpu-kernel"]
    assert [(e.op, e.layer) for e in kernel] == [("CudnnRNNV3", "lstm")], show(facts)
    assert "cudnn-rnn" in {i.code for i in facts.setting_issues}
    # The integer input was drawn within the Embedding's vocabulary.
    assert facts.inputs[0]["dtype"] == "int32" and facts.inputs[0]["vocabulary"] == 10000


def test_lstm_without_a_gpu_runs_and_is_predicted(runs):
    facts = get(runs, "lstm-predict")
    assert not facts.errors and facts.fallback_source == "table:1.2.0", show(facts)
    # Input, Embedding, LSTM and its LSTMCell, Dense: without a GPU Keras takes the generic
    # LSTM (a while loop), whose ops all have Metal kernels but integer shape arithmetic.
    assert facts.model["layers"] == 5 and facts.ops_total > 0
    assert not any(f.layer == "lstm" and f.dtype == "float32" for f in facts.fallbacks)


def test_cifar_cnn_preset_on_the_simulated_gpu(runs):
    facts = get(runs, "cifar-cnn")
    assert not facts.errors, show(facts)
    assert facts.agreement.first_bad is None
    assert [l.layer for l in facts.agreement.layers][:2] == ["conv1", "pool1"]
    assert ("conv1", "Relu") in {(f.layer, f.op) for f in facts.ran_on_cpu}
    assert facts.agreement.loss_rel_diff is not None


@pytest.mark.parametrize("name, kind, words", [
    ("not-a-model", "not-a-model", "not a Keras model file"),
    ("truncated-keras", "corrupt", "truncated"),
    ("truncated-h5", "corrupt", "truncated"),
    ("custom-objects", "custom-objects", "userpkg>Scale"),
    ("raises", "function-raised", "cannot reach the data server"),
    ("not-a-model-returned", "not-a-model-returned", "returned dict"),
    ("not-on-path", "import-failed", "is not on the diagnosed Python's path"),  # issue 21 item 5
    ("too-big", "too-big", "parameters needs about"),
])
def test_bad_input_is_a_clear_error(runs, name, kind, words):
    facts = get(runs, name)
    assert facts.outcome == "error", show(facts)
    assert [e.kind for e in facts.errors] == [kind], show(facts)
    assert words in facts.errors[0].message
    assert "Traceback" not in facts.errors[0].message


def diagnosed(facts: ModelFacts):
    """The report `tfdoctor diagnose` gives on a snapshot holding these facts, replayed from
    JSON as a snapshot file would be (only the model rules: other families need other facts)."""
    from snapshots import RuleModules, linux_cpu

    from tfdoctor.facts import typed
    from tfdoctor.facts.snapshot import Snapshot

    data = linux_cpu()
    data["model"] = facts.to_json()
    snapshot = Snapshot.loads(typed.json_text(data))
    return RuleModules("model_health", "model_speed", "model_settings").report(snapshot)


def test_wrong_convolutions_diagnose_to_gpu_wrong_naming_the_first_conv_layer(runs):
    report = diagnosed(get(runs, "wrong-conv"))
    wrong = [f for f in report.findings if f.code == "model.gpu-wrong"]
    assert len(wrong) == 1, [f.code for f in report.findings]
    assert wrong[0].evidence["first_bad_layer"] == "conv_a"
    assert "layer conv_a is the first to differ from the CPU" in wrong[0].title
    assert [l["layer"] for l in wrong[0].evidence["layers"]] == ["mix", "conv_a"]
    assert report.diagnosis().code == "model.gpu-wrong"


def test_the_functional_model_diagnoses_its_fallbacks_and_no_leak(runs):
    report = diagnosed(get(runs, "functional-ok"))
    found = {f.code: f for f in report.findings}
    assert "model.gpu-wrong" not in found and "model.memory-leak" not in found
    fallback = found["model.cpu-fallback"]
    assert fallback.basis == "observed" and "BiasAdd" in fallback.title
    assert "hidden" in fallback.title
    assert {"model.gpu-faster", "model.gpu-slower", "model.no-clear-difference"} & set(found)


def test_the_leak_mode_and_the_cudnn_lstm_diagnose_to_their_findings(runs):
    found = {f.code: f for f in diagnosed(get(runs, "leak")).findings}
    assert found["model.memory-leak"].evidence["bytes_per_step"] >= 2 * 2 ** 20 * 0.9
    assert "model.assumed-inputs" in found
    report = diagnosed(get(runs, "lstm-gpu"))
    assert report.diagnosis().code == "model.cudnn-rnn"
    assert "model.no-gpu-kernel" in {f.code for f in report.findings}
