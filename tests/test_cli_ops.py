"""`tfdoctor ops` against the kernel table read from the tensorflow-metal binaries (the shared
reference lists Einsum among the ops 1.2.0 registers no GPU kernel for; MatMul has float32,
float16 and bfloat16 kernels)."""

from __future__ import annotations

import json

from conftest import assert_no_traceback, run_tfdoctor


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
