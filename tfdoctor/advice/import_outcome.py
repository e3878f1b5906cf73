"""How `import tensorflow` went wrong in the child, decided once per snapshot: which runtime rule
speaks for it. Two rule modules share this one classification, checks/runtime_import.py (the
import raised: a plugin, an architecture, NumPy, protobuf, an op missing from the binary) and
checks/runtime_crash.py (the child died, hung or gave no answer); a crash whose log shows a NumPy
ABI error belongs to the first, so neither module can decide alone. Only the code and the facts
that picked it are decided here; each rule builds its own finding."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tfdoctor import codes
from tfdoctor.advice.runtime_evidence import base_evidence, stderr_lines, tf_of
from tfdoctor.derived import Derived
from tfdoctor.facts.runtime import ImportFailure, LogEvent, RuntimeFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Rule, rule

PLUGIN_ERROR_KINDS = ("undefined-symbol", "symbol-not-found", "invalid-shared-object",
                      "plugin-path-missing", "dlopen", "referenced-from")
NUMPY_KINDS = ("numpy-1x-on-2x", "numpy-api-version", "numpy-array-api", "numpy-multiarray")
ARCH_KINDS = ("arch-mismatch", "library-not-loaded")
_MEMO_KEY = "runtime.import-outcome"


@dataclass(frozen=True)
class ImportOutcome:
    """The runtime code that explains how the import went wrong, with what decided it."""

    code: str
    library: str | None = None
    """The plugin file that failed to load (runtime.plugin-load-failed)."""
    numpy_events: tuple[LogEvent, ...] = ()
    """The NumPy ABI messages (runtime.numpy-abi), from the exception or the child's log."""
    signal: str | None = None
    """The signal that killed the child, when it was killed."""


def event_field(err: ImportFailure, kinds: tuple[str, ...], name: str) -> str | None:
    """The first non-empty field `name` of an event of one of `kinds` in the exception."""
    for event in err.events:
        if event.kind in kinds and event.fields.get(name):
            return event.fields[name]
    return None


def in_plugin_dir(path: str, rt: RuntimeFacts, s: Snapshot) -> bool:
    """Whether TensorFlow loaded `path` as a plugin (tensorflow-plugins/ or the env variable)."""
    if "tensorflow-plugins" in path.replace("\\", "/").split("/"):
        return True
    configured = rt.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH") or s.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH")
    if configured and (path == configured or path.startswith(configured.rstrip("/") + "/")):
        return True
    return any(p.path == path for p in rt.plugins)


def plugin_library(err: ImportFailure, rt: RuntimeFacts, s: Snapshot) -> str | None:
    """The plugin library the exception is about, when it is about one."""
    if "plugin-path-missing" in err.kinds():
        return event_field(err, ("plugin-path-missing",), "library") or \
            rt.env.get("TF_PLUGGABLE_DEVICE_LIBRARY_PATH") or "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"
    for event in err.events:
        library = event.fields.get("library")
        if event.kind in PLUGIN_ERROR_KINDS and library and in_plugin_dir(library, rt, s):
            return library
    # A failing frame inside load_library with one plugin installed: that plugin.
    if any("load_library" in frame for frame in err.traceback[-3:]) and len(rt.plugins) == 1:
        if err.kinds() & set(PLUGIN_ERROR_KINDS):
            return rt.plugins[0].path
    return None


def crash_evidence(s: Snapshot, d: Derived, rt: RuntimeFacts) -> dict[str, Any]:
    """What every finding about a child killed by a signal quotes."""
    log = rt.log
    return {**base_evidence(s, d, rt), "signal": rt.signal or "a signal", "python_fatal": log.python_fatal,
            "python_stack": log.python_stack[:6], "tensorflow_fatal": log.fatal[:3],
            "stderr_tail": stderr_lines(rt)}


def _raised(s: Snapshot, d: Derived, rt: RuntimeFacts, err: ImportFailure) -> ImportOutcome:
    kinds = err.kinds()
    dist, _version = tf_of(d)
    if err.type.rsplit(".", 1)[-1] == "ModuleNotFoundError" and "'tensorflow'" in err.message and not dist:
        return ImportOutcome(codes.RUNTIME_NOT_INSTALLED)
    library = plugin_library(err, rt, s)
    if library and not kinds & {"arch-mismatch"}:
        return ImportOutcome(codes.RUNTIME_PLUGIN_LOAD_FAILED, library=library)
    if kinds & set(ARCH_KINDS):
        return ImportOutcome(codes.RUNTIME_LIBRARY_ARCH_MISMATCH)
    numpy_events = [e for e in err.events if e.kind in NUMPY_KINDS] or \
        [e for e in rt.log.events if e.kind in NUMPY_KINDS]
    if numpy_events:
        return ImportOutcome(codes.RUNTIME_NUMPY_ABI, numpy_events=tuple(numpy_events))
    if "protobuf-descriptors" in kinds or "protobuf-descriptors" in rt.log.kinds():
        return ImportOutcome(codes.RUNTIME_PROTOBUF)
    if "op-not-registered" in kinds:
        return ImportOutcome(codes.RUNTIME_OP_NOT_REGISTERED)
    return ImportOutcome(codes.RUNTIME_IMPORT_FAILED)


def _killed(rt: RuntimeFacts) -> ImportOutcome:
    sig = rt.signal or "a signal"
    if sig == "SIGILL" or rt.log.cpu_instructions_missing:
        return ImportOutcome(codes.RUNTIME_IMPORT_SIGILL, signal=sig)
    numpy_events = [e for e in rt.log.events if e.kind in NUMPY_KINDS]
    if numpy_events:
        return ImportOutcome(codes.RUNTIME_NUMPY_ABI, numpy_events=tuple(numpy_events), signal=sig)
    return ImportOutcome(codes.RUNTIME_IMPORT_CRASHED, signal=sig)


def _classify(s: Snapshot, d: Derived) -> ImportOutcome | None:
    rt = s.runtime
    if rt is None or rt.outcome == "ok":  # outcome "ok" is runtime_devices' business
        return None
    if rt.outcome == "import-error" and rt.import_error is not None:
        return _raised(s, d, rt, rt.import_error)
    if rt.outcome == "signal":
        return _killed(rt)
    if rt.outcome == "timeout":
        return ImportOutcome(codes.RUNTIME_IMPORT_HANG)
    if rt.outcome in ("no-result", "not-started", "temp-dir"):
        return ImportOutcome(codes.RUNTIME_NO_RESULT)
    return ImportOutcome(codes.RUNTIME_BAD_OUTPUT)


def import_outcome(s: Snapshot, d: Derived) -> ImportOutcome | None:
    """The classification of this snapshot's failed import (None when it succeeded), computed
    once for all the rules that ask."""
    return d.once(_MEMO_KEY, lambda: _classify(s, d))


def outcome_rules(finding: Callable[[Snapshot, Derived, ImportOutcome], Any]) -> Callable[..., Rule]:
    """How a module whose one function `finding(s, d, outcome)` builds all its findings declares
    its rules: `name = declare(codes.X, title, severity, why, fix, ...)` (what tfdoctor.model.rule
    takes) is the rule that speaks, with `finding`, when the import's classification names X; the
    rule has no body of its own, since which rule speaks is decided here once."""

    def declare(code: str, *doc: Any, **options: Any) -> Rule:
        def decide(s: Snapshot, d: Derived) -> Any:
            outcome = import_outcome(s, d)
            return finding(s, d, outcome) if outcome is not None and outcome.code == code else None

        decide.__module__ = finding.__module__  # the rule belongs to the module that declares it
        return rule(code, *doc, **options)(decide)

    return declare
