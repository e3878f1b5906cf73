"""Import errors in a pasted log, diagnosed with this environment: no TensorFlow for the interpreter
that ran (or none transformers recognises), two plugins registering one platform, no GPU listed, a
notebook's kernel that died. (The wrong CPU and binaries of the other architecture: log_cpu.py; a
library that failed to load: log_libraries.py; NumPy: log_dependencies.py; protobuf: log_protobuf.py.)

The log says what broke; the snapshot says why here: which tensorflow-metal pairs with the installed
TensorFlow, what is installed. Where an environment rule finds the same cause (compat.tf-metal-mismatch),
that finding is the root: these findings never claim to explain it.
"""

from __future__ import annotations

from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import pip, python_cmd, unset_variable
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.fork_exit import fork_in_play
from tfdoctor.advice.installs import (APPLE_PLUGIN_PAGE, HARDWARE_REQUIREMENTS, WINDOWS_LAST_GPU_BUILD,
                                     install_commands, listing_read, matching_metal, pair_fix,
                                     recommended_requirements)
from tfdoctor.advice.kernels import IPYKERNEL_DOCS, environment_name, register_commands
from tfdoctor.derived import Derived
from tfdoctor.derived.text_speed import text_speed
from tfdoctor.advice.log_evidence import evidence, gpu_wanted, matches_of
from tfdoctor.facts.pasted_log import LogTextMatch
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.logtext import nvidia
from tfdoctor.model import Finding, Remediation, Severity, rule

PLUGGABLE_DEVICE = "https://github.com/tensorflow/community/blob/master/rfcs/20200624-pluggable-device-for-tensorflow.md"


@rule(codes.LOG_NO_TENSORFLOW_MODULE, "The interpreter that ran has no TensorFlow", Severity.ERROR,
      "CPython's 'No module named 'tensorflow'' names the top package itself: nothing that "
      "provides `tensorflow` is installed for the interpreter that ran the code (pip installed it "
      "into another one, a requirement named a distribution without a wheel here, or the install "
      "failed). install.no-tensorflow is the cause where this environment has none either; where "
      "it has one, the text came from another interpreter (information), and where a report both "
      "lists TensorFlow and shows the error, that is the report's cause: two interpreters. "
      "transformers' 'X requires the TensorFlow "
      "library but it was not found in your environment' is its own check: TensorFlow 2.0+ under a "
      "distribution name it knows (tensorflow-macos from 4.7; Apple's 2020-21 fork calls itself "
      "tensorflow-macos 0.1a). R's reticulate says 'Python module tensorflow was not found' of the "
      "Python R is bound to. In a Jupyter notebook (Jupyter named, IPython's traceback markers) whose "
      "report lists TensorFlow or says it imports elsewhere ('I can import tensorflow', 'it works in "
      "the terminal'), the other interpreter is the notebook's kernel: register the environment that "
      "has TensorFlow as a kernel and choose it.",
      "Install TensorFlow with the interpreter that runs the code (`python -m pip install ...`).",
      fix_answer=ABOUT_THE_LOG)
def no_tensorflow_module(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_NO_TENSORFLOW_MODULE):
        if match.variant == TRANSFORMERS_CHECK:
            return _unseen_by_transformers(s, d, match)
        if match.variant == RETICULATE_CHECK:
            text = ("R's reticulate is bound to a Python without TensorFlow (the one its 'Detected Python "
                    "configuration' names): install TensorFlow there from R, or point RETICULATE_PYTHON at "
                    "the Python that has it")
            return no_tensorflow_module.finding(evidence(s, match), Remediation(text, (
                "Rscript -e 'reticulate::py_config()'", "Rscript -e 'tensorflow::install_tensorflow()'")), title=text)
        if s.log.runs_in_notebook and (s.log.imports_elsewhere or (d.tf_main is not None and s.unknown)):
            return _kernel_of_another_interpreter(s, d, match)
        if d.tf_main is not None and s.unknown:  # a report's snapshot: both facts are the report's own
            text = (f"the report shows {d.tf_main.name} {d.tf_main.version} installed, and the interpreter that "
                    "ran the code has no tensorflow: two interpreters (the one pip installed into, and a "
                    "notebook's kernel, an editor's interpreter or a venv that was not active)")
            return no_tensorflow_module.finding(
                evidence(s, match, tensorflow=d.tf_version), Remediation(
                    text + ". Run the code with the one that has TensorFlow, or install it into the one that "
                    "ran (`python -m pip install` with that interpreter)",
                    ("python3 -c 'import sys; print(sys.executable)'",)), title=text)
        if d.tf_main is not None:
            text = (f"the text says the interpreter that ran has no tensorflow, but {d.tf_main.name} "
                    f"{d.tf_main.version} is installed here: the code ran with another interpreter")
            return no_tensorflow_module.finding(
                evidence(s, match, tensorflow=d.tf_version), Remediation(
                    text + ". Run it with this one, or install TensorFlow into that one",
                    ("python3 -c 'import sys; print(sys.executable)'",)),
                title=text, severity=Severity.INFO)
        reqs = recommended_requirements(s).requirements
        return no_tensorflow_module.finding(
            evidence(s, match), Remediation("Install TensorFlow into the interpreter that runs the code: "
                                            + " + ".join(reqs), tuple(install_commands(s, reqs))))
    return None


def _kernel_of_another_interpreter(s: Snapshot, d: Derived, match: Any) -> Finding:
    """A notebook's "No module named 'tensorflow'" where TensorFlow imports elsewhere: the kernel
    starts another interpreter than the environment TensorFlow is in (a conda env made without
    Jupyter, whose `jupyter` is base's; a venv never registered), which kernel.no-tensorflow
    finds where tfdoctor can read the kernels."""
    other = (f"the environment the report lists {d.tf_main.name} {d.tf_main.version} in" if d.tf_main is not None
             else "the one the report says imports TensorFlow")
    name = environment_name(s)
    text = f"the notebook's kernel runs another Python than {other}: the kernel's interpreter has no tensorflow"
    return no_tensorflow_module.finding(
        evidence(s, match, tensorflow=d.tf_version, notebook=True, imports_elsewhere=s.log.imports_elsewhere),
        Remediation(text + ". With that environment active, register it as a Jupyter kernel, then choose it in "
                    "the notebook (Kernel > Change Kernel); `jupyter kernelspec list` shows the kernels and "
                    "`import sys; print(sys.executable)` in a cell the interpreter a kernel runs",
                    register_commands(s, name, f"Python ({name})"), IPYKERNEL_DOCS),
        title=text)


RETICULATE_CHECK = "reticulate-module-not-found"
TRANSFORMERS_CHECK = "transformers-requires-tensorflow"
"""transformers' own check: it finds TensorFlow by distribution name and version, not by importing it."""


def _unseen_by_transformers(s: Snapshot, d: Derived, match: Any):
    """transformers looks for TensorFlow 2.0+ under the distribution names it knows (tensorflow-macos
    only from 4.7); Apple's 2020-21 fork calls itself tensorflow-macos 0.1a, below 2.0."""
    installed = d.tf_main
    if installed is not None and d.fork:
        text = (f"transformers cannot use {installed.label}: Apple's 2020-21 ML Compute fork calls itself "
                "tensorflow-macos 0.1a, below the TensorFlow 2.0 transformers needs (compat.mlcompute-fork)")
        return no_tensorflow_module.finding(evidence(s, match), Remediation(text), title=text, severity=Severity.INFO)
    if installed is not None:
        text = (f"transformers did not find {installed.label}: it looks for TensorFlow 2.0+ under the distribution "
                "names it knows (tensorflow-macos from transformers 4.7): upgrade transformers, and run it with "
                "this interpreter")
        return no_tensorflow_module.finding(evidence(s, match, tensorflow=d.tf_version), Remediation(
            text, (pip(s, "install", "--upgrade", "transformers"),)), title=text, severity=Severity.WARNING)
    text = ("transformers found no TensorFlow 2.0+ it recognises in the interpreter that ran: none is installed "
            "there, or one it does not know by name (Apple's 2020-21 fork, which calls itself tensorflow-macos "
            "0.1a; tensorflow-macos with transformers before 4.7). What that interpreter has tells which")
    return no_tensorflow_module.finding(evidence(s, match), Remediation(text, (
        'python3 -m pip list 2>/dev/null | grep -i -E "^(tensorflow|tf-nightly|transformers)"',)), title=text)


@rule(codes.LOG_PLUGIN_REGISTERED_TWICE, "Two plugins registered the same device platform",
      Severity.ERROR,
      "A PluggableDevice registers its platform by name (METAL, DML); when two libraries with the "
      "same platform are loaded (tensorflow-metal and tensorflow-metal-plugin both install "
      "libmetal_plugin.dylib; a copy in tensorflow-plugins/ and another named by "
      "TF_PLUGGABLE_DEVICE_LIBRARY_PATH), TensorFlow aborts: 'platform is already registered with "
      "name: \"METAL\"' (bmaltais/kohya_ss#563, pleonard212/pix-plot#268).",
      "Keep one plugin: uninstall both distributions and install the one that pairs with the "
      "installed TensorFlow.", PLUGGABLE_DEVICE, fix_answer=ABOUT_THE_LOG)
def plugin_registered_twice(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_PLUGIN_REGISTERED_TWICE):
        platform = match.fields.get("platform", "")
        dists = [p.name for p in d.metal_plugins]
        libraries = [f"{p.dir}/{p.name}" for p in s.plugins if p.name]
        env_path = s.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH")
        commands: list[str] = []
        if platform == "METAL" and len(dists) > 1:
            text = f"{' and '.join(dists)} are both installed and both register METAL: keep one"
            reqs, _why, _facts = pair_fix(s, d)
            commands = [pip(s, "uninstall", "-y", *dists)] + install_commands(s, reqs)
        elif env_path:
            text = ("TF_PLUGGABLE_DEVICE_LIBRARY_PATH loads a plugin that tensorflow-plugins/ already "
                    "loads: unset it")
            commands = [unset_variable("TF_PLUGGABLE_DEVICE_LIBRARY_PATH")]
        elif len(libraries) > 1:
            text = f"{len(libraries)} plugin libraries are installed: keep the one for {platform}"
        elif "plugins" in s.unknown:  # a report: what it loaded is not listed, not absent
            text = (f"two libraries registering {platform} were loaded: a second tensorflow-metal in "
                    "another site-packages on the path (the user site ~/Library/Python, a system "
                    "Python's) or one named by TF_PLUGGABLE_DEVICE_LIBRARY_PATH; list them and keep one")
            commands = [f"{python_cmd(s)} -c \"import glob, sys; [print(p) for d in sys.path "
                        "for p in glob.glob(d + '/tensorflow-plugins/*')]\""]
        else:
            text = (f"two libraries registering {platform} were loaded; this environment shows "
                    f"{len(libraries)} plugin file(s), so the log came from another environment or "
                    "a plugin loaded explicitly (tf.load_pluggable_device_library)")
        return plugin_registered_twice.finding(
            evidence(s, match, metal_distributions=dists or None, plugin_files=libraries or None,
                     TF_PLUGGABLE_DEVICE_LIBRARY_PATH=env_path),
            Remediation(text, tuple(commands), PLUGGABLE_DEVICE),
            title=f"Platform {platform} registered twice: {text}")
    return None


def _gpu_off_macos(s: Snapshot, d: Derived) -> tuple[str, Severity]:
    """Why no GPU is listed off macOS, where tensorflow-metal does not apply: on native Windows,
    TensorFlow after 2.10 has no GPU build at all."""
    if s.host.system == "Windows":
        after = parse_version(d.tf_version)
        if after and after.release[:2] > (2, 10):
            return (f"TensorFlow {d.tf_version} has no GPU build for native Windows ({WINDOWS_LAST_GPU_BUILD} "
                    "was the last): run it in WSL2 with tensorflow[and-cuda], or use TensorFlow "
                    f"{WINDOWS_LAST_GPU_BUILD} with CUDA 11.2 and cuDNN 8.1"), Severity.ERROR
        return (f"on native Windows only TensorFlow {WINDOWS_LAST_GPU_BUILD} and older have a GPU build (with "
                "the CUDA and cuDNN of their release); later ones need WSL2"), Severity.WARNING
    where = s.host.system or "a machine with an NVIDIA GPU (the text names it, or CUDA)"
    return (f"tensorflow-metal is for macOS only; on {where} a GPU needs CUDA "
            "(tensorflow[and-cuda]) or another plugin"), Severity.WARNING


@rule(codes.LOG_NO_GPU_LISTED, "TensorFlow listed no GPU", Severity.ERROR,
      "`tf.config.list_physical_devices('GPU')` is [] when no GPU plugin is installed or loaded: "
      "tensorflow-metal missing, built for another TensorFlow, installed for another Python, "
      "or Python running as x86_64 under Rosetta 2 (the plugin is arm64 only). Apple's 2020-21 ML "
      "Compute fork lists none by design (information). Off macOS (or where the system is not stated but the "
      "text names an NVIDIA GPU or CUDA) a GPU needs CUDA; on native "
      "Windows TensorFlow 2.10 was the last release with a GPU build (tensorflow.org/install/pip), "
      "so a later one lists none there. An NVIDIA GPU older than the build's kernels is ignored "
      "('Ignoring visible gpu device (...) with Cuda compute capability 3.0. The minimum required "
      "Cuda capability is 3.5.', tensorflow/tensorflow#17445): an error whatever else is installed. "
      "The NVIDIA driver's own 'failed call to cuInit: CUDA_ERROR_NO_DEVICE' (a GPU hidden by "
      "CUDA_VISIBLE_DEVICES, a container started without it, no kernel driver) is read where the text "
      "wants a GPU: a machine with the driver's library and no GPU prints it on every run.",
      "Install the TensorFlow/tensorflow-metal pair for this Python (the finding names it).",
      APPLE_PLUGIN_PAGE, fix_answer=ABOUT_THE_LOG)
def no_gpu_listed(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_NO_GPU_LISTED)
    for match in sorted(matches, key=lambda m: _WHY_FIRST.index(m.variant) if m.variant in _WHY_FIRST
                        else len(_WHY_FIRST)):  # why, before the list
        facts = {"tensorflow": d.tf_version, "tensorflow_metal": d.metal.version if d.metal else None,
                 "translated": d.translated, "system": s.host.system}
        severity = None
        if match.variant == nvidia.GPU_BELOW_CAPABILITY:
            f = match.fields
            capability = ("its compute capability is below the one" if not (f.get("have") and f.get("need"))
                          else f"its compute capability {f['have']} is below the {f['need']}")  # else a cut paste
            text = (f"TensorFlow ignored the {f.get('gpu') or 'NVIDIA GPU'}: {capability} this build has kernels "
                    f"for; use a TensorFlow built for it (an older release, or one built from source with "
                    f"TF_CUDA_COMPUTE_CAPABILITIES={f.get('have') or 'its capability'}) or a newer GPU")
            commands: tuple[str, ...] = ("nvidia-smi --query-gpu=name,compute_cap --format=csv",)
            return no_gpu_listed.finding(evidence(s, match, **facts), Remediation(text, commands, HARDWARE_REQUIREMENTS),
                                         title=f"No GPU listed: {text}", severity=Severity.ERROR)
        if match.variant == nvidia.CUINIT_NO_DEVICE:
            return _no_cuda_device(s, match, facts, wanted=gpu_wanted(s))
        if (not d.is_mac if s.host.system else s.log.names_nvidia_gpu):  # unstated: unknown, unless NVIDIA's
            text, severity = _gpu_off_macos(s, d)
            commands = ()
        elif d.translated:
            text = "this Python runs as x86_64 under Rosetta 2: the Metal plugin is arm64 only (see arch.rosetta)"
            commands = ()
        elif (speed := text_speed(s.log)) is not None:
            text = (f"the same text gives timings of a run on the GPU ({speed.said('GPU')}) and of one on "
                    f"the CPU ({speed.said('CPU')}): the empty list is of the run without the GPU")
            commands = ()
            severity = Severity.INFO
        elif fork_in_play(s, d):
            text = ("Apple's 2020-21 ML Compute fork lists no GPU by design: it runs on the GPU through "
                    "ML Compute, chosen with mlcompute.set_mlc_device(device_name='gpu') (see "
                    "compat.mlcompute-fork)")
            commands = ()
            severity = Severity.INFO
        elif not d.metal:  # compat.no-metal's own advice: the plugin for this TensorFlow, else a pair
            plugin = (matching_metal(d.matrix, d.tf_version, s.python.minor, d.hardware_arch)
                      if d.matrix and d.tf_version and s.python else None)
            reqs = ((f"tensorflow-metal=={plugin.version}",) if plugin
                    else recommended_requirements(s).requirements)
            text = (f"tensorflow-metal is not installed: install {' + '.join(reqs) or 'a pair for this Python'}"
                    if listing_read(s) else  # a report's list of what it mentions: unknown, not absent
                    f"no Metal plugin was loaded (tensorflow-metal missing, or built for another TensorFlow: "
                    f"`pip show tensorflow-metal` tells): install {' + '.join(reqs) or 'a pair for this Python'}")
            commands = (pip(s, "install", reqs[0]),) if plugin else tuple(install_commands(s, reqs))
        else:
            reqs, why, pair = pair_fix(s, d)
            facts.update(pair)
            text = f"{d.metal.label} is installed but no GPU is listed: {why}"
            commands = tuple(install_commands(s, reqs)) if reqs else ()
        return no_gpu_listed.finding(evidence(s, match, **facts),
                                     Remediation(text, commands, APPLE_PLUGIN_PAGE),
                                     title=f"No GPU listed: {text}", severity=severity)
    return None


_WHY_FIRST = (nvidia.GPU_BELOW_CAPABILITY, nvidia.CUINIT_NO_DEVICE)
"""Variants that say why no GPU is listed, in the order they are told before an empty list."""


def _no_cuda_device(s: Snapshot, match: LogTextMatch, facts: dict, wanted: bool) -> Finding:
    """The NVIDIA driver's own "no CUDA-capable device is detected": where a GPU is wanted, what
    hides it; elsewhere what a machine with the driver's library and no GPU prints (information)."""
    if not wanted:
        text = ("the NVIDIA driver found no CUDA device: a machine with the driver's library and no NVIDIA GPU (a "
                "cloud notebook's CPU runtime) prints this on every run; if this one has a GPU, nvidia-smi tells "
                "whether the driver sees it")
        return no_gpu_listed.finding(evidence(s, match, **facts), Remediation(text, ("nvidia-smi",), HARDWARE_REQUIREMENTS),
                                     title=text, severity=Severity.INFO)
    if match.fields.get("no_driver"):
        text = ("the NVIDIA kernel driver is not running where TensorFlow ran (/proc/driver/nvidia/version does "
                "not exist): in a container, start it with the GPU (docker run --gpus all, with the NVIDIA "
                "Container Toolkit on the host); elsewhere install the NVIDIA driver and reboot")
        commands: tuple[str, ...] = ("nvidia-smi", "cat /proc/driver/nvidia/version")
    else:
        text = ("the NVIDIA driver found no CUDA device: CUDA_VISIBLE_DEVICES hides the GPU (set to -1 or "
                "empty), a container was started without it (docker run --gpus all), or the driver does not "
                "see the card (nvidia-smi tells)")
        commands = ("nvidia-smi", f'{python_cmd(s)} -c "import os; print(repr(os.environ.get(\'CUDA_VISIBLE_DEVICES\')))"')
    return no_gpu_listed.finding(evidence(s, match, **facts), Remediation(text, commands, HARDWARE_REQUIREMENTS),
                                 title=f"No GPU listed: {text}", severity=Severity.ERROR)


@rule(codes.LOG_KERNEL_DIED, "The notebook's kernel died", Severity.INFO,
      "Jupyter ('The kernel appears to have died. It will restart automatically.') and VS Code "
      "('The Kernel crashed while executing code in the current cell') say only that the kernel's "
      "Python process ended: why is printed where the kernel ran (an illegal instruction under "
      "Rosetta, a Metal abort, memory). A crash message pasted beside it is the diagnosis; alone "
      "it is a question, answered by running the same code in a terminal with the kernel's Python "
      "and by `tfdoctor check --kernel NAME`, which diagnoses the Python the kernel starts.",
      "Run the failing line with the kernel's Python in a terminal, and `tfdoctor check --kernel NAME`.",
      fix_answer=ABOUT_THE_LOG)
def kernel_died(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_KERNEL_DIED):
        text = ("The notebook's kernel died: its reason is printed where the kernel ran, not in the notebook. "
                "Run the failing line in a terminal with the kernel's Python, and diagnose that Python")
        return kernel_died.finding(evidence(s, match), Remediation(text, (
            "jupyter kernelspec list", "tfdoctor check --kernel NAME",
            'python -c "import tensorflow as tf; print(tf.config.list_physical_devices())"')), title=text)
    return None
