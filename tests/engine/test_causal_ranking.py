"""Causes outrank symptoms (issue 19 class 1), on real error texts from public threads: a finding
that names the cause of another explains it, and the error the user brought outranks background
findings of the same severity that do not explain it. The whole engine runs, as `check --log`."""

from __future__ import annotations

import jsonschema
from log_cases import LOGS, SOURCES, WHO
from snapshots import _pkg, apple_silicon, snap, tf_219_metal_120

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.logtext import keep
from tfdoctor.model import Severity
from tfdoctor.render.schemas import SCHEMAS


def report(data: dict, log: str):
    assert log in SOURCES, f"{log} has no public source"
    s = snap(data)
    s.log = keep.read(LOGS / log, identity=WHO)
    return diagnose(s)


def codes_of(findings) -> list[str]:
    return [f.code for f in findings]


def rosetta() -> dict:
    """An M1 running an x86_64-only Python (Intel Homebrew under /usr/local) under Rosetta 2."""
    return apple_silicon(
        host={"cpu_brand": "VirtualApple @ 2.50GHz processor"},
        python={"version": "3.11.9", "process_arch": "x86_64", "translated": True,
                "executable": "/usr/local/bin/python3.11", "prefix": "/usr/local", "base_prefix": "/usr/local",
                "binary": {"path": "/usr/local/bin/python3.11", "format": "mach-o", "archs": ["x86_64"]}},
        packages=[])


def test_rosetta_explains_pips_refusal():
    # bmaltais/kohya_ss#563: "No matching distribution found for tensorflow-macos==2.12.0"
    r = report(rosetta(), "pip_tensorflow_macos_2120_none.txt")
    diagnosis = r.diagnosis()
    assert diagnosis is not None and diagnosis.code.startswith("arch.")
    pip = next(f for f in r.findings if f.code == "log.pip-no-matching-distribution")
    assert diagnosis in r.explained_by(pip)


def test_a_missing_metal_plugin_explains_an_empty_gpu_list_and_both_give_one_fix():
    # sun1638650145/Libraries-and-Extensions-for-TensorFlow-for-Apple-Silicon#20: `[]` printed
    tf_only = [p for p in tf_219_metal_120() if p["name"] != "tensorflow-metal"]
    r = report(apple_silicon(packages=tf_only), "gpu_list_empty_tf215.txt")
    assert r.diagnosis().code == "compat.no-metal"
    listed = next(f for f in r.findings if f.code == "log.no-gpu-listed")
    assert codes_of(r.explained_by(listed)) == ["compat.no-metal"]
    assert listed.remediation.commands == r.diagnosis().remediation.commands
    assert any("tensorflow-metal==1.2.0" in c for c in listed.remediation.commands)


def test_the_users_error_outranks_a_background_pin_violation_of_the_same_severity():
    # numpy 2.2.0 breaks tensorflow 2.19.1's pin numpy<2.2.0 (a background error); the user
    # brought Keras 3's error for the `lr` argument (philipperemy/keras-tcn#284)
    packages = [p for p in tf_219_metal_120() if p["name"] != "numpy"]
    packages.append(_pkg("numpy", "2.2.0", ["cp311-cp311-macosx_14_0_arm64"]))
    r = report(apple_silicon(packages=packages), "keras3_lr_argument.txt")
    background = [f for f in r.findings if f.code.startswith("compat.") and f.severity == r.diagnosis().severity]
    assert background, codes_of(r.findings)
    assert r.diagnosis().code == "log.keras3-api"


def test_the_report_names_the_diagnosis_of_the_pasted_text_apart_from_the_environments():
    # a NumPy 2 message (CameronBodine/PINGMapper#123) where NumPy 1.26.4 is installed: the text's
    # own diagnosis is information here (another environment printed it), yet scripts must find it
    packages = [p for p in tf_219_metal_120() if p["name"] != "numpy"]
    packages.append(_pkg("numpy", "1.26.4", ["cp311-cp311-macosx_14_0_arm64"]))
    r = report(apple_silicon(packages=packages), "numpy2_tensorflow_import.txt")
    doc = r.to_dict(Severity.WARNING)
    jsonschema.validate(doc, SCHEMAS["report"]())
    assert doc["diagnosis"] is None or doc["diagnosis"]["code"] != "log.numpy-abi"
    assert doc["log_diagnosis"] == "log.numpy-abi"
    marked = [f["code"] for f in doc["findings"] if f["explains_log"]]
    assert marked == ["log.numpy-abi"]
    assert next(f for f in doc["findings"] if f["code"] == "log.numpy-abi")["severity"] == "info"


def test_the_finding_that_explains_the_log_is_its_diagnosis_not_the_log_finding():
    # Rosetta explains pip's refusal (bmaltais/kohya_ss#563): the text's diagnosis is the cause
    r = report(rosetta(), "pip_tensorflow_macos_2120_none.txt")
    doc = r.to_dict(Severity.WARNING)
    assert doc["log_diagnosis"] == r.diagnosis().code and doc["log_diagnosis"].startswith("arch.")
    assert doc["diagnosis"]["explains_log"] is True


def test_a_report_without_a_log_has_no_log_diagnosis():
    doc = diagnose(snap(apple_silicon())).to_dict(Severity.WARNING)
    assert doc["log_diagnosis"] is None and not any(f["explains_log"] for f in doc["findings"])


def test_every_template_cut_after_its_head_is_diagnosed_without_a_rule_failing(tmp_path):
    # a match without the fields the cut took (issue 26 class 5): every rule still judges it
    import re

    from tfdoctor.logtext import nvidia
    from tfdoctor.logtext.catalog import SIGNATURES

    for signature in SIGNATURES:
        head = re.compile(signature.head) if signature.head else signature.regex
        cut = signature.example[:head.search(signature.example).end()]
        (tmp_path / "cut.txt").write_text(cut, encoding="utf-8")
        s = snap(apple_silicon())
        s.log = keep.read(tmp_path / "cut.txt", identity=WHO)
        codes = codes_of(diagnose(s).findings)
        assert "check.crashed" not in codes, (signature.variant, codes)
        # an NVIDIA library not opened (or the CUDA runtime, by 2.13+'s stub) is what every machine
        # without the stack prints: a detail of log.gpu-libraries beside its messages, no finding
        # alone, unless the text says a GPU is wanted ("TensorFlow doesn't use my GPU because ...")
        alone_harmless = signature.variant in nvidia.NOT_OPENED_ANYWHERE and not keep.GPU_WANTED_WORDS.search(cut)
        assert any(c.startswith("log.") for c in codes) != alone_harmless, (
            signature.variant, codes)


def test_keras_registered_twice_is_diagnosed_as_the_pin_it_breaks_or_named_where_keras_is_unknown():
    # drivendataorg/cloud-cover-runtime#14's text on an M1 with tensorflow-macos 2.6.0 (its own
    # pin keras~=2.6, compat_matrix.json) and keras 2.7.0: the pin, observed, is the diagnosis
    arm = ["cp39-cp39-macosx_11_0_arm64"]
    tf = _pkg("tensorflow-macos", "2.6.0", arm, ["keras~=2.6"])
    metal = _pkg("tensorflow-metal", "0.2.0", arm)
    both = apple_silicon(python={"version": "3.9.13"},
                         packages=[tf, metal, _pkg("keras", "2.7.0", ["py2.py3-none-any"])])
    r = report(both, "keras_metric_registered_twice.txt")
    assert r.diagnosis().code == "compat.pin-violation" and r.log_diagnosis().code == "compat.pin-violation"
    # a report that states TensorFlow but no Keras: the log's own finding is the diagnosis
    stated = apple_silicon(python={"version": "3.9.13", "site_packages": []}, packages=[tf, metal],
                           unknown=["packages"])
    r = report(stated, "keras_metric_registered_twice.txt")
    assert r.diagnosis().code == "log.keras-registered-twice"
    assert "keras~=2.6.0" in " ".join(r.diagnosis().remediation.commands)


def test_pips_refusal_over_the_tensorflow_name_is_diagnosed_as_the_name():
    # tensorflow/models#10783: an M2 with tensorflow-macos 2.9.2 and tensorflow-metal 0.5.1
    arm = ["cp39-cp39-macosx_11_0_arm64"]
    data = apple_silicon(python={"version": "3.9.13"}, packages=[
        _pkg("tensorflow-macos", "2.9.2", arm), _pkg("tensorflow-metal", "0.5.1", arm)])
    r = report(data, "pip_conflict_tf_models_official.txt")
    assert r.diagnosis().code == "install.requires-tensorflow-name"
    assert r.log_diagnosis().code == "install.requires-tensorflow-name"
