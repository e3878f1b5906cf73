"""Does the notebook run the Python diagnosed? "It works in the terminal but not in Jupyter" is
a kernel that starts another interpreter: an x86_64 one (Anaconda's Intel installer) under
Rosetta 2, one of a virtual environment deleted since, or one without TensorFlow. Each kernel
is judged from its kernel.json and its interpreter's files (tfdoctor.gather.kernels); the one
that runs the diagnosed environment is judged by the rest of the report."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_OTHER_INTERPRETERS
from tfdoctor.advice.kernels import (
    IPYKERNEL_DOCS,
    can_register,
    environment_name,
    register_commands,
    remove_command,
)
from tfdoctor.derived import Derived
from tfdoctor.facts.archnames import ARM64, X86_64, normalise
from tfdoctor.facts.notebooks import KernelFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule

KERNELSPEC_DOCS = "https://jupyter-client.readthedocs.io/en/stable/kernels.html#kernel-specs"


def _evidence(k: KernelFacts) -> dict:
    return {"kernel": k.name, "display_name": k.display_name, "kernel_json": f"{k.spec_dir}/kernel.json",
            "interpreter": k.interpreter, "argv0": k.argv0}


def _title_name(k: KernelFacts) -> str:
    return f"{k.name} ({k.display_name})" if k.display_name and k.display_name != k.name else k.name


def _runs_as_x86(k: KernelFacts) -> bool:
    """The kernel's Python runs as x86_64: started with `arch -x86_64`, or its binary has x86_64
    code and no arm64 code."""
    if k.started_as:
        return normalise(k.started_as) in (X86_64, "i386")
    archs = {normalise(a) for a in k.archs}
    return X86_64 in archs and ARM64 not in archs


def _native_with_tensorflow(s: Snapshot, d: Derived) -> bool:
    return not d.translated and d.process_arch == ARM64 and d.tensorflow is not None


@rule(codes.KERNEL_ROSETTA, "A Jupyter kernel's Python runs as x86_64 on Apple silicon", Severity.WARNING,
      "The kernel starts an x86_64 interpreter (read from its Mach-O header), or starts it with "
      "`arch -x86_64`, so notebooks on it run under Rosetta 2: no tensorflow-metal wheel fits, "
      "TensorFlow's x86_64 builds need AVX, which Rosetta 2 lacks, and the GPU stays idle, "
      "however well the terminal's Python works. Anaconda's Intel installer and kernels "
      "registered from a Rosetta shell are the usual routes.",
      "Register an arm64 environment with TensorFlow as that kernel "
      "(`PYTHON -m ipykernel install --user --name NAME`), or remove the kernel.",
      IPYKERNEL_DOCS, fix_answer=ABOUT_OTHER_INTERPRETERS)
def kernel_rosetta(s: Snapshot, d: Derived):
    if not d.apple_silicon:
        return None
    found = []
    for k in s.jupyter.kernels:
        if not k.is_python or not k.exists or k.is_target or not _runs_as_x86(k):
            continue
        how = f"`arch -{k.started_as}`" if k.started_as else f"its binary holds {', '.join(k.archs)} code only"
        if _native_with_tensorflow(s, d) and can_register(s):
            fix = Remediation(f"Register this environment (arm64, with {d.tensorflow.name} "
                              f"{d.tensorflow.version}) as the kernel {k.name} in its place",
                              register_commands(s, k.name, k.display_name or k.name), IPYKERNEL_DOCS)
        else:
            fix = Remediation("Remove the kernel; then register an arm64 environment with TensorFlow "
                              "(`PYTHON -m ipykernel install --user --name NAME`)",
                              (remove_command(k, s.jupyter.jupyter is not None),), IPYKERNEL_DOCS)
        found.append(kernel_rosetta.finding(
            {**_evidence(k), "archs": k.archs, "started_as": k.started_as, "hw_arm64": s.host.hw_arm64},
            fix, title=f"Jupyter kernel {_title_name(k)} runs its Python as x86_64 under Rosetta 2 "
                       f"({how})"))
    return found


@rule(codes.KERNEL_MISSING_PYTHON, "A Jupyter kernel's Python does not exist", Severity.WARNING,
      "The kernel's kernel.json starts an interpreter that is not there: the virtual environment "
      "or conda environment it was registered from was deleted or moved, and the kernelspec "
      "stayed behind. Jupyter still lists it, and a notebook on it never starts ('kernel died', "
      "'FileNotFoundError').",
      "Remove the kernel (`jupyter kernelspec remove -f NAME`) and register the environment you "
      "use with `PYTHON -m ipykernel install --user --name NAME`.",
      KERNELSPEC_DOCS, fix_answer=ABOUT_OTHER_INTERPRETERS)
def kernel_missing_python(s: Snapshot, d: Derived):
    found = []
    for k in s.jupyter.kernels:
        if not k.is_python or k.exists is not False:
            continue
        shown = k.interpreter or k.argv0
        found.append(kernel_missing_python.finding(
            {**_evidence(k), "resolved_by": k.resolved_by},
            Remediation(f"Remove the kernel (its folder {k.spec_dir} is all that is left)",
                        (remove_command(k, s.jupyter.jupyter is not None),), KERNELSPEC_DOCS),
            title=f"Jupyter kernel {_title_name(k)} starts {shown}, which does not exist"))
    return found


@rule(codes.KERNEL_NO_TENSORFLOW, "Jupyter kernels without the TensorFlow this environment has",
      Severity.WARNING,
      "TensorFlow is installed in the environment diagnosed, but these Python kernels start other "
      "interpreters whose site-packages hold no TensorFlow, so a notebook on one of them fails "
      "with `ModuleNotFoundError: No module named 'tensorflow'` while the terminal works. A "
      "warning when no kernel runs this environment at all; information when one does (choose "
      "it in the notebook).",
      "Register this environment as a kernel (`PYTHON -m ipykernel install --user --name NAME`) "
      "and choose it in the notebook (Kernel > Change Kernel).",
      IPYKERNEL_DOCS, fix_answer=ABOUT_OTHER_INTERPRETERS)
def kernel_no_tensorflow(s: Snapshot, d: Derived):
    if d.tensorflow is None:
        return None
    kernels = s.jupyter.kernels
    without = [k for k in kernels if k.is_python and k.exists and not k.is_target
               and k.has_tensorflow is False]
    if not without:
        return None
    ours = next((k for k in kernels if k.is_python and k.is_target), None)
    names = ", ".join(k.name for k in without)
    evidence = {"tensorflow": d.tensorflow.label,
                "kernels": [_evidence(k) for k in without],
                "kernel_of_this_environment": ours.name if ours else None}
    plural = "s" if len(without) > 1 else ""
    if ours is not None:
        return kernel_no_tensorflow.finding(
            evidence, Remediation(f"Choose the kernel {_title_name(ours)} in the notebook (Kernel > "
                                  "Change Kernel): it runs this environment", (), IPYKERNEL_DOCS),
            title=f"Jupyter kernel{plural} {names} ha{'ve' if plural else 's'} no TensorFlow; "
                  f"kernel {ours.name} runs this environment",
            severity=Severity.INFO)
    name = environment_name(s)
    fix = (Remediation(f"Register this environment as the kernel {name} and choose it in the "
                       "notebook (Kernel > Change Kernel)",
                       register_commands(s, name, f"Python ({name})"), IPYKERNEL_DOCS)
           if can_register(s) else
           Remediation("pip may not install ipykernel into this interpreter (PEP 668): make a "
                       "virtual environment with TensorFlow and ipykernel, and register it", (),
                       IPYKERNEL_DOCS))
    return kernel_no_tensorflow.finding(
        evidence, fix, title=f"No Jupyter kernel runs this environment, and kernel{plural} {names} "
                             f"ha{'ve' if plural else 's'} no TensorFlow")

