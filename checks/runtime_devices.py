"""TensorFlow imported: did a GPU appear, did a pinned op run on it, could memory growth be set,
and what did TensorFlow log about GPU libraries and slow optimizers? Reads only snapshot.runtime
(gathered by tfdoctor.gather.runtime); every fix is a command to run."""

from __future__ import annotations

import os
import shlex

from tfdoctor import codes
from tfdoctor.advice.commands import export_variable, pip, python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_CODE, A_SYMPTOM, CAUSE_NOT_KNOWN, NOTHING_WRONG
from tfdoctor.advice.installs import install_commands, matching_metal, pair_fix, recommended_requirements
from tfdoctor.advice.runtime_evidence import base_evidence, metal_version, reinstall_tf
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Finding, Remediation, Severity, rule

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"


def _imported(s: Snapshot) -> bool:
    return s.runtime.outcome == "ok"


@rule(codes.RUNTIME_GPU_LIBRARIES, "TensorFlow could not load its GPU libraries",
      Severity.WARNING,
      "TensorFlow logged 'Cannot dlopen some GPU libraries' or 'Could not load dynamic "
      "library ...': GPU support libraries (CUDA, cuDNN, TensorRT) are missing or of the wrong "
      "version, so no GPU is used.",
      "Install the libraries the log names, or TensorFlow's bundled ones (pip install "
      "'tensorflow[and-cuda]' on Linux).", explains=(codes.RUNTIME_NO_GPU,), fix_answer=CAUSE_NOT_KNOWN)
def gpu_libraries(s: Snapshot, d: Derived):
    rt = s.runtime
    if not _imported(s):
        return None
    gpus, log, base = rt.gpus, rt.log, base_evidence(s, d, rt)
    if log.gpu_libraries_missing or (log.library_failures and not gpus):
        failures = [{"library": f.library, "error": f.error} for f in log.library_failures[:8]]
        severity = Severity.WARNING if log.gpu_libraries_missing else Severity.INFO
        fix = Remediation("Install the GPU libraries TensorFlow looks for (on Linux the pip extra "
                          "brings them)", (pip(s, "install", "tensorflow[and-cuda]"),)
                          if s.host.system == "Linux" else ())
        return gpu_libraries.finding(
            {**base, "library_failures": failures, "gpu_libraries_missing": log.gpu_libraries_missing},
            fix, severity=severity,
            title=f"TensorFlow could not load {len(failures) or 'some'} GPU librar"
                  f"{'y' if len(failures) == 1 else 'ies'}"
                  + (f": {', '.join(f['library'] for f in failures[:3])}" if failures else ""))
    return None


def _no_plugin(s: Snapshot, d: Derived, base: dict) -> Finding:
    """Apple silicon, TensorFlow imported, no Metal plugin at all: the GPU is idle because nothing
    offers it to TensorFlow (compat.no-metal names the plugin to install when it is known)."""
    reqs, why, facts = pair_fix(s, d)
    matching = (matching_metal(d.matrix, d.tf_version, s.python.minor, d.hardware_arch)
                if d.matrix is not None and d.tf_version and s.python else None)
    if matching is not None:  # the plugin for the installed TensorFlow, as compat.no-metal names it
        reqs, why = (f"tensorflow-metal=={matching.version}",), (
            f"tensorflow-metal {matching.version} goes with TensorFlow {d.tf_version}")
    fix = Remediation(f"Install the Metal plugin for this TensorFlow: {why}",
                      tuple(install_commands(s, reqs)),
                      "https://developer.apple.com/metal/tensorflow-plugin/")
    return no_gpu.finding(
        {**base, "plugins": [], "physical_devices": [p.name for p in s.runtime.physical_devices], **facts},
        fix, severity=Severity.WARNING,
        title="No GPU is listed: no Metal plugin (tensorflow-metal) is installed, so the Apple GPU is idle")


@rule(codes.RUNTIME_NO_GPU, "TensorFlow lists no GPU",
      Severity.ERROR,
      "TensorFlow imported, but tf.config.list_physical_devices('GPU') is empty. With "
      "tensorflow-metal (or another plugin) installed, the plugin did not register its device "
      "(wrong macOS, a plugin TensorFlow skipped, missing GPU libraries): an error. On Apple "
      "silicon with no Metal plugin installed at all, nothing offers the GPU to TensorFlow: a "
      "warning, whose cause is compat.no-metal.",
      "Install a TensorFlow/tensorflow-metal pair known to work on this macOS (the finding "
      "names it), or the Metal plugin that goes with this TensorFlow.",
      explains=(codes.PROBE_CPU_ONLY,), fix_answer=A_SYMPTOM)
def no_gpu(s: Snapshot, d: Derived):
    rt = s.runtime
    if not _imported(s):
        return None
    gpus, log, base = rt.gpus, rt.log, base_evidence(s, d, rt)
    metal = metal_version(d)
    plugins = [p for p in rt.plugins if p.exists]
    if not gpus and not plugins and not metal and d.apple_silicon and not d.translated:
        return _no_plugin(s, d, base)
    if not gpus and (plugins or (metal and d.apple_silicon)):
        reqs, why, facts = pair_fix(s, d) if (metal or d.apple_silicon) else ((), "", {})
        ev = {**base, "plugins": [p.path for p in plugins], "physical_devices":
              [d.name for d in rt.physical_devices], "metal_device_log": log.metal_device, **facts}
        if reqs:
            fix = Remediation(f"Install a pair known to work: {why}",
                              (pip(s, "install", "--force-reinstall", *reqs),))
        else:
            fix = Remediation("Reinstall the plugin's package for this TensorFlow, or remove it",
                              tuple(f"mv {shlex.quote(p.path)} {shlex.quote(p.path + '.disabled')}"
                                    for p in plugins[:3]))
        names = ", ".join(os.path.basename(p.path) for p in plugins) or f"tensorflow-metal {metal}"
        return no_gpu.finding(
            ev, fix, title=f"No GPU is listed although {names} is installed",
            severity=Severity.ERROR if metal and d.apple_silicon else Severity.WARNING)
    return None


@rule(codes.RUNTIME_GPU_PLACEMENT, "Ops pinned to the GPU ran elsewhere",
      Severity.ERROR,
      "A 2x2 matmul run under tf.device('/GPU:i') produced a tensor whose .device is not that "
      "GPU (soft placement fell back to the CPU), or failed. The GPU is listed but does not "
      "run even a matmul: a plugin without kernels for this TensorFlow.",
      "Install a TensorFlow/tensorflow-metal pair known to work together.", explains=(codes.PROBE_GPU_NOT_USED,),
      fix_answer=A_SYMPTOM)
def gpu_placement(s: Snapshot, d: Derived):
    rt = s.runtime
    if not _imported(s):
        return None
    base = base_evidence(s, d, rt)
    metal = metal_version(d)
    bad = [p for p in rt.placements if p.requested.upper().startswith("/GPU")
           and (p.error or not p.on_requested_device)]
    if bad:
        reqs, why, facts = pair_fix(s, d) if (metal or d.apple_silicon) else ((), "", {})
        ev = {**base, "placements": [{"requested": p.requested, "device": p.device, "error": p.error}
                                     for p in bad], **facts}
        first = bad[0]
        ran = first.device.rsplit("/", 1)[-1].replace("device:", "") if first.device else "nowhere"
        title = (f"A matmul pinned to {first.requested.strip('/')} ran on {ran}"
                 + (f" ({first.error[:120]})" if first.error else ""))
        commands = (pip(s, "install", "--force-reinstall", *reqs),) if reqs else \
            tuple(c for c in (reinstall_tf(s, d),) if c)
        fix = Remediation("The GPU does not run even a matmul: install a TensorFlow/plugin pair "
                          f"known to work{': ' + why if why else ''}", commands)
        return gpu_placement.finding(ev, fix, title=title)
    return None


@rule(codes.RUNTIME_MEMORY_GROWTH, "GPU memory growth could not be set",
      Severity.WARNING,
      "In a fresh process, right after import, tf.config.experimental.set_memory_growth(gpu, "
      "True) failed or get_memory_growth did not read back True. 'Physical devices cannot be "
      "modified after being initialized' means something initialised the devices during "
      "import (a plugin, a sitecustomize); code that sets memory growth will fail the same way.",
      "Set memory growth before any op runs, or set TF_FORCE_GPU_ALLOW_GROWTH=true.",
      fix_answer=ABOUT_THE_CODE)
def memory_growth(s: Snapshot, d: Derived):
    rt = s.runtime
    if not _imported(s):
        return None
    gpus, base = rt.gpus, base_evidence(s, d, rt)
    growth = [d for d in gpus if d.memory_growth_error or d.memory_growth is False]
    if growth:
        first = growth[0]
        reason = first.memory_growth_error or "get_memory_growth read back False"
        ev = {**base, "devices": [{"device": d.name, "memory_growth": d.memory_growth,
                                   "error": d.memory_growth_error} for d in growth]}
        snippet = ("import tensorflow as tf; "
                   "[tf.config.experimental.set_memory_growth(g, True) for g in "
                   "tf.config.list_physical_devices('GPU')]; print('memory growth set')")
        fix = Remediation(
            "Set memory growth first thing after import, before any op or tf.config call that "
            "initialises the GPU, or let TensorFlow do it: export TF_FORCE_GPU_ALLOW_GROWTH=true",
            (export_variable("TF_FORCE_GPU_ALLOW_GROWTH", "true"), f"{python_cmd(s)} -c \"{snippet}\""))
        return memory_growth.finding(
            ev, fix, title=f"Memory growth could not be set on "
                           f"{first.name.replace('/physical_device:', '')} in a fresh process: {reason[:160]}")
    return None


@rule(codes.RUNTIME_OPTIMIZER_SLOWDOWN, "Keras' v2.11+ optimizers may run slowly on this Apple GPU",
      Severity.INFO,
      "Keras 2.11-2.15 logs 'At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs "
      "slowly on M1/M2 Macs, please use the legacy Keras optimizer instead' on every Apple-silicon "
      "Mac, whether or not it matters: Apple's plugin has fused kernels only for the legacy "
      "optimizers, so the new ones run op by op (tensorflow/tensorflow#59438); some versions "
      "silently fall back to the legacy optimizer. It applies only where a Metal GPU is in use, and "
      "is a warning only when the training probe measured the GPU slower than the CPU.",
      "Use tf.keras.optimizers.legacy.* explicitly, or move to the recommended TensorFlow "
      "(Keras 3) pair.",
      OPTIMIZER_ISSUE, fix_answer=ABOUT_THE_CODE)
def optimizer_slowdown(s: Snapshot, d: Derived):
    rt = s.runtime
    log = rt.log
    if not _imported(s) or not (log.optimizer_slowdown or log.optimizer_fallback):
        return None
    if not (d.apple_silicon and d.metal_plugins and rt.gpus):
        return None  # the log line is printed on any Mac; it matters only with a Metal GPU in use
    slower = d.verdicts_of(codes.PROBE_GPU_SLOWER, "train")
    faster = d.verdicts_of(codes.PROBE_GPU_FASTER, "train")
    keras = rt.keras
    try:
        rec = recommended_requirements(s)
        reqs, rec_text = rec.requirements, rec.text
    except Exception:  # noqa: BLE001 - advice only
        reqs, rec_text = (), ""
    names = log.optimizer_slowdown or ["tf.keras.optimizers.Adam"]
    impact = ("the training probe measured the GPU slower than the CPU" if slower else
              "the training probe measured the GPU faster than the CPU" if faster else
              "no training probe measured its impact")
    ev = {**base_evidence(s, d, rt), "optimizers": names, "fell_back_to_legacy": log.optimizer_fallback,
          "keras": keras.tf_keras_resolved_version if keras else None,
          "metal_device": log.metal_device, "measured_impact": impact,
          "log": [e.line for e in log.events if e.kind in ("optimizer-slowdown", "optimizer-fallback")][:3]}
    legacy = names[0].replace(".optimizers.", ".optimizers.legacy.")
    commands = tuple(install_commands(s, reqs))
    fix = Remediation(
        f"Use the legacy optimizer explicitly ({legacy}), or install the recommended pair "
        f"(Keras 3){': ' + rec_text if rec_text else ''}", commands, OPTIMIZER_ISSUE)
    return optimizer_slowdown.finding(
        ev, fix, severity=Severity.WARNING if slower else Severity.INFO,
        explains=(codes.PROBE_GPU_SLOWER,) if slower else (),
        title=f"Keras warns that the v2.11+ optimizer {names[0]} runs slowly on this Apple GPU"
              + (" (it fell back to the legacy one)" if log.optimizer_fallback else "") + f"; {impact}")


@rule(codes.RUNTIME_OK, "TensorFlow imports and runs",
      Severity.OK,
      "TensorFlow imported in a child process, listed its devices, and a pinned op ran on each.",
      "Nothing to do.", fix_answer=NOTHING_WRONG)
def runtime_ok(s: Snapshot, d: Derived):
    rt = s.runtime
    if not _imported(s):
        return None
    log, base = rt.log, base_evidence(s, d, rt)
    devices = [d.name.replace("/physical_device:", "") for d in rt.physical_devices]
    ran = [p.requested.strip("/") for p in rt.placements if p.on_requested_device and not p.error]
    keras = rt.keras
    keras_text = ""
    if keras and keras.tf_keras_resolved_version:
        keras_text = f"; tf.keras is Keras {keras.tf_keras_resolved_version}"
    title = (f"TensorFlow {rt.tf_version} imports in {rt.import_s or 0:.1f} s; devices: "
             f"{', '.join(devices) or 'none'}"
             + (f"; a pinned op ran on {', '.join(ran)}" if ran else "") + keras_text)
    ok_ev = {**base, "tf_version": rt.tf_version, "tf_git_version": rt.tf_git_version,
             "import_s": rt.import_s, "physical_devices": devices,
             "logical_devices": [d.name for d in rt.logical_devices],
             "placements": {p.requested: p.device for p in rt.placements},
             "build_info": rt.build_info,
             "keras": {"version": keras.tf_keras_resolved_version, "is_keras3": keras.is_keras3,
                       "tf_keras": keras.tf_keras_version, "TF_USE_LEGACY_KERAS": keras.use_legacy_keras}
             if keras else None,
             "plugins": [p.path for p in rt.plugins], "metal_device": log.metal_device,
             "system_memory": log.system_memory, "stage_errors": [f"{e.stage}: {e.error}" for e in rt.errors]}
    return runtime_ok.finding(ok_ev, title=title)
