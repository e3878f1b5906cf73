"""NumPy, h5py, Keras and pip's conflict errors in a pasted log, judged by what is installed:
TensorFlow's pins say which NumPy or Keras it needs, the installed version says whether this
environment can have printed the message, and where the pin already fits, the failing module is
another package's. (protobuf's errors: log_protobuf.py.)

The message alone would always blame TensorFlow; the environment can show it was not (issue 19:
what tfdoctor observed outranks what it read). Where compat.numpy-abi or compat.pin-violation
finds the same pin broken from the environment, that finding is the root and explains these.
"""

from __future__ import annotations

from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tfdoctor import codes
from tfdoctor.advice.commands import WHICH_PYTHON, pip, printed_elsewhere, python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import listing_read, tf_requirement
from tfdoctor.advice.log_evidence import evidence, matches_of, names_tensorflow
from tfdoctor.advice.printed_floors import REMOVED_NAME
from tfdoctor.advice.tensorflow_pins import about
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot
from tfdoctor.facts.versions import allows, at_least, below
from tfdoctor.knowledge.keras_releases import keras_requirement
from tfdoctor.logtext.importing import NUMPY_BEFORE_1_16, NUMPY_MULTIARRAY
from tfdoctor.model import Remediation, Severity, rule

NUMPY2_GUIDE = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
NUMPY_120_ISSUE = "https://github.com/tensorflow/tensorflow/issues/47691"
"""'Numpy v1.20+ compatibility': 'Cannot convert a symbolic Tensor' building an LSTM with TensorFlow
2.4 under NumPy 1.20+ (array_ops._constant_if_small's np.prod)."""


@rule(codes.LOG_NUMPY_ABI, "A module was built for another NumPy", Severity.ERROR,
      "Compiled modules built against NumPy 1.x cannot run under NumPy 2 ('A module that was "
      "compiled using NumPy 1.x cannot be run in NumPy 2.0.0', '_ARRAY_API not found'); TensorFlow "
      "is built against NumPy 2 only from 2.18. A module built for a newer NumPy C API fails on an "
      "older NumPy ('module compiled against API version 0xf but this version of numpy is 0xe'; "
      "before NumPy 1.16, \"No module named 'numpy.core._multiarray_umath'\", the extension 1.16 "
      "added). "
      "A NumPy 2 message where NumPy 1.x is installed came from another environment (information). "
      "TensorFlow's own 'Cannot convert a symbolic Tensor (...) to a numpy array' is NumPy 1.20+ under "
      "a TensorFlow before 2.7, whose np.prod on layer shapes (LSTM, random layers) NumPy then "
      "converts (tensorflow/tensorflow#47691); with NumPy before 1.20 or TensorFlow 2.7+ installed, "
      "the code itself passed a symbolic tensor to NumPy (information). NumPy's own AttributeError for a "
      "name it removed (1.24: the builtin aliases, np.object; 2.0: np.string_, np.float_) in TensorFlow's, "
      "TensorBoard's or Keras' own frame is a NumPy newer than that code.",
      "Install the NumPy the installed TensorFlow allows (the finding names the requirement).",
      NUMPY2_GUIDE, fix_answer=ABOUT_THE_LOG)
def numpy_abi(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_NUMPY_ABI)
    if not matches:
        return None
    match = matches[0]
    if match.variant == "symbolic-tensor-to-numpy":  # TensorFlow's own message: it names TensorFlow
        return _symbolic_tensor(s, d, match)
    if match.variant in REMOVED_NAME:
        return _removed_name(s, d, match)
    if d.tf_main is None and not names_tensorflow(s):
        text = ("NumPy's ABI message in a text that never names TensorFlow, where no TensorFlow is "
                "known: the module built for another NumPy is another project's (the traceback names it)")
        return numpy_abi.finding(evidence(s, match), Remediation(text + ". Upgrade that module or pin "
                                                                 "NumPy for it", (), NUMPY2_GUIDE),
                                 title=text, severity=Severity.INFO)
    numpy = s.package("numpy")
    spec = tf_requirement(s, d, "numpy")
    f = match.fields
    newer_struct = f.get("expected", "0").isdigit() and f.get("got", "0").isdigit() and \
        int(f.get("expected", "0")) > int(f.get("got", "0"))
    facts = {"numpy": numpy.version if numpy else None, "numpy_allowed_by_tensorflow": spec,
             "tensorflow": d.tf_version}
    if match.variant in BFLOAT16:
        return _bfloat16(s, d, match, numpy, spec, facts)
    if match.variant == NUMPY_BEFORE_1_16 and numpy and numpy.version and at_least(numpy.version, "1.16"):
        text = (f"the NumPy imported is older than 1.16 (it has no numpy.core._multiarray_umath), but NumPy "
                f"{numpy.version} is installed here: an older NumPy from another environment, such as "
                "~/.local or PYTHONPATH, is imported first")
        return numpy_abi.finding(evidence(s, match, **facts), Remediation(
            text, (_numpy_imported(s),), NUMPY2_GUIDE),
            title=text)
    elif match.variant in ("numpy-api-version", NUMPY_BEFORE_1_16) or newer_struct:
        floor = ">=1.16" if match.variant == NUMPY_BEFORE_1_16 else ""
        cap = "<2" if d.tf_version and below(d.tf_version, "2.18") and "<" not in (spec or "") else ""
        req = "numpy" + ",".join(part for part in (spec, floor, cap) if part)  # TensorFlow before 2.18: NumPy 1.x
        built = (f"C API ({f['compiled']})" if f.get("compiled")
                 else "(1.16 or later: it imports numpy.core._multiarray_umath)" if match.variant == NUMPY_BEFORE_1_16
                 else f"({f.get('what', 'numpy.dtype')} of {f.get('expected')} bytes, not {f.get('got')})")
        text = (f"a module needs a newer NumPy {built} than NumPy "
                f"{numpy.version if numpy else ''} provides: upgrade NumPy within TensorFlow's pin ({req})")
        if not numpy and match.variant == NUMPY_BEFORE_1_16:
            text += " (or, where a newer one is installed, an older NumPy from ~/.local or PYTHONPATH is imported first)"
        args = ("install", "--upgrade", req)
    elif match.variant == NUMPY_MULTIARRAY and not (numpy and at_least(numpy.version, "2")):
        return _c_api_not_imported(s, d, match, numpy, spec, facts)
    elif numpy and below(numpy.version, "2"):  # the message is NumPy 2's: observed beats read
        text = (f"the message comes from a NumPy 2, but this environment has NumPy {numpy.version}: "
                "another environment printed it")
        return numpy_abi.finding(evidence(s, match, **facts),
                                 printed_elsewhere(text, "numpy", NUMPY2_GUIDE),
                                 title=text, severity=Severity.INFO)
    elif at_least(d.tf_version, "2.18"):
        text = (f"TensorFlow {d.tf_version} is built for NumPy 2 (from 2.18); another compiled module "
                f"in the traceback was built for NumPy 1.x: upgrade that module, or install numpy<2 "
                f"(TensorFlow allows numpy{spec or ''})")
        args = ("install", "numpy<2")
    else:
        req = f"numpy{spec}" if spec and "<" in spec and not spec.startswith(">=2") else "numpy<2"
        if not spec or "<2" not in req.replace(" ", ""):
            req = "numpy<2"
        text = (f"NumPy {numpy.version if numpy else '2.x'} is installed but TensorFlow "
                f"{d.tf_version or ''} was built for NumPy 1.x (NumPy 2 needs TensorFlow 2.18+): "
                f"install {req}")
        args = ("install", req)
    return numpy_abi.finding(evidence(s, match, **facts),
                             Remediation(text.replace("  ", " "), (pip(s, *args),), NUMPY2_GUIDE),
                             title=text.replace("  ", " "))


def _numpy_imported(s: Snapshot) -> str:
    """The command that shows which NumPy the diagnosed Python imports, and from where."""
    return f'{python_cmd(s)} -c "import numpy; print(numpy.__version__, numpy.__file__)"'


def _c_api_not_imported(s: Snapshot, d: Derived, match: Any, numpy: Any, spec: str | None, facts: dict[str, Any]):
    """NumPy 1.x's "numpy.core.multiarray failed to import" without the line that says why, where
    no NumPy 2 is installed: the NumPy imported is older than the module's (an old one installed, or
    one from another environment imported first, tensorflow/tensorflow#559), or a NumPy 2 not known
    here. NumPy 1.x within TensorFlow's pin, at its newest, fits either way."""
    cap = "<2" if "<" not in (spec or "") else ""
    req = "numpy" + ",".join(part for part in (spec, cap) if part)
    text = ("a module built against NumPy 1.x could not import NumPy's C API (numpy.core.multiarray failed "
            f"to import): install the newest NumPy TensorFlow allows below 2 ({req})")
    commands = [pip(s, "install", "--upgrade", req)]
    if numpy and numpy.version:
        text += (f"; NumPy {numpy.version} is installed here, so if it already fits, an older NumPy from "
                 "another environment, such as ~/.local or PYTHONPATH, is imported first")
        commands.append(_numpy_imported(s))
    return numpy_abi.finding(evidence(s, match, **facts), Remediation(text, tuple(commands), NUMPY2_GUIDE),
                             title=text)


BFLOAT16 = ("numpy-bfloat16-handle", "numpy-bfloat16-check")
"""TensorFlow's own bfloat16 type, made by its compiled code with NumPy's C API, failing."""


def _bfloat16(s: Snapshot, d: Derived, match: Any, numpy: Any, spec: str | None, facts: dict[str, Any]):
    """TensorFlow's compiled code and the NumPy it found were built for different NumPys: NumPy 2
    under a TensorFlow before 2.18, or a NumPy (or TensorFlow) from another environment."""
    which = f"TensorFlow {d.tf_version}" if d.tf_version else "TensorFlow"
    text = (f"{which}'s compiled code could not make its bfloat16 type with NumPy "
            f"{numpy.version if numpy else '(version not stated)'}: they were built for different NumPys")
    if numpy and at_least(numpy.version, "2") and not at_least(d.tf_version, "2.18"):
        text += " (NumPy 2 under a TensorFlow built for NumPy 1.x)"
    else:
        text += " (a NumPy or TensorFlow from another environment, such as ~/.local, or one installed over the other)"
    if spec:
        text += f": reinstall NumPy within TensorFlow's pin (numpy{spec})"
        commands = (pip(s, "install", "--force-reinstall", f"numpy{spec}"),)
    else:
        text += ": reinstall the NumPy TensorFlow's pin names (`pip check` prints it)"
        commands = (pip(s, "check"),)
    return numpy_abi.finding(evidence(s, match, **facts), Remediation(text, commands, NUMPY2_GUIDE), title=text)


def _removed_name(s: Snapshot, d: Derived, match: Any):
    """TensorFlow's (TensorBoard's, Keras') own code used a NumPy name the installed NumPy removed:
    a NumPy newer than that release; one older than the removal cannot have printed it."""
    name, since = match.fields.get("name", ""), match.fields.get("removed_in", "2.0")
    numpy, spec = s.package("numpy"), tf_requirement(s, d, "numpy")
    base = s.package("numpy-base")  # conda's package that holds NumPy's files, beside pip's numpy
    base_version = base.version if base else None
    facts = {"numpy": numpy.version if numpy else None, "numpy_allowed_by_tensorflow": spec,
             "tensorflow": d.tf_version, "removed_name": f"np.{name}", "removed_in": since}
    if base_version:
        facts["numpy_base"] = base_version
    if numpy and below(numpy.version, since) and not (base_version and not below(base_version, since)):
        text = f"NumPy {since} removed np.{name}, but this environment has NumPy {numpy.version}: another environment printed it"
        return numpy_abi.finding(evidence(s, match, **facts), Remediation(
            text, (WHICH_PYTHON.format(module="numpy"),), NUMPY2_GUIDE), title=text, severity=Severity.INFO)
    allowed = f" (TensorFlow {d.tf_version} allows numpy{spec})" if spec and d.tf_version else ""
    mixed = bool(numpy and base_version and numpy.version != base_version)
    text = (f"TensorFlow's own code (or TensorBoard's, Keras') uses np.{name}, which NumPy {since} removed"
            + (f" (conda's numpy-base {base_version} and pip's numpy {numpy.version} are installed over each "
               f"other, and the NumPy imported is {since} or later)" if mixed and numpy else "")
            + f": install numpy<{since}{allowed}, or a TensorFlow made after NumPy {since}")
    command = pip(s, "install", *(("--force-reinstall",) if mixed else ()), f"numpy<{since}")  # pip's files over conda's
    return numpy_abi.finding(evidence(s, match, **facts), Remediation(text, (command,), NUMPY2_GUIDE), title=text)


def _symbolic_tensor(s: Snapshot, d: Derived, match: Any):
    """TensorFlow before 2.7 under NumPy 1.20+ (its np.prod on a shape holding a symbolic tensor),
    unless the installed versions rule it out: then the code itself passed one to NumPy."""
    numpy = s.package("numpy")
    spec = tf_requirement(s, d, "numpy")
    tensor = match.fields.get("tensor", "a symbolic tensor")
    facts = {"numpy": numpy.version if numpy else None, "numpy_allowed_by_tensorflow": spec,
             "tensorflow": d.tf_version, "tensor": tensor}
    old_numpy = numpy is not None and below(numpy.version, "1.20")
    if old_numpy or at_least(d.tf_version, "2.7"):
        why = (f"NumPy {numpy.version} predates 1.20" if old_numpy
               else f"TensorFlow {d.tf_version} no longer hands symbolic shapes to NumPy")
        text = (f"{why}: the code passes the symbolic tensor {tensor} to a NumPy call (the traceback's "
                "last frame of the code names it)")
        return numpy_abi.finding(evidence(s, match, **facts), Remediation(
            text + ". Use TensorFlow's ops on it (tf.shape, tf.reduce_prod) instead of NumPy's"),
            title=text, severity=Severity.INFO)
    req = f"numpy{spec}" if spec and not allows(spec, "1.20.0") else "numpy<1.20"
    newer_python = at_least(s.python.minor if s.python else None, "3.10")  # NumPy 1.19 has no wheels for it
    way = "install TensorFlow 2.7 or later (NumPy before 1.20 has no wheels for this Python)" if newer_python \
        else f"install {req}, or TensorFlow 2.7 or later"
    broken = numpy is not None and bool(spec) and not allows(spec, numpy.version)  # its own pin, observed
    said = (f"NumPy {numpy.version} is newer than TensorFlow {d.tf_version} allows (numpy{spec})" if broken
            else f"the symbolic tensor {tensor} reached NumPy")
    text = (f"{said}: TensorFlow before 2.7 hands symbolic shapes to np.prod (LSTM and random layers), "
            f"which NumPy 1.20+ converts and TensorFlow refuses: {way}")
    commands = (pip(s, "install", "tensorflow>=2.7") if newer_python else pip(s, "install", req),)
    return numpy_abi.finding(evidence(s, match, **facts), Remediation(text, commands, NUMPY_120_ISSUE),
                             title=text, severity=Severity.ERROR if broken else Severity.WARNING)


H5PY_3 = "https://docs.h5py.org/en/stable/whatsnew/3.0.html#breaking-changes-deprecations"


@rule(codes.LOG_H5PY_TOO_NEW, "h5py 3 with a Keras that reads HDF5 attributes as bytes",
      Severity.ERROR,
      "h5py 3.0 (November 2020) returns an HDF5 file's string attributes as str, not bytes. "
      "Keras' HDF5 loader before TensorFlow 2.5 (tf.keras's hdf5_format.py, standalone Keras "
      "2.3 and older) decodes them ('f.attrs['keras_version'].decode('utf8')'), so loading "
      "an .h5 model or weights fails with \"'str' object has no attribute 'decode'\". TensorFlow "
      "2.2-2.4 pin h5py 2.10 and 2.5 moved to h5py 3.1 (their wheels' METADATA); older "
      "releases and standalone Keras pin nothing, so pip installs h5py 3 beside them. An h5py "
      "older than 3 installed here cannot print it (information).",
      "Install h5py below 3 (2.10.0) beside that Keras, or move to TensorFlow 2.5 or later "
      "(tf.keras), whose loader reads str attributes.", H5PY_3, fix_answer=ABOUT_THE_LOG)
def h5py_too_new(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_H5PY_TOO_NEW):
        h5py = s.package("h5py")
        facts = {"h5py": h5py.version if h5py else None, "tensorflow": d.tf_version}
        if h5py and below(h5py.version, "3"):
            text = (f"the failing loader ran with h5py 3 or later, but this environment has h5py "
                    f"{h5py.version}: another environment printed it")
            return h5py_too_new.finding(evidence(s, match, **facts), Remediation(
                text, (WHICH_PYTHON.format(module="h5py"),), H5PY_3), title=text, severity=Severity.INFO)
        text = (f"h5py {h5py.version if h5py else '3'} returns the .h5 file's attributes as str and this "
                "Keras (before TensorFlow 2.5) decodes bytes: install h5py<3 beside it, or move to "
                "TensorFlow 2.5 or later")
        return h5py_too_new.finding(evidence(s, match, **facts),
                                    Remediation(text, (pip(s, "install", "h5py<3"),), H5PY_3), title=text)
    return None


KERAS_VERSIONS = "https://github.com/tensorflow/tensorflow/issues/52937"
"""TensorFlow 2.6.0 with keras 2.7.0 (pulled in by TensorFlow's own pin keras~=2.6): importing
tf.keras raises AlreadyExistsError (keras-team/keras#15585; the fix: keras of TensorFlow's minor)."""
KERAS_COPIES = ("keras", "tf-keras", "keras-nightly")


def _own_keras(s: Snapshot, d: Derived, want: Requirement, keras: Any) -> bool:
    """Whether an installed Keras is TensorFlow's own: the release `want` names, or from 2.16
    (where `want` is tf-keras) the Keras 3 TensorFlow's pin allows, which is tf.keras there."""
    if keras.key == canonicalize_name(want.name):
        return want.specifier.contains(keras.version, prereleases=True)
    if keras.key == "keras" and canonicalize_name(want.name) == "tf-keras":
        return allows(tf_requirement(s, d, "keras") or ">=3", keras.version)
    return False


@rule(codes.LOG_KERAS_REGISTERED_TWICE, "Two copies of Keras registered the same metric",
      Severity.ERROR,
      "TensorFlow's monitoring registry refuses a second metric of one name: 'Cannot register 2 "
      "metrics with the same name: /tensorflow/api/keras/optimizers' (collection_registry.cc), "
      "then 'AlreadyExistsError: Another metric with the same name already exists' (a notebook's "
      "traceback cut before that message still says it: IPython's AlreadyExistsError header over a "
      "Keras module running at import). Keras creates its metrics when imported, so two copies of "
      "Keras's code in one process, a `keras` (or keras-nightly, tf-keras) of another version than "
      "the installed TensorFlow's own, collide. "
      "TensorFlow 2.6.0's pin keras~=2.6 let pip install keras 2.7 beside it (tensorflow/tensorflow"
      "#52937, keras-team/keras#15585). Where the installed versions are known, compat.pin-violation "
      "says which is out of place; where they are not, this finding names the cause.",
      "Install the Keras of the installed TensorFlow's minor (keras~=2.6.0 for 2.6; tf-keras~=X.Y.0 "
      "from 2.16) and uninstall other copies (keras-nightly, a tf-keras of another minor).",
      KERAS_VERSIONS, fix_answer=ABOUT_THE_LOG)
def keras_registered_twice(s: Snapshot, d: Derived):
    match = next(iter(matches_of(s, codes.LOG_KERAS_REGISTERED_TWICE)), None)  # one occurrence (key=())
    if match is None:
        return None
    want = keras_requirement(d.matrix, d.tf_version, s.python.minor if s.python else None) \
        if d.matrix and d.tf_version else None
    stated = [p for p in (s.package(n) for n in KERAS_COPIES) if p is not None and p.version]
    facts = {"tensorflow": d.tf_version, "keras_for_this_tensorflow": want,
             "keras_installed": {p.name: p.version for p in stated} or None}
    metric = f" ({match.fields['metric']})" if match.fields.get("metric") else ""
    tf = f"TensorFlow {d.tf_version}" if d.tf_version else "TensorFlow"
    strays = stated if want is None else [p for p in stated if not _own_keras(s, d, Requirement(want), p)]
    if not strays and listing_read(s):  # a whole listing with no Keras but TensorFlow's own
        have = ", ".join(p.label for p in stated) or "no Keras package"
        text = (f"two copies of Keras registered the same metric{metric}, but this environment has "
                f"{have} beside {tf}: another environment printed it")
        return keras_registered_twice.finding(
            evidence(s, match, **facts),
            printed_elsewhere(text, "keras"),
            title=text, severity=Severity.INFO)
    why = (f"two copies of Keras registered the same metric{metric}: a Keras of another version than "
           f"{tf}'s own is installed beside it")
    if want is not None:
        text = f"{why}. Install {want}, the Keras of {tf}, and uninstall other copies"
        commands = (pip(s, "install", want),)
    else:
        text = (f"{why}. Install the keras release of your TensorFlow's minor (keras 2.6-2.15 follow "
                "TensorFlow's; tf-keras from 2.16) and uninstall other copies")
        commands = (pip(s, "show", "tensorflow", *KERAS_COPIES),)
    return keras_registered_twice.finding(evidence(s, match, **facts),
                                          Remediation(text, commands, KERAS_VERSIONS), title=why)


PKG_RESOURCES_REFUSED = "pkg-resources-version-conflict"


@rule(codes.LOG_PIP_CONFLICT, "pip says an installed version breaks a package's requirement",
      Severity.WARNING,
      "After an install pip checks what it left: 'tensorflow 2.2.1 has requirement "
      "numpy<1.19.0,>=1.16.0, but you'll have numpy 1.19.0 which is incompatible' (pip before "
      "20.3; 'requires ..., but you have ... which is incompatible' since; `pip check` says the "
      "same). About the installed TensorFlow it is its pin broken, which compat.pin-violation "
      "names from it; a companion's requirement on TensorFlow means the companion was made for "
      "another TensorFlow; between other packages it is not TensorFlow's business (information). "
      "pip installs regardless, so the environment stays broken until the versions are moved. "
      "setuptools' pkg_resources checks the same when a console script or plugin loads "
      "('ContextualVersionConflict: (numpy 1.23.3 (...), Requirement.parse('numpy~=1.19.2'), "
      "{'tensorflow'})') and refuses to run it: there it is an error.",
      "Install the version the requirement asks for (the finding gives the command), or the "
      "release of the requiring package made for what is installed.", fix_answer=ABOUT_THE_LOG)
def pip_conflict(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_PIP_CONFLICT):
        f = match.fields
        by = " ".join(filter(None, (f["required_by"], f.get("required_by_version"))))
        wants, package = f["requirement"], f["package"]
        refused = match.variant == PKG_RESOURCES_REFUSED  # the program stopped, where pip only warned
        said = (f"pkg_resources refused to load {f['required_by']}: {package} {f['installed']} breaks its "
                f"requirement {wants}" if refused else f"pip says {package} {f['installed']} breaks {by}'s requirement {wants}")
        if f["required_by"] in TENSORFLOW_DISTRIBUTIONS:
            here = about(d.tensorflow, f)
            text = (f"{said}: TensorFlow's own pin; install {wants}" if here or d.tensorflow is None else
                    f"{said}; TensorFlow here is {d.tensorflow.label}: the line came from another install")
            commands = (pip(s, "install", wants),) if here or d.tensorflow is None else ()
            severity = (Severity.ERROR if refused else Severity.WARNING) if commands else Severity.INFO
        elif package in TENSORFLOW_DISTRIBUTIONS:
            text = (f"{said}: {f['required_by']} was made for another TensorFlow; install the "
                    f"{f['required_by']} release made for {package} {f['installed']}")
            commands = (pip(s, "index", "versions", f["required_by"]),)
            severity = Severity.ERROR if refused else Severity.WARNING
        else:
            text = f"{said}: a conflict between other packages' requirements, not TensorFlow's own pins"
            commands, severity = (), Severity.INFO
        out.append(pip_conflict.finding(evidence(s, match), Remediation(text, commands), title=text,
                                        severity=severity))
    return out
