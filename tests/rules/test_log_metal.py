"""checks/log_metal.py: Metal's own errors from real public threads (tests/data/logs/, sources in
SOURCES.json): out of memory and failed command buffers, named by the framework that printed
them, TensorFlow's diagnosed with the Mac's memory and the installed plugin."""

from __future__ import annotations

import pytest
from log_cases import LogRules, commands, one
from snapshots import apple_silicon, linux_cpu

from tfdoctor.model import Severity

check = LogRules("log_metal")
diagnose = check.diagnose


# --- Metal runtime errors ----------------------------------------------------------------------------------


def test_metal_out_of_memory_quotes_the_unified_memory():
    f = one(diagnose(apple_silicon(host={"memory_bytes": 8 * 2**30}), "metal_oom_command_buffer.txt"), "log.metal-oom")
    assert "8 GiB of unified memory" in f.title


@pytest.mark.parametrize("name,status", [("metal_command_buffer_internal_error.txt", "Internal Error"),
                                         ("metal_command_buffer_ignored.txt", "Ignored")])
def test_metal_command_buffer_errors(name, status):
    f = one(diagnose(apple_silicon(), name), "log.metal-command-buffer")
    assert status in f.title and "tfdoctor probe" in commands(f)


def test_a_command_buffer_of_the_ml_compute_fork_names_the_fork_not_the_plugin():
    # apple/tensorflow_macos#36: the same Metal text from Apple's 2020 fork, which has no tensorflow-metal
    from snapshots import _pkg

    fork = apple_silicon(packages=[_pkg("tensorflow-macos", "0.1a1", ["cp38-cp38-macosx_11_0_arm64"])])
    f = one(diagnose(fork, "metal_command_buffer_internal_error.txt"), "log.metal-command-buffer")
    assert "with Apple's ML Compute fork (no tensorflow-metal)" in f.title


def test_pytorchs_mps_out_of_memory_is_named_as_pytorchs():
    # pytorch/pytorch#130112: the same Mac memory, another framework: information, not a diagnosis
    f = one(diagnose(apple_silicon(), "mps_out_of_memory_pytorch.txt"), "log.metal-oom")
    assert f.severity == Severity.INFO and f.evidence["framework"] == "PyTorch (MPS)"
    assert "comes from PyTorch (MPS), not TensorFlow" in f.title


def test_metals_own_text_with_another_frameworks_frames_is_that_frameworks():
    # tests/data/logs/metal_oom_command_buffer.txt (llama.cpp#9701) is Metal's line alone: alone it
    # is taken for TensorFlow's; with llama.cpp's ggml frames around it, it is llama.cpp's
    from log_cases import LOGS, WHO

    from tfdoctor.logtext import keep
    from snapshots import snap

    text = (LOGS / "metal_oom_command_buffer.txt").read_text()
    s = snap(apple_silicon())
    s.log = keep.from_bytes(("ggml_metal_graph_compute: command buffer 0 failed with status 5\n" + text).encode(),
                            "llama.log", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.metal-oom"]
    assert f.severity == Severity.INFO and f.evidence["framework"] == "llama.cpp"


def test_mlxs_metal_error_is_named_as_mlxs_from_its_own_prefix():
    # ml-explore/mlx#479: MLX's check_error prints Metal's text behind "[METAL] Command buffer
    # execution failed: ", with no frame or path of MLX around it
    f = one(diagnose(apple_silicon(), "mlx_metal_oom.txt"), "log.metal-oom")
    assert f.severity == Severity.INFO and f.evidence["framework"] == "MLX"
    assert "comes from MLX, not TensorFlow" in f.title


def test_tensorflows_failed_copy_to_the_gpu_is_metals_memory_on_a_mac_and_a_cuda_cards_elsewhere():
    """'Dst tensor is not initialized' (pluggable_device_util.cc, and the CUDA copy alike):
    divamgupta/stable-diffusion-tensorflow#61 on Ubuntu with an NVIDIA card. The same words on a
    Mac are Metal's memory; where nothing shows a Metal GPU they are information."""
    mac = one(diagnose(apple_silicon(), "dst_tensor_not_initialized.txt"), "log.metal-oom")
    assert mac.severity == Severity.ERROR and "Metal ran out" in mac.title and "_EagerConst" in mac.title
    assert "in batches" in mac.remediation.text
    cuda = one(diagnose(linux_cpu(), "dst_tensor_not_initialized.txt"), "log.metal-oom")
    assert cuda.severity == Severity.INFO and "CUDA" in cuda.title
