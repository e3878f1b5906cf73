"""Commands in remediations, rendered from what they change (tfdoctor.model.Change) and written
for the diagnosed interpreter (its own path, quoted), so a person can paste them, a script can
run them, and tfdoctor can judge them before it prints them.

Every interpolated value is a quoted shell word; requirements follow `--` and their names are
checked against the package-name grammar, so nothing taken from a snapshot can become a pip
option or run as shell code."""

from __future__ import annotations

import re
import shlex

from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Change, Command, Remediation

DOCKER_EMULATION = "https://github.com/docker/for-mac/issues/5342"
"""Docker Desktop on Apple silicon runs amd64 images emulated; the way out is an arm64 image."""

WHICH_PYTHON = 'python3 -c "import sys, {module}; print(sys.executable, {module}.__version__)"'
"""Run where an error happened: which Python printed it, and its version of the module."""


def printed_elsewhere(text: str, module: str, link: str | None = None) -> Remediation:
    """The fix for a message this environment cannot have printed (its installed `module` says
    so): find the Python that did, and diagnose that one."""
    return Remediation(text + ". Where the error happened, find that Python and run `tfdoctor check --python` "
                       "with the path it prints", (WHICH_PYTHON.format(module=module),), link)

VENV_DIR = "~/venvs/tf"
"""Where a new environment goes when the advice needs one (the shell expands the ~)."""

_CHANGING = {"install": "install", "uninstall": "uninstall"}
_OPTIONS = frozenset({"-y", "-U", "--upgrade", "--force-reinstall", "--no-deps", "--no-cache-dir", "--pre"})
"""The pip options remediations use; anything else starting with "-" is refused, so a value
read from a snapshot can never become an option (`--index-url=...`, `-e .`)."""
_VALUED_OPTIONS = frozenset({"--no-binary", "--only-binary"})
"""Options with a value, as `--no-binary=h5py` or `--no-binary :all:`."""
_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])(\[|[<>=!~ ;@]|$)", re.IGNORECASE)
"""A requirement starts with a distribution name (PEP 508's grammar)."""


class NotARequirement(ValueError):
    """A value meant as a requirement does not start with a distribution name."""


def python_cmd(snapshot: Snapshot) -> str:
    """The diagnosed interpreter as a shell word; never tfdoctor's own isolated (pipx, uv tool)
    environment, which was diagnosed only for want of another: then plain `python3`."""
    if _is_tfdoctors_own(snapshot):
        return "python3"
    exe = snapshot.python.executable if snapshot.python else snapshot.target.python
    return shlex.quote(exe or "python3")


def machine_check(python: str) -> str:
    """The command that prints what `python` (a shell word or words) runs as: arm64 or x86_64."""
    return f"{python} -c \"import platform; print(platform.machine())\""


def _is_tfdoctors_own(snapshot: Snapshot) -> bool:
    target = snapshot.target
    if not target.tool_env:
        return False
    own = target.tool_python
    diagnosed = snapshot.python.executable if snapshot.python else target.python
    return target.chosen_by == "this interpreter" or (bool(own) and own == diagnosed)


def externally_managed(snapshot: Snapshot) -> bool:
    """pip refuses to install into this interpreter (PEP 668: EXTERNALLY-MANAGED, outside a venv)."""
    py = snapshot.python
    return bool(py and py.externally_managed and not py.in_venv)


def pip(snapshot: Snapshot, verb: str, *args: str) -> Command:
    """`<python> -m pip VERB [OPTIONS] -- [REQUIREMENTS]` for the diagnosed interpreter, with
    what an install or uninstall changes. Where pip may not install (PEP 668), an install goes
    into a new environment instead (`venv_command`)."""
    if verb not in _CHANGING:  # read-only: `pip check`, `pip index versions NAME`
        words = tuple(a if a in ("versions",) else checked_requirement(a) for a in args)
        return Command(_pip_line(python_cmd(snapshot), verb, words, ()))
    options, requirements = split_pip_args(args)
    if verb == "install" and externally_managed(snapshot):
        py = snapshot.python
        return venv_command(py.minor if py else "3", requirements, options, maker=python_cmd(snapshot))
    change = Change(verb, requirements=requirements, options=options)  # type: ignore[arg-type]
    return Command(_pip_line(python_cmd(snapshot), verb, options, requirements), (change,))


def split_pip_args(args: tuple[str, ...] | list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(options, requirements) of pip install/uninstall arguments; every requirement checked."""
    options: list[str] = []
    requirements: list[str] = []
    it = iter(args)
    for arg in it:
        if arg in _OPTIONS or arg.split("=", 1)[0] in _VALUED_OPTIONS:
            options.append(arg)
            if arg in _VALUED_OPTIONS:
                options.append(next(it, ""))
        else:
            requirements.append(checked_requirement(arg))
    return tuple(options), tuple(requirements)


def checked_requirement(text: str) -> str:
    """`text` when it starts with a distribution name; NotARequirement otherwise (a name read
    from a snapshot such as `--index-url=...` or `$(cmd)` never reaches a command)."""
    if not _NAME.match(text.strip()):
        raise NotARequirement(f"not a requirement: {text[:80]!r}")
    return text.strip()


def venv_command(python: str, requirements: tuple[str, ...] | list[str], options: tuple[str, ...] = (),
                 directory: str = VENV_DIR, maker: str | None = None) -> Command:
    """A fresh environment with Python `python` ("3.12") and `requirements` installed in it:
    `python3.12 -m venv DIR && DIR/bin/python -m pip install -- ...`. `maker` is the
    interpreter that makes the venv when a given one must (PEP 668's system Python)."""
    reqs = tuple(checked_requirement(r) for r in requirements)
    venv_python = f"{_dir_word(directory)}/bin/python"
    line = f"{maker or 'python' + shlex.quote(python)} -m venv {_dir_word(directory)}"
    changes = [Change("new-env", directory, python=python)]
    if reqs:
        line += " && " + _pip_line(venv_python, "install", options, reqs)
        changes.append(Change("install", directory, reqs, options))
    return Command(line, changes)


def export_variable(name: str, value: str) -> Command:
    """`export NAME=VALUE` (for this shell; the rules judge the environment with it set)."""
    return Command(f"export {name}={shlex.quote(value)}", (Change("set-env", variable=name, value=value),))


def unset_variable(name: str) -> Command:
    return Command(f"unset {name}", (Change("unset-env", variable=name),))


def _pip_line(python: str, verb: str, options: tuple[str, ...], requirements: tuple[str, ...]) -> str:
    words = [python, "-m", "pip", shlex.quote(verb), *(shlex.quote(o) for o in options)]
    if requirements:
        words += ["--", *(shlex.quote(r) for r in requirements)]
    return " ".join(words)


def _dir_word(path: str) -> str:
    """A directory as a shell word, leaving a leading ~/ for the shell to expand."""
    if path.startswith("~/"):
        return "~/" + shlex.quote(path[2:])
    return shlex.quote(path)


def arm64_image(text: str) -> Remediation:
    """Run an image built for the host's architecture: the command, and the Dockerfile line."""
    return Remediation(text, ("docker run --platform linux/arm64 IMAGE",), DOCKER_EMULATION,
                       code=("FROM --platform=linux/arm64 BASE",))
