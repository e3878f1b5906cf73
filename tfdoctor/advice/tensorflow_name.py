"""pip's resolver refusing a package because it depends on the distribution `tensorflow` where the
Mac's TensorFlow is another distribution: tensorflow-macos before 2.13 (the `tensorflow` wheel
for macOS arm64 exists only from 2.13, first as a shim onto tensorflow-macos), or a requirement
no `tensorflow` release with an arm64 wheel meets. The resolver says it two ways (factory.py):
"X 1.0 depends on tensorflow~=2.10.0" under "The conflict is caused by:" (several candidates of
X), and "Could not find a version that satisfies the requirement tensorflow<2.10,>=2.4.1 (from X)"
(one). Judged once here, so the install rule (install.requires-tensorflow-name, which takes these
lines as observed evidence) and the log rules agree on which lines are this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from tfdoctor.advice.commands import pip
from tfdoctor.advice.installs import install_commands, recommended_requirements
from tfdoctor.advice.log_evidence import evidence, matches_of, said
from tfdoctor.codes import (
    LOG_PIP_DEPENDS_ON_TENSORFLOW,
    LOG_PIP_NO_MATCHING_DISTRIBUTION,
)
from tfdoctor.derived import Derived
from tfdoctor.facts.pasted_log import LogTextMatch
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.model import Remediation

_PARENT = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,100})(?:\[[^\]]{0,100}\])?(?:==(?P<version>\S{1,60}))?")
"""The package a requirement came from, as pip names it ("basic-pitch", legacy "basic-pitch==0.2.0");
not "-r requirements.txt (line 3)", which is no package."""
FIRST_ARM64_TENSORFLOW = (2, 13)
"""The first TensorFlow whose `tensorflow` distribution has a macOS arm64 wheel (compat_matrix.json:
tensorflow 2.13.0 arm64 is a thin wheel depending on tensorflow-macos==2.13.0; none before)."""


@dataclass(frozen=True)
class Refusal:
    """One package pip could not install here because it depends on `tensorflow`."""

    match: LogTextMatch
    package: str
    version: str | None
    specifier: str
    why: str
    """"tensorflow-macos" (TensorFlow here is tensorflow-macos before 2.13), "no-arm64-wheel"
    (no `tensorflow` release the requirement admits has a macOS arm64 wheel, for any Python, and
    a tensorflow-macos release does) or "before-arm64-wheels" (the requirement admits releases
    from before 2.13 too, and pip on this Apple silicon Python found none: it ran before 2.13)."""
    arm64_releases: tuple[str, ...]
    """`tensorflow` releases with a macOS arm64 wheel (for this Python) the requirement admits."""


def arm64_tensorflow_releases(matrix: CompatMatrix, specifier: str, python: str | None,
                              package: str = "tensorflow") -> tuple[str, ...] | None:
    """The final releases of `package` with a macOS arm64 wheel (for `python` when known) that
    `specifier` admits, oldest first; None when the specifier cannot be read."""
    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return None
    found = []
    for minor in matrix.minors.values():
        for release in minor.releases:
            wheels = release.wheels(package, "arm64")
            if wheels is None or (python and python not in wheels.pythons):
                continue
            if spec.contains(release.version):
                found.append(release.version)
    return tuple(sorted(found, key=parse_version))


def tensorflow_macos_before_2_13(d: Derived) -> bool:
    """The one TensorFlow installed is tensorflow-macos before 2.13: `tensorflow` is not it."""
    if len(d.providers) != 1 or d.providers[0].key != "tensorflow-macos":
        return False
    version = parse_version(d.providers[0].version)
    return version is not None and (version.major, version.minor) < FIRST_ARM64_TENSORFLOW


def _tensorflow_macos_unversioned(d: Derived) -> bool:
    """The one TensorFlow installed is tensorflow-macos, at a version nobody stated."""
    return len(d.providers) == 1 and d.providers[0].key == "tensorflow-macos" and not d.providers[0].version


def refused_for_tensorflow_name(s: Snapshot, d: Derived) -> list[Refusal]:
    """The resolver's "X 1.0 depends on tensorflow..." lines that this Mac explains: never off
    macOS, never where the distribution `tensorflow` is installed, never on a Mac known to be
    Intel (pip installs the x86_64 `tensorflow` there). Judged once per snapshot: the install
    rule and the log rule both ask."""
    return d.once("tensorflow-name-refusals", lambda: _refusals(s, d))


def _refusals(s: Snapshot, d: Derived) -> list[Refusal]:
    matches = matches_of(s, LOG_PIP_DEPENDS_ON_TENSORFLOW) + [
        m for m in matches_of(s, LOG_PIP_NO_MATCHING_DISTRIBUTION)
        if m.fields.get("package") == "tensorflow" and _PARENT.fullmatch(m.fields.get("required_by", ""))]
    if not matches or not d.is_mac or s.package("tensorflow") is not None:
        return []
    chip_unknown = "chip" in s.unknown or s.host.hw_arm64 is None
    if not (d.apple_silicon or chip_unknown):
        return []
    python = s.python.minor if s.python else None
    out = []
    for match in matches:
        spec = match.fields.get("specifier", "")
        releases = arm64_tensorflow_releases(d.matrix, spec, python) if d.matrix else None
        # for no Python at all (a wheel for another Python is the Python's story)
        any_python = arm64_tensorflow_releases(d.matrix, spec, None) if d.matrix else None
        macos = arm64_tensorflow_releases(d.matrix, spec, None, "tensorflow-macos") if d.matrix else None
        on_apple_silicon = d.apple_silicon or (said(match) and s.host.hw_arm64 is None)  # words that say so
        if tensorflow_macos_before_2_13(d) or (said(match) and _tensorflow_macos_unversioned(d)):
            # words that say the install fails beside a tensorflow-macos of no stated version: a
            # tensorflow-macos of 2.13 on brings the `tensorflow` wheel a requirement asks for
            why = "tensorflow-macos"
        elif d.apple_silicon and any_python == () and macos:
            # no `tensorflow` arm64 wheel in range while tensorflow-macos has one: the name is
            # what pip cannot satisfy, not the version
            why = "no-arm64-wheel"
        elif on_apple_silicon and not d.translated and _before_2_13(macos):
            # pip on Apple silicon found no `tensorflow` for a range its arm64 wheels (2.13 on)
            # would meet today: it ran before them, when tensorflow-macos was the only name there
            why = "before-arm64-wheels"
        else:
            continue
        parent = _PARENT.fullmatch(match.fields.get("required_by", ""))
        version = match.fields.get("required_by_version") or (parent.group("version") if parent else None)
        out.append(Refusal(match, parent.group("name") if parent else "", version, spec, why, releases or ()))
    return out


def _before_2_13(tensorflow_macos_releases: tuple[str, ...] | None) -> bool:
    """Whether the tensorflow-macos releases a requirement admits reach back before `tensorflow`
    had macOS arm64 wheels, when tensorflow-macos was TensorFlow on Apple silicon (2.5 to 2.12)."""
    return any((v.major, v.minor) < FIRST_ARM64_TENSORFLOW
               for v in map(parse_version, tensorflow_macos_releases or ()) if v is not None)


def refusal_story(s: Snapshot, d: Derived, refusal: Refusal) -> tuple[str, Remediation]:
    """What a refusal says and the way out, told alike by the log rule of either form pip prints.
    Beside tensorflow-macos the install rule tells the way out (install.requires-tensorflow-name);
    otherwise pip found no arm64 `tensorflow`: a release that has one and meets the requirement,
    or a newer release of the package, or the package without its dependencies."""
    if said(refusal.match):
        text = ("the report says a package requires the distribution `tensorflow`, where TensorFlow on "
                "Apple silicon before 2.13 is tensorflow-macos")
    else:
        what = f"{refusal.package} {refusal.version or ''}".strip() or "a package"
        cause = (f"TensorFlow here is {d.tf_main.label}"
                 if refusal.why == "tensorflow-macos" and d.tf_main else
                 "pip found no macOS arm64 wheel of it (they exist from 2.13 on)"
                 if refusal.why == "before-arm64-wheels" else
                 "no release of it in that range has a macOS arm64 wheel (before 2.13 TensorFlow there was "
                 "tensorflow-macos)")
        text = f"pip refused {what}: it depends on `tensorflow{refusal.specifier}`, and {cause}"
    spec = f"=={refusal.version}" if refusal.version else ""
    no_deps = (pip(s, "install", "--no-deps", f"{refusal.package}{spec}"),) if refusal.package else ()
    if refusal.why == "tensorflow-macos":
        return text, Remediation(text + ": install it without its dependencies (install.requires-tensorflow-name)",
                                 no_deps)
    newest = refusal.arm64_releases[-1] if refusal.arm64_releases else None
    if newest:
        way = f"move to TensorFlow {newest}, whose `tensorflow` has a macOS arm64 wheel and meets it"
        commands: tuple[str, ...] = (pip(s, "install", f"tensorflow=={newest}"),)
    else:
        reqs = recommended_requirements(s)
        way = (f"move to a release of {refusal.package or 'the package'} that accepts TensorFlow 2.13 or "
               f"later, whose `tensorflow` has macOS arm64 wheels ({reqs.text})")
        commands = tuple(install_commands(s, reqs.requirements))
    return text, Remediation(f"{text}: {way}; or install the package with --no-deps beside TensorFlow",
                             commands + no_deps)


def refusal_evidence(s: Snapshot, d: Derived, refusal: Refusal) -> dict:
    """The evidence of a refusal's log finding: the line, why it is the name, what is admitted."""
    return evidence(s, refusal.match, why=refusal.why, tensorflow=d.tf_version,
                    arm64_tensorflow_releases_admitted=list(refusal.arm64_releases))
