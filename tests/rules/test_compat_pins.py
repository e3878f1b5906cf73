"""The dependencies check (NumPy ABI, TensorFlow's pins, Keras 3) on snapshots of real situations.

Requires-Dist below are verbatim from the METADATA of the wheels named, as recorded in
tests/data/reference/tf_wheels_2026-11.json.gz (records[*].requires_dist, extras dropped); tf-keras's
from tf_keras-2.19.0-py3-none-any.whl and tf_keras-2.17.0-py3-none-any.whl (`pip download
--no-deps`): 'Requires-Dist: tensorflow<2.20,>=2.19' and 'Requires-Dist: tensorflow <2.18,>=2.17'.
TensorFlow's TF_USE_LEGACY_KERAS rule is tensorflow/python/util/lazy_loader.py of tensorflow
2.19.1: `os.environ.get("TF_USE_LEGACY_KERAS", None) in ("true", "True", "1")`, then
`import tf_keras`, else Keras 3. The NumPy-2 banner is mac_facts abi.numpy2_message.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, merge, snap

from tfdoctor.knowledge.matrix import default_path, load_matrix, parse_matrix
from tfdoctor.model import Severity

dependencies = RuleModules("compat_pins")
numpy2_first_minor = dependencies.modules[0].numpy2_first_minor

PIP = "/Users/ada/venvs/tf/bin/python -m pip"
PROTOBUF_4 = "!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5"

# tensorflow-2.17.1-cp312-cp312-macosx_12_0_arm64.whl
TF_2_17_1 = [
    "absl-py >=1.0.0", "flatbuffers >=24.3.25", "h5py >=3.10.0", "ml-dtypes <0.5.0,>=0.3.1",
    f"protobuf {PROTOBUF_4},<5.0.0dev,>=3.20.3", "wrapt >=1.11.0", "grpcio <2.0,>=1.24.3",
    "tensorboard <2.18,>=2.17", "keras >=3.2.0",
    'tensorflow-io-gcs-filesystem >=0.23.1 ; python_version < "3.12"',
    'numpy <2.0.0,>=1.23.5 ; python_version <= "3.11"',
    'numpy <2.0.0,>=1.26.0 ; python_version >= "3.12"',
]
# tensorflow-2.18.0-cp312-cp312-macosx_12_0_arm64.whl
TF_2_18_0 = [
    f"protobuf {PROTOBUF_4},<6.0.0dev,>=3.20.3", "tensorboard <2.19,>=2.18", "keras >=3.5.0",
    "numpy <2.1.0,>=1.26.0", "h5py >=3.11.0", "ml-dtypes <0.5.0,>=0.4.0",
    'tensorflow-io-gcs-filesystem >=0.23.1 ; python_version < "3.12"',
]
# tensorflow-2.19.1-cp312-cp312-macosx_12_0_arm64.whl
TF_2_19_1 = [
    f"protobuf {PROTOBUF_4},<6.0.0dev,>=3.20.3", "tensorboard ~=2.19.0", "keras >=3.5.0",
    "numpy <2.2.0,>=1.26.0", "h5py >=3.11.0", "ml-dtypes <1.0.0,>=0.5.1",
    'tensorflow-io-gcs-filesystem >=0.23.1 ; python_version < "3.12"',
]
# tensorflow_macos-2.14.0-cp311-cp311-macosx_12_0_arm64.whl and the thin tensorflow 2.14.0 onto it
TF_MACOS_2_14_0 = [
    "h5py (>=2.9.0)", "ml-dtypes (==0.2.0)", "numpy (>=1.23.5)",
    f"protobuf ({PROTOBUF_4},<5.0.0dev,>=3.20.3)", "tensorboard (<2.15,>=2.14)",
    "tensorflow-estimator (<2.15,>=2.14.0)", "keras (<2.15,>=2.14.0)",
]
TF_2_14_0_THIN = ['tensorflow-macos (==2.14.0) ; platform_system == "Darwin" and platform_machine == "arm64"',
                  'tensorflow-intel (==2.14.0) ; platform_system == "Windows"']
TF_KERAS_2_19_0 = ["tensorflow<2.20,>=2.19"]
TF_KERAS_2_17_0 = ["tensorflow <2.18,>=2.17"]


def pkg(name: str, version: str, requires: list[str] = (), python: str = "3.11") -> dict[str, Any]:
    return _pkg(name, version, [f"cp{python.replace('.', '')}-cp{python.replace('.', '')}-macosx_12_0_arm64"],
                list(requires))


def mac(tf: str, requires: list[str], *others: dict[str, Any], python: str = "3.11",
        env: dict[str, str] | None = None) -> dict[str, Any]:
    packages = [pkg("tensorflow", tf, requires, python), pkg("tensorflow-metal", "1.2.0", python=python),
                *others]
    return merge(apple_silicon(packages=packages, env=env or {}), {"python": {"version": f"{python}.4"}})


def run(data: dict[str, Any]):
    return dependencies.run(snap(data))


def codes(data: dict[str, Any]) -> list[str]:
    return [f.code for f in run(data)]


def one(data: dict[str, Any]):
    findings = run(data)
    assert len(findings) == 1, [(f.code, f.title) for f in findings]
    return findings[0]


# ---------------------------------------------------------------------------------------------
# healthy


def test_m_series_healthy_is_ok():
    f = one(apple_silicon())
    assert f.code == "compat.pins-ok" and f.severity is Severity.OK
    assert f.title == "tensorflow 2.19.1's pins hold: numpy 2.1.3, keras 3.10.0; tf.keras is Keras 3.10.0"


def test_linux_healthy_uses_the_matrix_pins_when_metadata_is_missing():
    """linux_cpu() records tensorflow-cpu 2.19.1 without Requires-Dist: the matrix's pins for
    2.19.1 stand in, and numpy 2.1.3 is inside <2.2.0."""
    f = one(linux_cpu())
    assert f.code == "compat.pins-ok" and "numpy 2.1.3" in f.title
    assert f.evidence["pins_source"].startswith("compat_matrix.json pins of TensorFlow 2.19.1")


def test_no_tensorflow_means_nothing_to_check():
    assert run(linux_cpu(packages=[])) == []


# ---------------------------------------------------------------------------------------------
# NumPy ABI


def test_numpy_2_with_tensorflow_2_17_is_an_abi_error():
    f = one(mac("2.17.1", TF_2_17_1, pkg("numpy", "2.1.3")))
    assert f.code == "compat.numpy-abi" and f.severity is Severity.ERROR
    assert f.title == "numpy 2.1.3 with tensorflow 2.17.1, which is built against NumPy 1.x"
    assert f.evidence["pin_forbids_it"] is True and f.evidence["numpy_pin"] == "<2.0.0,>=1.23.5"
    assert f.remediation.commands == (f"{PIP} install -- 'numpy<2.0.0,>=1.23.5'",)
    assert "runtime.numpy-abi" in f.explains


def test_numpy_pin_is_evaluated_for_the_diagnosed_python():
    """2.17.1's numpy pin has a python_version marker: >=1.26.0 on 3.12, >=1.23.5 up to 3.11."""
    old_numpy = pkg("numpy", "1.25.2")
    assert codes(mac("2.17.1", TF_2_17_1, old_numpy, python="3.11")) == ["compat.pins-ok"]
    f = one(mac("2.17.1", TF_2_17_1, old_numpy, python="3.12"))
    assert f.code == "compat.pin-violation"
    assert f.title == "numpy 1.25.2 is outside tensorflow 2.17.1's pin numpy<2.0.0,>=1.26.0"
    assert "Python 3.12" in f.evidence["pins_source"]


def test_numpy_2_with_uncapped_tensorflow_macos_2_14_0():
    """tensorflow-macos 2.14.0 says only numpy (>=1.23.5): pip allows NumPy 2 (known_quirks
    numpy-not-capped), but the build is NumPy 1.x."""
    data = apple_silicon(packages=[pkg("tensorflow", "2.14.0", TF_2_14_0_THIN),
                                   pkg("tensorflow-macos", "2.14.0", TF_MACOS_2_14_0),
                                   pkg("numpy", "2.1.3"), _pkg("keras", "2.14.0", ["py3-none-any"])])
    f = one(data)
    assert f.code == "compat.numpy-abi"
    assert f.evidence["pin_forbids_it"] is False and "does not forbid it" in f.title
    assert f.remediation.commands == (f"{PIP} install -- 'numpy<2,>=1.23.5'",)
    assert "numpy-not-capped" in f.evidence["numpy2_source"]


def test_numpy_2_is_fine_from_tensorflow_2_18_within_the_pin():
    assert codes(mac("2.18.1", TF_2_18_0, pkg("numpy", "2.0.2"))) == ["compat.pins-ok"]


def test_numpy_too_new_for_tensorflow_2_18_is_a_pin_violation_not_abi():
    """2.18.0 allows numpy <2.1.0: 2.1.3 breaks the pin, though both are NumPy 2."""
    f = one(mac("2.18.0", TF_2_18_0, pkg("numpy", "2.1.3")))
    assert f.code == "compat.pin-violation" and f.severity is Severity.ERROR
    assert f.remediation.commands == (f"{PIP} install -- 'numpy<2.1.0,>=1.26.0'",)
    assert "runtime.numpy-abi" in f.explains


def test_first_numpy2_minor_is_derived_from_the_matrix():
    m = load_matrix()
    assert numpy2_first_minor(m)[0] == "2.18"
    raw = json.loads(default_path().read_text(encoding="utf-8"))
    changed = copy.deepcopy(raw)
    for release in changed["tensorflow"]["2.17"]["releases"].values():
        if release["pins_macos_arm64"].get("numpy"):
            release["pins_macos_arm64"]["numpy"] = ["numpy<2.1,>=1.26"]
    assert numpy2_first_minor(parse_matrix(changed))[0] == "2.17"


# ---------------------------------------------------------------------------------------------
# pins


def test_protobuf_and_ml_dtypes_outside_the_pins():
    data = mac("2.17.1", TF_2_17_1, pkg("numpy", "1.26.4"), pkg("protobuf", "5.28.3"),
               pkg("ml-dtypes", "0.5.1"), _pkg("keras", "3.6.0", ["py3-none-any"]))
    f = one(data)
    assert f.code == "compat.pin-violation" and f.severity is Severity.ERROR
    assert {v["name"] for v in f.evidence["violations"]} == {"protobuf", "ml-dtypes"}
    assert f.remediation.commands == (
        f"{PIP} install -- 'ml-dtypes<0.5.0,>=0.3.1' 'protobuf{PROTOBUF_4},<5.0.0dev,>=3.20.3'",)
    assert "runtime.protobuf" in f.explains


def test_other_dependency_outside_its_pin_is_a_warning():
    """tensorflow 2.19.1 wants tensorboard ~=2.19.0."""
    f = one(mac("2.19.1", TF_2_19_1, pkg("numpy", "2.1.3"), _pkg("tensorboard", "2.18.0", ["py3-none-any"])))
    assert f.code == "compat.pin-violation" and f.severity is Severity.WARNING
    assert f.remediation.commands == (f"{PIP} install -- 'tensorboard~=2.19.0'",)


def test_keras_3_with_tensorflow_2_15_is_keras_3_where_keras_2_belongs():
    """Before 2.16 tf.keras is the keras package, pinned to TensorFlow's minor (the matrix pins
    tensorflow 2.15.1 to keras <2.16,>=2.15.0, tensorflow-2.15.1-cp311-cp311-macosx_12_0_arm64.whl):
    a Keras 3 there is compat.keras3, the cause of Keras 2 code failing, not a generic pin violation;
    another Keras 2 minor stays a pin violation."""
    data = apple_silicon(packages=[pkg("tensorflow", "2.15.1"), _pkg("keras", "3.3.3", ["py3-none-any"]),
                                   pkg("numpy", "1.26.4")])
    f = one(data)
    assert f.code == "compat.keras3" and f.severity is Severity.ERROR
    assert "Keras 3.3.3 is installed, but tensorflow 2.15.1 expects Keras 2" in f.title
    assert "log.keras3-api" in f.explains and f.remediation.commands[-1].endswith("'keras~=2.15.0'")
    other = apple_silicon(packages=[pkg("tensorflow", "2.15.1"), _pkg("keras", "2.14.0", ["py3-none-any"]),
                                    pkg("numpy", "1.26.4")])
    g = one(other)
    assert g.code == "compat.pin-violation" and g.title == \
        "keras 2.14.0 is outside tensorflow 2.15.1's pin keras<2.16,>=2.15.0"
    assert "compat_matrix.json" in g.evidence["pins_source"]


def test_linux_numpy_too_new_from_matrix_pins():
    data = linux_cpu(packages=[_pkg("tensorflow-cpu", "2.19.1", ["cp311-cp311-manylinux_2_17_x86_64"]),
                               _pkg("numpy", "2.3.0", ["cp311-cp311-manylinux_2_17_x86_64"])])
    f = one(data)
    assert f.code == "compat.pin-violation"
    assert f.remediation.commands == ("/usr/bin/python3 -m pip install -- 'numpy<2.2.0,>=1.26.0'",)


# ---------------------------------------------------------------------------------------------
# Keras 3


KERAS = _pkg("keras", "3.10.0", ["py3-none-any"])
NUMPY = pkg("numpy", "2.1.3")


def keras_case(*extra: dict[str, Any], env: dict[str, str] | None = None):
    return mac("2.19.1", TF_2_19_1, NUMPY, KERAS, *extra, env=env)


def test_tf_keras_without_the_variable_is_a_warning():
    f = one(keras_case(_pkg("tf-keras", "2.19.0", ["py3-none-any"], TF_KERAS_2_19_0)))
    assert f.code == "compat.keras3" and f.severity is Severity.WARNING
    assert f.title == "tf-keras 2.19.0 is installed but TF_USE_LEGACY_KERAS is not set: tf.keras is Keras 3.10.0"
    assert f.remediation.commands == (
        "export TF_USE_LEGACY_KERAS=1", "echo 'export TF_USE_LEGACY_KERAS=1' >> /Users/ada/venvs/tf/bin/activate")


def test_a_report_that_does_not_state_the_variable_is_not_told_to_set_it():
    """A snapshot built from a report knows no environment variables: tf-keras installed with
    TF_USE_LEGACY_KERAS unknown is no warning (keras-team/keras-tuner#1039 set it in code)."""
    data = keras_case(_pkg("tf-keras", "2.19.0", ["py3-none-any"], TF_KERAS_2_19_0))
    data["unknown"] = ["environment"]
    assert not [f for f in run(data) if f.code == "compat.keras3"]
    f = one(merge(data, {"unknown": ["environment"], "env": {"TF_USE_LEGACY_KERAS": "0x"}}))
    assert f.code == "compat.keras3"  # a value stated is read


def test_variable_without_tf_keras_is_an_error():
    f = one(keras_case(env={"TF_USE_LEGACY_KERAS": "1"}))
    assert f.code == "compat.keras3" and f.severity is Severity.ERROR
    assert f.remediation.commands == (f"{PIP} install -- 'tf-keras~=2.19.0'",)


@pytest.mark.parametrize("value", ["1", "true", "True"])
def test_tf_keras_with_an_honoured_value_is_ok(value):
    f = one(keras_case(_pkg("tf-keras", "2.19.0", ["py3-none-any"], TF_KERAS_2_19_0),
                       env={"TF_USE_LEGACY_KERAS": value}))
    assert f.code == "compat.pins-ok" and f"Keras 2 through tf-keras 2.19.0 (TF_USE_LEGACY_KERAS={value})" in f.title


def test_a_value_tensorflow_does_not_honour():
    f = one(keras_case(_pkg("tf-keras", "2.19.0", ["py3-none-any"], TF_KERAS_2_19_0),
                       env={"TF_USE_LEGACY_KERAS": "yes"}))
    assert f.code == "compat.keras3" and "TF_USE_LEGACY_KERAS=yes is not a value TensorFlow honours" in f.title


def test_deliberately_off_keeps_keras_3_quietly():
    f = one(keras_case(_pkg("tf-keras", "2.19.0", ["py3-none-any"], TF_KERAS_2_19_0),
                       env={"TF_USE_LEGACY_KERAS": "0"}))
    assert f.code == "compat.pins-ok" and "tf.keras is Keras 3.10.0" in f.title


def test_tf_keras_of_another_minor_is_an_error_when_used():
    """tf-keras 2.17.0 requires tensorflow <2.18,>=2.17; TensorFlow is 2.19.1."""
    f = one(keras_case(_pkg("tf-keras", "2.17.0", ["py3-none-any"], TF_KERAS_2_17_0),
                       env={"TF_USE_LEGACY_KERAS": "1"}))
    assert f.code == "compat.keras3" and f.severity is Severity.ERROR
    assert f.title == "tf-keras 2.17.0 does not fit tensorflow 2.19.1 (tensorflow<2.18,>=2.17)"
    assert f.remediation.commands == (f"{PIP} install -- 'tf-keras~=2.19.0'",)


def test_tf_keras_of_another_minor_without_the_variable():
    f = one(keras_case(_pkg("tf-keras", "2.17.0", ["py3-none-any"], TF_KERAS_2_17_0)))
    assert f.severity is Severity.WARNING
    assert f.remediation.commands[0] == f"{PIP} install -- 'tf-keras~=2.19.0'"


def test_a_package_that_requires_tf_keras_expects_keras_2():
    hub = _pkg("tensorflow-hub", "0.16.1", ["py3-none-any"], ["numpy>=1.12.0", "protobuf>=3.19.6", "tf-keras>=2.14.1"])
    f = one(keras_case(hub))
    assert f.code == "compat.keras3" and f.title.startswith("tensorflow-hub 0.16.1 expects Keras 2")
    assert f.evidence["expects_keras2"] == [{"package": "tensorflow-hub 0.16.1", "requires": "tf-keras>=2.14.1"}]


@pytest.mark.parametrize("name", ["keras3_transformers_tf_keras.txt", "keras3_requires_tf_keras.txt"])
def test_a_programs_own_keras_check_in_a_report_is_the_environments_keras(name):
    """transformers' "Your currently installed version of Keras is Keras 3, but this is not yet
    supported" and deepface's "You have tensorflow 2.20.0 and this requires tf-keras package" are a
    program reading the environment: Keras 3 where it needs Keras 2, which compat.keras3 names
    (explaining log.keras3-api) though the report states no TensorFlow; the fix pins tf-keras to
    TensorFlow's minor where it is known (an unpinned one replaces TensorFlow). Where the report
    lists a Keras 2 or a tf-keras, the text came from another environment: not this finding."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    def report(packages: list[dict[str, Any]]):
        s = snap(linux_cpu(packages=packages, python={"site_packages": []}))
        s.unknown = ["packages", "plugins", "environment"]
        s.log = keep.read(LOGS / name, identity=WHO)
        return diagnose(s)

    unstated = report([])
    f = unstated.diagnosis()
    assert f.code == "compat.keras3" and f.severity is Severity.ERROR
    assert "need Keras 2 (tf-keras), but this environment has Keras 3 and no tf-keras" in f.title
    assert "log.keras3-api" in {c.code for c in unstated.consequences(f)}
    assert "pip show tensorflow" in f.remediation.commands[0]
    stated = report([{"name": "tensorflow", "version": "2.17.1"}]).diagnosis()
    assert stated.code == "compat.keras3" and stated.remediation.commands[0].endswith("'tf-keras~=2.17.0'")
    for other in ({"name": "keras", "version": "2.15.0"}, {"name": "tf-keras", "version": "2.17.0"}):
        assert "compat.keras3" not in {x.code for x in report([other]).findings}, other


def test_keras_2_code_under_keras_3_stays_the_codes_own():
    """A removed Keras 2 API in the user's code (fit_generator) is the code's failure, not the
    environment's Keras: compat.keras3 does not take it from the text."""
    from log_cases import LOGS, WHO

    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.logtext import keep

    s = snap(linux_cpu(packages=[], python={"site_packages": []}))
    s.unknown = ["packages", "plugins", "environment"]
    s.log = keep.read(LOGS / "keras3_fit_generator.txt", identity=WHO)
    r = diagnose(s)
    assert r.diagnosis().code == "log.keras3-api"
    assert "compat.keras3" not in {f.code for f in r.findings}


def test_tensorflow_probability_expects_keras_2_whatever_its_metadata_says():
    """TFP supports Keras 2 only (tensorflow/probability#2006): 0.24.0 reaches it through tf-keras
    (its [tf] extra, so its METADATA requires nothing unconditionally), 0.23 and older fail at import
    under Keras 3. A report that lists TensorFlow 2.16.1 and TFP 0.23.0 and no keras: TensorFlow
    2.16+ requires Keras 3, so tf.keras is Keras 3; the fix moves TFP to 0.24+ with tf-keras of
    TensorFlow's minor. With tf-keras honoured there is nothing to say."""
    report = mac("2.16.1", [], _pkg("tensorflow-probability", "0.23.0", ["py2.py3-none-any"]))
    report["unknown"] = ["packages"]
    f = [f for f in run(report) if f.code == "compat.keras3"][0]
    assert f.title == ("tensorflow-probability 0.23.0 expects Keras 2, but tf.keras is Keras 3 (TensorFlow 2.16+ "
                       "requires it; the report lists no keras)")
    assert f.remediation.commands[0] == f"{PIP} install -- 'tf-keras~=2.16.0' 'tensorflow-probability>=0.24'"
    newer = one(keras_case(_pkg("tensorflow-probability", "0.25.0", ["py2.py3-none-any"])))
    assert newer.code == "compat.keras3" and newer.remediation.commands[0] == f"{PIP} install -- 'tf-keras~=2.19.0'"
    honoured = one(keras_case(_pkg("tensorflow-probability", "0.25.0", ["py2.py3-none-any"]),
                              _pkg("tf-keras", "2.19.0", ["py3-none-any"], TF_KERAS_2_19_0), env={"TF_USE_LEGACY_KERAS": "1"}))
    assert honoured.code == "compat.pins-ok"


def test_keras_variable_is_irrelevant_before_tensorflow_2_16():
    data = apple_silicon(packages=[pkg("tensorflow", "2.15.1"), _pkg("keras", "2.15.0", ["py3-none-any"]),
                                   pkg("numpy", "1.26.4")], env={"TF_USE_LEGACY_KERAS": "1"})
    assert codes(data) == ["compat.pins-ok"]


def test_pins_held_where_the_report_does_not_state_the_python():
    """A report names tensorflow 2.15.0 and keras 2.14.0 but not its Python: the matrix's keras pin
    of 2.15 (keras<2.16,>=2.15.0, the same for every Python: Requires-Dist of the tensorflow-macos
    2.15.0 wheels) is still held against the installed Keras; a pin that differs per Python is not.
    A Keras 3 there is compat.keras3, which needs no Python either."""
    data = {"schema_version": 1, "target": {"python": "python3", "ok": True},
            "host": {"system": "Darwin", "hw_arm64": True, "chip": "Apple M1"},
            "packages": [{"name": "tensorflow", "version": "2.15.0"}, {"name": "keras", "version": "2.14.0"}]}
    found = [f for f in run(data) if f.code == "compat.pin-violation"]
    assert found and found[0].evidence["violations"][0]["name"] == "keras"
    assert found[0].evidence["violations"][0]["required"] == "<2.16,>=2.15.0"
    data["packages"][1]["version"] = "3.0.0"
    assert [f.code for f in run(data) if f.severity >= Severity.WARNING] == ["compat.keras3"]


# tensorflow_macos-2.6.0 and -2.8.0 (cp39, macosx_11_0_arm64) Requires-Dist on keras, as recorded
# in compat_matrix.json pins_macos_arm64 (read from the wheels' METADATA)
TF_MACOS_2_6_0 = ["keras~=2.6", "numpy~=1.19.2"]
TF_MACOS_2_8_0 = ["keras<2.9,>=2.8.0rc0"]


def _with_keras_log(tf: str, requires: list[str], keras: str):
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    data = apple_silicon(python={"version": "3.9.13"}, packages=[
        pkg("tensorflow-macos", tf, requires, "3.9"), _pkg("keras", keras, ["py2.py3-none-any"])])
    s = snap(data)
    s.log = keep.read(LOGS / "keras_metric_registered_twice.txt", identity=WHO)
    return s


def test_keras_2_7_beside_tensorflow_2_6_is_a_pin_violation_of_tensorflow_2_6_s_own_keras():
    """TensorFlow 2.6.0's own pin keras~=2.6 admits keras 2.7, the release that broke it
    (tensorflow/tensorflow#52937; 2.6.2 added the upper bound): the keras pin is TensorFlow 2.6's
    own Keras, keras~=2.6.0, from the versions alone; with the log's 'Cannot register 2 metrics' the
    violation is observed and explains the log. keras 2.6.0 holds."""
    s = _with_keras_log("2.6.0", TF_MACOS_2_6_0, "2.7.0")
    alone = snap(apple_silicon(python={"version": "3.9.13"}, packages=[
        pkg("tensorflow-macos", "2.6.0", TF_MACOS_2_6_0, "3.9"), _pkg("keras", "2.7.0", ["py2.py3-none-any"])]))
    (read,) = [f for f in dependencies.run(alone) if f.code == "compat.pin-violation"]
    assert "keras~=2.6.0" in read.title and "2.6.2 closed 2.6.0's keras~=2.6" in read.evidence["pins_source"]
    own = snap(apple_silicon(python={"version": "3.9.13"}, packages=[
        pkg("tensorflow-macos", "2.6.0", TF_MACOS_2_6_0, "3.9"), _pkg("keras", "2.6.0", ["py2.py3-none-any"])]))
    assert "compat.pin-violation" not in [f.code for f in dependencies.run(own)]
    (f,) = [f for f in dependencies.run(s) if f.code == "compat.pin-violation"]
    assert f.severity is Severity.ERROR and "keras 2.7.0" in f.title and "keras~=2.6.0" in f.title
    assert "log.keras-registered-twice" in f.explains and "two Kerases" in f.evidence["pins_source"]
    assert f.remediation.commands == ("/Users/ada/venvs/tf/bin/python -m pip install -- 'keras~=2.6.0'",)


def test_a_keras_outside_the_published_pin_explains_the_logs_two_kerases():
    s = _with_keras_log("2.8.0", TF_MACOS_2_8_0, "2.9.0")
    (f,) = [f for f in dependencies.run(s) if f.code == "compat.pin-violation"]
    assert "log.keras-registered-twice" in f.explains and "keras<2.9,>=2.8.0rc0" in f.title


def test_pips_own_conflict_line_is_the_pin_and_the_installed_version_observed():
    """A report of the ML Compute fork (apple/tensorflow_macos#249) lists neither the fork's metadata
    nor grpcio, h5py, numpy: pip's lines after `pip install tensorflow-datasets` say both the pins
    and what is installed. Lines about another TensorFlow release are not this one's pins."""
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    def report(version: str):
        s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": {"system": "Darwin"},
                  "python": {"version": "3.8.10", "implementation": "cpython", "executable": "python3"},
                  "packages": [{"name": "tensorflow-macos", "version": version}], "unknown": ["packages"]})
        s.log = keep.read(LOGS / "pip_conflict_fork_pins.txt", identity=WHO)
        return [f for f in dependencies.run(s) if f.code == "compat.pin-violation"]

    (f,) = report("0.1a3")
    assert f.severity is Severity.ERROR and "log.pip-conflict" in f.explains
    assert {v["name"]: v["installed"] for v in f.evidence["violations"]} == {
        "grpcio": "1.37.1", "h5py": "3.2.1", "numpy": "1.20.2", "protobuf": "3.15.8", "tensorflow-estimator": "2.4.0"}
    assert "pip's own conflict lines" in f.evidence["pins_source"]
    # the fork's installer brought its own arm64 wheels of these pins: the way out is the plugin era
    assert f.remediation.text.startswith("pip cannot restore the fork's pins on Apple silicon")
    assert "Move to the plugin era" in f.remediation.text and "grpcio~=1.32.0" not in " ".join(f.remediation.commands)
    assert report("2.9.0") == []


def _reported_with_log(tf: str, log: str):
    """A report's snapshot that names a TensorFlow (from the matrix: no metadata) but no NumPy, with a
    real pasted text."""
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep

    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True},
              "host": {"system": "Linux"}, "python": {"version": "3.11", "implementation": "", "executable": ""},
              "packages": [{"name": "tensorflow", "version": tf}], "unknown": ["packages"]})
    s.log = keep.read(LOGS / log, identity=WHO)
    return s


def test_numpys_removal_error_proves_a_numpy_outside_an_old_tensorflows_pin():
    """NumPy raises "module 'numpy' has no attribute 'object'" from 1.24 on (its own __getattr__):
    where the report states TensorFlow 2.6.0 (numpy~=1.19.2) but not NumPy, the NumPy that ran is
    outside the pin, and that violation explains the log's finding. TensorFlow 2.14.0's uncapped
    numpy>=1.23.5 admits 1.24 or later: no verdict."""
    (f,) = [f for f in dependencies.run(_reported_with_log("2.6.0", "numpy_removed_alias_tensorflow.txt"))
            if f.code == "compat.pin-violation"]
    assert f.title == "numpy 1.24 or later is outside tensorflow 2.6.0's pin numpy~=1.19.2"
    assert f.evidence["violations"][0]["installed"] == ">=1.24" and "log.numpy-abi" in f.explains
    assert f.evidence["violations"][0]["installed_read_from_log_line"] == 4
    assert f.remediation.commands == ("python3 -m pip install -- 'numpy~=1.19.2'",)
    later = dependencies.run(_reported_with_log("2.14.0", "numpy_removed_alias_tensorflow.txt"))
    assert "compat.pin-violation" not in [f.code for f in later]


def test_numpys_2_0_removal_error_proves_numpy_2_under_a_tensorflow_built_for_numpy_1():
    """tensorflow/tensorboard#6874: "`np.string_` was removed in the NumPy 2.0 release": a NumPy 2,
    which TensorFlow 2.15 was not built for; from 2.18 TensorFlow is, and nothing is concluded."""
    (f,) = [f for f in dependencies.run(_reported_with_log("2.15.0", "numpy_removed_string_tensorboard.txt"))
            if f.code == "compat.numpy-abi"]
    assert f.title.startswith("numpy 2.0 or later with tensorflow 2.15.0, which is built against NumPy 1.x")
    assert f.evidence["numpy"] == ">=2.0" and "numpy_read_from_log_line" in f.evidence
    assert "compat.pin-violation" not in [f.code for f in dependencies.run(
        _reported_with_log("2.15.0", "numpy_removed_string_tensorboard.txt"))]
    assert not [f for f in dependencies.run(_reported_with_log("2.18.0", "numpy_removed_string_tensorboard.txt"))
                if f.severity >= Severity.WARNING]
