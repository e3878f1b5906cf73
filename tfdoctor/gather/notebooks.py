"""The snapshot's facts about where else the user runs Python: the Jupyter kernels found and the
working folder's VS Code interpreter, gathered by tfdoctor itself from files (nothing of theirs
is run) once the diagnosed interpreter's own facts say which environment it is."""

from __future__ import annotations

import os

from tfdoctor.facts.snapshot import CollectionError, Snapshot
from tfdoctor.gather.editor_settings import gather_editor
from tfdoctor.gather.interpreter_files import prefix_of
from tfdoctor.gather.kernels import gather_jupyter


def add_notebook_facts(snapshot: Snapshot) -> None:
    """Set snapshot.jupyter and snapshot.editor; a failure is a collection error, never a crash
    (the fact is then unknown: None)."""
    py = snapshot.python
    diagnosed = py.executable if py and py.executable else snapshot.target.python
    environments = [py.prefix] if py and py.prefix else [prefix_of(diagnosed)]
    if py and py.conda:
        environments.append(py.conda.root)  # Anaconda's Jupyter lives in the base environment
    for what, gather in (("jupyter", lambda: gather_jupyter(diagnosed, environments)),
                         ("editor", lambda: gather_editor(diagnosed, os.getcwd()))):
        try:
            setattr(snapshot, what, gather())
        except Exception as exc:  # noqa: BLE001 - a missing fact, recorded, never a crash
            snapshot.errors.append(CollectionError(what, f"{type(exc).__name__}: {exc}"))
