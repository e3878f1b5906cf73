"""runtime.not-installed, runtime.plugin-load-failed, runtime.library-arch-mismatch,
runtime.numpy-abi, runtime.protobuf, runtime.op-not-registered and runtime.import-failed
(checks/runtime_import.py): why `import tensorflow` raised, on snapshots of real Mac situations.
Messages are real texts: tests/data/logs/ (each with its public source in SOURCES.json) or quoted
from the issue each test names; the shared runtime fixtures are in tests/rules/test_runtime.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, snap

from rules.test_runtime import METAL, PY, SITE, codes, import_error, mac
from tfdoctor.facts import typed
from tfdoctor.model import Severity

check = RuleModules("runtime_import", "runtime_crash", "runtime_devices")
LOGS = Path(__file__).parents[1] / "data" / "logs"


def runtime_findings(s):
    return check.run(s)


def real_text(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


def tf_218_metal_110() -> list:
    pkgs = [p for p in apple_silicon()["packages"] if p["name"] not in ("tensorflow", "tensorflow-metal")]
    return pkgs + [
        {"name": "tensorflow", "version": "2.18.0", "wheel_tags": ["cp311-cp311-macosx_12_0_arm64"]},
        {"name": "tensorflow-metal", "version": "1.1.0", "wheel_tags": ["cp311-cp311-macosx_12_0_arm64"]},
    ]


def test_metal_built_for_another_tensorflow_gets_the_pair_from_the_matrix():
    """tensorflow 2.18.0 + tensorflow-metal 1.1.0 (tensorflow/tensorflow#81987, #84167)."""
    message = (f"dlopen({METAL}, 0x0006): Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii\n"
               f"  Referenced from: <D1B2D5A6-1234-3A1B-9C1D-000000000000> {METAL}\n"
               f"  Expected in:     <8C3B0A1E-1234-3A1B-9C1D-000000000000> {SITE}/tensorflow/python/_pywrap_tensorflow_internal.so")
    findings = runtime_findings(mac(import_error(message), packages=tf_218_metal_110()))
    assert codes(findings) == ["runtime.plugin-load-failed"]
    f = findings[0]
    assert "libmetal_plugin.dylib" in f.title and "__ZN3tsl8internal10LogMessageC1EPKcii" in f.title
    assert f.evidence["tensorflow"] == "tensorflow 2.18.0" and f.evidence["tensorflow_metal"] == "1.1.0"
    assert f.evidence["pair_status"] == "known-broken"
    (command,) = f.remediation.commands
    assert command.startswith(f"{PY} -m pip install --force-reinstall -- ")
    assert "tensorflow==2.18.1" in command and "tensorflow-metal==1.2.0" in command
    assert "runtime.no-gpu" in f.explains


def test_old_dyld_message_without_uuid():
    """tensorflow/text#654: TF 2.5-era dyld text."""
    message = (f"dlopen({METAL}, 6): Symbol not found: _TF_AssignUpdateVariable\n"
               f"  Referenced from: {METAL}\n  Expected in: flat namespace\n")
    findings = runtime_findings(mac(import_error(message)))
    assert codes(findings) == ["runtime.plugin-load-failed"]
    assert findings[0].evidence["symbol"] == "_TF_AssignUpdateVariable"


def test_library_arch_mismatch_on_mac():
    lib = f"{SITE}/numpy/core/_multiarray_umath.cpython-311-darwin.so"
    message = (f"dlopen({lib}, 0x0002): tried: '{lib}' (mach-o file, but is an incompatible "
               "architecture (have 'x86_64', need 'arm64'))")
    findings = runtime_findings(mac(import_error(message, "ImportError")))
    assert codes(findings) == ["runtime.library-arch-mismatch"]
    f = findings[0]
    assert f.title.startswith("_multiarray_umath.cpython-311-darwin.so is built for x86_64")
    assert "--force-reinstall" in f.remediation.commands[0] and "numpy==2.1.3" in f.remediation.commands[0]


def test_numpy_abort_is_numpy_not_a_generic_crash():
    """Old TensorFlow + older NumPy aborts in bfloat16.cc after numpy's RuntimeError
    (tensorflow/tensorflow#23346)."""
    from tfdoctor.logtext.stderr import parse

    stderr = ("RuntimeError: module compiled against API version 0xc but this version of numpy is 0xb\n"
              "ImportError: numpy.core.multiarray failed to import\n"
              "2018-10-29 17:42:25.858222: F tensorflow/python/lib/core/bfloat16.cc:675] Check failed: "
              "PyBfloat16_Type.tp_base != nullptr\n")
    rt = {"outcome": "signal", "signal": "SIGABRT", "stage": "importing",
          "log": typed.to_plain(parse(stderr)), "stderr_tail": stderr}
    findings = runtime_findings(snap(linux_cpu(runtime=rt)))
    assert codes(findings) == ["runtime.numpy-abi"]
    assert "SIGABRT" in findings[0].title


def test_tensorflow_not_installed_is_only_info():
    rt = import_error("No module named 'tensorflow'", "ModuleNotFoundError")
    s = snap(linux_cpu(runtime=rt, packages=[]))
    findings = runtime_findings(s)
    assert codes(findings) == ["runtime.not-installed"]
    assert findings[0].severity is Severity.INFO


def test_explain_prints_a_runtime_code():
    proc = subprocess.run([sys.executable, "-m", "tfdoctor", "explain", "runtime.plugin-load-failed"],
                          capture_output=True, text=True, env={**__import__("os").environ, "NO_COLOR": "1"})
    assert proc.returncode == 0
    assert "Symbol not found" in proc.stdout and "tensorflow-plugins" in proc.stdout


def test_numpy_pin_is_read_for_this_python():
    """tensorflow 2.16/2.17 pin numpy by Python version (reference records: '>=1.23.5' below
    3.12, '>=1.26.0' from 3.12): the fix must use the line for the diagnosed interpreter."""
    from snapshots import _pkg, apple_silicon, snap

    from tfdoctor.advice.installs import tf_requirement
    from tfdoctor.derived import derive

    def _requires(s, name):
        return tf_requirement(s, derive(s), name)

    tf = _pkg("tensorflow", "2.16.2", ["cp312-cp312-macosx_12_0_arm64"],
              ['numpy<2.0.0,>=1.23.5; python_version <= "3.11"', 'numpy<2.0.0,>=1.26.0; python_version >= "3.12"'])
    s312 = snap(apple_silicon(packages=[tf], python={"version": "3.12.4"}))
    s311 = snap(apple_silicon(packages=[tf], python={"version": "3.11.9"}))
    assert _requires(s312, "numpy") == "<2.0.0,>=1.26.0"
    assert _requires(s311, "numpy") == "<2.0.0,>=1.23.5"


def tf_macos_29(version: str, requires_protobuf: str) -> list:
    """tensorflow-macos 2.9.x with protobuf 4.21.0, which pip kept (tensorflow/tensorflow#56266)."""
    pkgs = [p for p in apple_silicon()["packages"] if p["name"] not in ("tensorflow", "tensorflow-metal", "protobuf")]
    return pkgs + [_pkg("tensorflow-macos", version, ["cp39-cp39-macosx_12_0_arm64"], [requires_protobuf]),
                   _pkg("protobuf", "4.21.0", ["cp37-abi3-macosx_10_9_universal2"])]


def test_protobuf_too_new_without_an_upper_pin_gets_the_version_protobuf_names():
    """'Descriptors cannot be created directly' (protobuf_descriptors.txt, maudzung/SFA3D#82);
    tensorflow-macos 2.9.0 requires only protobuf>=3.9.2 (reference records), so the pin cannot
    help and the fix is the 3.20.x the message itself recommends."""
    rt = import_error(real_text("protobuf_descriptors.txt"), "TypeError")
    (f,) = runtime_findings(mac(rt, packages=tf_macos_29("2.9.0", "protobuf>=3.9.2")))
    assert f.code == "runtime.protobuf" and f.severity is Severity.ERROR
    assert f.title.startswith("protobuf 4.21.0 is too new for TensorFlow 2.9.0")
    assert f.evidence["protobuf_allowed_by_tensorflow"] == ">=3.9.2"
    assert f.remediation.commands == (f"{PY} -m pip install -- protobuf==3.20.3",)


def test_protobuf_too_new_with_an_upper_pin_gets_tensorflows_own_range():
    """tensorflow-macos 2.9.2 pins protobuf<3.20,>=3.9.2 (reference records): that range is the fix."""
    rt = import_error(real_text("protobuf_descriptors.txt"), "TypeError")
    (f,) = runtime_findings(mac(rt, packages=tf_macos_29("2.9.2", "protobuf<3.20,>=3.9.2")))
    assert f.code == "runtime.protobuf"
    assert f.remediation.commands == (f"{PY} -m pip install -- 'protobuf<3.20,>=3.9.2'",)


def test_op_not_registered_names_the_op_and_the_add_ons():
    """'Op type not registered 'SentencepieceOp' in binary' (op_not_registered_sentencepiece.txt,
    tensorflow/tensorflow#38597): the op comes from tensorflow-text, here one built for 2.18."""
    packages = apple_silicon()["packages"] + [_pkg("tensorflow-text", "2.18.1", ["cp311-cp311-macosx_11_0_arm64"])]
    rt = import_error(real_text("op_not_registered_sentencepiece.txt"))
    (f,) = runtime_findings(mac(rt, packages=packages))
    assert f.code == "runtime.op-not-registered" and f.severity is Severity.ERROR
    assert "'SentencepieceOp'" in f.title
    assert f.evidence["op"] == "SentencepieceOp" and f.evidence["addons"] == {"tensorflow-text": "2.18.1"}
    assert f.remediation.commands == (f"{PY} -m pip install --force-reinstall --no-deps -- tensorflow==2.19.1",
                                      f"{PY} -m pip check")


def test_an_exception_no_specific_code_explains_is_import_failed():
    """`ImportError: bad magic number in 'wrapt'` on `import tensorflow` (onnx/onnx-tensorflow#852):
    a broken dependency, none of the plugin, architecture, NumPy, protobuf or op causes."""
    message = "bad magic number in 'wrapt': b'\\x03\\xf3\\r\\n'"
    rt = import_error(message, "ImportError")
    (f,) = runtime_findings(mac(rt))
    assert f.code == "runtime.import-failed"
    assert f.title == f"import tensorflow fails: ImportError: {message}"
    assert f.remediation.commands == (f"{PY} -m pip install --force-reinstall -- tensorflow==2.19.1",
                                      f"{PY} -m pip check")
    assert "runtime.no-gpu" in f.explains


def test_this_module_never_speaks_for_a_child_that_died():
    """A SIGSEGV while loading the plugin is checks/runtime_crash.py's; this module says nothing."""
    rt = {"outcome": "signal", "signal": "SIGSEGV", "stage": "importing", "python": PY, "returncode": -11,
          "loading_plugin": METAL}
    assert RuleModules("runtime_import").run(mac(rt)) == []
    assert codes(runtime_findings(mac(rt))) == ["runtime.import-crashed"]
