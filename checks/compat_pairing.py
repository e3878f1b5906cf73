"""Does the installed TensorFlow go with the installed tensorflow-metal, this Python and this
macOS? pip enforces none of it: the metal wheels declare no TensorFlow dependency and no
Requires-Python, and Apple's minimum macOS is stricter than the wheel tags. Every judgement here
comes from the bundled compatibility matrix (compat_matrix.json, see tfdoctor/matrix.py), whose
facts carry their sources; the findings quote them."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from packaging.version import Version

from tfdoctor import codes
from tfdoctor.binary_evidence import binary_check, load_check
from tfdoctor.derived import Derived
from tfdoctor.fixes import pip
from tfdoctor.matrix import GOOD_STATUSES, CompatMatrix
from tfdoctor.model import Finding, Remediation, Severity, rule
from tfdoctor.recommend import (APPLE_PLUGIN_PAGE, install_commands, metal_macos_floors, move_python,
                                short_source, span)
from tfdoctor.snapshot import PackageFacts, Snapshot
from tfdoctor.versions import parse_version

LOAD_FAILURES = (codes.RUNTIME_PLUGIN_LOAD_FAILED, codes.RUNTIME_NO_GPU, codes.RUNTIME_IMPORT_FAILED,
                 codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_GPU_PLACEMENT,
                 codes.LOG_SYMBOL_NOT_FOUND_PLUGIN, codes.LOG_NO_GPU_LISTED)
"""Runtime codes a bad pair or a too-old macOS shows up as."""

_STATUS_WORDS = {"known-working": "known to work", "documented": "documented in Apple's table"}
_MACOS_TAG = re.compile(r"macosx_(\d+)_(\d+)_")


def _judgeable(s: Snapshot, d: Derived) -> bool:
    """On macOS, with readable versions (a corrupt METADATA is the target rules' business) and
    a matrix to judge by."""
    if not d.is_mac or d.matrix is None or s.python is None:
        return False
    return all(parse_version(p.version or "") is not None for p in (d.tensorflow, d.metal) if p is not None)


def _pairing(s: Snapshot, d: Derived, m: CompatMatrix, tf: PackageFacts, metal: PackageFacts,
             py: str, arch: str) -> tuple[Finding | None, str]:
    """The pair's finding when it is not good, and the OK headline when it is."""
    p = m.pairing(tf.version, metal.version, python=py, arch=arch, binary=binary_check(arch))
    loaded = load_check(tf.version, metal.version, arch)
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
    if p.status == "loads-untested":  # the plugin binary resolves against this TensorFlow
        return None, f"{pair}: loads (binary load check); no report covers it, not tested at run time"

    fix = p.fix or m.recommended_install(py, arch, d.macos).requirements
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
    if d.gpu_ran:  # observed beats reported, read and inferred: this pair ran work on the GPU here
        severity = min(severity, Severity.INFO)
        evidence["observed"] = f"TensorFlow imported with this pair and a matmul pinned to {d.gpu_ran} ran there"
        title += f" (yet it ran work on {d.gpu_ran} here)"
        detail = (f"tfdoctor saw TensorFlow {tf.version} import with tensorflow-metal {metal.version} "
                  f"and run a matmul on {d.gpu_ran}: what the {basis} evidence below predicts did not "
                  "happen here. Move to the pair named if training misbehaves. " + detail)
    finding = tf_metal_mismatch.finding(
        evidence, Remediation(text, tuple(install_commands(s, fix)), APPLE_PLUGIN_PAGE),
        title=title, detail=detail, severity=severity, basis=basis)
    return finding, ""


def _metal_wheel(s: Snapshot, d: Derived, m: CompatMatrix, metal: PackageFacts, py: str,
                 arch: str) -> Finding | None:
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
                 f"(only {span(list(wheels.pythons))})")
        detail = ("pip cannot have installed it for this interpreter: it was copied or forced "
                  "from another environment, and nobody has tested it here.")
    rec = m.recommended_install(py, arch, d.macos)
    if rec.requirements:
        fix = Remediation(f"Install the pair that has wheels for Python {py}: {' + '.join(rec.requirements)}",
                          tuple(install_commands(s, rec.requirements)))
    else:
        target, commands, reqs = move_python(s, m, arch)
        fix = Remediation(rec.reason, tuple(commands))
    evidence["recommended"] = list(rec.requirements)
    return no_wheel_for_python.finding(evidence, fix, title=title, detail=detail, severity=severity,
                                       explains=LOAD_FAILURES)


def _python_route(s: Snapshot, d: Derived, m: CompatMatrix, tf: PackageFacts | None,
                  metal: PackageFacts | None, py: str, arch: str) -> Finding | None:
    """No TensorFlow or no tensorflow-metal wheel for this Python (when none is installed), or
    no plugin for the installed TensorFlow that has a wheel for it."""
    if metal is not None:
        return _metal_wheel(s, d, m, metal, py, arch)
    support = m.python_support(py, arch)
    target, venv, target_reqs = move_python(s, m, arch)
    cpu = m.recommended_install(py, arch, d.macos).cpu_only
    evidence: dict[str, Any] = {
        "python": py, "arch": arch, "process_arch": s.python.process_arch if s.python else None,
        "translated": s.python.translated if s.python else None,
        "tensorflow_with_wheels": list(support.tensorflow)[-5:],
        "tensorflow_metal_with_wheels": list(support.tensorflow_metal),
        "newest_python_with_working_pair": target, "its_pair": list(target_reqs),
        "source": "compat_matrix.json wheel filenames (tensorflow.*.releases.*, tensorflow_metal.*.wheels)",
    }
    move = f": create a Python {target} environment" if target and target != py else ""
    explains = LOAD_FAILURES + ((codes.INSTALL_NO_TENSORFLOW,) if tf is None else ())
    if tf is None and not support.tensorflow:
        what = "no TensorFlow wheel" + ("" if support.tensorflow_metal else " and no tensorflow-metal wheel")
        return no_wheel_for_python.finding(
            evidence, Remediation(f"pip cannot install TensorFlow into Python {py}{move}", tuple(venv)),
            title=f"{what} for Python {py} ({arch}){move}", explains=explains)
    if not support.tensorflow_metal:
        now = f"{tf.name} {tf.version} can only use the CPU" if tf else "no GPU-enabled TensorFlow can be installed"
        alt = (f" (or stay on the CPU here: {pip(s, 'install', cpu[0])})" if cpu and tf is None else "")
        commands = list(venv)
        return no_wheel_for_python.finding(
            evidence, Remediation(f"No tensorflow-metal release has a wheel for Python {py}, so {now}"
                                  f"{move}{alt}", tuple(commands)),
            title=f"no tensorflow-metal wheel for Python {py} ({arch}){move}", explains=explains)
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
    rec = m.recommended_install(py, arch, d.macos)
    if good_here:
        best = good_here[0]
        status = m.pairing(tf.version, best.version).status
        return no_metal.finding(
            {**evidence, "matching_metal": best.version, "status": status},
            Remediation(f"For the Apple GPU install tensorflow-metal {best.version} "
                        f"({_STATUS_WORDS[status]} with TensorFlow {tf.version})",
                        (pip(s, "install", f"tensorflow-metal=={best.version}"),), APPLE_PLUGIN_PAGE),
            title=f"tensorflow-metal is not installed: {tf.name} {tf.version} runs on the CPU only")
    if good_elsewhere:
        other = good_elsewhere[0]
        title = (f"no tensorflow-metal for {tf.name} {tf.version} on Python {py}: tensorflow-metal "
                 f"{other.version} (made for TensorFlow {span(list(other.tf_minors))}) has wheels "
                 f"for Python {span(list(other.wheels[arch].pythons))} only")
        fix_reqs = rec.requirements
        text = (f"Move to {' + '.join(fix_reqs)}, which has wheels for Python {py}" if fix_reqs
                else rec.reason)
        evidence.update({"plugin_for_this_tensorflow": other.version,
                         "its_pythons": list(other.wheels[arch].pythons),
                         "its_wheels_source": other.wheels[arch].source,
                         "recommended": list(fix_reqs)})
        return no_wheel_for_python.finding(
            evidence, Remediation(text, tuple(install_commands(s, fix_reqs)) if fix_reqs else tuple(venv)),
            title=title, severity=Severity.WARNING, explains=(codes.RUNTIME_NO_GPU,))
    text = (f"For the Apple GPU install {' + '.join(rec.requirements)} ({rec.status})"
            if rec.requirements else rec.reason)
    return no_metal.finding(
        {**evidence, "recommended": list(rec.requirements), "sources": list(rec.sources)},
        Remediation(text, tuple(install_commands(s, rec.requirements)), APPLE_PLUGIN_PAGE),
        title=f"tensorflow-metal is not installed, and no release is known to work with "
              f"{tf.name} {tf.version}: TensorFlow uses the CPU only")


def _macos(s: Snapshot, d: Derived, m: CompatMatrix, tf: PackageFacts | None,
           metal: PackageFacts | None, py: str, arch: str) -> Finding | None:
    """macOS older than the installed TensorFlow's or plugin's minimum: wheel tag or Apple's table."""
    macos = d.macos
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
    severity = None
    if d.gpu_ran and all(src.startswith("Apple's table") for _, _, src in short):
        # The wheel tags allow this macOS and the GPU ran work here: Apple's table is advice.
        severity = Severity.INFO
        title += f" (yet it ran work on {d.gpu_ran} here)"
        evidence["observed"] = f"TensorFlow ran a matmul pinned to {d.gpu_ran} on macOS {macos}"
    return macos_too_old.finding(evidence, Remediation(text, tuple(commands), APPLE_PLUGIN_PAGE),
                                 title=title, severity=severity, basis="table")


def _installed_reqs(tf: PackageFacts | None, metal: PackageFacts | None) -> tuple[str, ...]:
    return tuple(f"{p.name}=={p.version}" for p in (tf, metal) if p is not None)


# ---------------------------------------------------------------------------------------------
# the rules


@rule(codes.COMPAT_TF_METAL_MISMATCH, "TensorFlow and tensorflow-metal are not a known-good pair",
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
      APPLE_PLUGIN_PAGE, explains=LOAD_FAILURES, needs=("python",))
def tf_metal_mismatch(s: Snapshot, d: Derived):
    if not _judgeable(s, d) or d.metal is None:
        return None
    metal, real = d.metal, d.providers
    if len(real) > 1:
        installed = ", ".join(f"{p.name} {p.version}" for p in real)
        return tf_metal_mismatch.finding(
            {"tensorflow_distributions": {p.name: p.version for p in real}, "tensorflow_metal": metal.version},
            Remediation("Leave one TensorFlow installed (see install.multiple-tensorflow); the "
                        "pair is judged then"),
            title=f"tensorflow-metal {metal.version} cannot be paired: {len(real)} TensorFlows are "
                  f"installed over each other ({installed})",
            detail="Their files overwrite each other, so the TensorFlow the plugin meets matches "
                   "neither version.", severity=Severity.WARNING)
    if d.tensorflow is None:
        return None
    finding, _headline = _pairing(s, d, d.matrix, d.tensorflow, metal, s.python.minor, d.hardware_arch)
    return finding


def _route(s: Snapshot, d: Derived) -> Finding | None:
    return d.once("compat.python-route", lambda: _decide_route(s, d))


def _decide_route(s: Snapshot, d: Derived) -> Finding | None:
    if not _judgeable(s, d) or len(d.providers) > 1:
        return None
    if d.metal is None and d.metal_plugins:  # a third-party Metal plugin: compat_third_party judges it
        return None
    return _python_route(s, d, d.matrix, d.tensorflow, d.metal, s.python.minor, d.hardware_arch)


@rule(codes.COMPAT_NO_WHEEL_FOR_PYTHON, "No TensorFlow or tensorflow-metal wheel for this Python",
      Severity.ERROR,
      "Wheels exist only for some Python versions per architecture: tensorflow-metal has none "
      "for Python 3.13 or later in any release, 1.1.0 has none for 3.12 (only 1.2.0 has), "
      "Intel Macs had metal wheels only up to 1.0.0 (Python 3.11 at most); TensorFlow itself "
      "has no wheel for 3.14. pip then says 'No matching distribution found', or a plugin "
      "copied from another environment does not fit. Read from the wheel filenames in "
      "compat_matrix.json.",
      "Create an environment with the newest Python that has a working pair (the finding "
      "gives the commands), or move to a TensorFlow whose plugin has a wheel for this Python.",
      explains=(codes.LOG_PIP_NO_MATCHING_DISTRIBUTION,), needs=("python",))
def no_wheel_for_python(s: Snapshot, d: Derived):
    found = _route(s, d)
    return found if found is not None and found.code == no_wheel_for_python.code else None


@rule(codes.COMPAT_NO_METAL, "tensorflow-metal is not installed: the Apple GPU is idle",
      Severity.WARNING,
      "TensorFlow on macOS reaches the Apple GPU only through a Metal plugin (Apple's "
      "tensorflow-metal). Without one TensorFlow lists no GPU and everything runs on the CPU: on "
      "Apple silicon that is the cause of runtime.no-gpu (a warning); on an Intel Mac, where "
      "tensorflow-metal ended at 1.0.0, it is information.",
      "Install the tensorflow-metal release that goes with this TensorFlow (the finding names "
      "it), or the recommended pair when none does.",
      APPLE_PLUGIN_PAGE, explains=(codes.RUNTIME_NO_GPU, codes.PROBE_CPU_ONLY), needs=("python",))
def no_metal(s: Snapshot, d: Derived):
    found = _route(s, d)
    if found is None or found.code != no_metal.code:
        return None
    if d.apple_silicon and not d.translated:
        return found
    return replace(found, severity=Severity.INFO)  # an Intel Mac, or Rosetta (arch.rosetta's business)


@rule(codes.COMPAT_MACOS_TOO_OLD, "macOS is older than TensorFlow or tensorflow-metal needs",
      Severity.ERROR,
      "Each wheel names its minimum macOS in its platform tag (macosx_12_0_arm64: 12.0), and "
      "Apple's tensorflow-metal table asks for more than the tags: 12.0+ for 0.1.2-0.4.0 and "
      "12.1+ from 0.5.0, while the wheels from 0.5.1 on are tagged 12.0, so pip installs them "
      "on 12.0 and cannot enforce 12.1. The finding says which of the two sets the floor.",
      "Update macOS, or install the older pair that supports this macOS when one exists.",
      APPLE_PLUGIN_PAGE, explains=LOAD_FAILURES, needs=("python",))
def macos_too_old(s: Snapshot, d: Derived):
    if not _judgeable(s, d):
        return None
    return _macos(s, d, d.matrix, d.tensorflow, d.metal, s.python.minor, d.hardware_arch)


@rule(codes.COMPAT_OK, "TensorFlow, tensorflow-metal, Python and macOS go together",
      Severity.OK,
      "The installed pair is reported to work or documented in Apple's table, wheels exist for "
      "this Python, and macOS meets both the wheel tags and Apple's minimum (or, off macOS, "
      "there is no Metal pairing to check).",
      "Nothing to do.", needs=("python",), summary=True)
def compat_ok(s: Snapshot, d: Derived):
    tf, metal, host = d.tensorflow, d.metal, s.host
    if not d.is_mac:
        where = host.system or "this OS"
        what = f"{tf.name} {tf.version}" if tf else "TensorFlow"
        return compat_ok.finding(  # nothing to check: information, not a tick
            {"system": host.system, "tensorflow": tf.version if tf else None}, severity=Severity.INFO,
            title=f"{what} on {where}: tensorflow-metal is macOS-only, so there is no Metal pairing to check")
    if not _judgeable(s, d) or _route(s, d) is not None:
        return None
    m, py, arch, real = d.matrix, s.python.minor, d.hardware_arch, d.providers
    headline = ""
    if tf is not None and metal is not None:
        finding, headline = _pairing(s, d, m, tf, metal, py, arch)
        if finding is not None:  # an information-only mismatch says it itself
            return None
    if not headline:
        if len(real) > 1:
            headline = f"{len(real)} TensorFlows are installed: the pairing is judged once one remains"
        elif tf is None and metal is not None:
            headline = f"tensorflow-metal {metal.version}: no TensorFlow installed to pair it with"
        elif tf is None:
            rec = m.recommended_install(py, arch, d.macos)
            headline = (f"Python {py} ({arch}) has wheels for a working pair: {' + '.join(rec.requirements)}"
                        if rec.requirements else f"Python {py} ({arch}): {rec.reason}")
        else:
            headline = f"{tf.name} {tf.version} fits Python {py} and macOS {host.macos_version}"
    return compat_ok.finding(
        {"tensorflow": f"{tf.name} {tf.version}" if tf else None,
         "tensorflow_metal": metal.version if metal else None,
         "python": py, "arch": arch, "macos": host.macos_version, "matrix_facts_read": m.facts_read},
        title=headline)
