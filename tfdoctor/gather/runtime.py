"""Import TensorFlow in an isolated child of the diagnosed interpreter, and say how it went.

The child (tfdoctor/inside/runtime/__main__.py) runs in its own process group under a hard timeout
(tfdoctor.child.process): a broken install may crash it with SIGILL or SIGSEGV, abort it, hang it,
or make it print megabytes; the doctor survives each and classifies the ending. The child
rewrites its result file after every stage, so even a crash says how far it got, and it keeps
TensorFlow's output out of the result: stderr is read (bounded) by tfdoctor.logtext.stderr. When
`check` asks for them, the speed probes run in the same child after its stages (`inspect`), so one
TensorFlow import serves both; tfdoctor.gather.probes runs them alone.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from rich.console import Console

from tfdoctor.child.process import ChildResult, run_child
from tfdoctor.facts import typed
from tfdoctor.facts.probes import ProbeFacts, from_runtime
from tfdoctor.facts.runtime import (
    STAGE_DOING,
    STAGES,
    STDERR_TAIL,
    ImportFailure,
    RuntimeFacts,
)
from tfdoctor.gather.child_status import ChildStatus
from tfdoctor.gather.static import child_program, private_scripts
from tfdoctor.inside.shared.result_file import RESULT_LOST, RESULT_LOST_EXIT
from tfdoctor.logtext import stderr
from tfdoctor.sanitize.redact import mask_plain, mask_secrets

PARENT_OWNED = ("outcome", "message", "log")
"""RuntimeFacts fields tfdoctor sets itself (with those of `base` in facts_from_child): every
other key of the child's document that names a RuntimeFacts field is taken as is."""


def child_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the child: the user's, with TensorFlow's log level turned down to 0
    (so Metal's and the loader's lines reach tfdoctor.logtext.stderr); the user's level is passed on to be
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
    the probes get their own allowance (tfdoctor.gather.probes.probe_timeout of their budget) on top."""
    args: list[str] = []
    hard_limit = timeout
    refused = None
    if probes is not None:
        from tfdoctor.gather.probes import budget_of, config_problem, probe_timeout

        refused = config_problem(probes)
    if refused is not None:
        # Probes that cannot fit their budget are not started (they would end only at the
        # hard timeout, looking like a hang): the runtime facts are gathered without them.
        found = inspect(python, timeout, progress)
        return Inspection(found.runtime, ProbeFacts(outcome="not-run", message=refused))
    if probes is not None:
        hard_limit += probe_timeout(budget_of(probes))
        args = ["--probes", json.dumps(dict(probes)), "--hard-timeout", f"{hard_limit:g}"]
    budget = budget_of(probes) if probes is not None else None
    status = ChildStatus(progress, _doing, lambda stage, doc, elapsed: _limit(stage, doc, elapsed, timeout, budget))

    def tick(result_path: Path, elapsed: float) -> bool:
        stage = status.tick(result_path, elapsed)
        return elapsed > timeout and stage not in ("probes", "done")

    try:
        with private_scripts() as scripts:  # the interpreter never gets tfdoctor's own files
            child = run_child(python, child_program(scripts, "runtime"),
                              ["--timeout", f"{timeout:g}", *args],
                              timeout=hard_limit, env=child_env(),
                              tick=tick if (status.active or probes is not None) else None,
                              also_remove=[scripts])
    except OSError as exc:
        if getattr(exc, "filename", None) == python:
            facts = RuntimeFacts(outcome="not-started", python=python, timeout_s=timeout,
                                 message=f"{python} could not be started: {exc}")
        else:  # the interpreter started: tfdoctor's temporary directory failed or was removed
            facts = RuntimeFacts(outcome="temp-dir", python=python, timeout_s=timeout,
                                 message=f"tfdoctor's temporary directory failed: "
                                         f"{type(exc).__name__}: {exc}")
        return Inspection(facts, from_runtime(None, facts) if probes is not None else None)
    finally:
        status.stop()
    # The limit that applied: the probes' allowance once they had started, else --timeout.
    facts = facts_from_child(python, hard_limit if status.stage == "probes" else timeout, child)
    if probes is None:
        return Inspection(facts, None)
    document = child.result.get("probes") if isinstance(child.result, dict) else None
    probe_facts = from_runtime(document, facts)
    if facts.stage == "probes" and facts.outcome in ("timeout", "signal", "no-result"):
        # Every runtime stage finished before the probes began: the import did not hang or
        # crash, the probes did, and the probe facts say so (probe.timeout, probe.crashed).
        facts.message = (f"TensorFlow {facts.tf_version} imported in {facts.import_s or 0:.1f} s; "
                         f"the speed probes then ended: {facts.message}")
        facts.outcome = "ok"
    return Inspection(facts, probe_facts)


def facts_from_child(python: str, timeout: float, child: ChildResult) -> RuntimeFacts:
    """Classify how the child ended, and keep what it said (a pure function of the child).
    Credential-looking text in what it said is masked first (tfdoctor.sanitize.redact)."""
    child = dataclasses.replace(child, stderr=mask_secrets(child.stderr), result=mask_plain(child.result))
    log = stderr.parse(child.stderr)
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
    forged = implausible(data, child)
    if forged:
        return _bad_output(base, log, f"the child's result cannot be what it wrote: {forged}", child)
    plain = {key: value for key, value in (data.items() if isinstance(data, dict) else ())
             if key not in base and key not in PARENT_OWNED and value is not None}
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
    if facts.loading_plugin and not complete:
        doing = f"loading the plugin {facts.loading_plugin}"
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
    elif child.returncode == RESULT_LOST_EXIT and RESULT_LOST in child.stderr:
        facts.outcome = "temp-dir"
        facts.message = ("tfdoctor's temporary directory was removed while the child ran (by "
                         f"the code it imported): {_last_line(child.stderr)}")
    else:
        facts.outcome = "no-result"
        last = _last_line(child.stderr)
        facts.message = (f"exited with code {child.returncode} while {doing}, without a result"
                         + (f": {last}" if last else ""))
    return facts


def implausible(data: Any, child: ChildResult) -> str | None:
    """Why a well-formed result document cannot have been written by the runtime child as it
    ran (a copy from another run, a file forged by the diagnosed environment), or None. The
    child writes its pid, a time for each stage it reached (in order, within the run), and
    "complete" only last, at stage "done", before it exits with code 0."""
    if not isinstance(data, dict):
        return None
    if child.pid is not None and data.get("pid") != child.pid:
        return f"it names process {data.get('pid')!r}, not the child ({child.pid})"
    times = data.get("stage_s", {})
    if not isinstance(times, dict) or not set(times) <= set(STAGES):
        return "its stages are not the child's"
    order = [times[stage] for stage in STAGES if stage in times]
    if not all(isinstance(t, (int, float)) and not isinstance(t, bool) and 0 <= t <= child.duration_s + 1.0
               for t in order) or order != sorted(order):
        return f"its stage times are not within the {child.duration_s:.1f} s the child ran, in order"
    if data.get("stage") is not None and times and data["stage"] not in times:
        return f"it reached stage {data['stage']!r} without a time for it"
    if data.get("complete") is not True:
        return None
    if data.get("stage") != "done":
        return "it says complete before stage done"
    if not child.timed_out and child.returncode != 0:
        return f"it says complete but the child exited with {child.signal_name or child.returncode}"
    if data.get("import_error") is None and not (isinstance(data.get("tf_version"), str)
                                                 and data["tf_version"].strip()):
        return "it says TensorFlow imported but names no version"
    reached = {"started", "importing", "done"} | ({"imported"} if data.get("import_error") is None else set())
    if child.pid is not None and not reached <= set(times):
        return f"it skips stages ({', '.join(s for s in STAGES if s in reached - set(times))})"
    return None


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
    err.events = stderr.parse(text).events


def _first_line(text: str) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def _doing(stage: str | None, document: dict) -> str:
    """What the runtime child does at this stage, in words; for the probes, the measurement it
    is on (its number, workload, size and device), so a sweep shows its current size."""
    if stage in (None, "started"):
        return "importing TensorFlow"
    doing = STAGE_DOING.get(stage, "importing TensorFlow")
    runs = (document.get("probes") or {}).get("runs") if stage == "probes" else None
    if isinstance(runs, list) and runs and isinstance(runs[-1], dict):
        run = runs[-1]  # appended as its measurement starts
        device = str(run.get("device")).rsplit("device:", 1)[-1]
        doing = f"speed probe {len(runs)}: {run.get('workload')} {run.get('size')} on {device}"
    return doing


def _limit(stage: str | None, document: dict, elapsed: float, timeout: float,
           budget: float | None) -> tuple[float, str]:
    """The seconds to show and what bounds them: the child's own against the timeout; in the
    probes, the probes' own against their budget, with what is left or how far over (the
    figures add up: 3 s in, budget 6 s, 3 s left)."""
    if stage != "probes" or budget is None:
        return elapsed, f"timeout {timeout:g} s"
    spent = (document.get("probes") or {}).get("elapsed_s")
    if not isinstance(spent, (int, float)) or isinstance(spent, bool):
        return 0.0, f"budget {budget:g} s, {budget:g} s left"  # no probe has written its figures yet
    spent = float(round(spent))
    left = budget - spent
    return spent, f"budget {budget:g} s, " + (f"{left:g} s left" if left >= 0 else f"{-left:g} s over")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
