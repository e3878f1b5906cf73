"""The Jupyter kernels found and VS Code's interpreter for the folder, one line each, under the
report: which Python a notebook or the editor runs, next to the one diagnosed. Facts only; what
is wrong with them is said by the kernel.* and editor.* findings above."""

from __future__ import annotations

import shlex

from rich.console import Console
from rich.markup import escape

from tfdoctor.facts.notebooks import EditorFacts, KernelFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.render.common import say

SEPARATOR = " · "
LISTED = 12
"""Kernels listed without -v (the kernel.* findings name every one they judge)."""


def kernel_line(k: KernelFacts) -> str:
    """`name · display name · interpreter · what its files say`."""
    parts = [k.name]
    if k.display_name and k.display_name != k.name:
        parts.append(k.display_name)
    if k.error:
        return SEPARATOR.join(parts + [k.error])
    if k.interpreter is not None:
        parts.append(k.interpreter)
    elif k.resolved_by == "jupyter":
        parts.append(f"{k.argv0} (the Python that runs Jupyter; no `jupyter` on PATH to say which)")
    else:
        parts.append(f"{k.argv0} ({'not on PATH' if k.resolved_by == 'PATH' else 'not resolved'})")
    if k.exists is False and k.interpreter is not None:
        parts.append("missing")
    if k.archs:
        parts.append(" ".join(k.archs) + (f", started as {k.started_as}" if k.started_as else ""))
    if not k.is_python and k.language:
        parts.append(k.language)
    if k.has_tensorflow is not None:
        parts.append(k.tensorflow or "no TensorFlow")
    if k.is_target:
        parts.append("the interpreter diagnosed")
    return SEPARATOR.join(parts)


def editor_line(editor: EditorFacts) -> str | None:
    """VS Code's interpreter for the folder, with the command that diagnoses it; None when the
    folder's settings name none."""
    if editor.error:
        return f"VS Code ({editor.settings}): unreadable, {editor.error}"
    if editor.interpreter_setting is None:
        return None
    shown = editor.interpreter or f"{editor.interpreter_setting} (not resolved)"
    if editor.is_target:
        return f"VS Code ({editor.settings}): {shown}, the interpreter diagnosed"
    if editor.interpreter is None or editor.exists is False:
        return f"VS Code ({editor.settings}): {shown}" + (", missing" if editor.exists is False else "")
    return (f"VS Code ({editor.settings}): {shown}; "
            f"`tfdoctor check --python {shlex.quote(editor.interpreter)}` diagnoses it")


def render_notebooks(console: Console, snapshot: Snapshot, verbose: bool) -> None:
    """The kernels (and with -v, where they were looked for) and VS Code's interpreter."""
    jupyter, editor = snapshot.jupyter, snapshot.editor
    if jupyter is not None and (jupyter.kernels or verbose):
        console.print()
        head = "Jupyter kernels" + (" (`tfdoctor check --kernel NAME` diagnoses one):" if jupyter.kernels
                                    else ": none found")
        say(console, f"[bold]{escape(head)}[/]")
        shown = jupyter.kernels if verbose else jupyter.kernels[:LISTED]
        for kernel in shown:
            say(console, escape(kernel_line(kernel)), "  ")
        if len(shown) < len(jupyter.kernels):
            say(console, f"[dim]and {len(jupyter.kernels) - len(shown)} more (-v lists them)[/]", "  ")
        if verbose:
            searched = ", ".join(d.path for d in jupyter.data_dirs)
            say(console, f"[dim]searched: {escape(searched)}[/]", "  ")
    line = editor_line(editor) if editor is not None else None
    if line:
        if not (jupyter and jupyter.kernels):
            console.print()
        say(console, escape(line))
