"""Could the user's model be examined, and is what the GPU computes for it right? The model probe
(`tfdoctor probe --model`, tfdoctor/inside/model/) records every bad input and failure as
a ModelError (never a traceback); these rules state each family of them with its fix, the first
layer whose GPU output differs from the CPU's, and memory that grows step after step. Reads
snapshot.model, and for a GPU that computes wrong or memory that grows also what a pasted text
says of it (snapshot.log)."""

from __future__ import annotations

import math
import shlex
from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_CODE, NOTHING_WRONG
from tfdoctor.advice.model_text import reported
from tfdoctor.advice.probe_evidence import probe_cmd
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.user_model import ModelError, ModelFacts
from tfdoctor.model import Finding, Remediation, Rule, Severity, rule

WRONG_ISSUE = "https://github.com/tensorflow/tensorflow/issues/92686"
"""A Metal kernel computing wrong values (also tensorflow/tensorflow#71577)."""
LEAK_ISSUE = "https://github.com/tensorflow/tensorflow/issues/60616"
"""Memory growing every epoch on Metal (a shuffle layer)."""

KINDS = {
    codes.MODEL_NOT_A_MODEL: ("not-found", "not-a-model", "unreadable"),
    codes.MODEL_CORRUPT: ("corrupt",),
    codes.MODEL_CUSTOM_OBJECTS: ("custom-objects",),
    codes.MODEL_FUNCTION_FAILED: ("no-such-function", "function-raised", "not-a-model-returned"),
    codes.MODEL_TOO_BIG: ("too-big", "archive-too-big"),
    codes.MODEL_UNTRUSTED_CODE: ("untrusted-code",),
    codes.MODEL_TIMEOUT: ("timeout",),
    codes.MODEL_CRASHED: ("crashed", "no-result"),
    codes.MODEL_NO_GPU_KERNEL: ("no-gpu-kernel",),
}
"""ModelError kinds (tfdoctor.facts.user_model) of each rule; every other kind is model.probe-failed."""
KNOWN_KINDS = frozenset(k for kinds in KINDS.values() for k in kinds)


def _errors(m: ModelFacts | None, code: str) -> list[ModelError]:
    """The probe's errors of this rule's kinds (none without a model probe: a pasted text alone)."""
    if m is None:
        return []
    found = [e for e in m.errors if e.kind in KINDS[code]]
    if code == codes.MODEL_FUNCTION_FAILED:  # importing the user's module, not TensorFlow
        found += [e for e in m.errors if e.kind == "import-failed" and e.stage == "load"]
    return found


def _other_errors(m: ModelFacts) -> list[ModelError]:
    return [e for e in m.errors if e.kind not in KNOWN_KINDS
            and not (e.kind == "import-failed" and e.stage == "load")]


def _evidence(m: ModelFacts, errors: list[ModelError]) -> dict[str, Any]:
    return {"model": m.source.get("spec"), "loaded_as": m.source.get("kind"),
            "errors": [{"stage": e.stage, "kind": e.kind, "message": e.message,
                        **({"op": e.op, "layer": e.layer} if e.op else {})} for e in errors]}


def _error_finding(r: Rule, s: Snapshot, fix_text: str, *extra_args: str) -> Finding | None:
    m = s.model
    if m is None:
        return None
    errors = _errors(m, r.code) if r.code in KINDS else _other_errors(m)
    if not errors:
        return None
    title = f"{r.doc.title}: {errors[0].message}"
    fix = Remediation(fix_text, (probe_cmd(s, *m.probe_args(), *extra_args),))
    return r.finding(_evidence(m, errors), fix, title=_short(title))


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


@rule(codes.MODEL_NOT_A_MODEL, "The path given is not a model", Severity.ERROR,
      "`--model PATH` must name a Keras model file (a `.keras` zip archive or an HDF5 `.h5` file, "
      "recognised by their first bytes, not their names) or a SavedModel directory (holding "
      "saved_model.pb). The path does not exist, cannot be read, or is something else.",
      "Give the model file or SavedModel directory, or `--model module:function` with a "
      "function that returns the model; a training script is run with `tfdoctor run -- python "
      "SCRIPT`.", fix_answer=ABOUT_THE_CODE)
def not_a_model(s: Snapshot, d: Derived):
    m = s.model
    errors = _errors(m, not_a_model.code)
    if not errors:
        return None
    spec = str(m.source.get("spec") or "")
    if spec.endswith(".py"):  # a training script: run it under tfdoctor, which reads its output
        fix = Remediation("A Python script is not a saved model: run it under tfdoctor, which "
                          "diagnoses what it prints with the environment (or give --model "
                          "MODULE:FUNCTION, a function of it that returns the model)",
                          (f"tfdoctor run -- {python_cmd(s)} {shlex.quote(spec)}",))
    else:  # the same --model again would fail the same way: save one, then examine it
        fix = Remediation("Save the model from your code as a .keras file and examine that file "
                          "(or point --model at a SavedModel directory, the one holding "
                          "saved_model.pb, or give MODULE:FUNCTION)",
                          (probe_cmd(s, "--model", "model.keras"),), code=('model.save("model.keras")',))
    return not_a_model.finding(_evidence(m, errors), fix,
                               title=_short(f"{not_a_model.doc.title}: {errors[0].message}"))


@rule(codes.MODEL_CORRUPT, "The model file is damaged or truncated", Severity.ERROR,
      "The file starts like a Keras archive or an HDF5 file but cannot be read to the end: a "
      "download or copy that stopped early, a file still being written, a damaged disk. "
      "Nothing was written next to it. A pasted text that loads a model and shows h5py's \"file "
      "signature not found\" or \"truncated file\", or zipfile's \"File is not a zip file\", is this "
      "finding as reported (a Git LFS pointer is the usual culprit).",
      "Save or copy the model again and compare its size with the original.", fix_answer=ABOUT_THE_CODE)
def corrupt(s: Snapshot, d: Derived):
    if s.model is None and (text := reported(s, "corrupt")):
        return corrupt.finding(text.evidence, text.fix, title=text.title, severity=Severity.WARNING, basis="reported")
    return _error_finding(corrupt, s, "Save the model again (model.save(...)) or copy it again "
                          "from where it was made, then examine it")


@rule(codes.MODEL_CUSTOM_OBJECTS, "The model needs custom objects that cannot be imported",
      Severity.ERROR,
      "The saved model refers to layers, losses or other objects registered by the user's own "
      "code (their registered names are in the evidence); the probe cannot import them, so "
      "Keras cannot rebuild the model. A pasted text with Keras' \"Unknown layer: X\" (Keras 2) or "
      "\"Could not locate class 'X'\" (Keras 3) is this finding as reported.",
      "Give `--model module:function` with a function that imports the custom objects and "
      "loads (or builds) the model.", fix_answer=ABOUT_THE_CODE)
def custom_objects(s: Snapshot, d: Derived):
    m = s.model
    if m is None and (text := reported(s, "custom-objects")):
        return custom_objects.finding(text.evidence, text.fix, title=text.title, severity=Severity.WARNING, basis="reported")
    errors = _errors(m, custom_objects.code)
    if not errors:
        return None
    fix = Remediation("Write a function that imports your custom layers and returns "
                      "keras.models.load_model(PATH), then give it as module:function",
                      (probe_cmd(s, "--model", "mymodels:load"),))
    return custom_objects.finding(_evidence(m, errors), fix,
                                  title=_short(f"{custom_objects.doc.title}: {errors[0].message}"))


@rule(codes.MODEL_FUNCTION_FAILED, "The model function did not return a model", Severity.ERROR,
      "`--model module:function` imports the module (from the current directory or the paths "
      "given) and calls the function without arguments: the module could not be imported, has "
      "no such function, the function raised, or it returned something that is not a Keras model.",
      "Make the function importable and return a keras.Model (compiled or not).", fix_answer=ABOUT_THE_CODE)
def function_failed(s: Snapshot, d: Derived):
    return _error_finding(function_failed, s, "Fix the function so that calling it with no "
                          "arguments returns the keras.Model, then examine it again")


@rule(codes.MODEL_TOO_BIG, "The model does not fit in memory", Severity.ERROR,
      "Training needs about 16 bytes per float32 parameter (the weight, its gradient, two Adam "
      "slots) plus the activations of a batch; the probe refuses a model that cannot fit in the "
      "memory available, and reports memory exhausted while it ran. On Apple silicon the GPU "
      "allocates from the same memory.",
      "Examine it with a smaller --batch, or on a machine with more memory.", fix_answer=ABOUT_THE_CODE)
def too_big(s: Snapshot, d: Derived):
    return _error_finding(too_big, s, "Try a smaller batch; close other programs using memory",
                          "--batch", "1")


@rule(codes.MODEL_UNTRUSTED_CODE, "Loading the model would run code from its file",
      Severity.WARNING,
      "Loading a model can run code saved in it: a Lambda layer's Python bytecode (an `.h5` on "
      "Keras 2 runs it as it loads; a `.keras` outside Keras's safe mode), or a SavedModel's "
      "graph, whose ops (WriteFile among them) run when it is loaded and called. The probe "
      "loads in Keras's safe mode and refused this file (what it holds is in the evidence); "
      "nothing from it ran.",
      "If you trust where the file comes from, examine it with `--trust-model`; a "
      "`--model module:function` that loads it is your own code and runs as written.",
      fix_answer=ABOUT_THE_CODE)
def untrusted_code(s: Snapshot, d: Derived):
    return _error_finding(untrusted_code, s, "Examine it with --trust-model only if you trust "
                          "where the file comes from", "--trust-model")


@rule(codes.MODEL_TIMEOUT, "The model probe did not finish in time", Severity.ERROR,
      "The probe runs under a hard time limit (the budget plus an allowance for importing "
      "TensorFlow and tracing the model); it was stopped and what it found until then is kept. "
      "The stage it reached says where the time went.",
      "Give a larger --budget, a smaller --batch, or leave out the batch sweep.", fix_answer=ABOUT_THE_CODE)
def timeout(s: Snapshot, d: Derived):
    return _error_finding(timeout, s, "Give the probe more time or less work", "--budget", "120")


@rule(codes.MODEL_CRASHED, "The model probe crashed", Severity.ERROR,
      "The process running the model died (a signal such as SIGSEGV or SIGKILL, often memory "
      "exhausted or a crash inside a GPU plugin) or left no result; what it found before is "
      "kept, and the stage it reached says where it died.",
      "Run it again with a smaller --batch; if it dies in the same stage, run `tfdoctor check` "
      "for the TensorFlow/tensorflow-metal pairing.", fix_answer=ABOUT_THE_CODE)
def crashed(s: Snapshot, d: Derived):
    return _error_finding(crashed, s, "Run it again with a smaller batch; check the "
                          "TensorFlow/tensorflow-metal pairing with `tfdoctor check`",
                          "--batch", "1")


@rule(codes.MODEL_PROBE_FAILED, "The model could not be examined", Severity.ERROR,
      "A stage of the probe failed on this model: TensorFlow did not import, the file could not "
      "be loaded for another reason, synthetic inputs could not be made from its input "
      "signature, or its graph could not be traced. The message is TensorFlow's or Keras's own.",
      "Read the message in the evidence; a model that cannot be loaded from a file can still be "
      "given as `--model module:function`.", fix_answer=ABOUT_THE_CODE)
def probe_failed(s: Snapshot, d: Derived):
    return _error_finding(probe_failed, s, "Fix what the message names, or give the model as "
                          "module:function")


@rule(codes.MODEL_NO_GPU_KERNEL, "An op of the model has no kernel on the GPU it was placed on",
      Severity.ERROR,
      "TensorFlow placed an op of the model on the GPU and found no kernel for it there "
      "(\"No OpKernel was registered to support Op ...\", e.g. \"No registered 'RngReadAndSkip' "
      "OpKernel for 'GPU' devices\" from random augmentation layers): that stage of the probe "
      "failed, as the user's own training would.",
      "Place the layer named in the evidence on the CPU (`with tf.device('/CPU:0'):` around it, or "
      "move it into the tf.data pipeline), or replace it.", fix_answer=ABOUT_THE_CODE)
def no_gpu_kernel(s: Snapshot, d: Derived):
    m = s.model
    errors = _errors(m, no_gpu_kernel.code)
    if not errors:
        return None
    where = ", ".join(f"{e.op} in layer {e.layer or '?'}" for e in errors)
    fix = Remediation(f"Run those layers on the CPU or replace them ({where})",
                      (probe_cmd(s, *m.probe_args()),))
    return no_gpu_kernel.finding(_evidence(m, errors), fix,
                                 title=f"No GPU kernel for {where}: the step fails on the GPU")


@rule(codes.MODEL_ASSUMED_INPUTS, "Some input dimensions of the model were assumed",
      Severity.INFO,
      "The model's input signature leaves dimensions other than the batch unknown (None: a "
      "sequence length, an image side), or takes integers without an Embedding to bound them, "
      "so the probe chose values; timings and memory depend on them.",
      "Build the model with the real input shape (keras.Input(shape=(LENGTH, ...))) in a "
      "`--model module:function` to measure it at that size.", fix_answer=ABOUT_THE_CODE)
def assumed_inputs(s: Snapshot, d: Derived):
    m = s.model
    if m is None:
        return None
    shaped = [a for a in m.assumptions if "axis" in a]
    if not shaped and not [a for a in m.assumptions if "input" in a]:
        return None
    said = "; ".join(f"{a.get('input')} axis {a['axis']} = {a.get('assumed')}" if "axis" in a
                     else f"{a.get('input')}: {a.get('why')}"
                     for a in m.assumptions if "input" in a)
    return assumed_inputs.finding({"assumptions": m.assumptions, "inputs": m.inputs}, None,
                                  title=f"Input dimensions assumed: {said}")


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _first_bad(m: ModelFacts) -> tuple[str | None, float | None]:
    ag = m.agreement
    if ag is None:
        return None, None
    if ag.first_bad:
        err = next((l.rel_error for l in ag.layers if l.layer == ag.first_bad), ag.output_error)
        return ag.first_bad, err
    cpu, gpu = ag.losses.get("/CPU:0") or [], ag.losses.get("/GPU:0") or []
    if cpu and gpu and all(_finite(x) for x in cpu) and not all(_finite(x) for x in gpu):
        return "(training loss)", None
    return None, None


@rule(codes.MODEL_GPU_WRONG, "The GPU computes the model wrong", Severity.ERROR,
      "The same weights and the same inputs went through the model on the CPU and on the GPU; "
      "every layer's output was compared (a subclassed model's outputs only). The first layer "
      "whose relative L2 error exceeds 1e-3 is named: float32 rounding in another kernel order "
      "gives about 1e-6 per layer, a kernel bug 1e-2 and more (tensorflow/tensorflow#92686, "
      "#71577). Layers after it inherit its error. The loss after a few training steps on each "
      "device says how far training drifts. A pasted text that says it in its own words (a NaN "
      "loss, divergence, wrong outputs or one answer for every call on the GPU, beside a CPU run "
      "that is right or where the problem does not occur) is this finding as reported: a "
      "warning, with the probe that measures it.",
      "Run the named layer on the CPU (`with tf.device('/CPU:0'):` around it) or replace it, try "
      "another tensorflow-metal release, and report the layer with the evidence to Apple.",
      WRONG_ISSUE, fix_answer=ABOUT_THE_CODE)
def gpu_wrong(s: Snapshot, d: Derived):
    m = s.model
    if m is None:
        return _reported_wrong(s)
    layer, err = _first_bad(m)
    if layer is None:
        return None
    ag = m.agreement
    cut = [l.layer for l in ag.layers].index(layer) + 1 if layer in [l.layer for l in ag.layers] else 0
    losses = {dev: v[-1] for dev, v in ag.losses.items() if v}
    ev = {"first_bad_layer": layer, "rel_error": err, "tolerance": ag.tolerance,
          "per_layer": ag.per_layer, "layers": [{"layer": l.layer, "rel_error": l.rel_error}
                                                for l in ag.layers[:cut]],
          "output_error": ag.output_error, "losses": ag.losses, "loss_rel_diff": ag.loss_rel_diff,
          "metric": "relative L2 error ||gpu - cpu|| / ||cpu|| on identical weights and inputs"}
    what = (f"layer {layer} is the first to differ from the CPU (relative error {err:.3g}, "
            f"tolerance {ag.tolerance:g})" if err is not None else
            f"{layer}: {'the outputs differ' if layer.startswith('(model') else 'not finite on the GPU'}")
    if losses:
        what += "; loss after the training steps " + ", ".join(
            f"{dev.strip('/')} {'not finite' if v is None else format(v, '.6g')}"
            for dev, v in losses.items())
    fix = Remediation(f"Run {layer} on the CPU or replace it; try another tensorflow-metal "
                      "release and report the layer to Apple with this evidence",
                      (probe_cmd(s, *m.probe_args()),), WRONG_ISSUE)
    return gpu_wrong.finding(ev, fix, title=f"The GPU computes the model wrong: {what}")


def _reported_wrong(s: Snapshot) -> Finding | None:
    """A pasted text about TensorFlow in its own words: a run on the GPU wrong beside a run on the
    CPU right, and no CPU run wrong (tfdoctor.logtext.outcomes reads them; PyTorch's MPS says the
    same of its own). Reported, not measured here."""
    said = s.log.outcomes if s.log is not None and s.log.names_tensorflow else []
    wrong = [o for o in said if o.device == "GPU" and not o.right]
    right = [o for o in said if o.device == "CPU" and o.right]
    if not wrong or not right or any(o.device == "CPU" and not o.right for o in said):
        return None
    ev = {"source": "the pasted text's results", "gpu_said": [f"line {o.line}: {o.said}" for o in wrong],
          "cpu_said": [f"line {o.line}: {o.said}" for o in right],
          "decision_rule": "a run on the GPU said wrong (a NaN loss, diverging, wrong outputs, not learning) "
                           "beside a run on the CPU said right, and no CPU run said wrong"}
    fix = Remediation("Compare the model on both devices: the probe names the first layer whose GPU output "
                      "differs from the CPU's. Meanwhile train on the CPU (`with tf.device('/CPU:0'):`) or "
                      "try another tensorflow-metal release, and report the layer to Apple",
                      (probe_cmd(s, "--model", "MODEL"),), WRONG_ISSUE)
    return gpu_wrong.finding(ev, fix, severity=Severity.WARNING, basis="reported",
                             title=f"By the text's own words, the GPU computes wrong where the CPU is right "
                                   f"(GPU: \"{wrong[0].said}\"; CPU: \"{right[0].said}\")")


@rule(codes.MODEL_MEMORY_LEAK, "Memory grows with every training step", Severity.WARNING,
      "The process's memory (on macOS its footprint, which includes Metal's unified-memory "
      "buffers) was read after each training step: after the warm-up steps it kept growing "
      "steadily (least-squares slope of at least 64 KiB a step, on most steps, not slowing "
      "down), so a long training run ends in swapping or a kill. Leaks on Metal have been "
      "reported (tensorflow/tensorflow#60616); Python code that builds new tensors, models or "
      "tf.functions every step leaks the same way. A pasted text about TensorFlow that says its "
      "memory grows with every epoch or step, in words or in sizes that keep going up, is this "
      "finding as reported, with the probe that measures it.",
      "Run the step as one tf.function, create models and datasets once, call "
      "keras.backend.clear_session() between experiments, and try another tensorflow-metal "
      "release if the growth stays.", LEAK_ISSUE, fix_answer=ABOUT_THE_CODE)
def memory_leak(s: Snapshot, d: Derived):
    if s.model is None:
        return _reported_leak(s)
    mem = s.model.memory
    if mem is None or not mem.leak or mem.slope_bytes_per_step is None:
        return None
    ev = {"device": mem.device, "source": mem.source,
          "bytes_per_step": round(mem.slope_bytes_per_step),
          "growth_bytes": mem.growth_bytes, "process_bytes": mem.process_bytes,
          "device_bytes": mem.device_bytes}
    fix = Remediation("Look for objects created on every step; try another tensorflow-metal "
                      "release", (probe_cmd(s, *s.model.probe_args()),), LEAK_ISSUE)
    return memory_leak.finding(ev, fix, title=f"Memory leak on {mem.device.strip('/')}: "
                               f"{mem.message}")


def _reported_leak(s: Snapshot) -> Finding | None:
    """A pasted text about TensorFlow that says its memory grows as it runs, in words or sizes
    (tfdoctor.logtext.growth reads them). Reported, not measured here."""
    log = s.log
    if log is None or not log.growth or not log.names_tensorflow:
        return None
    first = log.growth[0]
    how = "figures" if first.sizes_mb else "words"
    ev = {"source": f"the pasted text's {how}", "said": [f"line {g.line}: {g.said}" for g in log.growth]}
    fix = Remediation("Measure it: the probe reads the process's memory after each training step and says "
                      "whether it keeps growing. Look for what is created on every step (models, datasets, "
                      "tf.functions); try another tensorflow-metal release", (probe_cmd(s, "--model", "MODEL"),),
                      LEAK_ISSUE)
    return memory_leak.finding(ev, fix, basis="reported",
                               title=f"By the text's own {how}, memory grows as it runs: {first.said}")


@rule(codes.MODEL_OK, "The model was examined", Severity.OK,
      "The model loaded, synthetic inputs were made from its signature, and each stage that "
      "ran (ops and their kernels, GPU against CPU, speed, memory) found nothing wrong here.",
      "Nothing to do.", summary=True, fix_answer=NOTHING_WRONG)
def model_ok(s: Snapshot, d: Derived):
    m = s.model
    if m is None or m.errors or not m.model:
        return None
    info = m.model
    parts = [f"{info.get('class')} ({info.get('kind')}), {info.get('layers')} layers, "
             f"{info.get('params')} parameters, {m.ops_total} ops"]
    if m.agreement is not None:
        parts.append(f"GPU matches the CPU (output error {m.agreement.output_error})")
    elif not m.gpus:
        parts.append("no GPU here")
    return model_ok.finding({"model": info, "gpus": m.gpus, "tf_version": m.tf_version},
                            title="Model examined: " + "; ".join(parts))
