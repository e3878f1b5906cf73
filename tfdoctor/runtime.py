"""Import TensorFlow in an isolated child of the diagnosed interpreter, and say how it went.

The child (tfdoctor/target/runtime_child.py) runs in its own process group under a hard timeout
(tfdoctor.childproc): a broken install may crash it with SIGILL or SIGSEGV, abort it, hang it,
or make it print megabytes; the doctor survives each and classifies the ending. The child
rewrites its result file after every stage, so even a crash says how far it got, and it keeps
TensorFlow's output out of the result: stderr is read (bounded) by tfdoctor.logparse.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rich.console import Console
from rich.markup import escape

from tfdoctor import logparse, typed
from tfdoctor.childproc import STDERR_TAIL, ChildResult, run_child
from tfdoctor.probe_facts import ProbeFacts, from_runtime
from tfdoctor.runtime_facts import STAGE_DOING, STAGES, ImportFailure, RuntimeFacts

CHILD = Path(__file__).parent / "target" / "runtime_child.py"

_RESULT_FIELDS = ("stage", "stage_s", "import_s", "tf_version", "tf_git_version", "tf_file",
                  "build_info", "import_error", "physical_devices", "logical_devices",
                  "placements", "keras", "plugins", "env", "errors")
"""Keys of the child's result document that map one to one onto RuntimeFacts fields."""


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the child: the user's, with TensorFlow's log level turned down to 0
    (so Metal's and the loader's lines reach logparse); the user's level is passed on to be
    reported."""
    env = dict(os.environ if base is None else base)
    env["TFDOCTOR_USER_TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "")
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PYTHONSTARTUP", None)
    return env


@dataclass(frozen=True)
class Inspection:
    """What one runtime child found: the runtime facts and, when asked for, the speed probes."""

    runtime: RuntimeFacts
    probes: ProbeFacts | None


def gather_runtime(python: str, timeout: float, progress: Console | None = None) -> RuntimeFacts:
    """Run the runtime child in `python`, killing its process group after `timeout` seconds.

    `progress`, when it is a terminal, shows a spinner with the child's current stage while
    TensorFlow imports (on that console, which should be stderr); nothing goes to stdout.
    """
    return inspect(python, timeout, progress).runtime


def inspect(python: str, timeout: float, progress: Console | None = None,
            probes: Mapping[str, Any] | None = None) -> Inspection:
    """gather_runtime, and the speed probes with config `probes` in the same child after its
    stages (one TensorFlow import serves both). `timeout` bounds everything before the probes;
    the probes get their own allowance (probe_runner.probe_timeout of their budget) on top."""
    args: list[str] = []
    hard_limit = timeout
    if probes is not None:
        from tfdoctor.probe_runner import budget_of, probe_timeout

        hard_limit += probe_timeout(budget_of(probes))
        args = ["--probes", json.dumps(dict(probes)), "--hard-timeout", f"{hard_limit:g}"]
    status = _Status(progress, python, timeout)

    def tick(result_path: Path, elapsed: float) -> bool:
        stage = status.tick(result_path, elapsed)
        return elapsed > timeout and stage not in ("probes", "done")

    try:
        child = run_child(python, CHILD, ["--timeout", f"{timeout:g}", *args], timeout=hard_limit,
                          env=child_env(), tick=tick if (status.active or probes is not None) else None)
    except OSError as exc:
        facts = RuntimeFacts(outcome="not-started", python=python, timeout_s=timeout,
                             message=f"{python} could not be started: {exc}")
        return Inspection(facts, from_runtime(None, facts) if probes is not None else None)
    finally:
        status.stop()
    # The limit that applied: the probes' allowance once they had started, else --timeout.
    facts = facts_from_child(python, hard_limit if status.stage == "probes" else timeout, child)
    if probes is None:
        return Inspection(facts, None)
    document = child.result.get("probes") if isinstance(child.result, dict) else None
    return Inspection(facts, from_runtime(document, facts))


def facts_from_child(python: str, timeout: float, child: ChildResult) -> RuntimeFacts:
    """Classify how the child ended, and keep what it said (a pure function of the child)."""
    log = logparse.parse(child.stderr)
    base: dict[str, Any] = {
        "python": python,
        "timeout_s": timeout,
        "duration_s": round(child.duration_s, 3),
        "returncode": child.returncode,
        "signal": child.signal_name,
        "stderr_tail": child.stderr[-STDERR_TAIL:],
        "stderr_bytes": child.stderr_bytes,
    }
    data = child.result
    if child.result_error not in (None, "missing"):
        return _bad_output(base, log, f"the child's result file is unreadable ({child.result_error})",
                           child)
    if data is not None and not (isinstance(data, dict) and data.get("schema") == 1
                                 and (data.get("stage") is None or data.get("stage") in STAGES)):
        return _bad_output(base, log, "the child's result file is not the document it writes",
                           child)
    plain = {key: data[key] for key in _RESULT_FIELDS if isinstance(data, dict) and key in data}
    plain = {key: value for key, value in plain.items() if value is not None}
    try:
        facts = typed.from_plain(RuntimeFacts, {"outcome": "ok", **plain}, "runtime")
    except typed.ShapeError as exc:
        return _bad_output(base, log, f"the child's result has the wrong shape: {exc}", child)
    for key, value in base.items():
        setattr(facts, key, value)
    facts.log = log
    if facts.import_error is not None:
        _parse_import_error(facts.import_error)
    complete = isinstance(data, dict) and data.get("complete") is True
    doing = STAGE_DOING.get(facts.stage, "running")
    if complete and facts.import_error is not None:
        err = facts.import_error
        facts.outcome = "import-error"
        facts.message = f"import tensorflow raised {err.type.rsplit('.', 1)[-1]}: {_first_line(err.message)}"
    elif complete:
        facts.outcome = "ok"
        facts.message = f"TensorFlow {facts.tf_version} imported in {facts.import_s or 0:.1f} s"
    elif child.timed_out:
        facts.outcome = "timeout"
        facts.message = f"did not finish within {timeout:g} s: stuck {doing}"
    elif child.signal_name:
        facts.outcome = "signal"
        facts.message = f"killed by {child.signal_name} while {doing}"
    else:
        facts.outcome = "no-result"
        last = _last_line(child.stderr)
        facts.message = (f"exited with code {child.returncode} while {doing}, without a result"
                         + (f": {last}" if last else ""))
    return facts


def _bad_output(base: dict[str, Any], log: Any, message: str, child: ChildResult) -> RuntimeFacts:
    facts = RuntimeFacts(outcome="bad-output", message=message, **base)
    facts.log = log
    if child.timed_out:
        facts.message += f"; it also did not finish within {base['timeout_s']:g} s"
    elif child.signal_name:
        facts.message += f"; it was killed by {child.signal_name}"
    return facts


def _parse_import_error(err: ImportFailure) -> None:
    text = "\n".join([err.message, *err.chain])
    err.events = logparse.parse(text).events


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


class _Status:
    """A rich spinner on the progress console (a terminal), following the child's stage."""

    def __init__(self, console: Console | None, python: str, timeout: float) -> None:
        self.active = bool(console is not None and console.is_terminal)
        self.timeout = timeout
        self.stage: str | None = None
        self._status = None
        if self.active:
            assert console is not None
            self._status = console.status(self._text(0.0), spinner="dots")
            self._status.start()

    def _text(self, elapsed: float) -> str:
        doing = STAGE_DOING.get(self.stage, "importing TensorFlow")
        if self.stage in (None, "started"):
            doing = "importing TensorFlow"
        return escape(f"{doing[0].upper()}{doing[1:]} in a child process… "
                      f"{elapsed:.0f} s (timeout {self.timeout:g} s)")

    def tick(self, result_path: Path, elapsed: float) -> str | None:
        """Follow the child's stage (returned) and show it."""
        try:
            stage = json.loads(result_path.read_text(encoding="utf-8")).get("stage")
        except (OSError, ValueError, AttributeError):
            stage = self.stage
        self.stage = stage if isinstance(stage, str) else self.stage
        if self._status is not None:
            self._status.update(self._text(elapsed))
        return self.stage

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
