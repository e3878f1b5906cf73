"""`tfdoctor probe`: measure whether the GPU speeds TensorFlow up, with the micro-probes, a
preset model or the user's own model, in the isolated TensorFlow child."""

from __future__ import annotations

import math
import os
from enum import Enum
from typing import Optional

import typer

from tfdoctor.cli.app import (
    DebugOpt,
    FailOn,
    FailOnOpt,
    JsonOpt,
    OutputFormat,
    PythonOpt,
    QuietOpt,
    TimeoutOpt,
    VerboseOpt,
    app,
    diagnose_snapshot,
    emit,
    err,
    gather_facts,
    out,
    select_rules,
    usage_error,
)
from tfdoctor.inside.shared.model_presets import MODEL_PRESETS
from tfdoctor.inside.shared.workloads import KINDS
from tfdoctor.model import Severity
from tfdoctor.sanitize.terminal import escape

MICRO_WORKLOADS = (*KINDS, "all")


def _complete_workloads(incomplete: str) -> list[str]:
    return [w for w in MICRO_WORKLOADS + MODEL_PRESETS if w.startswith(incomplete)]


class ProbeDevice(str, Enum):
    cpu = "cpu"
    gpu = "gpu"
    all = "all"


@app.command()
def probe(
    workload: str = typer.Option(
        "all", "--workload", autocompletion=_complete_workloads,
        help=f"What to measure: {', '.join(MICRO_WORKLOADS)} (micro-probes), or a model preset: "
             f"{', '.join(MODEL_PRESETS)}."),
    model: Optional[str] = typer.Option(
        None, "--model", help="Your model: a .keras or .h5 file, a SavedModel folder, or module:function returning one."),
    batch: int = typer.Option(8, "--batch", min=1, max=4096, help="Batch size of the synthetic inputs for --model and presets."),
    plugin: Optional[str] = typer.Option(
        None, "--plugin", help="Predict the CPU fallback for this tensorflow-metal release (where no Metal GPU is present)."),
    device: ProbeDevice = typer.Option(ProbeDevice.all, "--device", help="Devices to measure on (the verdict needs both)."),
    size: Optional[int] = typer.Option(None, "--size", min=1, max=16384, help="matmul: n of n x n; conv and train: batch size."),
    repeats: Optional[int] = typer.Option(None, "--repeats", min=3, max=1000, help="Timed repeats per measurement (default 7)."),
    budget: Optional[float] = typer.Option(None, "--budget", min=1.0, max=3600.0, help="Seconds the probes may take in all (default 30, sweep 120, a model 60)."),
    sweep: bool = typer.Option(False, "--sweep", help="Measure a range of sizes (batch sizes for a model) and print the curve."),
    trust_model: bool = typer.Option(
        False, "--trust-model", help="Load a --model that runs code from its file (a Lambda layer, a SavedModel's graph); only for files you trust."),
    python: PythonOpt = None,
    json_output: JsonOpt = False,
    verbose: VerboseOpt = False,
    fail_on: FailOnOpt = FailOn.error,
    timeout: TimeoutOpt = 60.0,
    debug: DebugOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Prove the GPU speeds TensorFlow up: micro-probes, a preset model, or your own model (--model)."""
    if model is not None and not model.strip():  # "" would be the current directory
        raise usage_error("--model needs a model: a .keras or .h5 file, a SavedModel folder, "
                          "or module:function")
    if model is not None and ":" not in model and not os.path.lexists(model):
        raise usage_error(f"--model {model}: no such file or folder")  # before any work (issue 21)
    if model is not None or workload in MODEL_PRESETS:
        _probe_model(model, None if model is not None else workload, batch, plugin, budget, sweep,
                     python, json_output, verbose, fail_on, debug, timeout, trust_model, quiet)
    if workload not in MICRO_WORKLOADS:
        raise usage_error(f"unknown workload {workload!r}; choose from {', '.join(MICRO_WORKLOADS + MODEL_PRESETS)}")
    config = {"preset": "sweep" if sweep else "probe", "workloads": workload,
              "devices": device.value, "size": size, "repeats": repeats, "budget_s": budget}
    config = {key: value for key, value in config.items() if value is not None}
    from tfdoctor.gather.probes import config_problem

    problem = config_problem(config) or _size_problem(config)
    if problem:  # e.g. --size 20000: no budget holds it; --size 8192 --budget 2: this one does not
        raise usage_error(problem)
    # The interpreter and the installation come first: a probe of nothing must not pass.
    chosen = select_rules(["target", "install", "runtime", "probe"], [])
    snapshot = gather_facts(python, False, False, timeout, probes=config, quiet=quiet)
    report = diagnose_snapshot(snapshot, chosen, debug)
    threshold = Severity(fail_on.value)
    if json_output:
        emit(report, OutputFormat.json, verbose, threshold)
    else:
        from tfdoctor.render.probes import render_probes

        render_probes(snapshot.probes, out, sweep)
        out.print()
        emit(report, OutputFormat.text, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))


FAST_CPU_FLOPS = 2e11
"""FLOP/s of a fast CPU (an M-series Mac's cores together, float32, TensorFlow's Eigen kernels):
work that takes longer than the budget even at this rate cannot fit it."""
MIN_CALLS = 4
"""Calls one measurement needs at the least: the first (untimed) call, then three timed repeats."""


def _size_problem(config: dict) -> Optional[str]:
    """Why --size cannot fit the probes' budget, or None: one measurement (MIN_CALLS calls) at
    the size asked for takes longer than the whole budget even on a fast CPU, so the probes
    could only end at their hard timeout and report that they hung (issue 22)."""
    if "size" not in config:
        return None
    from tfdoctor.gather.probes import budget_of

    budget = budget_of(config)
    size = int(config["size"])
    asked = tuple(KINDS) if config["workloads"] == "all" else (config["workloads"],)
    for workload in asked:
        seconds = MIN_CALLS * KINDS[workload].flops_of(size) / FAST_CPU_FLOPS
        if seconds > budget:
            return (f"--size {size} cannot fit the budget of {budget:g} s for {workload}: one "
                    f"measurement needs at least {math.ceil(seconds)} s even on a fast CPU; give a "
                    f"smaller --size or a --budget of at least {math.ceil(seconds)}")
    return None


def _probe_model(model, preset, batch, plugin, budget, sweep, python, json_output, verbose,
                 fail_on, debug, timeout: float = 60.0, trust_model: bool = False,
                 quiet: bool = False) -> None:
    """`probe --model` / a model preset: the model probe in the isolated TensorFlow child, its
    facts in the snapshot, the model rules (and the interpreter's) on them."""
    import os

    from tfdoctor.gather import user_model

    try:
        config = user_model.child_config(
            model=model, workload=preset, batch=batch, budget_s=budget or 60.0,
            sweep=[2, 8, 32, 128] if sweep else None, sys_path=[os.getcwd()],
            trust_model=trust_model)
    except ValueError as exc:
        raise usage_error(str(exc))
    problem = user_model.plugin_problem(plugin)
    if problem:
        raise usage_error(problem)
    chosen = select_rules(["target", "install", "model"], [])
    snapshot = gather_facts(python, True, True, timeout)
    if snapshot.target.ok:
        if not (json_output or quiet):
            err.print(f"[dim]probing {escape(model or preset)} in {escape(snapshot.target.python)} "
                      f"(budget {config['budget_s']:g} s)...[/]")
        # --timeout is the allowance for importing TensorFlow and loading the model; the model's
        # budget comes on top (tfdoctor.gather.model_deadline says when the child is stopped).
        from tfdoctor.render.progress import stage_progress

        snapshot.model = user_model.probe_model(snapshot.target.python, config, plugin=plugin,
                                                timeout=timeout,
                                                progress=None if quiet else stage_progress(err))
    report = diagnose_snapshot(snapshot, chosen, debug)
    threshold = Severity(fail_on.value)
    if not json_output and getattr(snapshot, "model", None) is not None:
        from tfdoctor.render.common import without_block
        from tfdoctor.render.model_summary import summarize

        summary = summarize(snapshot.model)
        if any(f.code == "model.cpu-fallback" for f in report.findings):
            summary = without_block(summary, "CPU fallback (")  # the finding lists them: once
        said = {e.get("message") for f in report.findings for e in f.evidence.get("errors", ())
                if isinstance(e, dict)}
        summary = "\n".join(line for line in summary.splitlines()  # a finding states the error
                            if not (line.startswith("  error (") and line.split("): ", 1)[-1] in said))
        if summary:
            out.print(escape(summary), soft_wrap=False)
            out.print()
    emit(report, OutputFormat.json if json_output else OutputFormat.text, verbose, threshold)
    raise typer.Exit(report.exit_code(threshold))
