"""runtime.import-sigill, runtime.import-crashed, runtime.import-hang, runtime.no-result and
runtime.bad-output (checks/runtime_crash.py): how the child that imports TensorFlow died or failed
to answer, on snapshots of real situations (the issue each test names, or a scenario of
tests/scenarios/ with its sources) and on the parent's own classification of a child's result;
the shared runtime fixtures are in tests/rules/test_runtime.py."""

from __future__ import annotations

import json
from pathlib import Path

from snapshots import RuleModules, linux_cpu, snap

from rules.test_runtime import METAL, PY, SITE, child, codes, doc, mac
from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.runtime import facts_from_child

check = RuleModules("runtime_import", "runtime_crash", "runtime_devices")
SCENARIOS = Path(__file__).parents[1] / "scenarios"


def runtime_findings(s):
    return check.run(s)


def scenario(name: str) -> Snapshot:
    return Snapshot.from_dict(json.loads((SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))["snapshot"])


def test_rosetta_explains_the_sigill():
    """An x86_64 Python under Rosetta 2 (sysctl.proc_translated=1) dies with SIGILL importing
    an AVX build: arch.rosetta is the root cause, runtime.import-sigill its consequence."""
    rt = {"outcome": "signal", "signal": "SIGILL", "stage": "importing", "python": PY,
          "returncode": -4, "log": {"python_fatal": "Illegal instruction"}}
    s = mac(rt, python={"process_arch": "x86_64", "translated": True})
    sigill = runtime_findings(s)
    assert codes(sigill) == ["runtime.import-sigill"]
    assert any(c.startswith("arch -arm64") for c in sigill[0].remediation.commands)
    report = diagnose(s)
    findings = report.findings
    assert report.diagnosis().code.startswith("arch.")
    sig = next(f for f in findings if f.code == "runtime.import-sigill")
    assert "arch.rosetta" in [c.code for c in report.explained_by(sig)]


def test_a_crash_while_loading_a_plugin_names_the_plugin_being_loaded():
    """The runtime child records which plugin file TensorFlow was loading when it died (a
    plugin whose constructor kills the process): the headline names it, not every plugin."""
    other = f"{SITE}/tensorflow-plugins/libother.so"
    rt = {"outcome": "signal", "signal": "SIGSEGV", "stage": "importing", "python": PY, "returncode": -11,
          "loading_plugin": METAL,
          "plugins": [{"path": METAL, "source": "tensorflow-plugins", "exists": True},
                      {"path": other, "source": "tensorflow-plugins", "exists": True}]}
    (f,) = runtime_findings(mac(rt))
    assert f.code == "runtime.import-crashed"
    assert f.title.startswith("TensorFlow crashed with SIGSEGV while loading libmetal_plugin.dylib")


def test_no_usable_temporary_directory_for_the_child_is_said_so():
    rt = {"outcome": "temp-dir", "stage": "started", "python": PY,
          "message": "its temporary directory was removed while it ran"}
    (f,) = runtime_findings(mac(rt))
    assert f.code == "runtime.no-result" and "could not run" in f.title
    assert "export TMPDIR=~/tmp" in f.remediation.commands


def test_the_avx_guard_in_an_amd64_container_asks_for_an_arm64_image():
    """'The TensorFlow library was compiled to use AVX instructions, but these aren't available on
    your machine.' then SIGABRT, in an amd64 image on Apple silicon (scenario
    container_amd64_avx_guard: tensorflow/tensorflow#52972, docker/for-mac#6512)."""
    (f,) = [x for x in runtime_findings(scenario("container_amd64_avx_guard")) if x.code.startswith("runtime.")]
    assert f.code == "runtime.import-sigill" and "needs AVX" in f.title
    assert f.evidence["cpu_instructions_missing"] == ["AVX"]
    assert f.remediation.commands == ("docker run --platform linux/arm64 IMAGE",)


def test_a_fatal_check_names_its_line_and_the_fix_reproduces_the_crash():
    """'Check failed: bucket_limits_[i] > bucket_limits_[i - 1]' and SIGABRT under QEMU (scenario
    container_amd64_qemu_bucket_limits: docker/for-mac#5342): no plugin was loading, so the fix
    reinstalls TensorFlow and reproduces the crash with a Python stack."""
    s = scenario("container_amd64_qemu_bucket_limits")
    (f,) = [x for x in runtime_findings(s) if x.code.startswith("runtime.")]
    fatal = s.runtime.log.fatal[0]
    assert f.code == "runtime.import-crashed" and "bucket_limits_" in fatal
    assert f.title == f"TensorFlow crashed with SIGABRT while importing TensorFlow: {fatal}"
    python = s.python.executable
    assert f.remediation.commands[-1] == f'{python} -X faulthandler -c "import tensorflow"'
    assert "--force-reinstall" in f.remediation.commands[0]


def test_a_hang_names_the_stage_and_the_last_python_frame():
    """A GPU plugin whose device cannot be created hangs context initialisation (the simulated GPU
    reproduces it, tests/end_to_end/test_simgpu_doctor.py): the child was killed at the timeout."""
    facts = facts_from_child(PY, 60, child(doc("devices", False), returncode=None, timed_out=True))
    facts.log.python_stack = [f"{SITE}/tensorflow/python/eager/context.py:620 in ensure_initialized"]
    s = mac(typed.to_plain(facts))
    (f,) = runtime_findings(s)
    assert f.code == "runtime.import-hang"
    assert f.title == ("TensorFlow did not finish within 60 s: stuck running an op on each device "
                       f"(last Python frame: {SITE}/tensorflow/python/eager/context.py:620 in ensure_initialized)")
    assert f.remediation.commands[0] == f"tfdoctor check --python {PY} --timeout 300"


def test_a_child_that_exits_without_a_result_is_no_result():
    facts = facts_from_child(PY, 60, child(doc("importing", False), returncode=3, stderr="bye\n"))
    (f,) = runtime_findings(mac(typed.to_plain(facts)))
    assert f.code == "runtime.no-result"
    assert f.title == f"The TensorFlow child {facts.message}" and f.evidence["returncode"] == 3
    assert f.remediation.commands == (f'{PY} -c "import tensorflow as tf; print(tf.__version__)"',)


def test_a_result_that_is_not_the_childs_document_is_bad_output():
    facts = facts_from_child(PY, 60, child({"hello": "world"}))
    (f,) = runtime_findings(mac(typed.to_plain(facts)))
    assert f.code == "runtime.bad-output"
    assert f.title == f"The TensorFlow child's output is unusable: {facts.message}"


def test_this_module_never_speaks_for_an_import_that_raised():
    """NumPy's ABI error printed before a SIGABRT (tensorflow/tensorflow#23346) is runtime.numpy-abi,
    checks/runtime_import.py's: this module yields, though the child was killed."""
    from tfdoctor.logtext.stderr import parse

    stderr = "RuntimeError: module compiled against API version 0xc but this version of numpy is 0xb\n"
    rt = {"outcome": "signal", "signal": "SIGABRT", "stage": "importing",
          "log": typed.to_plain(parse(stderr)), "stderr_tail": stderr}
    assert RuleModules("runtime_crash").run(snap(linux_cpu(runtime=rt))) == []
    assert codes(runtime_findings(snap(linux_cpu(runtime=rt)))) == ["runtime.numpy-abi"]
