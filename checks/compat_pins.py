"""Are TensorFlow's own dependencies what it was built for? NumPy 2 under a TensorFlow built
against NumPy 1 (the published pins of some releases do not forbid it), anything outside the
installed TensorFlow's Requires-Dist (read from its METADATA, markers evaluated for the diagnosed
interpreter; or printed by pip, tfdoctor.advice.tensorflow_pins), and Keras 3 where the environment
expects Keras 2 (tf-keras, TF_USE_LEGACY_KERAS; judged in tfdoctor.advice.keras_expected)."""

from __future__ import annotations

from dataclasses import replace

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import GOAL_INSTALLED, NOTHING_WRONG
from tfdoctor.advice.fork_exit import plugin_era_way
from tfdoctor.advice.keras_expected import KERAS_GUIDE, keras2_asked_in_text, keras3_before_2_16, keras_expected
from tfdoctor.advice.log_evidence import matches_of
from tfdoctor.advice.printed_floors import PrintedFloor, printed_floors
from tfdoctor.advice.tensorflow_pins import pip_conflicts, tensorflow_pins
from tfdoctor.derived import Derived
from tfdoctor.derived.markers import satisfies
from tfdoctor.facts.snapshot import PackageFacts, Snapshot
from tfdoctor.facts.versions import parse_version, release_minor
from tfdoctor.knowledge.keras_releases import keras_requirement
from tfdoctor.knowledge.matrix import CompatMatrix
from tfdoctor.knowledge.records import PIN_NAMES
from tfdoctor.model import Finding, Remediation, Severity, rule

NUMPY2_GUIDE = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
NUMPY_QUIRK = "numpy-not-capped"
NUMPY2_FALLBACK_MINOR = "2.18"


# ---------------------------------------------------------------------------------------------
# TensorFlow's pins


def numpy2_first_minor(m: CompatMatrix | None) -> tuple[str, str]:
    """The first TensorFlow minor built against NumPy 2: the first whose numpy pin admits 2.0
    *and* has an upper bound (an uncapped pin such as 2.14.0's '>=1.23.5' says nothing about the
    build). Derived from the matrix; its known_quirks entry is the source."""
    quirk = next((q for q in m.quirks if q.id == NUMPY_QUIRK), None) if m else None
    source = (f"compat_matrix.json known_quirks {NUMPY_QUIRK} ({quirk.source})" if quirk
              else "tfdoctor's default (compat matrix unavailable)")
    if m is None:
        return NUMPY2_FALLBACK_MINOR, source
    for key in sorted(m.minors, key=Version):
        minor = m.minors[key]
        spec = m.tf_pins(minor.newest_patch).get("numpy")
        if not spec:
            continue
        pins = SpecifierSet(spec)
        capped = any(p.operator in ("<", "<=", "~=", "==") for p in pins)
        if capped and pins.contains("2.0.0"):
            return key, source
    return NUMPY2_FALLBACK_MINOR, source


def _numpy_fix(pin: Requirement | None) -> str:
    """A numpy requirement within TensorFlow's pin that excludes NumPy 2."""
    if pin is not None and not pin.specifier.contains("2.0.0"):
        return f"numpy{pin.specifier}"
    lower = [str(p) for p in (pin.specifier if pin else ()) if p.operator in (">=", ">")]
    return f"numpy{SpecifierSet(','.join(lower + ['<2']))}"


def _numpy_abi(s: Snapshot, m: CompatMatrix | None, tf: PackageFacts, pins: list[Requirement],
               pins_source: str) -> Finding | None:
    numpy: PackageFacts | PrintedFloor | None = s.package("numpy") or printed_floors(s).get("numpy")
    nv, tv = parse_version(numpy.version if numpy else None), parse_version(tf.version)
    if numpy is None or nv is None or tv is None or nv.major < 2:
        return None
    first, source = numpy2_first_minor(m)
    if Version(f"{tv.major}.{tv.minor}") >= Version(first):
        return None
    pin = next((r for r in pins if canonicalize_name(r.name) == "numpy"), None)
    forbids = pin is not None and not pin.specifier.contains(numpy.version, prereleases=True)
    fix = _numpy_fix(pin)
    evidence = {f"numpy{key.removeprefix('installed')}": value for key, value in _installed(numpy).items()}
    evidence |= {"tensorflow": tf.label,
                "numpy_pin": str(pin.specifier) if pin else None, "pin_forbids_it": forbids,
                "pins_source": pins_source, "numpy2_first_supported_by": f"TensorFlow {first}",
                "numpy2_source": source}
    note = "" if forbids else f" (its pin {pin.specifier if pin else '(none)'} does not forbid it)"
    return numpy_abi.finding(
        evidence,
        Remediation(f"Install NumPy 1.x ({fix}), or move to TensorFlow {first} or later, the first "
                    "built against NumPy 2", (pip(s, "install", fix),), NUMPY2_GUIDE),
        title=f"{numpy.label} with {tf.label}, which is built against NumPy 1.x{note}",
        detail="Importing it fails with 'A module that was compiled using NumPy 1.x cannot be run "
               "in NumPy 2.x', or crashes.")


_KERAS_EXPLAINS = (codes.RUNTIME_IMPORT_FAILED, codes.LOG_KERAS_REGISTERED_TWICE)
_EXPLAINS_BY_NAME = {"numpy": (codes.RUNTIME_NUMPY_ABI, codes.LOG_NUMPY_ABI), "keras": _KERAS_EXPLAINS, "keras-nightly":
                     _KERAS_EXPLAINS, "protobuf": (codes.RUNTIME_PROTOBUF, codes.LOG_PROTOBUF_DESCRIPTORS, codes.LOG_PROTOBUF_TOO_OLD)}


def _keras_of_the_minor(s: Snapshot, d: Derived, pins: list[Requirement], source: str) -> tuple[list[Requirement], str]:
    """The pins, keras narrowed to TensorFlow's own minor (keras~=2.6.0) where a published pin let another
    in: keras 2.6-2.15 follow TensorFlow's minors, and 2.6.0-2.6.1's keras~=2.6 admitted 2.7, which fails."""
    keras, tf = s.package("keras"), d.tensorflow.version
    published = next((r for r in pins if canonicalize_name(r.name) == "keras"), None)
    if keras is None or not keras.version or d.matrix is None or (
            published is not None and satisfies(keras.version, published) is False):
        return pins, source  # nothing to hold, or the published pin says it
    want = keras_requirement(d.matrix, tf, s.python.minor if s.python else None) or ""
    if not want.startswith("keras~=") or satisfies(keras.version, Requirement(want)) is not False:
        return pins, source  # none before 2.6; from 2.16 tf-keras, not one of TensorFlow's pins
    why = ("the log shows two Kerases registering a metric" if matches_of(s, codes.LOG_KERAS_REGISTERED_TWICE) else
           "keras 2.6-2.15 follow TensorFlow's minors, and 2.6.2 closed 2.6.0's keras~=2.6, which let keras 2.7 in")
    narrowed = [r for r in pins if canonicalize_name(r.name) != "keras"] + [Requirement(want)]
    return narrowed, f"{source}; keras narrowed to {want}, TensorFlow {release_minor(tf)}'s own: {why}"


def _pin_violations(s: Snapshot, tf: PackageFacts, pins: list[Requirement], pins_source: str,
                    skip: set[str], observed: dict[str, PackageFacts]) -> Finding | None:
    bad: list[tuple[str, PackageFacts | PrintedFloor, Requirement]] = []
    printed = printed_floors(s)
    for req in pins:
        key = canonicalize_name(req.name)
        if key in skip or not str(req.specifier):
            continue
        installed = s.package(key) or observed.get(key)
        if installed is not None and satisfies(installed.version, req) is False:
            bad.append((key, installed, req))
        elif installed is None and key in printed and printed[key].meets(req) is False:
            bad.append((key, printed[key], req))
    if not bad:
        return None
    core = [b for b in bad if b[0] in PIN_NAMES]
    severity = Severity.ERROR if core else Severity.WARNING
    wanted = [f"{key}{req.specifier}" for key, _, req in bad]
    listed = ", ".join(f"{p.label} (wants {req.specifier})" for _, p, req in bad)
    if len(bad) == 1:
        key, p, req = bad[0]
        title = f"{p.label} is outside {tf.label}'s pin {key}{req.specifier}"
    else:
        title = f"{len(bad)} installed packages are outside {tf.label}'s pins: {listed}"
    explains = tuple(dict.fromkeys([c for key, _, _ in bad
                                    for c in _EXPLAINS_BY_NAME.get(key, (codes.RUNTIME_IMPORT_FAILED,))]
                                   + [codes.LOG_PIP_CONFLICT]))
    evidence = {"tensorflow": tf.label, "pins_source": pins_source,
                "violations": [{"name": p.name, "required": str(req.specifier),
                                "requirement": str(req)} | _installed(p) for _, p, req in bad]}
    return pin_violation.finding(
        evidence, Remediation(f"Install what {tf.label} requires: {', '.join(wanted)}",
                              (pip(s, "install", *wanted),)),
        title=title, severity=severity, explains=explains)


def _installed(installed: PackageFacts | PrintedFloor) -> dict[str, object]:
    """The installed version as evidence; a floor the log proves says so, with the line it is read from."""
    if not isinstance(installed, PrintedFloor):
        return {"installed": installed.version}
    return {"installed": f">={installed.version}", "installed_read_from_log_line": installed.line}


# ---------------------------------------------------------------------------------------------
# the rules


def _pins(s: Snapshot, d: Derived) -> tuple[list[Requirement], str]:
    return d.once("compat.pins", lambda: _with_pips_word(s, d, *tensorflow_pins(s, d.tensorflow, d.matrix)))


def _with_pips_word(s: Snapshot, d: Derived, pins: list[Requirement], source: str) -> tuple[list[Requirement], str]:
    """The pins, with those pip printed for this TensorFlow where they name a package the others do not."""
    named = {canonicalize_name(r.name) for r in pins}
    printed = [r for r in pip_conflicts(s, d)[0] if canonicalize_name(r.name) not in named]
    if not printed:
        return pins, source
    return pins + printed, f"{source}; pip's own conflict lines for {', '.join(sorted({r.name for r in printed}))}"


def _judged(d: Derived) -> bool:
    return d.tensorflow is not None and bool(d.tensorflow.version)  # else the install rules say why


@rule(codes.COMPAT_NUMPY_ABI, "NumPy 2 with a TensorFlow built against NumPy 1",
      Severity.ERROR,
      "Compiled extensions built against NumPy 1.x cannot run under NumPy 2.x: importing "
      "TensorFlow fails with 'A module that was compiled using NumPy 1.x cannot be run in "
      "NumPy 2.x' or crashes. TensorFlow is built against NumPy 2 from 2.18 on. The published "
      "pins of some older releases (tensorflow-macos 2.7-2.11, 2.14.0) set no upper bound, "
      "so pip installs NumPy 2 beside them without a word. Where the NumPy is not listed, NumPy's error for a name "
      "NumPy 2.0 removed ('`np.string_` was removed in the NumPy 2.0 release') proves a NumPy 2.",
      "Install a NumPy 1.x within TensorFlow's pin (the finding gives the command), or move to "
      "TensorFlow 2.18 or later.",
      NUMPY2_GUIDE,
      explains=(codes.RUNTIME_NUMPY_ABI, codes.RUNTIME_IMPORT_FAILED, codes.RUNTIME_IMPORT_CRASHED,
                codes.LOG_NUMPY_ABI),
      needs=("python",), fix_answer=GOAL_INSTALLED)
def numpy_abi(s: Snapshot, d: Derived):
    if not _judged(d):
        return None
    pins, source = _pins(s, d)
    return _numpy_abi(s, d.matrix, d.tensorflow, pins, source)


@rule(codes.COMPAT_PIN_VIOLATION, "An installed dependency is outside TensorFlow's own pins",
      Severity.ERROR,
      "The installed TensorFlow's Requires-Dist (its METADATA, markers evaluated for this "
      "interpreter; tfdoctor's matrix when the metadata is missing) allows a range of numpy, "
      "keras, protobuf, h5py and ml-dtypes (and its other dependencies), and the installed "
      "version is outside it: another package or a later `pip install` moved it. Outside the "
      "pins TensorFlow fails in ways such as protobuf's 'Descriptors cannot be created "
      "directly' or NumPy's API-version error. Error for those five, warning for the others. "
      "Where the Python is not known (a report), only the matrix's pins common to every Python are held against "
      "the installed versions. keras 2.6-2.15 must be TensorFlow's own minor: 2.6.0-2.6.1's keras~=2.6 let keras 2.7 "
      "in, which fails under 2.6 (tensorflow/tensorflow#52937; 2.6.2 added the upper bound); a log of two Kerases "
      "registering one metric (log.keras-registered-twice) shows it. pip's own conflict line after an install "
      "('tensorflow 2.2.1 has requirement numpy<1.19.0,>=1.16.0, but you'll have numpy 1.19.0', log.pip-conflict) "
      "is the pin and the version observed. Where the NumPy is not listed, NumPy's own error for a name it removed "
      "(\"module 'numpy' has no attribute 'object'\", printed from 1.24 on) proves it is that release or later: "
      "outside a pin such as TensorFlow 2.6's numpy~=1.19.2.",
      "Install versions inside the pins (the finding gives the pip command built from them); for "
      "Apple's ML Compute fork on Apple silicon, whose installer brought its own wheels of its pins, "
      "leave the fork for the plugin era.",
      fix_answer=GOAL_INSTALLED)
def pin_violation(s: Snapshot, d: Derived):
    if not _judged(d):
        return None
    pins, source = _keras_of_the_minor(s, d, *_pins(s, d))
    numpy = _numpy_abi(s, d.matrix, d.tensorflow, pins, source)  # reported by its own rule
    keras3 = keras3_before_2_16(s, d.tensorflow, s.package("keras"))  # compat.keras3 names it
    skip = ({"numpy"} if numpy else set()) | ({"keras"} if keras3 else set())
    found = _pin_violations(s, d.tensorflow, pins, source, skip, pip_conflicts(s, d)[1])
    if found is not None and d.fork and s.host.hw_arm64 is not False:
        # its installer brought arm64 wheels of its pins (numpy 1.19, h5py 2.10); PyPI has none
        way = plugin_era_way(s, d, d.tensorflow.label)[0]
        found = replace(found, remediation=replace(way, text=(
            "pip cannot restore the fork's pins on Apple silicon (PyPI has no arm64 wheels of them; the "
            f"fork's installer brought its own). {way.text}")))
    return found


@rule(codes.COMPAT_KERAS3, "Keras 3 where the environment expects Keras 2",
      Severity.ERROR,
      "TensorFlow 2.16+ ships Keras 3 as tf.keras. Keras 2 stays available only through the tf-keras package *and* "
      "TF_USE_LEGACY_KERAS set to 1, true or True (the only values TensorFlow honours). tf-keras installed without "
      "the variable leaves tf.keras on Keras 3 (warning); the variable without tf-keras makes tf.keras raise 'Keras "
      "cannot be imported' (error); a tf-keras of another minor than TensorFlow breaks its own pin. A package whose "
      "TensorFlow code needs Keras 2 (tf-keras required, or tensorflow-probability: Keras 2 only) is a warning. "
      "A report does not show the environment: there the variable is unknown, not unset. Before 2.16 "
      "tf.keras is the keras package itself, pinned to TensorFlow's own minor (2.6-2.15): a Keras 3 there "
      "(`pip install --upgrade keras`) is an error, named here rather than as a pin violation. Where the "
      "tables cannot judge (a report that does not state TensorFlow), a program's own check in the "
      "text says it: transformers' 'Your currently installed version of Keras is Keras 3', a "
      "package's 'this requires tf-keras package', 'No module named tf_keras' (an error, explaining "
      "log.keras3-api; not where the Keras listed is 2 or tf-keras is listed).",
      "Install tf-keras of TensorFlow's minor (tf-keras~=2.19.0 for 2.19) and export "
      "TF_USE_LEGACY_KERAS=1, or drop both and use Keras 3; before 2.16, the keras of TensorFlow's "
      "minor (keras~=2.15.0 for 2.15).",
      KERAS_GUIDE, explains=(codes.LOG_KERAS3_API,), fix_answer=GOAL_INSTALLED)
def keras3(s: Snapshot, d: Derived):
    verdict = keras_expected(s, d.matrix, d.tensorflow)[0] if _judged(d) else None
    if verdict is None:
        verdict = keras2_asked_in_text(s, d)
    if verdict is None:
        return None
    return keras3.finding(verdict.evidence, verdict.fix, title=verdict.title, detail=verdict.detail,
                          severity=verdict.severity, explains=verdict.explains)


@rule(codes.COMPAT_PINS_OK, "TensorFlow's dependencies are within its pins",
      Severity.OK,
      "numpy, keras, protobuf, h5py, ml-dtypes and the other installed requirements of "
      "TensorFlow meet its Requires-Dist, NumPy matches the NumPy TensorFlow was built "
      "against, and tf.keras resolves to the Keras the environment expects.",
      "Nothing to do.", needs=("python",), summary=True, fix_answer=NOTHING_WRONG)
def pins_ok(s: Snapshot, d: Derived):
    if not _judged(d):
        return None
    tf = d.tensorflow
    pins, pins_source = _pins(s, d)
    keras_note = keras_expected(s, d.matrix, tf)[1]
    held = [p.label for p in (s.package(r.name) for r in pins)
            if p is not None and canonicalize_name(p.key) in PIN_NAMES]
    title = f"{tf.label}'s pins hold" + (f": {', '.join(held)}" if held else "")
    if keras_note:
        title += f"; {keras_note}"
    return pins_ok.finding(
        {"tensorflow": tf.label, "pins_source": pins_source,
         "pins": [str(r) for r in pins if canonicalize_name(r.name) in PIN_NAMES]}, title=title)
