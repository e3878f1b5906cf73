"""The measurements behind the probe verdicts: one row per workload, device and size."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tfdoctor.facts.probes import ProbeFacts, ProbeRun
from tfdoctor.render.common import wide


def _rate(run: ProbeRun) -> str:
    if run.gflops is not None:
        return f"{run.gflops:,.1f} GFLOP/s"
    if run.samples_per_s is not None:
        return f"{run.samples_per_s:,.0f} samples/s"
    return ""


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1e3:,.2f}"


def _speedup(facts: ProbeFacts, run: ProbeRun) -> str:
    """CPU median / this GPU's median at the same workload and size."""
    if not run.is_gpu or not run.measured:
        return ""
    cpu = [r for r in facts.runs_of(run.workload, "CPU:0") if r.size == run.size and r.measured]
    if not cpu:
        return ""
    return f"{cpu[0].timing.median_s / run.timing.median_s:.2f}x"


def render_probes(facts: ProbeFacts | None, console: Console, sweep: bool = False) -> None:
    if facts is None or not facts.runs:  # no empty tables: the findings say why nothing ran
        if facts is not None and facts.message:
            console.print(escape(facts.message))
        return
    table = Table(title=f"Speed probes ({facts.outcome}"
                  + (f", {facts.elapsed_s:.1f} s" if facts.elapsed_s is not None else "") + ")",
                  title_justify="left")
    for column in ("workload", "device", "size", "median ms", "IQR ms", "1st call ms", "rate",
                   "vs CPU", "ran on", "agrees"):
        table.add_column(column, justify="right" if column not in ("workload", "device", "ran on") else "left")
    runs = sorted(facts.runs, key=lambda r: (r.workload, r.size, r.device)) if sweep else facts.runs
    for run in runs:
        timing = run.timing
        if not run.measured:
            note = run.skipped or run.error or "not measured"
            table.add_row(run.workload, run.device, str(run.size), "", "", "", escape(note), "", "", "")
            continue
        agrees = "" if run.agreement is None else ("yes" if run.agreement.ok else "NO")
        table.add_row(run.workload, run.device, str(run.size), _ms(timing.median_s), _ms(timing.iqr_s),
                      _ms(timing.first_call_s), _rate(run), _speedup(facts, run),
                      (run.placed_on or "").rsplit("device:", 1)[-1], agrees)
    wide(console).print(table)
    if facts.message:
        console.print(escape(facts.message))
