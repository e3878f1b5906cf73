"""Why `import tensorflow` raised in a child of the diagnosed interpreter: a plugin built for
another TensorFlow, a library of the wrong architecture, a NumPy or protobuf that does not fit, an
op missing from the binary, or TensorFlow not installed at all. Reads only snapshot.runtime
(gathered by tfdoctor.gather.runtime); tfdoctor.advice.import_outcome decides which of these rules (or of
checks/runtime_crash.py's, when the child died instead) speaks, and every fix is a command to run."""

from __future__ import annotations

import os
import shlex
from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import pip, unset_variable
from tfdoctor.advice.fix_answers import CAUSE_NOT_KNOWN, GOAL_INSTALLED
from tfdoctor.advice.import_outcome import (
    NUMPY_KINDS,
    ImportOutcome,
    crash_evidence,
    event_field,
    in_plugin_dir,
    outcome_rules,
)
from tfdoctor.advice.installs import pair_fix, reinstall_commands, tf_requirement
from tfdoctor.advice.runtime_evidence import (
    base_evidence,
    metal_version,
    reinstall_tf,
    tf_of,
)
from tfdoctor.derived import Derived
from tfdoctor.facts.runtime import ImportFailure, LogEvent, RuntimeFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Finding, Remediation, Severity, emitter

PROTOBUF_NEWS = "https://protobuf.dev/news/2022-05-06/#python-updates"
NUMPY2_GUIDE = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
PLUGGABLE_DEVICE = "https://github.com/tensorflow/community/blob/master/rfcs/20200624-pluggable-device-for-tensorflow.md"

_TF_ADDONS = ("tensorflow-text", "tensorflow-io", "tensorflow-io-gcs-filesystem",
              "tensorflow-addons", "tensorflow-decision-forests", "tensorflow-recommenders",
              "tensorflow-probability", "tensorflow-hub", "tensorflow-model-optimization")


# ---------------------------------------------------------------------------------------------
# the findings, one builder per cause


def _plugin_failed(s: Snapshot, d: Derived, rt: RuntimeFacts, err: ImportFailure, library: str,
                   ev: dict[str, Any]) -> Finding:
    name = os.path.basename(library)
    _dist, tf_version = tf_of(d)
    metal = metal_version(d)
    symbol = event_field(err, ("undefined-symbol", "symbol-not-found"), "symbol")
    problem = event_field(err, ("invalid-shared-object",), "problem")
    from_env = "plugin-path-missing" in err.kinds() or not in_plugin_dir(library, rt, s) or \
        library == rt.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH")
    if "plugin-path-missing" in err.kinds():
        what = "does not exist"
    elif symbol:
        what = f"needs symbol {symbol}, which TensorFlow {tf_version or ''} does not export".replace("  ", " ")
    elif problem:
        what = f"is not a valid shared library ({problem})"
    else:
        what = "does not load"
    where = "TF_PLUGGABLE_DEVICE_LIBRARY_PATH" if from_env else "tensorflow-plugins/"
    title = f"TensorFlow {tf_version or ''} cannot load the plugin {name} (from {where}): it {what}".replace("  ", " ")
    ev = {**ev, "plugin": library, "plugin_file": name, "symbol": symbol, "problem": problem,
          "configured_by": where}
    is_metal = "metal" in name.lower() or (metal is not None and not from_env and len(rt.plugins) <= 1)
    commands: list[str] = []
    if from_env:
        text = ("Point TF_PLUGGABLE_DEVICE_LIBRARY_PATH at a plugin built for this TensorFlow, or "
                "unset it")
        commands.append(unset_variable("TF_PLUGGABLE_DEVICE_LIBRARY_PATH"))
    elif is_metal and (metal or d.apple_silicon):
        reqs, why, facts = pair_fix(s, d)
        ev.update(facts)
        text = f"tensorflow-metal {metal} was not built for TensorFlow {tf_version}: {why}"
        if reqs:
            commands.append(pip(s, "install", "--force-reinstall", *reqs))
    else:
        disabled = library + ".disabled"
        text = (f"{name} was not built for TensorFlow {tf_version} (or is not a library): move it "
                "out of tensorflow-plugins/, or reinstall the package that installed it at the "
                "version built for this TensorFlow")
        commands.append(f"mv {shlex.quote(library)} {shlex.quote(disabled)}")
    return _emit(codes.RUNTIME_PLUGIN_LOAD_FAILED, title, ev, Remediation(text, tuple(commands), PLUGGABLE_DEVICE))


def _numpy_finding(s: Snapshot, d: Derived, events: tuple[LogEvent, ...], ev: dict[str, Any],
                   crashed: str | None = None) -> Finding:
    kinds = {e.kind for e in events}
    numpy = s.package("numpy")
    installed = numpy.version if numpy else None
    compiled = next((e.fields for e in events if e.kind == "numpy-api-version"), {})
    _dist, tf_version = tf_of(d)
    spec = tf_requirement(s, d, "numpy")
    numpy2 = "numpy-1x-on-2x" in kinds or (installed or "").startswith("2.")
    if spec and ("<" in spec or not numpy2):
        req = f"numpy{spec}"
    elif numpy2:
        req = "numpy<2"
    else:
        req = "numpy"
    if numpy2:
        what = f"NumPy {installed or '2.x'} is installed, but a module TensorFlow imports was built for NumPy 1.x"
    elif compiled:
        what = (f"a module was built against NumPy C API {compiled.get('compiled')}, NumPy "
                f"{installed or ''} provides {compiled.get('installed')}").replace("  ", " ")
    else:
        what = f"NumPy {installed or ''} does not fit the compiled modules TensorFlow imports".replace("  ", " ")
    title = what + (f" (import crashed with {crashed})" if crashed else "")
    ev = {**ev, "numpy": installed, "numpy_allowed_by_tensorflow": spec,
          "messages": [e.line for e in events if e.kind in NUMPY_KINDS][:4]}
    fix = Remediation(f"Install the newest NumPy TensorFlow {tf_version or ''} allows ({req})".replace("  ", " "),
                      (pip(s, "install", "--upgrade", req),), NUMPY2_GUIDE)
    return _emit(codes.RUNTIME_NUMPY_ABI, title, ev, fix)


def _arch_mismatch(s: Snapshot, d: Derived, rt: RuntimeFacts, err: ImportFailure, ev: dict[str, Any]) -> Finding:
    have = event_field(err, ("arch-mismatch",), "have")
    need = event_field(err, ("arch-mismatch",), "need")
    library = event_field(err, ("dlopen", "library-not-loaded", "invalid-shared-object", "undefined-symbol"),
                          "library")
    ev = {**ev, "library": library, "library_arch": have, "process_arch": need or
          (s.python.process_arch if s.python else None)}
    reinstall = [p for p in s.tensorflow_distributions() if p.version]
    if library and "tensorflow-plugins" in library and d.metal:
        reinstall.append(d.metal)
    if library and "/numpy/" in library and s.package("numpy"):
        reinstall.append(s.package("numpy"))
    if have or "arch-mismatch" in err.kinds():
        title = (f"{os.path.basename(library) if library else 'A compiled module'} is built for "
                 f"{have or 'another architecture'}, this Python runs as {need or ev['process_arch']}")
        text = f"Reinstall from this {need or ''} interpreter, without pip's cache".replace("  ", " ")
    else:
        title = f"A library TensorFlow needs could not be loaded: {library or (err.message.strip().splitlines() or [err.type])[0][:120]}"
        text = "Reinstall TensorFlow so the missing library comes back"
    commands = tuple(reinstall_commands(s, d, reinstall))
    return _emit(codes.RUNTIME_LIBRARY_ARCH_MISMATCH, title, ev, Remediation(text, commands))


def _protobuf(s: Snapshot, d: Derived, ev: dict[str, Any]) -> Finding:
    _dist, tf_version = tf_of(d)
    spec = tf_requirement(s, d, "protobuf")
    # Without an upper bound the pin cannot help (TensorFlow <= 2.9 said only >=3.9.2): use
    # the version protobuf's own message recommends.
    req = f"protobuf{spec}" if spec and "<" in spec else "protobuf==3.20.3"
    protobuf = s.package("protobuf")
    title = (f"protobuf {protobuf.version if protobuf else ''} is too new for TensorFlow "
             f"{tf_version or ''}: 'Descriptors cannot be created directly'").replace("  ", " ")
    ev = {**ev, "protobuf": protobuf.version if protobuf else None,
          "protobuf_allowed_by_tensorflow": spec}
    fix = Remediation(
        f"Install the protobuf TensorFlow allows ({req}); setting "
        "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python also works, but slowly",
        (pip(s, "install", req),), PROTOBUF_NEWS)
    return _emit(codes.RUNTIME_PROTOBUF, title, ev, fix)


def _op_not_registered(s: Snapshot, d: Derived, err: ImportFailure, ev: dict[str, Any]) -> Finding:
    op = event_field(err, ("op-not-registered",), "op")
    addons = [p for p in (s.package(n) for n in _TF_ADDONS) if p]
    ev = {**ev, "op": op, "addons": {p.name: p.version for p in addons}}
    commands = [c for c in (reinstall_tf(s, d, "--no-deps"),) if c] + [pip(s, "check")]
    fix = Remediation("Reinstall TensorFlow so its Python files and binaries match, and keep "
                      "add-ons at the versions built for it", tuple(commands))
    return _emit(codes.RUNTIME_OP_NOT_REGISTERED,
                 f"import tensorflow fails: op {op!r} is not registered in the TensorFlow binary",
                 ev, fix)


def _import_failed(s: Snapshot, d: Derived, err: ImportFailure, ev: dict[str, Any]) -> Finding:
    short_type = err.type.rsplit(".", 1)[-1]
    first = err.message.strip().splitlines()[0][:200] if err.message.strip() else ""
    commands = [c for c in (reinstall_tf(s, d),) if c] + [pip(s, "check")]
    fix = Remediation("Reinstall TensorFlow with its dependencies, then check for broken "
                      "requirements", tuple(commands))
    return _emit(codes.RUNTIME_IMPORT_FAILED, f"import tensorflow fails: {short_type}: {first}".rstrip(": "),
                 ev, fix)


def _finding(s: Snapshot, d: Derived, outcome: ImportOutcome) -> Finding:
    """The finding of the rule `outcome` names: what the exception (or, for NumPy, the crash) shows."""
    rt = s.runtime
    if outcome.code == codes.RUNTIME_NUMPY_ABI and outcome.signal is not None:  # NumPy's words, then a crash
        return _numpy_finding(s, d, outcome.numpy_events, crash_evidence(s, d, rt), crashed=outcome.signal)
    err = rt.import_error
    assert err is not None
    ev = {**base_evidence(s, d, rt), "exception": err.type.rsplit(".", 1)[-1], "exception_type": err.type,
          "message": err.message[:2000], "traceback_tail": err.traceback[-6:],
          "chained": err.chain[:3]}
    code = outcome.code
    if code == codes.RUNTIME_NOT_INSTALLED:
        return _emit(code, "TensorFlow is not installed, so it was not imported", ev,
                     Remediation(not_installed.doc.fix))
    if code == codes.RUNTIME_PLUGIN_LOAD_FAILED and outcome.library:
        return _plugin_failed(s, d, rt, err, outcome.library, ev)
    if code == codes.RUNTIME_LIBRARY_ARCH_MISMATCH:
        return _arch_mismatch(s, d, rt, err, ev)
    if code == codes.RUNTIME_NUMPY_ABI:
        return _numpy_finding(s, d, outcome.numpy_events, ev)
    if code == codes.RUNTIME_PROTOBUF:
        return _protobuf(s, d, ev)
    if code == codes.RUNTIME_OP_NOT_REGISTERED:
        return _op_not_registered(s, d, err, ev)
    return _import_failed(s, d, err, ev)


_outcome_rule = outcome_rules(_finding)


# ---------------------------------------------------------------------------------------------
# the rules (which fires is decided by tfdoctor.advice.import_outcome)


not_installed = _outcome_rule(codes.RUNTIME_NOT_INSTALLED, "TensorFlow was not imported: it is not installed",
    Severity.INFO,
    "`import tensorflow` raised ModuleNotFoundError and no TensorFlow distribution is "
    "installed; the installation check reports what to install.",
    "Install TensorFlow (see install.no-tensorflow).", fix_answer=GOAL_INSTALLED)


plugin_load_failed = _outcome_rule(codes.RUNTIME_PLUGIN_LOAD_FAILED, "TensorFlow cannot load a plugin",
    Severity.ERROR,
    "TensorFlow loads every shared library in site-packages/tensorflow-plugins/ (and "
    "TF_PLUGGABLE_DEVICE_LIBRARY_PATH) at import, and the import fails when one does not "
    "load: 'Symbol not found' (macOS) or 'undefined symbol' (Linux) means the plugin was "
    "built against another TensorFlow (pip never enforces the tensorflow-metal pairing: "
    "the metal wheels declare no tensorflow dependency); 'invalid ELF header' or 'not a "
    "mach-o file' means the file is not a library at all.",
    "Install a TensorFlow/tensorflow-metal pair known to load together (the finding names "
    "it), or remove the stray plugin file / unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH.",
    PLUGGABLE_DEVICE, explains=(codes.RUNTIME_NO_GPU, codes.RUNTIME_GPU_PLACEMENT, codes.PROBE_CPU_ONLY),
    fix_answer=GOAL_INSTALLED)


library_arch_mismatch = _outcome_rule(codes.RUNTIME_LIBRARY_ARCH_MISMATCH, "A library TensorFlow loads is missing or built for another architecture",
    Severity.ERROR,
    "The dynamic loader refused a compiled module: 'incompatible architecture (have "
    "'x86_64', need 'arm64')', 'mach-o, but wrong architecture', 'Library not loaded' / "
    "'image not found', or 'cannot open shared object file'. The environment mixes "
    "architectures (packages installed by a Rosetta pip, copied site-packages) or lost a "
    "file of a package.",
    "Reinstall the affected packages from the native interpreter with --force-reinstall "
    "--no-cache-dir.", explains=(codes.RUNTIME_NO_GPU, codes.RUNTIME_PLUGIN_LOAD_FAILED),
    fix_answer=GOAL_INSTALLED)


numpy_abi = _outcome_rule(codes.RUNTIME_NUMPY_ABI, "NumPy does not match the compiled modules TensorFlow imports",
    Severity.ERROR,
    "'A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x' (a NumPy 2 with "
    "a TensorFlow or extension built for NumPy 1; TensorFlow allows NumPy 2 only from 2.18), "
    "or 'module compiled against API version 0xf but this version of numpy is 0xe' (a NumPy "
    "older than the one the module was built with).",
    "Install the NumPy TensorFlow's own requirements allow (the finding gives the range).",
    NUMPY2_GUIDE, explains=(codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_IMPORT_FAILED),
    fix_answer=GOAL_INSTALLED)


protobuf = _outcome_rule(codes.RUNTIME_PROTOBUF, "protobuf is outside the range TensorFlow was built for",
    Severity.ERROR,
    "'Descriptors cannot be created directly' (TypeError at import): the protobuf runtime "
    "is newer than the generated code in this TensorFlow, typically protobuf 4.21+ under "
    "TensorFlow 2.9 or older, or a pin broken by another package.",
    "Install the protobuf TensorFlow's requirements allow; "
    "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python is a slow stopgap.",
    PROTOBUF_NEWS, fix_answer=GOAL_INSTALLED)


op_not_registered = _outcome_rule(codes.RUNTIME_OP_NOT_REGISTERED, "An op TensorFlow's Python code needs is not registered in its binary",
    Severity.ERROR,
    "'Op type not registered ... in binary': Python files and compiled libraries come from "
    "different TensorFlow builds (two TensorFlows overwriting each other, an add-on such as "
    "tensorflow-text or tensorflow-io built for another version).",
    "Reinstall TensorFlow, and add-ons at the versions built for it.", fix_answer=CAUSE_NOT_KNOWN)


import_failed = _outcome_rule(codes.RUNTIME_IMPORT_FAILED, "import tensorflow raises an exception",
    Severity.ERROR,
    "`import tensorflow` raised a Python exception that none of the more specific codes "
    "(plugin, architecture, NumPy, protobuf, op registration) explains: often a missing "
    "dependency, a half-finished install, or a file shadowing a module.",
    "Reinstall TensorFlow with its dependencies; `pip check` lists broken requirements.", explains=(codes.RUNTIME_NO_GPU,),
    fix_answer=GOAL_INSTALLED)


_emit = emitter(not_installed, plugin_load_failed, library_arch_mismatch, numpy_abi, protobuf,
               op_not_registered, import_failed)
