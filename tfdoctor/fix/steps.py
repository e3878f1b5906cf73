"""One step of a fix and the command lines of the steps tfdoctor runs itself (venv, pip, uv).

Every step carries what it changes and how to undo it, so the printed plan is a complete
account of what `fix` would do; argv tuples, never shell strings, so paths need no quoting.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Literal

from tfdoctor.derived.markers import requirement_names
from tfdoctor.facts.archnames import ARM64, normalise
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot


StepKind = Literal["instruction", "create-env", "save-restore", "uninstall", "install", "verify"]


@dataclass(frozen=True)
class Step:
    kind: StepKind
    """"instruction" (the user's to do; the plan stops there), "create-env", "save-restore",
    "uninstall", "install", "verify"."""
    title: str
    command: tuple[str, ...]
    """argv; for an instruction, a shell line per element is in `shell` instead."""
    changes: str
    undo: str
    runnable: bool
    answers: tuple[str, ...] = ()
    shell: tuple[str, ...] = ()
    """Shell lines to paste (instructions), in order."""

    def display(self) -> list[str]:
        return list(self.shell) if self.shell else [shlex.join(self.command)]


def shell_word(path: str) -> str:
    """A path as a shell word, leaving a leading ~/ for the shell to expand."""
    if path.startswith("~/"):
        return "~/" + shlex.quote(path[2:])
    return shlex.quote(path)


def launcher(s: Snapshot) -> tuple[str, ...]:
    """`arch -arm64` for a universal2 Python started under Rosetta on Apple silicon."""
    py = s.python
    if py and s.host.system == "Darwin" and s.host.hw_arm64 and normalise(py.process_arch) != ARM64 \
            and ARM64 in {normalise(a) for a in py.binary.archs}:
        return ("arch", "-arm64")
    return ()


def venv_argv(installer: str, launch: tuple[str, ...], python: str, env: str) -> tuple[str, ...]:
    if installer == "uv":
        return ("uv", "venv", "--seed", "--python", python, env)
    return (*launch, python, "-m", "venv", env)


def install_argv(installer: str, launch: tuple[str, ...], python: str,
                 reqs: list[str]) -> tuple[str, ...]:
    if installer == "uv":
        return (*launch, "uv", "pip", "install", "--python", python, *reqs)
    return (*launch, python, "-m", "pip", "install", *reqs)


def switching_tf(s: Snapshot, reqs: list[str]) -> list[str]:
    """The installed TensorFlow distributions an in-place fix must remove before installing."""
    installed = {d.key: d.name or d.key for d in s.tensorflow_distributions()}
    tf_wanted = requirement_names(reqs) & set(TENSORFLOW_DISTRIBUTIONS)
    extra = set(installed) - tf_wanted
    # both (all) of them: they overwrote each other's files, so the wanted one is broken too
    return sorted(installed.values()) if tf_wanted and (extra or len(installed) > 1) else []
