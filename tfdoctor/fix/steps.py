"""One step of a fix and the command lines of the steps tfdoctor runs itself (venv, pip, uv).

Every step carries what it changes and how to undo it, so the printed plan is a complete
account of what `fix` would do. Commands are argv tuples, run without a shell; printed, every
word is quoted for the shell (`shell_line`), so a value from a snapshot (`$(...)` in a path, a
version) is text when the plan is pasted. Requirements follow `--`, so none becomes an option.
A leading `~/` means the home directory everywhere: the shell expands it in a printed command
and its undo alike, and `expand_home` does the same for the commands tfdoctor runs.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Literal

from tfdoctor.derived.markers import requirement_names
from tfdoctor.facts.archnames import ARM64, normalise
from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS, Snapshot


StepKind = Literal["instruction", "create-env", "resolve", "save-restore", "uninstall", "install",
                   "set-variable", "verify"]


@dataclass(frozen=True)
class Step:
    kind: StepKind
    """"instruction" (the user's to do; the plan stops there), "create-env", "resolve" (in place:
    the new set must install before anything is removed), "save-restore", "uninstall",
    "install", "set-variable" (a variable the new environment's activate script sets), "verify"."""
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
        return list(self.shell) if self.shell else [shell_line(self.command)]


def shell_word(word: str) -> str:
    """A word quoted for the shell, leaving a leading ~/ for the shell to expand."""
    if word.startswith("~/"):
        return "~/" + shlex.quote(word[2:]) if word[2:] else "~/"
    return shlex.quote(word)


def shell_line(argv: tuple[str, ...] | list[str]) -> str:
    """argv as one line to paste into a shell: the same words, `~/` the home directory."""
    return " ".join(shell_word(word) for word in argv)


def expand_home(argv: tuple[str, ...] | list[str]) -> list[str]:
    """argv as the shell runs `shell_line(argv)`: a leading `~/` is the home directory."""
    return [os.path.expanduser(word) if word.startswith("~/") else word for word in argv]


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


def install_argv(installer: str, launch: tuple[str, ...], python: str, reqs: list[str],
                 editables: tuple[str, ...] = ()) -> tuple[str, ...]:
    """pip's or uv's install of `reqs` (after `--`) and of the source directories `editables`
    in editable mode (`-e PATH`, which must come before `--`)."""
    edit = tuple(word for path in editables for word in ("-e", path))
    if installer == "uv":
        return (*launch, "uv", "pip", "install", "--python", python, *edit, "--", *reqs)
    return (*launch, python, "-m", "pip", "install", *edit, "--", *reqs)


def pip_argv(launch: tuple[str, ...], python: str, *words: str) -> tuple[str, ...]:
    """`python -m pip WORDS`: the diagnosed environment's own pip (in-place steps)."""
    return (*launch, python, "-m", "pip", *words)


def switching_tf(s: Snapshot, reqs: list[str]) -> list[str]:
    """The installed TensorFlow distributions an in-place fix must remove before installing."""
    installed = {d.key for d in s.tensorflow_distributions()}
    tf_wanted = requirement_names(reqs) & set(TENSORFLOW_DISTRIBUTIONS)
    extra = set(installed) - tf_wanted
    # both (all) of them: they overwrote each other's files, so the wanted one is broken too
    return sorted(installed) if tf_wanted and (extra or len(installed) > 1) else []
