"""Did `import tensorflow` succeed in a child of the diagnosed interpreter, and if not, why: a crash
(which signal, which plugin), a hang, an exception of a known kind (plugin built for another
TensorFlow, wrong architecture, NumPy or protobuf ABI, an op missing from the binary)? Reads only
snapshot.runtime (gathered by tfdoctor.runtime); the way the child ended decides one of these
rules, and every fix is a command to run."""

from __future__ import annotations

import os
import shlex
from typing import Any

from tfdoctor import codes
from tfdoctor.derived import Derived
from tfdoctor.fixes import pip, python_cmd
from tfdoctor.model import Finding, Remediation, Severity, emitter, rule
from tfdoctor.recommend import pair_fix, tf_requirement
from tfdoctor.runtime_evidence import base_evidence, doing, metal_version, reinstall_tf, stderr_lines, tf_of
from tfdoctor.runtime_facts import ImportFailure, RuntimeFacts
from tfdoctor.snapshot import Snapshot

PROTOBUF_NEWS = "https://protobuf.dev/news/2022-05-06/#python-updates"
NUMPY2_GUIDE = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
PLUGGABLE_DEVICE = "https://github.com/tensorflow/community/blob/master/rfcs/20200624-pluggable-device-for-tensorflow.md"

_PLUGIN_ERROR_KINDS = ("undefined-symbol", "symbol-not-found", "invalid-shared-object",
                       "plugin-path-missing", "dlopen", "referenced-from")
_NUMPY_KINDS = ("numpy-1x-on-2x", "numpy-api-version", "numpy-array-api", "numpy-multiarray")
_ARCH_KINDS = ("arch-mismatch", "library-not-loaded")
_TF_ADDONS = ("tensorflow-text", "tensorflow-io", "tensorflow-io-gcs-filesystem",
              "tensorflow-addons", "tensorflow-decision-forests", "tensorflow-recommenders",
              "tensorflow-probability", "tensorflow-hub", "tensorflow-model-optimization")


# ---------------------------------------------------------------------------------------------
# helpers


# ---------------------------------------------------------------------------------------------
# import errors


def _in_plugin_dir(path: str, rt: RuntimeFacts, s: Snapshot) -> bool:
    if "tensorflow-plugins" in path.replace("\\", "/").split("/"):
        return True
    configured = rt.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH") or s.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH")
    if configured and (path == configured or path.startswith(configured.rstrip("/") + "/")):
        return True
    return any(p.path == path for p in rt.plugins)


def _event_field(err: ImportFailure, kinds: tuple[str, ...], name: str) -> str | None:
    for event in err.events:
        if event.kind in kinds and event.fields.get(name):
            return event.fields[name]
    return None


def _plugin_library(err: ImportFailure, rt: RuntimeFacts, s: Snapshot) -> str | None:
    if "plugin-path-missing" in err.kinds():
        return _event_field(err, ("plugin-path-missing",), "library") or \
            rt.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH") or "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"
    for event in err.events:
        library = event.fields.get("library")
        if event.kind in _PLUGIN_ERROR_KINDS and library and _in_plugin_dir(library, rt, s):
            return library
    # A failing frame inside load_library with one plugin installed: that plugin.
    if any("load_library" in frame for frame in err.traceback[-3:]) and len(rt.plugins) == 1:
        if err.kinds() & set(_PLUGIN_ERROR_KINDS):
            return rt.plugins[0].path
    return None


def _plugin_failed(s: Snapshot, d: Derived, rt: RuntimeFacts, err: ImportFailure, library: str,
                   ev: dict[str, Any]) -> Finding:
    name = os.path.basename(library)
    _dist, tf_version = tf_of(d)
    metal = metal_version(d)
    symbol = _event_field(err, ("undefined-symbol", "symbol-not-found"), "symbol")
    problem = _event_field(err, ("invalid-shared-object",), "problem")
    from_env = "plugin-path-missing" in err.kinds() or not _in_plugin_dir(library, rt, s) or \
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
        commands.append("unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH")
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
    return _emit(codes.RUNTIME_PLUGIN_LOAD_FAILED, title, ev,
                    Remediation(text, tuple(commands), PLUGGABLE_DEVICE))


def _numpy_finding(s: Snapshot, d: Derived, rt: RuntimeFacts, events: list, ev: dict[str, Any],
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
          "messages": [e.line for e in events if e.kind in _NUMPY_KINDS][:4]}
    fix = Remediation(f"Install the newest NumPy TensorFlow {tf_version or ''} allows ({req})".replace("  ", " "),
                      (pip(s, "install", "--upgrade", req),), NUMPY2_GUIDE)
    return _emit(codes.RUNTIME_NUMPY_ABI, title, ev, fix)


def _import_error(s: Snapshot, d: Derived, rt: RuntimeFacts) -> Finding:
    err = rt.import_error
    assert err is not None
    short_type = err.type.rsplit(".", 1)[-1]
    ev = {**base_evidence(s, d, rt), "exception": short_type, "exception_type": err.type,
          "message": err.message[:2000], "traceback_tail": err.traceback[-6:],
          "chained": err.chain[:3]}
    kinds = err.kinds()
    log_kinds = rt.log.kinds()
    dist, tf_version = tf_of(d)

    if short_type == "ModuleNotFoundError" and "'tensorflow'" in err.message and not dist:
        return _emit(codes.RUNTIME_NOT_INSTALLED, "TensorFlow is not installed, so it was not imported",
                        ev, Remediation(not_installed.doc.fix))
    library = _plugin_library(err, rt, s)
    if library and not kinds & {"arch-mismatch"}:
        return _plugin_failed(s, d, rt, err, library, ev)
    if kinds & set(_ARCH_KINDS):
        return _arch_mismatch(s, d, rt, err, ev)
    numpy_events = [e for e in err.events if e.kind in _NUMPY_KINDS] or \
        [e for e in rt.log.events if e.kind in _NUMPY_KINDS]
    if numpy_events:
        return _numpy_finding(s, d, rt, numpy_events, ev)
    if "protobuf-descriptors" in kinds or "protobuf-descriptors" in log_kinds:
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
    if "op-not-registered" in kinds:
        op = _event_field(err, ("op-not-registered",), "op")
        addons = [p for p in (s.package(n) for n in _TF_ADDONS) if p]
        ev = {**ev, "op": op, "addons": {p.name: p.version for p in addons}}
        commands = [c for c in (reinstall_tf(s, d, "--no-deps"),) if c] + [pip(s, "check")]
        fix = Remediation("Reinstall TensorFlow so its Python files and binaries match, and keep "
                          "add-ons at the versions built for it", tuple(commands))
        return _emit(codes.RUNTIME_OP_NOT_REGISTERED,
                        f"import tensorflow fails: op {op!r} is not registered in the TensorFlow binary",
                        ev, fix)
    first = err.message.strip().splitlines()[0][:200] if err.message.strip() else ""
    commands = [c for c in (reinstall_tf(s, d),) if c] + [pip(s, "check")]
    fix = Remediation("Reinstall TensorFlow with its dependencies, then check for broken "
                      "requirements", tuple(commands))
    return _emit(codes.RUNTIME_IMPORT_FAILED, f"import tensorflow fails: {short_type}: {first}".rstrip(": "),
                    ev, fix)


def _arch_mismatch(s: Snapshot, d: Derived, rt: RuntimeFacts, err: ImportFailure, ev: dict[str, Any]) -> Finding:
    have = _event_field(err, ("arch-mismatch",), "have")
    need = _event_field(err, ("arch-mismatch",), "need")
    library = (_event_field(err, ("dlopen", "library-not-loaded", "invalid-shared-object",
                                  "undefined-symbol"), "library"))
    ev = {**ev, "library": library, "library_arch": have, "process_arch": need or
          (s.python.process_arch if s.python else None)}
    names = [f"{d.name}=={d.version}" for d in s.tensorflow_distributions() if d.version]
    if library and "tensorflow-plugins" in library and s.package("tensorflow-metal"):
        names.append(f"tensorflow-metal=={metal_version(d)}")
    if library and "/numpy/" in library and s.package("numpy"):
        names.append(f"numpy=={s.package('numpy').version}")
    if have or "arch-mismatch" in err.kinds():
        title = (f"{os.path.basename(library) if library else 'A compiled module'} is built for "
                 f"{have or 'another architecture'}, this Python runs as {need or ev['process_arch']}")
        text = f"Reinstall from this {need or ''} interpreter, without pip's cache".replace("  ", " ")
    else:
        title = f"A library TensorFlow needs could not be loaded: {library or (err.message.strip().splitlines() or [err.type])[0][:120]}"
        text = "Reinstall TensorFlow so the missing library comes back"
    commands = (pip(s, "install", "--force-reinstall", "--no-deps", "--no-cache-dir", *names),) if names else ()
    return _emit(codes.RUNTIME_LIBRARY_ARCH_MISMATCH, title, ev, Remediation(text, commands))


# ---------------------------------------------------------------------------------------------
# crashes, hangs, no result


def _arm64_fix(s: Snapshot, d: Derived) -> Remediation:
    if s.host.system == "Linux" and s.host.cpu_implementer:
        return Remediation("Run an arm64 image: an x86_64 TensorFlow under emulation lacks AVX",
                           ("docker run --platform linux/arm64 IMAGE",),
                           "https://github.com/docker/for-mac/issues/5342")
    if d.apple_silicon or s.host.system == "Darwin":
        reqs: tuple[str, ...] = ("tensorflow",)
        matrix = d.matrix
        if matrix is not None and s.python:
            try:
                rec = matrix.recommended_install(s.python.minor, "arm64", s.host.macos_version or None)
                reqs = tuple(rec.requirements) or reqs
            except Exception:  # noqa: BLE001
                pass
        minor = s.python.minor if s.python else "3"
        return Remediation(
            "Make an environment with an arm64 Python and install TensorFlow into it (check that "
            "the first command prints arm64)",
            (f"arch -arm64 python{minor} -c \"import platform; print(platform.machine())\"",
             f"arch -arm64 python{minor} -m venv ~/venvs/tf-arm64",
             "~/venvs/tf-arm64/bin/python -m pip install " + " ".join(shlex.quote(r) for r in reqs)),
            import_sigill.doc.link)
    return Remediation("This CPU lacks the instructions (AVX) TensorFlow's wheels need: use a "
                       "build without AVX (conda-forge) or another machine",
                       ("conda install -c conda-forge tensorflow",))


def _signal(s: Snapshot, d: Derived, rt: RuntimeFacts) -> Finding:
    sig = rt.signal or "a signal"
    log = rt.log
    ev = {**base_evidence(s, d, rt), "signal": sig, "python_fatal": log.python_fatal,
          "python_stack": log.python_stack[:6], "tensorflow_fatal": log.fatal[:3],
          "stderr_tail": stderr_lines(rt)}
    missing = log.cpu_instructions_missing
    if sig == "SIGILL" or missing:
        ev["cpu_instructions_missing"] = missing
        what = f"needs {', '.join(missing)}" if missing else "uses an instruction"
        title = (f"TensorFlow was killed by {sig} while {doing(rt)}: it {what} this CPU (as this "
                 "process sees it) does not have")
        return _emit(codes.RUNTIME_IMPORT_SIGILL, title, ev, _arm64_fix(s, d))
    numpy_events = [e for e in log.events if e.kind in _NUMPY_KINDS]
    if numpy_events:
        return _numpy_finding(s, d, rt, numpy_events, ev, crashed=sig)
    in_plugin = bool(rt.loading_plugin) or (
        any("load_library" in frame for frame in log.python_stack) and bool(rt.plugins))
    loading = [rt.loading_plugin] if rt.loading_plugin else [p.path for p in rt.plugins]
    where = (f" while loading {', '.join(os.path.basename(p) for p in loading)}"
             if in_plugin else f" while {doing(rt)}")
    title = f"TensorFlow crashed with {sig}{where}"
    if log.fatal:
        title += f": {log.fatal[0][:160]}"
    if in_plugin and (metal_version(d) or d.apple_silicon):
        reqs, why, facts = pair_fix(s, d)
        ev.update(facts)
        commands = (pip(s, "install", "--force-reinstall", *reqs),) if reqs else ()
        fix = Remediation(f"A plugin crashed TensorFlow: {why}", commands)
    elif in_plugin:
        ev["plugins"] = [p.path for p in rt.plugins]
        fix = Remediation("A plugin crashed TensorFlow while it was loaded: move it out of the "
                          "way, or reinstall the package that installed it at the version built "
                          "for this TensorFlow",
                          tuple(f"mv {shlex.quote(p.path)} {shlex.quote(p.path + '.disabled')}"
                                for p in rt.plugins[:3]))
    else:
        commands = [c for c in (reinstall_tf(s, d),) if c]
        commands.append(f"{python_cmd(s)} -X faulthandler -c \"import tensorflow\"")
        fix = Remediation("Reinstall TensorFlow; the last command reproduces the crash with a "
                          "Python stack", tuple(commands))
    return _emit(codes.RUNTIME_IMPORT_CRASHED, title, ev, fix)


def _hang(s: Snapshot, d: Derived, rt: RuntimeFacts) -> Finding:
    ev = {**base_evidence(s, d, rt), "timeout_s": rt.timeout_s, "python_stack": rt.log.python_stack[:8],
          "stderr_tail": stderr_lines(rt)}
    where = f" (last Python frame: {rt.log.python_stack[0]})" if rt.log.python_stack else ""
    title = f"TensorFlow did not finish within {rt.timeout_s or 0:g} s: stuck {doing(rt)}{where}"
    longer = max(300, int((rt.timeout_s or 60) * 5))
    fix = Remediation(
        "Try a longer timeout; if it still hangs, the second command prints where (after 60 s)",
        (f"tfdoctor check --python {python_cmd(s)} --timeout {longer}",
         f"{python_cmd(s)} -c \"import faulthandler; faulthandler.dump_traceback_later(60, exit=True); "
         "import tensorflow\""))
    return _emit(codes.RUNTIME_IMPORT_HANG, title, ev, fix)


def _no_result(s: Snapshot, d: Derived, rt: RuntimeFacts, code: str) -> Finding:
    ev = {**base_evidence(s, d, rt), "returncode": rt.returncode, "message": rt.message,
          "stderr_tail": stderr_lines(rt)}
    title = (f"The TensorFlow child {rt.message}" if code == codes.RUNTIME_NO_RESULT
             else f"The TensorFlow child's output is unusable: {rt.message}")
    fix = Remediation("Import TensorFlow by hand with this interpreter and fix what it prints",
                      (f"{python_cmd(s)} -c \"import tensorflow as tf; print(tf.__version__)\"",))
    return _emit(code, title, ev, fix)


def _classify(s: Snapshot, d: Derived) -> Finding:
    """The one finding that says how the import went wrong (outcome "ok" is runtime_devices')."""
    rt = s.runtime
    if rt.outcome == "import-error" and rt.import_error is not None:
        return _import_error(s, d, rt)
    if rt.outcome == "signal":
        return _signal(s, d, rt)
    if rt.outcome == "timeout":
        return _hang(s, d, rt)
    if rt.outcome in ("no-result", "not-started"):
        return _no_result(s, d, rt, codes.RUNTIME_NO_RESULT)
    if rt.outcome == "temp-dir":  # not the interpreter's fault: tfdoctor had no usable temp dir
        return _emit(codes.RUNTIME_NO_RESULT, f"The TensorFlow child could not run: {rt.message}",
                     {**base_evidence(s, d, rt), "message": rt.message},
                     Remediation("Point TMPDIR at a writable directory and run again",
                                 ("mkdir -p ~/tmp", "export TMPDIR=~/tmp")))
    return _no_result(s, d, rt, codes.RUNTIME_BAD_OUTPUT)


def _when(code: str):
    """The rule body for `code`: the classification's finding when it is of this code."""

    def decide(s: Snapshot, d: Derived) -> Finding | None:
        if s.runtime.outcome == "ok":
            return None
        found = d.once("runtime.import-outcome", lambda: _classify(s, d))
        return found if found.code == code else None

    return decide


# ---------------------------------------------------------------------------------------------
# the rules (which fires is decided by _classify)


@rule(codes.RUNTIME_NOT_INSTALLED, "TensorFlow was not imported: it is not installed",
      Severity.INFO,
      "`import tensorflow` raised ModuleNotFoundError and no TensorFlow distribution is "
      "installed; the installation check reports what to install.",
      "Install TensorFlow (see install.no-tensorflow).", needs=("runtime",))
def not_installed(s: Snapshot, d: Derived):
    return _when(not_installed.code)(s, d)


@rule(codes.RUNTIME_PLUGIN_LOAD_FAILED, "TensorFlow cannot load a plugin",
      Severity.ERROR,
      "TensorFlow loads every shared library in site-packages/tensorflow-plugins/ (and "
      "TF_PLUGGABLE_DEVICE_LIBRARY_PATH) at import, and the import fails when one does not "
      "load: 'Symbol not found' (macOS) or 'undefined symbol' (Linux) means the plugin was "
      "built against another TensorFlow (pip never enforces the tensorflow-metal pairing: "
      "the metal wheels declare no tensorflow dependency); 'invalid ELF header' or 'not a "
      "mach-o file' means the file is not a library at all.",
      "Install a TensorFlow/tensorflow-metal pair known to load together (the finding names "
      "it), or remove the stray plugin file / unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH.",
      PLUGGABLE_DEVICE, explains=(codes.RUNTIME_NO_GPU, codes.RUNTIME_GPU_PLACEMENT, codes.PROBE_CPU_ONLY), needs=("runtime",))
def plugin_load_failed(s: Snapshot, d: Derived):
    return _when(plugin_load_failed.code)(s, d)


@rule(codes.RUNTIME_LIBRARY_ARCH_MISMATCH, "A library TensorFlow loads is missing or built for another architecture",
      Severity.ERROR,
      "The dynamic loader refused a compiled module: 'incompatible architecture (have "
      "'x86_64', need 'arm64')', 'mach-o, but wrong architecture', 'Library not loaded' / "
      "'image not found', or 'cannot open shared object file'. The environment mixes "
      "architectures (packages installed by a Rosetta pip, copied site-packages) or lost a "
      "file of a package.",
      "Reinstall the affected packages from the native interpreter with --force-reinstall "
      "--no-cache-dir.", explains=(codes.RUNTIME_NO_GPU, codes.RUNTIME_PLUGIN_LOAD_FAILED), needs=("runtime",))
def library_arch_mismatch(s: Snapshot, d: Derived):
    return _when(library_arch_mismatch.code)(s, d)


@rule(codes.RUNTIME_NUMPY_ABI, "NumPy does not match the compiled modules TensorFlow imports",
      Severity.ERROR,
      "'A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x' (a NumPy 2 with "
      "a TensorFlow or extension built for NumPy 1; TensorFlow allows NumPy 2 only from 2.18), "
      "or 'module compiled against API version 0xf but this version of numpy is 0xe' (a NumPy "
      "older than the one the module was built with).",
      "Install the NumPy TensorFlow's own requirements allow (the finding gives the range).",
      NUMPY2_GUIDE, explains=(codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_IMPORT_FAILED), needs=("runtime",))
def numpy_abi(s: Snapshot, d: Derived):
    return _when(numpy_abi.code)(s, d)


@rule(codes.RUNTIME_PROTOBUF, "protobuf is outside the range TensorFlow was built for",
      Severity.ERROR,
      "'Descriptors cannot be created directly' (TypeError at import): the protobuf runtime "
      "is newer than the generated code in this TensorFlow, typically protobuf 4.21+ under "
      "TensorFlow 2.9 or older, or a pin broken by another package.",
      "Install the protobuf TensorFlow's requirements allow; "
      "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python is a slow stopgap.",
      PROTOBUF_NEWS, needs=("runtime",))
def protobuf(s: Snapshot, d: Derived):
    return _when(protobuf.code)(s, d)


@rule(codes.RUNTIME_OP_NOT_REGISTERED, "An op TensorFlow's Python code needs is not registered in its binary",
      Severity.ERROR,
      "'Op type not registered ... in binary': Python files and compiled libraries come from "
      "different TensorFlow builds (two TensorFlows overwriting each other, an add-on such as "
      "tensorflow-text or tensorflow-io built for another version).",
      "Reinstall TensorFlow, and add-ons at the versions built for it.", needs=("runtime",))
def op_not_registered(s: Snapshot, d: Derived):
    return _when(op_not_registered.code)(s, d)


@rule(codes.RUNTIME_IMPORT_FAILED, "import tensorflow raises an exception",
      Severity.ERROR,
      "`import tensorflow` raised a Python exception that none of the more specific codes "
      "(plugin, architecture, NumPy, protobuf, op registration) explains: often a missing "
      "dependency, a half-finished install, or a file shadowing a module.",
      "Reinstall TensorFlow with its dependencies; `pip check` lists broken requirements.", explains=(codes.RUNTIME_NO_GPU,), needs=("runtime",))
def import_failed(s: Snapshot, d: Derived):
    return _when(import_failed.code)(s, d)


@rule(codes.RUNTIME_IMPORT_SIGILL, "TensorFlow needs CPU instructions this process does not have (Illegal instruction)",
      Severity.ERROR,
      "Importing TensorFlow killed the interpreter with SIGILL (`Illegal instruction: 4`, "
      "`zsh: illegal hardware instruction python`), or TensorFlow aborted with 'The TensorFlow "
      "library was compiled to use AVX instructions, but these aren't available on your "
      "machine'. Intel builds of TensorFlow need AVX; Rosetta 2 and QEMU do not provide it. "
      "On Apple silicon this means the Python runs as x86_64 under Rosetta 2.",
      "Use an arm64 Python (on a Mac) or an arm64 image (in Docker), and install TensorFlow "
      "into it.",
      "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment", needs=("runtime",))
def import_sigill(s: Snapshot, d: Derived):
    return _when(import_sigill.code)(s, d)


@rule(codes.RUNTIME_IMPORT_CRASHED, "TensorFlow crashed the interpreter",
      Severity.ERROR,
      "The child that imports TensorFlow was killed by a signal (SIGSEGV, SIGBUS, SIGABRT...). "
      "Usual causes: a plugin or compiled extension built for another TensorFlow, NumPy or "
      "macOS; a fatal check inside TensorFlow (its 'F ...' log line is in the evidence). "
      "The evidence names the stage and, from faulthandler, the Python frame it died in.",
      "Reinstall TensorFlow (and tensorflow-metal) as a known-good pair; the finding names it.", explains=(codes.RUNTIME_NO_GPU,), needs=("runtime",))
def import_crashed(s: Snapshot, d: Derived):
    return _when(import_crashed.code)(s, d)


@rule(codes.RUNTIME_IMPORT_HANG, "TensorFlow hung while importing or initialising its devices",
      Severity.ERROR,
      "The child was killed (with its whole process group) when the timeout ran out. The "
      "evidence shows the stage and the Python stack faulthandler dumped just before. Slow "
      "network file systems, a first import compiling caches, a plugin waiting on a device, "
      "or a lock held by another process are typical; a GPU plugin whose device cannot be "
      "created can also hang TensorFlow's context initialisation (`ensure_initialized` in the "
      "stack), which the simulated GPU reproduces.",
      "Run again with a longer --timeout; if it still hangs, the stack in the evidence names "
      "the module to look at.", explains=(codes.RUNTIME_NO_GPU,), needs=("runtime",))
def import_hang(s: Snapshot, d: Derived):
    return _when(import_hang.code)(s, d)


@rule(codes.RUNTIME_NO_RESULT, "The TensorFlow child exited without a result",
      Severity.ERROR,
      "The child exited on its own (no signal, no timeout) before finishing: something in "
      "the import called sys.exit/os._exit, or the interpreter failed to start the script. "
      "The last lines of its stderr are in the evidence.",
      "Run `python -c 'import tensorflow'` with the diagnosed interpreter and fix what it prints.", needs=("runtime",))
def no_result(s: Snapshot, d: Derived):
    return _when(no_result.code)(s, d)


@rule(codes.RUNTIME_BAD_OUTPUT, "The TensorFlow child wrote something other than its result",
      Severity.ERROR,
      "The result file was not the JSON document tfdoctor's child writes: something in the "
      "environment wrote into it, or the interpreter is not a working Python.",
      "Run `python -c 'import tensorflow'` with the diagnosed interpreter; report a tfdoctor "
      "bug if that works.", needs=("runtime",))
def bad_output(s: Snapshot, d: Derived):
    return _when(bad_output.code)(s, d)


_emit = emitter(not_installed, plugin_load_failed, library_arch_mismatch, numpy_abi, protobuf,
                              op_not_registered, import_failed, import_sigill, import_crashed, import_hang,
                              no_result, bad_output)
