"""The verdict on an installed TensorFlow + tensorflow-metal pair, read from the bundled
compatibility matrix (and the plugin binaries' load check), each judgement with its sources.
compat.tf-metal-mismatch (checks/compat_pairing.py) reports a pair that is not known to work;
compat.ok (checks/compat_platform.py) headlines one that is. Both rule modules ask here, since rule
modules never import each other; this module builds no finding, only what one says."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence, TypeVar

from tfdoctor import codes
from tfdoctor.advice.installs import APPLE_PLUGIN_PAGE, install_commands, short_source, span
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge import best_pair
from tfdoctor.knowledge.binary_evidence import binary_check, load_check
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import GOOD_STATUSES
from tfdoctor.model import Remediation, Severity

LOAD_FAILURES = (codes.RUNTIME_PLUGIN_LOAD_FAILED, codes.RUNTIME_NO_GPU, codes.RUNTIME_IMPORT_FAILED,
                 codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_GPU_PLACEMENT,
                 codes.LOG_SYMBOL_NOT_FOUND_PLUGIN, codes.LOG_PLUGIN_LOAD_FAILED, codes.LOG_NO_GPU_LISTED)
"""Runtime codes a bad pair, a missing wheel or a too-old macOS shows up as."""

STATUS_WORDS = {"known-working": "known to work", "documented": "documented in Apple's table"}
"""How a headline words the matrix's good statuses."""


@dataclass(frozen=True)
class PairProblem:
    """What compat.tf-metal-mismatch says about a pair not known to work."""

    title: str
    detail: str
    severity: Severity
    basis: str
    """"reported" (runtime reports, the binary load check) or "inferred" (release dates)."""
    evidence: dict[str, Any]
    fix: Remediation


@dataclass(frozen=True)
class PairVerdict:
    """A good pair's headline, or the problem with a pair that is not good."""

    headline: str = ""
    problem: PairProblem | None = None


ARCH_UNSTATED = Remediation(
    "Install the pair for this Mac's architecture: `uname -m` says which (arm64 on Apple silicon, x86_64 on "
    "Intel), `tfdoctor matrix` lists the pairs", (), APPLE_PLUGIN_PAGE)
T = TypeVar("T")


def for_every_arch(found: Sequence[T | None], key: Callable[[T], object], fix: str) -> T | None:
    """The verdict every architecture a report leaves open gets (tfdoctor.derived.verdict_archs),
    else none; its fix (the attribute `fix`) only where theirs agree, else the way to learn the
    architecture: the Intel pair is no fix for an unstated chip."""
    first = found[0] if found else None
    if first is None or any(f is None or key(f) != key(first) for f in found):
        return None
    if any(getattr(f, fix).commands != getattr(first, fix).commands for f in found):
        return replace(first, **{fix: ARCH_UNSTATED})  # type: ignore[type-var]
    return first


def judgeable(s: Snapshot, d: Derived, python: bool = True) -> bool:
    """On macOS, with readable versions (a corrupt METADATA is the target rules' business; a
    Python version a report does not state is unknown, not a Python with no wheels) and a matrix
    to judge by. `python=False`: for a judgement that holds for every Python (a floor no wheel of
    the release goes below), an unknown Python version does not stop it."""
    if not d.is_mac or d.matrix is None:
        return False
    if python and (s.python is None or parse_version(s.python.version) is None):
        return False
    return all(parse_version(p.version or "") is not None for p in (d.tensorflow, d.metal) if p is not None)


def judge_pair_any_python(s: Snapshot, d: Derived, m: CompatMatrix, tf: PackageFacts, metal: PackageFacts,
                          arch: str) -> PairVerdict:
    """The verdict where the Python is unknown (a report that does not state it): a problem only
    when it is the same for every Python the TensorFlow release has wheels for, and then an install
    only when the same pair fits them all (else the way to learn the Python). A minor stated
    without its patch is a problem only when every release of it is one."""
    minor = m.tf_minor(tf.version)
    if tf.version.count(".") == 1 and minor is not None:  # "TensorFlow 2.16": a minor, not a release
        if any(not judge_pair_any_python(s, d, m, replace(tf, version=r.version), metal, arch).problem
               for r in minor.releases):
            return PairVerdict()  # some release of it fits the plugin: the report does not say which
    pythons = _release_pythons(m, tf.version, arch)
    verdicts = [judge_pair(s, d, m, tf, metal, py, arch) for py in pythons]
    problems = [v.problem for v in verdicts]
    if not problems or any(p is None or p.title != problems[0].title for p in problems):
        return PairVerdict()
    first = problems[0]
    evidence = {**first.evidence, "python": f"unknown: the same for Python {span(list(pythons))}"}
    fix = first.fix
    if any(p.fix.commands != fix.commands for p in problems):
        fix = Remediation("Install the pair documented or reported to work for your Python (`python3 "
                          "--version` tells which; `tfdoctor matrix` lists them)", (), APPLE_PLUGIN_PAGE)
    return PairVerdict(problem=PairProblem(first.title, first.detail, first.severity, first.basis, evidence, fix))


def _release_pythons(m: CompatMatrix, version: str, arch: str) -> tuple[str, ...]:
    """The Pythons a TensorFlow has wheels for on `arch`: its release's, or for a minor stated
    without its patch ("TensorFlow 2.16", whose first release is 2.16.1) every release's of it."""
    release = m.tf_release(version)
    if release is not None:
        wheels = release.wheels(release.code[arch], arch) if arch in release.code else None
        return tuple(wheels.pythons) if wheels else ()
    minor = m.tf_minor(version)
    return minor.pythons(arch) if minor is not None and version.count(".") == 1 else ()


def judge_pair(s: Snapshot, d: Derived, m: CompatMatrix, tf: PackageFacts, metal: PackageFacts,
               py: str, arch: str) -> PairVerdict:
    """The matrix's verdict on the installed pair for this Python and architecture."""
    build = tf.key if tf.key in ("tensorflow", "tensorflow-macos") else None  # the build the load check read
    p = best_pair.pairing(m, tf.version, metal.version, python=py, arch=arch, binary=binary_check(arch, package=build))
    loaded = load_check(tf.version, metal.version, arch, package=build)
    release = m.metal(metal.version)
    evidence: dict[str, Any] = {
        "tensorflow": tf.label, "tensorflow_metal": metal.version,
        "python": py, "arch": arch, "status": p.status, "matrix_evidence": p.evidence,
        "sources": list(p.sources), "matrix_facts_read": m.facts_read,
    }
    if release is not None:
        evidence["metal_made_for"] = {
            "tensorflow_minors": list(release.tf_minors),
            "documented": bool(release.documented_tf_minors),
            "apple_table_rows": list(release.documented_rows),
            "inference": release.inference,
            "source": release.source,
        }
    reports = [e for e in m.evidence if e.is_pair and e.covers(tf.version, metal.version)]
    if reports:
        evidence["runtime_reports"] = [
            {"id": e.id, "outcome": e.outcome, "summary": e.summary,
             "quotes": [{"text": q.text, "source": q.source} for q in e.quotes], "sources": list(e.sources)}
            for e in reports]
    cites = ", ".join(dict.fromkeys(short_source(x) for x in p.sources))
    pair = f"{tf.label} + tensorflow-metal {metal.version}"
    if p.status in GOOD_STATUSES:
        if p.status == "documented" and release is not None and release.documented_rows:
            cites = release.documented_rows[0].strip()
        return PairVerdict(headline=f"{pair}: {STATUS_WORDS[p.status]} ({cites})")
    if p.status == "loads-untested":  # the plugin binary resolves against this TensorFlow
        return PairVerdict(headline=f"{pair}: loads (binary load check); no report covers it, not tested at run time")

    fix = p.fix or best_pair.recommended_install(m, py, arch, d.macos).requirements
    made_for = span(list(release.tf_minors)) if release and release.tf_minors else None
    how = "" if not release or release.documented_tf_minors else ", inferred: no table row names it"
    basis = "inferred"
    if p.status == "known-broken" and not any(e.outcome == "fails" for e in reports) and loaded:
        severity, basis = Severity.ERROR, "reported"  # the plugin binary, read: ranks with reports
        title = f"{pair} cannot load: {loaded.first_missing()}"
        detail = (f"Read from the binaries ({loaded.method}; {loaded.plugin_wheel} against "
                  f"{loaded.tf_wheel}, {loaded.read_on}): {loaded.summary()}. TensorFlow fails at "
                  "import with 'Symbol not found' when it loads the plugin.")
        evidence["load_check"] = {"loads": False, "summary": loaded.summary(),
                                  "plugin_wheel": loaded.plugin_wheel, "tf_wheel": loaded.tf_wheel,
                                  "method": loaded.method, "read_on": loaded.read_on}
    elif p.status == "known-broken":
        severity, basis = Severity.ERROR, "reported"
        title = f"{pair}: known not to load together ({cites})"
        detail = (" ".join(f"{e.summary}." for e in reports if e.outcome == "fails")
                  + " Quoted in the evidence.")
    elif p.status == "metal-predates-tf":
        severity = Severity.ERROR
        title = (f"tensorflow-metal {metal.version} predates {tf.label}: it was made "
                 f"for TensorFlow {made_for}{how}")
        detail = ("The plugin links against TensorFlow's internal C++ ABI; with a newer TensorFlow "
                  "it is expected to fail to load ('Symbol not found'). No table row or report "
                  "covers this pair.")
    elif p.status == "metal-postdates-tf":
        severity = Severity.ERROR
        title = (f"tensorflow-metal {metal.version} postdates {tf.label}: it was made "
                 f"for TensorFlow {made_for}{how}")
        detail = ("The plugin links against TensorFlow's internal C++ ABI; with an older "
                  "TensorFlow it is expected to fail to load. No table row or report covers this "
                  "pair.")
    else:  # undocumented
        severity = Severity.WARNING
        title = f"{pair}: an undocumented pair (no table row or runtime report covers it)"
        detail = p.evidence
    if not fix:
        text = "No known-good pair has wheels for this Python"
    elif all(f.startswith("tensorflow-metal") for f in fix):
        text = f"Install {fix[0]}: the plugin documented or reported to work with TensorFlow {tf.version}"
    else:
        text = f"Install {' + '.join(fix)}, a pair documented or reported to work"
    evidence["fix_pair"] = list(fix)
    if d.gpu_ran:  # observed beats reported, read and inferred: this pair ran work on the GPU here
        severity = min(severity, Severity.INFO)
        evidence["observed"] = f"TensorFlow imported with this pair and a matmul pinned to {d.gpu_ran} ran there"
        title += f" (yet it ran work on {d.gpu_ran} here)"
        detail = (f"tfdoctor saw TensorFlow {tf.version} import with tensorflow-metal {metal.version} "
                  f"and run a matmul on {d.gpu_ran}: what the {basis} evidence below predicts did not "
                  "happen here. Move to the pair named if training misbehaves. " + detail)
    return PairVerdict(problem=PairProblem(
        title, detail, severity, basis, evidence,
        Remediation(text, tuple(install_commands(s, fix)), APPLE_PLUGIN_PAGE)))
