"""Commands that change which Python a notebook runs: register the diagnosed environment as a
Jupyter kernel (`python -m ipykernel install --user --name NAME`, which replaces a user kernel
of that name), or remove a kernel (`jupyter kernelspec remove -f NAME`, or the folder itself
when no `jupyter` on PATH searches it). They change Jupyter's kernel list, not an environment,
so only the ipykernel install among them is a Change the what-if judges."""

from __future__ import annotations

import os
import re
import shlex

from tfdoctor.advice.commands import externally_managed, pip, python_cmd
from tfdoctor.facts.notebooks import KernelFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Command

IPYKERNEL_DOCS = "https://ipython.readthedocs.io/en/stable/install/kernel_install.html"
"""ipykernel's guide to registering an environment as a kernel."""
_NOT_IN_NAME = re.compile(r"[^a-z0-9._-]+")
"""Characters a kernel name may not have (jupyter_client: ASCII letters, digits, - . _)."""


def environment_name(s: Snapshot) -> str:
    """A kernel name for the diagnosed environment: its folder's name (a venv's, a conda env's),
    in the characters a kernel name allows."""
    py = s.python
    prefix = py.prefix if py and (py.in_venv or py.conda) else ""
    name = _NOT_IN_NAME.sub("-", os.path.basename(prefix.rstrip("/")).lower()).strip("-.")
    return name or "tensorflow"


def can_register(s: Snapshot) -> bool:
    """ipykernel is there, or pip may install it (not a PEP 668 interpreter)."""
    return s.package("ipykernel") is not None or not externally_managed(s)


def register_commands(s: Snapshot, name: str, display_name: str) -> tuple[Command, ...]:
    """Register the diagnosed interpreter as the user's kernel `name` (installing ipykernel into
    it first when it lacks it)."""
    install = () if s.package("ipykernel") is not None else (pip(s, "install", "ipykernel"),)
    return install + (Command(f"{python_cmd(s)} -m ipykernel install --user --name {shlex.quote(name)} "
                              f"--display-name {shlex.quote(display_name)}"),)


def remove_command(kernel: KernelFacts, jupyter_on_path: bool) -> Command:
    """Remove a kernel: through `jupyter kernelspec remove` when the `jupyter` on PATH searches
    the folder it is in (the user's, JUPYTER_PATH, the system's, IPython's), else its folder."""
    if jupyter_on_path and kernel.data_dir_kind != "environment":
        return Command(f"jupyter kernelspec remove -f {shlex.quote(kernel.name)}")
    return Command(f"rm -r -- {shlex.quote(kernel.spec_dir)}")
