"""Which Keras tf.keras is, and which Keras the environment expects: from TensorFlow 2.16 tf.keras
is Keras 3 unless tf-keras is installed *and* TF_USE_LEGACY_KERAS is one of the values TensorFlow
honours. Judged once here for two rules of checks/compat_pins.py: compat.keras3 (what is wrong) and
compat.pins-ok (what its headline says of Keras)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from packaging.utils import canonicalize_name

from tfdoctor import codes
from tfdoctor.advice.commands import export_variable, pip
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived, installed_keras
from tfdoctor.derived.markers import applicable, marker_env, satisfies
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot
from tfdoctor.facts.versions import at_least, parse_version, release_minor
from tfdoctor.knowledge import keras_releases
from tfdoctor.knowledge.keras_releases import KERAS2_USERS, TfKerasPin, keras2_users
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.model import Remediation, Severity

KERAS_GUIDE = "https://keras.io/getting_started/"
LEGACY_TRUE = ("true", "True", "1")
"""The TF_USE_LEGACY_KERAS values TensorFlow honours (tensorflow/python/util/lazy_loader.py)."""
KERAS2_ASKED = {"keras3-transformers": "transformers' TensorFlow models",
                "keras3-requires-tf-keras": "a package's Keras 2 models", "keras3-no-tf-keras": ""}
"""log.keras3-api's variants where a program checked the environment and found no Keras 2 it needs
(transformers' "Your currently installed version of Keras is Keras 3", deepface's "this requires
tf-keras package", "No module named 'tf_keras'", TensorFlow's TF_USE_LEGACY_KERAS warning), by
what asked for it: the environment's Keras, not the code's calls, is what is wrong."""
LAZY_LOADER_SOURCE = ("tensorflow/python/util/lazy_loader.py of tensorflow 2.19.1 (KerasLazyLoader."
                      "_initialize), read from the installed wheel")


@dataclass(frozen=True)
class KerasVerdict:
    """What is wrong with the Keras tf.keras resolves to: compat.keras3's finding, unbuilt."""

    severity: Severity
    title: str
    evidence: dict[str, Any]
    fix: Remediation
    detail: str = ""
    explains: tuple[str, ...] = ()


def _expects_keras2(s: Snapshot, keras: PackageFacts | None) -> list[dict[str, str]]:
    """Installed packages (not TensorFlow, not tf-keras) that require tf-keras, or a Keras the
    installed Keras 3 does not satisfy while a Keras 2 would."""
    env = marker_env(s)
    out = keras2_users(s.packages)  # their TensorFlow code needs Keras 2, whatever their METADATA says
    for pkg in s.packages:
        if pkg.key in TENSORFLOW_DISTRIBUTIONS or pkg.key in ("tf-keras", "keras") or pkg.key in KERAS2_USERS:
            continue
        if not any("keras" in text.lower() for text in pkg.requires_dist):
            continue  # parsing every requirement of 150,000 packages is the slow part
        for req in applicable(pkg, env):
            key = canonicalize_name(req.name)
            if key == "tf-keras" or (key == "keras" and keras and keras.version
                                     and not req.specifier.contains(keras.version, prereleases=True)
                                     and req.specifier.contains("2.15.0")):
                out.append({"package": pkg.label, "requires": str(req)})
    return out


def _tf_keras_fits(tfk: PackageFacts, tf: PackageFacts, env: dict[str, str]) -> tuple[bool, str]:
    """Does the installed tf-keras accept this TensorFlow? By its own requirement on
    tensorflow when it has one, else by minor."""
    for req in applicable(tfk, env):
        if canonicalize_name(req.name) in TENSORFLOW_DISTRIBUTIONS:
            ok = satisfies(tf.version, req)
            return ok is not False, str(req)
    minor = release_minor(tf.version or "")
    return release_minor(tfk.version or "") == minor, f"same minor as TensorFlow ({minor})"


def keras3_before_2_16(s: Snapshot, tf: PackageFacts, keras: PackageFacts | None) -> KerasVerdict | None:
    """Keras 3 beside TensorFlow 2.6-2.15, whose tf.keras is the keras package itself, pinned to
    TensorFlow's own minor (keras<2.16,>=2.15.0 for 2.15): `pip install --upgrade keras` moves it
    to Keras 3, and TensorFlow's Keras 2 code and every Keras 2 user fail."""
    tv = parse_version(tf.version)
    if keras is None or not at_least(keras.version, "3") or tv is None or not (2, 6) <= (tv.major, tv.minor) < (2, 16):
        return None
    want = f"keras~={tv.major}.{tv.minor}.0"
    return KerasVerdict(
        Severity.ERROR,
        f"Keras {keras.version} is installed, but {tf.label} expects Keras 2: before 2.16 tf.keras is the "
        f"keras package itself, of TensorFlow's own minor ({want})",
        {"tensorflow": tf.label, "keras": keras.version, "keras_expected": want,
         "tensorflow_keras_rule": "TensorFlow 2.6-2.15 import tf.keras from the keras package and pin it to "
                                  "their own minor (their Requires-Dist)"},
        Remediation(f"Install the Keras of TensorFlow {tv.major}.{tv.minor} ({want}), or a TensorFlow 2.16+ "
                    "made for Keras 3", (pip(s, "install", want),), KERAS_GUIDE),
        explains=(codes.LOG_KERAS3_API, codes.RUNTIME_IMPORT_FAILED),
    )


def keras_expected(s: Snapshot, m: CompatMatrix | None, tf: PackageFacts) -> tuple[KerasVerdict | None, str]:
    """What compat.keras3 finds (None: nothing): for TensorFlow 2.16+, whether tf.keras is the
    Keras the environment expects; before 2.16, a Keras 3 where TensorFlow's own Keras 2 belongs;
    and the Keras part of compat.pins-ok's headline."""
    tv = parse_version(tf.version)
    minor = m.tf_minor(tf.version) if m else None
    keras_major = minor.keras_major if minor and minor.keras_major else (
        3 if tv and (tv.major, tv.minor) >= (2, 16) else 2)
    keras = s.package("keras")
    if keras_major != 3:
        return keras3_before_2_16(s, tf, keras), f"Keras {keras.version}" if keras else ""
    tfk = s.package("tf-keras")
    raw = s.env.get("TF_USE_LEGACY_KERAS") or None  # empty is as good as unset
    legacy = raw in LEGACY_TRUE
    deliberate_off = raw is not None and raw.strip().lower() in ("0", "false", "no", "off")
    env = marker_env(s)
    want = f"tf-keras~={release_minor(tf.version)}.0"
    dependents = _expects_keras2(s, keras)
    evidence: dict[str, Any] = {
        "tensorflow": tf.label, "keras": keras.version if keras else None,
        "tf_keras": tfk.version if tfk else None, "TF_USE_LEGACY_KERAS": raw,
        "expects_keras2": dependents,
        "tensorflow_keras_rule": "tf.keras is tf_keras only when TF_USE_LEGACY_KERAS is one of "
                                 f"{', '.join(LEGACY_TRUE)} and tf_keras imports; else Keras 3 "
                                 f"({LAZY_LOADER_SOURCE})",
        "keras_major_source": f"compat_matrix.json tensorflow.{minor.minor}.keras_major ({minor.source})"
                              if minor else "TensorFlow 2.16+ ships Keras 3",
    }
    keras_now = (f"tf.keras is Keras {keras.version}" if keras else "tf.keras is Keras 3 (TensorFlow 2.16+ "
                 "requires it; the report lists no keras)" if "packages" in s.unknown
                 else "tf.keras has no Keras to load (keras is not installed)")
    export = export_variable("TF_USE_LEGACY_KERAS", "1")
    persist = ([f"echo 'export TF_USE_LEGACY_KERAS=1' >> {shlex.quote(s.python.prefix + '/bin/activate')}"]
               if s.python and s.python.in_venv else [])
    if legacy and tfk is None:
        return KerasVerdict(
            Severity.ERROR,
            f"TF_USE_LEGACY_KERAS={raw} but tf-keras is not installed: tf.keras raises 'Keras cannot "
            "be imported'", evidence,
            Remediation(f"Install tf-keras for TensorFlow {release_minor(tf.version)} ({want}), or unset "
                        "TF_USE_LEGACY_KERAS to use Keras 3", (pip(s, "install", want),), KERAS_GUIDE),
            "TensorFlow logs 'Your environment has TF_USE_LEGACY_KERAS set to True, but you do not "
            "have the tf_keras package installed' and tf.keras then fails.",
        ), ""
    if tfk is not None:
        fits, rule = _tf_keras_fits(tfk, tf, env)
        evidence["tf_keras_requires"] = rule
        if legacy and not fits:
            return KerasVerdict(
                Severity.ERROR, f"tf-keras {tfk.version} does not fit {tf.label} ({rule})", evidence,
                Remediation(f"Install the tf-keras of TensorFlow's minor: {want}",
                            (pip(s, "install", want),), KERAS_GUIDE),
                "tf-keras is built for one TensorFlow minor; with another, tf.keras fails at import "
                "or on first use.",
                (codes.RUNTIME_IMPORT_FAILED,),
            ), ""
        if raw is None and "environment" in s.unknown:  # a report: the variable is unknown, not unset
            return None, f"tf-keras {tfk.version} (TF_USE_LEGACY_KERAS not known)"
        if not legacy and not deliberate_off:
            commands = ([pip(s, "install", want)] if not fits else []) + [export] + persist
            unset = (f"TF_USE_LEGACY_KERAS={raw} is not a value TensorFlow honours "
                     f"({', '.join(LEGACY_TRUE)})" if raw is not None else "TF_USE_LEGACY_KERAS is not set")
            return KerasVerdict(
                Severity.WARNING,
                f"tf-keras {tfk.version} is installed but {unset}: {keras_now}",
                evidence,
                Remediation("Set TF_USE_LEGACY_KERAS=1 so tf.keras is Keras 2 (tf-keras)"
                            + ("" if fits else f", and install {want}, the tf-keras of this TensorFlow")
                            + "; or uninstall tf-keras to use Keras 3", tuple(commands), KERAS_GUIDE),
                "tfdoctor read the variable from the environment it ran in; set it where your code runs.",
            ), ""
        if legacy:
            return None, f"Keras 2 through tf-keras {tfk.version} (TF_USE_LEGACY_KERAS={raw})"
    if dependents and not deliberate_off:
        names = ", ".join(d["package"] for d in dependents)
        return KerasVerdict(
            Severity.WARNING,
            f"{names} expect{'s' if len(dependents) == 1 else ''} Keras 2, but {keras_now}",
            evidence,
            Remediation(f"Install tf-keras ({want}) and set TF_USE_LEGACY_KERAS=1", (pip(s, "install", want, *(
                d["with"] for d in dependents if d.get("with"))), export, *persist), KERAS_GUIDE),
        ), ""
    if raw is not None and not legacy and not deliberate_off:
        return KerasVerdict(
            Severity.WARNING,
            f"TF_USE_LEGACY_KERAS={raw} is not a value TensorFlow honours (only {', '.join(LEGACY_TRUE)}): "
            f"{keras_now}",
            evidence,
            Remediation(f"Use TF_USE_LEGACY_KERAS=1 with tf-keras installed ({want}) for Keras 2, or "
                        "unset it for Keras 3", (pip(s, "install", want), export), KERAS_GUIDE),
        ), ""
    return None, f"tf.keras is Keras {keras.version}" if keras else ""


def tf_keras_pin(s: Snapshot, d: Derived) -> TfKerasPin | None:
    """The tf-keras of the installed TensorFlow's minor (keras_releases.tf_keras_requirement); None
    where TensorFlow's version or the matrix is unknown, or no tf-keras release fits it."""
    if not (d.matrix and d.tf_version):
        return None
    return keras_releases.tf_keras_requirement(d.matrix, d.tf_version, s.python.minor if s.python else None)


def unpinned_risk(pin: TfKerasPin) -> str:
    """Why the pin matters: what an unpinned tf-keras would do to this TensorFlow."""
    return "would replace TensorFlow" if pin.unpinned_moves_tensorflow else "may drift"


def keras2_asked_in_text(s: Snapshot, d: Derived) -> KerasVerdict | None:
    """compat.keras3 from the text where the tables cannot judge: a program's own check found Keras
    3 where it needs Keras 2 (KERAS2_ASKED). Not where this environment's Keras is 2, or has
    tf-keras: then the text came from another environment (log.keras3-api says so)."""
    asked = [m for m in matches_of(s, codes.LOG_KERAS3_API) if m.variant in KERAS2_ASKED]
    keras, major = installed_keras(s)
    if not asked or major == 2 or s.package("tf-keras") is not None:
        return None
    match = next((m for m in asked if KERAS2_ASKED[m.variant]), asked[0])
    who = KERAS2_ASKED[match.variant]
    has = f"Keras {keras or '3'} and no tf-keras" if who or major == 3 else "no tf-keras"
    title = (f"{who} need Keras 2 (tf-keras)" if who else "Keras 2 (tf-keras) is asked for") + (
        f", but this environment has {has}: the text's own check says so")
    pin = tf_keras_pin(s, d)
    facts: dict[str, Any] = {"keras": keras, "tensorflow": d.tf_version}
    if pin is not None:
        facts.update(tf_keras_requirement=pin.requirement, tf_keras_source=pin.source)
        fix = Remediation(f"Install {pin.requirement}, the tf-keras of TensorFlow {d.tf_version} (pinned: an "
                          f"unpinned tf-keras {unpinned_risk(pin)})",
                          (pip(s, "install", pin.requirement),), KERAS_GUIDE)
    elif d.tf_version:
        fix = Remediation(f"No tf-keras release matches TensorFlow {d.tf_version}: move to a TensorFlow that has "
                          "one (2.16 or later) and install its tf-keras", (), KERAS_GUIDE)
    else:
        fix = Remediation("Install the tf-keras of the installed TensorFlow's minor (tf-keras~=2.X.0 for "
                          "TensorFlow 2.X; the report does not state it, `pip show tensorflow` tells): an "
                          "unpinned tf-keras installs the newest TensorFlow with it",
                          (pip(s, "show", "tensorflow"),), KERAS_GUIDE)
    return KerasVerdict(Severity.ERROR, title, evidence(s, match, **facts), fix, explains=(codes.LOG_KERAS3_API,))
