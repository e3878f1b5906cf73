"""checks/log_training.py: training errors from real public threads (tests/data/logs/, sources in
SOURCES.json), each diagnosed with the facts that change the answer: the installed plugin's kernel
table, the installed Keras and TensorFlow, the Mac's memory; and the ops
`tfdoctor run --placement` saw on the CPU."""

from __future__ import annotations

import json

import pytest
from log_cases import ARM, LOGS, WHO, LogRules, code, commands, one
from snapshots import _pkg, apple_silicon, linux_cpu, merge, snap

from tfdoctor.logtext import keep
from tfdoctor.facts.run import OpPlacement, RunFacts
from tfdoctor.model import Severity

check = LogRules("log_training")
diagnose = check.diagnose
KERAS2_ENV = [_pkg("tensorflow-macos", "2.15.0", ARM), _pkg("keras", "2.15.0", ["py3-none-any"]),
              _pkg("tensorflow-metal", "1.1.0", ARM)]


def with_metal(version: str) -> dict:
    return apple_silicon(packages=[_pkg("tensorflow-macos", "2.9.2", ARM), _pkg("tensorflow-metal", version, ARM)])


# --- ops without a Metal kernel, checked against the installed plugin's table -------------------------


def test_rng_read_and_skip_has_no_kernel_before_metal_0_5_1():
    f = one(diagnose(with_metal("0.5.0"), "no_gpu_kernel_rng.txt"), "log.no-gpu-kernel")
    assert f.evidence["metal_gpu_kernel"] is False and f.evidence["first_metal_with_kernel"] == "0.5.1"
    assert "RandomFlip" in f.title and "with tf.device('/CPU:0')" in code(f)


def test_rng_read_and_skip_with_a_plugin_that_has_the_kernel():
    f = one(diagnose(apple_silicon(), "no_gpu_kernel_rng.txt"), "log.no-gpu-kernel")
    assert f.evidence["metal_gpu_kernel"] is True and "has a GPU kernel" in f.title


def test_generator_dataset_pinned_to_the_gpu():
    f = one(diagnose(apple_silicon(), "no_gpu_kernel_generator_dataset.txt"), "log.no-gpu-kernel")
    assert f.evidence["node"] == "loader/GeneratorDataset" and f.evidence["metal_gpu_kernel"] is False
    assert "from_generator" in f.title


def test_a_colocation_error_names_the_op_its_debug_info_lists_with_cpu_only():
    # chychkan/DeepFaceLab_MacOS#81: TensorFlow's placer text, not an op pinned by the user
    f = one(diagnose(apple_silicon(), "colocation_assign_cpu_only.txt"), "log.no-gpu-kernel")
    assert f.evidence["metal_gpu_kernel"] is False and f.title.startswith("No GPU kernel for Assign")


def test_a_colocation_error_pasted_without_its_debug_info_says_where_the_op_is_named():
    text = (LOGS / "colocation_assign_cpu_only.txt").read_text().splitlines()[0]
    s = snap(apple_silicon())
    s.log = keep.from_bytes(text.encode(), "colocation.log", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.no-gpu-kernel"]
    assert "Colocation Debug Info" in f.title and "tensorflow-metal 1.2.0" in f.title
    assert "with tf.device('/CPU:0')" in code(f)


def test_a_colocation_error_for_another_device_type_is_not_a_gpu_kernel():
    text = ((LOGS / "colocation_assign_cpu_only.txt").read_text()
            .replace("'/device:GPU:0'", "'/device:TPU:0'"))
    s = snap(apple_silicon())
    s.log = keep.from_bytes(text.encode(), "colocation.log", identity=WHO)
    assert [f for f in check.run(s) if f.code == "log.no-gpu-kernel"] == []


def placer_text(signature: str, contains: str) -> str:
    """An instance of the placer's template (tests/data/logs/templates.json) as TensorFlow fills it."""
    entries = json.loads((LOGS / "templates.json").read_text(encoding="utf-8"))["templates"]
    entry = next(e for e in entries if e["signature"] == signature)
    return next(i["text"] for i in entry["instances"] if contains in i["text"])


def test_every_placer_template_names_the_op_without_a_gpu_kernel():
    """The placer's messages across releases (placer.cc, colocation_graph.cc, op_kernel.cc): TF 1.x
    quotes the node and prints the device bare, TF 2.x adds the Colocation Debug Info's
    'Root Member' line and an 'Op:' line; the op named is the type without a GPU kernel."""
    cases = {
        ("log.no-gpu-kernel/cannot-assign-device", "'save/SaveV2'"): "SaveV2",
        ("log.no-gpu-kernel/cannot-assign-device", "types and devices"): "Assign",
        ("log.no-gpu-kernel/cannot-assign-device", "\nOp: "): "StatelessRandomGetKeyCounter",
        ("log.no-gpu-kernel/no-registered-opkernel", "for GPU devices"): "AudioSpectrogram",
        ("log.no-gpu-kernel/colocation-no-common-device", "ResourceApplyAdam"): "ResourceApplyAdam",
        ("log.no-gpu-kernel/eager-device-specification", "RandomShuffleQueueV2"): "RandomShuffleQueueV2",
    }
    for (signature, contains), op in cases.items():
        text = placer_text(signature, contains)
        s = snap(apple_silicon())
        s.log = keep.from_bytes(text.encode(), "placer.log", identity=WHO)
        (f,) = [f for f in check.run(s) if f.code == "log.no-gpu-kernel"]
        assert f.title.startswith(f"No GPU kernel for {op}:"), (signature, f.title)
    quoted = placer_text("log.no-gpu-kernel/cannot-assign-device", "types and devices")
    s = snap(apple_silicon())
    s.log = keep.from_bytes(quoted.encode(), "placer.log", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.no-gpu-kernel"]
    assert f.evidence["node"] == "InceptionV1/Logits/Conv2d_0c_1x1/biases"


def test_an_op_run_eagerly_on_the_gpu_without_a_gpu_kernel():
    # developer.apple.com/forums/thread/759438: the eager placer, Keras' Embedding on tensorflow-metal
    f = one(diagnose(with_metal("1.1.0"), "eager_device_specification_gpu.txt"), "log.no-gpu-kernel")
    assert f.title.startswith("No GPU kernel for StatelessRandomGetKeyCounter:")


def test_a_colocation_group_no_device_type_supports_names_its_cpu_only_op():
    # Arturus/kaggle-web-traffic#21 (TF 1.10): the debug info lists L2Loss with the CPU only
    f = one(diagnose(apple_silicon(), "colocation_no_common_device.txt"), "log.no-gpu-kernel")
    assert f.title.startswith("No GPU kernel for L2Loss:")


def test_cudnn_rnn_v3_before_metal_0_2_has_no_kernel():
    f = one(diagnose(with_metal("0.1.2"), "no_opkernel_cudnnrnnv3.txt"), "log.no-gpu-kernel")
    assert f.evidence["metal_gpu_kernel"] is False and f.evidence["first_metal_with_kernel"] == "0.2.0"
    assert "cuDNN" in f.title


def test_xla_on_metal_with_keras_3_and_tf_xla_flags():
    data = apple_silicon(env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"})
    f = one(diagnose(data, "xla_no_metal_compiler.txt"), "log.xla-no-metal")
    assert "jit_compile='auto'" in f.title and "unset TF_XLA_FLAGS" in commands(f)


def test_xla_on_metal_with_keras_2():
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), "xla_no_metal_compiler.txt"), "log.xla-no-metal")
    assert "auto" not in f.title and f.evidence["keras"] == "2.15.0"


def test_xla_looking_up_its_platform_on_metal_and_on_a_build_without_metal():
    # tensorflow/tensorflow#58988: TF 2.11 on an M1, the optimizer's XLA ops
    f = one(diagnose(apple_silicon(packages=KERAS2_ENV), "xla_registered_platform_id.txt"), "log.xla-no-metal")
    assert f.severity == Severity.ERROR and "jit_compile=False" in code(f)
    no_metal = one(diagnose(linux_cpu(), "xla_registered_platform_id.txt"), "log.xla-no-metal")
    assert no_metal.severity == Severity.INFO and "no Metal plugin" in no_metal.title


def test_xla_looking_up_its_platform_where_the_packages_are_unknown_is_the_metal_diagnosis():
    # a bug report names no package list (deganza/Install-TensorFlow-on-Mac-M1-GPU style posts
    # say "GPU is available"): an unlisted plugin is unknown, not absent
    data = merge(apple_silicon(packages=[]), {"unknown": ["packages"]})
    f = one(diagnose(data, "xla_registered_platform_id.txt"), "log.xla-no-metal")
    assert f.severity == Severity.ERROR and "jit_compile=False" in code(f)


def test_xla_looking_up_its_platform_where_a_report_named_some_packages_is_the_metal_diagnosis():
    # a report that names TensorFlow and Keras but pastes no listing (no pip, no site-packages):
    # the plugin it does not mention is unknown, not absent
    named = [{"name": "tensorflow", "version": "2.11.0"}, {"name": "keras", "version": "2.11.0"}]
    data = merge(apple_silicon(packages=named), {"python": {"site_packages": []}})
    f = one(diagnose(data, "xla_registered_platform_id.txt"), "log.xla-no-metal")
    assert f.severity == Severity.ERROR and "jit_compile=False" in code(f)


@pytest.mark.parametrize("name", ["visible_devices_late.txt", "physical_devices_late.txt", "virtual_devices_late.txt"])
def test_device_configuration_too_late(name):
    f = one(diagnose(apple_silicon(), name), "log.device-config-late")
    assert "right after `import tensorflow`" in f.title


# --- placement recorded by tfdoctor run --------------------------------------------------------------------------


def test_ops_on_the_cpu_checked_against_the_kernel_table():
    s = snap(apple_silicon())
    s.log = keep.from_bytes(b"", "run: python")  # `tfdoctor run` records the output too
    s.run = RunFacts(argv=["python", "train.py"], outcome="exited", returncode=0, placement=True,
                     cpu_ops=[OpPlacement("Einsum", "CPU", 24), OpPlacement("MatMul", "CPU", 2)],
                     gpu_ops=[OpPlacement("MatMul", "GPU", 300)])
    f = one_run(check.run(s))
    assert f.severity.value == "warning" and "no Metal kernel for Einsum" in f.title
    rows = {r["op"]: r for r in f.evidence["cpu_ops"]}
    assert rows["Einsum"]["metal_gpu_kernel"] is False and "layers.MultiHeadAttention" in rows["Einsum"]["used_by"]
    assert rows["MatMul"]["metal_gpu_kernel"] is True


def one_run(findings: list):
    found = [f for f in findings if f.code == "log.ops-on-cpu"]
    assert len(found) == 1
    return found[0]


def test_no_placement_finding_without_a_gpu():
    s = snap(apple_silicon())
    s.run = RunFacts(argv=["python"], outcome="exited", returncode=0, placement=True,
                     cpu_ops=[OpPlacement("Einsum", "CPU", 1)], gpu_ops=[])
    assert not [f for f in check.run(s) if f.code == "log.ops-on-cpu"]


def test_code_to_change_is_shown_as_code_never_as_a_shell_command():
    """A `$` line is a shell command the user can paste (issue 21 item 5); the lines of their own
    code the fix changes are shown under another marker, in the terminal and in markdown."""
    import io

    from rich.console import Console

    from tfdoctor.engine.diagnose import diagnose as full
    from tfdoctor.logtext import keep
    from tfdoctor.render import render

    s = snap(apple_silicon(packages=KERAS2_ENV))
    s.log = keep.read(LOGS / "xla_registered_platform_id.txt", identity=WHO)
    report = full(s)
    out = Console(file=io.StringIO(), width=200, no_color=True)
    render(report, "text", out)
    text = out.file.getvalue()
    assert "│ model.compile(..., jit_compile=False)" in text and "$ model.compile" not in text
    md = Console(file=io.StringIO(), width=200)
    render(report, "markdown", md)
    assert "```python\nmodel.compile(..., jit_compile=False)" in md.file.getvalue()


