"""`tfdoctor probe --model`: run the user's model in the diagnosed interpreter and say what falls
back to the CPU, where the GPU and the CPU disagree, how fast each is, and whether memory leaks.

The work happens in the model child (tfdoctor/inside/model/, run from a private copy, own process
group, hard timeout); this module builds its configuration, bounds its memory and its time
(tfdoctor.gather.model_deadline), and says how it ended. What it found becomes ModelFacts in
tfdoctor.gather.model_result.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from tfdoctor.child.process import ChildResult, run_child
from tfdoctor.facts.user_model import ModelError, ModelFacts
from tfdoctor.gather.child_status import ChildStatus
from tfdoctor.gather.model_deadline import ModelDeadline
from tfdoctor.gather.model_result import facts_from_document
from tfdoctor.gather.static import child_program, private_scripts
from tfdoctor.inside.shared.model_presets import MODEL_PRESETS

IMPORT_ALLOWANCE_S = 60.0
"""Seconds for `import tensorflow` and loading the model, before the budget (ModelDeadline)."""


def child_config(*, model: str | None, workload: str | None, batch: int, budget_s: float,
                 sweep: Sequence[int] | None = None, memory_steps: int = 12,
                 compare: bool = True, timing: bool = True, memory: bool = True,
                 sys_path: Sequence[str] = (), trust_model: bool = False,
                 memory_limit: int | None = None) -> dict[str, Any]:
    """The child's configuration; ValueError for a usage error (exit 2 in the CLI).
    `trust_model` lets the child load what runs code from the model file (a Lambda layer, a
    SavedModel's graph); `memory_limit` caps the child's memory and the bytes a `.keras` archive
    may inflate to (default: the memory available now, at least MIN_MEMORY_LIMIT)."""
    if (model is None) == (workload is None):
        raise ValueError("give either a model (PATH or module:function) or a workload")
    if workload is not None and workload not in MODEL_PRESETS:
        raise ValueError(f"unknown workload {workload!r} (known: {', '.join(MODEL_PRESETS)})")
    if not 1 <= int(batch) <= 4096:
        raise ValueError("--batch must be between 1 and 4096")
    if not (math.isfinite(budget_s) and 1 <= budget_s <= 3600):
        raise ValueError("--budget must be between 1 and 3600 seconds")
    if model is not None and not model.strip():  # abspath("") would probe the current directory
        raise ValueError("--model needs a model: a .keras or .h5 file, a SavedModel folder, "
                         "or module:function")
    spec = model
    if model is not None and ":" not in model or (model and os.path.exists(model)):
        spec = os.path.abspath(model)
    return {"model": spec, "workload": workload, "batch": int(batch), "budget_s": float(budget_s),
            "sweep": [int(b) for b in sweep] if sweep else None, "memory_steps": int(memory_steps),
            "compare": compare, "timing": timing, "memory": memory,
            "sys_path": [os.path.abspath(p) for p in sys_path], "trust_model": bool(trust_model),
            "memory_limit": int(memory_limit or memory_bound()),
            "inflate_limit": int(memory_limit or memory_bound())}


MIN_MEMORY_LIMIT = 2 << 30
"""Least memory the model child is given (importing TensorFlow and a small model fit in it)."""


def memory_bound() -> int:
    """Bytes the model child may use: the memory available now (more would swap or wake the OOM
    killer), at least MIN_MEMORY_LIMIT."""
    import psutil

    try:
        available = int(psutil.virtual_memory().available)
    except (OSError, RuntimeError, AttributeError):
        available = 0
    return max(MIN_MEMORY_LIMIT, available)


def plugin_problem(plugin: str | None) -> str | None:
    """Why `--plugin` cannot be used (no kernel table shipped for it), or None."""
    from tfdoctor.knowledge import kernels

    if plugin is None:
        return None
    try:
        kernels.kernel_table(plugin)
    except kernels.UnknownPluginRelease as exc:
        return str(exc)
    return None


MODEL_DOING = {
    None: "importing TensorFlow for the model", "load": "loading the model",
    "ops": "listing the model's ops", "placement": "checking where the model's ops run",
    "agreement": "comparing GPU and CPU outputs", "speed": "timing the model",
    "sweep": "timing the model over batch sizes", "memory": "watching memory over steps",
    "losses": "comparing GPU and CPU losses",
}
"""What the model child does at each stage it announces (tfdoctor/inside/model/state.py doing), in words short
enough for one progress line of 80 columns with the figures."""


def probe_model(python: str, config: Mapping[str, Any], *, plugin: str | None = None,
                env: Mapping[str, str] | None = None, timeout: float | None = None,
                progress: Any | None = None) -> ModelFacts:
    """Run the model probe in `python`; never raises for anything the child does (ValueError
    for a `plugin` without a kernel table: a usage error, checked before anything runs).
    `progress` (a console) shows the stage the child is at and the budget. `timeout` (default
    IMPORT_ALLOWANCE_S) bounds importing TensorFlow and loading the model, the budget what follows
    (tfdoctor.gather.model_deadline)."""
    problem = plugin_problem(plugin)
    if problem:
        raise ValueError(problem)
    allowance = IMPORT_ALLOWANCE_S if timeout is None else timeout
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    budget = float(config.get("budget_s", 30.0))
    deadline = ModelDeadline(allowance, budget)
    status = ChildStatus(progress, lambda stage, _doc: MODEL_DOING.get(stage, f"the model probe's {stage}"),
                         lambda _stage, _doc, elapsed: (elapsed, f"budget {budget:g} s, timeout {allowance:g} s"),
                         key="doing")

    def stop_at_deadline(result_path: Path, elapsed: float) -> bool:
        status.tick(result_path, elapsed)
        stage = status.document.get("stage")
        return deadline.passed(stage if isinstance(stage, str) else None, elapsed)

    try:
        with private_scripts() as scripts:  # the interpreter never gets tfdoctor's own files
            child = run_child(python, child_program(scripts, "model"), [json.dumps(dict(config))],
                              timeout=deadline.hard_limit, env=child_env, also_remove=[scripts],
                              tick=stop_at_deadline)
    except OSError as exc:
        return ModelFacts(outcome="error", errors=[ModelError("start", "not-run",
                                                              f"{python} could not be started: {exc}")])
    finally:
        status.stop()
    facts = facts_from_child(child, *deadline.limit(), plugin=plugin)
    # What was asked, even when the child ended before it said (a timeout while loading).
    facts.source.setdefault("spec", config.get("workload") or config.get("model"))
    facts.source.setdefault("workload", bool(config.get("workload")))
    return facts


def facts_from_child(child: ChildResult, timeout: float, bounds: str = "", *,
                     plugin: str | None = None) -> ModelFacts:
    """`timeout`: the limit that applied, in seconds from the child's start; `bounds`: what it
    bounds (ModelDeadline.limit)."""
    doc = child.result if isinstance(child.result, dict) else None
    facts = facts_from_document(doc or {}, plugin)
    if child.timed_out:
        facts.outcome = "timeout"
        facts.errors.append(ModelError(facts.stage or "start", "timeout",
                                       f"the model probe did not finish within {timeout:g} s"
                                       + (f" ({bounds})" if bounds else "")
                                       + f", stopped after {child.duration_s:.1f} s "
                                       f"(last stage: {facts.stage or 'none'})"))
    elif doc is None or not doc.get("complete"):
        how = (f"killed by {child.signal_name}" if child.signal_name
               else f"exited with code {child.returncode}")
        facts.outcome = "crashed" if doc is not None else "no-result"
        facts.errors.append(ModelError(facts.stage or "start", facts.outcome,
                                       f"the model probe was {how} (last stage: "
                                       f"{facts.stage or 'none'})"))
    return facts
