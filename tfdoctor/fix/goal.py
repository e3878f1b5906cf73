"""The goal of a fix: which Python, TensorFlow, tensorflow-metal and Keras go together here.

On a Mac the compatibility matrix decides (the recommended pair, or the pair closest to a
mismatched one); elsewhere there is no Metal, so the installed TensorFlow stays and only what is
around it is fixed. Kept apart from the steps so a goal can be reasoned about (and tested)
without any command line. (Not the "target" of tfdoctor.gather.interpreter, the interpreter
diagnosed; the fix-plan document calls a goal `target`, as it always has.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from packaging.utils import canonicalize_name

from tfdoctor import codes
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix.sources import is_version
from tfdoctor.knowledge import best_pair, keras_releases

if TYPE_CHECKING:
    from tfdoctor.knowledge.matrix import CompatMatrix


@dataclass(frozen=True)
class Goal:
    python: str
    arch: str
    requirements: tuple[str, ...]
    description: str
    status: str | None = None
    sources: tuple[str, ...] = ()


def choose_goal(s: Snapshot, d: Any, matrix: "CompatMatrix", arch: str, found: set[str],
                notes: list[str]) -> Goal:
    """The goal for this snapshot (`d`: its derived facts); `notes` gets why, when not obvious."""
    py = s.python
    assert py is not None
    legacy = wants_keras2(s, found)
    if s.host.system == "Darwin":
        rec = best_pair.recommended_install(matrix, py.minor, arch, d.macos)
        reqs, status, sources = list(rec.requirements), rec.status, tuple(rec.sources)
        metal_now = s.package("tensorflow-metal")
        if codes.COMPAT_TF_METAL_MISMATCH in found and d.tf_version and metal_now and metal_now.version:
            # the pair closest to what is installed (another metal for this minor, or the
            # newest release of the minor that has one), as the mismatch finding names it
            pair = best_pair.pairing(matrix, d.tf_version, metal_now.version, py.minor, arch)
            if len(pair.fix) == 2:
                reqs, sources = list(pair.fix), tuple(pair.sources)
                status = matrix.pair_status(pinned_version(reqs[0]) or "",
                                            pinned_version(reqs[1]) or "")[0]
                notes.append(f"tensorflow {d.tf_version} + tensorflow-metal {metal_now.version} is "
                             f"{pair.status}: the closest good pair is {' + '.join(pair.fix)}")
        tf_version = pinned_version(reqs[0]) if reqs else None
        keras = "Keras 3"
        if legacy and tf_version:
            pin = keras_releases.tf_keras_requirement(matrix, tf_version, py.minor)
            if pin:
                reqs.append(pin.requirement)
                keras = f"Keras 2 ({pin.requirement}, with TF_USE_LEGACY_KERAS=1)"
        metal = next((r.split("==")[1] for r in reqs if r.startswith("tensorflow-metal==")), None)
        desc = (f"{arch} Python {py.minor}, {_human(reqs[0]) if reqs else 'no TensorFlow'}"
                + (f" with tensorflow-metal {metal}" if metal else "") + f", {keras}")
        return Goal(py.minor, arch, tuple(reqs), desc, status, sources)
    # Elsewhere no Metal pair: keep the TensorFlow that is installed (the newest of several).
    dists = sorted(s.tensorflow_distributions(), key=lambda p: _version_key(p.version))
    req = "tensorflow"
    if dists:
        tf = dists[-1]
        req = canonicalize_name(tf.name or "tensorflow")
        if is_version(tf.version):
            req += f"=={tf.version}"
        else:
            notes.append(f"the installed {req} has no version pip can pin ({tf.version!r}): "
                         "the target takes the newest")
    reqs = [req]
    keras = "Keras 3"
    if legacy and dists:
        pin = keras_releases.tf_keras_requirement(matrix, dists[-1].version or "", py.minor)
        if pin:
            reqs.append(pin.requirement)
            keras = f"Keras 2 ({pin.requirement})"
    notes.append(f"{s.host.system or 'this system'} has no Metal: the target keeps the installed "
                 "TensorFlow and fixes what is around it")
    desc = f"{arch} Python {py.minor}, {_human(req)} (no tensorflow-metal on {s.host.system or 'this OS'}), {keras}"
    return Goal(py.minor, arch, tuple(reqs), desc)


def wants_keras2(s: Snapshot, found: set[str]) -> bool:
    return (codes.COMPAT_KERAS3 in found or s.package("tf-keras") is not None
            or s.env.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true", "yes"))


_PIN = re.compile(r"==\s*([0-9][0-9A-Za-z.]*?)(\.\*)?$")


def pinned_version(requirement: str) -> str | None:
    """"tensorflow==2.19.*" -> "2.19.0"; "tensorflow==2.18.1" -> "2.18.1"."""
    found = _PIN.search(requirement)
    if not found:
        return None
    return found.group(1) + (".0" if found.group(2) else "")


def _human(requirement: str) -> str:
    found = _PIN.search(requirement)
    name = re.split(r"[=<>!~ ]", requirement, maxsplit=1)[0]
    if not found:
        return name
    return f"{name} {found.group(1)}" + (".x" if found.group(2) else "")


def _version_key(version: str | None) -> Any:
    from packaging.version import Version

    from tfdoctor.facts.versions import parse_version

    return parse_version(version) or Version("0")
