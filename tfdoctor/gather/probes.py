"""Run the speed probes standalone: tfdoctor/inside/probes/ in a child of the diagnosed
interpreter (own process group, hard timeout: tfdoctor.child.process), and read what it measured.

The runtime child runs the same probes after its own stages (tfdoctor.inside.probes.run.run_probes); this runner
is for `tfdoctor probe` without the runtime facts, for tests and for benchmarks.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from tfdoctor.child.process import ChildResult, run_child
from tfdoctor.facts import typed
from tfdoctor.facts.probes import ProbeFacts, from_document
from tfdoctor.facts.runtime import STDERR_TAIL
from tfdoctor.gather.static import child_program, private_scripts
from tfdoctor.sanitize.redact import mask_secrets

IMPORT_ALLOWANCE_S = 60.0
"""Seconds allowed for `import tensorflow` on top of the probes' budget (a cold first import on
a Mac can take tens of seconds)."""


def probe_timeout(budget_s: float) -> float:
    """The hard timeout for probes with budget `budget_s`: the budget, plus room for one call that
    started just before the budget ran out to finish (as long as the budget again), plus 10 s.
    The probes never start work after the budget; a hang is what this timeout catches."""
    return 2.0 * budget_s + 10.0


MAX_BUDGET_S = 3600.0
"""The longest probe budget accepted: an hour (a --sweep takes two minutes)."""


def config_problem(config: Mapping[str, Any]) -> str | None:
    """Why the probes cannot run with `config` within their budget, in words for the user (a
    usage error), or None. A size above the largest the probes ever measure (each workload's max_size:
    matmul n 8192, batch 512 for conv, 2048 for train) needs more memory or time than one budget
    holds: one call of matmul at n = 20000 is 1.6e13 FLOPs and 4.8 GB of operands, and a single
    call cannot be interrupted, so it would only end at the hard timeout."""
    from tfdoctor.inside.shared.probe_config import MAX_SIZE, resolve_config
    from tfdoctor.inside.shared.workloads import KINDS

    try:
        cfg = resolve_config(dict(config))
    except (ValueError, TypeError, OverflowError) as exc:
        return f"bad probe configuration: {exc}"
    budget = cfg["budget_s"]
    if not math.isfinite(budget) or not 0 < budget <= MAX_BUDGET_S:
        return f"--budget must be between 1 and {MAX_BUDGET_S:g} seconds"
    for workload in cfg["workloads"]:
        size, largest = cfg["sizes"][workload], MAX_SIZE[workload]
        if size > largest:
            return (f"--size {size} is too large for {workload}: its {KINDS[workload].size_word} "
                    f"can be at most {largest} to fit the probes' budget ({budget:g} s) and memory")
    return None


def budget_of(config: Mapping[str, Any]) -> float:
    """The budget `config` will run with (its own, else its preset's)."""
    from tfdoctor.inside.shared.probe_config import resolve_config

    return float(resolve_config(dict(config))["budget_s"])


def gather_probes(python: str, config: Mapping[str, Any], *, timeout: float | None = None,
                  env: Mapping[str, str] | None = None,
                  tick: Callable[[Path, float], None] | None = None) -> ProbeFacts:
    """Run the probes in `python` with `config`; the child is killed after `timeout` seconds
    (default: the import allowance plus probe_timeout(budget))."""
    problem = config_problem(config)
    if problem is not None:
        return ProbeFacts(outcome="not-run", message=problem)
    if timeout is None:
        timeout = IMPORT_ALLOWANCE_S + probe_timeout(budget_of(config))
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    try:
        with private_scripts() as scripts:  # the interpreter never gets tfdoctor's own files
            child = run_child(python, child_program(scripts, "probes"),
                              [json.dumps(dict(config)), "--timeout", f"{timeout:g}"],
                              timeout=timeout, env=child_env, tick=tick, also_remove=[scripts])
    except OSError as exc:
        return ProbeFacts(outcome="not-run", message=f"{python} could not be started: {exc}")
    return facts_from_child(child, timeout)


def facts_from_child(child: ChildResult, timeout: float) -> ProbeFacts:
    """ProbeFacts from a finished standalone probe child (a pure function of the ChildResult)."""
    child = dataclasses.replace(child, stderr=mask_secrets(child.stderr))
    ending = {"signal": child.signal_name, "returncode": child.returncode,
              "duration_s": round(child.duration_s, 3), "timeout_s": timeout,
              "stderr_tail": child.stderr[-STDERR_TAIL:]}
    doc = child.result if isinstance(child.result, dict) else None
    if child.result_error not in (None, "missing") or (child.result is not None and doc is None):
        return from_document(None, outcome="crashed", message="the probe child's result file is "
                             f"unreadable ({child.result_error or 'not an object'})", **ending)
    forged = _implausible(doc, child)
    if forged:
        return from_document(None, outcome="crashed", message="the probe child's result cannot be "
                             f"what it wrote: {forged}", **ending)
    if doc is not None and doc.get("import_error"):
        return from_document(None, outcome="not-run",
                             message=f"import tensorflow failed: {doc['import_error']}", **ending)
    probes = doc.get("probes") if doc else None
    where = "while importing TensorFlow" if probes is None else "while probing"
    if child.timed_out:
        outcome, message = "timeout", f"the probe child did not finish within {timeout:g} s ({where})"
    elif doc is None or not doc.get("complete"):
        how = f"killed by {child.signal_name}" if child.signal_name else f"exited with code {child.returncode}"
        outcome, message = "crashed", f"the probe child was {how} {where}"
    else:
        outcome, message = None, ""
    if probes is None:
        return from_document(None, outcome=outcome or "not-run",
                             message=message or "the probes did not start", **ending)
    try:
        return from_document(probes, outcome=outcome, message=message, **ending)
    except typed.ShapeError as exc:
        return from_document(None, outcome="crashed",
                             message=f"the probe child's result has the wrong shape: {exc}", **ending)


def _implausible(doc: dict[str, Any] | None, child: ChildResult) -> str | None:
    """Why a well-formed document is not what the probes' __main__.py writes (its schema and stages; it
    says complete only at stage "done", then exits with code 0), or None."""
    if doc is None:
        return None
    if doc.get("schema", 1) != 1 or doc.get("stage") not in ("importing", "probes", "done"):
        return "not the document the probes write"
    if doc.get("complete") is True and (doc.get("stage") != "done" or (
            not child.timed_out and child.returncode != 0)):
        return "it says complete, but the child did not finish"
    return None
