"""Is exactly one TensorFlow installed, and is tensorflow-metal installed with one? Several
distributions ship the same `tensorflow` import package and overwrite each other's files; the
shims (tensorflow-macos 2.16+ onto tensorflow, tensorflow 2.13-2.15 onto tensorflow-macos on
Apple silicon) are the exception, told apart by their Requires-Dist. A self-shim (tensorflow-macos
2.15.1: a ~2 KB wheel whose only Darwin/arm64 requirement is itself) ships no code at all."""

from __future__ import annotations

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tfdoctor.fixes import pip
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.recommend import recommended_requirements
from tfdoctor.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot

from tfdoctor.checks.archnames import normalise
from tfdoctor.checks.markers import applicable, marker_env

CODES = {
    "install.no-tensorflow": CodeDoc(
        "TensorFlow is not installed",
        Severity.ERROR,
        "No distribution that provides the `tensorflow` package is installed in this "
        "interpreter's site-packages.",
        "Install the pair tfdoctor recommends for this machine (shown in the finding).",
    ),
    "install.multiple-tensorflow": CodeDoc(
        "Several TensorFlow distributions are installed at once",
        Severity.ERROR,
        "tensorflow, tensorflow-macos, tensorflow-cpu, tensorflow-intel and tf-nightly all "
        "install the same `tensorflow` import package. Installed together, the last one wins "
        "file by file and the result matches neither version.",
        "Uninstall all of them, then install one.",
    ),
    "install.metal-without-tensorflow": CodeDoc(
        "tensorflow-metal is installed without TensorFlow",
        Severity.ERROR,
        "tensorflow-metal's wheels declare no dependency on TensorFlow, so pip installs it alone "
        "without complaint; the plugin is useless until a matching TensorFlow is installed.",
        "Install the TensorFlow that matches the plugin (shown in the finding).",
    ),
    "install.self-shim": CodeDoc(
        "The installed TensorFlow is an empty self-shim",
        Severity.ERROR,
        "tensorflow-macos 2.15.1 is a ~2 KB wheel whose only requirement on macOS arm64 is "
        "tensorflow-macos==2.15.1 itself: pip installs it happily (an unpinned "
        "'tensorflow-macos<2.16' resolves to it) but it contains no TensorFlow, so "
        "`import tensorflow` fails with ModuleNotFoundError. tfdoctor knows such wheels from "
        "compat_matrix.json (wheel kind 'self-shim') and from a Requires-Dist that names the "
        "distribution itself.",
        "Uninstall it and install a TensorFlow that ships code (the finding names the pair).",
    ),
    "install.shim-target-missing": CodeDoc(
        "The installed TensorFlow is a shim whose code is not installed",
        Severity.ERROR,
        "On Apple silicon, tensorflow 2.13-2.15 is a thin wheel whose code lives in "
        "tensorflow-macos (and tensorflow-macos 2.16+ a shim onto tensorflow): each declares the "
        "other in Requires-Dist for macOS arm64. Installers that skip or mis-resolve that "
        "requirement (Poetry, uv lock files made on another platform: tensorflow/tensorflow#61477, "
        "python-poetry/poetry#8271) leave the shim alone, and `import tensorflow` fails.",
        "Install the distribution the shim names, at the same version (the finding says which).",
    ),
    "install.ok": CodeDoc(
        "One TensorFlow is installed", Severity.OK, "Exactly one distribution provides the "
        "`tensorflow` package (shims that only depend on it excepted).", "Nothing to do.",
    ),
}


def _requires(s: Snapshot, pkg: PackageFacts) -> set[str]:
    """Distributions `pkg` requires on the diagnosed interpreter (markers evaluated there: the
    tensorflow 2.13-2.15 wheels require tensorflow-macos on macOS arm64 only)."""
    return {canonicalize_name(r.name) for r in applicable(pkg, marker_env(s))}


def _matrix_kind(pkg: PackageFacts, arch: str | None) -> tuple[str | None, str | None]:
    """(kind, source) of this distribution's macOS wheels per compat_matrix.json: full, thin,
    self-shim; (None, None) when the matrix does not know the release or cannot be read."""
    if pkg.key not in ("tensorflow", "tensorflow-macos") or not pkg.version:
        return None, None
    from tfdoctor.matrix import load_matrix_or_none  # lazily: only TensorFlow installs need it

    matrix = load_matrix_or_none()
    release = matrix.tf_release(pkg.version) if matrix is not None else None
    if release is None:
        return None, None
    table = release.tensorflow if pkg.key == "tensorflow" else release.tensorflow_macos
    wheels = table.get(arch) if arch else None
    if wheels is None and len(table) == 1:
        wheels = next(iter(table.values()))
    return (wheels.kind, wheels.source) if wheels else (None, None)


def self_shim_evidence(s: Snapshot, pkg: PackageFacts) -> dict | None:
    """Why `pkg` is a self-shim that installs no TensorFlow (matrix kind and/or its own
    Requires-Dist naming itself for this interpreter), or None when it is not one."""
    arch = normalise(s.python.process_arch) if s.python else None
    kind, source = _matrix_kind(pkg, arch)
    own = [str(r) for r in applicable(pkg, marker_env(s)) if canonicalize_name(r.name) == pkg.key]
    if kind != "self-shim" and not own:
        return None
    evidence: dict = {"distribution": pkg.name, "version": pkg.version}
    if kind == "self-shim":
        evidence["matrix_kind"] = kind
        evidence["matrix_source"] = f"compat_matrix.json: {source}"
    if own:
        evidence["requires_itself"] = own
    return evidence


def missing_target_evidence(s: Snapshot, pkg: PackageFacts) -> dict | None:
    """Why `pkg` is a shim whose code-carrying target is not installed: it requires (for this
    interpreter) another TensorFlow distribution that is absent. None when it is not one."""
    installed = {d.key for d in s.tensorflow_distributions()}
    targets = [r for r in applicable(pkg, marker_env(s))
               if canonicalize_name(r.name) in _TF_KEYS and canonicalize_name(r.name) != pkg.key]
    missing = [str(r) for r in targets if canonicalize_name(r.name) not in installed]
    if not missing:
        return None
    arch = normalise(s.python.process_arch) if s.python else None
    kind, source = _matrix_kind(pkg, arch)
    evidence: dict = {"distribution": pkg.name, "version": pkg.version, "requires_missing": missing}
    if kind:
        evidence["matrix_kind"] = kind
        evidence["matrix_source"] = f"compat_matrix.json: {source}"
    return evidence


_TF_KEYS = {canonicalize_name(n) for n in TENSORFLOW_DISTRIBUTIONS}


def hollow_shims(s: Snapshot) -> list[PackageFacts]:
    """Installed TensorFlow shims whose target is missing: they install no usable code."""
    empty = self_shims(s)
    return [d for d in s.tensorflow_distributions()
            if d not in empty and missing_target_evidence(s, d) is not None]


def self_shims(s: Snapshot) -> list[PackageFacts]:
    """Installed TensorFlow distributions that ship no code and depend only on themselves."""
    return [d for d in s.tensorflow_distributions() if self_shim_evidence(s, d) is not None]


def providers(s: Snapshot) -> tuple[list[PackageFacts], list[PackageFacts]]:
    """Split installed TensorFlow distributions into those shipping code and shims onto them.

    Self-shims (see `self_shims`) are in neither list: they install nothing. A shim onto one of
    them therefore is not a provider either, so with only those installed both lists are empty
    of code-carrying distributions."""
    dists = s.tensorflow_distributions()
    empty = self_shims(s) + hollow_shims(s)
    keys = {d.key for d in dists}
    shims = [d for d in dists if d not in empty and _requires(s, d) & (keys - {d.key})]
    real = [d for d in dists if d not in shims and d not in empty]
    return real, shims


def _self_shim_finding(s: Snapshot, empty: list[PackageFacts], shims: list[PackageFacts],
                       metal: PackageFacts | None) -> Finding:
    names = [d.name for d in empty]
    first = empty[0]
    reqs = recommended_requirements(s)
    commands = [pip(s, "uninstall", "-y", *sorted({d.name for d in empty + shims}))]
    if reqs.requirements:
        commands.append(pip(s, "install", *reqs.requirements))
    via = f" ({', '.join(f'{d.name} {d.version}' for d in shims)} depends on it)" if shims else ""
    evidence = {"self_shims": [self_shim_evidence(s, d) for d in empty],
                "shims_onto_it": {d.name: d.version for d in shims},
                "tensorflow_metal": metal.version if metal else None,
                "recommended": list(reqs.requirements)}
    return Finding(
        "install.self-shim", Severity.ERROR,
        f"{first.name} {first.version} installs no TensorFlow: it is an empty wheel that depends "
        f"only on itself{via}",
        evidence,
        Remediation(f"Uninstall {', '.join(names)} and install a TensorFlow that ships code. "
                    + reqs.text, tuple(commands)),
        detail="pip accepts it (an unpinned 'tensorflow-macos<2.16' resolves to it), but "
               "`import tensorflow` then fails with ModuleNotFoundError.",
        explains=("runtime.not-installed", "runtime.import-failed", "runtime.no-gpu",
                  "install.metal-without-tensorflow"),
    )


def run(s: Snapshot) -> list[Finding]:
    real, shims = providers(s)
    metal = s.package("tensorflow-metal")
    empty = self_shims(s)
    if not real and empty:
        return [_self_shim_finding(s, empty, shims, metal)]
    hollow = hollow_shims(s)
    if not real and hollow:
        return [_missing_target_finding(s, hollow, metal)]
    installed = {d.name: d.version for d in real + shims}
    if not real and not shims:
        reqs = recommended_requirements(s)
        code = "install.metal-without-tensorflow" if metal else "install.no-tensorflow"
        evidence = {"tensorflow_distributions": {}, "tensorflow_metal": metal.version if metal else None}
        title = (f"tensorflow-metal {metal.version} is installed without TensorFlow" if metal
                 else "TensorFlow is not installed")
        fix = Remediation(reqs.text, (pip(s, "install", *reqs.requirements),) if reqs.requirements else ())
        return [Finding(code, Severity.ERROR, title, evidence, fix)]
    if len(real) > 1:
        names = sorted(installed)
        keep = recommended_requirements(s)
        commands = [pip(s, "uninstall", "-y", *names)]
        if keep.requirements:
            commands.append(pip(s, "install", *keep.requirements))
        return [Finding(
            "install.multiple-tensorflow", Severity.ERROR,
            f"{len(real)} TensorFlow distributions are installed at once: "
            + ", ".join(f"{d.name} {d.version}" for d in real),
            {"providers": {d.name: d.version for d in real},
             "shims": {d.name: d.version for d in shims}},
            Remediation("Uninstall every TensorFlow distribution, then install one", tuple(commands)),
            explains=("runtime.import-failed", "runtime.op-not-registered", "compat.tf-metal-mismatch"),
        )]
    main = real[0] if real else shims[0]
    via = f" (via {', '.join(d.name for d in shims)})" if shims else ""
    evidence = {"tensorflow_distributions": installed,
                "tensorflow_metal": metal.version if metal else None}
    if empty:  # beside a real TensorFlow an empty self-shim is harmless: it installed no files
        evidence["self_shims"] = {d.name: d.version for d in empty}
    return [Finding("install.ok", Severity.OK, f"{main.name} {main.version}{via}", evidence)]


def _missing_target_finding(s: Snapshot, hollow: list[PackageFacts],
                            metal: PackageFacts | None) -> Finding:
    evidence = [missing_target_evidence(s, d) for d in hollow]
    needed = sorted({req for ev in evidence for req in ev["requires_missing"]})
    first = hollow[0]
    names = ", ".join(Requirement(r).name + str(Requirement(r).specifier) for r in needed)
    return Finding(
        "install.shim-target-missing", Severity.ERROR,
        f"{first.name} {first.version} is a shim: its code is in {names}, which is not installed",
        {"shims": evidence, "tensorflow_metal": metal.version if metal else None},
        Remediation("Install the distribution the shim requires, at the same version",
                    (pip(s, "install", *(Requirement(r).name + str(Requirement(r).specifier)
                                         for r in needed)),),
                    "https://github.com/tensorflow/tensorflow/issues/61477"),
        explains=("runtime.import-failed", "runtime.not-installed"),
    )


CHECK = Check(
    name="installation",
    area="TensorFlow installation",
    summary="Exactly one TensorFlow is installed",
    run=run,
    codes=CODES,
    needs=("python",),
    order=40,
)


__all__ = ["CHECK", "TENSORFLOW_DISTRIBUTIONS", "providers", "self_shims"]
