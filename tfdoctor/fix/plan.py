"""The fix plan: one target from the compatibility matrix and the ordered steps that reach it.

A pure function of the snapshot, the findings diagnosed from it and the matrix (plus what the
caller knows beyond the snapshot: which packages the user asked for, uv or pip, where the new
environment goes), so the plan for someone else's machine is the plan this machine would run.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from tfdoctor import codes
from tfdoctor.advice.installs import tf_requirement
from tfdoctor.derived import derive
from tfdoctor.facts.archnames import ARM64, normalise
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot
from tfdoctor.knowledge import best_pair, keras_releases
from tfdoctor.model import Finding, Severity

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix
    from tfdoctor.report.diagnosis import Report

SCHEMA = "tfdoctor.fix-plan"
SCHEMA_VERSION = 1

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

ARCH_CODES = frozenset({codes.ARCH_ROSETTA, codes.ARCH_X86_ONLY_INTERPRETER, codes.ARCH_CONDA_OSX_64,
                        codes.ARCH_UNIVERSAL2_AS_X86, codes.RUNTIME_IMPORT_SIGILL})

MANAGED = frozenset(TENSORFLOW_DISTRIBUTIONS) | {
    "tensorflow-metal", "tensorflow-deps", "keras", "tf-keras", "keras-nightly", "tf-nightly",
    "tensorflow-estimator", "tensorflow-io-gcs-filesystem", "tensorboard",
    "tensorboard-data-server", "tensorboard-plugin-wit", "pip", "setuptools", "wheel",
    "distribute", "uv",
}
"""Distributions the target decides (or the environment brings), never carried over as asked."""


class PlanError(ValueError):
    """A plan cannot be made from these inputs (no interpreter facts): a usage error."""


@dataclass(frozen=True)
class Step:
    kind: str
    """"instruction" (the user's to do; the plan stops there), "create-env", "save-restore",
    "uninstall", "install", "verify"."""
    title: str
    command: tuple[str, ...]
    """argv; for an instruction, a shell line per element is in `shell` instead."""
    changes: str
    undo: str
    runnable: bool
    answers: tuple[str, ...] = ()
    shell: tuple[str, ...] = ()
    """Shell lines to paste (instructions), in order."""

    def display(self) -> list[str]:
        return list(self.shell) if self.shell else [shlex.join(self.command)]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "command": list(self.command),
                "shell": list(self.shell), "changes": self.changes, "undo": self.undo,
                "runnable": self.runnable, "answers": list(self.answers)}


@dataclass(frozen=True)
class Target:
    python: str
    arch: str
    requirements: tuple[str, ...]
    description: str
    status: str | None = None
    sources: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"python": self.python, "arch": self.arch, "requirements": list(self.requirements),
                "description": self.description, "status": self.status,
                "sources": list(self.sources)}


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
    not_carried: tuple[tuple[str, str], ...] = ()
    requested_known: bool = False
    installer: str = "pip"
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

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "diagnosed": self.diagnosed,
                "mode": self.mode, "env": self.env, "installer": self.installer,
                "target": self.target.to_dict() if self.target else None,
                "nothing_to_do": self.nothing_to_do, "blocked": self.blocked,
                "answers": list(self.answers), "unanswered": list(self.unanswered),
                "steps": [s.to_dict() for s in self.steps],
                "carried": list(self.carried),
                "requested_known": self.requested_known,
                "not_carried": [{"name": n, "why": w} for n, w in self.not_carried],
                "restore_file": self.restore_file, "notes": list(self.notes)}


def default_env_path(s: Snapshot) -> str:
    """`<env>-fixed` beside the diagnosed venv or conda environment; `~/venvs/tf-fixed` for a
    Python that is not in an environment of its own (a Homebrew or python.org install)."""
    py = s.python
    if py and py.prefix and (py.in_venv or py.conda):
        return py.prefix.rstrip("/") + "-fixed"
    return "~/venvs/tf-fixed"


def build_plan(s: Snapshot, report: "Report", matrix: "CompatMatrix", *, new_env: str | None = None,
               in_place: bool = False, requested: Iterable[str] | None = None,
               installer: str = "pip", restore_file: str | None = None,
               tfdoctor: str = "tfdoctor") -> Plan:
    """The plan for this diagnosis. `requested`: the distributions the user asked for (pip's
    REQUESTED markers), None when not known; `installer`: "uv" or "pip"."""
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
    blocked = _instructions(s, by_code, found, matrix, arch, env)
    if blocked is not None:
        why, steps = blocked
        return Plan(py.executable, mode, env, None, tuple(steps), tuple(answerable), unanswered,
                    installer=installer, blocked=why, notes=tuple(notes))

    # 2. The target, from the matrix on a Mac; the installed TensorFlow elsewhere.
    target = _target(s, d, matrix, arch, found, notes)
    tf_version = _pinned_version(target.requirements[0]) if target.requirements else None
    carried, not_carried = _carry(s, d, matrix, target, tf_version, requested, mac)
    reqs = list(target.requirements) + [r for r in carried if r not in target.requirements]
    answers_install = tuple(answerable)
    launcher = _launcher(s)
    steps: list[Step] = []
    if in_place:
        exe = py.executable
        restore = restore_file or default_restore_file(s)
        steps.append(Step("save-restore", f"Save the installed set to {restore}",
                          (*launcher, exe, "-m", "pip", "freeze", "--all"),
                          f"writes {restore} (nothing in the environment)", f"rm {shlex.quote(restore)}",
                          True))
        restore_cmd = shlex.join([*launcher, exe, "-m", "pip", "install", "--force-reinstall",
                                  "--no-deps", "-r", restore])
        switch = _switching_tf(s, reqs)
        if switch:
            steps.append(Step("uninstall", f"Remove {', '.join(switch)}",
                              (*launcher, exe, "-m", "pip", "uninstall", "-y", *switch),
                              f"uninstalls {', '.join(switch)} from {py.prefix}", restore_cmd, True,
                              answers_install))
        steps.append(Step("install", f"Install {' '.join(reqs)}", _install_argv(installer, launcher, exe, reqs),
                          f"installs into the diagnosed environment {py.prefix}", restore_cmd, True,
                          answers_install))
        verify_python = exe
    else:
        new_python = os.path.join(env, "bin", "python")
        steps.append(Step("create-env", f"Create {env}", _venv_argv(installer, launcher, py.executable, env),
                          f"creates the directory {env}; the diagnosed environment is not touched",
                          f"rm -rf {_q(env)}", True))
        steps.append(Step("install", f"Install {' '.join(reqs)}",
                          _install_argv(installer, launcher, new_python, reqs),
                          f"installs into {env} only", f"rm -rf {_q(env)}", True, answers_install))
        verify_python = new_python
        if codes.COMPAT_KERAS3 in found and s.env.get("TF_USE_LEGACY_KERAS"):
            notes.append(f"TF_USE_LEGACY_KERAS={s.env['TF_USE_LEGACY_KERAS']} is set in your shell; "
                         "it applies to the new environment too")
    steps.append(Step("verify", "Check the result", (tfdoctor, "check", "--python", verify_python),
                      "nothing (reads the environment)", "-", True))
    return Plan(py.executable, mode, env, target, tuple(steps), tuple(answerable), unanswered,
                tuple(carried), tuple(not_carried), requested is not None, installer,
                restore_file=(restore_file or default_restore_file(s)) if in_place else None,
                notes=tuple(notes))


def default_restore_file(s: Snapshot) -> str:
    prefix = s.python.prefix if s.python else ""
    return os.path.join(prefix, "tfdoctor-restore.txt") if prefix else "tfdoctor-restore.txt"


# --- the parts ----------------------------------------------------------------------------------


def _q(path: str) -> str:
    """A path as a shell word, leaving a leading ~/ for the shell to expand."""
    if path.startswith("~/"):
        return "~/" + shlex.quote(path[2:])
    return shlex.quote(path)


def _launcher(s: Snapshot) -> tuple[str, ...]:
    """`arch -arm64` for a universal2 Python started under Rosetta on Apple silicon."""
    py = s.python
    if py and s.host.system == "Darwin" and s.host.hw_arm64 and normalise(py.process_arch) != ARM64 \
            and ARM64 in {normalise(a) for a in py.binary.archs}:
        return ("arch", "-arm64")
    return ()


def _venv_argv(installer: str, launcher: tuple[str, ...], python: str, env: str) -> tuple[str, ...]:
    if installer == "uv":
        return ("uv", "venv", "--seed", "--python", python, env)
    return (*launcher, python, "-m", "venv", env)


def _install_argv(installer: str, launcher: tuple[str, ...], python: str,
                  reqs: list[str]) -> tuple[str, ...]:
    if installer == "uv":
        return (*launcher, "uv", "pip", "install", "--python", python, *reqs)
    return (*launcher, python, "-m", "pip", "install", *reqs)


def _commands(f: Finding | None) -> tuple[str, ...]:
    return tuple(f.remediation.commands) if f and f.remediation else ()


def _instructions(s: Snapshot, by_code: dict[str, Finding], found: set[str], matrix: "CompatMatrix",
                  arch: str, env: str) -> tuple[str, list[Step]] | None:
    """Steps tfdoctor cannot run, and why the plan stops there; None when it can go on."""
    py = s.python
    assert py is not None
    then = f"then: tfdoctor fix --python NEW_ENV (or --new-env {env})"
    if s.host.system == "Darwin" and s.host.hw_arm64:
        conda_x86 = codes.ARCH_CONDA_OSX_64 in found or (py.conda and py.conda.subdir == "osx-64")
        if conda_x86:
            lines = _commands(by_code.get(codes.ARCH_CONDA_OSX_64)) or (
                f"CONDA_SUBDIR=osx-arm64 conda create -n tf-arm64 python={py.minor}",
                "conda activate tf-arm64", "conda config --env --set subdir osx-arm64")
            answers = tuple(sorted(found & ARCH_CODES))
            return ("the conda environment is osx-64 (Intel): an osx-arm64 environment must be "
                    "created with conda first", [Step(
                        "instruction", "Create an osx-arm64 conda environment (conda's, not tfdoctor's)",
                        (), "creates a new conda environment", "conda env remove -n tf-arm64", False,
                        answers, (*lines, then))])
        archs = {normalise(a) for a in py.binary.archs}
        x86_only = normalise(py.process_arch) != ARM64 and (not archs or ARM64 not in archs)
        if x86_only:
            lines = _commands(by_code.get(codes.ARCH_X86_ONLY_INTERPRETER))
            if not lines:
                lines = (f"arch -arm64 /bin/bash -c \"$(curl -fsSL "
                         "https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)\"",
                         f"/opt/homebrew/bin/brew install python@{py.minor}")
            lines = tuple(x for x in lines if " -m venv " not in x)
            new = f"arch -arm64 /opt/homebrew/bin/python{py.minor} -m venv {_q(env)}"
            answers = tuple(sorted(found & ARCH_CODES))
            return (f"{py.binary.path or py.executable} is x86_64 only: it runs under Rosetta 2 "
                    "and cannot load the arm64 TensorFlow + tensorflow-metal pair",
                    [Step("instruction", "Install an arm64 Python (Homebrew in /opt/homebrew, or "
                          "python.org's universal2 installer), from a native shell", (),
                          "installs Homebrew for Apple silicon and its Python (outside tfdoctor)",
                          "/opt/homebrew/bin/brew uninstall python@" + py.minor, False, answers,
                          (*lines, new, f"then: tfdoctor fix --python {_q(env)}"))])
        rec = best_pair.recommended_install(matrix, py.minor, ARM64, derive(s).macos)
        if not rec.requirements:
            macos_old = codes.COMPAT_MACOS_TOO_OLD in found or "macOS" in rec.reason
            if macos_old:
                return (rec.reason, [Step("instruction", "Update macOS (System Settings > General > "
                                          "Software Update)", (), "updates macOS", "-", False,
                                          tuple(sorted(found & {codes.COMPAT_MACOS_TOO_OLD})),
                                          ("softwareupdate --list", then))])
            newest = best_pair.newest_python_with_working_pair(matrix, ARM64)
            if newest:
                return (rec.reason, [Step(
                    "instruction", f"Install Python {newest} for arm64", (),
                    f"installs Python {newest} (outside tfdoctor)",
                    f"/opt/homebrew/bin/brew uninstall python@{newest}", False,
                    tuple(sorted(found & {codes.COMPAT_NO_WHEEL_FOR_PYTHON})),
                    (f"/opt/homebrew/bin/brew install python@{newest}",
                     f"arch -arm64 /opt/homebrew/bin/python{newest} -m venv {_q(env)}",
                     f"then: tfdoctor fix --python {_q(env)}"))])
            return rec.reason, []
    return None


def _target(s: Snapshot, d: Any, matrix: "CompatMatrix", arch: str, found: set[str],
            notes: list[str]) -> Target:
    py = s.python
    assert py is not None
    legacy = _wants_keras2(s, found)
    if s.host.system == "Darwin":
        rec = best_pair.recommended_install(matrix, py.minor, arch, d.macos)
        reqs, status, sources = list(rec.requirements), rec.status, tuple(rec.sources)
        metal_now = s.package("tensorflow-metal")
        if codes.COMPAT_TF_METAL_MISMATCH in found and d.tf_version and metal_now and metal_now.version:
            # the pair closest to what is installed (another metal for this minor, or the
            # newest release of the minor that has one), as the mismatch finding names it
            pair = best_pair.pairing(matrix, d.tf_version, metal_now.version, py.minor, arch)
            if len(pair.fix) == 2:
                reqs, sources = list(pair.fix), tuple(pair.sources)
                status = matrix.pair_status(_pinned_version(reqs[0]) or "",
                                            _pinned_version(reqs[1]) or "")[0]
                notes.append(f"tensorflow {d.tf_version} + tensorflow-metal {metal_now.version} is "
                             f"{pair.status}: the closest good pair is {' + '.join(pair.fix)}")
        tf_version = _pinned_version(reqs[0]) if reqs else None
        keras = "Keras 3"
        if legacy and tf_version:
            pin = keras_releases.tf_keras_requirement(matrix, tf_version, py.minor)
            if pin:
                reqs.append(pin.requirement)
                keras = f"Keras 2 ({pin.requirement}, with TF_USE_LEGACY_KERAS=1)"
        metal = next((r.split("==")[1] for r in reqs if r.startswith("tensorflow-metal==")), None)
        desc = (f"{arch} Python {py.minor}, {_human(reqs[0]) if reqs else 'no TensorFlow'}"
                + (f" with tensorflow-metal {metal}" if metal else "") + f", {keras}")
        return Target(py.minor, arch, tuple(reqs), desc, status, sources)
    # Elsewhere no Metal pair: keep the TensorFlow that is installed (the newest of several).
    dists = sorted(s.tensorflow_distributions(), key=lambda p: _version_key(p.version))
    if dists:
        tf = dists[-1]
        req = f"{canonicalize_name(tf.name or 'tensorflow')}=={tf.version}"
    else:
        req = "tensorflow"
    reqs = [req]
    keras = "Keras 3"
    if legacy and dists:
        pin = keras_releases.tf_keras_requirement(matrix, dists[-1].version or "", py.minor)
        if pin:
            reqs.append(pin.requirement)
            keras = f"Keras 2 ({pin.requirement})"
    notes.append(f"{s.host.system or 'this system'} has no Metal: the target keeps the installed "
                 "TensorFlow and fixes what is around it")
    desc = f"{arch} Python {py.minor}, {_human(req)} (no tensorflow-metal on {s.host.system or 'this OS'}), {keras}"
    return Target(py.minor, arch, tuple(reqs), desc)


def _wants_keras2(s: Snapshot, found: set[str]) -> bool:
    return (codes.COMPAT_KERAS3 in found or s.package("tf-keras") is not None
            or s.env.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true", "yes"))


def _carry(s: Snapshot, d: Any, matrix: "CompatMatrix", target: Target, tf_version: str | None,
           requested: Iterable[str] | None, mac: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """The user's own top-level packages as requirements that fit the target TensorFlow, and
    what cannot be carried over (with why)."""
    not_carried: list[tuple[str, str]] = []
    if requested is None:
        leaves = _leaves(s)
        if leaves:
            not_carried.append((", ".join(leaves), "not known whether you asked for these (the facts "
                                "have no REQUESTED markers): install what you need into the new "
                                "environment yourself"))
        return [], not_carried
    asked = {canonicalize_name(n) for n in requested}
    pins: dict[str, str] = {}
    if mac and tf_version:
        try:
            pins = matrix.tf_pins(tf_version, target.python)
        except Exception:  # noqa: BLE001 - the matrix is advice
            pins = {}
    carried: list[str] = []
    for pkg in s.packages:
        key = pkg.key
        if key not in asked or key in MANAGED:
            continue
        if pkg.error or not pkg.version:
            not_carried.append((pkg.name or key, f"its metadata could not be read ({pkg.error or 'no version'})"))
            continue
        if pkg.installer and pkg.installer != "pip" and pkg.installer != "uv":
            not_carried.append((pkg.name or key, f"installed by {pkg.installer}, not pip: install it with "
                                f"{pkg.installer} in the new environment"))
            continue
        spec = pins.get(key) if mac else tf_requirement(s, d, key)
        if spec:
            try:
                fits = SpecifierSet(spec).contains(pkg.version, prereleases=True)
            except InvalidSpecifier:
                fits = True
            carried.append(f"{key}=={pkg.version}" if fits else f"{key}{spec}")
        else:
            carried.append(f"{key}=={pkg.version}")
    return carried, not_carried


def _leaves(s: Snapshot) -> list[str]:
    """Installed distributions nothing else installed requires (the likely top-level ones)."""
    needed: set[str] = set()
    for pkg in s.packages:
        for text in pkg.requires_dist:
            try:
                needed.add(canonicalize_name(Requirement(text).name))
            except InvalidRequirement:
                continue
    return sorted(p.name or p.key for p in s.packages
                  if p.key and p.key not in needed and p.key not in MANAGED)


def _switching_tf(s: Snapshot, reqs: list[str]) -> list[str]:
    wanted = set()
    for text in reqs:
        try:
            wanted.add(canonicalize_name(Requirement(text).name))
        except InvalidRequirement:
            continue
    installed = {d.key: d.name or d.key for d in s.tensorflow_distributions()}
    tf_wanted = wanted & set(TENSORFLOW_DISTRIBUTIONS)
    extra = set(installed) - tf_wanted
    # both (all) of them: they overwrote each other's files, so the wanted one is broken too
    return sorted(installed.values()) if tf_wanted and (extra or len(installed) > 1) else []


_PIN = re.compile(r"==\s*([0-9][0-9A-Za-z.]*?)(\.\*)?$")


def _pinned_version(requirement: str) -> str | None:
    """"tensorflow==2.19.*" -> "2.19.0"; "tensorflow==2.18.1" -> "2.18.1"."""
    found = _PIN.search(requirement)
    if not found:
        return None
    return found.group(1) + (".0" if found.group(2) else "")


def _human(requirement: str) -> str:
    found = _PIN.search(requirement)
    name = re.split(r"[=<>!~ ]", requirement, maxsplit=1)[0]
    if not found:
        return name
    return f"{name} {found.group(1)}" + (".x" if found.group(2) else "")


def _version_key(version: str | None) -> Any:
    from packaging.version import Version

    from tfdoctor.facts.versions import parse_version

    return parse_version(version) or Version("0")
