"""What only the user can do: an arm64 Python, a native conda environment, a newer macOS.

These come first because nothing installed into the wrong interpreter or on a too-old macOS can
work; the plan prints them as shell lines and stops there (`fix` is run again afterwards).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ARM64_PYTHON_FIRST
from tfdoctor.derived import Derived
from tfdoctor.facts.archnames import ARM64, normalise
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix.steps import Step, shell_line
from tfdoctor.knowledge import best_pair
from tfdoctor.model import Finding

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix

def _commands(f: Finding | None) -> tuple[str, ...]:
    return tuple(f.remediation.commands) if f and f.remediation else ()


def user_steps(s: Snapshot, d: Derived, by_code: dict[str, Finding], matrix: "CompatMatrix",
               env: str) -> tuple[str, list[Step]] | None:
    """Steps tfdoctor cannot run, and why the plan stops there; None when it can go on.
    `by_code`: the problems found, by code."""
    py = s.python
    assert py is not None
    found = set(by_code)
    arm64_first = tuple(sorted(c for c, f in by_code.items() if f.fix_answer == ARM64_PYTHON_FIRST))
    # every line is a shell command to paste (issue 21): the next run of tfdoctor too
    again = shell_line(("tfdoctor", "fix", "--python", py.executable, "--new-env", env))
    if s.host.system == "Darwin" and s.host.hw_arm64:
        conda_x86 = codes.ARCH_CONDA_OSX_64 in found or (py.conda and py.conda.subdir == "osx-64")
        if conda_x86:
            lines = _commands(by_code.get(codes.ARCH_CONDA_OSX_64)) or (
                "CONDA_SUBDIR=osx-arm64 " + shell_line(("conda", "create", "-n", "tf-arm64",
                                                        f"python={py.minor}")),
                "conda activate tf-arm64", "conda config --env --set subdir osx-arm64")
            return ("the conda environment is osx-64 (Intel): an osx-arm64 environment must be "
                    "created with conda first", [Step(
                        "instruction", "Create an osx-arm64 conda environment (conda's, not tfdoctor's)",
                        (), "creates a new conda environment", "conda env remove -n tf-arm64", False,
                        arm64_first, (*lines, "tfdoctor fix  # in the activated tf-arm64 environment"))])
        archs = {normalise(a) for a in py.binary.archs}
        x86_only = normalise(py.process_arch) != ARM64 and (not archs or ARM64 not in archs)
        if x86_only:
            lines = _commands(by_code.get(codes.ARCH_X86_ONLY_INTERPRETER))
            if not lines:
                lines = ("arch -arm64 /bin/bash -c \"$(curl -fsSL "
                         "https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)\"",
                         shell_line(("/opt/homebrew/bin/brew", "install", f"python@{py.minor}")))
            lines = tuple(x for x in lines if " -m venv " not in x)
            new = shell_line(("arch", "-arm64", f"/opt/homebrew/bin/python{py.minor}", "-m", "venv", env))
            return (f"{py.binary.path or py.executable} is x86_64 only: it runs under Rosetta 2 "
                    "and cannot load the arm64 TensorFlow + tensorflow-metal pair",
                    [Step("instruction", "Install an arm64 Python (Homebrew in /opt/homebrew, or "
                          "python.org's universal2 installer), from a native shell", (),
                          "installs Homebrew for Apple silicon and its Python (outside tfdoctor)",
                          shell_line(("/opt/homebrew/bin/brew", "uninstall", f"python@{py.minor}")),
                          False, arm64_first, (*lines, new, shell_line(("tfdoctor", "fix", "--python", env))))])
        rec = best_pair.recommended_install(matrix, py.minor, ARM64, d.macos)
        if not rec.requirements:
            macos_old = codes.COMPAT_MACOS_TOO_OLD in found or "macOS" in rec.reason
            if macos_old:
                return (rec.reason, [Step("instruction", "Update macOS (System Settings > General > "
                                          "Software Update)", (), "updates macOS", "-", False,
                                          tuple(sorted(found & {codes.COMPAT_MACOS_TOO_OLD})),
                                          ("softwareupdate --list", again))])
            newest = best_pair.newest_python_with_working_pair(matrix, ARM64)
            if newest:
                return (rec.reason, [Step(
                    "instruction", f"Install Python {newest} for arm64", (),
                    f"installs Python {newest} (outside tfdoctor)",
                    shell_line(("/opt/homebrew/bin/brew", "uninstall", f"python@{newest}")), False,
                    tuple(sorted(found & {codes.COMPAT_NO_WHEEL_FOR_PYTHON})),
                    (shell_line(("/opt/homebrew/bin/brew", "install", f"python@{newest}")),
                     shell_line(("arch", "-arm64", f"/opt/homebrew/bin/python{newest}", "-m", "venv", env)),
                     shell_line(("tfdoctor", "fix", "--python", env))))])
            return rec.reason, []
    return None
