"""Install errors in a pasted log (pip, conda, h5py builds), diagnosed with this machine's facts.

pip's "No matching distribution found for tensorflow-macos==2.12.0" means different things on
different machines: the version may not exist at all, exist only for other Pythons or the other
architecture, be a pre-release, or need a newer macOS. The matrix (compat_matrix.json, read from
the registry's wheels) answers which, for this Python, the architecture pip runs as and this
macOS, and every fix names a version that exists here.
"""

from __future__ import annotations

from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from tfdoctor import codes
from tfdoctor.advice.commands import machine_check, pip, python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import (APPLE_PLUGIN_PAGE, WINDOWS_LAST_GPU_BUILD, install_commands, move_python,
                                     recommended_requirements, tf_requirement)
from tfdoctor.derived import Derived, pip_arch, verdict_archs
from tfdoctor.advice.log_evidence import evidence, matches_of, said
from tfdoctor.advice.pip_refusal import (PIP_WITH_MACOS_11_TAGS, TF_DISTS, found_none_of, macos_11_tag, pip_verdict,
                                         prerelease, python_came_later, refusal, then_versus_now, version_key)
from tfdoctor.advice.tensorflow_name import refusal_evidence, refusal_story, refused_for_tensorflow_name
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import best_pair
from tfdoctor.knowledge.records import python_minor
from tfdoctor.logtext import install, network
from tfdoctor.model import Command, Remediation, Severity, rule

MINIFORGE = "https://github.com/conda-forge/miniforge"
POETRY = "poetry-no-candidates"
"""poetry's form of the refusal (tfdoctor.logtext.install): its installer, not pip, found none."""
TENSORFLOW_DEPS = {"channel": "apple", "platform": "osx-arm64 only",
                   "versions": "2.5.0-2.10.0", "last_upload": "2022-09-15",
                   "source": "../shared/reference/tf_wheels_2026-11.json tensorflow_deps (the apple "
                             "conda channel's file listing; not on PyPI: /simple/tensorflow-deps/ is 404)"}
H5PY_FIRST_ARM64_WHEEL = {"3.8": "3.7.0", "3.9": "3.7.0", "3.10": "3.7.0", "3.11": "3.8.0",
                          "3.12": "3.10.0", "3.13": "3.12.0", "3.14": "3.15.0"}
"""Python -> the first h5py with a macOS arm64 wheel for it (file names in
https://pypi.org/pypi/h5py/json, e.g. h5py-3.7.0-cp39-cp39-macosx_11_0_arm64.whl; read 2026-11-23).
Older h5py (tensorflow-macos 2.5/2.6 pin h5py~=3.1.0) is built from source and needs HDF5."""


def _where(s: Snapshot, d: Derived) -> dict[str, Any]:
    """The facts pip's choice depends on: Python, the architecture pip runs as, macOS."""
    return {"python": s.python.minor if s.python else None,
            "pip_arch": pip_arch(s), "macos": d.macos,
            "translated": d.translated or None}


def _spec(text: str) -> SpecifierSet | None:
    try:
        return SpecifierSet(text or "")
    except InvalidSpecifier:
        return None


def _fix_for_machine(s: Snapshot, d: Derived, m: Any, what: str) -> Remediation:
    """Install the recommended pair for this Python, else a new environment with a Python that
    has one."""
    py = s.python.minor if s.python else None
    if len(verdict_archs(s, d)) > 1:  # an unstated chip: which pair fits depends on it
        return Remediation(f"{what}. Which applies depends on what this Python runs as",
                           (machine_check(python_cmd(s)),), APPLE_PLUGIN_PAGE)
    rec = best_pair.recommended_install(m, py, d.hardware_arch, d.macos) if py else None
    if rec is not None and rec.requirements:
        text = f"{what}. Install a pair that exists for Python {py} on {d.hardware_arch}: {rec.reason}"
        if d.translated:
            text += " (from an arm64 Python: this one runs under Rosetta 2, see arch.rosetta)"
        return Remediation(text, tuple(install_commands(s, rec.requirements)), APPLE_PLUGIN_PAGE)
    target, commands, reqs = move_python(s, m, d.hardware_arch)
    if target:
        return Remediation(f"{what}. Nothing fits Python {py}: create a Python {target} environment "
                           f"with {' + '.join(reqs)}", tuple(commands), APPLE_PLUGIN_PAGE)
    return Remediation(what, (), APPLE_PLUGIN_PAGE)


def _listed(match: Any) -> list[str]:
    """The versions pip's refusal lists ("from versions: none" and "from versions: " list none)."""
    return [v.strip() for v in match.fields.get("available", "").split(",") if v.strip() and v.strip() != "none"]


@rule(codes.LOG_PIP_NO_MATCHING_DISTRIBUTION, "pip found no distribution of what was asked for",
      Severity.ERROR,
      "pip lists only the wheels whose tags fit the Python it runs with, the architecture it runs "
      "as and the macOS version (plus sdists). 'from versions: none' means nothing fits: no wheel "
      "for this Python (tensorflow-metal has none for 3.13), an x86_64 pip under Rosetta 2 looking "
      "for arm64-only packages, a version that exists only as a pre-release, or a macOS below the "
      "wheel's tag. The same message on another machine can have another cause, so the version "
      "asked for is looked up in the matrix for this Python, architecture and macOS. poetry's "
      "'Unable to find installation candidates for tensorflow (2.12.0)' is the same refusal of "
      "the release it locked. Where the report does not say the architecture, an unstated chip is "
      "not taken for Intel: what each architecture's wheels say is given, with the command that tells which. "
      "An empty list after an index page pip could not read ('Could not fetch URL ... - skipping', "
      "urllib3's 'Retrying ... after connection broken by') is the network's, not the package's: "
      "information beside log.network-error.",
      "Install a version that exists here (the finding names it), or move to a Python that has one.",
      "https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/",
      fix_answer=ABOUT_THE_LOG)
def pip_no_matching(s: Snapshot, d: Derived):
    out = []
    name_refusals = {id(r.match): r for r in refused_for_tensorflow_name(s, d)}
    unread = [m for m in matches_of(s, codes.LOG_NETWORK_ERROR) if m.variant in network.INDEX_UNREAD]
    for match in matches_of(s, codes.LOG_PIP_NO_MATCHING_DISTRIBUTION):
        if unread and not _listed(match):  # pip never read the index: its empty list is the network's
            out.append(pip_no_matching.finding(
                evidence(s, match, verdict="index-not-read", network=unread[0].text), Remediation(
                    "pip could not read the package index, so it listed no versions: fix the network "
                    "error shown before it (log.network-error), then install again"),
                title=f"pip listed no versions of {match.fields.get('package') or 'the package'} because it "
                      "could not read the package index (the network, not the package or this machine)",
                severity=Severity.INFO))
            continue
        if match.variant == install.TENSORFLOW_GPU_REMOVED:
            text, fix = _tensorflow_gpu_removed(s, d)
            out.append(pip_no_matching.finding(evidence(s, match, verdict="name-removed", **_where(s, d)), fix,
                                               title=text))
            continue
        if (refused := name_refusals.get(id(match))) is not None:  # `tensorflow` (from X): the name
            text, fix = refusal_story(s, d, refused)
            out.append(pip_no_matching.finding(refusal_evidence(s, d, refused), fix, title=text))
            continue
        package = match.fields.get("package", "")
        installer = "poetry" if match.variant == POETRY else "uv" if match.variant.startswith("uv-") else "pip"
        spec = _spec(match.fields.get("specifier", ""))
        where = _where(s, d)
        available = _listed(match)
        facts: dict[str, Any] = dict(where)
        m = d.matrix
        if (judged := pip_verdict(s, d, match)) is not None:
            verdict, why, here = judged
            if verdict != "installable-here" and d.translated and d.hardware_arch != where["pip_arch"]:
                native, _why, native_here = refusal(m, package, spec, where["python"], d.hardware_arch, d.macos)
                if native == "installable-here":
                    verdict, here = "rosetta", native_here
                    why = (f"pip runs as {where['pip_arch']} under Rosetta 2 and {package}{spec} has no "
                           f"{where['pip_arch']} wheel for Python {where['python']}; its "
                           f"{d.hardware_arch} wheels fit this Mac")
            if verdict == "installable-here":
                then = then_versus_now(s, f"{match.text}\n{s.log.excerpt}")
                if then:
                    verdict = "refused-then"
                    why = f"{package}{spec} has wheels that fit this machine now; {then}"
                elif (later := python_came_later(s, d, match)) and later["since"]:
                    verdict = "before-python-wheels"
                    why = (f"{package}{spec} has wheels that fit this machine now, for Python "
                           f"{later['python']} only from {later['since']} on: pip ran before those")
            if available:
                why += f"; pip offered {available[0]} to {available[-1]}"
            facts.update(verdict=verdict, installable_here=here[-3:] or None)
            fix = _fix_for_machine(s, d, m, why)
            if verdict == "refused-then" and why.split("; ", 1)[-1].startswith("pip "):
                fix = Remediation(fix.text, (pip(s, "install", "--upgrade", "pip"), *fix.commands), fix.link)
            title = f"{installer} found no {package}{spec}: {why}"
        elif available:
            finals = [v for v in available if not prerelease(v)]
            wanted = [v for v in available if spec is not None and spec.contains(v, prereleases=True)]
            verdict = "prerelease-only" if wanted and not any(not prerelease(v) for v in wanted) \
                else "not-for-this-python"
            newest = max(finals, key=version_key) if finals else None
            facts.update(verdict=verdict, newest_offered=newest)
            why = (f"pip offered {package} {available[0]} to {available[-1]} for Python "
                   f"{where['python'] or '(version not stated)'}, none matching {match.fields.get('specifier', '')}")
            title = f"{installer} found no {package}{match.fields.get('specifier', '')}: {why}"
            fix = Remediation(f"{why}. Ask for a version this Python has",
                              (pip(s, "install", f"{package}=={newest}"),) if newest else ())
        elif not package:  # the paste ends after the message's head, or the report says it in words
            facts["verdict"] = "not-stated"
            title = ("the report says pip finds no wheel of the package for this platform" if said(match)
                     else "pip found no distribution of what was asked for (the paste ends before the requirement)")
            fix = Remediation("Run the install again and paste pip's whole message: it names the requirement "
                              "and the versions pip found for this Python")
        else:
            facts["verdict"] = "unknown-package"
            by = match.fields.get("required_by")
            python = f"Python {where['python']}" if where["python"] else "this Python (version not stated)"
            why = (f"no {package} wheel or sdist fits {python}" + (f" on {where['pip_arch']}" if where["pip_arch"] else "")
                   + (f" (required by {by})" if by else ""))
            title = f"{installer} found no {package}{match.fields.get('specifier', '')}: {why}"
            fix = Remediation(f"{why}. See which versions exist for this interpreter, then pin one "
                              "(or drop the package: tensorflow-addons, for one, ended in 2024 and "
                              "has no wheels for new Pythons)",
                              (pip(s, "index", "versions", package),))
        out.append(pip_no_matching.finding(evidence(s, match, **facts), fix, title=title))
    return out


def _tensorflow_gpu_removed(s: Snapshot, d: Derived) -> tuple[str, Remediation]:
    """tensorflow-gpu 2.12+ is an empty package that refuses to build: the GPU build has been
    `tensorflow` itself since 2.1, with the GPU each platform has."""
    text = ("pip was asked for tensorflow-gpu, an empty package from 2.12 on that refuses to install: "
            "TensorFlow's GPU build has been `tensorflow` itself since 2.1; ask for tensorflow instead")
    if d.is_mac:
        reqs = recommended_requirements(s).requirements
        return (f"{text} (on a Mac the GPU is Metal: {' + '.join(reqs)})",
                Remediation(text, tuple(install_commands(s, reqs)), APPLE_PLUGIN_PAGE))
    if s.host.system == "Windows":
        return (f"{text}; on native Windows {WINDOWS_LAST_GPU_BUILD} was the last with a GPU build (later: WSL2)",
                Remediation(text, (pip(s, "install", f"tensorflow=={WINDOWS_LAST_GPU_BUILD}.*"),)))
    return (f"{text} (on Linux with its and-cuda extra, which brings CUDA and cuDNN, from 2.14)",
            Remediation(text, (pip(s, "install", "tensorflow[and-cuda]"),)))


@rule(codes.LOG_PIP_UNSUPPORTED_WHEEL, "pip refused a wheel built for another Python or platform",
      Severity.ERROR,
      "A wheel file's name says which Python (cp38), ABI and platform (macosx_11_0_x86_64) it is "
      "for; pip refuses one whose tags this interpreter does not support: another Python minor, "
      "the other architecture, a newer macOS. A wheel tagged macOS 11 or later that fits this Mac "
      "was refused by a pip before 20.3, which does not know those tags (its own 'You are using "
      "pip version 20.2.4' line says which), or by a Python built with an older SDK, which reports "
      "macOS 10.16. pip's 'No matching distribution' for the same package is this refusal seen from "
      "pip: the wheel's tags say why, so this finding explains it.",
      "Install by name and let pip choose the wheel, or download the one for this Python, "
      "architecture and macOS (the finding says which tag does not fit).", fix_answer=ABOUT_THE_LOG)
def pip_unsupported_wheel(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_PIP_UNSUPPORTED_WHEEL):
        f = match.fields
        where = _where(s, d)
        wrong = []
        py = where["python"]
        tag = f.get("python_tag", "")
        if py and tag.startswith("cp") and tag != "cp" + py.replace(".", ""):
            wrong.append(f"it is for Python {python_minor(tag)}, this is Python {py}")
        platform = f.get("platform_tag", "")
        arch = where["pip_arch"] or ""
        wheel_arch = "x86_64" if platform.endswith("x86_64") else platform.rsplit("_", 1)[-1]
        if arch and platform and "universal2" not in platform and wheel_arch != arch:
            wrong.append(f"it is for {wheel_arch}, this Python runs as {arch}")
        if platform.startswith("macosx_") and d.macos:
            need = ".".join(platform.split("_")[1:3])
            try:
                if Version(d.macos) < Version(need):
                    wrong.append(f"it needs macOS {need}, this Mac runs {d.macos}")
            except InvalidVersion:
                pass
        if platform and not platform.startswith("macosx") and d.is_mac:
            wrong.append(f"it is for {platform}, not macOS")
        name, version = f.get("package", ""), f.get("version", "")
        # a name the paste broke ("tensorflow-2.5.0-cp 37-none-...whl" reads as the wheel "37-none-...")
        # gives no install line
        install = (pip(s, "install", f"{name}=={version}" if version else name),) if name else ()
        macos_11 = macos_11_tag(platform)
        if not wrong and macos_11:  # the tag fits this Mac: the pip, or the platform it was told, refused it
            why = then_versus_now(s, f"{match.text}\n{s.log.excerpt}") or (
                f"it is tagged for macOS {macos_11}, which pip before {PIP_WITH_MACOS_11_TAGS} does not know, "
                "and a Python built with an older SDK reports macOS 10.16 to pip: upgrade pip, and "
                "if it still refuses, run it with SYSTEM_VERSION_COMPAT=0")
            fix = Remediation(f"{f.get('wheel')}: {why}", (pip(s, "install", "--upgrade", "pip"), *install))
        else:
            why = "; ".join(wrong) or ("its tags fit this interpreter: pip ran in another environment"
                                       if tag and platform and py and arch else
                                       "the Python that ran pip is not known here, so which of its tags does not fit is not "
                                       "known either" if tag and platform else "its file name's tags are not this interpreter's")
            unknown = () if py and arch else (  # the tags to compare the wheel's with
                f"{python_cmd(s)} -c \"import platform, sys; print(sys.version_info[:2], platform.machine())\"",)
            fix = Remediation(f"{f.get('wheel')}: {why}. Install by name, so pip picks the wheel for this "
                              "interpreter", unknown + install)
        m = d.matrix
        if m is not None and d.is_mac and py and name in TF_DISTS + ("tensorflow-metal",) and version:
            verdict, text, _here = refusal(m, name, SpecifierSet(f"=={version}"), py, arch, d.macos)
            if verdict != "installable-here":
                fix = _fix_for_machine(s, d, m, f"{why}; {text}")
        out.append(pip_unsupported_wheel.finding(evidence(s, match, mismatches=wrong, **where), fix,
                                                  title=f"pip refused {f.get('wheel')}: {why}",
                                                  explains=found_none_of(s, name)))  # this wheel's tags, seen from pip
    return out


@rule(codes.LOG_H5PY_BUILD, "pip built h5py from source and it failed (no HDF5)",
      Severity.ERROR,
      "pip builds h5py from its sdist when no wheel fits: h5py published macOS arm64 wheels only "
      "from 3.7.0 (Python 3.8-3.10; 3.11 from 3.8.0, 3.12 from 3.10.0, 3.13 from 3.12.0), and "
      "tensorflow-macos 2.5/2.6 pin h5py~=3.1.0, so pip compiles it and needs the HDF5 C library, "
      "which a Mac does not have (mrdbourke/m1-machine-learning-test#5).",
      "Install a TensorFlow whose h5py pin has an arm64 wheel (the recommended pair), or install "
      "h5py from conda-forge / HDF5 with Homebrew before pip.",
      "https://docs.h5py.org/en/stable/build.html", fix_answer=ABOUT_THE_LOG)
def h5py_build(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_H5PY_BUILD)
    if not matches:
        return None
    match = max(matches, key=lambda x: x.fields.get("reason") == "hdf5-missing")
    where = _where(s, d)
    py = where["python"]
    first = H5PY_FIRST_ARM64_WHEEL.get(py or "")
    pin = tf_requirement(s, d, "h5py") if (d.providers or d.shims) else None
    spec = _spec(pin or "")
    pinned_out = bool(first and spec is not None and str(spec) and
                      not any(spec.contains(v) for v in _versions_from(first)))
    facts = dict(where, h5py_pin=pin, first_arm64_h5py_wheel=first,
                 h5py_source="https://pypi.org/pypi/h5py/json (wheel file names)")
    if d.hardware_arch == "arm64" and not d.translated and pinned_out:
        why = (f"TensorFlow {d.tf_version} pins h5py{pin}, older than h5py {first}, the first with a "
               f"macOS arm64 wheel for Python {py}: pip has to compile it")
        m = d.matrix
        fix = _fix_for_machine(s, d, m, why) if m is not None else Remediation(why)
    elif d.translated:
        why = "this Python runs as x86_64 under Rosetta 2, so pip builds for x86_64 (see arch.rosetta)"
        fix = Remediation(why + ": move to an arm64 Python, where h5py has wheels")
    else:
        facts_known = ", ".join(x for x in (f"Python {py}" if py else "", where["pip_arch"] or "") if x)
        why = (f"no h5py wheel fit this interpreter{f' ({facts_known})' if facts_known else ''}, so pip built "
               "it from source and found no HDF5 library")
        commands = [pip(s, "install", "--only-binary=h5py", f"h5py>={first}" if first else "h5py")]
        if d.is_mac:
            build = pip(s, "install", "--no-binary=h5py", "h5py")
            commands = ["brew install hdf5", Command('HDF5_DIR="$(brew --prefix hdf5)" ' + build, build.changes)]\
                if not first else commands
        fix = Remediation(why + ": install an h5py that has a wheel here", tuple(commands),
                          "https://docs.h5py.org/en/stable/build.html")
    return h5py_build.finding(evidence(s, match, **facts), fix, title=f"h5py failed to build: {why}")


def _versions_from(first: str) -> list[str]:
    """h5py releases with arm64 wheels, from the first on (enough to test a specifier)."""
    known = ["3.7.0", "3.8.0", "3.9.0", "3.10.0", "3.11.0", "3.12.1", "3.13.0", "3.14.0", "3.15.1", "3.16.0"]
    return [v for v in known if Version(v) >= Version(first)]


@rule(codes.LOG_CONDA_TENSORFLOW_DEPS_MISSING, "conda cannot find tensorflow-deps", Severity.ERROR,
      "tensorflow-deps exists only on Apple's conda channel, only for osx-arm64 (versions 2.5.0 to "
      "2.10.0, the last uploaded 2022-09-15), and not on PyPI. An Intel (osx-64) conda, one under "
      "Rosetta 2, a command without `-c apple` or a Linux machine never finds it. TensorFlow 2.13 "
      "and later need no tensorflow-deps at all.",
      "Use an arm64 conda (Miniforge) with `-c apple` for the old tensorflow-macos guides, or skip "
      "tensorflow-deps and pip-install the TensorFlow/tensorflow-metal pair.", MINIFORGE,
      fix_answer=ABOUT_THE_LOG)
def conda_tensorflow_deps(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_CONDA_TENSORFLOW_DEPS_MISSING):
        log_subdir = match.fields.get("subdir")
        env_subdir = s.python.conda.subdir if s.python and s.python.conda else None
        channels = match.fields.get("channels", "")
        facts = dict(_where(s, d), conda_subdir=env_subdir, searched_subdir=log_subdir,
                     tensorflow_deps=TENSORFLOW_DEPS)
        intel = "osx-64" in (log_subdir, env_subdir) or (d.translated and env_subdir != "osx-arm64")
        if intel and d.apple_silicon:
            why = ("conda searched osx-64: this conda is the Intel build (it runs under Rosetta 2), "
                   "and tensorflow-deps exists only for osx-arm64")
            commands = ("curl -LO https://github.com/conda-forge/miniforge/releases/latest/download/"
                        "Miniforge3-MacOSX-arm64.sh", "bash Miniforge3-MacOSX-arm64.sh")
        elif not d.is_mac and s.python is not None:
            why = "tensorflow-deps exists only for macOS on Apple silicon (osx-arm64); this is " \
                  f"{s.host.system or 'not macOS'}"
            commands = (pip(s, "install", "tensorflow"),)
        elif channels and "apple" not in channels:
            why = "the apple channel was not searched: tensorflow-deps is only there"
            commands = ("conda install -c apple tensorflow-deps",)
        else:
            why = ("tensorflow-deps was not found on the channels searched; it exists only on the "
                   "apple channel for osx-arm64 and stopped at 2.10.0")
            commands = ()
        m = d.matrix
        if m is not None and s.python and d.apple_silicon:
            fix = _fix_for_machine(s, d, m, f"{why}. TensorFlow 2.13+ needs no tensorflow-deps")
            fix = Remediation(fix.text, commands + fix.commands, MINIFORGE)
        else:
            fix = Remediation(why, commands, MINIFORGE)
        out.append(conda_tensorflow_deps.finding(evidence(s, match, **facts), fix,
                                                 title=f"conda cannot find tensorflow-deps: {why}"))
    return out


@rule(codes.LOG_CONDA_PACKAGES_NOT_FOUND, "conda found no such package on its channels",
      Severity.WARNING,
      "conda searches the channels given for the platform it runs as (osx-arm64, osx-64, "
      "linux-64). tensorflow-macos and tensorflow-metal were never conda packages: pip installs them.",
      "Install it with pip inside the conda environment, or add the channel that has it.",
      fix_answer=ABOUT_THE_LOG)
def conda_packages_not_found(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_CONDA_PACKAGES_NOT_FOUND):
        packages = [p.strip() for p in match.fields.get("packages", "").split(",") if p.strip()]
        names = [p.split("=")[0] for p in packages]
        pip_only = [n for n in names if n in ("tensorflow-macos", "tensorflow-metal")]
        cuda = [n for n in names if n in ("tensorflow-gpu", "cudatoolkit", "cudnn")]
        env_subdir = s.python.conda.subdir if s.python and s.python.conda else None
        commands: tuple[str, ...] = ()
        if pip_only:
            text = f"{', '.join(pip_only)} exist only on PyPI: install with pip in this environment"
            commands = (pip(s, "install", *pip_only),)
        elif cuda and d.is_mac:
            reqs = recommended_requirements(s).requirements
            text = (f"{', '.join(cuda)} are CUDA packages, which do not exist for macOS: on a Mac the GPU "
                    f"is Metal ({' + '.join(reqs) or 'tensorflow + tensorflow-metal'})")
            commands = tuple(install_commands(s, reqs)) if d.apple_silicon else ()
        else:
            what = ", ".join(packages) or "the packages asked for (the paste ends before conda names them)"
            text = f"{what} not on the channels searched ({match.fields.get('subdir') or env_subdir or 'this platform'})"
        if d.apple_silicon and "osx-64" in (match.fields.get("subdir"), env_subdir):
            text += "; this conda is the Intel (osx-64) build, running under Rosetta 2"
        out.append(conda_packages_not_found.finding(evidence(s, match, conda_subdir=env_subdir, **_where(s, d)),
                                                    Remediation(text, commands, MINIFORGE), title=f"conda: {text}"))
    return out
