"""Steps for a conda environment: conda (or mamba) makes the environment and, for the old
tensorflow-macos releases, installs the apple channel's tensorflow-deps; pip installs TensorFlow.

A conda environment fixed with venv and pip would lose what conda manages (its Python, its
compiled libraries), so a conda environment is rebuilt as one. tensorflow-deps exists only on
the apple channel, for osx-arm64, in versions 2.5.0 to 2.10.0 (the apple channel's file listing,
last upload 2022-09-15; not on PyPI); Apple's guide installed it for tensorflow-macos 2.5-2.12,
and TensorFlow 2.13 and later need none.
"""

from __future__ import annotations

from tfdoctor.facts.versions import parse_version
from tfdoctor.fix.steps import Step, install_argv, shell_line

TOOLS = ("mamba", "conda")
"""Preferred first when both are on PATH (mamba solves far faster, same command line)."""

TENSORFLOW_DEPS_VERSIONS = ("2.5.0", "2.6.0", "2.7.0", "2.8.0", "2.9.0", "2.10.0")
"""The apple channel's tensorflow-deps releases (osx-arm64 only)."""


def tensorflow_deps_requirement(tf_version: str | None) -> str | None:
    """The apple channel's tensorflow-deps for a TensorFlow release: the same minor for 2.5-2.10,
    the last one (2.10.0, what Apple's unpinned `conda install -c apple tensorflow-deps` gives)
    for 2.11 and 2.12; None for 2.13 on (and anything older than 2.5)."""
    version = parse_version(tf_version) if tf_version else None
    if version is None or len(version.release) < 2 or version.release[0] != 2:
        return None
    minor = version.release[1]
    if 5 <= minor <= 10:
        return f"tensorflow-deps=={TENSORFLOW_DEPS_VERSIONS[minor - 5]}"
    if minor in (11, 12):
        return f"tensorflow-deps=={TENSORFLOW_DEPS_VERSIONS[-1]}"
    return None


def conda_spec(requirement: str) -> str:
    """A pip-style pin as conda's match spec: "tensorflow-deps==2.9.0" -> "tensorflow-deps=2.9.0"."""
    return requirement.replace("==", "=", 1)


def new_env_steps(tool: str, runnable: bool, python_minor: str, env: str, deps: str | None,
                  reqs: list[str], editables: tuple[str, ...], answers: tuple[str, ...]) -> list[Step]:
    """`TOOL create -p ENV python=X.Y pip [-c apple tensorflow-deps=V]`, then pip in ENV."""
    apple = ("-c", "apple", conda_spec(deps)) if deps else ()
    create = (tool, "create", "-y", "-p", env, f"python={python_minor}", "pip", *apple)
    new_python = f"{env.rstrip('/')}/bin/python"
    remove = shell_line((tool, "env", "remove", "-y", "-p", env))
    return [
        Step("create-env", f"Create the conda environment {env}" + (f" with {deps}" if deps else ""),
             create, f"creates the directory {env}; the diagnosed environment is not touched",
             remove, runnable),
        Step("install", f"Install {' '.join(reqs)}", install_argv("pip", (), new_python, reqs, editables),
             f"installs into {env} only", remove, runnable, answers),
    ]


def in_place_steps(tool: str, runnable: bool, prefix: str, deps: str | None,
                   undo: str, answers: tuple[str, ...]) -> list[Step]:
    """`TOOL install -p PREFIX -c apple tensorflow-deps=V` when the goal needs it (pip's
    steps follow, as for any environment)."""
    if not deps:
        return []
    return [Step("install", f"Install {deps} from the apple channel",
                 (tool, "install", "-y", "-p", prefix, "-c", "apple", conda_spec(deps)),
                 f"installs {deps} (and the packages it pins) into {prefix} with {tool}",
                 shell_line((tool, "remove", "-y", "-p", prefix, "tensorflow-deps")) + " && " + undo,
                 runnable, answers)]
