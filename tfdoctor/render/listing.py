"""`tfdoctor list-checks`: the report areas, each with its rules (code, severity, title), then the
plugins written against the older Check interface and any plugin that failed to load."""

from __future__ import annotations

import json

from rich.console import Console

from tfdoctor.engine.run import areas
from tfdoctor.engine.registry import Registry
from tfdoctor.render.common import wrapped_prose
from tfdoctor.render.documents import named
from tfdoctor.sanitize.terminal import escape


def listing(registry: Registry) -> dict:
    """The listing as data (the --json form)."""
    found = []
    for area in areas(registry):
        rules = [r for r in registry.rules if r.area == area.name]
        found.append({
            "name": area.name, "area": area.area, "summary": area.summary,
            "codes": sorted(r.code for r in rules) or sorted(
                next((c.codes for c in registry.checks if c.name == area.name), {})),
            "rules": [{"code": r.code, "severity": r.doc.severity.value, "title": r.doc.title,
                       "module": getattr(r.func, "__module__", None)} for r in rules],
        })
    return named("tfdoctor-list-checks",
                 {"checks": found, "load_failures": [f.__dict__ for f in registry.failures]})


def render_listing(registry: Registry, as_json: bool, out: Console, err: Console) -> None:
    data = listing(registry)
    if as_json:
        out.file.write(json.dumps(data, indent=2) + "\n")
        return
    with wrapped_prose(out):
        _render_text(data, registry, out, err)


def _render_text(data: dict, registry: Registry, out: Console, err: Console) -> None:
    for area in data["checks"]:
        out.print(f"[bold]{escape(area['name'])}[/]  {escape(area['area'])}: {escape(area['summary'])}")
        for r in area["rules"]:
            out.print(f"  {escape(r['code'])} [dim]({r['severity']}) {escape(r['title'])}[/]")
        if not area["rules"]:
            out.print(f"  [dim]{escape(', '.join(area['codes']))}[/]")
    for f in registry.failures:
        err.print(f"[yellow]could not load[/] {escape(f.entry_point)}: {escape(f.error)}")


def markdown_table(registry: Registry) -> str:
    """The README's table of codes, made from the rules' own documentation (a test keeps the
    README equal to it, so the two cannot drift)."""
    from tfdoctor.engine.run import ENGINE_CODES

    rows = ["| code | severity | title |", "|---|---|---|"]
    for area in areas(registry):
        for r in (r for r in registry.rules if r.area == area.name):
            rows.append(f"| `{r.code}` | {r.doc.severity.value} | {r.doc.title} |")
    for code, doc in ENGINE_CODES.items():
        rows.append(f"| `{code}` | {doc.severity.value} | {doc.title} |")
    return "\n".join(rows) + "\n"
