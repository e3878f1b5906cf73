"""Version strings from other people's metadata: parsed where PEP 440 allows, else None, never
an exception (a hand-edited METADATA or snapshot must not crash a check)."""

from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version


def parse_version(text: str | None) -> Version | None:
    try:
        return Version(text or "")
    except InvalidVersion:
        return None


def release_minor(version: str) -> str:
    """A version's X.Y ("2.16" of "2.16.1rc0"); an unreadable one as written."""
    parsed = parse_version(version)
    return f"{parsed.major}.{parsed.minor}" if parsed else version


def same_release(a: str, b: str) -> bool:
    """Whether two spellings name one release ("2.0.0-beta1" and "2.0.0b1", "2.3" and "2.3.0");
    unreadable ones are compared as written."""
    pa, pb = parse_version(a), parse_version(b)
    return pa == pb if pa is not None and pb is not None else a == b


def below(version: str | None, bound: str) -> bool:
    """Whether a readable `version` is older than `bound` (an unreadable one is not)."""
    parsed = parse_version(version)
    return parsed is not None and parsed < Version(bound)


def at_least(version: str | None, bound: str) -> bool:
    """Whether a readable `version` is `bound` or newer (an unreadable one is not)."""
    parsed = parse_version(version)
    return parsed is not None and parsed >= Version(bound)


def allows(spec: str | None, version: str) -> bool:
    """Whether a requirement's specifier (">=3.20.3,<5") admits `version` (an unreadable one does not)."""
    try:
        return bool(spec) and SpecifierSet(spec or "").contains(version, prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def admits_from(spec: str, floor: str) -> bool:
    """Whether some version at or above `floor` can meet `spec` (">=1.19.2,<1.20": not from
    1.24). Only the upper bounds decide; an unreadable specifier or floor admits (no verdict)."""
    try:
        low, clauses = Version(floor), SpecifierSet(spec)
        for clause in clauses:
            op, text = clause.operator, clause.version
            if op == "==" and text.endswith(".*"):
                ceiling = _next_release(Version(text[:-2]).release)
            elif op == "~=":
                ceiling = _next_release(Version(text).release[:-1])
            elif op in ("==", "===", "<="):
                if Version(text) < low:
                    return False
                continue
            elif op == "<":
                ceiling = Version(text)
            else:
                continue
            if ceiling <= low:
                return False
    except (InvalidSpecifier, InvalidVersion):
        return True
    return True


def _next_release(release: tuple[int, ...]) -> Version:
    """The first version past a release prefix: (1, 19) -> 1.20."""
    return Version(".".join(map(str, release[:-1] + (release[-1] + 1,))))
