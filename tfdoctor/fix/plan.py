"""The fix plan: one target and the ordered steps that reach it, from a diagnosis.

A pure function of the snapshot, the findings diagnosed from it and the matrix (plus what the
caller knows beyond the snapshot: which packages the user asked for, uv or pip, conda or mamba,
where the new environment goes), so the plan for someone else's machine is the plan this machine
would run.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from tfdoctor import codes
from tfdoctor.derived import derive
from tfdoctor.facts.archnames import normalise
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix import conda
from tfdoctor.fix.carry import carry_over
from tfdoctor.fix.instructions import user_steps
from tfdoctor.fix.steps import Step, install_argv, launcher, shell_word, switching_tf, venv_argv
from tfdoctor.fix.target import Target, choose_target, pinned_version
from tfdoctor.model import Severity

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix
    from tfdoctor.report.diagnosis import Report

ANSWERABLE = frozenset({
    codes.ARCH_CONDA_OSX_64, codes.ARCH_PLUGIN_MISMATCH, codes.ARCH_ROSETTA,
    codes.ARCH_UNIVERSAL2_AS_X86, codes.ARCH_WHEEL_MISMATCH, codes.ARCH_X86_ONLY_INTERPRETER,
    codes.COMPAT_KERAS3, codes.COMPAT_MACOS_TOO_OLD, codes.COMPAT_NO_METAL,
    codes.COMPAT_NO_WHEEL_FOR_PYTHON, codes.COMPAT_NUMPY_ABI, codes.COMPAT_PIN_VIOLATION,
    codes.COMPAT_TF_METAL_MISMATCH, codes.INSTALL_METAL_WITHOUT_TENSORFLOW,
    codes.INSTALL_MULTIPLE_TENSORFLOW, codes.INSTALL_NO_TENSORFLOW, codes.INSTALL_SELF_SHIM,
    codes.INSTALL_SHIM_TARGET_MISSING, codes.INSTALL_TWO_METAL_PLUGINS,
    codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_IMPORT_FAILED, codes.RUNTIME_IMPORT_SIGILL,
    codes.RUNTIME_LIBRARY_ARCH_MISMATCH, codes.RUNTIME_NOT_INSTALLED, codes.RUNTIME_NUMPY_ABI,
    codes.RUNTIME_PLUGIN_LOAD_FAILED, codes.RUNTIME_PROTOBUF,
})
"""Finding codes a new environment with the target installed answers."""


class PlanError(ValueError):
    """A plan cannot be made from these inputs (no interpreter facts): a usage error."""


@dataclass(frozen=True)
class NotCarried:
    name: str
    why: str


@dataclass(frozen=True)
class Plan:
    diagnosed: str
    mode: str
    """"new-env" or "in-place"."""
    env: str | None
    """The environment the steps build or change."""
    target: Target | None
    steps: tuple[Step, ...]
    answers: tuple[str, ...]
    """Codes of the problems found that the plan answers."""
    unanswered: tuple[str, ...]
    """Codes of problems found that no step answers (a new environment does not change them)."""
    carried: tuple[str, ...] = ()
    not_carried: tuple[NotCarried, ...] = ()
    requested_known: bool = False
    installer: str = "pip"
    """"uv" or "pip"; "conda" or "mamba" for a conda environment (pip then installs TensorFlow)."""
    blocked: str | None = None
    """Why the plan stops at an instruction (None when tfdoctor can run every step)."""
    restore_file: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def nothing_to_do(self) -> bool:
        return not self.steps

    @property
    def runnable_steps(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.runnable) if not self.blocked else ()


def default_env_path(s: Snapshot) -> str:
    """`<env>-fixed` beside the diagnosed venv or conda environment; `~/venvs/tf-fixed` for a
    Python that is not in an environment of its own (a Homebrew or python.org install)."""
    py = s.python
    if py and py.prefix and (py.in_venv or py.conda):
        return py.prefix.rstrip("/") + "-fixed"
    return "~/venvs/tf-fixed"


def default_restore_file(s: Snapshot) -> str:
    prefix = s.python.prefix if s.python else ""
    return os.path.join(prefix, "tfdoctor-restore.txt") if prefix else "tfdoctor-restore.txt"


def build_plan(s: Snapshot, report: "Report", matrix: "CompatMatrix", *, new_env: str | None = None,
               in_place: bool = False, requested: Iterable[str] | None = None,
               installer: str = "pip", restore_file: str | None = None,
               tfdoctor: str = "tfdoctor", conda_tool: str | None = "conda") -> Plan:
    """The plan for this diagnosis. `requested`: the distributions the user asked for (pip's
    REQUESTED markers), None when not known; `installer`: "uv" or "pip"; `conda_tool`: "conda"
    or "mamba" to run a conda environment's steps with, None when neither is on PATH (its
    steps are then printed for the user to run)."""
    py = s.python
    if not s.target.ok or py is None:
        raise PlanError(f"no facts about {s.target.python or 'the interpreter'}: "
                        f"{s.target.message or s.target.problem or 'it could not be read'}")
    problems = [f for f in report.findings if f.severity >= Severity.WARNING]
    found = {f.code for f in problems}
    answerable = sorted(found & ANSWERABLE)
    unanswered = tuple(sorted(found - ANSWERABLE))
    env = py.executable if in_place else (new_env or default_env_path(s))
    mode = "in-place" if in_place else "new-env"
    if py.conda:
        installer = conda_tool or "conda"
    if not answerable:
        return Plan(py.executable, mode, None, None, (), (), unanswered, installer=installer,
                    notes=("nothing for fix to do" + (": the problems left are not about what is "
                                                      "installed" if unanswered else ""),))
    d = derive(s)
    by_code = {f.code: f for f in problems}
    mac = s.host.system == "Darwin"
    arch = d.hardware_arch if mac else normalise(py.process_arch)
    notes: list[str] = []

    # 1. What only the user can do: an arm64 Python, a native conda environment, macOS.
    blocked = user_steps(s, by_code, found, matrix, env)
    if blocked is not None:
        why, steps = blocked
        return Plan(py.executable, mode, env, None, tuple(steps), tuple(answerable), unanswered,
                    installer=installer, blocked=why, notes=tuple(notes))

    # 2. The target, from the matrix on a Mac; the installed TensorFlow elsewhere.
    target = choose_target(s, d, matrix, arch, found, notes)
    tf_version = pinned_version(target.requirements[0]) if target.requirements else None
    carried, not_carried = carry_over(s, d, matrix, target, tf_version, requested, mac)
    reqs = list(target.requirements) + [r for r in carried if r not in target.requirements]
    answers_install = tuple(answerable)
    launch = launcher(s)
    deps = conda.tensorflow_deps_requirement(tf_version) if py.conda and mac else None
    conda_runs = conda_tool is not None
    steps: list[Step] = []
    if in_place:
        exe = py.executable
        restore = restore_file or default_restore_file(s)
        steps.append(Step("save-restore", f"Save the installed set to {restore}",
                          (*launch, exe, "-m", "pip", "freeze", "--all"),
                          f"writes {restore} (nothing in the environment)", f"rm {shlex.quote(restore)}",
                          True))
        restore_cmd = shlex.join([*launch, exe, "-m", "pip", "install", "--force-reinstall",
                                  "--no-deps", "-r", restore])
        if py.conda:
            steps += conda.in_place_steps(installer, conda_runs, py.prefix, deps, restore_cmd,
                                          answers_install)
        switch = switching_tf(s, reqs)
        if switch:
            steps.append(Step("uninstall", f"Remove {', '.join(switch)}",
                              (*launch, exe, "-m", "pip", "uninstall", "-y", *switch),
                              f"uninstalls {', '.join(switch)} from {py.prefix}", restore_cmd, True,
                              answers_install))
        pip = "pip" if py.conda else installer
        steps.append(Step("install", f"Install {' '.join(reqs)}", install_argv(pip, launch, exe, reqs),
                          f"installs into the diagnosed environment {py.prefix}", restore_cmd, True,
                          answers_install))
        verify_python = exe
    elif py.conda:
        steps += conda.new_env_steps(installer, conda_runs, py.minor, env, deps, reqs, answers_install)
        verify_python = os.path.join(env, "bin", "python")
    else:
        new_python = os.path.join(env, "bin", "python")
        steps.append(Step("create-env", f"Create {env}", venv_argv(installer, launch, py.executable, env),
                          f"creates the directory {env}; the diagnosed environment is not touched",
                          f"rm -rf {shell_word(env)}", True))
        steps.append(Step("install", f"Install {' '.join(reqs)}",
                          install_argv(installer, launch, new_python, reqs),
                          f"installs into {env} only", f"rm -rf {shell_word(env)}", True, answers_install))
        verify_python = new_python
    if not in_place and codes.COMPAT_KERAS3 in found and s.env.get("TF_USE_LEGACY_KERAS"):
        notes.append(f"TF_USE_LEGACY_KERAS={s.env['TF_USE_LEGACY_KERAS']} is set in your shell; "
                     "it applies to the new environment too")
    if deps:
        notes.append(f"tensorflow {tf_version} on conda takes the apple channel's {deps} "
                     "(TensorFlow's compiled dependencies); TensorFlow itself comes from pip")
    blocked_why = None
    if py.conda and not conda_runs and any(st.command[:1] == ("conda",) for st in steps):
        blocked_why = ("neither conda nor mamba is on PATH here: run these steps yourself in a shell "
                       "where conda works (`conda activate base`)")
        steps = [dataclasses.replace(st, runnable=False) for st in steps]  # printed, never run
    steps.append(Step("verify", "Check the result", (tfdoctor, "check", "--python", verify_python),
                      "nothing (reads the environment)", "-", True))
    return Plan(py.executable, mode, env, target, tuple(steps), tuple(answerable), unanswered,
                tuple(carried), tuple(NotCarried(n, w) for n, w in not_carried),
                requested is not None, installer, blocked=blocked_why,
                restore_file=(restore_file or default_restore_file(s)) if in_place else None,
                notes=tuple(notes))
