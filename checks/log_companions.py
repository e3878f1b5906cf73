"""Ops of companion packages in a pasted log ("Op type not registered"): tensorflow-text,
tensorflow-addons, tensorflow-io and others define ops TensorFlow does not, so a model that uses
them loads only with the companion release built for the installed TensorFlow, imported first.
Which release that is, and whether PyPI has it for this Mac, is the rule's whole work.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.versions import at_least, same_release
from tfdoctor.knowledge import companions
from tfdoctor.knowledge.keras_releases import keras_requirement
from tfdoctor.model import Remediation, Severity, rule

TEXT_FIRST_ARM64_WHEEL = {"3.9": "2.17.0", "3.10": "2.17.0", "3.11": "2.17.0", "3.12": "2.18.1",
                          "3.13": "2.20.1"}
"""Python -> first tensorflow-text with a macOS arm64 wheel on PyPI (file names in
https://pypi.org/pypi/tensorflow-text/json, e.g. tensorflow_text-2.17.0-cp311-cp311-macosx_11_0_arm64.whl;
read 2026-11-23). Older releases have no Apple-silicon wheel (tensorflow/text#1128)."""
ADDONS_LAST = ("0.23.0", "2023-11-28", "https://pypi.org/pypi/tensorflow-addons/json (last release; "
               "macosx_11_0_arm64 wheels for cp39-cp311); development ended: https://github.com/tensorflow/addons")


@rule(codes.LOG_OP_NOT_REGISTERED, "An op of a companion package is not registered", Severity.ERROR,
      "Ops such as SentencepieceOp or RegexSplitWithOffsets live in tensorflow-text (Addons>... in "
      "tensorflow-addons, IO>... in tensorflow-io), not in TensorFlow: loading a model that uses "
      "them fails with 'Op type not registered' when the package is not installed, not imported "
      "before loading, or built for another TensorFlow (tensorflow/tensorflow#38597, "
      "tensorflow/text#261). tensorflow-text's versions follow TensorFlow's minors.",
      "Install the companion at the version matching the installed TensorFlow and import it "
      "before loading the model.", fix_answer=ABOUT_THE_LOG)
def op_not_registered(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_OP_NOT_REGISTERED):
        op, companion = match.fields.get("op", ""), match.fields.get("companion")
        minor = ".".join((d.tf_version or "").split(".")[:2])
        installed = s.package(companion) if companion else None
        facts: dict[str, Any] = {"tensorflow": d.tf_version, "companion": companion,
                                 "companion_installed": installed.version if installed else None}
        commands: list[str] = []
        code: list[str] = []
        python_minor = s.python.minor if s.python else ""
        if companion == "tensorflow-text" and minor:
            want = f"tensorflow-text~={minor}.0"
            first = TEXT_FIRST_ARM64_WHEEL.get(python_minor)
            facts.update(companion_requirement=want, first_arm64_wheel_for_this_python=first)
            if installed and installed.version and installed.version.startswith(minor + "."):
                text = (f"{op} is in tensorflow-text {installed.version}, which matches TensorFlow "
                        f"{d.tf_version}: import tensorflow_text before loading the model")
                code = ["import tensorflow_text  # registers its ops, before tf.saved_model.load"]
            else:
                now = f" (installed: {installed.version})" if installed else " (not installed)"
                text = f"{op} is a tensorflow-text op{now}: install {want} for TensorFlow {d.tf_version}"
                if d.apple_silicon and first and Version(f"{minor}.0") < Version(first):
                    text += (f"; PyPI has macOS arm64 tensorflow-text wheels for Python {python_minor} only "
                             f"from {first}, so on this Mac move to TensorFlow {first.rsplit('.', 1)[0]}+")
                commands = [pip(s, "install", want)]
                code = ["import tensorflow_text  # before loading the model"]
        elif companion == "tensorflow-addons":
            last, date, source = ADDONS_LAST
            facts.update(addons_last_release=last, addons_last_upload=date, addons_source=source)
            newer = bool(minor) and Version(f"{minor}.0") >= Version("2.16.0")
            text = (f"{op} is a tensorflow-addons op; tensorflow-addons ended with {last} ({date}), "
                    + (f"before TensorFlow {minor} existed: replace the addon (core Keras or KerasCV/KerasNLP)"
                       if newer else "install it and import tensorflow_addons before loading the model"))
            commands = [] if newer else [pip(s, "install", f"tensorflow-addons=={last}")]
        elif companion:
            text = f"{op} is a {companion} op: install the {companion} release built for TensorFlow {d.tf_version}"
            commands = [pip(s, "index", "versions", companion)]
        else:
            text = (f"{op} is not an op of this TensorFlow ({d.tf_version or 'unknown'}): the model was "
                    "saved by a newer TensorFlow or with a custom-op library; load it with that "
                    "version, or install the library that defines the op")
        out.append(op_not_registered.finding(evidence(s, match, **facts),
                                             Remediation(text, tuple(commands), code=tuple(code)),
                                             title=f"Op {op} not registered: {text}"))
    return out


INTERNAL_USE = ("imports-tensorflow-internal", "imports-tensorflow-internal-line", "tensorflow-internal-attribute")
PROBABILITY_ARG_SPECS = "probability-arg-specs"
KERAS_NEEDS_TENSORFLOW = "keras-needs-tensorflow"
_REPOSITORY = {"keras": "https://github.com/keras-team/keras", "tf-agents": "https://github.com/tensorflow/agents"}
"""Companions whose repository is not github.com/tensorflow/ and their name without `tensorflow-`."""
KERAS_BEFORE_WRAPPER = "2.3.1"
"""The last multi-backend Keras (2019-10), for a TensorFlow before 2.2: Keras 2.4 wraps tf.keras of 2.2+."""
INTERNALS_USERS = ("tensorflow-probability", "keras", "tf-keras", "tensorflow-addons", "tensorflow-text",
                   "tensorflow-io", "tensorflow-decision-forests", "tensorflow-model-optimization",
                   "tf-models-official", "tensorflow-hub")
"""Packages whose code imports TensorFlow's private tensorflow.python modules (TFP's backend,
Keras 2's engine, the custom-op loaders), so each release works with some TensorFlow minors only
(Keras 3 does not: it is named only at 2.x)."""
KERAS_SIDE = ("compat.v2", "__internal__")
"""Keras 2 reaches TensorFlow as `import tensorflow.compat.v2 as tf` and through tf.__internal__,
the API TensorFlow keeps for it: a missing name there is a Keras of another TensorFlow."""


def _internal_use(s: Snapshot, d: Derived, match):
    """"cannot import name X from tensorflow.python.M" or "module tensorflow.compat.v2.__internal__
    has no attribute X": the package that reached it (the traceback's frame says which; the
    installed candidates are named) was built for another TensorFlow, whose internals had X."""
    candidates = [p for p in map(s.package, INTERNALS_USERS)  # Keras 3 uses only TensorFlow's public API
                  if p is not None and not (p.key == "keras" and (p.version or "").startswith("3"))]
    internal, name = match.fields.get("internal", ""), match.fields.get("name")
    keras_side = any(part in internal for part in KERAS_SIDE)
    who = " or ".join(p.label for p in candidates) or (
        "Keras 2 (or a package built like it)" if keras_side else "a package that uses TensorFlow's internals")
    here = f"TensorFlow {d.tf_version}" if d.tf_version else "the installed TensorFlow"
    reached = (f"imports {name} from {internal}" if match.fields.get("fails") != "AttributeError"
               else f"uses {internal}.{name}")
    what = f"{who} {reached}, which {here} does not have"
    own_keras = keras_requirement(d.matrix, d.tf_version) if d.matrix is not None and d.tf_version else None
    commands = [pip(s, "index", "versions", p.key) for p in candidates[:1]]
    if keras_side and own_keras:
        text = (f"{what}: install the Keras made for {here}, its own pin (`{own_keras}`), or the TensorFlow "
                "that Keras was made for")
        commands = [pip(s, "install", own_keras)]
    elif keras_side:
        text = (f"{what}: keras 2.6 to 2.15 are each made for the TensorFlow of the same minor; install the "
                "keras of the installed TensorFlow's minor (`pip show tensorflow keras` names both: "
                "keras~=2.9.0 for TensorFlow 2.9), or the TensorFlow of the installed keras")
        commands = [pip(s, "show", "tensorflow", "keras")]
    else:
        text = (f"{what}: install the release of the importing package (the traceback's last frame before the "
                f"{match.fields.get('fails') or 'error'} names it) made for {here}, or the TensorFlow it was made for")
    return companion_mismatch.finding(
        evidence(s, match, tensorflow_here=d.tf_version, candidates=[p.label for p in candidates],
                 own_keras=own_keras),
        Remediation(text, tuple(commands)),
        title=f"{what}: it was built for another TensorFlow", severity=Severity.ERROR)


def _built_for(s: Snapshot, package: str) -> str | None:
    """The TensorFlow the installed release of a companion is built for (compat_matrix.json
    companion_pins), where its message names none."""
    installed = s.package(package)
    made = companions.built_for(package, installed.version) if installed and installed.version else None
    return str(made.tensorflow) if made else None


@rule(codes.LOG_COMPANION_MISMATCH, "A companion package says it was built for another TensorFlow",
      Severity.ERROR,
      "tensorflow-addons checks the TensorFlow it runs with and says so: 'TensorFlow Addons has "
      "compiled its custom ops against TensorFlow X' when its compiled ops meet another TensorFlow "
      "(segfaults or low-level errors follow), and 'Tensorflow Addons supports using Python ops "
      "for all Tensorflow versions above or equal to X and strictly below Y' when even its Python "
      "code is untested there (tensorflow/addons resource_loader.py and ensure_tf_install.py). "
      "TensorFlow Probability refuses to import below the TensorFlow it needs ('This version of "
      "TensorFlow Probability requires TensorFlow version >= 2.4; Detected an installation of "
      "version 2.3.0', its _ensure_tf_install): pip installs the newest release, and TFP's pins do "
      "not name TensorFlow; its twins of TensorFlow functions must take that TensorFlow's arguments, "
      "so another one fails its import too ('Arg specs do not match: original=FullArgSpec(...), "
      "new=FullArgSpec(...), fn=<function ones_like_v2>', its prefer_static). "
      "Python's 'cannot import name X from tensorflow.python.M' is a package "
      "(TFP, Keras 2, the custom-op loaders) importing internals another TensorFlow had; "
      "'module tensorflow.compat.v2.__internal__ has no attribute tf2' (or 'cannot import name "
      "dtensor from tensorflow.compat.v2.experimental') is Keras 2, which reaches TensorFlow through "
      "tf.compat.v2 and tf.__internal__, made for another TensorFlow (keras 2.6-2.15 each go with "
      "the TensorFlow of their minor). tensorflow-decision-forests says 'Failure to load the inference.so "
      "custom c++ tensorflow ops. This error is likely caused the version of TensorFlow and TensorFlow "
      "Decision Forests are not compatible' (the TensorFlow its release is built for: companion_pins). "
      "Keras 2.4, a wrapper of tf.keras, raises 'Keras requires TensorFlow 2.2 or higher' when "
      "TensorFlow 2.2's tf.keras does not import: an older TensorFlow (keras 2.3.1 is the last Keras "
      "of its own), or, where 2.2+ is installed, TensorFlow's own import failing. "
      "The companion's mismatch is the cause of what fails after it; "
      "tensorflow-addons itself ended with 0.23.0.",
      "Install the TensorFlow the warning names, or the companion release made for the installed "
      "TensorFlow; or drop tensorflow-addons (its layers and losses moved to Keras and TF-Text).",
      "https://github.com/tensorflow/addons", fix_answer=ABOUT_THE_LOG)
def companion_mismatch(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_COMPANION_MISMATCH):
        if match.variant in INTERNAL_USE:
            return _internal_use(s, d, match)
        package = match.fields.get("package", "tensorflow-addons")
        needs = match.fields.get("needs") or _built_for(s, package)
        printed = match.fields.get("tensorflow")
        here = d.tf_version
        if match.variant == KERAS_NEEDS_TENSORFLOW and at_least(here, needs.removeprefix(">=")):
            return companion_mismatch.finding(  # its check failed on a TensorFlow that does not import
                evidence(s, match, tensorflow_here=here),
                Remediation("Read the error printed before Keras': it says why TensorFlow did not import"),
                title=f"Keras could not import TensorFlow {here}, which is new enough for it: TensorFlow's "
                      f"own import failed", severity=Severity.INFO)
        if match.variant == PROBABILITY_ARG_SPECS:
            what = (f"{package}'s twin of {match.fields.get('function') or 'a TensorFlow function'} takes other "
                    f"arguments than {f'TensorFlow {here}' if here else 'the TensorFlow it ran with'}")
        elif match.fields.get("built_for"):
            what = (f"{package} compiled its custom ops against TensorFlow {match.fields['built_for']} "
                    f"and was loaded into {printed or here or 'another TensorFlow'}")
        else:
            what = f"{package} supports TensorFlow {needs or 'in another range'}; it ran with {printed or here or 'a TensorFlow whose version is not stated'}"
        last, date, _source = ADDONS_LAST
        if match.variant == PROBABILITY_ARG_SPECS:  # its release notes name the TensorFlow each release needs
            text = (f"Install the {package} release made for {f'TensorFlow {here}' if here else 'the installed TensorFlow'}"
                    f" (`pip show tensorflow` names it), or the TensorFlow this {package} was made for")
        elif match.variant == KERAS_NEEDS_TENSORFLOW:
            text = (f"{what}: install TensorFlow {needs}, or keras=={KERAS_BEFORE_WRAPPER} (the last Keras "
                    f"of its own) for {f'TensorFlow {here}' if here else 'an older TensorFlow'}")
        else:
            text = (f"{what}: install TensorFlow {needs}" if needs else what) + (
                f", or the {package} release made for TensorFlow {printed or here}" if printed or here else "")
        if package == "tensorflow-addons":
            text += f" ({package} ended with {last}, {date}; its features moved to Keras and TF-Text)"
        # compiled against another TensorFlow, or a version check that raises: the import failed
        severity = Severity.ERROR if match.fields.get("built_for") or match.fields.get("fails") else Severity.WARNING
        if printed and here and not same_release(printed, here):  # this environment's TensorFlow is another one
            severity = Severity.INFO
            what += f" (this environment has TensorFlow {here}: the text came from another environment)"
        return companion_mismatch.finding(
            evidence(s, match, tensorflow_here=here),
            Remediation(text, (), _REPOSITORY.get(package, f"https://github.com/tensorflow/{package.removeprefix('tensorflow-')}")),
            title=f"{what}: the companion is built for another TensorFlow", severity=severity)
    return None

