"""`tfdoctor ops`: the Metal GPU kernels of one tensorflow-metal release, or, for the ops asked
about, which have a GPU kernel (with its dtypes) and which run on the CPU; and the one-line
error that names the op names that are no op at all."""

from __future__ import annotations

import json

from rich.console import Console

from tfdoctor.knowledge.kernels import KernelTable
from tfdoctor.knowledge.op_names import OpName
from tfdoctor.render.documents import named
from tfdoctor.render.wrap import wrap
from tfdoctor.sanitize.terminal import escape

SHOWN = 60
"""Characters of a typed name an error repeats: enough for any real op name, not for a paste."""


def ops_document(table: KernelTable, names: list[OpName], how: str, uncovered: str | None = None) -> dict:
    """The answer as data, by TensorFlow's names (`asked`: what the user typed, where it differs);
    `uncovered` is an installed release the bundled table does not cover (the answer is then the
    newest release's, and `covered` says so)."""
    asked = names or [OpName(op, op) for op in sorted(table.ops())]
    rows = [{"op": name.op, "asked": name.asked if name.respelled else None,
             "gpu_kernel": table.has_kernel(name.op),
             "dtypes": sorted(table.dtypes(name.op)),
             "host_memory": sorted({h for k in table.kernels.get(name.op, ()) for h in k.host_memory})}
            for name in asked if name.op is not None]
    return named("tfdoctor-ops", {
            "tensorflow_metal": table.plugin_version, "chosen": how, "wheel": table.wheel,
            "method": table.method, "read_on": table.read_on, "ops": rows,
            "without_gpu_kernel": [r["op"] for r in rows if not r["gpu_kernel"]],
            "installed": uncovered or (table.plugin_version if how == "installed" else None),
            "covered": uncovered is None})


def render_ops(table: KernelTable, names: list[OpName], how: str, as_json: bool, out: Console,
               uncovered: str | None = None) -> list[str]:
    """Print the answer; return the asked ops that have no GPU kernel (they decide the exit code)."""
    doc = ops_document(table, names, how, uncovered)
    missing = doc["without_gpu_kernel"] if names else []
    if as_json:
        out.file.write(json.dumps(doc, indent=2) + "\n")
        return missing
    if uncovered:
        _say(out, "note:", "yellow", f"tfdoctor's kernel table does not cover the installed tensorflow-metal "
             f"{uncovered}; the answer below is for {table.plugin_version}, the newest release it has")
    respelled = [f"{n.asked} -> {n.op or ''}" for n in names if n.respelled]
    if respelled:
        _say(out, "note:", "yellow", f"taken as TensorFlow spells them: {', '.join(respelled)}")
    _say(out, "", "", f"tensorflow-metal {table.plugin_version} ({how}): {len(table.ops())} ops with a GPU "
         f"kernel, read from {table.wheel} on {table.read_on}")
    for row in doc["ops"]:
        if row["gpu_kernel"]:
            _say(out, "GPU", "green", f"{row['op']}: {', '.join(row['dtypes']) or 'any dtype'}", "  ")
        else:
            _say(out, "CPU", "yellow", f"{row['op']}: no Metal GPU kernel, runs on the CPU (or fails where "
                 "pinned to the GPU)", "  ")
    return missing


def _say(out: Console, label: str, style: str, text: str, indent: str = "") -> None:
    """`indent label text` wrapped between words at the console's width (80 columns: the header
    was 178), the label in its colour, the lines after it under the text."""
    lead = f"{indent}{label} " if label else indent
    lines = wrap(text, out.width, lead, " " * (len(lead) + 2))
    head = f"{indent}[{style}]{escape(label)}[/] " if label else escape(indent)
    out.print(head + escape(lines[0][len(lead):]), soft_wrap=True)
    for line in lines[1:]:
        out.print(escape(line), soft_wrap=True)


def unknown_ops_message(unknown: list[OpName], tensorflow: str) -> str:
    """The usage error for names that are no op: each quoted (cut to SHOWN characters), where the
    names were looked for, and the near spellings, by name when several were unknown."""
    quoted = ", ".join(_quoted(n.asked) for n in unknown)
    head = (f"unknown op{'s' if len(unknown) > 1 else ''} {quoted} (not in the op registry of "
            f"{tensorflow}, nor an op tensorflow-metal has a kernel for)")
    if len(unknown) == 1:
        hints = [_either(unknown[0].suggestions)] if unknown[0].suggestions else []
    else:
        hints = [f"{_either(n.suggestions)} for {_quoted(n.asked)}" for n in unknown if n.suggestions]
    return head + (f"; did you mean {'; '.join(hints)}?" if hints else "")


def _quoted(asked: str) -> str:
    """repr() quotes the name and writes control characters as escapes, never raw."""
    return repr(asked if len(asked) <= SHOWN else asked[:SHOWN] + "...")


def _either(names: tuple[str, ...]) -> str:
    return " or ".join(filter(None, (", ".join(names[:-1]), names[-1])))
