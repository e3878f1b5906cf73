"""Hostile model files for `probe --model` (issue 22, classes 1 and 2), on real Keras 3 (the
cached TensorFlow venv): nothing from a model file runs without `--trust-model`, a `.keras`
archive is judged by the sizes its members declare before anything is inflated, and the model
child runs under a memory limit.

Each model's Lambda layer (or SavedModel graph) writes a marker file when it runs: the marker
says whether code from the file ran. The models are built by a script in the TensorFlow venv
(this process never imports TensorFlow); the scenarios start together (three at a time).
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from support import tfenv

from tfdoctor.facts.user_model import ModelFacts
from tfdoctor.gather import user_model

pytestmark = pytest.mark.tf

GIB = 1 << 30

BUILD = r'''
import os, sys
import tensorflow as tf
import keras
out = sys.argv[1]

def marked(name):
    mark = os.path.join(out, "marks", name)
    return eval("lambda x: (open(%r, 'a').write('ran\\n'), x)[1]" % mark)

for name in ("keras", "keras-trusted", "h5", "h5-trusted"):
    inp = keras.Input((4,), name="x")
    y = keras.layers.Lambda(marked(name), name="evil")(inp)
    model = keras.Model(inp, keras.layers.Dense(2, name="d")(y))
    model.compile(optimizer="sgd", loss="mse")
    model.save(os.path.join(out, "models", name + (".keras" if "keras" in name else ".h5")))

class Writer(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def __call__(self, x):
        tf.io.write_file(os.path.join(out, "marks", "savedmodel"), "ran")
        return {"y": x * 2.0}

writer = Writer()
tf.saved_model.save(writer, os.path.join(out, "models", "savedmodel"),
                    signatures={"serving_default": writer.__call__})
for mark in os.listdir(os.path.join(out, "marks")):  # saving traced the lambdas: start clean
    os.remove(os.path.join(out, "marks", mark))
'''

USER_MODULE = '''
def greedy():
    """Asks for 3 GiB (lazily zeroed: it succeeds on an unlimited machine with less)."""
    return bytearray(3 << 30)
'''

QUICK = {"timing": False, "memory": False, "compare": False}


def _bomb(path: Path, config: str, member_bytes: int, compress: int) -> None:
    """A `.keras`-shaped zip: a real config.json and one member of zeros, deflated or stored."""
    with zipfile.ZipFile(path, "w", compress) as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.0.0"}))
        archive.writestr("config.json", config)
        with archive.open("model.weights.h5", "w", force_zip64=True) as member:
            block = bytes(1 << 20)
            for _ in range(member_bytes >> 20):
                member.write(block)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-model")
    for sub in ("models", "marks", "code", "homes"):
        (root / sub).mkdir()
    (root / "code" / "usermodels.py").write_text(USER_MODULE)
    env = tfenv.tf_subprocess_env(extra={"TF_CPP_MIN_LOG_LEVEL": "3"})
    proc = subprocess.run([str(tfenv.tf_python()), "-c", BUILD, str(root)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with zipfile.ZipFile(root / "models" / "keras.keras") as real:
        config = real.read("config.json").decode()
    # 320 MiB of zeros deflated to well under 1 MiB, and 80 MiB stored (no ratio) for a bound of 64 MiB.
    _bomb(root / "models" / "bomb.keras", config, 320 << 20, zipfile.ZIP_DEFLATED)
    _bomb(root / "models" / "large.keras", config, 80 << 20, zipfile.ZIP_STORED)
    return root


CASES = {
    "keras": ("models/keras.keras", {}),
    "keras-trusted": ("models/keras-trusted.keras", {"trust_model": True}),
    "h5": ("models/h5.h5", {}),
    "h5-trusted": ("models/h5-trusted.h5", {"trust_model": True}),
    "savedmodel": ("models/savedmodel", {}),
    "bomb": ("models/bomb.keras", {}),
    "large": ("models/large.keras", {"inflate_limit": 64 << 20}),
    "greedy": ("usermodels:greedy", {"memory_limit": 2 * GIB}),
}


def _run(name: str, work: Path) -> ModelFacts:
    model, options = CASES[name]
    home = work / "homes" / name
    home.mkdir()
    env = tfenv.tf_subprocess_env(userbase=home / "userbase",
                                  extra={"HOME": str(home), "TF_CPP_MIN_LOG_LEVEL": "3"})
    spec = model if ":" in model else str(work / model)
    config = user_model.child_config(model=spec, workload=None, batch=2, budget_s=20.0,
                                      sys_path=[str(work / "code")],
                                      trust_model=bool(options.get("trust_model")),
                                      memory_limit=options.get("memory_limit"))
    config.update(QUICK)
    if "inflate_limit" in options:
        config["inflate_limit"] = options["inflate_limit"]
    return user_model.probe_model(str(tfenv.tf_python()), config, env=env, timeout=180.0)


@pytest.fixture(scope="module")
def runs(work):
    pool = ThreadPoolExecutor(max_workers=3)
    futures: dict[str, Future] = {name: pool.submit(_run, name, work) for name in CASES}
    yield futures
    pool.shutdown(wait=True)


def _facts(runs, name: str) -> ModelFacts:
    return runs[name].result()


def _kinds(facts: ModelFacts) -> list[str]:
    return [e.kind for e in facts.errors]


def _codes(facts: ModelFacts) -> set[str]:
    from snapshots import RuleModules, apple_silicon

    from tfdoctor.facts import typed
    from tfdoctor.facts.snapshot import Snapshot

    data = apple_silicon()
    data["model"] = facts.to_json()
    return {f.code for f in RuleModules("model_health").run(Snapshot.loads(typed.json_text(data)))}


def _marked(work: Path, name: str) -> bool:
    return (work / "marks" / name).exists()


@pytest.mark.parametrize("name", ["keras", "h5"])
def test_a_lambda_layer_does_not_run_without_trust(runs, work, name):
    facts = _facts(runs, name)
    assert not _marked(work, name), "code from the model file ran"
    assert _kinds(facts) == ["untrusted-code"], facts.errors
    assert "--trust-model" in facts.errors[0].message and not facts.model
    assert "model.untrusted-code" in _codes(facts)
    if name == "h5":  # refused by reading the model config, before Keras (Keras 2 would run it)
        assert "Lambda layer evil" in facts.errors[0].message


@pytest.mark.parametrize("name", ["keras-trusted", "h5-trusted"])
def test_a_lambda_layer_loads_with_trust(runs, work, name):
    facts = _facts(runs, name)
    assert "untrusted-code" not in _kinds(facts), facts.errors
    assert facts.model.get("layers"), facts.errors
    assert _marked(work, name)  # trusted: its code ran, as Keras runs it
    assert "model.untrusted-code" not in _codes(facts)


def test_a_savedmodel_is_refused_without_trust(runs, work):
    facts = _facts(runs, "savedmodel")
    assert not _marked(work, "savedmodel"), "the SavedModel's WriteFile ran"
    assert _kinds(facts) == ["untrusted-code"], facts.errors
    assert "SavedModel" in facts.errors[0].message
    assert "model.untrusted-code" in _codes(facts)


def test_a_zip_bomb_is_refused_by_its_declared_sizes(runs, work):
    facts = _facts(runs, "bomb")
    assert _kinds(facts) == ["archive-too-big"], facts.errors
    assert "not inflated" in facts.errors[0].message and "zip bomb" in facts.errors[0].message
    assert "model.too-big" in _codes(facts)
    facts = _facts(runs, "large")
    assert _kinds(facts) == ["archive-too-big"], facts.errors
    assert "more than the 67108864 bytes allowed" in facts.errors[0].message


def test_the_model_child_has_a_memory_limit(runs):
    facts = _facts(runs, "greedy")
    # 3 GiB asked under a 2 GiB limit: MemoryError, a finding (without the limit it succeeded
    # and the function returned a bytearray, or the machine swapped).
    assert _kinds(facts) == ["too-big"], facts.errors
    assert "MemoryError" in facts.errors[0].message


def test_the_cli_refuses_and_names_the_flag(work, tfdoctor):
    home = work / "homes" / "cli"
    home.mkdir()
    env = tfenv.tf_subprocess_env(userbase=home / "userbase",
                                  extra={"HOME": str(home), "TF_CPP_MIN_LOG_LEVEL": "3"})
    env.pop("NO_COLOR", None)
    run = tfdoctor("probe", "--model", str(work / "models" / "keras.keras"), "--python",
                   str(tfenv.tf_python()), "--budget", "5", "--json", env=env, timeout=300)
    assert run.code in (0, 1), run.stderr[-2000:]
    report = json.loads(run.stdout)
    (finding,) = [f for f in report["findings"] if f["code"] == "model.untrusted-code"]
    assert "--trust-model" in json.dumps(finding)
    assert not _marked(work, "keras")
