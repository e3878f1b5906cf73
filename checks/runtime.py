"""What happened when TensorFlow was really imported, in a child of the diagnosed interpreter:
did it import at all (and if not: a crash, a hang, an exception, and which kind), did a GPU
appear, did a pinned op run on it, could memory growth be set, and what did TensorFlow log?
Reads only snapshot.runtime (gathered by tfdoctor.runtime); every fix is a command to run."""

from __future__ import annotations

import os
import shlex
from typing import Any

from packaging.utils import canonicalize_name
from tfdoctor.checks.installation import providers
from tfdoctor.checks.markers import marker_env, requirement_on

from tfdoctor.fixes import pip, python_cmd
from tfdoctor.matrix import load_matrix_or_none
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.runtime_facts import STAGE_DOING, ImportFailure, RuntimeFacts
from tfdoctor.snapshot import Snapshot

OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
PROTOBUF_NEWS = "https://protobuf.dev/news/2022-05-06/#python-updates"
NUMPY2_GUIDE = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"
PLUGGABLE_DEVICE = "https://github.com/tensorflow/community/blob/master/rfcs/20200624-pluggable-device-for-tensorflow.md"

CODES = {
    "runtime.import-sigill": CodeDoc(
        "TensorFlow needs CPU instructions this process does not have (Illegal instruction)",
        Severity.ERROR,
        "Importing TensorFlow killed the interpreter with SIGILL (`Illegal instruction: 4`, "
        "`zsh: illegal hardware instruction python`), or TensorFlow aborted with 'The TensorFlow "
        "library was compiled to use AVX instructions, but these aren't available on your "
        "machine'. Intel builds of TensorFlow need AVX; Rosetta 2 and QEMU do not provide it. "
        "On Apple silicon this means the Python runs as x86_64 under Rosetta 2.",
        "Use an arm64 Python (on a Mac) or an arm64 image (in Docker), and install TensorFlow "
        "into it.",
        "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment",
    ),
    "runtime.import-crashed": CodeDoc(
        "TensorFlow crashed the interpreter",
        Severity.ERROR,
        "The child that imports TensorFlow was killed by a signal (SIGSEGV, SIGBUS, SIGABRT...). "
        "Usual causes: a plugin or compiled extension built for another TensorFlow, NumPy or "
        "macOS; a fatal check inside TensorFlow (its 'F ...' log line is in the evidence). "
        "The evidence names the stage and, from faulthandler, the Python frame it died in.",
        "Reinstall TensorFlow (and tensorflow-metal) as a known-good pair; the finding names it.",
    ),
    "runtime.import-failed": CodeDoc(
        "import tensorflow raises an exception",
        Severity.ERROR,
        "`import tensorflow` raised a Python exception that none of the more specific codes "
        "(plugin, architecture, NumPy, protobuf, op registration) explains: often a missing "
        "dependency, a half-finished install, or a file shadowing a module.",
        "Reinstall TensorFlow with its dependencies; `pip check` lists broken requirements.",
    ),
    "runtime.not-installed": CodeDoc(
        "TensorFlow was not imported: it is not installed",
        Severity.INFO,
        "`import tensorflow` raised ModuleNotFoundError and no TensorFlow distribution is "
        "installed; the installation check reports what to install.",
        "Install TensorFlow (see install.no-tensorflow).",
    ),
    "runtime.plugin-load-failed": CodeDoc(
        "TensorFlow cannot load a plugin",
        Severity.ERROR,
        "TensorFlow loads every shared library in site-packages/tensorflow-plugins/ (and "
        "TF_PLUGGABLE_DEVICE_LIBRARY_PATH) at import, and the import fails when one does not "
        "load: 'Symbol not found' (macOS) or 'undefined symbol' (Linux) means the plugin was "
        "built against another TensorFlow (pip never enforces the tensorflow-metal pairing: "
        "the metal wheels declare no tensorflow dependency); 'invalid ELF header' or 'not a "
        "mach-o file' means the file is not a library at all.",
        "Install a TensorFlow/tensorflow-metal pair known to load together (the finding names "
        "it), or remove the stray plugin file / unset TF_PLUGGABLE_DEVICE_LIBRARY_PATH.",
        PLUGGABLE_DEVICE,
    ),
    "runtime.library-arch-mismatch": CodeDoc(
        "A library TensorFlow loads is missing or built for another architecture",
        Severity.ERROR,
        "The dynamic loader refused a compiled module: 'incompatible architecture (have "
        "'x86_64', need 'arm64')', 'mach-o, but wrong architecture', 'Library not loaded' / "
        "'image not found', or 'cannot open shared object file'. The environment mixes "
        "architectures (packages installed by a Rosetta pip, copied site-packages) or lost a "
        "file of a package.",
        "Reinstall the affected packages from the native interpreter with --force-reinstall "
        "--no-cache-dir.",
    ),
    "runtime.numpy-abi": CodeDoc(
        "NumPy does not match the compiled modules TensorFlow imports",
        Severity.ERROR,
        "'A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x' (a NumPy 2 with "
        "a TensorFlow or extension built for NumPy 1; TensorFlow allows NumPy 2 only from 2.18), "
        "or 'module compiled against API version 0xf but this version of numpy is 0xe' (a NumPy "
        "older than the one the module was built with).",
        "Install the NumPy TensorFlow's own requirements allow (the finding gives the range).",
        NUMPY2_GUIDE,
    ),
    "runtime.protobuf": CodeDoc(
        "protobuf is outside the range TensorFlow was built for",
        Severity.ERROR,
        "'Descriptors cannot be created directly' (TypeError at import): the protobuf runtime "
        "is newer than the generated code in this TensorFlow, typically protobuf 4.21+ under "
        "TensorFlow 2.9 or older, or a pin broken by another package.",
        "Install the protobuf TensorFlow's requirements allow; "
        "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python is a slow stopgap.",
        PROTOBUF_NEWS,
    ),
    "runtime.op-not-registered": CodeDoc(
        "An op TensorFlow's Python code needs is not registered in its binary",
        Severity.ERROR,
        "'Op type not registered ... in binary': Python files and compiled libraries come from "
        "different TensorFlow builds (two TensorFlows overwriting each other, an add-on such as "
        "tensorflow-text or tensorflow-io built for another version).",
        "Reinstall TensorFlow, and add-ons at the versions built for it.",
    ),
    "runtime.import-hang": CodeDoc(
        "TensorFlow hung while importing or initialising its devices",
        Severity.ERROR,
        "The child was killed (with its whole process group) when the timeout ran out. The "
        "evidence shows the stage and the Python stack faulthandler dumped just before. Slow "
        "network file systems, a first import compiling caches, a plugin waiting on a device, "
        "or a lock held by another process are typical; a GPU plugin whose device cannot be "
        "created can also hang TensorFlow's context initialisation (`ensure_initialized` in the "
        "stack), which the simulated GPU reproduces.",
        "Run again with a longer --timeout; if it still hangs, the stack in the evidence names "
        "the module to look at.",
    ),
    "runtime.no-result": CodeDoc(
        "The TensorFlow child exited without a result",
        Severity.ERROR,
        "The child exited on its own (no signal, no timeout) before finishing: something in "
        "the import called sys.exit/os._exit, or the interpreter failed to start the script. "
        "The last lines of its stderr are in the evidence.",
        "Run `python -c 'import tensorflow'` with the diagnosed interpreter and fix what it prints.",
    ),
    "runtime.bad-output": CodeDoc(
        "The TensorFlow child wrote something other than its result",
        Severity.ERROR,
        "The result file was not the JSON document tfdoctor's child writes: something in the "
        "environment wrote into it, or the interpreter is not a working Python.",
        "Run `python -c 'import tensorflow'` with the diagnosed interpreter; report a tfdoctor "
        "bug if that works.",
    ),
    "runtime.no-gpu": CodeDoc(
        "No GPU is listed although a GPU plugin is installed",
        Severity.ERROR,
        "TensorFlow imported, but tf.config.list_physical_devices('GPU') is empty while "
        "tensorflow-metal (or another plugin) is installed: the plugin did not register its "
        "device (wrong macOS, a plugin TensorFlow skipped, missing GPU libraries).",
        "Install a TensorFlow/tensorflow-metal pair known to work on this macOS (the finding "
        "names it).",
    ),
    "runtime.gpu-libraries": CodeDoc(
        "TensorFlow could not load its GPU libraries",
        Severity.WARNING,
        "TensorFlow logged 'Cannot dlopen some GPU libraries' or 'Could not load dynamic "
        "library ...': GPU support libraries (CUDA, cuDNN, TensorRT) are missing or of the wrong "
        "version, so no GPU is used.",
        "Install the libraries the log names, or TensorFlow's bundled ones (pip install "
        "'tensorflow[and-cuda]' on Linux).",
    ),
    "runtime.gpu-placement": CodeDoc(
        "Ops pinned to the GPU ran elsewhere",
        Severity.ERROR,
        "A 2x2 matmul run under tf.device('/GPU:i') produced a tensor whose .device is not that "
        "GPU (soft placement fell back to the CPU), or failed. The GPU is listed but does not "
        "run even a matmul: a plugin without kernels for this TensorFlow.",
        "Install a TensorFlow/tensorflow-metal pair known to work together.",
    ),
    "runtime.memory-growth": CodeDoc(
        "GPU memory growth could not be set",
        Severity.WARNING,
        "In a fresh process, right after import, tf.config.experimental.set_memory_growth(gpu, "
        "True) failed or get_memory_growth did not read back True. 'Physical devices cannot be "
        "modified after being initialized' means something initialised the devices during "
        "import (a plugin, a sitecustomize); code that sets memory growth will fail the same way.",
        "Set memory growth before any op runs, or set TF_FORCE_GPU_ALLOW_GROWTH=true.",
    ),
    "runtime.optimizer-slowdown": CodeDoc(
        "Keras' v2.11+ optimizers run slowly on this Apple GPU",
        Severity.WARNING,
        "Keras 2.11-2.15 logs 'At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs "
        "slowly on M1/M2 Macs, please use the legacy Keras optimizer instead': Apple's plugin "
        "has fused kernels only for the legacy optimizers, so the new ones run op by op "
        "(tensorflow/tensorflow#59438); some versions silently fall back to the legacy optimizer.",
        "Use tf.keras.optimizers.legacy.* explicitly, or move to the recommended TensorFlow "
        "(Keras 3) pair.",
        OPTIMIZER_ISSUE,
    ),
    "runtime.ok": CodeDoc(
        "TensorFlow imports and runs",
        Severity.OK,
        "TensorFlow imported in a child process, listed its devices, and a pinned op ran on each.",
        "Nothing to do.",
    ),
}

_PLUGIN_ERROR_KINDS = ("undefined-symbol", "symbol-not-found", "invalid-shared-object",
                       "plugin-path-missing", "dlopen", "referenced-from")
_NUMPY_KINDS = ("numpy-1x-on-2x", "numpy-api-version", "numpy-array-api", "numpy-multiarray")
_ARCH_KINDS = ("arch-mismatch", "library-not-loaded")
_TF_ADDONS = ("tensorflow-text", "tensorflow-io", "tensorflow-io-gcs-filesystem",
              "tensorflow-addons", "tensorflow-decision-forests", "tensorflow-recommenders",
              "tensorflow-probability", "tensorflow-hub", "tensorflow-model-optimization")


# ---------------------------------------------------------------------------------------------
# helpers


PROBE_CONSEQUENCES = {
    "runtime.gpu-placement": ("probe.gpu-not-used",),
    "runtime.no-gpu": ("probe.cpu-only",),
    "runtime.plugin-load-failed": ("probe.cpu-only",),
    "runtime.optimizer-slowdown": ("probe.gpu-slower",),
}
"""What the speed probes then measure as a consequence: the same cause, seen first here."""


def _finding(code: str, title: str, evidence: dict[str, Any], fix: Remediation | None,
             explains: tuple[str, ...] = (), detail: str = "",
             severity: Severity | None = None) -> Finding:
    explains = explains + PROBE_CONSEQUENCES.get(code, ())
    return Finding(code, severity or CODES[code].severity, title, evidence, fix, detail, explains)


def _tf(s: Snapshot) -> tuple[str | None, str | None]:
    """(distribution, version) of the installed TensorFlow, the runtime's version preferred."""
    real, shims = providers(s)
    main = real[0] if real else (shims[0] if shims else None)
    version = (s.runtime.tf_version if s.runtime else None) or (main.version if main else None)
    return (main.name if main else None), version


def _metal_version(s: Snapshot) -> str | None:
    metal = s.package("tensorflow-metal")
    return metal.version if metal else None


def _apple_silicon(s: Snapshot) -> bool:
    return s.host.system == "Darwin" and bool(s.host.hw_arm64)


def _base_evidence(s: Snapshot, rt: RuntimeFacts) -> dict[str, Any]:
    dist, version = _tf(s)
    return {"outcome": rt.outcome, "stage": rt.stage, "python": rt.python,
            "tensorflow": f"{dist} {version}" if dist else version,
            "tensorflow_metal": _metal_version(s), "duration_s": rt.duration_s}


_FAULTHANDLER_NOISE = ("  File ", "Extension modules:", "Current thread ", "Thread 0x",
                       "Stack (most recent call first)", "Fatal Python error:", "Timeout (")


def _stderr_lines(rt: RuntimeFacts, n: int = 8) -> list[str]:
    """The last lines of the child's stderr, without faulthandler's dump (in python_stack)."""
    lines = [line.rstrip() for line in rt.stderr_tail.splitlines()
             if line.strip() and not line.startswith(_FAULTHANDLER_NOISE)]
    return [line[:300] for line in lines[-n:]]


def _requires(s: Snapshot, name: str) -> str | None:
    """The specifier TensorFlow's own metadata (or the matrix) puts on `name`, e.g. "<2.2,>=1.26",
    with markers evaluated for the diagnosed interpreter (2.16/2.17 pin numpy by Python version)."""
    env = marker_env(s)
    for dist in s.tensorflow_distributions():
        req = requirement_on(dist, name, env)
        if req is not None and str(req.specifier):
            return str(req.specifier)
    key = canonicalize_name(name)
    _dist, version = _tf(s)
    matrix = load_matrix_or_none()
    if matrix is not None and version and _apple_silicon(s):
        try:
            return matrix.tf_pins(version, s.python.minor if s.python else None).get(key)
        except Exception:  # noqa: BLE001 - the matrix is advice, never a reason to crash
            return None
    return None


def pair_fix(s: Snapshot) -> tuple[tuple[str, ...], str, dict[str, Any]]:
    """Requirements for a TensorFlow/tensorflow-metal pair that loads, why, and matrix facts."""
    _dist, tf_version = _tf(s)
    metal = _metal_version(s)
    py = s.python.minor if s.python else None
    matrix = load_matrix_or_none()
    if matrix is None:
        reqs = tuple(f for f in ("tensorflow-metal",) if metal)
        return reqs, "tfdoctor's compatibility matrix is unavailable: reinstall the plugin", {}
    try:
        if tf_version and metal:
            pairing = matrix.pairing(tf_version, metal, py, "arm64")
            facts = {"pair_status": pairing.status, "pair_evidence": pairing.evidence,
                     "pair_sources": list(pairing.sources)}
            if pairing.fix:
                return (tuple(pairing.fix),
                        f"tensorflow {tf_version} + tensorflow-metal {metal} is {pairing.status}; "
                        f"install {' + '.join(pairing.fix)}", facts)
            return ((f"tensorflow-metal=={metal}",),
                    f"the pair is {pairing.status}: reinstall the plugin", facts)
        if py:
            rec = matrix.recommended_install(py, "arm64", s.host.macos_version or None)
            if rec.requirements:
                return tuple(rec.requirements), rec.reason, {"recommended_status": rec.status}
    except Exception:  # noqa: BLE001 - the matrix is advice, never a reason to crash
        pass
    return (("tensorflow-metal",) if metal else ()), "reinstall the plugin", {}


def _reinstall_tf(s: Snapshot, *extra: str) -> str | None:
    dist, version = _tf(s)
    if not dist:
        return None
    return pip(s, "install", "--force-reinstall", f"{dist}=={version}" if version else dist, *extra)


def _doing(rt: RuntimeFacts) -> str:
    return STAGE_DOING.get(rt.stage, "running")


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


def _plugin_failed(s: Snapshot, rt: RuntimeFacts, err: ImportFailure, library: str,
                   ev: dict[str, Any]) -> Finding:
    name = os.path.basename(library)
    _dist, tf_version = _tf(s)
    metal = _metal_version(s)
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
    elif is_metal and (metal or _apple_silicon(s)):
        reqs, why, facts = pair_fix(s)
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
    return _finding("runtime.plugin-load-failed", title, ev,
                    Remediation(text, tuple(commands), PLUGGABLE_DEVICE),
                    explains=("runtime.no-gpu", "runtime.gpu-placement"))


def _numpy_finding(s: Snapshot, rt: RuntimeFacts, events: list, ev: dict[str, Any],
                   crashed: str | None = None) -> Finding:
    kinds = {e.kind for e in events}
    numpy = s.package("numpy")
    installed = numpy.version if numpy else None
    compiled = next((e.fields for e in events if e.kind == "numpy-api-version"), {})
    _dist, tf_version = _tf(s)
    spec = _requires(s, "numpy")
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
    return _finding("runtime.numpy-abi", title, ev, fix,
                    explains=("runtime.import-crashed", "runtime.import-failed"))


def _import_error(s: Snapshot, rt: RuntimeFacts) -> Finding:
    err = rt.import_error
    assert err is not None
    short_type = err.type.rsplit(".", 1)[-1]
    ev = {**_base_evidence(s, rt), "exception": short_type, "exception_type": err.type,
          "message": err.message[:2000], "traceback_tail": err.traceback[-6:],
          "chained": err.chain[:3]}
    kinds = err.kinds()
    log_kinds = rt.log.kinds()
    dist, tf_version = _tf(s)

    if short_type == "ModuleNotFoundError" and "'tensorflow'" in err.message and not dist:
        return _finding("runtime.not-installed", "TensorFlow is not installed, so it was not imported",
                        ev, Remediation(CODES["runtime.not-installed"].fix))
    library = _plugin_library(err, rt, s)
    if library and not kinds & {"arch-mismatch"}:
        return _plugin_failed(s, rt, err, library, ev)
    if kinds & set(_ARCH_KINDS):
        return _arch_mismatch(s, rt, err, ev)
    numpy_events = [e for e in err.events if e.kind in _NUMPY_KINDS] or \
        [e for e in rt.log.events if e.kind in _NUMPY_KINDS]
    if numpy_events:
        return _numpy_finding(s, rt, numpy_events, ev)
    if "protobuf-descriptors" in kinds or "protobuf-descriptors" in log_kinds:
        spec = _requires(s, "protobuf")
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
        return _finding("runtime.protobuf", title, ev, fix)
    if "op-not-registered" in kinds:
        op = _event_field(err, ("op-not-registered",), "op")
        addons = [p for p in (s.package(n) for n in _TF_ADDONS) if p]
        ev = {**ev, "op": op, "addons": {p.name: p.version for p in addons}}
        commands = [c for c in (_reinstall_tf(s, "--no-deps"),) if c] + [pip(s, "check")]
        fix = Remediation("Reinstall TensorFlow so its Python files and binaries match, and keep "
                          "add-ons at the versions built for it", tuple(commands))
        return _finding("runtime.op-not-registered",
                        f"import tensorflow fails: op {op!r} is not registered in the TensorFlow binary",
                        ev, fix)
    first = err.message.strip().splitlines()[0][:200] if err.message.strip() else ""
    commands = [c for c in (_reinstall_tf(s),) if c] + [pip(s, "check")]
    fix = Remediation("Reinstall TensorFlow with its dependencies, then check for broken "
                      "requirements", tuple(commands))
    return _finding("runtime.import-failed", f"import tensorflow fails: {short_type}: {first}".rstrip(": "),
                    ev, fix, explains=("runtime.no-gpu",))


def _arch_mismatch(s: Snapshot, rt: RuntimeFacts, err: ImportFailure, ev: dict[str, Any]) -> Finding:
    have = _event_field(err, ("arch-mismatch",), "have")
    need = _event_field(err, ("arch-mismatch",), "need")
    library = (_event_field(err, ("dlopen", "library-not-loaded", "invalid-shared-object",
                                  "undefined-symbol"), "library"))
    ev = {**ev, "library": library, "library_arch": have, "process_arch": need or
          (s.python.process_arch if s.python else None)}
    names = [f"{d.name}=={d.version}" for d in s.tensorflow_distributions() if d.version]
    if library and "tensorflow-plugins" in library and s.package("tensorflow-metal"):
        names.append(f"tensorflow-metal=={_metal_version(s)}")
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
    return _finding("runtime.library-arch-mismatch", title, ev, Remediation(text, commands),
                    explains=("runtime.no-gpu", "runtime.plugin-load-failed"))


# ---------------------------------------------------------------------------------------------
# crashes, hangs, no result


def _arm64_fix(s: Snapshot) -> Remediation:
    if s.host.system == "Linux" and s.host.cpu_implementer:
        return Remediation("Run an arm64 image: an x86_64 TensorFlow under emulation lacks AVX",
                           ("docker run --platform linux/arm64 IMAGE",),
                           "https://github.com/docker/for-mac/issues/5342")
    if _apple_silicon(s) or s.host.system == "Darwin":
        reqs: tuple[str, ...] = ("tensorflow",)
        matrix = load_matrix_or_none()
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
            CODES["runtime.import-sigill"].link)
    return Remediation("This CPU lacks the instructions (AVX) TensorFlow's wheels need: use a "
                       "build without AVX (conda-forge) or another machine",
                       ("conda install -c conda-forge tensorflow",))


def _signal(s: Snapshot, rt: RuntimeFacts) -> Finding:
    sig = rt.signal or "a signal"
    log = rt.log
    ev = {**_base_evidence(s, rt), "signal": sig, "python_fatal": log.python_fatal,
          "python_stack": log.python_stack[:6], "tensorflow_fatal": log.fatal[:3],
          "stderr_tail": _stderr_lines(rt)}
    missing = log.cpu_instructions_missing
    if sig == "SIGILL" or missing:
        ev["cpu_instructions_missing"] = missing
        what = f"needs {', '.join(missing)}" if missing else "uses an instruction"
        title = (f"TensorFlow was killed by {sig} while {_doing(rt)}: it {what} this CPU (as this "
                 "process sees it) does not have")
        return _finding("runtime.import-sigill", title, ev, _arm64_fix(s))
    numpy_events = [e for e in log.events if e.kind in _NUMPY_KINDS]
    if numpy_events:
        return _numpy_finding(s, rt, numpy_events, ev, crashed=sig)
    in_plugin = any("load_library" in frame for frame in log.python_stack) and rt.plugins
    where = (f" while loading {', '.join(os.path.basename(p.path) for p in rt.plugins)}"
             if in_plugin else f" while {_doing(rt)}")
    title = f"TensorFlow crashed with {sig}{where}"
    if log.fatal:
        title += f": {log.fatal[0][:160]}"
    if in_plugin and (_metal_version(s) or _apple_silicon(s)):
        reqs, why, facts = pair_fix(s)
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
        commands = [c for c in (_reinstall_tf(s),) if c]
        commands.append(f"{python_cmd(s)} -X faulthandler -c \"import tensorflow\"")
        fix = Remediation("Reinstall TensorFlow; the last command reproduces the crash with a "
                          "Python stack", tuple(commands))
    return _finding("runtime.import-crashed", title, ev, fix,
                    explains=("runtime.no-gpu",))


def _hang(s: Snapshot, rt: RuntimeFacts) -> Finding:
    ev = {**_base_evidence(s, rt), "timeout_s": rt.timeout_s, "python_stack": rt.log.python_stack[:8],
          "stderr_tail": _stderr_lines(rt)}
    where = f" (last Python frame: {rt.log.python_stack[0]})" if rt.log.python_stack else ""
    title = f"TensorFlow did not finish within {rt.timeout_s or 0:g} s: stuck {_doing(rt)}{where}"
    longer = max(300, int((rt.timeout_s or 60) * 5))
    fix = Remediation(
        "Try a longer timeout; if it still hangs, the second command prints where (after 60 s)",
        (f"tfdoctor check --python {python_cmd(s)} --timeout {longer}",
         f"{python_cmd(s)} -c \"import faulthandler; faulthandler.dump_traceback_later(60, exit=True); "
         "import tensorflow\""))
    return _finding("runtime.import-hang", title, ev, fix, explains=("runtime.no-gpu",))


def _no_result(s: Snapshot, rt: RuntimeFacts, code: str) -> Finding:
    ev = {**_base_evidence(s, rt), "returncode": rt.returncode, "message": rt.message,
          "stderr_tail": _stderr_lines(rt)}
    title = (f"The TensorFlow child {rt.message}" if code == "runtime.no-result"
             else f"The TensorFlow child's output is unusable: {rt.message}")
    fix = Remediation("Import TensorFlow by hand with this interpreter and fix what it prints",
                      (f"{python_cmd(s)} -c \"import tensorflow as tf; print(tf.__version__)\"",))
    return _finding(code, title, ev, fix)


# ---------------------------------------------------------------------------------------------
# TensorFlow imported


def _healthy(s: Snapshot, rt: RuntimeFacts) -> list[Finding]:
    findings: list[Finding] = []
    gpus = rt.gpus
    log = rt.log
    metal = _metal_version(s)
    base = _base_evidence(s, rt)
    plugins = [p for p in rt.plugins if p.exists]

    if log.gpu_libraries_missing or (log.library_failures and not gpus):
        failures = [{"library": f.library, "error": f.error} for f in log.library_failures[:8]]
        severity = Severity.WARNING if log.gpu_libraries_missing else Severity.INFO
        fix = Remediation("Install the GPU libraries TensorFlow looks for (on Linux the pip extra "
                          "brings them)", (pip(s, "install", "tensorflow[and-cuda]"),)
                          if s.host.system == "Linux" else ())
        findings.append(_finding(
            "runtime.gpu-libraries",
            f"TensorFlow could not load {len(failures) or 'some'} GPU librar"
            f"{'y' if len(failures) == 1 else 'ies'}"
            + (f": {', '.join(f['library'] for f in failures[:3])}" if failures else ""),
            {**base, "library_failures": failures, "gpu_libraries_missing": log.gpu_libraries_missing},
            fix, explains=("runtime.no-gpu",), severity=severity))

    if not gpus and (plugins or (metal and _apple_silicon(s))):
        reqs, why, facts = pair_fix(s) if (metal or _apple_silicon(s)) else ((), "", {})
        ev = {**base, "plugins": [p.path for p in plugins], "physical_devices":
              [d.name for d in rt.physical_devices], "metal_device_log": log.metal_device, **facts}
        if reqs:
            fix = Remediation(f"Install a pair known to work: {why}",
                              (pip(s, "install", "--force-reinstall", *reqs),))
        else:
            fix = Remediation("Reinstall the plugin's package for this TensorFlow, or remove it",
                              tuple(f"mv {shlex.quote(p.path)} {shlex.quote(p.path + '.disabled')}"
                                    for p in plugins[:3]))
        names = ", ".join(os.path.basename(p.path) for p in plugins) or f"tensorflow-metal {metal}"
        findings.append(_finding(
            "runtime.no-gpu", f"No GPU is listed although {names} is installed", ev, fix,
            severity=Severity.ERROR if metal and _apple_silicon(s) else Severity.WARNING))

    bad = [p for p in rt.placements if p.requested.upper().startswith("/GPU")
           and (p.error or not p.on_requested_device)]
    if bad:
        reqs, why, facts = pair_fix(s) if (metal or _apple_silicon(s)) else ((), "", {})
        ev = {**base, "placements": [{"requested": p.requested, "device": p.device, "error": p.error}
                                     for p in bad], **facts}
        first = bad[0]
        ran = first.device.rsplit("/", 1)[-1].replace("device:", "") if first.device else "nowhere"
        title = (f"A matmul pinned to {first.requested.strip('/')} ran on {ran}"
                 + (f" ({first.error[:120]})" if first.error else ""))
        commands = (pip(s, "install", "--force-reinstall", *reqs),) if reqs else \
            tuple(c for c in (_reinstall_tf(s),) if c)
        fix = Remediation("The GPU does not run even a matmul: install a TensorFlow/plugin pair "
                          f"known to work{': ' + why if why else ''}", commands)
        findings.append(_finding("runtime.gpu-placement", title, ev, fix))

    growth = [d for d in gpus if d.memory_growth_error or d.memory_growth is False]
    if growth:
        first = growth[0]
        reason = first.memory_growth_error or "get_memory_growth read back False"
        ev = {**base, "devices": [{"device": d.name, "memory_growth": d.memory_growth,
                                   "error": d.memory_growth_error} for d in growth]}
        snippet = ("import tensorflow as tf; "
                   "[tf.config.experimental.set_memory_growth(g, True) for g in "
                   "tf.config.list_physical_devices('GPU')]; print('memory growth set')")
        fix = Remediation(
            "Set memory growth first thing after import, before any op or tf.config call that "
            "initialises the GPU, or let TensorFlow do it: export TF_FORCE_GPU_ALLOW_GROWTH=true",
            ("export TF_FORCE_GPU_ALLOW_GROWTH=true", f"{python_cmd(s)} -c \"{snippet}\""))
        findings.append(_finding(
            "runtime.memory-growth",
            f"Memory growth could not be set on {first.name.replace('/physical_device:', '')} in a "
            f"fresh process: {reason[:160]}", ev, fix))

    if log.optimizer_slowdown or log.optimizer_fallback:
        keras = rt.keras
        from tfdoctor.recommend import recommended_requirements

        try:
            rec = recommended_requirements(s)
            reqs, rec_text = rec.requirements, rec.text
        except Exception:  # noqa: BLE001 - advice only
            reqs, rec_text = (), ""
        names = log.optimizer_slowdown or ["tf.keras.optimizers.Adam"]
        ev = {**base, "optimizers": names, "fell_back_to_legacy": log.optimizer_fallback,
              "keras": keras.tf_keras_resolved_version if keras else None,
              "metal_device": log.metal_device,
              "log": [e.line for e in log.events if e.kind in ("optimizer-slowdown", "optimizer-fallback")][:3]}
        legacy = names[0].replace(".optimizers.", ".optimizers.legacy.")
        commands = (pip(s, "install", *reqs),) if reqs else ()
        fix = Remediation(
            f"Use the legacy optimizer explicitly ({legacy}), or install the recommended pair "
            f"(Keras 3){': ' + rec_text if rec_text else ''}", commands, OPTIMIZER_ISSUE)
        findings.append(_finding(
            "runtime.optimizer-slowdown",
            f"Keras warns that the v2.11+ optimizer {names[0]} runs slowly on this Apple GPU"
            + (" (it fell back to the legacy one)" if log.optimizer_fallback else ""), ev, fix))

    devices = [d.name.replace("/physical_device:", "") for d in rt.physical_devices]
    ran = [p.requested.strip("/") for p in rt.placements if p.on_requested_device and not p.error]
    keras = rt.keras
    keras_text = ""
    if keras and keras.tf_keras_resolved_version:
        keras_text = f"; tf.keras is Keras {keras.tf_keras_resolved_version}"
    title = (f"TensorFlow {rt.tf_version} imports in {rt.import_s or 0:.1f} s; devices: "
             f"{', '.join(devices) or 'none'}"
             + (f"; a pinned op ran on {', '.join(ran)}" if ran else "") + keras_text)
    ok_ev = {**base, "tf_version": rt.tf_version, "tf_git_version": rt.tf_git_version,
             "import_s": rt.import_s, "physical_devices": devices,
             "logical_devices": [d.name for d in rt.logical_devices],
             "placements": {p.requested: p.device for p in rt.placements},
             "build_info": rt.build_info,
             "keras": {"version": keras.tf_keras_resolved_version, "is_keras3": keras.is_keras3,
                       "tf_keras": keras.tf_keras_version, "TF_USE_LEGACY_KERAS": keras.use_legacy_keras}
             if keras else None,
             "plugins": [p.path for p in rt.plugins], "metal_device": log.metal_device,
             "system_memory": log.system_memory, "stage_errors": [f"{e.stage}: {e.error}" for e in rt.errors]}
    findings.append(Finding("runtime.ok", Severity.OK, title, ok_ev))
    return findings


def run(s: Snapshot) -> list[Finding]:
    rt = s.runtime
    assert rt is not None
    if rt.outcome == "ok":
        return _healthy(s, rt)
    if rt.outcome == "import-error" and rt.import_error is not None:
        return [_import_error(s, rt)]
    if rt.outcome == "signal":
        return [_signal(s, rt)]
    if rt.outcome == "timeout":
        return [_hang(s, rt)]
    if rt.outcome in ("no-result", "not-started"):
        return [_no_result(s, rt, "runtime.no-result")]
    return [_no_result(s, rt, "runtime.bad-output")]


CHECK = Check(
    name="runtime",
    area="TensorFlow at run time",
    summary="TensorFlow imports in a child process, lists its GPU, and runs an op on it",
    run=run,
    codes=CODES,
    needs=("runtime",),
    order=70,
)
