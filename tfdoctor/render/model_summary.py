"""The model probe's findings as plain text, printed by `tfdoctor probe --model` after the report
(tfdoctor.cli.probe leaves out what a finding already says)."""

from __future__ import annotations

from tfdoctor.facts.user_model import ModelFacts


def summarize(facts: ModelFacts) -> str:
    """A plain-text summary the CLI can print as is."""
    lines = []
    name = facts.source.get("spec") or "model"
    model = facts.model
    if model:
        lines.append(f"{name}: {model.get('class')} ({model.get('kind')}), {model.get('layers')} "
                     f"layers, {model.get('params')} parameters, TensorFlow {facts.tf_version}")
    for err in facts.errors:
        lines.append(f"  error ({err.kind}, {err.stage}): {err.message}")
    for a in facts.assumptions:
        lines.append(f"  assumed: {a}")
    if facts.fallback_source and facts.ops_total:  # no op read (never loaded): nothing to say
        where = ("registered kernels on this machine" if facts.fallback_source == "registry"
                 else f"predicted for tensorflow-metal {facts.fallback_source.split(':', 1)[1]}")
        ops = facts.fallback_ops()
        lines.append(f"CPU fallback ({where}): {len(ops)} op types" + (": " + ", ".join(ops) if ops else ""))
        by_op: dict[str, set[str]] = {}
        for f in facts.fallbacks:
            by_op.setdefault(f.op, set()).add(f.layer)
        for name, layers in sorted(by_op.items()):
            shown = sorted(layers)
            more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
            lines.append(f"  {name}: {', '.join(shown[:3])}{more}")
    if facts.ran_on_cpu:
        ran = sorted({f.op for f in facts.ran_on_cpu})
        lines.append(f"Ran on the CPU with the model pinned to the GPU: {', '.join(ran)}")
    ag = facts.agreement
    if ag:
        if ag.first_bad:
            err = next((l.rel_error for l in ag.layers if l.layer == ag.first_bad), ag.output_error)
            lines.append(f"GPU and CPU disagree from layer {ag.first_bad} (relative error {err}, "
                         f"tolerance {ag.tolerance:g})")
        else:
            lines.append(f"GPU and CPU agree (output relative error {ag.output_error})")
        if ag.loss_rel_diff is not None:
            lines.append(f"  loss after {len(next(iter(ag.losses.values()), []))} steps: "
                         + ", ".join(f"{d} {'not finite' if v[-1] is None else format(v[-1], '.6g')}"
                                   for d, v in ag.losses.items() if v))
    if facts.speed:
        for kind, timings in (("inference", facts.speed.inference), ("train step", facts.speed.train_step)):
            parts = [f"{t.device} {t.median_s * 1e3:.2f} ms (first call {t.first_call_s * 1e3:.0f} ms)"
                     for t in timings if t.median_s is not None and t.first_call_s is not None]
            if parts:
                lines.append(f"{kind}: " + "; ".join(parts))
        for kind, verdict in facts.speed.verdicts.items():
            lines.append(f"  {kind}: {verdict.get('reason')} (speedup {verdict.get('speedup', 0):.2f}x)")
    if facts.memory:
        lines.append(f"memory ({facts.memory.source}, {facts.memory.device}): {facts.memory.message}"
                     + (" -- LEAK" if facts.memory.leak else ""))
    for issue in facts.setting_issues:
        lines.append(f"setting ({issue.code}): {issue.message}")
    return "\n".join(lines)
