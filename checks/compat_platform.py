"""Do this Python, architecture and macOS have the wheels the setup needs? TensorFlow and
tensorflow-metal publish wheels for some Pythons per architecture only, the metal wheels declare no
Requires-Python, and Apple's minimum macOS is stricter than the wheel tags, so pip can install what
cannot work or refuse what would. Every judgement comes from the bundled compatibility matrix
(compat_matrix.json, see tfdoctor/knowledge/matrix.py), whose facts carry their sources; the findings quote
them. compat.ok, the all-clear of the whole pairing (checks/compat_pairing.py judges the pair
itself), is here: it runs when no rule of this module found a problem, and asks
tfdoctor.advice.pair_verdict for the pair's headline."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import GOAL_INSTALLED, NEWER_MACOS_OR_PYTHON_FIRST, NOTHING_WRONG
from tfdoctor.advice.log_evidence import gpu_wanted, matches_of
from tfdoctor.advice.installs import (APPLE_PLUGIN_PAGE, BINARIES, good_metal_releases, install_commands,
                                     listing_read, metal_macos_floors, move_python, span,
                                     tensorflow_macos_floors)
from tfdoctor.advice.pair_verdict import LOAD_FAILURES, STATUS_WORDS, for_every_arch, judge_pair, judgeable
from tfdoctor.advice.pip_refusal import fork_unbuilt_for, refused_for_macos, unbuilt_for_python
from tfdoctor.derived import Derived, pip_arch, verdict_archs
from tfdoctor.facts.archnames import X86_64
from tfdoctor.facts.snapshot import PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge import best_pair, eras, macos_floors
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import version_of
from tfdoctor.model import Finding, Remediation, Severity, rule


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
    rec = best_pair.recommended_install(m, py, arch, d.macos)
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
    support = best_pair.python_support(m, py, arch)
    target, venv, target_reqs = move_python(s, m, arch)
    cpu = best_pair.recommended_install(m, py, arch, d.macos).cpu_only
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
        now = f"{tf.label} can only use the CPU" if tf else "no GPU-enabled TensorFlow can be installed"
        alt = (f" (or stay on the CPU here: {pip(s, 'install', cpu[0])})" if cpu and tf is None else "")
        commands = list(venv)
        # on an Intel Mac the Metal GPU is an option (tensorflow-metal ended at 1.0.0 there), as
        # for compat.no-metal: an installed TensorFlow is not an error, and below macOS 12 no
        # Python would bring the plugin (every tensorflow-metal wheel asks for 12.0 or later)
        severity = None
        if tf is not None and not d.apple_silicon:
            below_12 = bool(d.macos) and version_of(d.macos) < version_of("12.0")
            severity = Severity.INFO if below_12 else Severity.WARNING
            if below_12:
                move, commands = f"; tensorflow-metal needs macOS 12, this Mac runs {d.macos}", []
        return no_wheel_for_python.finding(
            evidence, Remediation(f"No tensorflow-metal release has a wheel for Python {py}, so {now}"
                                  f"{move}{alt}", tuple(commands)),
            title=f"no tensorflow-metal wheel for Python {py} ({arch}){move}", explains=explains,
            severity=severity)
    if tf is None:
        return None
    # metal wheels exist for this Python: does one of them go with the installed TensorFlow?
    good = good_metal_releases(m, tf.version, arch)
    best = next((release for release in good if release.has(py, arch)), None)
    good_elsewhere = [release for release in good if not release.has(py, arch)]
    rec = best_pair.recommended_install(m, py, arch, d.macos)
    if best is not None:
        status = best_pair.pairing(m, tf.version, best.version).status
        floor = m.metal_min_macos(best, arch)
        if d.macos and version_of(d.macos) < version_of(floor):  # it would not load here
            return no_metal.finding(
                {**evidence, "matching_metal": best.version, "status": status, "needs_macos": floor},
                Remediation(f"tensorflow-metal {best.version} ({STATUS_WORDS[status]} with TensorFlow "
                            f"{tf.version}) needs macOS {floor}: update macOS to use the GPU",
                            (), APPLE_PLUGIN_PAGE), severity=Severity.INFO,
                title=f"tensorflow-metal is not installed, and the one for {tf.label} "
                      f"needs macOS {floor} (this Mac runs {d.macos}): TensorFlow uses the CPU")
        return no_metal.finding(
            {**evidence, "matching_metal": best.version, "status": status},
            Remediation(f"For the Apple GPU install tensorflow-metal {best.version} "
                        f"({STATUS_WORDS[status]} with TensorFlow {tf.version})",
                        tuple(install_commands(s, [f"tensorflow-metal=={best.version}"], d=d)),
                        APPLE_PLUGIN_PAGE),
            title=f"tensorflow-metal is not installed: {tf.label} runs on the CPU only")
    if good_elsewhere:
        other = good_elsewhere[0]
        title = (f"no tensorflow-metal for {tf.label} on Python {py}: tensorflow-metal "
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
              f"{tf.label}: TensorFlow uses the CPU only")


_TABLE = "Apple's table"


def _macos(s: Snapshot, d: Derived, m: CompatMatrix, tf: PackageFacts | None,
           metal: PackageFacts | None, py: str | None, arch: str) -> Finding | None:
    """macOS older than the installed TensorFlow's or plugin's minimum: wheel tag, the macOS the
    binaries were built for, or Apple's table; with `py` unknown, the floor every wheel shares."""
    macos = d.macos
    if macos is None:
        return None
    floors = tensorflow_macos_floors(m, tf, py, arch) if tf is not None else []  # (needs, what, source)
    metal_floors = None
    if metal is not None:
        metal_floors = metal_macos_floors(m, release := m.metal(metal.version), arch)
        plugin = f"tensorflow-metal {metal.version}" if release else "tensorflow-metal (every release)"
        if metal_floors["wheel_tag"]:
            floors.append((metal_floors["wheel_tag"], plugin, f"wheel tag (compat_matrix.json: {metal_floors['wheel_tag_source']})"))
        if metal_floors["apple_table"]:
            floors.append((metal_floors["apple_table"], plugin,
                           f"{_TABLE} ({metal_floors['apple_table_how']}; compat_matrix.json apple_table)"))
    short = [(need, what, src) for need, what, src in floors if Version(macos) < Version(need)]
    if not short:
        return None
    need = max((f[0] for f in short), key=Version)
    parts = []
    for who in dict.fromkeys(w for _, w, _ in short):  # per package: its highest unmet floor
        n, _, src = max((f for f in short if f[1] == who), key=lambda f: Version(f[0]))
        by = _TABLE if src.startswith(_TABLE) else "wheel tag"
        if by == _TABLE and metal_floors and metal_floors["wheel_tag"] and \
                Version(macos) >= Version(metal_floors["wheel_tag"]):
            by += f"; its wheel tag allows {metal_floors['wheel_tag']}, so pip installed it anyway"
        if src.startswith(BINARIES):
            tag = next((f[0] for f in floors if f[1] == who and not f[2].startswith(BINARIES)), None)
            by = f"{BINARIES} were built for it" + (f"; its wheel tag allows {tag}, so pip installs it" if tag else "")
        parts.append(f"{who} needs {n} ({by})")
    title = f"macOS {macos} is too old: " + ", ".join(parts)
    evidence = {"macos": macos, "macos_reported": s.host.macos_version_reported, "arch": arch,
                "requirements": [{"needs": n, "by": w, "source": x} for n, w, x in floors],
                "too_old_for": [{"needs": n, "by": w, "source": x} for n, w, x in short]}
    rec = best_pair.recommended_install(m, py, arch, macos) if py else None  # which fits: the Python's
    commands = []
    text = f"Update macOS to {need} or later (System Settings > General > Software Update)"
    if rec is not None and rec.requirements and tuple(rec.requirements) != _installed_reqs(tf, metal):
        text += f", or install {' + '.join(rec.requirements)}, which supports macOS {macos}"
        commands = install_commands(s, rec.requirements)
    elif all(w.startswith("tensorflow-metal ") for _, w, _ in short):
        text += "; meanwhile TensorFlow works on the CPU without the plugin"
        commands = [pip(s, "uninstall", "-y", "tensorflow-metal")]
    evidence["recommended_for_this_macos"] = (list(rec.requirements) or rec.reason) if rec else "Python unknown"
    severity = None
    if all(src.startswith((_TABLE, BINARIES)) for _, _, src in short):
        # pip installs these on this macOS: whether they fail here is evidence, not a tag
        built_for_only = all(src.startswith(BINARIES) for _, _, src in short)
        imported = s.runtime is not None and s.runtime.outcome == "ok"
        if d.gpu_ran or (imported and built_for_only):
            # ... and TensorFlow ran here: the plugin or TensorFlow that works is never removed
            severity = Severity.INFO
            commands = []
            title += f" (yet it ran work on {d.gpu_ran} here)" if d.gpu_ran else " (yet it imported here)"
            evidence["observed"] = (f"TensorFlow ran a matmul pinned to {d.gpu_ran} on macOS {macos}"
                                    if d.gpu_ran else f"TensorFlow imported on macOS {macos}")
        elif built_for_only:
            severity = Severity.WARNING  # a build made for a newer macOS may still load here
    return macos_too_old.finding(evidence, Remediation(text, tuple(commands), APPLE_PLUGIN_PAGE),
                                 title=title, severity=severity, basis="table")


def _installed_reqs(tf: PackageFacts | None, metal: PackageFacts | None) -> tuple[str, ...]:
    return tuple(f"{p.name}=={p.version}" for p in (tf, metal) if p is not None)


# ---------------------------------------------------------------------------------------------
# the rules


def _route(s: Snapshot, d: Derived) -> Finding | None:
    """The one finding of the Python route (no wheel, or no plugin installed), decided once."""
    return d.once("compat.python-route", lambda: _decide_route(s, d))


def _decide_route(s: Snapshot, d: Derived) -> Finding | None:
    if not judgeable(s, d) or len(d.providers) > 1:
        return None
    if d.tf_main is None and d.metal is None and not listing_read(s):  # nothing listed, nothing read
        return None
    if (d.metal is None and d.metal_plugins) or d.fork:  # a third-party plugin (compat_third_party judges
        return None  # it), or the fork's era, which had no plugin (compat_era)
    if d.tensorflow is not None and d.metal is None and not eras.plugin_era(d.tensorflow):
        return None  # a TensorFlow before 2.5 has no Metal plugin to miss: its wheels are the question
    found = [_python_route(s, d, d.matrix, d.tensorflow, d.metal, s.python.minor, a) for a in verdict_archs(s, d)]
    return for_every_arch(found, lambda f: f.code, "remediation")


@rule(codes.COMPAT_NO_WHEEL_FOR_PYTHON, "No TensorFlow or tensorflow-metal wheel for this Python",
      Severity.ERROR,
      "Wheels exist only for some Python versions per architecture: tensorflow-metal has none for Python 3.13 or later in any "
      "release, 1.1.0 has none for 3.12 (only 1.2.0 has), Intel Macs had metal wheels only up to 1.0.0 (Python 3.11 at "
      "most); TensorFlow itself has no wheel for 3.14. pip then says 'No matching distribution found', or a plugin copied "
      "from another environment does not fit (the ML Compute fork's installer took 3.8 only). Wheels for a new Python come "
      "later than a release's first ones (tensorflow-macos: cp311 from 2.12.0 only, tensorflow: cp312 from 2.16.1), so pip's "
      "'from versions: none' on such a Python means it ran before they were published. Read from the wheel filenames in "
      "compat_matrix.json (a 2.x release refused on Linux or Windows by its macOS wheels' Pythons: each 2.x release has the "
      "same on every OS). A report that lists no packages and shows no GPU wanted gets no word about a plugin it never named.",
      "Create an environment with the newest Python that has a working pair (the finding gives the commands), or "
      "move to a TensorFlow whose plugin has a wheel for this Python.",
      explains=(codes.LOG_PIP_NO_MATCHING_DISTRIBUTION, codes.LOG_MLCOMPUTE_FORK), fix_answer=NEWER_MACOS_OR_PYTHON_FIRST)
def no_wheel_for_python(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_PIP_NO_MATCHING_DISTRIBUTION, codes.LOG_MLCOMPUTE_FORK):
        if (facts := unbuilt_for_python(s, d, match)) is not None:  # refused, observed: never built for it
            title, text = facts.pop("title"), facts.pop("text")
            return no_wheel_for_python.finding({**facts, "refused": match.text}, Remediation(
                text, (pip(s, "index", "versions", facts["package"]),)), title=title)
    if (found := _route(s, d)) is not None and found.code == no_wheel_for_python.code:
        plugin_only = d.metal is None and d.tf_main is not None  # unknown to a report that lists nothing
        return found if not plugin_only or listing_read(s) or gpu_wanted(s) else None
    if d.fork and s.python and s.python.minor and s.python.minor != eras.FORK_PYTHON:
        facts = fork_unbuilt_for(s.python.minor)  # the fork with another Python: never built for it
        title, text = facts.pop("title"), facts.pop("text")
        return no_wheel_for_python.finding(facts, Remediation(text), title=title)
    return None


@rule(codes.COMPAT_NO_METAL, "tensorflow-metal is not installed: the Apple GPU is idle",
      Severity.WARNING,
      "TensorFlow on macOS reaches the Apple GPU only through a Metal plugin (Apple's "
      "tensorflow-metal). Without one TensorFlow lists no GPU and everything runs on the CPU: on "
      "Apple silicon that is the cause of runtime.no-gpu (a warning); on an Intel Mac, where "
      "tensorflow-metal ended at 1.0.0, it is information. Where the package list is only what a "
      "report mentioned, a plugin it does not name is unknown: the finding then needs the GPU "
      "seen missing (an empty GPU list, 'Num GPUs Available: 0').",
      "Install the tensorflow-metal release that goes with this TensorFlow (the finding names "
      "it), or the recommended pair when none does.",
      APPLE_PLUGIN_PAGE, explains=(codes.RUNTIME_NO_GPU, codes.PROBE_CPU_ONLY, codes.LOG_NO_GPU_LISTED),
      needs=("packages",), fix_answer=GOAL_INSTALLED)
def no_metal(s: Snapshot, d: Derived):
    found = _route(s, d)
    if found is None or found.code != no_metal.code:
        return None
    if not listing_read(s) and not matches_of(s, codes.LOG_NO_GPU_LISTED):
        return None  # a report's list of what it mentions: a plugin it does not name is unknown, not absent
    if d.apple_silicon and not d.translated:
        return found
    return replace(found, severity=Severity.INFO)  # an Intel Mac, or Rosetta (arch.rosetta's business)


@rule(codes.COMPAT_MACOS_TOO_OLD, "macOS is older than TensorFlow or tensorflow-metal needs",
      Severity.ERROR,
      "Each wheel names its minimum macOS in its platform tag (macosx_12_0_arm64: 12.0), for "
      "every TensorFlow release since 0.12 (Intel Macs included). A tag can be looser than the "
      "binaries: TensorFlow 1.15-2.4's Intel wheels are tagged 10.6-10.11 while their libraries "
      "are built for 10.14 (LC_BUILD_VERSION), and on Intel Macs such builds installed on an "
      "older macOS failed at import with a system symbol missing (a warning; information once it "
      "imported here; on Apple silicon they were seen running below it, so there only the tag counts). "
      "Apple's tensorflow-metal table asks for more than the tags: 12.0+ for 0.1.2-0.4.0 and "
      "12.1+ from 0.5.0, while the wheels from 0.5.1 on are tagged 12.0, so pip installs them "
      "on 12.0 and cannot enforce 12.1. The finding says which sets the floor; where the Python "
      "is unknown, the floor every wheel of the release shares (of a tensorflow-metal version the "
      "matrix does not know, what every release needs).",
      "Update macOS, or install the older pair that supports this macOS when one exists. An "
      "error that shows a binary missing a symbol of macOS's own libraries is log.macos-too-old: "
      "observed, it outranks what the tables say here. pip finding no TensorFlow where every "
      "release the requirement admits for this Python needs a newer macOS is this finding (the refusal's "
      "cause); so is a macOS below every release for this Python where none is installed (information otherwise).",
      APPLE_PLUGIN_PAGE, explains=LOAD_FAILURES, fix_answer=NEWER_MACOS_OR_PYTHON_FIRST)
def macos_too_old(s: Snapshot, d: Derived):
    python = s.python.minor if judgeable(s, d) else None
    if judgeable(s, d, python=False) and (found := _macos(s, d, d.matrix, d.tensorflow, d.metal, python, d.hardware_arch)):
        return found
    for match in matches_of(s, codes.LOG_PIP_NO_MATCHING_DISTRIBUTION):
        if (facts := refused_for_macos(s, d, match)) is not None:  # pip refused it: this macOS is why
            return macos_too_old.finding(
                {**facts, "macos": d.macos, "refused": match.text},
                Remediation(f"Update macOS: {facts['why']}", ("sw_vers -productVersion",), APPLE_PLUGIN_PAGE),
                title=f"macOS {d.macos} is too old for {facts['requested']}: {facts['why']}",
                explains=(codes.LOG_PIP_NO_MATCHING_DISTRIBUTION,))
    return _below_every_release(s, d)


def _below_every_release(s: Snapshot, d: Derived) -> Finding | None:
    """Every release for this Python needs a newer macOS, no installed version known (none, or a range tried)."""
    installed = d.tensorflow is not None and parse_version(d.tensorflow.version) is not None  # _macos judges it
    if installed or not d.is_mac or not d.macos or not (s.python and s.python.minor) or matches_of(s, codes.LOG_MACOS_TOO_OLD):
        return None  # a binary's own floor in the text (log.macos-too-old) is observed: it says more
    arch = pip_arch(s) or (X86_64 if version_of(d.macos) < version_of("11.0") else None)  # before 11: Intel
    if not arch or not (facts := macos_floors.below_every_release(d.macos, s.python.minor, arch)):
        return None
    text = f"Update macOS to {facts['needs']} or later"
    if (other := facts.get("runs_on_this_macos")) is not None:
        text += (f", or stay on this macOS with {other['package']} {other['version']} in a Python "
                 f"{other['python']} environment, the newest release whose wheels run on it")
    title = (f"macOS {d.macos} is too old for any TensorFlow for Python {s.python.minor} ({arch}): "
             f"the one that asks least, {facts['least_demanding']}, needs {facts['needs']} ({facts['by']})")
    absent = d.tensorflow is None and listing_read(s)  # else which TensorFlow, from where, is unknown
    return macos_too_old.finding({**facts, "macos": d.macos, "python": s.python.minor, "arch": arch}, Remediation(text),
                                 title=title, basis="table", severity=Severity.WARNING if absent else Severity.INFO)


@rule(codes.COMPAT_OK, "TensorFlow, tensorflow-metal, Python and macOS go together",
      Severity.OK,
      "The installed pair is reported to work or documented in Apple's table, wheels exist for "
      "this Python, and macOS meets both the wheel tags and Apple's minimum (or, off macOS, "
      "there is no Metal pairing to check).",
      "Nothing to do.", summary=True, fix_answer=NOTHING_WRONG)
def compat_ok(s: Snapshot, d: Derived):
    tf, metal, host = d.tensorflow, d.metal, s.host
    if not d.is_mac:
        where = host.system or "this OS"
        what = tf.label if tf else "TensorFlow"
        return compat_ok.finding(  # nothing to check: information, not a tick
            {"system": host.system, "tensorflow": tf.version if tf else None}, severity=Severity.INFO,
            title=f"{what} on {where}: tensorflow-metal is macOS-only, so there is no Metal pairing to check")
    if not judgeable(s, d) or _route(s, d) is not None:
        return None
    m, py, arch, real = d.matrix, s.python.minor, d.hardware_arch, d.providers
    if metal is not None and len(real) > 1:  # compat.tf-metal-mismatch: no pair to judge yet (a warning)
        return None
    headline = ""
    if tf is not None and metal is not None:
        verdict = judge_pair(s, d, m, tf, metal, py, arch)
        if verdict.problem is not None:  # compat.tf-metal-mismatch says it, if only as information
            return None
        headline = verdict.headline
    if not headline:
        if len(real) > 1:
            headline = f"{len(real)} TensorFlows are installed: the pairing is judged once one remains"
        elif tf is None and metal is not None:
            headline = f"tensorflow-metal {metal.version}: no TensorFlow installed to pair it with"
        elif tf is None:
            rec = best_pair.recommended_install(m, py, arch, d.macos)
            headline = (f"Python {py} ({arch}) has wheels for a working pair: {' + '.join(rec.requirements)}"
                        if rec.requirements else f"Python {py} ({arch}): {rec.reason}")
        else:
            headline = f"{tf.label} fits Python {py}" + (f" and macOS {host.macos_version}" if host.macos_version else "")
    return compat_ok.finding(
        {"tensorflow": tf.label if tf else None,
         "tensorflow_metal": metal.version if metal else None,
         "python": py, "arch": arch, "macos": host.macos_version, "matrix_facts_read": m.facts_read},
        title=headline)
