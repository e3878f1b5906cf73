"""Training errors in a pasted or recorded log, diagnosed with this environment: ops without a
Metal kernel (checked against the installed plugin's kernel table), XLA on Metal, device
configuration made too late; and, from `tfdoctor run --placement`, which ops TensorFlow placed on
the CPU. (Keras' own errors: log_keras.py; ops of companion packages: log_companions.py.)
"""

from __future__ import annotations

from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import unset_variable
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import listing_read
from tfdoctor.derived import Derived, installed_keras
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge.kernels import UnknownPluginRelease, kernel_table, releases
from tfdoctor.knowledge.layer_ops import ACTIVATIONS, FUNCTIONS, LAYERS
from tfdoctor.model import Remediation, Severity, rule

PLACEMENT_GUIDE = "https://www.tensorflow.org/guide/gpu#manual_device_placement"
OP_USERS = {
    "RngReadAndSkip": ("the random preprocessing layers of Keras 2 (RandomFlip, RandomRotation, "
                       "RandomZoom, ...), which draw from tf.random.Generator",
                       "https://github.com/mrdbourke/tensorflow-deep-learning/issues/298"),
    "GeneratorDataset": ("tf.data.Dataset.from_generator: input pipelines run on the CPU; build the "
                         "dataset outside `with tf.device('/GPU:0')`",
                         "https://github.com/tensorflow/tensorflow/issues/53026"),
    "CudnnRNNV3": ("LSTM/GRU on the cuDNN path, which exists only for CUDA",
                   "https://github.com/lewagon/data-setup/pull/137"),
}
"""Ops the kernel-table helpers (tfdoctor.knowledge.layer_ops) do not map, with who runs them."""


def _users(op: str) -> list[str]:
    """Layers, activations and functions that run `op`."""
    found = [f"layers.{name}" for name, use in LAYERS.items() if op in use.ops]
    found += [f"activation '{name}'" for name, use in ACTIVATIONS.items() if op in use.ops]
    found += [f"tf.{name.split('.', 1)[1]}" for name, use in FUNCTIONS.items() if op in use.ops]
    if op in OP_USERS:
        found.append(OP_USERS[op][0])
    return list(dict.fromkeys(found))


def _kernel_facts(d: Derived, op: str) -> dict[str, Any]:
    """What the installed plugin's kernel table says of an op."""
    if not d.metal:
        return {"tensorflow_metal": None}
    try:
        table = kernel_table(d.metal.version)
    except UnknownPluginRelease:
        return {"tensorflow_metal": d.metal.version, "kernel_table": "none for this release"}
    first = next((v for v in reversed(releases()) if kernel_table(v).has_kernel(op)), None)
    return {"tensorflow_metal": d.metal.version, "metal_gpu_kernel": table.has_kernel(op),
            "metal_gpu_kernel_dtypes": sorted(table.dtypes(op)) or None,
            "first_metal_with_kernel": first, "kernel_table_from": table.wheel}


@rule(codes.LOG_NO_GPU_KERNEL, "An op pinned to the GPU has no GPU kernel", Severity.ERROR,
      "tensorflow-metal registers GPU kernels for about 170 ops (read from its binary); an op "
      "without one fails when pinned to the GPU ('No registered 'RngReadAndSkip' OpKernel for "
      "'GPU' devices', mrdbourke/tensorflow-deep-learning#298) or runs on the CPU when TensorFlow "
      "may move it. TensorFlow's placer says the same of an op colocated with GPU-pinned nodes "
      "('was colocated with a group of nodes that required incompatible device'); its Colocation "
      "Debug Info lists the op type with CPU only. The op is checked against the installed "
      "plugin's kernel table.",
      "Run the layer that uses the op on the CPU (`with tf.device('/CPU:0'):`), allow soft "
      "placement, or replace the layer (the finding names it).", PLACEMENT_GUIDE, fix_answer=ABOUT_THE_LOG)
def no_gpu_kernel(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_NO_GPU_KERNEL):
        named = match.fields.get("op", "")
        if not named:  # a colocation error pasted without its debug info: the op is not named
            out.append(_unnamed_op(s, d, match))
            continue
        # the placer's debug info names the op type; else "loader/GeneratorDataset", a node
        # named after its op
        op = named.rsplit("/", 1)[-1]
        node = match.fields.get("node") or named
        facts = _kernel_facts(d, op)
        if node != op:
            facts["node"] = node
        users = _users(op)
        facts["op_used_by"] = users or None
        who = f" ({'; '.join(users)})" if users else ""
        if facts.get("metal_gpu_kernel") is True:
            text = (f"tensorflow-metal {d.metal.version} has a GPU kernel for {op} (dtypes: "
                    f"{', '.join(facts.get('metal_gpu_kernel_dtypes') or ['any'])}): the failing "
                    "call used another dtype, or the log came from another plugin version")
        elif d.metal and facts.get("first_metal_with_kernel"):
            text = (f"tensorflow-metal {d.metal.version} has no GPU kernel for {op}{who}; tensorflow-metal "
                    f"{facts['first_metal_with_kernel']} and later have one: upgrade the pair, or run that "
                    "part on the CPU")
        elif d.metal:
            text = (f"tensorflow-metal {d.metal.version} has no GPU kernel for {op}{who}: run that "
                    "part on the CPU, or replace it")
        else:
            text = (f"no GPU kernel for {op}{who}; this environment has no tensorflow-metal, so "
                    "the GPU in the log belongs to another environment")
        out.append(no_gpu_kernel.finding(evidence(s, match, **facts),
                                         Remediation(text, (), PLACEMENT_GUIDE, code=_on_the_cpu(op)),
                                         title=f"No GPU kernel for {op}: {text}"))
    return out


def _on_the_cpu(op: str) -> tuple[str, str]:
    """The lines of the user's code that run `op` where it has a kernel."""
    return ("with tf.device('/CPU:0'):  # around the layer or call that runs " + op,
            "tf.config.set_soft_device_placement(True)")


def _unnamed_op(s: Snapshot, d: Derived, match):
    """A colocation error whose paste lost the debug info that names the op without a kernel."""
    plugin = f"tensorflow-metal {d.metal.version}" if d.metal else "the GPU plugin"
    text = (f"an op colocated with nodes pinned to the GPU has no GPU kernel in {plugin}: the "
            "error's 'Colocation Debug Info' names it (the op type listed with CPU only); run "
            "that part on the CPU, or replace it")
    return no_gpu_kernel.finding(evidence(s, match, tensorflow_metal=d.metal.version if d.metal else None),
                                 Remediation(text, (), PLACEMENT_GUIDE, code=_on_the_cpu("that op")),
                                 title=f"No GPU kernel for an op of a colocation group: {text}")


@rule(codes.LOG_XLA_NO_METAL, "XLA (jit_compile) was asked for on Metal", Severity.ERROR,
      "XLA has no Metal backend: `jit_compile=True` in `model.compile`, "
      "`@tf.function(jit_compile=True)` or TF_XLA_FLAGS=--tf_xla_auto_jit fail on the Metal GPU "
      "with 'Could not find compiler for platform METAL' (NVlabs/sionna#78), or, from the XLA ops "
      "of TensorFlow 2.11's optimizers (which compile with XLA by default) and Keras 3's "
      "jit_compile='auto', with 'could not find registered platform with id' "
      "(tensorflow/tensorflow#58988). Without a Metal plugin the same lookup failing is a build "
      "without XLA for its device: information, not a Metal diagnosis.",
      "Remove jit_compile=True (pass jit_compile=False to model.compile and to the optimizer) and "
      "unset TF_XLA_FLAGS.", "https://github.com/NVlabs/sionna/issues/78", fix_answer=ABOUT_THE_LOG)
def xla_no_metal(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_XLA_NO_METAL):
        keras, major = installed_keras(s)
        flags = s.env.get("TF_XLA_FLAGS")
        code = ["model.compile(..., jit_compile=False)", "@tf.function  # without jit_compile=True"]
        commands = (unset_variable("TF_XLA_FLAGS"),) if flags else ()
        # unknown is not absent: a report's list of the packages it mentions says nothing of a plugin
        no_plugin = not (d.metal or d.metal_plugins) and "packages" not in s.unknown and listing_read(s)
        if match.variant == "xla-no-platform-id" and no_plugin:
            text = ("XLA could not find the platform it compiles for, and no Metal plugin is installed: "
                    "this TensorFlow build has no XLA backend for its device; run without XLA")
            return xla_no_metal.finding(evidence(s, match, TF_XLA_FLAGS=flags),
                                        Remediation(text, commands, code=tuple(code)), title=text,
                                        severity=Severity.INFO)
        if match.variant == "xla-no-platform-id":
            code.insert(1, "optimizer = tf.keras.optimizers.Adam(..., jit_compile=False)  # TF 2.11+")
        text = (f"XLA has no compiler for {match.fields.get('platform', 'METAL')}: remove jit_compile=True"
                + (" (Keras 3 compiles with jit_compile='auto': pass False explicitly)" if major == 3 else ""))
        return xla_no_metal.finding(
            evidence(s, match, tensorflow_metal=d.metal.version if d.metal else None, keras=keras,
                     TF_XLA_FLAGS=flags),
            Remediation(text, commands, "https://github.com/NVlabs/sionna/issues/78", code=tuple(code)), title=text)
    return None


@rule(codes.LOG_DEVICE_CONFIG_LATE, "Devices were configured after TensorFlow initialised them",
      Severity.WARNING,
      "set_visible_devices, set_memory_growth and logical device configuration only work before "
      "TensorFlow initialises its devices (the first op, list_logical_devices, building a model): "
      "later they raise 'Visible devices cannot be modified after being initialized' "
      "(Planet-AI-GmbH/tfaip#10) and the setting is not applied.",
      "Move the device configuration to the top of the script, right after `import tensorflow`.",
      PLACEMENT_GUIDE, fix_answer=ABOUT_THE_LOG)
def device_config_late(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_DEVICE_CONFIG_LATE):
        what = match.fields.get("what", "Visible")
        text = (f"{what} devices were configured after TensorFlow initialised them, so the setting "
                "did not apply: move it right after `import tensorflow`, before any op")
        return device_config_late.finding(
            evidence(s, match, tensorflow=d.tf_version),
            Remediation(text, ("tfdoctor lint SCRIPT  # shows where",), PLACEMENT_GUIDE), title=text)
    return None


@rule(codes.LOG_OPS_ON_CPU, "Ops ran on the CPU while a GPU was available", Severity.INFO,
      "With `tfdoctor run --placement`, TensorFlow logs where it places every op. Ops placed on "
      "the CPU while the GPU ran others are either missing from the plugin's kernel table (they "
      "always fall back) or kept there for their inputs (tf.data, host-memory arguments).",
      "Replace or move the layers whose ops have no GPU kernel (the finding names them), or "
      "accept the fallback where the op is cheap.", PLACEMENT_GUIDE, needs=("run",),
      fix_answer=ABOUT_THE_LOG)  # `tfdoctor run` records both
def ops_on_cpu(s: Snapshot, d: Derived):
    run = s.run
    if run is None or not run.placement or not run.cpu_ops or not run.gpu_ops:
        return None
    table = None
    if d.metal:
        try:
            table = kernel_table(d.metal.version)
        except UnknownPluginRelease:
            table = None
    rows = []
    for placed in run.cpu_ops[:20]:
        row: dict[str, Any] = {"op": placed.op, "count": placed.count}
        if table is not None:
            row["metal_gpu_kernel"] = table.has_kernel(placed.op)
        users = _users(placed.op)
        if users:
            row["used_by"] = users
        rows.append(row)
    missing = [r["op"] for r in rows if r.get("metal_gpu_kernel") is False]
    severity = Severity.WARNING if missing else None
    text = (f"{len(run.cpu_ops)} op types ran on the CPU while {len(run.gpu_ops)} ran on the GPU"
            + (f"; no Metal kernel for {', '.join(missing[:6])}" if missing else ""))
    return ops_on_cpu.finding({"cpu_ops": rows, "gpu_op_types": len(run.gpu_ops),
                               "tensorflow_metal": d.metal.version if d.metal else None},
                              Remediation(text), title=text, severity=severity)
