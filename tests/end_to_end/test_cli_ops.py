"""`tfdoctor ops` against the kernel table read from the tensorflow-metal binaries (the shared
reference lists Einsum among the ops 1.2.0 registers no GPU kernel for; MatMul has float32,
float16 and bfloat16 kernels), and the op names checked against TensorFlow's own op registry
(tfdoctor/knowledge/tensorflow_ops.json, written by tools/tensorflow_ops.py)."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor
from support import tfenv
from typer.testing import CliRunner

from tfdoctor.knowledge.kernels import kernel_table, ops_of_every_release

pytestmark = pytest.mark.slow  # a tfdoctor subprocess per test


def test_einsum_has_no_metal_kernel_and_matmul_has():
    run = run_tfdoctor("ops", "Einsum", "MatMul", "--plugin", "1.2.0", "--json")
    doc = json.loads(run.stdout)
    assert run.code == 1 and doc["without_gpu_kernel"] == ["Einsum"]
    matmul = next(r for r in doc["ops"] if r["op"] == "MatMul")
    assert matmul["gpu_kernel"] and "float32" in matmul["dtypes"]
    assert doc["wheel"].startswith("tensorflow_metal-1.2.0-")


def test_text_and_unknown_release():
    run = run_tfdoctor("ops", "MatMul", "--plugin", "1.2.0")
    assert run.code == 0 and "GPU MatMul:" in run.stdout
    bad = run_tfdoctor("ops", "MatMul", "--plugin", "9.9.9")
    assert bad.code == 2 and "no GPU kernel table for tensorflow-metal 9.9.9" in bad.stderr
    assert_no_traceback(bad)


def test_a_name_in_another_case_is_taken_as_tensorflow_spells_it():
    run = run_tfdoctor("ops", "matmul", "conv2d", "--plugin", "1.2.0")
    assert run.code == 0, run.stderr  # both have a GPU kernel once read as MatMul and Conv2D
    assert "matmul -> MatMul, conv2d -> Conv2D" in run.stdout
    assert "GPU MatMul:" in run.stdout and "GPU Conv2D:" in run.stdout
    assert "matmul:" not in run.stdout and "conv2d:" not in run.stdout


def test_an_unknown_name_is_a_usage_error_with_near_spellings():
    run = run_tfdoctor("ops", "NoSuchOp")
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.startswith("tfdoctor: error: unknown op 'NoSuchOp' ")
    assert run.stderr.rstrip().endswith("did you mean NoOp?")
    assert len(run.stderr.strip().splitlines()) == 1
    assert_no_traceback(run)


def test_every_unknown_name_is_named_in_one_line_even_with_json():
    run = run_tfdoctor("ops", "MatMul", "NoSuchOp", "Matmull", "--plugin", "1.2.0", "--json")
    assert run.code == 2 and run.stdout == ""  # no kernel facts about names that are no op
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("tfdoctor: error: unknown ops 'NoSuchOp', 'Matmull' ")
    assert "NoOp for 'NoSuchOp'" in line and "MatMul, BatchMatMul" in line
    assert "'MatMul'" not in line
    assert_no_traceback(run)


def test_an_op_without_any_metal_kernel_is_still_answered():
    assert not {"Erfc", "Einsum"} & ops_of_every_release()  # in TensorFlow's registry only
    run = run_tfdoctor("ops", "erfc", "Einsum", "--plugin", "1.2.0")
    assert run.code == 1, run.stderr
    assert "erfc -> Erfc" in run.stdout
    assert "CPU Erfc: no Metal GPU kernel" in run.stdout
    assert "CPU Einsum: no Metal GPU kernel" in run.stdout


def test_an_op_only_the_plugin_registers_is_known():
    plugin_only = "_FusedBatchMatMulV2"  # registered by tensorflow-metal, not by TensorFlow
    assert kernel_table("1.2.0").has_kernel(plugin_only)
    run = run_tfdoctor("ops", plugin_only, "--plugin", "1.2.0")
    assert run.code == 0 and f"GPU {plugin_only}:" in run.stdout, run.stderr


def test_json_reports_tensorflow_s_names_and_what_was_typed():
    run = run_tfdoctor("ops", "matmul", "Einsum", "--plugin", "1.2.0", "--json")
    doc = json.loads(run.stdout)
    assert run.code == 1
    assert [(r["op"], r["asked"]) for r in doc["ops"]] == [("MatMul", "matmul"), ("Einsum", None)]
    assert doc["without_gpu_kernel"] == ["Einsum"]


def test_bundled_op_list_records_its_source():
    data = json.loads((REPO / "tfdoctor" / "knowledge" / "tensorflow_ops.json").read_text())
    assert data["tensorflow"].startswith("tensorflow") and data["wheel"].endswith(".whl")
    assert "TF_GetAllOpList" in data["method"] and data["read_on"]
    assert data["ops"] == sorted(set(data["ops"]))
    assert {"MatMul", "Conv2D", "Einsum", "Erfc", "NoOp"} <= set(data["ops"])


def test_a_missing_op_list_is_said_in_one_line(monkeypatch):
    """A broken installation (the op list gone) says so and what to do, never a traceback."""
    from tfdoctor.cli.main import load_app
    from tfdoctor.knowledge import tensorflow_ops

    monkeypatch.setattr(tensorflow_ops, "DATA", "no_such_file.json")
    tensorflow_ops.bundled_ops.cache_clear()
    try:
        result = CliRunner().invoke(load_app(), ["ops", "MatMul", "--plugin", "1.2.0"])
    finally:
        tensorflow_ops.bundled_ops.cache_clear()
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("tfdoctor: error: tfdoctor's list of TensorFlow ops (no_such_file.json) "
                           "cannot be read") and line.endswith("reinstall tfdoctor")
    assert result.stdout == ""


@pytest.mark.tf
def test_the_tool_reads_a_real_tensorflow_registry(tmp_path):
    """tools/tensorflow_ops.py, run in the cached tensorflow-cpu venv, writes the same kind of
    file from that TensorFlow's registry."""
    out = tmp_path / "ops.json"
    proc = subprocess.run([str(tfenv.tf_python()), str(REPO / "tools" / "tensorflow_ops.py"), "-o", str(out)],
                          env=tfenv.tf_subprocess_env(extra={"TF_CPP_MIN_LOG_LEVEL": "3"}),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["tensorflow"] == f"tensorflow-cpu {tfenv.TF_VERSION}"
    assert data["wheel"].startswith(f"tensorflow_cpu-{tfenv.TF_VERSION}-")
    assert data["ops"] == sorted(set(data["ops"]))
    assert {"MatMul", "Einsum", "Erfc", "_FusedMatMul"} <= set(data["ops"])
    bundled = json.loads((REPO / "tfdoctor" / "knowledge" / "tensorflow_ops.json").read_text())
    assert set(data) == set(bundled)
