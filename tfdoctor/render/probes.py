"""The measurements behind the probe verdicts: one row per workload, device and size.

The achieved rate (GFLOP/s, samples/s) is the verdicts' to say, next to the chip's peak: the
table leaves it to them (issue 29: `probe` said it twice), except in a sweep, where the rate by
size is the curve asked for."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from tfdoctor.facts.probes import ProbeFacts, ProbeRun
from tfdoctor.render.common import wide
from tfdoctor.sanitize.terminal import escape


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
    # Fits 80 columns (issue 21): no vertical rules, headers that wrap between words, figures
    # never cut (no_wrap, so a column is never narrower than its longest figure).
    table = Table(title=f"Speed probes ({facts.outcome}"
                  + (f", {facts.elapsed_s:.1f} s" if facts.elapsed_s is not None else "") + ")",
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=0)
    columns = ("workload", "device", "size", "median ms", "IQR ms", "1st call ms",
               *(("rate",) if sweep else ()), "vs CPU", "ran on", "agrees")
    for column in columns:
        text = column in ("workload", "device", "ran on")
        table.add_column(column.replace(" ", "\n") if not text else column,
                         justify="left" if text else "right", no_wrap=column != "rate",
                         overflow="fold", min_width=9 if column == "rate" else None)
    runs = sorted(facts.runs, key=lambda r: (r.workload, r.size, r.device)) if sweep else facts.runs
    notes = []
    for run in runs:
        timing = run.timing
        if not run.measured:  # the why under the table, where it has the whole width
            word = "skipped" if run.skipped else "failed" if run.error else "not measured"
            if run.skipped or run.error:
                notes.append(f"{run.workload} {run.size} on {run.device}: "
                             f"{run.skipped or run.error}")
            cells = dict.fromkeys(columns, "")
            cells.update(workload=escape(run.workload), device=escape(run.device), size=str(run.size))
            cells["rate" if sweep else "vs CPU"] = word
            table.add_row(*cells.values())
            continue
        agrees = "" if run.agreement is None else ("yes" if run.agreement.ok else "NO")
        cells = {"workload": escape(run.workload), "device": escape(run.device), "size": str(run.size),
                 "median ms": _ms(timing.median_s), "IQR ms": _ms(timing.iqr_s),
                 "1st call ms": _ms(timing.first_call_s), "rate": _rate(run),
                 "vs CPU": _speedup(facts, run),
                 "ran on": escape((run.placed_on or "").rsplit("device:", 1)[-1]), "agrees": agrees}
        table.add_row(*(cells[column] for column in columns))
    wide(console).print(table)
    for note in notes:
        console.print(escape(note), soft_wrap=False)
    if facts.message:
        console.print(escape(facts.message))
