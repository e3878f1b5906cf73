"""Metal's own errors in a pasted or recorded log: the GPU running out of memory, a command buffer
failing. Metal prints the same text under every framework that uses it (TensorFlow's plugin,
PyTorch's MPS backend, MLX, llama.cpp), so the text alone does not make it TensorFlow's: each
finding names the framework its log shows, and one that is not TensorFlow's is information about
another program, never a TensorFlow diagnosis.
"""

from __future__ import annotations

import re

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.fork_exit import fork_in_play
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.logtext.training import DST_NOT_INITIALIZED
from tfdoctor.model import Remediation, Severity, rule

COMMAND_BUFFER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/57058"

_FRAMEWORKS = (
    ("PyTorch (MPS)", re.compile(r"\btorch[/.]|MPS backend|PYTORCH_MPS")),
    # MLX's check_error (mlx/backend/metal/eval.cpp) prefixes Metal's text with "[METAL] "
    ("MLX", re.compile(r"\bmlx[/:.]|mlx::core|\[METAL\] Command buffer execution failed")),
    ("llama.cpp", re.compile(r"\bggml_|llama_|llama\.cpp")),
)
_TENSORFLOW = re.compile(r"tensorflow|metal_plugin|keras", re.IGNORECASE)


def framework(s: Snapshot, fields: dict[str, str]) -> str:
    """Which framework the log's Metal error came from: what the signature read (PyTorch's own
    out-of-memory message), else the frames and paths around it; TensorFlow unless another
    framework shows and TensorFlow does not."""
    if fields.get("framework"):
        return fields["framework"]
    text = s.log.excerpt if s.log else ""
    if _TENSORFLOW.search(text):
        return "TensorFlow"
    return next((name for name, marker in _FRAMEWORKS if marker.search(text)), "TensorFlow")


def _elsewhere(rule_finding, s: Snapshot, match, name: str, what: str):
    """The finding for a Metal error another framework printed: information, with what to do."""
    text = (f"{what} comes from {name}, not TensorFlow: tfdoctor diagnoses TensorFlow; "
            f"see {name}'s documentation on GPU memory")
    return rule_finding.finding(evidence(s, match, framework=name), Remediation(text), title=text,
                                severity=Severity.INFO)


@rule(codes.LOG_METAL_OOM, "Metal ran out of GPU memory", Severity.ERROR,
      "Apple GPUs allocate from the Mac's unified memory; a command buffer that needs more than "
      "the GPU may take fails with 'Insufficient Memory "
      "(00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)' (Metal's own text; "
      "ggml-org/llama.cpp#9701). The same text, and PyTorch's 'MPS backend out of memory', come "
      "from other frameworks too: the finding names the one the log shows, and is information "
      "when it is not TensorFlow. TensorFlow's own 'Dst tensor is not initialized' (its copy to the "
      "device found no memory: pluggable_device_util.cc) is Metal's on a Mac and information "
      "where nothing shows a Metal GPU (a CUDA card's).",
      "Lower the batch size (or the model, or the sequence length), close other GPU-heavy apps.",
      explains=(codes.LOG_METAL_COMMAND_BUFFER,), fix_answer=ABOUT_THE_LOG)
def metal_oom(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_METAL_OOM):
        name = framework(s, match.fields)
        if name != "TensorFlow":
            return _elsewhere(metal_oom, s, match, name, "This Metal out-of-memory error")
        if match.variant == DST_NOT_INITIALIZED:
            return _copy_failed(s, d, match)
        total, free = s.host.memory_bytes, s.host.memory_available_bytes
        gib = (lambda b: f"{b / 2**30:.0f} GiB" if b else "unknown")  # noqa: E731
        text = (f"Metal ran out of memory on a Mac with {gib(total)} of unified memory "
                f"({gib(free)} free when tfdoctor looked): halve the batch size and retry")
        return metal_oom.finding(evidence(s, match, memory_bytes=total, memory_available_bytes=free,
                                          chip=s.host.chip, framework=name), Remediation(text), title=text)
    return None


_METAL_SHOWN = re.compile(r"Metal device set to|name: METAL|tensorflow-metal|libmetal_plugin", re.IGNORECASE)


def _copy_failed(s: Snapshot, d: Derived, match):
    """'Dst tensor is not initialized': TensorFlow's copy to the GPU found no memory for the tensor
    (most often a whole dataset converted at once). It is Metal's memory on a Mac or where the text
    shows the Metal device; elsewhere a CUDA card's, which tfdoctor does not diagnose: information."""
    op = match.fields.get("op")
    what = f"TensorFlow could not allocate a tensor on the GPU{f' to run {op}' if op else ''} ('Dst tensor is not initialized')"
    fix = ("Feed the data in batches (a tf.data pipeline or a generator) instead of one array, or lower "
           "the batch size")
    mac = d.is_mac or d.metal is not None or bool(s.log and _METAL_SHOWN.search(s.log.excerpt))
    if not mac:
        text = (f"{what}: its memory ran out; nothing shows a Metal GPU, and a CUDA card's memory is "
                "outside tfdoctor's checks")
        return metal_oom.finding(evidence(s, match, framework="TensorFlow"), Remediation(f"{text}. {fix}"),
                                 title=text, severity=Severity.INFO)
    total = s.host.memory_bytes
    size = f"{total / 2**30:.0f} GiB of unified memory" if total else "its unified memory"
    text = f"{what}: Metal ran out of the Mac's memory ({size}) copying it"
    return metal_oom.finding(evidence(s, match, memory_bytes=total, chip=s.host.chip, framework="TensorFlow"),
                             Remediation(f"{text}. {fix}"), title=text)


@rule(codes.LOG_METAL_COMMAND_BUFFER, "A Metal command buffer failed", Severity.ERROR,
      "'command buffer exited with error status. The Metal Performance Shaders operations encoded "
      "on it may not have completed' (tensorflow/tensorflow#57058): the GPU work of that step was "
      "not finished, so its results (and the weights after it) cannot be trusted. 'Ignored (for "
      "causing prior/excessive GPU errors)' follows earlier failures. PyTorch's MPS backend prints "
      "the same text: the finding names the framework the log shows.",
      "Compare the model on the CPU and the GPU (`tfdoctor probe`), install the recommended pair, "
      "lower the batch size; stop trusting the run's results.", fix_answer=ABOUT_THE_LOG)
def metal_command_buffer(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_METAL_COMMAND_BUFFER):
        name = framework(s, match.fields)
        if name != "TensorFlow":
            return _elsewhere(metal_command_buffer, s, match, name, "This failed Metal command buffer")
        status = match.fields.get("status", "an error")
        runner = ("Apple's ML Compute fork (no tensorflow-metal)" if fork_in_play(s, d)
                  else f"tensorflow-metal {d.metal.version if d.metal else '(not installed here)'}")
        text = (f"A Metal command buffer failed ({status}) on {match.fields.get('device') or s.host.chip or 'the GPU'}"
                f" with {runner}: the step's results are incomplete")
        return metal_command_buffer.finding(
            evidence(s, match, tensorflow=d.tf_version, tensorflow_metal=d.metal.version if d.metal else None),
            Remediation(text + "; verify GPU against CPU and lower the batch size",
                        ("tfdoctor probe --workload all",), COMMAND_BUFFER_ISSUE),
            title=text)
    return None
