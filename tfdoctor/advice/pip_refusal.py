"""Why pip refused a TensorFlow or tensorflow-metal requirement, read from the bundled matrix
(which wheel exists for which Python, architecture and macOS) and this machine's facts.

When a wheel exists here today, the refusal was made then and elsewhere: an older pip that did
not know the wheel's platform tag, pip running for another Python, an interpreter that reports
another platform (x86_64 under Rosetta 2, macOS "10.16" from an old-SDK build), or an older macOS.
`then_versus_now` checks those facts in that order and says which one explains it.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tfdoctor.advice.log_evidence import matches_of
from tfdoctor.codes import LOG_PIP_NO_MATCHING_DISTRIBUTION
from tfdoctor.derived import pip_arch, verdict_archs
from tfdoctor.facts.archnames import X86_64
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.logtext.install import UV_NO_MATCHING_WHEELS
from tfdoctor.knowledge import eras, macos_floors
from tfdoctor.knowledge.records import python_minor

TF_DISTS = ("tensorflow", "tensorflow-macos")

PIP_WITH_MACOS_11_TAGS = "20.3"
"""pip 20.3 (2020-11-30) added the macOS 11 compatibility tags: older pips refuse every
macosx_11_0_arm64 wheel (pip's NEWS.rst for 20.3: "Add support for MacOS Big Sur compatibility
tags", pypa/pip#9138)."""


def macos_11_tag(platform: str) -> str | None:
    """The macOS of a wheel's platform tag when it is 11 or later ('macosx_11_0_arm64': '11.0')."""
    parts = platform.split("_")
    if len(parts) >= 3 and parts[0] == "macosx" and parts[1].isdigit() and int(parts[1]) >= 11:
        return f"{parts[1]}.{parts[2]}"
    return None


def found_none_of(s: Snapshot, name: str) -> tuple[str, ...]:
    """log.pip-no-matching-distribution as what a finding about `name` explains, where pip's "no
    matching distribution" names that package: it is the same refusal, seen from pip."""
    same = name and any(canonicalize_name(m.fields.get("package", "")) == canonicalize_name(name)
                        for m in matches_of(s, LOG_PIP_NO_MATCHING_DISTRIBUTION))
    return (LOG_PIP_NO_MATCHING_DISTRIBUTION,) if same else ()


_PIP_VERBOSE = re.compile(r"Using pip (?P<pip>\S+) from \S+ \(python (?P<python>\d+\.\d+)\)")
"""pip's own first line under -v (src/pip/_internal/cli/base_command.py)."""
_PIP_OUTDATED = re.compile(r"You are using pip version (?P<pip>[0-9][0-9a-z.]{0,20}?)[;,]? however, version")
"""pip's self-check warning before 21.0 (src/pip/_internal/self_outdated_check.py): 'WARNING: You
are using pip version 20.2.4; however, version 20.3.1 is available.'"""
_PYTHON_IN_PATH = re.compile(r"python(?P<python>3\.\d{1,2})/site-packages")


def prerelease(version: str) -> bool:
    try:
        return Version(version).is_prerelease
    except InvalidVersion:
        return False


def refusal(m: Any, package: str, spec: SpecifierSet, py: str | None, arch: str,
            macos: str | None) -> tuple[str, str, list[str]]:
    """(verdict, why, versions installable here) for a TensorFlow or tensorflow-metal request."""
    entries: list[tuple[str, dict[str, Any]]] = []  # (version, arch -> (pythons, min_macos))
    if package in TF_DISTS:
        for minor in m.minors.values():
            for r in minor.releases + minor.prereleases:
                table = r.tensorflow if package == "tensorflow" else r.tensorflow_macos
                entries.append((r.version, {a: (w.pythons, w.min_macos) for a, w in table.items()}))
        tabled = {v for v, _t in entries}  # the registry's other releases (1.x, old 2.x) as pip sees them
        entries += [(v, t) for v, t in macos_floors.registry_wheels(package).items() if v not in tabled]
    else:
        for metal in m.metal_releases.values():
            entries.append((metal.version, {a: (w.pythons, m.metal_min_macos(metal, a))
                                            for a, w in metal.wheels.items()}))
    wanted = [(v, t) for v, t in entries if t and spec.contains(v, prereleases=True)]
    label = f"{package}{spec}" if str(spec) else package
    if not wanted:
        known = sorted((v for v, t in entries if t and not prerelease(v)), key=Version)
        pinned = [s.version for s in spec if s.operator in ("==", "===") and "*" not in s.version]
        if known and pinned and all(version_key(v) < Version(known[0]) for v in pinned):
            return ("older-than-matrix", f"{label} is older than every macOS wheel tfdoctor's matrix "
                    f"knows ({package} {_span(known)}); TensorFlow for Apple silicon starts at 2.5", [])
        return ("never-published", f"no macOS wheel of {label} was ever published (tfdoctor's matrix, "
                f"read from the registry: {package} {_span(known)})", [])
    on_arch = [(v, t[arch]) for v, t in wanted if arch in t]
    if not on_arch:
        others = sorted({a for _v, t in wanted for a in t})
        return ("arch-missing", f"{label} has macOS wheels for {', '.join(others)} only, none for {arch}", [])
    for_py = [(v, w) for v, w in on_arch if py in w[0]]
    if not for_py:
        pythons = sorted({p for _v, w in on_arch for p in w[0]}, key=Version)
        return ("other-pythons-only", f"{label} has {arch} wheels for Python {', '.join(pythons)} only, "
                f"not for Python {py}", [])
    finals = [(v, w) for v, w in for_py if not prerelease(v)]
    if not finals:
        return ("prerelease-only", f"{label} matches only pre-releases ({', '.join(v for v, _ in for_py)}), "
                "which pip skips unless told --pre", [])
    fits = [v for v, w in finals if not macos or Version(macos) >= Version(w[1])]
    if not fits:
        need = min((w[1] for _v, w in finals), key=Version)
        return ("macos-too-old", f"{label} needs macOS {need} or later for Python {py} ({arch}); "
                f"this Mac runs {macos}", [])
    return ("installable-here", f"{label} has wheels for Python {py} ({arch}{f', macOS {macos}' if macos else ''}): "
            "the pip that failed ran in another environment (another Python, or x86_64 under "
            "Rosetta 2), or with an index that hides them", sorted(fits, key=Version))


def _span(versions: list[str]) -> str:
    good = sorted((v for v in versions if not prerelease(v)), key=Version)
    return f"{good[0]} to {good[-1]}" if good else "none"


def version_key(v: str) -> Any:
    try:
        return Version(v)
    except InvalidVersion:
        return Version("0")




def then_versus_now(s: Snapshot, text: str) -> str | None:
    """Why pip refused then what this machine can install now: the first of the pip version, the
    Python pip ran for, the platform the interpreter reported (macOS 10.16 for 11 and later) that
    explains it; None when none does. The log's own words (pip -v names its version and Python)
    come before this environment's facts."""
    verbose = _PIP_VERBOSE.search(text)
    outdated = _PIP_OUTDATED.search(text)
    pip = verbose.group("pip") if verbose else outdated.group("pip") if outdated else next(
        (p.version for p in s.packages if p.name.lower() == "pip"), None)
    try:
        if pip and Version(pip) < Version(PIP_WITH_MACOS_11_TAGS):
            return (f"pip {pip} is older than {PIP_WITH_MACOS_11_TAGS}, the first pip that knows the "
                    "macOS 11+ tags these wheels carry: upgrade pip")
    except InvalidVersion:
        pass
    ran_for = {verbose.group("python")} if verbose else {m.group("python") for m in _PYTHON_IN_PATH.finditer(text)}
    here = s.python.minor if s.python else None
    if here and ran_for and here not in ran_for:
        return f"pip ran for Python {', '.join(sorted(ran_for))} (the log says so), not this Python {here}"
    reported = s.host.macos_version_reported
    if reported and reported.startswith("10.16") and s.host.macos_version != reported:
        return (f"this Python reports macOS {reported} for {s.host.macos_version} (built with an old SDK, "
                "or SYSTEM_VERSION_COMPAT=1), so pip skips wheels tagged macOS 11 and later: run pip "
                "with SYSTEM_VERSION_COMPAT=0")
    return None


_EXACT = re.compile(r"^===?\s*(?P<version>\d+(?:\.\d+)*)$")


def pip_verdict(s: Snapshot, d: Any, match: Any) -> tuple[str, str, list[str]] | None:
    """`refusal` of one of pip's lines for this Python, the architecture pip runs as and this
    macOS; None where it cannot be judged (not a Mac, no matrix or Python, neither TensorFlow nor
    the plugin, a requirement that is not one). Judged once per line: the log rule and
    compat.macos-too-old both ask."""
    package = match.fields.get("package", "")
    if d.matrix is None or s.python is None or not d.is_mac or package not in TF_DISTS + ("tensorflow-metal",):
        return None
    try:
        spec = SpecifierSet(match.fields.get("specifier", "") or "")
    except InvalidSpecifier:
        return None
    archs = (d.process_arch,) if d.process_arch else verdict_archs(s, d)
    return d.once(f"pip-verdict-{id(match)}", lambda: _on_every_arch(
        {arch: refusal(d.matrix, package, spec, s.python.minor, arch, d.macos) for arch in archs}))


ARCH_DEPENDS = "depends-on-arch"
"""The verdict where the report does not say the architecture and the two say different things."""


def _on_every_arch(judged: dict[str, tuple[str, str, list[str]]]) -> tuple[str, str, list[str]]:
    """One architecture's verdict as it is; for an unstated one, the verdict both share, or
    ARCH_DEPENDS, each with what each architecture's wheels say (an unstated chip is not Intel)."""
    first = next(iter(judged.values()))
    if len(judged) == 1 or all(j == first for j in judged.values()):
        return first
    verdict = first[0] if len({j[0] for j in judged.values()}) == 1 else ARCH_DEPENDS
    return verdict, "the report does not say what pip runs as: " + "; ".join(
        f"as {arch}, {why}" for arch, (_v, why, _here) in judged.items()), []


def refused_for_macos(s: Snapshot, d: Any, match: Any) -> dict[str, Any] | None:
    """Facts of a pip refusal this macOS explains: every release the requirement admits for this
    Python, on the architecture pip runs as, needs a newer macOS (the wheels' tags; on x86_64 the
    binaries' floor where it binds: pip installs those, and they fail at import). None otherwise."""
    arch = d.process_arch or d.hardware_arch
    if match.code != LOG_PIP_NO_MATCHING_DISTRIBUTION or not d.macos or not arch:
        return None
    judged = pip_verdict(s, d, match)
    if judged is None or judged[0] != "macos-too-old":
        return None
    requested = f"{match.fields['package']}{SpecifierSet(match.fields.get('specifier', '') or '')}"
    return {"requested": requested, "python": s.python.minor, "arch": arch, "why": judged[1],
            "source": macos_floors.source()}


def fork_unbuilt_for(python: str) -> dict[str, Any]:
    """Facts of the ML Compute fork on a Python other than eras.FORK_PYTHON: its bundled wheels are for it only
    (apple/tensorflow_macos install_venv.sh), and its installer refuses any other."""
    tag = "cp" + eras.FORK_PYTHON.replace(".", "")
    return {"package": "tensorflow-macos", "requested": "tensorflow_macos 0.1alpha (the ML Compute fork)",
            "python": python, "wheel_pythons": [tag], "source": "apple/tensorflow_macos install_venv.sh",
            "title": f"Apple's ML Compute fork was built for Python {eras.FORK_PYTHON} only (its bundled wheels "
                     f"are {tag}); this is Python {python}",
            "text": "Give its installer a Python 3.8 (--python), or better, leave the unmaintained fork: "
                    "TensorFlow with tensorflow-metal installs with pip on current Pythons"}


def unbuilt_for_python(s: Snapshot, d: Any, match: Any) -> dict[str, Any] | None:
    """Facts of a refusal of a TensorFlow never built for this Python. pip's 'no matching
    distribution' (log.pip-no-matching-distribution) for one exact release whose macOS wheels
    (compat_matrix.json macos_floors, the registry's file list) exist, none for this Python
    (TensorFlow 2.3.0 has cp35-cp38 only, so Python 3.9 finds none; on Apple silicon only arm64
    wheels count, on an unknown chip any). Where the report does not say the OS, or names Linux or
    Windows on an x86_64 (or unstated) machine, the macOS wheels stand for the release's Pythons
    from TensorFlow 2.0 on: it builds each 2.x release for one range of them on every OS (`pip
    download --platform macosx_10_15_x86_64|manylinux2014_x86_64|win_amd64 --python-version 3.5..3.12
    tensorflow==999` lists the same releases per Python on all three, 2.15.0.post1 aside, Linux
    only; the wheels of 2.12.0-2.21.0 in ../shared/reference/tf_wheels_2026-11.json agree; 1.x
    releases differ by OS). A Python's later arrival is read for the Mac only. Or
    the ML Compute fork's installer rejecting a Python that is not 3.8 (apple/tensorflow_macos
    install_venv.sh: its bundled wheels are cp38 only). None when that is not what the refusal shows."""
    fields = match.fields
    if match.variant == "mlcompute-installer-python":
        return fork_unbuilt_for(fields.get("python_version") or (s.python.minor if s.python else "another version"))
    if match.code != LOG_PIP_NO_MATCHING_DISTRIBUTION:
        return None
    if match.variant == UV_NO_MATCHING_WHEELS:
        return _uv_unbuilt_for_python(s, d, match)
    exact = _EXACT.match(fields.get("specifier", ""))
    package = fields.get("package", "")
    other_os = bool(s.host.system) and not d.is_mac
    if s.python is None or not s.python.minor or package not in macos_floors.RELEASE_PACKAGES \
            or (other_os and (package == eras.FORK_PACKAGE or pip_arch(s) not in (None, X86_64))):
        return None  # an ARM machine of another OS had other wheels (or none) from the Mac's
    if not exact:
        return None if other_os else python_came_later(s, d, match)
    if other_os and not exact["version"].startswith("2."):
        return None
    built = macos_floors.wheel_pythons(package, exact["version"])
    if s.host.hw_arm64 is not None and not other_os:
        built = {arch: tags for arch, tags in built.items() if arch == d.hardware_arch}
    tags = sorted(set().union(*built.values()), key=_tag_key)
    if not tags:
        return None
    if "cp" + s.python.minor.replace(".", "") in tags:
        return None if other_os else python_came_later(s, d, match)  # built for it, perhaps after pip ran
    span = f"{python_minor(tags[0])}-{python_minor(tags[-1])}"
    source = macos_floors.source() + ("; the release's macOS wheels stand for its Pythons on "
                                      f"{s.host.system}" if other_os else "")
    return {"package": package, "requested": f"{package}=={exact['version']}", "python": s.python.minor,
            "wheel_pythons": tags, "wheel_archs": sorted(built), "source": source,
            "title": f"No {package} {exact['version']} wheel for Python {s.python.minor}: it was built for {span}",
            "text": f"Ask for a release built for Python {s.python.minor}, or use a Python in {span}"}


def _uv_unbuilt_for_python(s: Snapshot, d: Any, match: Any) -> dict[str, Any] | None:
    """Facts of uv's own verdict that no wheel of a TensorFlow range has this Python's tag
    ("tensorflow-macos<=2.15.0 has no wheels with a matching Python ABI tag (e.g., `cp312`)"): the
    tag names the Python uv looked for; the registry's file list (macos_floors) says which Pythons
    the newest release in the range was built for. None for a platform tag (the architecture's or
    the macOS's story) and for packages that are not TensorFlow."""
    fields = match.fields
    package, spec, tag = fields.get("package", ""), fields.get("specifier", ""), fields.get("tag", "")
    if fields.get("tag_kind") not in ("Python ABI", "Python version") or package not in macos_floors.RELEASE_PACKAGES:
        return None
    python = python_minor(tag) if re.fullmatch(r"cp3\d{1,2}", tag) else (s.python.minor if s.python else None)
    if not python:
        return None
    try:
        wanted = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    releases = macos_floors.registry_wheels(package)
    admitted = sorted((v for v in releases if wanted.contains(v)), key=version_key)
    built = sorted({p for arch, (pythons, _floor) in releases[admitted[-1]].items()
                    if s.host.hw_arm64 is None or arch == d.hardware_arch for p in pythons},
                   key=version_key) if admitted else []
    span = f": {package} {admitted[-1]} was built for Python {built[0]}-{built[-1]}" if built else ""
    return {"package": package, "requested": f"{package}{spec}", "python": python,
            "wheel_pythons": ["cp" + p.replace(".", "") for p in built], "source": macos_floors.source(),
            "title": f"uv found no {package}{spec} wheel for Python {python}{span}",
            "text": f"Use a Python the release was built for ({built[0]}-{built[-1]})" if built else
                    f"Use a Python that {package} has wheels for"}


def python_came_later(s: Snapshot, d: Any, match: Any) -> dict[str, Any] | None:
    """Facts of a refusal made before the package had wheels for this Python. pip's 'from
    versions: none' means no release at all fitted; where releases for this architecture came
    first and wheels for this Python only from a later one (tensorflow-macos: arm64 from 2.5.0,
    cp311 from 2.12.0; tensorflow: cp313 from 2.20.0), the pip that refused ran before those
    were published, when this Python was newer than every wheel. None where every release there
    had it, or pip listed versions."""
    if match.fields.get("available", "none").strip() not in ("", "none") or s.host.hw_arm64 is None:
        return None
    package, python = match.fields["package"], s.python.minor if s.python else ""
    arch = d.process_arch or d.hardware_arch
    spec = match.fields.get("specifier", "")
    try:
        wanted = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    came = macos_floors.python_arrival(package, "cp" + python.replace(".", ""), arch)
    if came is None or not came.before or came.release and not wanted.contains(came.release, prereleases=True):
        return None  # every release there had it, or the one that brought it is not what was asked
    span = f"{came.before[0]} to {came.before[-1]}"
    facts = {"package": package, "requested": f"{package}{spec}", "python": python, "wheel_archs": [arch],
             "since": came.release, "source": macos_floors.source()}
    if came.release is None:
        return {**facts, "title": f"No {package} wheel for Python {python} ({arch}) in any release ({span})",
                "text": f"Use a Python that {package} has wheels for"}
    return {**facts,
            "title": f"No {package} wheel for Python {python} ({arch}) when pip ran: it has wheels for "
                     f"Python {python} only from {came.release} on ({span} have none)",
            "text": f"pip found no {package} at all ('from versions: none'): it ran before {package} "
                    f"{came.release} brought wheels for Python {python}. Upgrade pip and ask again, or use "
                    f"Python {_newest_python(package, came.before[-1], arch)} with {package} {came.before[-1]}"}


def _newest_python(package: str, version: str, arch: str) -> str:
    return python_minor(max(macos_floors.wheel_pythons(package, version)[arch], key=_tag_key))


def _tag_key(tag: str) -> tuple[int, int]:
    return int(tag[2]), int(tag[3:] or 0)
