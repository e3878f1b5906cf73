"""Where TensorFlow's pins come from: the installed TensorFlow's own Requires-Dist, the matrix's
pins where the installed metadata names none (a report's hand-written package list), and pip's
own word after an install ("tensorflow 2.2.1 has requirement numpy<1.19.0,>=1.16.0, but you'll
have numpy 1.19.0 which is incompatible", log.pip-conflict): read, that line is the pin and the
installed version observed, which a report's package list may not state.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tfdoctor.advice.log_evidence import matches_of
from tfdoctor.codes import LOG_PIP_CONFLICT
from tfdoctor.derived import Derived
from tfdoctor.derived.markers import applicable, marker_env
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import PIN_NAMES


def tensorflow_pins(s: Snapshot, tf: PackageFacts, m: CompatMatrix | None
                    ) -> tuple[list[Requirement], str]:
    """The requirements of the installed TensorFlow that apply here, and where they come from:
    its own Requires-Dist, or the matrix's pins when the installed metadata names none of them."""
    env = marker_env(s)
    own = [r for r in applicable(tf, env)  # its markers need the Python: without it, the matrix's
           if canonicalize_name(r.name) not in TENSORFLOW_DISTRIBUTIONS] if s.python else []
    names = {canonicalize_name(r.name) for r in own}
    where = (f"Requires-Dist of the installed {tf.label} (markers evaluated for "
             f"Python {env['python_version']}, {env['platform_system']} {env['platform_machine']})")
    if names & set(PIN_NAMES) or m is None:
        return own, where
    py = s.python.minor if s.python else None
    pins = m.tf_pins(tf.version, py)
    minor = m.tf_minor(tf.version)
    release = None
    if minor is not None:  # the release tf_pins() read: this one, else the minor's newest with pins
        exact = minor.release(tf.version)
        release = exact if exact and exact.pins else next(
            (r for r in reversed(minor.releases) if r.pins), None)
    source = release.pins_source if release else None
    reqs = [Requirement(f"{name}{spec}") for name, spec in pins.items()]
    return reqs, (f"compat_matrix.json pins of TensorFlow {release.version if release else tf.version} "
                  f"on macOS arm64 ({source}); the installed metadata lists none")


def about(tf: PackageFacts | None, conflict: dict[str, str]) -> bool:
    """A pip conflict line (log.pip-conflict's fields) is about this installed TensorFlow: its
    distribution at its version (pkg_resources names the distribution only: the one it loaded)."""
    return (tf is not None and conflict.get("required_by") == tf.key
            and conflict.get("required_by_version", tf.version) == tf.version)


def pip_conflicts(s: Snapshot, d: Derived) -> tuple[list[Requirement], dict[str, PackageFacts]]:
    """pip's conflict lines about the installed TensorFlow (its distribution and version): the
    requirements they print, and the versions they say are installed, for packages the snapshot
    does not list. Lines about another release or another package are not TensorFlow's pins.
    Read once per snapshot: the pins and the pin check both ask."""
    return d.once("pip-conflicts", lambda: _read_conflicts(s, d.tensorflow))


def _read_conflicts(s: Snapshot, tf: PackageFacts | None) -> tuple[list[Requirement], dict[str, PackageFacts]]:
    pins: list[Requirement] = []
    installed: dict[str, PackageFacts] = {}
    for match in matches_of(s, LOG_PIP_CONFLICT):
        f = match.fields
        if not about(tf, f):
            continue
        try:
            req = Requirement(f.get("requirement", ""))
        except InvalidRequirement:
            continue
        key = canonicalize_name(req.name)
        pins.append(req)
        if s.package(key) is None and f.get("installed"):
            installed[key] = PackageFacts(name=key, version=f["installed"])
    return pins, installed
