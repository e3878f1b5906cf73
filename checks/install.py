"""Is exactly one TensorFlow installed, and is tensorflow-metal installed with one? Which installed
distributions provide TensorFlow's code is worked out once in tfdoctor.derived.providers (shims, self-shims,
hollow shims); these rules judge the result."""

from __future__ import annotations

from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import GOAL_INSTALLED, NOTHING_WRONG, OUTSIDE_THE_GOAL
from tfdoctor.advice.log_evidence import matches_of, said
from tfdoctor.advice.installs import install_commands, listing_read, pair_fix, recommended_requirements, with_metal
from tfdoctor.advice.tensorflow_name import Refusal, refused_for_tensorflow_name, tensorflow_macos_before_2_13
from tfdoctor.derived import Derived
from tfdoctor.derived.markers import applicable
from tfdoctor.derived.providers import GPU_TWINS, missing_target_evidence, self_shim_evidence
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge import best_pair, metal_plugins
from tfdoctor.knowledge.records import GOOD_STATUSES
from tfdoctor.model import Remediation, Severity, rule

_TF_KEYS = set(TENSORFLOW_DISTRIBUTIONS)


def _metal_version(d: Derived) -> str | None:
    return d.metal.version if d.metal else None


@rule(codes.INSTALL_SELF_SHIM, "The installed TensorFlow is an empty self-shim",
      Severity.ERROR,
      "tensorflow-macos 2.15.1 is a ~2 KB wheel whose only requirement on macOS arm64 is "
      "tensorflow-macos==2.15.1 itself: pip installs it happily (an unpinned "
      "'tensorflow-macos<2.16' resolves to it) but it contains no TensorFlow, so "
      "`import tensorflow` fails with ModuleNotFoundError. tfdoctor knows such wheels from "
      "compat_matrix.json (wheel kind 'self-shim') and from a Requires-Dist that names the "
      "distribution itself.",
      "Uninstall it and install a TensorFlow that ships code (the finding names the pair).",
      explains=(codes.RUNTIME_NOT_INSTALLED, codes.RUNTIME_IMPORT_FAILED, codes.RUNTIME_NO_GPU,
                codes.INSTALL_METAL_WITHOUT_TENSORFLOW), fix_answer=GOAL_INSTALLED)
def self_shim(s: Snapshot, d: Derived):
    if d.providers or not d.self_shims:
        return None
    empty, shims = d.self_shims, d.shims
    first = empty[0]
    reqs = recommended_requirements(s)
    commands = [pip(s, "uninstall", "-y", *sorted({p.name for p in empty + shims}))]
    if reqs.requirements:
        commands.append(pip(s, "install", *reqs.requirements))
    via = f" ({', '.join(f'{p.label}' for p in shims)} depends on it)" if shims else ""
    return self_shim.finding(
        {"self_shims": [self_shim_evidence(s, p) for p in empty],
         "shims_onto_it": {p.name: p.version for p in shims},
         "tensorflow_metal": _metal_version(d), "recommended": list(reqs.requirements)},
        Remediation(f"Uninstall {', '.join(p.name for p in empty)} and install a TensorFlow that "
                    "ships code. " + reqs.text, tuple(commands)),
        title=f"{first.label} installs no TensorFlow: it is an empty wheel that "
              f"depends only on itself{via}",
        detail="pip accepts it (an unpinned 'tensorflow-macos<2.16' resolves to it), but "
               "`import tensorflow` then fails with ModuleNotFoundError.")


@rule(codes.INSTALL_SHIM_TARGET_MISSING, "The installed TensorFlow is a shim whose code is not installed",
      Severity.ERROR,
      "On Apple silicon, tensorflow 2.13-2.15 is a thin wheel whose code lives in "
      "tensorflow-macos (and tensorflow-macos 2.16+ a shim onto tensorflow): each declares the "
      "other in Requires-Dist for macOS arm64. Installers that skip or mis-resolve that "
      "requirement (Poetry, uv lock files made on another platform: tensorflow/tensorflow#61477, "
      "python-poetry/poetry#8271) leave the shim alone, and `import tensorflow` fails.",
      "Install the distribution the shim names, at the same version (the finding says which).",
      explains=(codes.RUNTIME_IMPORT_FAILED, codes.RUNTIME_NOT_INSTALLED), needs=("packages",),
      fix_answer=GOAL_INSTALLED)
def shim_target_missing(s: Snapshot, d: Derived):
    if d.providers or d.self_shims or not d.hollow_shims:
        return None
    evidence = [missing_target_evidence(s, p) for p in d.hollow_shims]
    needed = sorted({req for ev in evidence for req in ev["requires_missing"]})
    first = d.hollow_shims[0]
    wanted = [Requirement(r).name + str(Requirement(r).specifier) for r in needed]
    return shim_target_missing.finding(
        {"shims": evidence, "tensorflow_metal": _metal_version(d)},
        Remediation("Install the distribution the shim requires, at the same version",
                    tuple(install_commands(s, with_metal(s, d, wanted))),
                    "https://github.com/tensorflow/tensorflow/issues/61477"),
        title=f"{first.label} is a shim: its code is in {', '.join(wanted)}, which "
              "is not installed")


def _nothing_installed(d: Derived) -> bool:
    return not d.providers and not d.shims and not d.self_shims and not d.hollow_shims


def _install_fix(s: Snapshot) -> Remediation:
    reqs = recommended_requirements(s)
    return Remediation(reqs.text, tuple(install_commands(s, reqs.requirements)))


@rule(codes.INSTALL_NO_TENSORFLOW, "TensorFlow is not installed",
      Severity.ERROR,
      "No distribution that provides the `tensorflow` package is installed in this "
      "interpreter's site-packages: its package list says so, or, where the list is only what a "
      "report mentioned, the interpreter's own 'No module named 'tensorflow''.",
      "Install the pair tfdoctor recommends for this machine (shown in the finding).",
      explains=(codes.LOG_NO_TENSORFLOW_MODULE,), needs=("packages",), fix_answer=GOAL_INSTALLED)
def no_tensorflow(s: Snapshot, d: Derived):
    if not _nothing_installed(d) or d.metal:
        return None
    if not listing_read(s) and not matches_of(s, codes.LOG_NO_TENSORFLOW_MODULE):
        return None
    evidence = {"tensorflow_distributions": {}, "tensorflow_metal": None}
    conda = s.python.conda if s.python else None
    deps = [p for p in (conda.packages if conda else []) if p.name == "tensorflow-deps"]
    if deps:  # conda's own record: Apple's recipe installs the dependencies, never TensorFlow
        evidence["conda_tensorflow_deps"] = {"version": deps[0].version, "channel": deps[0].channel,
                                             "subdir": deps[0].subdir}
        fix = _install_fix(s)
        return no_tensorflow.finding(evidence, Remediation(
            f"The apple channel's tensorflow-deps {deps[0].version} installs TensorFlow's dependencies "
            f"only; TensorFlow itself comes from pip. {fix.text}", fix.commands))
    return no_tensorflow.finding(evidence, _install_fix(s))


@rule(codes.INSTALL_METAL_WITHOUT_TENSORFLOW, "tensorflow-metal is installed without TensorFlow",
      Severity.ERROR,
      "tensorflow-metal's wheels declare no dependency on TensorFlow, so pip installs it alone "
      "without complaint; the plugin is useless until a matching TensorFlow is installed.",
      "Install the TensorFlow that matches the plugin (shown in the finding).", needs=("packages",),
      fix_answer=GOAL_INSTALLED)
def metal_without_tensorflow(s: Snapshot, d: Derived):
    if not _nothing_installed(d) or not d.metal or not listing_read(s):
        return None  # a report's list of what it mentions says nothing of a TensorFlow it omits
    return metal_without_tensorflow.finding(
        {"tensorflow_distributions": {}, "tensorflow_metal": d.metal.version}, _install_fix(s),
        title=f"tensorflow-metal {d.metal.version} is installed without TensorFlow")


@rule(codes.INSTALL_MULTIPLE_TENSORFLOW, "Several TensorFlow distributions are installed at once",
      Severity.ERROR,
      "tensorflow, tensorflow-macos, tensorflow-cpu, tensorflow-intel, tf-nightly and the GPU, "
      "ROCm and Intel builds (tensorflow-gpu up to 2.11, tensorflow-rocm, intel-tensorflow) all "
      "install the same `tensorflow` import package. Installed together, the last one wins "
      "file by file and the result matches neither version; before 2.1 `tensorflow` was "
      "CPU-only, so installed over tensorflow-gpu (a dependency that requires `tensorflow` does "
      "it) it takes the GPU away. From 2.1 tensorflow-gpu of the same version is the same build "
      "and is not counted twice.",
      "Uninstall all of them, then install one.",
      explains=(codes.RUNTIME_IMPORT_FAILED, codes.RUNTIME_OP_NOT_REGISTERED,
                codes.COMPAT_TF_METAL_MISMATCH, codes.RUNTIME_NO_GPU, codes.LOG_NO_GPU_LISTED),
      fix_answer=GOAL_INSTALLED)
def multiple_tensorflow(s: Snapshot, d: Derived):
    real = d.providers
    if len(real) < 2:
        return None
    keep = recommended_requirements(s).requirements or (_one_to_keep(d),)
    commands = install_commands(s, keep, d=d, remove=sorted(p.name or p.key for p in real + d.shims))
    return multiple_tensorflow.finding(
        {"providers": {p.name: p.version for p in real}, "shims": {p.name: p.version for p in d.shims}},
        Remediation("Uninstall every TensorFlow distribution, then install one", tuple(commands)),
        title=f"{len(real)} TensorFlow distributions are installed at once: "
              + ", ".join(p.label for p in real))


@rule(codes.INSTALL_TWO_METAL_PLUGINS, "Two Metal plugins are installed over each other", Severity.ERROR,
      "Apple's tensorflow-metal and the third-party tensorflow-metal-plugin (IPNP-BIPN) both "
      "install site-packages/tensorflow-plugins/libmetal_plugin.dylib: the one installed last "
      "overwrites the other's library, uninstalling either deletes the file the other still lists, "
      "and where both get loaded TensorFlow aborts ('platform is already registered with name: "
      "\"METAL\"', pleonard212/pix-plot#268).",
      "Uninstall both, then install the one that pairs with the installed TensorFlow (Apple's "
      "up to 2.19, the third-party 0.4.1 for 2.21).",
      "https://github.com/pleonard212/pix-plot/issues/268",
      explains=(codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_PLUGIN_LOAD_FAILED, codes.RUNTIME_NO_GPU,
                codes.COMPAT_TF_METAL_MISMATCH, codes.LOG_PLUGIN_REGISTERED_TWICE), fix_answer=GOAL_INSTALLED)
def two_metal_plugins(s: Snapshot, d: Derived):
    if len(d.metal_plugins) < 2:
        return None
    installed = {p.name: p.version for p in d.metal_plugins}
    conflicts = metal_plugins.plugin_conflicts(d.matrix, installed) if d.matrix else ()
    keep = "tensorflow-metal-plugin" if (d.tf_version or "").startswith(("2.20", "2.21", "2.22")) \
        else "tensorflow-metal"
    wanted = next((r for r in pair_fix(s, d)[0] if r.startswith("tensorflow-metal")), keep) \
        if keep == "tensorflow-metal" else keep
    return two_metal_plugins.finding(
        {"installed": installed, "tensorflow": d.tf_version,
         "shared_file": "tensorflow-plugins/libmetal_plugin.dylib",
         "matrix": [{"id": c.id, "summary": c.summary, "sources": list(c.sources)} for c in conflicts]},
        Remediation(f"Uninstall both (each one's uninstall deletes the shared library), then install "
                    f"{wanted} for TensorFlow {d.tf_version or ''}".rstrip(),
                    (pip(s, "uninstall", "-y", *sorted(installed)), pip(s, "install", wanted)),
                    "https://github.com/pleonard212/pix-plot/issues/268"),
        title="Two Metal plugins are installed over each other: "
              + " and ".join(f"{n} {v}" for n, v in installed.items()))


@rule(codes.INSTALL_REQUIRES_TENSORFLOW_NAME,
      "Packages require the distribution `tensorflow`, which is not installed", Severity.WARNING,
      "Until 2.13, TensorFlow for Apple silicon is the distribution tensorflow-macos; a package that "
      "requires `tensorflow` (tensorflow-text, tensorflow-datasets, keras-cv...) is unsatisfied "
      "for pip, and the next `pip install` or upgrade of it installs a second TensorFlow over "
      "tensorflow-macos: both write the same `tensorflow` import package. Where pip's resolver "
      "refused such a package ('X 1.0 depends on tensorflow~=2.10.0' under 'The conflict is caused "
      "by:', or 'Could not find a version that satisfies the requirement tensorflow... (from X)') on "
      "a Mac whose TensorFlow is tensorflow-macos before 2.13, that line is this finding observed "
      "(an error: the install failed). Without tensorflow-macos installed, the refusal is pip's own "
      "story (log.pip-depends-on-tensorflow).",
      "Install such packages with --no-deps, or move to TensorFlow 2.13+ (2.16+ best), where "
      "`tensorflow` itself has macOS arm64 wheels.",
      explains=(codes.INSTALL_MULTIPLE_TENSORFLOW, codes.LOG_PIP_DEPENDS_ON_TENSORFLOW),
      fix_answer=OUTSIDE_THE_GOAL)
def requires_tensorflow_name(s: Snapshot, d: Derived):
    refused = [r for r in refused_for_tensorflow_name(s, d) if r.why == "tensorflow-macos"]
    if refused:  # observed: pip refused it beside tensorflow-macos; needs no complete package list
        return _refused(s, d, refused)
    if "packages" in s.unknown or not tensorflow_macos_before_2_13(d):
        return None  # the Requires-Dist of what is installed say something only of a whole list
    wanting = [(p, r) for p in s.packages if p.key not in _TF_KEYS
               for r in applicable(p, d.marker_env) if canonicalize_name(r.name) == "tensorflow"]
    if not wanting:
        return None
    first = wanting[0][0]
    return requires_tensorflow_name.finding(
        {"provider": {p.name: p.version for p in d.providers},
         "require_tensorflow": [{"package": p.label, "requires": str(r)} for p, r in wanting]},
        Remediation(f"Reinstall {first.name} without its dependencies so pip leaves tensorflow-macos alone",
                    (pip(s, "install", "--no-deps", "--force-reinstall", f"{first.name}=={first.version}"),)),
        title=f"{', '.join(sorted({p.name for p, _ in wanting}))} require `tensorflow`, but only "
              f"{d.providers[0].label} provides it: pip will install a second TensorFlow")


def _refused(s: Snapshot, d: Derived, refused: list[Refusal]):
    """pip's resolver refused a package over its requirement on `tensorflow` (the first line it
    printed names the newest version it tried)."""
    first = refused[0]
    if said(first.match):
        return _said_refused(s, d, first)
    wants = f"`tensorflow{first.specifier}`"
    what = f"{first.package} {first.version}" if first.version else first.package
    tf = d.providers[0]
    cause = (f"while TensorFlow here is {tf.label} (the distribution `tensorflow` has no "
             "macOS arm64 wheel before 2.13)")
    newest = first.arm64_releases[-1] if first.arm64_releases else None
    text = (f"Install {first.package} without its dependencies beside TensorFlow, then its other "
            "requirements yourself" + (f"; or move to TensorFlow {newest}, whose `tensorflow` wheel exists "
                                       "for macOS arm64 and meets it" if newest else
                                       f"; or a newer {first.package} that accepts TensorFlow 2.13 or later"))
    spec = f"=={first.version}" if first.version else ""
    return requires_tensorflow_name.finding(
        {"provider": {p.name: p.version for p in d.providers},
         "refused_by_pip": [{"package": f"{r.package} {r.version or ''}".strip(),
                             "requires": f"tensorflow{r.specifier}", "why": r.why, "line": r.match.line,
                             "observed_in": r.match.text} for r in refused],
         "arm64_tensorflow_releases_admitted": list(first.arm64_releases)},
        Remediation(text, (pip(s, "install", "--no-deps", f"{first.package}{spec}"),)),
        title=f"pip cannot install {what}: it depends on {wants}, {cause}",
        severity=Severity.ERROR, explains=tuple(sorted({r.match.code for r in refused} - {codes.LOG_PIP_DEPENDS_ON_TENSORFLOW})))


def _said_refused(s: Snapshot, d: Derived, first: Refusal):
    """The report says it in words (a package requires `tensorflow`, the Mac needs tensorflow-macos):
    no package or version to name, so the way out is the TensorFlow whose `tensorflow` has arm64 wheels."""
    here = f"TensorFlow here is {d.providers[0].label}"
    reqs = recommended_requirements(s)
    return requires_tensorflow_name.finding(
        {"provider": {p.name: p.version for p in d.providers}, "why": first.why, "said": True,
         "observed_in": first.match.text},
        Remediation("Move to TensorFlow 2.13 or later, whose `tensorflow` has macOS arm64 wheels, so a requirement "
                    "on `tensorflow` is met (or install the package with --no-deps beside tensorflow-macos): "
                    + reqs.text, tuple(install_commands(s, reqs.requirements))),
        title=f"The report says a package requires `tensorflow`; {here}, and the distribution `tensorflow` has "
              "macOS arm64 wheels only from 2.13 on",
        severity=Severity.ERROR, explains=(codes.LOG_PIP_DEPENDS_ON_TENSORFLOW,))


@rule(codes.INSTALL_OK, "One TensorFlow is installed",
      Severity.OK,
      "Exactly one distribution provides the "
      "`tensorflow` package (shims that only depend on it excepted).",
      "Nothing to do.", summary=True, fix_answer=NOTHING_WRONG)
def install_ok(s: Snapshot, d: Derived):
    if not d.providers and not d.shims:
        return None
    main = d.tf_main
    via = f" (via {', '.join(p.name for p in d.shims)})" if d.shims else ""
    evidence = {"tensorflow_distributions": {p.name: p.version for p in d.providers + d.shims},
                "tensorflow_metal": _metal_version(d)}
    if d.self_shims:  # beside a real TensorFlow an empty self-shim is harmless: it installed no files
        evidence["self_shims"] = {p.name: p.version for p in d.self_shims}
    return install_ok.finding(evidence, title=f"{main.label}{via}")


def _one_to_keep(d: Derived) -> str:
    """Where nothing is recommended for this Python: the installed provider that pairs with the
    installed Metal plugin (else the newest), reinstalled at its version."""
    def rank(p: PackageFacts) -> tuple[bool, Any]:
        good = bool(d.metal and d.matrix and p.version and d.metal.version
                    and best_pair.pairing(d.matrix, p.version, d.metal.version).status in GOOD_STATUSES)
        return good, parse_version(p.version) or Version("0")

    best = max(d.providers, key=rank)
    # unpinned, tensorflow-gpu is 2.12.0, whose install only raises: its default build carries the GPU
    return f"{best.key}=={best.version}" if best.version else GPU_TWINS.get(best.key, best.key)
