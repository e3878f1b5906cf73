"""Are the requirements installed distributions declare met, as `pip check` asks? Each installed
distribution's Requires-Dist (markers evaluated for the diagnosed interpreter; an extra's
requirements only where an installed requirement asks for that extra) is held against the
installed version of what it names. A later `pip install`, an `--no-deps` install or another
installer moves a dependency out from under its requirers; pip says so once, then never again.

Only distributions both present are judged. No fact says a snapshot's package list is complete:
the collector reads site directories, not every sys.path entry (a legacy editable install keeps
its metadata in the project folder), and scenarios list only what their reports quote. A
requirement on a distribution that is not listed is unknown, not missing.
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import Specifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import OUTSIDE_THE_GOAL
from tfdoctor.derived import Derived
from tfdoctor.derived.markers import applicable
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.model import Remediation, Severity, rule

TF_KEYS = frozenset(TENSORFLOW_DISTRIBUTIONS)
LAST_KERAS_2 = "2.15.0"
"""What compat.keras3 tries a requirement on keras with to call it an expectation of Keras 2."""
LISTED = 50
"""Unmet requirements listed in the evidence (all are counted) and requirers moved by the command
(`pip check` lists the rest after it): a broken environment of thousands of packages stays a
readable report."""
IN_TITLE = 3
PIP_CHECK = "https://pip.pypa.io/en/stable/cli/pip_check/"

Node = tuple[str, str]
"""An installed distribution's key and one of its extras ("" for its default requirements)."""


@dataclass(frozen=True)
class Edge:
    """One requirement that counts: `requirer` (its `extra` when an installed requirement asks
    for that extra) requires `requirement`, which `installed` meets or not (None: not listed)."""

    requirer: PackageFacts
    extra: str
    requirement: Requirement
    installed: PackageFacts | None
    target: str
    """The required distribution's key."""
    unmet: bool
    """`installed` is there and its version is outside the specifier (False when it cannot be told)."""

    @property
    def node(self) -> Node:
        return (self.requirer.key, self.extra)

    @property
    def who(self) -> str:
        extra = f"[{self.extra}]" if self.extra else ""
        return f"{self.requirer.name}{extra} {self.requirer.version}"

    @property
    def wants(self) -> str:
        """The requirement without its marker, as a person reads it."""
        extras = f"[{','.join(sorted(self.requirement.extras))}]" if self.requirement.extras else ""
        return f"{self.requirement.name}{extras}{self.requirement.specifier}"


# ---------------------------------------------------------------------------------------------
# the requirement graph


@functools.lru_cache(maxsize=4096)
def _version(text: str | None) -> Version | None:
    """A version parsed once (the same numpy is required by hundreds of packages); None when it
    is no version, or its numbers are beyond int()'s digit limit."""
    try:
        return parse_version(text)
    except ValueError:
        return None


def _readable(spec: SpecifierSet) -> bool:
    """Every bound's version parses, so `spec` can be held against any version."""
    return all(s.operator == "===" or _version(s.version.removesuffix(".*")) is not None for s in spec)


def _requirements(pkg: PackageFacts, extra: str, env: dict[str, str]) -> list[Requirement]:
    """The requirements of `pkg` on this interpreter: its default ones, or those only `extra` adds."""
    default = applicable(pkg, env)
    if not extra:
        return default
    return [r for r in applicable(pkg, {**env, "extra": extra}) if r not in default]


def requirement_edges(s: Snapshot, env: dict[str, str]) -> list[Edge]:
    """Every requirement that counts, in package order: each installed distribution's default
    requirements, then those of each extra an installed requirement asks of it (`keras[x]`),
    followed through the extras those ask for in turn."""
    installed: dict[str, PackageFacts] = {}
    for p in s.packages:
        if p.key:
            installed.setdefault(p.key, p)  # the first of a name, as Snapshot.package
    queue = deque((key, "") for key in installed)
    seen = set(queue)
    edges = []
    while queue:
        key, extra = queue.popleft()
        pkg = installed[key]
        for req in (r for r in _requirements(pkg, extra, env) if _readable(r.specifier)):
            target = canonicalize_name(req.name)
            dep = installed.get(target)
            version = _version(dep.version) if dep else None
            unmet = version is not None and not req.specifier.contains(version, prereleases=True)
            edges.append(Edge(pkg, extra, req, dep, target, unmet))
            for asked in (canonicalize_name(e) for e in req.extras) if dep else ():
                if (dep.key, asked) not in seen:
                    seen.add((dep.key, asked))
                    queue.append((dep.key, asked))
    return edges


def tensorflow_closure(d: Derived, edges: list[Edge]) -> dict[Node, tuple[str, ...]]:
    """The nodes TensorFlow loads, each with the chain that brings it in: TensorFlow's
    distributions and the Metal plugins that run in its process, and everything they require,
    transitively, among installed distributions."""
    by_node: dict[Node, list[Edge]] = {}
    for e in edges:
        by_node.setdefault(e.node, []).append(e)
    roots = [*d.providers, *d.shims, *d.metal_plugins]
    paths = {(p.key, ""): (p.label,) for p in roots}
    queue = deque(paths)
    while queue:
        node = queue.popleft()
        for e in by_node.get(node, ()):
            if e.installed is None:
                continue
            dep = e.installed
            for extra in ("", *sorted(canonicalize_name(x) for x in e.requirement.extras)):
                if (dep.key, extra) not in paths:
                    shown = f"{dep.name}[{extra}]" if extra else dep.name
                    paths[(dep.key, extra)] = paths[node] + (f"{shown} {dep.version}",)
                    queue.append((dep.key, extra))
    return paths


def _keras3_era(d: Derived) -> bool:
    version = _version(d.tf_version)
    return d.tensorflow is not None and version is not None and (version.major, version.minor) >= (2, 16)


def judged_elsewhere(e: Edge, d: Derived) -> bool:
    """Requirements another rule judges with more knowledge than a specifier: TensorFlow's own
    (compat.pin-violation, install.*), a Metal plugin's on TensorFlow (compat.tf-metal-mismatch,
    compat.third-party-plugin) and, beside a Keras 3 TensorFlow, tf-keras's on TensorFlow and a
    Keras 2 asked of Keras 3 (compat.keras3)."""
    if e.requirer.key in TF_KEYS:
        return True
    on_tensorflow = e.target in TF_KEYS
    if on_tensorflow and any(e.requirer.key == p.key for p in d.metal_plugins):
        return True
    if not _keras3_era(d):
        return False
    if on_tensorflow and e.requirer.key == "tf-keras":
        return True
    return e.target == "keras" and e.requirement.specifier.contains(LAST_KERAS_2)


# ---------------------------------------------------------------------------------------------
# one requirement for every requirer


def _near(text: str) -> list[Version]:
    """Versions at, just above and just below a specifier's version."""
    v = _version(text.removesuffix(".*"))
    if v is None:
        return []
    rel = v.release
    around = [rel + (1,), rel + (0, 1)]
    around += [rel[:i] + (rel[i] + 1,) for i in range(len(rel))]
    around += [rel[:i] + (rel[i] - 1,) for i in range(len(rel)) if rel[i] > 0]
    return [v, *(n for r in around if (n := _version(".".join(map(str, r)))) is not None)]


def satisfiable(spec: SpecifierSet) -> bool:
    """Whether some version meets every specifier of `spec`, tried at and around each bound (a
    range that is not empty holds one of those versions)."""
    tried = [Version("0"), *(v for s in spec for v in _near(s.version))]
    return any(spec.contains(v, prereleases=True) for v in tried)


def _plain(s: Specifier) -> Version | None:
    """A bound's version when it is a final release (the cases where implication is plain)."""
    if s.operator not in (">=", ">", "<=", "<"):
        return None
    v = _version(s.version)
    return v if v is not None and not (v.pre or v.post or v.dev or v.local) else None


def _implied(spec: Specifier, by: Specifier) -> bool:
    """Every version `by` admits, `spec` admits too (bounds on final releases only)."""
    a, b = _plain(spec), _plain(by)
    if a is None or b is None or spec.operator[0] != by.operator[0]:
        return False
    if spec.operator[0] == ">":
        return b > a or (b == a and (spec.operator == ">=" or by.operator == ">"))
    return b < a or (b == a and (spec.operator == "<=" or by.operator == "<"))


def tightest(spec: SpecifierSet) -> SpecifierSet:
    """`spec` without the bounds another of its bounds already implies (`>=1.26,>=2.1` is `>=2.1`)."""
    dropped: list[Specifier] = []
    for s in spec:
        if any(o != s and o not in dropped and _implied(s, o) for o in spec):
            dropped.append(s)
    return SpecifierSet(",".join(str(s) for s in spec if s not in dropped))


@dataclass(frozen=True)
class Resolution:
    """What to do about one distribution that installed requirements disagree with: install
    `requirement` (None when the installed version already meets every requirer kept), which
    meets the requirers `meets`; the requirements in `movers` no such version meets, so their
    requirers move to releases that agree."""

    dependency: str
    requirement: str | None
    meets: tuple[str, ...]
    movers: tuple[Edge, ...]


def resolve(on_it: list[Edge], reported: list[Edge], closure: dict[Node, tuple[str, ...]]) -> Resolution:
    """One requirement on a distribution (`on_it`: every installed requirement on it) that as many
    installed requirers as possible accept, kept in this order: TensorFlow's own, then what
    TensorFlow loads, then the rest, each requirement already met before one that is not.
    TensorFlow itself is never moved for a requirer: the requirers in `reported` move."""
    dependency = on_it[0].target
    if dependency in TF_KEYS:
        return Resolution(dependency, None, (), tuple(e for e in reported if e.target == dependency))
    kept, meets, movers, refused = SpecifierSet(), [], [], set()
    for e in sorted(on_it, key=lambda e: (e.requirer.key not in TF_KEYS, e.node not in closure, e.unmet)):
        spec = e.requirement.specifier  # hundreds of requirers share a few specifiers: judged once
        if spec not in refused and (set(spec) <= set(kept) or satisfiable(kept & spec)):
            kept &= spec
            meets.append(e.who)
        else:
            refused.add(spec)
            movers.append(e)
    version = _version(on_it[0].installed.version)
    needed = version is None or not kept.contains(version, prereleases=True)
    return Resolution(dependency, f"{dependency}{tightest(kept)}" if needed else None,
                      tuple(dict.fromkeys(meets)), tuple(movers))


# ---------------------------------------------------------------------------------------------
# the finding


def _pip_name(pkg: PackageFacts) -> str | None:
    """The distribution's name as pip takes it, None when its metadata holds no valid name."""
    try:
        req = Requirement(pkg.name or "")
    except InvalidRequirement:
        return None
    return canonicalize_name(req.name) if not (req.extras or req.specifier or req.marker or req.url) else None


def _held(d: Derived) -> list[str]:
    """The installed TensorFlow pinned where it is, so pip's resolver moves its requirers instead."""
    return [f"{p.key}=={v}" for p in (*d.providers, *d.shims) if (v := _version(p.version))]


def _some(names: list[str] | tuple[str, ...]) -> str:
    more = f" and {len(names) - IN_TITLE} more" if len(names) > IN_TITLE else ""
    return ", ".join(names[:IN_TITLE]) + more


def _sentence(r: Resolution, held: list[str]) -> str:
    moving = _some([f"{e.who} ({e.wants})" for e in r.movers])
    pinned = f" ({', '.join(held)} held)" if held else ""
    if r.dependency in TF_KEYS:
        installed = r.movers[0].installed
        return (f"{moving} {'does' if len(r.movers) == 1 else 'do'} not accept the installed "
                f"{installed.label}: keep TensorFlow and let pip choose releases "
                f"that do{pinned}")
    if not r.movers:
        return f"Install {r.requirement}, which every installed requirer of {r.dependency} accepts ({_some(r.meets)})"
    against = f"both {moving} and {_some(r.meets)}" if r.meets else moving
    install = f"install {r.requirement}, which the latter accept, and " if r.requirement else ""
    return f"No {r.dependency} version meets {against}: {install}let pip choose releases of the former that agree{pinned}"


def _remediation(s: Snapshot, d: Derived, resolutions: list[Resolution]) -> Remediation:
    held = _held(d)
    installs = [r.requirement for r in resolutions if r.requirement]
    movers = list(dict.fromkeys(n for r in resolutions for e in r.movers
                                if e.requirer.key not in TF_KEYS and (n := _pip_name(e.requirer))))[:LISTED]
    text = ". ".join(_sentence(r, held) for r in resolutions) + ". `pip check` then lists what is still unmet"
    if movers:
        return Remediation(text, (pip(s, "install", "--upgrade", *installs, *movers, *held),), PIP_CHECK)
    return Remediation(text, (pip(s, "install", *installs),) if installs else (), PIP_CHECK)


def _item(e: Edge, closure: dict[Node, tuple[str, ...]]) -> dict[str, object]:
    item: dict[str, object] = {"requirer": e.who, "requirement": str(e.requirement),
                               "installed": e.installed.label}
    if e.node in closure:
        item["tensorflow_loads_it_through"] = " -> ".join(closure[e.node])
    return item


def _title(inside: list[Edge], outside: list[Edge]) -> str:
    unmet = inside + outside
    if len(unmet) == 1:
        e = unmet[0]
        return f"{e.who} requires {e.wants}, but {e.installed.label} is installed"
    shown = _some([f"{e.who} needs {e.wants} ({e.installed.version} installed)" for e in unmet])
    if not inside:
        return f"{len(unmet)} requirements of installed packages are not met: {shown}"
    others = f", and {len(outside)} of other packages" if outside else ""
    verb = "is" if len(inside) == 1 else "are"
    return f"{len(inside)} requirement{'s' * (len(inside) > 1)} of packages TensorFlow loads {verb} not met{others}: {shown}"


def _detail(inside: list[Edge], outside: list[Edge], closure: dict[Node, tuple[str, ...]]) -> str:
    if not inside:
        return ("TensorFlow does not load " + ("it" if len(outside) == 1 else "any of them")
                + ": TensorFlow is not affected, the requirers may be.")
    chains = list(dict.fromkeys(" -> ".join(closure[e.node]) for e in inside))
    return f"TensorFlow loads {'it' if len(inside) == 1 else 'them'}: {'; '.join(chains[:IN_TITLE])}."


@rule(codes.COMPAT_UNMET_REQUIREMENTS, "Installed packages' requirements are not met", Severity.WARNING,
      "An installed distribution requires (Requires-Dist, markers evaluated for this interpreter, "
      "an extra's requirements where an installed requirement asks for that extra) a version of "
      "another installed distribution that is not the one installed: what `pip check` reports. A "
      "later `pip install` or an `--no-deps` install moved it. Code written against the required "
      "version can fail at import or on first use (a missing function, a changed signature). A "
      "warning when TensorFlow loads the requirer (TensorFlow's requirements and its Metal plugin's, "
      "transitively: keras needing a newer numpy), information for other packages. TensorFlow's own "
      "pins are compat.pin-violation's, Keras 2 under Keras 3 is compat.keras3's. Only distributions "
      "both installed are judged: a snapshot does not say its package list is complete.",
      "Install the requirement the finding names, which meets every installed requirer of that "
      "distribution; where no one version can, let pip choose releases of the requirers that agree, "
      "with TensorFlow held at its version (the finding gives the command).",
      PIP_CHECK, fix_answer=OUTSIDE_THE_GOAL)
def unmet_requirements(s: Snapshot, d: Derived):
    edges = requirement_edges(s, d.marker_env)
    unmet = [e for e in edges if e.unmet and not judged_elsewhere(e, d)]
    if not unmet:
        return None
    closure = tensorflow_closure(d, edges)
    inside = [e for e in unmet if e.node in closure]
    outside = [e for e in unmet if e.node not in closure]
    by_target: dict[str, list[Edge]] = {}
    for e in edges:
        by_target.setdefault(e.target, []).append(e)
    resolutions = [resolve(by_target[dep], unmet, closure) for dep in dict.fromkeys(e.target for e in inside + outside)]
    env = d.marker_env
    evidence = {
        "unmet": [_item(e, closure) for e in (inside + outside)[:LISTED]], "unmet_count": len(unmet),
        "resolutions": [{"dependency": r.dependency, "install": r.requirement, "accepted_by": list(r.meets[:LISTED]),
                         "must_move": [{"requirer": e.who, "requires": e.wants} for e in r.movers[:LISTED]]}
                        for r in resolutions],
        "markers_for": f"Python {env.get('python_version')}, {env.get('platform_system')} "
                       f"{env.get('platform_machine')}",
        "judged": "requirements on installed distributions; one on a distribution not in the "
                  "snapshot is not judged (the package list is not known to be complete)",
    }
    return unmet_requirements.finding(
        evidence, _remediation(s, d, resolutions), title=_title(inside, outside),
        detail=_detail(inside, outside, closure), severity=Severity.WARNING if inside else Severity.INFO)
