"""Does the installed TensorFlow go with the installed tensorflow-metal, this Python and this
macOS? pip enforces none of it: the metal wheels declare no TensorFlow dependency and no
Requires-Python, and Apple's minimum macOS is stricter than the wheel tags. Every judgement here
comes from the bundled compatibility matrix (compat_matrix.json, see tfdoctor/matrix.py), whose
facts carry their sources; the findings quote them."""

from __future__ import annotations

import re
import shlex
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from tfdoctor.checks.archnames import ARM64, normalise
from tfdoctor.checks.installation import providers

from tfdoctor.fixes import pip
from tfdoctor.matrix import GOOD_STATUSES, CompatMatrix, MetalRelease, load_matrix
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.versions import parse_version

APPLE_PLUGIN_PAGE = "https://developer.apple.com/metal/tensorflow-plugin/"
VENV_DIR = "~/venvs/tf"

LOAD_FAILURES = ("runtime.plugin-load-failed", "runtime.no-gpu", "runtime.import-failed",
                 "runtime.import-crashed", "runtime.gpu-placement")
"""Runtime codes a bad pair or a too-old macOS shows up as."""

CODES = {
    "compat.tf-metal-mismatch": CodeDoc(
        "TensorFlow and tensorflow-metal are not a known-good pair",
        Severity.ERROR,
        "tensorflow-metal links against TensorFlow's internal C++ ABI, so each release works "
        "only with the TensorFlow it was built for; its wheels declare no TensorFlow dependency, "
        "so pip installs any plugin beside any TensorFlow. tfdoctor's matrix rates the installed "
        "pair: reported to fail at load (error, with the report quoted: tensorflow-metal 1.1.0 "
        "with TensorFlow 2.18, 1.2.0 with 2.20 and 2.21), a plugin made for an older or newer "
        "TensorFlow (error), or a pair neither Apple's table nor any report covers (warning). "
        "Runtime reports win over Apple's table, which also lists 1.1.0 for 2.18.",
        "Install the pair the finding names (a plugin documented or reported to work with this "
        "TensorFlow, else the recommended TensorFlow + tensorflow-metal).",
        APPLE_PLUGIN_PAGE,
    ),
    "compat.no-wheel-for-python": CodeDoc(
        "No TensorFlow or tensorflow-metal wheel for this Python",
        Severity.ERROR,
        "Wheels exist only for some Python versions per architecture: tensorflow-metal has none "
        "for Python 3.13 or later in any release, 1.1.0 has none for 3.12 (only 1.2.0 has), "
        "Intel Macs had metal wheels only up to 1.0.0 (Python 3.11 at most); TensorFlow itself "
        "has no wheel for 3.14. pip then says 'No matching distribution found', or a plugin "
        "copied from another environment does not fit. Read from the wheel filenames in "
        "compat_matrix.json.",
        "Create an environment with the newest Python that has a working pair (the finding "
        "gives the commands), or move to a TensorFlow whose plugin has a wheel for this Python.",
    ),
    "compat.macos-too-old": CodeDoc(
        "macOS is older than TensorFlow or tensorflow-metal needs",
        Severity.ERROR,
        "Each wheel names its minimum macOS in its platform tag (macosx_12_0_arm64: 12.0), and "
        "Apple's tensorflow-metal table asks for more than the tags: 12.0+ for 0.1.2-0.4.0 and "
        "12.1+ from 0.5.0, while the wheels from 0.5.1 on are tagged 12.0, so pip installs them "
        "on 12.0 and cannot enforce 12.1. The finding says which of the two sets the floor.",
        "Update macOS, or install the older pair that supports this macOS when one exists.",
        APPLE_PLUGIN_PAGE,
    ),
    "compat.no-metal": CodeDoc(
        "tensorflow-metal is not installed: TensorFlow uses the CPU only",
        Severity.INFO,
        "TensorFlow on macOS reaches the Apple GPU only through the tensorflow-metal plugin. "
        "Without it everything runs on the CPU, which may be what you want.",
        "Install the tensorflow-metal release that goes with this TensorFlow (the finding names "
        "it), or the recommended pair when none does.",
        APPLE_PLUGIN_PAGE,
    ),
    "compat.ok": CodeDoc(
        "TensorFlow, tensorflow-metal, Python and macOS go together",
        Severity.OK,
        "The installed pair is reported to work or documented in Apple's table, wheels exist for "
        "this Python, and macOS meets both the wheel tags and Apple's minimum (or, off macOS, "
        "there is no Metal pairing to check).",
        "Nothing to do.",
    ),
}

_STATUS_WORDS = {"known-working": "known to work", "documented": "documented in Apple's table"}
_GITHUB = re.compile(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull)/(\d+)")
_MACOS_TAG = re.compile(r"macosx_(\d+)_(\d+)_")


# ---------------------------------------------------------------------------------------------
# helpers shared with the dependencies check and `tfdoctor matrix`


def short_source(source: str) -> str:
    """"https://github.com/o/r/pull/1" -> "o/r#1"; "apple_table" -> "Apple's table"."""
    if source == "apple_table":
        return "Apple's tensorflow-metal table"
    found = _GITHUB.match(source)
    return f"{found.group(1)}#{found.group(2)}" if found else source


def hardware_arch(s: Snapshot) -> str:
    """The architecture to install for: arm64 on Apple silicon even when this Python runs
    translated by Rosetta 2 (the fix is an arm64 Python), else the process's own."""
    if s.host.hw_arm64:
        return ARM64
    return normalise(s.python.process_arch if s.python else None) or "x86_64"


def macos_of(s: Snapshot) -> str | None:
    """The macOS version ("14.5"), or None when unknown or unreadable."""
    version = s.host.macos_version
    return version if version and parse_version(version) is not None else None


def installed_tensorflow(s: Snapshot) -> PackageFacts | None:
    """The one distribution that ships TensorFlow's code here; None when none or several do
    (the installation check reports those)."""
    real, _shims = providers(s)
    return real[0] if len(real) == 1 else None


def _span(pythons: tuple[str, ...] | list[str]) -> str:
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
    wanted = set()
    for text in requirements:
        try:
            wanted.add(canonicalize_name(Requirement(text).name))
        except InvalidRequirement:
            continue
    tf_wanted = wanted & set(TENSORFLOW_DISTRIBUTIONS)
    installed = {d.key: d.name for d in s.tensorflow_distributions()}
    commands = []
    if tf_wanted and set(installed) - tf_wanted:
        commands.append(pip(s, "uninstall", "-y", *sorted(installed.values())))
    commands.append(pip(s, "install", *requirements))
    return [_native(s, c) for c in commands]


def _native(s: Snapshot, command: str) -> str:
    """Run pip as arm64 when a universal2 Python is started translated: pip picks wheels for
    the architecture it runs as, and the pair is arm64-only."""
    py = s.python
    if py and py.translated and s.host.hw_arm64 and ARM64 in {normalise(a) for a in py.binary.archs}:
        return f"arch -arm64 {command}"
    return command


def move_python(s: Snapshot, m: CompatMatrix, arch: str) -> tuple[str | None, list[str], tuple[str, ...]]:
    """(newest Python with a working pair on this arch, commands to create its environment,
    its requirements)."""
    target = m.newest_python_with_working_pair(arch)
    if not target:
        return None, [], ()
    reqs = m.recommended_install(target, arch, macos_of(s)).requirements
    return target, [venv_command(target, reqs)], reqs


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


# ---------------------------------------------------------------------------------------------
# the findings


def _pairing(s: Snapshot, m: CompatMatrix, tf: PackageFacts, metal: PackageFacts,
             py: str, arch: str) -> tuple[Finding | None, str]:
    """The pair's finding when it is not good, and the OK headline when it is."""
    p = m.pairing(tf.version, metal.version, python=py, arch=arch)
    release = m.metal(metal.version)
    evidence: dict[str, Any] = {
        "tensorflow": f"{tf.name} {tf.version}", "tensorflow_metal": metal.version,
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
    pair = f"{tf.name} {tf.version} + tensorflow-metal {metal.version}"
    if p.status in GOOD_STATUSES:
        if p.status == "documented" and release is not None and release.documented_rows:
            cites = release.documented_rows[0].strip()
        return None, f"{pair}: {_STATUS_WORDS[p.status]} ({cites})"

    fix = p.fix or m.recommended_install(py, arch, macos_of(s)).requirements
    made_for = _span(list(release.tf_minors)) if release and release.tf_minors else None
    how = "" if not release or release.documented_tf_minors else ", inferred: no table row names it"
    if p.status == "known-broken":
        severity = Severity.ERROR
        title = f"{pair}: known not to load together ({cites})"
        detail = (" ".join(f"{e.summary}." for e in reports if e.outcome == "fails")
                  + " Quoted in the evidence.")
    elif p.status == "metal-predates-tf":
        severity = Severity.ERROR
        title = (f"tensorflow-metal {metal.version} predates {tf.name} {tf.version}: it was made "
                 f"for TensorFlow {made_for}{how}")
        detail = ("The plugin links against TensorFlow's internal C++ ABI; with a newer TensorFlow "
                  "it is expected to fail to load ('Symbol not found'). No table row or report "
                  "covers this pair.")
    elif p.status == "metal-postdates-tf":
        severity = Severity.ERROR
        title = (f"tensorflow-metal {metal.version} postdates {tf.name} {tf.version}: it was made "
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
    finding = Finding("compat.tf-metal-mismatch", severity, title, evidence,
                      Remediation(text, tuple(install_commands(s, fix)), APPLE_PLUGIN_PAGE),
                      detail, LOAD_FAILURES)
    return finding, ""


def _metal_wheel(s: Snapshot, m: CompatMatrix, metal: PackageFacts, py: str, arch: str) -> Finding | None:
    """The installed tensorflow-metal publishes no wheel for this Python/architecture."""
    release = m.metal(metal.version)
    if release is None or release.has(py, arch):
        return None
    wheels = release.wheels.get(arch)
    evidence = {"tensorflow_metal": metal.version, "python": py, "arch": arch,
                "installed_wheel_tags": metal.wheel_tags,
                "metal_wheels": {a: {"python": list(w.pythons), "min_macos": w.min_macos,
                                     "source": w.source} for a, w in release.wheels.items()}}
    if wheels is None:
        intel = [v for v, r in m.metal_releases.items() if "x86_64" in r.wheels]
        severity = Severity.ERROR
        title = f"tensorflow-metal {metal.version} has no {arch} wheel"
        if arch == "x86_64" and intel:
            title += f": Intel Macs had tensorflow-metal wheels only up to {intel[-1]}"
        detail = "Its plugin library is not built for this architecture, so it cannot load."
    else:
        severity = Severity.WARNING
        title = (f"tensorflow-metal {metal.version} has no wheel for Python {py} "
                 f"(only {_span(list(wheels.pythons))})")
        detail = ("pip cannot have installed it for this interpreter: it was copied or forced "
                  "from another environment, and nobody has tested it here.")
    rec = m.recommended_install(py, arch, macos_of(s))
    if rec.requirements:
        fix = Remediation(f"Install the pair that has wheels for Python {py}: {' + '.join(rec.requirements)}",
                          tuple(install_commands(s, rec.requirements)))
    else:
        target, commands, reqs = move_python(s, m, arch)
        fix = Remediation(rec.reason, tuple(commands))
    evidence["recommended"] = list(rec.requirements)
    return Finding("compat.no-wheel-for-python", severity, title, evidence, fix, detail, LOAD_FAILURES)


def _python_route(s: Snapshot, m: CompatMatrix, tf: PackageFacts | None, metal: PackageFacts | None,
                  py: str, arch: str) -> Finding | None:
    """No TensorFlow or no tensorflow-metal wheel for this Python (when none is installed), or
    no plugin for the installed TensorFlow that has a wheel for it."""
    if metal is not None:
        return _metal_wheel(s, m, metal, py, arch)
    support = m.python_support(py, arch)
    target, venv, target_reqs = move_python(s, m, arch)
    cpu = m.recommended_install(py, arch, macos_of(s)).cpu_only
    evidence: dict[str, Any] = {
        "python": py, "arch": arch, "process_arch": s.python.process_arch if s.python else None,
        "translated": s.python.translated if s.python else None,
        "tensorflow_with_wheels": list(support.tensorflow)[-5:],
        "tensorflow_metal_with_wheels": list(support.tensorflow_metal),
        "newest_python_with_working_pair": target, "its_pair": list(target_reqs),
        "source": "compat_matrix.json wheel filenames (tensorflow.*.releases.*, tensorflow_metal.*.wheels)",
    }
    move = f": create a Python {target} environment" if target and target != py else ""
    explains = LOAD_FAILURES + (("install.no-tensorflow",) if tf is None else ())
    if tf is None and not support.tensorflow:
        what = "no TensorFlow wheel" + ("" if support.tensorflow_metal else " and no tensorflow-metal wheel")
        return Finding("compat.no-wheel-for-python", Severity.ERROR,
                       f"{what} for Python {py} ({arch}){move}", evidence,
                       Remediation(f"pip cannot install TensorFlow into Python {py}{move}", tuple(venv)),
                       "", explains)
    if not support.tensorflow_metal:
        now = f"{tf.name} {tf.version} can only use the CPU" if tf else "no GPU-enabled TensorFlow can be installed"
        alt = (f" (or stay on the CPU here: {pip(s, 'install', cpu[0])})" if cpu and tf is None else "")
        commands = list(venv)
        return Finding("compat.no-wheel-for-python", Severity.ERROR,
                       f"no tensorflow-metal wheel for Python {py} ({arch}){move}", evidence,
                       Remediation(f"No tensorflow-metal release has a wheel for Python {py}, so {now}"
                                   f"{move}{alt}", tuple(commands)),
                       "", explains)
    if tf is None:
        return None
    # metal wheels exist for this Python: does one of them go with the installed TensorFlow?
    good_here, good_elsewhere = [], []
    for release in sorted(m.metal_releases.values(), key=lambda r: Version(r.version), reverse=True):
        if arch not in release.wheels:
            continue
        if m.pairing(tf.version, release.version).status not in GOOD_STATUSES:
            continue
        (good_here if release.has(py, arch) else good_elsewhere).append(release)
    rec = m.recommended_install(py, arch, macos_of(s))
    if good_here:
        best = good_here[0]
        status = m.pairing(tf.version, best.version).status
        return Finding("compat.no-metal", Severity.INFO,
                       f"tensorflow-metal is not installed: {tf.name} {tf.version} runs on the CPU only",
                       {**evidence, "matching_metal": best.version, "status": status},
                       Remediation(f"For the Apple GPU install tensorflow-metal {best.version} "
                                   f"({_STATUS_WORDS[status]} with TensorFlow {tf.version})",
                                   (pip(s, "install", f"tensorflow-metal=={best.version}"),),
                                   APPLE_PLUGIN_PAGE))
    if good_elsewhere:
        other = good_elsewhere[0]
        title = (f"no tensorflow-metal for {tf.name} {tf.version} on Python {py}: tensorflow-metal "
                 f"{other.version} (made for TensorFlow {_span(list(other.tf_minors))}) has wheels "
                 f"for Python {_span(list(other.wheels[arch].pythons))} only")
        fix_reqs = rec.requirements
        text = (f"Move to {' + '.join(fix_reqs)}, which has wheels for Python {py}" if fix_reqs
                else rec.reason)
        evidence.update({"plugin_for_this_tensorflow": other.version,
                         "its_pythons": list(other.wheels[arch].pythons),
                         "its_wheels_source": other.wheels[arch].source,
                         "recommended": list(fix_reqs)})
        return Finding("compat.no-wheel-for-python", Severity.WARNING, title, evidence,
                       Remediation(text, tuple(install_commands(s, fix_reqs)) if fix_reqs else tuple(venv)),
                       "", ("runtime.no-gpu",))
    text = (f"For the Apple GPU install {' + '.join(rec.requirements)} ({rec.status})"
            if rec.requirements else rec.reason)
    return Finding("compat.no-metal", Severity.INFO,
                   f"tensorflow-metal is not installed, and no release is known to work with "
                   f"{tf.name} {tf.version}: TensorFlow uses the CPU only",
                   {**evidence, "recommended": list(rec.requirements), "sources": list(rec.sources)},
                   Remediation(text, tuple(install_commands(s, rec.requirements)), APPLE_PLUGIN_PAGE))


def _macos(s: Snapshot, m: CompatMatrix, tf: PackageFacts | None, metal: PackageFacts | None,
           py: str, arch: str) -> Finding | None:
    """macOS older than the installed TensorFlow's or plugin's minimum: wheel tag or Apple's table."""
    macos = macos_of(s)
    if macos is None:
        return None
    floors = []  # (needs, what, source)
    if tf is not None:
        release = m.tf_release(tf.version)
        wheels = release.wheels(tf.key, arch) if release and tf.key in ("tensorflow", "tensorflow-macos") else None
        if wheels is not None:
            floors.append((wheels.min_macos, f"{tf.name} {tf.version}",
                           f"wheel tag {', '.join(wheels.platform_tags)} (compat_matrix.json: {wheels.source})"))
        else:  # a release the matrix lacks: the installed WHEEL Tag is all there is
            found = next((x for x in map(_MACOS_TAG.search, tf.wheel_tags) if x), None)
            if found:
                floors.append((f"{found.group(1)}.{found.group(2)}", f"{tf.name} {tf.version}",
                               f"installed WHEEL tag {found.group(0).rstrip('_')} (the release is not "
                               "in the matrix)"))
    metal_floors = None
    if metal is not None and (release := m.metal(metal.version)) is not None:
        metal_floors = metal_macos_floors(m, release, arch)
        if metal_floors["wheel_tag"]:
            floors.append((metal_floors["wheel_tag"], f"tensorflow-metal {metal.version}",
                           f"wheel tag (compat_matrix.json: {metal_floors['wheel_tag_source']})"))
        if metal_floors["apple_table"]:
            floors.append((metal_floors["apple_table"], f"tensorflow-metal {metal.version}",
                           f"Apple's table ({metal_floors['apple_table_how']}; "
                           f"compat_matrix.json apple_table)"))
    short = [(need, what, src) for need, what, src in floors if Version(macos) < Version(need)]
    if not short:
        return None
    need = max((f[0] for f in short), key=Version)
    parts = []
    for who in dict.fromkeys(w for _, w, _ in short):  # per package: its highest unmet floor
        n, _, src = max((f for f in short if f[1] == who), key=lambda f: Version(f[0]))
        by = "Apple's table" if src.startswith("Apple's table") else "wheel tag"
        if by == "Apple's table" and metal_floors and metal_floors["wheel_tag"] and \
                Version(macos) >= Version(metal_floors["wheel_tag"]):
            by += f"; its wheel tag allows {metal_floors['wheel_tag']}, so pip installed it anyway"
        parts.append(f"{who} needs {n} ({by})")
    title = f"macOS {macos} is too old: " + ", ".join(parts)
    evidence = {"macos": macos, "macos_reported": s.host.macos_version_reported, "arch": arch,
                "requirements": [{"needs": n, "by": w, "source": x} for n, w, x in floors],
                "too_old_for": [{"needs": n, "by": w, "source": x} for n, w, x in short]}
    rec = m.recommended_install(py, arch, macos)
    commands = []
    text = f"Update macOS to {need} or later (System Settings > General > Software Update)"
    if rec.requirements and tuple(rec.requirements) != _installed_reqs(tf, metal):
        text += f", or install {' + '.join(rec.requirements)}, which supports macOS {macos}"
        commands = install_commands(s, rec.requirements)
    elif all(w.startswith("tensorflow-metal ") for _, w, _ in short):
        text += "; meanwhile TensorFlow works on the CPU without the plugin"
        commands = [pip(s, "uninstall", "-y", "tensorflow-metal")]
    evidence["recommended_for_this_macos"] = list(rec.requirements) or rec.reason
    return Finding("compat.macos-too-old", Severity.ERROR, title, evidence,
                   Remediation(text, tuple(commands), APPLE_PLUGIN_PAGE), "", LOAD_FAILURES)


def _installed_reqs(tf: PackageFacts | None, metal: PackageFacts | None) -> tuple[str, ...]:
    return tuple(f"{p.name}=={p.version}" for p in (tf, metal) if p is not None)


def run(s: Snapshot) -> list[Finding]:
    py_facts, host = s.python, s.host
    tf = installed_tensorflow(s)
    metal = s.package("tensorflow-metal")
    if host.system != "Darwin":
        where = host.system or "this OS"
        what = f"{tf.name} {tf.version}" if tf else "TensorFlow"
        return [Finding("compat.ok", Severity.OK,
                        f"{what} on {where}: tensorflow-metal is macOS-only, so there is no Metal "
                        "pairing to check",
                        {"system": host.system, "tensorflow": tf.version if tf else None})]
    unreadable = [p for p in (tf, metal) if p is not None and parse_version(p.version or "") is None]
    if unreadable:  # a corrupt METADATA (the target check reports it): nothing to judge by
        return []
    m = load_matrix()
    py, arch = py_facts.minor, hardware_arch(s)
    findings: list[Finding] = []
    headline = ""
    real, _ = providers(s)
    if len(real) > 1 and metal is not None:
        installed = ", ".join(f"{d.name} {d.version}" for d in real)
        findings.append(Finding(
            "compat.tf-metal-mismatch", Severity.WARNING,
            f"tensorflow-metal {metal.version} cannot be paired: {len(real)} TensorFlows are "
            f"installed over each other ({installed})",
            {"tensorflow_distributions": {d.name: d.version for d in real},
             "tensorflow_metal": metal.version},
            Remediation("Leave one TensorFlow installed (see install.multiple-tensorflow); the "
                        "pair is judged then"),
            "Their files overwrite each other, so the TensorFlow the plugin meets matches neither "
            "version.", LOAD_FAILURES))
    if tf is not None and metal is not None:
        pair, headline = _pairing(s, m, tf, metal, py, arch)
        if pair:
            findings.append(pair)
    if len(real) <= 1:
        route = _python_route(s, m, tf, metal, py, arch)
        if route:
            findings.append(route)
    too_old = _macos(s, m, tf, metal, py, arch)
    if too_old:
        findings.append(too_old)
    if findings:
        return findings
    if not headline:
        if len(real) > 1:
            headline = f"{len(real)} TensorFlows are installed: the pairing is judged once one remains"
        elif tf is None and metal is not None:
            headline = f"tensorflow-metal {metal.version}: no TensorFlow installed to pair it with"
        elif tf is None:
            rec = m.recommended_install(py, arch, macos_of(s))
            headline = (f"Python {py} ({arch}) has wheels for a working pair: {' + '.join(rec.requirements)}"
                        if rec.requirements else f"Python {py} ({arch}): {rec.reason}")
        else:
            headline = f"{tf.name} {tf.version} fits Python {py} and macOS {host.macos_version}"
    return [Finding("compat.ok", Severity.OK, headline,
                    {"tensorflow": f"{tf.name} {tf.version}" if tf else None,
                     "tensorflow_metal": metal.version if metal else None,
                     "python": py, "arch": arch, "macos": host.macos_version,
                     "matrix_facts_read": m.facts_read})]


CHECK = Check(
    name="compat",
    area="TensorFlow/Metal compatibility",
    summary="TensorFlow and tensorflow-metal are a known-good pair with wheels for this Python and macOS",
    run=run,
    codes=CODES,
    needs=("python",),
    order=50,
)


# ---------------------------------------------------------------------------------------------
# data for `tfdoctor matrix` (the CLI only renders it)


def _pair_label(statuses: dict[str, str]) -> str:
    """{"2.18.0": "undocumented", "2.18.1": "known-working"} -> "known-working (2.18.1), ..."."""
    by_status: dict[str, list[str]] = {}
    for version, status in statuses.items():
        by_status.setdefault(status, []).append(version)
    if len(by_status) == 1:
        return next(iter(by_status))
    return ", ".join(f"{status} ({', '.join(versions)})" for status, versions in by_status.items())


def matrix_rows(m: CompatMatrix, arch: str = ARM64) -> list[dict[str, Any]]:
    """One row per TensorFlow minor: where its code comes from on `arch`, the Pythons, the
    tensorflow-metal releases that are documented, reported to work or reported to fail with it,
    the minimum macOS (wheel tags; the plugin's with Apple's table) and the numpy/keras pins."""
    rows = []
    shown = ("known-working", "documented", "known-broken")
    for key in sorted(m.minors, key=Version):
        minor = m.minors[key]
        code: dict[str, list[str]] = {}
        floors = []
        for r in minor.releases:
            dist = r.code.get(arch)
            w = r.wheels(dist, arch) if dist else None
            if w is not None:
                code.setdefault(dist, []).append(r.version)
                floors.append(w.min_macos)
        shims = {v: k for v, k in minor.tensorflow_macos.items() if k in ("thin", "self-shim")}
        metals = []
        metal_floor = None
        for metal in sorted(m.metal_releases.values(), key=lambda x: Version(x.version), reverse=True):
            if arch not in metal.wheels:
                continue
            statuses = {r.version: m.pairing(r.version, metal.version).status for r in minor.releases
                        if r.code.get(arch)}
            if not statuses or not set(statuses.values()) & set(shown):
                continue
            metals.append({"tensorflow_metal": metal.version, "status": _pair_label(statuses),
                           "python": list(metal.wheels[arch].pythons)})
            if set(statuses.values()) & set(GOOD_STATUSES):
                need = m.metal_min_macos(metal, arch)
                metal_floor = need if metal_floor is None or Version(need) < Version(metal_floor) else metal_floor
        pins = m.tf_pins(minor.newest_patch)
        rows.append({
            "tensorflow": key, "newest_patch": minor.newest_patch,
            "code": {dist: versions for dist, versions in code.items()},
            "tensorflow_macos_shims": shims,
            "python": list(minor.pythons(arch)),
            "tensorflow_metal": metals,
            "min_macos": min(floors, key=Version) if floors else None,
            "metal_min_macos": metal_floor,
            "numpy": pins.get("numpy"),
            "keras": pins.get("keras") or pins.get("keras-nightly"),
            "keras_major": minor.keras_major,
        })
    return rows


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
        from tfdoctor.recommend import recommended_requirements

        reqs = recommended_requirements(s)
        out.update({
            "arch": normalise(py.process_arch), "metal": False,
            "requirements": list(reqs.requirements), "status": None, "sources": [], "cpu_only": [],
            "reason": (f"There is no Metal pairing for {s.host.system or 'this OS'}: tensorflow-metal "
                       f"ships macOS wheels only. {reqs.text}"),
            "commands": [pip(s, "install", *reqs.requirements)] if reqs.requirements else [],
        })
        return out
    arch = hardware_arch(s)
    macos = macos_of(s)
    rec = m.recommended_install(py.minor, arch, macos)
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
    support = m.python_support(py.minor, arch)
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
