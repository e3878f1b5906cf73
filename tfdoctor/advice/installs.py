"""What to install on the diagnosed machine, as commands: the requirements a remediation's pip
command names, the pair that loads, a fresh environment when this Python has no pair. Shared by the
rules and `tfdoctor matrix`, so every fix for the same situation reads the same."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import Version

from tfdoctor.advice.commands import pip
from tfdoctor.derived import Derived, derive
from tfdoctor.derived.markers import requirement_names, requirement_on
from tfdoctor.facts.archnames import ARM64, normalise
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge import best_pair
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import MetalRelease

APPLE_PLUGIN_PAGE = "https://developer.apple.com/metal/tensorflow-plugin/"
VENV_DIR = "~/venvs/tf"
_GITHUB = re.compile(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull)/(\d+)")


@dataclass(frozen=True)
class Requirements:
    requirements: tuple[str, ...]
    text: str


def recommended_requirements(s: Snapshot) -> Requirements:
    """The TensorFlow (and tensorflow-metal on Apple silicon) to install here, or why none fits."""
    py = s.python
    if s.host.system == "Darwin" and py is not None:
        from tfdoctor.knowledge.matrix import load_matrix  # lazily: only Mac remediations need the matrix

        # On Apple silicon the right pair is the arm64 one even for a Python under Rosetta:
        # the architecture check tells the user to move to an arm64 Python first.
        arch = "arm64" if s.host.hw_arm64 else py.process_arch
        macos = s.host.macos_version if parse_version(s.host.macos_version) else None
        rec = best_pair.recommended_install(load_matrix(), py.minor, arch, macos)
        return Requirements(tuple(rec.requirements), rec.reason)
    return Requirements(("tensorflow",), "Install TensorFlow (CPU, or CUDA with tensorflow[and-cuda] on Linux)")


def short_source(source: str) -> str:
    """"https://github.com/o/r/pull/1" -> "o/r#1"; "apple_table" -> "Apple's table"."""
    if source == "apple_table":
        return "Apple's tensorflow-metal table"
    found = _GITHUB.match(source)
    return f"{found.group(1)}#{found.group(2)}" if found else source


def span(pythons: tuple[str, ...] | list[str]) -> str:
    if not pythons:
        return "none"
    return pythons[0] if len(pythons) == 1 else f"{pythons[0]}-{pythons[-1]}"


def venv_command(target_python: str, requirements: tuple[str, ...] | list[str]) -> str:
    """A fresh environment with another Python and the pair installed in it."""
    install = " ".join(shlex.quote(r) for r in requirements)
    cmd = f"python{target_python} -m venv {VENV_DIR}"
    return f"{cmd} && {VENV_DIR}/bin/python -m pip install {install}" if install else cmd


def install_commands(s: Snapshot, requirements: tuple[str, ...] | list[str]) -> list[str]:
    """`pip install REQS` for this interpreter, preceded by an uninstall of the TensorFlow
    distributions installed now when REQS switch to another one (else both would be installed,
    overwriting each other's files)."""
    if not requirements:
        return []
    tf_wanted = requirement_names(requirements) & set(TENSORFLOW_DISTRIBUTIONS)
    installed = {d.key: d.name for d in s.tensorflow_distributions()}
    commands = []
    if tf_wanted and set(installed) - tf_wanted:
        commands.append(pip(s, "uninstall", "-y", *sorted(installed.values())))
    commands.append(pip(s, "install", *requirements))
    return [native(s, c) for c in commands]


def native(s: Snapshot, command: str) -> str:
    """Run pip as arm64 when a universal2 Python is started translated: pip picks wheels for
    the architecture it runs as, and the pair is arm64-only."""
    py = s.python
    if py and py.translated and s.host.hw_arm64 and ARM64 in {normalise(a) for a in py.binary.archs}:
        return f"arch -arm64 {command}"
    return command


def move_python(s: Snapshot, m: CompatMatrix, arch: str) -> tuple[str | None, list[str], tuple[str, ...]]:
    """(newest Python with a working pair on this arch, commands to create its environment,
    its requirements)."""
    target = best_pair.newest_python_with_working_pair(m, arch)
    if not target:
        return None, [], ()
    reqs = best_pair.recommended_install(m, target, arch, derive(s).macos).requirements
    return target, [venv_command(target, reqs)], reqs


def good_metal_releases(m: CompatMatrix, tf_version: str, arch: str) -> list[MetalRelease]:
    """The tensorflow-metal releases with wheels for `arch` that go with this TensorFlow
    (reported to work or documented), newest first."""
    from tfdoctor.knowledge.records import GOOD_STATUSES

    return [release for release in sorted(m.metal_releases.values(), key=lambda r: Version(r.version), reverse=True)
            if arch in release.wheels and best_pair.pairing(m, tf_version, release.version).status in GOOD_STATUSES]


def matching_metal(m: CompatMatrix, tf_version: str, python: str, arch: str) -> MetalRelease | None:
    """The newest of those with a wheel for this Python: what "install the plugin" means here."""
    return next((r for r in good_metal_releases(m, tf_version, arch) if r.has(python, arch)), None)


def metal_macos_floors(m: CompatMatrix, metal: MetalRelease, arch: str) -> dict[str, Any]:
    """The macOS a tensorflow-metal needs, from its wheel tag and from Apple's table, apart."""
    wheels = metal.wheels.get(arch)
    tag = wheels.min_macos if wheels else None
    table, table_how = metal.apple_table_min_macos, "its own row"
    if table is None and metal.inferred_tf_minor:
        rows = [x.apple_table_min_macos for x in m.metal_releases.values()
                if x.apple_table_min_macos and metal.inferred_tf_minor in (x.documented_tf_minors or ())]
        if rows:
            table = max(rows, key=Version)
            table_how = (f"the rows for TensorFlow {metal.inferred_tf_minor}, which it is inferred "
                         "to serve (no row names it)")
    return {"wheel_tag": tag, "wheel_tag_source": wheels.source if wheels else None,
            "apple_table": table, "apple_table_how": table_how,
            "needs": m.metal_min_macos(metal, arch)}


def tf_requirement(s: Snapshot, d: Derived, name: str) -> str | None:
    """The specifier TensorFlow's own metadata (or the matrix) puts on `name`, e.g. "<2.2,>=1.26",
    with markers evaluated for the diagnosed interpreter (2.16/2.17 pin numpy by Python version)."""
    env = d.marker_env
    for dist in s.tensorflow_distributions():
        req = requirement_on(dist, name, env)
        if req is not None and str(req.specifier):
            return str(req.specifier)
    key = canonicalize_name(name)
    version = d.tf_version
    matrix = d.matrix
    if matrix is not None and version and d.apple_silicon:
        try:
            return matrix.tf_pins(version, s.python.minor if s.python else None).get(key)
        except Exception:  # noqa: BLE001 - the matrix is advice, never a reason to crash
            return None
    return None


def pair_fix(s: Snapshot, d: Derived | None = None) -> tuple[tuple[str, ...], str, dict[str, Any]]:
    """Requirements for a TensorFlow/tensorflow-metal pair that loads, why, and matrix facts."""
    d = d or derive(s)
    tf_version = d.tf_version
    metal = d.metal.version if d.metal else None
    py = s.python.minor if s.python else None
    matrix = d.matrix
    if matrix is None:
        reqs = tuple(f for f in ("tensorflow-metal",) if metal)
        return reqs, "tfdoctor's compatibility matrix is unavailable: reinstall the plugin", {}
    try:
        if tf_version and metal:
            pairing = best_pair.pairing(matrix, tf_version, metal, py, "arm64")
            facts = {"pair_status": pairing.status, "pair_evidence": pairing.evidence,
                     "pair_sources": list(pairing.sources)}
            if pairing.fix:
                return (tuple(pairing.fix),
                        f"tensorflow {tf_version} + tensorflow-metal {metal} is {pairing.status}; "
                        f"install {' + '.join(pairing.fix)}", facts)
            return ((f"tensorflow-metal=={metal}",),
                    f"the pair is {pairing.status}: reinstall the plugin", facts)
        if py:
            rec = best_pair.recommended_install(matrix, py, "arm64", s.host.macos_version or None)
            if rec.requirements:
                return tuple(rec.requirements), rec.reason, {"recommended_status": rec.status}
    except Exception:  # noqa: BLE001 - the matrix is advice, never a reason to crash
        pass
    return (("tensorflow-metal",) if metal else ()), "reinstall the plugin", {}


def machine_recommendation(s: Snapshot, m: CompatMatrix) -> dict[str, Any]:
    """What to install on the diagnosed interpreter's machine, or why nothing fits and what to
    change (another Python, a newer macOS, an arm64 Python), with the commands."""
    py = s.python
    if not s.target.ok or py is None:
        return {"python": s.target.python, "error": s.target.message or s.target.problem or "no facts"}
    out: dict[str, Any] = {
        "python": py.executable, "python_version": py.version, "system": s.host.system,
        "process_arch": py.process_arch, "translated": py.translated,
        "macos": s.host.macos_version, "chip": s.host.chip, "notes": [],
    }
    if s.host.system != "Darwin":
        reqs = recommended_requirements(s)
        out.update({
            "arch": normalise(py.process_arch), "metal": False,
            "requirements": list(reqs.requirements), "status": None, "sources": [], "cpu_only": [],
            "reason": (f"There is no Metal pairing for {s.host.system or 'this OS'}: tensorflow-metal "
                       f"ships macOS wheels only. {reqs.text}"),
            "commands": [pip(s, "install", *reqs.requirements)] if reqs.requirements else [],
        })
        return out
    d = derive(s)
    arch = d.hardware_arch
    macos = d.macos
    rec = best_pair.recommended_install(m, py.minor, arch, macos)
    out.update({"arch": arch, "metal": True, "requirements": list(rec.requirements),
                "status": rec.status, "reason": rec.reason, "sources": list(rec.sources),
                "cpu_only": list(rec.cpu_only)})
    if py.translated or normalise(py.process_arch) != arch:
        out["notes"].append(f"This Python runs as {py.process_arch}"
                            + (" under Rosetta 2" if py.translated else "")
                            + f"; the recommendation is for an {arch} Python (see arch.rosetta)")
    if rec.requirements:
        x86_only = py.binary.archs and ARM64 not in {normalise(a) for a in py.binary.archs}
        if s.host.hw_arm64 and x86_only:
            out["notes"].append(f"{py.binary.path or py.executable} holds no arm64 code: install an "
                                "arm64 Python first and install the pair into it")
            out["commands"] = []
        else:
            out["commands"] = install_commands(s, rec.requirements)
        return out
    commands = []
    support = best_pair.python_support(m, py.minor, arch)
    target, venv, target_reqs = move_python(s, m, arch)
    if target and target != py.minor and (not support.tensorflow_metal or not support.tensorflow
                                          or not support.known_working + support.documented):
        commands += venv
        out["notes"].append(f"Python {target} is the newest with a working pair on {arch}: "
                            f"{' + '.join(target_reqs)}")
    if macos:
        needs = [m.metal_min_macos(x, arch) for x in m.metal_releases.values() if x.has(py.minor, arch)]
        if needs and Version(macos) < min((Version(n) for n in needs)):
            out["notes"].append(f"macOS {macos} is older than every tensorflow-metal for Python "
                                f"{py.minor} needs ({min(needs, key=Version)}+): update macOS")
    if rec.cpu_only:
        out["notes"].append(f"Without the GPU: {pip(s, 'install', *rec.cpu_only)}")
    out["commands"] = commands
    return out
