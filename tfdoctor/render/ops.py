"""`tfdoctor ops`: the Metal GPU kernels of one tensorflow-metal release, or, for the ops asked
about, which have a GPU kernel (with its dtypes) and which run on the CPU."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from tfdoctor.knowledge.kernels import KernelTable
from tfdoctor.render.documents import named


def ops_document(table: KernelTable, names: list[str], how: str, uncovered: str | None = None) -> dict:
    """The answer as data; `uncovered` is an installed release the bundled table does not cover
    (the answer is then the newest release's, and `covered` says so)."""
    asked = names or sorted(table.ops())
    rows = [{"op": op, "gpu_kernel": table.has_kernel(op),
             "dtypes": sorted(table.dtypes(op)),
             "host_memory": sorted({h for k in table.kernels.get(op, ()) for h in k.host_memory})}
            for op in asked]
    return named("tfdoctor-ops", {
            "tensorflow_metal": table.plugin_version, "chosen": how, "wheel": table.wheel,
            "method": table.method, "read_on": table.read_on, "ops": rows,
            "without_gpu_kernel": [r["op"] for r in rows if not r["gpu_kernel"]],
            "installed": uncovered or (table.plugin_version if how == "installed" else None),
            "covered": uncovered is None})


def render_ops(table: KernelTable, names: list[str], how: str, as_json: bool, out: Console,
               uncovered: str | None = None) -> list[str]:
    """Print the answer; return the asked ops that have no GPU kernel (they decide the exit code)."""
    doc = ops_document(table, names, how, uncovered)
    missing = doc["without_gpu_kernel"] if names else []
    if as_json:
        out.file.write(json.dumps(doc, indent=2) + "\n")
        return missing
    if uncovered:
        out.print(f"[yellow]note:[/] tfdoctor's kernel table does not cover the installed "
                  f"tensorflow-metal {escape(uncovered)}; the answer below is for "
                  f"{escape(table.plugin_version)}, the newest release it has", soft_wrap=True)
    out.print(f"tensorflow-metal {escape(table.plugin_version)} ({escape(how)}): "
              f"{len(table.ops())} ops with a GPU kernel, read from {escape(table.wheel)} on {table.read_on}")
    for row in doc["ops"]:
        if row["gpu_kernel"]:
            dtypes = ", ".join(row["dtypes"]) or "any dtype"
            out.print(f"  [green]GPU[/] {escape(row['op'])}: {escape(dtypes)}", soft_wrap=True)
        else:
            out.print(f"  [yellow]CPU[/] {escape(row['op'])}: no Metal GPU kernel, runs on the CPU "
                      "(or fails where pinned to the GPU)", soft_wrap=True)
    return missing
