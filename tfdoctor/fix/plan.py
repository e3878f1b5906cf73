"""The fix plan: one goal and the ordered steps that reach it, from a diagnosis.

A pure function of the report (its snapshot, the facts derived from it, its findings, each with
what fix can do about it as its code declares) and the matrix, plus what the caller knows beyond
the snapshot: uv or pip, conda or mamba, where the new environment goes, whether a local source
directory is still there. So the plan for someone else's machine is the plan this machine would
run, and fix works nothing out that the diagnosis worked out already.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from tfdoctor import codes
from tfdoctor.derived.markers import requirement_names
from tfdoctor.facts.archnames import normalise
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix import conda
from tfdoctor.fix.carry import carry_over, requested_known
from tfdoctor.fix.instructions import user_steps
from tfdoctor.fix.steps import (Step, install_argv, launcher, pip_argv, shell_line, switching_tf,
                                venv_argv)
from tfdoctor.fix.goal import Goal, choose_goal, pinned_version
from tfdoctor.model import DIAGNOSED, Change, Severity

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix
    from tfdoctor.report.diagnosis import Report

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
    """The environment the steps build or change (in place: its interpreter)."""
    goal: Goal | None
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
    restore_record: str | None = None
    """In place: the directory that keeps the installed set (and what the steps replace)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    env_dir: str | None = None
    """The environment directory written to (the new one, or the diagnosed prefix in place):
    what its lock and journal are named after."""
    editables: tuple[str, ...] = ()
    """Source directories carried over in editable mode (`-e DIR`)."""
    launch: tuple[str, ...] = ()
    """What starts the interpreter (`arch -arm64` for a universal2 Python under Rosetta)."""

    @property
    def nothing_to_do(self) -> bool:
        return not self.steps

    @property
    def runnable_steps(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.runnable) if not self.blocked else ()

    @property
    def changes(self) -> tuple[Change, ...]:
        """What the plan does to environments, as data: the what-if judges it like any advice
        (tests/advice/test_whatif.py). A new environment with the goal (and what is carried),
        or in place the distributions it switches from removed and the goal installed."""
        if self.goal is None or not self.goal.requirements:
            return ()
        env = (self.env or DIAGNOSED) if self.mode == "new-env" else DIAGNOSED
        out: list[Change] = [Change("run-as", value="arm64")] if self.launch == ("arch", "-arm64") else []
        for step in self.steps:
            argv = step.command
            if step.kind == "create-env":
                out.append(Change("new-env", env, python=self.goal.python))
            elif step.kind in ("install", "uninstall") and step.kind in argv and "--" in argv:
                verb, cut = argv.index(step.kind), argv.index("--")
                options = tuple(a for a in argv[verb + 1:cut] if a.startswith("--") and a != "--python")
                out.append(Change(step.kind, env, argv[cut + 1:], options))  # type: ignore[arg-type]
            elif step.kind == "set-variable":
                out.append(Change("set-env", variable=LEGACY_KERAS, value="1"))
        return tuple(out)


def default_env_path(s: Snapshot) -> str:
    """`<env>-fixed` beside the diagnosed venv or conda environment; `~/venvs/tf-fixed` for a
    Python that is not in an environment of its own (a Homebrew or python.org install)."""
    py = s.python
    if py and py.prefix and (py.in_venv or py.conda):
        return py.prefix.rstrip("/") + "-fixed"
    return "~/venvs/tf-fixed"


RESTORE_RECORD = "tfdoctor-restore"


def default_restore_record(s: Snapshot) -> str:
    """`<prefix>/tfdoctor-restore`: inside the environment, on its file system (the files the
    steps replace are kept there as hard links)."""
    return os.path.join(s.python.prefix if s.python else "", RESTORE_RECORD)


_MINOR = re.compile(r"^[0-9]+\.[0-9]+$")


def _check_facts(s: Snapshot) -> None:
    """PlanError for facts no plan can be made from (they end up in commands)."""
    py = s.python
    if not s.target.ok or py is None:
        raise PlanError(f"no facts about {s.target.python or 'the interpreter'}: "
                        f"{s.target.message or s.target.problem or 'it could not be read'}")
    for what, path in (("executable", py.executable), ("prefix", py.prefix or "/")):
        if not (path.startswith("/") or path.startswith("~/")):
            raise PlanError(f"the interpreter's {what} {path!r} is not an absolute path")
    if not _MINOR.match(py.minor):
        raise PlanError(f"the interpreter's version {py.version!r} is not a Python version")


def build_plan(report: "Report", matrix: "CompatMatrix", *, new_env: str | None = None,
               in_place: bool = False, installer: str = "pip", restore_record: str | None = None,
               tfdoctor: str = "tfdoctor", conda_tool: str | None = "conda",
               path_exists: Callable[[str], bool] = os.path.exists) -> Plan:
    """The plan for this diagnosis. `installer`: "uv" or "pip" for a new environment (in place,
    the environment's own pip); `conda_tool`: "conda" or "mamba" to run a conda environment's
    steps with, None when neither is on PATH (its steps are then printed for the user to run);
    `path_exists`: whether a local source a distribution was installed from is still there."""
    s, d = report.snapshot, report.derived
    _check_facts(s)
    py = s.python
    assert py is not None
    problems = [f for f in report.findings if f.severity >= Severity.WARNING]
    found = {f.code for f in problems}
    answerable = sorted({f.code for f in problems if f.fix_answer is not None and f.fix_answer.answered})
    unanswered = tuple(sorted(found - set(answerable)))
    if in_place and not py.prefix:
        raise PlanError("the facts do not say where the environment is (no prefix): it cannot be "
                        "changed in place")
    env = py.executable if in_place else (new_env or default_env_path(s))
    mode = "in-place" if in_place else "new-env"
    if py.conda:
        installer = conda_tool or "conda"
    if not answerable:
        return Plan(py.executable, mode, None, None, (), (), unanswered, installer=installer,
                    notes=("nothing for fix to do" + (": the problems left are not about what is "
                                                      "installed" if unanswered else ""),))
    by_code = {f.code: f for f in problems}
    mac = s.host.system == "Darwin"
    arch = d.hardware_arch if mac else normalise(py.process_arch)
    notes: list[str] = []

    # 1. What only the user can do: an arm64 Python, a native conda environment, macOS.
    blocked = user_steps(s, d, by_code, matrix, env)
    if blocked is not None:
        why, steps = blocked
        return Plan(py.executable, mode, env, None, tuple(steps), tuple(answerable), unanswered,
                    installer=installer, blocked=why, notes=tuple(notes))

    # 2. The goal, from the matrix on a Mac; the installed TensorFlow elsewhere.
    goal = choose_goal(s, d, matrix, arch, found, notes)
    tf_version = pinned_version(goal.requirements[0]) if goal.requirements else None
    launch = launcher(s)
    deps = conda.tensorflow_deps_requirement(tf_version) if py.conda and mac else None
    conda_runs = conda_tool is not None
    if in_place:
        record = restore_record or default_restore_record(s)
        steps = _in_place_steps(s, list(goal.requirements), launch, deps, installer, conda_runs, record,
                                tfdoctor, tuple(answerable))
        steps += _legacy_keras_step(s, matrix, goal, tf_version, py.prefix) if py.in_venv else []
        carried, editables, not_carried, env_dir = [], (), [], py.prefix
        installer, verify_python = (installer if py.conda else "pip"), py.executable
    else:
        found_carry = carry_over(s, d, matrix, goal, tf_version, mac, path_exists)
        carried = [r for r in found_carry.requirements if r not in goal.requirements]
        editables, not_carried, env_dir = tuple(found_carry.editables), found_carry.not_carried, env
        reqs = [*goal.requirements, *carried]
        steps = _new_env_steps(s, reqs, editables, launch, env, deps, installer, conda_runs, tuple(answerable))
        steps += _legacy_keras_step(s, matrix, goal, tf_version, env)
        verify_python = os.path.join(env, "bin", "python")
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
    return Plan(py.executable, mode, env, goal, tuple(steps), tuple(answerable), unanswered,
                tuple(carried), tuple(NotCarried(n, w) for n, w in not_carried),
                requested_known(s), installer, blocked=blocked_why,
                restore_record=(restore_record or default_restore_record(s)) if in_place else None,
                notes=tuple(notes), env_dir=env_dir, editables=editables, launch=launch)


LEGACY_KERAS = "TF_USE_LEGACY_KERAS"


def _legacy_keras_step(s: Snapshot, matrix: "CompatMatrix", goal: Goal, tf_version: str | None,
                       env: str) -> list[Step]:
    """A goal of Keras 2 (tf-keras) on a TensorFlow whose tf.keras is Keras 3 (2.16+) works
    only with TF_USE_LEGACY_KERAS=1: the venv's activate script sets it (a conda environment, or
    a shell that sets it already, is left as it is); undone with the environment it made, or by
    removing that one line from an environment changed in place."""
    minor = matrix.tf_minor(tf_version) if tf_version else None
    wants_tf_keras = any(r.startswith("tf-keras") for r in goal.requirements)
    if s.python is None or s.python.conda or not wants_tf_keras or minor is None or minor.keras_major != 3 \
            or s.env.get(LEGACY_KERAS, "").strip().lower() in ("1", "true"):
        return []
    activate = os.path.join(env, "bin", "activate")
    line = f"export {LEGACY_KERAS}=1"
    created = env != s.python.prefix
    undo = shell_line(("rm", "-rf", env)) if created else shell_line((
        s.python.executable, "-c", "import sys; p = sys.argv[1]; t = open(p).read().splitlines(True); "
        "open(p, 'w').writelines(x for x in t if x.strip() != sys.argv[2])", activate, line))
    return [Step("set-variable", f"Use Keras 2 (tf-keras) in {env}",
                 ("/bin/sh", "-c", 'printf "%s\\n" "$2" >> "$1"', "sh", activate, line),
                 f"appends `{line}` to {activate}", undo, True)]


def _new_env_steps(s: Snapshot, reqs: list[str], editables: tuple[str, ...], launch: tuple[str, ...],
                   env: str, deps: str | None, installer: str, conda_runs: bool,
                   answers: tuple[str, ...]) -> list[Step]:
    """Create the environment, install the goal and what is carried over into it."""
    py = s.python
    assert py is not None
    if py.conda:
        return conda.new_env_steps(installer, conda_runs, py.minor, env, deps, reqs, editables, answers)
    remove = shell_line(("rm", "-rf", env))
    everything = " ".join([*reqs, *(f"-e {path}" for path in editables)])
    return [Step("create-env", f"Create {env}", venv_argv(installer, launch, py.executable, env),
                 f"creates the directory {env}; the diagnosed environment is not touched", remove, True),
            Step("install", f"Install {everything}",
                 install_argv(installer, launch, os.path.join(env, "bin", "python"), reqs, editables),
                 f"installs into {env} only", remove, True, answers)]


def _in_place_steps(s: Snapshot, reqs: list[str], launch: tuple[str, ...], deps: str | None,
                    installer: str, conda_runs: bool, record: str, tfdoctor: str,
                    answers: tuple[str, ...]) -> list[Step]:
    """Resolve first (nothing is removed before the new set is known to install), keep the
    installed set, then change the environment with its own pip; each change undone by
    `tfdoctor fix --undo`, which returns exactly the recorded set."""
    py = s.python
    assert py is not None
    exe = py.executable
    undo = shell_line((tfdoctor, "fix", "--undo", "--python", exe))
    steps = [
        Step("resolve", "Check that the new set installs (nothing is changed yet)",
             pip_argv(launch, exe, "install", "--dry-run", "--ignore-installed", "--quiet", "--report",
                      "-", "--", *reqs),
             "nothing in the environment (pip may fill its download cache)", "-", True),
        Step("save-restore", f"Save the installed set to {record}", pip_argv(launch, exe, "inspect", "--local"),
             f"writes {record} unless it is there already (an earlier record is kept): the "
             "installed set, and hard links to the files of what the next steps replace",
             "-", True),
    ]
    if py.conda:
        steps += conda.in_place_steps(installer, conda_runs, py.prefix, deps, undo, answers)
    switch = switching_tf(s, reqs)
    if switch:
        steps.append(Step("uninstall", f"Remove {', '.join(switch)}",
                          pip_argv(launch, exe, "uninstall", "-y", "--", *switch),
                          f"uninstalls {', '.join(switch)} from {py.prefix}", undo, True, answers))
    foreign = _foreign_wheels(s, launch, reqs)
    if foreign:  # first: the install then moves whichever of them the goal's pins need moved
        steps.append(Step("install", f"Reinstall {len(foreign)} x86_64 wheels for arm64",
                          pip_argv(launch, exe, "install", "--force-reinstall", "--no-deps", "--no-cache-dir",
                                   "--", *foreign),
                          f"replaces x86_64 builds left by a pip run under Rosetta in {py.prefix}", undo, True,
                          answers))
    steps.append(Step("install", f"Install {' '.join(reqs)}", pip_argv(launch, exe, "install", "--", *reqs),
                      f"installs into the diagnosed environment {py.prefix}", undo, True, answers))
    return steps


def _foreign_wheels(s: Snapshot, launch: tuple[str, ...], reqs: list[str]) -> list[str]:
    """Installed x86_64-only wheels the install does not replace, in an environment its pip now
    runs as arm64 (`arch -arm64`): the same releases, rebuilt for arm64, or the native process
    cannot load them."""
    if launch != ("arch", "-arm64"):
        return []
    replaced = requirement_names(reqs)
    return sorted(f"{p.key}=={p.version}" for p in s.packages
                  if p.version and p.key not in replaced and p.wheel_tags
                  and all(tag.endswith("x86_64") for tag in p.wheel_tags))
