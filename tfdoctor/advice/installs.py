"""What to install on the diagnosed machine, as commands: the requirements a remediation's pip
command names, the pair that loads, a fresh environment when this Python has no pair. Shared by the
rules and `tfdoctor matrix`, so every fix for the same situation reads the same."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tfdoctor.advice.commands import export_variable, pip, venv_command
from tfdoctor.advice.log_evidence import names_tensorflow
from tfdoctor.derived import Derived, derive
from tfdoctor.derived.markers import requirement_names, requirement_on
from tfdoctor.derived.providers import GPU_TWINS
from tfdoctor.facts.archnames import ARM64, normalise
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge import best_pair, keras_releases, macos_floors
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import MetalRelease
from tfdoctor.model import Command

APPLE_PLUGIN_PAGE = "https://developer.apple.com/metal/tensorflow-plugin/"
HARDWARE_REQUIREMENTS = "https://www.tensorflow.org/install/pip#hardware_requirements"
"""TensorFlow's install guide on the hardware it needs: "Starting with TensorFlow 1.6, binaries use AVX
instructions which may not run on older CPUs", and the CUDA GPUs (compute capability) it supports."""
WINDOWS_LAST_GPU_BUILD = "2.10"
"""The last TensorFlow with a GPU (CUDA) build for native Windows: from 2.11 the Windows wheels
are CPU builds (2.12+: tensorflow-intel), https://www.tensorflow.org/install/pip#windows-native."""
_GITHUB = re.compile(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull)/(\d+)")


@dataclass(frozen=True)
class Requirements:
    requirements: tuple[str, ...]
    text: str


INSTALLERS = frozenset({"pip", "setuptools", "wheel"})
"""Distributions every listing of a real environment shows (`pip list`, `conda list`, a read of
site-packages): a list that names none of them is what someone mentioned, not a listing."""


def listing_read(s: Snapshot) -> bool:
    """Whether the snapshot's package list is a listing of the environment, so that what it lacks
    is absent: read from the site directories it names, or a pasted listing (it shows the
    installers) in a report about TensorFlow. A list of what a report mentioned, or a listing pasted
    into a report about another program, says nothing of TensorFlow: unknown, not none, and "not
    installed" is not concluded from it (a report that never names TensorFlow says nothing of it
    by not listing it)."""
    if s.python and s.python.site_packages:
        return True
    listed = any(p.key in INSTALLERS for p in s.packages)
    return listed and (s.log is None or names_tensorflow(s))


def recommended_requirements(s: Snapshot) -> Requirements:
    """The TensorFlow (and tensorflow-metal on Apple silicon) to install here, or why none fits.
    Off macOS the distribution the user chose is kept (tensorflow-cpu stays tensorflow-cpu)."""
    py = s.python
    if s.host.system == "Darwin" and py is not None:
        from tfdoctor.knowledge.matrix import load_matrix  # lazily: only Mac remediations need the matrix

        # On Apple silicon the right pair is the arm64 one even for a Python under Rosetta:
        # the architecture check tells the user to move to an arm64 Python first.
        arch = "arm64" if s.host.hw_arm64 else py.process_arch
        macos = s.host.macos_version if parse_version(s.host.macos_version) else None
        rec = best_pair.recommended_install(load_matrix(), py.minor, arch, macos)
        return Requirements(tuple(rec.requirements), rec.reason)
    kept = chosen_distribution(s)
    if kept:
        return Requirements((kept,), f"Keep the TensorFlow you chose ({kept})")
    return Requirements(("tensorflow",), "Install TensorFlow (CPU, or CUDA with tensorflow[and-cuda] on Linux)")


CUDA_WHEELS = re.compile(r"nvidia-(cudnn|cublas|cuda-runtime)-cu\d+")
"""NVIDIA's wheels that `tensorflow[and-cuda]` brings (Linux only)."""


def chosen_distribution(s: Snapshot) -> str | None:
    """The TensorFlow distribution installed, as a requirement that keeps it: tensorflow-cpu,
    intel-tensorflow, tensorflow-macos, or tensorflow[and-cuda] where NVIDIA's wheels came with
    it. The newest of several; None when none is installed. Unpinned, tensorflow-gpu is 2.12.0,
    whose install only raises: its default build, which carries the GPU from 2.1, is kept instead."""
    dists = sorted(s.tensorflow_distributions(), key=lambda p: parse_version(p.version) or Version("0"))
    if not dists:
        return None
    name = canonicalize_name(dists[-1].name or dists[-1].key)
    name = GPU_TWINS.get(name, name)
    if name == "tensorflow" and any(CUDA_WHEELS.fullmatch(p.key) for p in s.packages):
        return "tensorflow[and-cuda]"
    return name


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


def install_commands(s: Snapshot, requirements: tuple[str, ...] | list[str], *options: str,
                     d: Derived | None = None, remove: tuple[str, ...] | list[str] = ()) -> list[Command]:
    """`pip install REQS` for this interpreter, as one complete change: on Apple silicon with the
    tensorflow-metal that goes with the TensorFlow installed (when none is), tf-keras pinned to
    that TensorFlow (when tf-keras is there), and the distributions in `remove`, or the
    TensorFlow distribution REQS switch away from (both installed would overwrite each other's
    files), uninstalled first in the same command. Nothing on Apple silicon while this Python
    runs as x86_64: what pip installs then is for the wrong architecture, and the architecture
    finding comes first."""
    if not requirements:
        return []
    d = d or derive(s)
    if d.apple_silicon and d.translated:
        return []
    reqs = with_companions(s, d, with_metal(s, d, requirements))
    tf_wanted = requirement_names(reqs) & set(TENSORFLOW_DISTRIBUTIONS)
    providers = {p.key: p.name or p.key for p in d.providers}  # a shim onto the wanted one stays
    gone = set(remove) | ({providers[k] for k in set(providers) - tf_wanted} if tf_wanted else set())
    install = pip(s, "install", *options, *reqs)
    if gone and install.changes[0].action == "install":
        uninstall = pip(s, "uninstall", "-y", *sorted(gone))
        install = Command(f"{uninstall} && {install}", uninstall.changes + install.changes)
    return [install, *legacy_keras_switch(s, d, reqs)]


def legacy_keras_switch(s: Snapshot, d: Derived, requirements: list[str]) -> list[Command]:
    """`export TF_USE_LEGACY_KERAS=1` where REQS keep tf-keras beside a TensorFlow whose tf.keras
    is Keras 3 (2.16+): tf-keras is only used with the variable set."""
    version = tensorflow_release(requirements)
    minor = d.matrix.tf_minor(version) if d.matrix is not None and version else None
    wanted = "tf-keras" in requirement_names(requirements)
    set_already = s.env.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true")
    if not (minor and minor.keras_major == 3 and wanted) or set_already:
        return []
    return [export_variable("TF_USE_LEGACY_KERAS", "1")]


def reinstall_commands(s: Snapshot, d: Derived, packages: list[PackageFacts]) -> list[Command]:
    """Reinstall `packages` as built for this interpreter, without pip's cache (which may hold
    the wrong build). Each at its own version (a bare name would upgrade), with `--no-deps` so
    nothing else moves; for TensorFlow on a Mac, the distribution that carries that release's
    code for this architecture (tensorflow 2.9 has no arm64 wheel, tensorflow-macos 2.9 has),
    or the recommended TensorFlow when the release has no wheel here: that is a move, so its
    dependencies come with it."""
    reqs, moved = [], False
    for pkg in packages:
        here = _release_here(s, d, pkg)
        moved = moved or here is None
        reqs += [here] if here else list(recommended_requirements(s).requirements)
    options = ("--force-reinstall", "--no-cache-dir") + (() if moved else ("--no-deps",))
    return install_commands(s, reqs, *options, d=d)


def _release_here(s: Snapshot, d: Derived, pkg: PackageFacts) -> str | None:
    same = f"{pkg.key}=={pkg.version}" if pkg.version else pkg.key
    if not (d.is_mac and pkg.key in TENSORFLOW_DISTRIBUTIONS and pkg.version and d.matrix and s.python):
        return same
    release = d.matrix.tf_release(pkg.version)
    return release.requirement(s.python.minor, d.hardware_arch) if release else same


def with_companions(s: Snapshot, d: Derived, requirements: list[str]) -> list[str]:
    """tf-keras follows TensorFlow's minor (an unpinned or stale tf-keras pulls TensorFlow back
    to its own): when it is installed and REQS move TensorFlow, it is pinned to the new minor."""
    version = tensorflow_release(requirements)
    if version is None or s.package("tf-keras") is None or d.matrix is None \
            or "tf-keras" in requirement_names(requirements):
        return requirements
    pin = keras_releases.tf_keras_requirement(d.matrix, version, s.python.minor if s.python else None)
    return requirements + [pin.requirement] if pin else requirements


def with_metal(s: Snapshot, d: Derived, requirements: list[str] | tuple[str, ...]) -> list[str]:
    """`requirements` that install a TensorFlow, completed on Apple silicon with the
    tensorflow-metal that goes with it when no Metal plugin is installed: a TensorFlow that
    imports but leaves the GPU idle is half a fix."""
    reqs = list(requirements)
    if not d.apple_silicon or d.metal_plugins or d.matrix is None or s.python is None \
            or "tensorflow-metal" in requirement_names(reqs):
        return reqs
    version = tensorflow_release(reqs)
    metal = matching_metal(d.matrix, version, s.python.minor, d.hardware_arch) if version else None
    return reqs + [f"tensorflow-metal=={metal.version}"] if metal else reqs


def tensorflow_release(requirements: list[str] | tuple[str, ...]) -> str | None:
    """The release the first TensorFlow requirement among `requirements` pins:
    "tensorflow-macos==2.13.0" -> "2.13.0", "tensorflow==2.19.*" -> "2.19.0"; None when none does."""
    for text in requirements:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        pins = [c.version for c in req.specifier if c.operator == "=="]
        if canonicalize_name(req.name) in TENSORFLOW_DISTRIBUTIONS and len(pins) == 1:
            return pins[0].replace(".*", ".0")
    return None


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


BINARIES = "its binaries"
"""How a macOS floor read from the binaries (LC_BUILD_VERSION), not from a wheel tag, begins its source."""
_MACOS_TAG = re.compile(r"macosx_(\d+)_(\d+)_")


def tensorflow_macos_floors(m: CompatMatrix, tf: PackageFacts, py: str, arch: str) -> list[tuple[str, str, str]]:
    """(needs, what, source) for the installed TensorFlow: its wheel tag and, where they were
    built for a newer macOS than the tag says, its binaries (tfdoctor.knowledge.macos_floors);
    for a release no section knows, the installed WHEEL tag."""
    what = tf.label
    floor = macos_floors.wheel_floor(tf.key, tf.version, arch, py, tuple(tf.wheel_tags))
    release = m.tf_release(tf.version)
    wheels = release.wheels(tf.key, arch) if release and tf.key in ("tensorflow", "tensorflow-macos") else None
    out = []
    if wheels is not None:
        tags = ", ".join(wheels.platform_tags)
        out.append((wheels.min_macos, what, f"wheel tag {tags} (compat_matrix.json: {wheels.source})"))
    elif floor is not None:
        source = f"compat_matrix.json macos_floors: {macos_floors.source()}"
        out.append((floor.tag, what, f"wheel tag {floor.platform_tag} ({source})"))
    else:  # a release the matrix lacks: the installed WHEEL Tag is all there is
        found = next((x for x in map(_MACOS_TAG.search, tf.wheel_tags) if x), None)
        if found:
            out.append((f"{found.group(1)}.{found.group(2)}", what,
                        f"installed WHEEL tag {found.group(0).rstrip('_')} (the release is not in the matrix)"))
    if floor is not None and floor.built_for:
        source = f"compat_matrix.json macos_floors: {macos_floors.source()}"
        out.append((floor.built_for, what,
                    f"{BINARIES} (LC_BUILD_VERSION minos, read from {floor.platform_tag}; {source})"))
    return out


def metal_macos_floors(m: CompatMatrix, metal: MetalRelease | None, arch: str) -> dict[str, Any]:
    """The macOS a tensorflow-metal needs, from its wheel tag and from Apple's table, apart; for a
    version the matrix does not know (None), what every release needs: the lowest of each."""
    if metal is None:
        tags = [w.min_macos for r in m.metal_releases.values() if (w := r.wheels.get(arch))]
        rows = [r.apple_table_min_macos for r in m.metal_releases.values() if r.apple_table_min_macos]
        return {"wheel_tag": min(tags, key=Version, default=None), "wheel_tag_source": "every release's wheel tags",
                "apple_table": min(rows, key=Version, default=None), "apple_table_how": "every row"}
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
        kept = chosen_distribution(s)
        out.update({
            "arch": normalise(py.process_arch), "metal": False,
            "requirements": list(reqs.requirements), "status": None, "sources": [], "cpu_only": [],
            "reason": (f"There is no Metal pairing for {s.host.system or 'this OS'}: tensorflow-metal "
                       f"ships macOS wheels only. {reqs.text}"),
            "commands": [] if kept else install_commands(s, reqs.requirements),
        })
        if kept:
            out["notes"].append(f"{kept} is installed already: nothing to install")
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
