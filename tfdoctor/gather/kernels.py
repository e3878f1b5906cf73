"""The Jupyter kernels this user's Jupyter would offer, read from their kernel.json files (as
jupyter_client's KernelSpecManager finds them: the first folder of a name wins, names are
case-insensitive), each with the interpreter it starts and what that interpreter's files say:
does it exist, its architecture, is it the one diagnosed, does it have TensorFlow. Nothing is
started: the diagnosed interpreter is examined by the collector, a kernel's by its files, and
`tfdoctor check --kernel NAME` diagnoses one for real."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from tfdoctor.advice.kernels import remove_command
from tfdoctor.facts.notebooks import JupyterDir, JupyterFacts, KernelFacts
from tfdoctor.gather.interpreter import Target, TargetNotFound, choose_target
from tfdoctor.gather.interpreter_files import (
    prefix_of,
    same_environment,
    shebang_interpreter,
    tensorflow_in,
)
from tfdoctor.gather.jupyter_paths import data_dirs
from tfdoctor.gather.settings_files import Unreadable, read_settings
from tfdoctor.inside.shared.binfmt import describe_file

SPEC_LIMIT = 64 * 1024
"""Bytes of a kernel.json read (ipykernel writes about 300)."""
MAX_KERNELS = 200
"""Kernels read from one folder; a folder with more is cut there."""
_VALID_NAME = re.compile(r"^[a-z0-9._\-]+$", re.IGNORECASE)
"""jupyter_client's kernel-name rule (_kernel_name_pat)."""
JUPYTERS_OWN = re.compile(r"python(3(\.\d+)?)?")
"""A program jupyter_client replaces by the interpreter Jupyter itself runs in
(KernelManager.format_kernel_cmd: python, python3 and its own python3.X)."""
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")
_ARCH_VALUED = ("-arch", "-d", "-e")
"""arch(1) options that take a value; every other -NAME is an architecture (-x86_64, -arm64)."""


def gather_jupyter(diagnosed: str | None, environments: list[str],
                   environ: Mapping[str, str] | None = None, platform: str | None = None,
                   home: str | None = None) -> JupyterFacts:
    """The kernels found for this user. `diagnosed` is the interpreter diagnosed (kernels that
    run it are marked), `environments` the prefixes whose share/jupyter Jupyter may search (the
    diagnosed one, the conda base); the `jupyter` command on PATH adds its own."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = os.path.expanduser("~") if home is None else home
    jupyter = shutil.which("jupyter", path=environ.get("PATH", ""))
    jupyter_python = shebang_interpreter(jupyter, environ) if jupyter else None
    jupyter_prefix = prefix_of(jupyter_python) if jupyter_python else None
    dirs = data_dirs(environ, platform, home, [*environments, jupyter_prefix or ""])
    facts = JupyterFacts(dirs, [], jupyter, jupyter_python)
    seen: set[str] = set()
    for folder in dirs:
        if not folder.exists:
            continue
        for name, spec_dir in _specs_in(os.path.join(folder.path, "kernels")):
            if name in seen:
                continue  # an earlier folder's kernel of that name is the one Jupyter uses
            seen.add(name)
            kernel = read_kernel(name, spec_dir, folder, jupyter_prefix, jupyter_python, environ)
            _describe_interpreter(kernel, diagnosed, home)
            facts.kernels.append(kernel)
    return facts


def _specs_in(kernels: str) -> list[tuple[str, str]]:
    """(name, folder) of the kernelspecs in a kernels/ folder, sorted, at most MAX_KERNELS."""
    try:
        entries = sorted(os.listdir(kernels))
    except OSError:
        return []
    found = []
    for entry in entries:
        spec_dir = os.path.join(kernels, entry)
        if _VALID_NAME.match(entry) and os.path.isfile(os.path.join(spec_dir, "kernel.json")):
            found.append((entry.lower(), spec_dir))
            if len(found) == MAX_KERNELS:
                break
    return found


def read_kernel(name: str, spec_dir: str, folder: JupyterDir, jupyter_prefix: str | None,
                jupyter_python: str | None, environ: Mapping[str, str]) -> KernelFacts:
    """One kernelspec and the interpreter its argv starts (not yet looked at)."""
    kernel = KernelFacts(name, spec_dir, folder.kind)
    try:
        spec = json.loads(read_settings(os.path.join(spec_dir, "kernel.json"), SPEC_LIMIT))
    except Unreadable as exc:
        kernel.error = f"kernel.json: {exc}"
        return kernel
    except ValueError as exc:
        kernel.error = f"kernel.json is not JSON: {exc}"
        return kernel
    argv = spec.get("argv") if isinstance(spec, dict) else None
    if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
        kernel.error = "kernel.json has no argv (a list of strings)"
        return kernel
    kernel.display_name = _text(spec.get("display_name"))
    kernel.language = _text(spec.get("language"))
    kernel.is_python = (kernel.language or "").lower() == "python" or any("ipykernel" in a for a in argv)
    program, kernel.started_as = _program(argv)
    kernel.argv0 = program
    prefix = (os.path.dirname(os.path.dirname(folder.path)) if folder.kind == "environment"
              else jupyter_prefix)
    kernel.interpreter, kernel.resolved_by = _resolve(program, spec_dir, prefix,
                                                      folder.kind == "environment",
                                                      jupyter_python, environ)
    if kernel.interpreter is None and kernel.resolved_by == "PATH":
        kernel.exists = False  # a bare name not on PATH: Jupyter cannot start it either
    return kernel


def _text(value: Any) -> str | None:
    return value[:200] if isinstance(value, str) else None


def _program(argv: list[str]) -> tuple[str, str | None]:
    """The program a kernel's argv runs, past `arch -x86_64` and `env VAR=...`, and the
    architecture `arch` starts it as."""
    words, started_as = list(argv), None
    while len(words) > 1 and os.path.basename(words[0]) in ("arch", "env"):
        launcher, words = os.path.basename(words[0]), words[1:]
        while words and (words[0].startswith("-") or (launcher == "env" and "=" in words[0])):
            option = words.pop(0)
            if launcher == "arch" and option in _ARCH_VALUED and words:
                value = words.pop(0)
                started_as = value if option == "-arch" else started_as
            elif launcher == "arch" and option not in ("-32", "-64", "-c", "-h"):
                started_as = option[1:]
    return (words[0] if words else ""), started_as


def _resolve(program: str, spec_dir: str, prefix: str | None, in_environment: bool,
             jupyter_python: str | None, environ: Mapping[str, str]) -> tuple[str | None, str]:
    """(path, how it was found) of the program Jupyter would start; (None, "") when nothing
    here says which file it is."""
    how = ""
    if "{" in program:
        values = {"resource_dir": spec_dir, **({"prefix": prefix} if prefix else {})}
        if any(name not in values for name in _PLACEHOLDER.findall(program)):
            return None, ""
        how = ("resource_dir" if "{resource_dir}" in program else
               "environment" if in_environment else "jupyter")
        program = _PLACEHOLDER.sub(lambda m: values[m.group(1)], program)
    if os.path.isabs(program):
        return program, how or "path"
    if "/" in program or os.sep in program:
        return None, ""  # relative to the folder Jupyter was started in
    if JUPYTERS_OWN.fullmatch(program):
        if in_environment and prefix:
            for candidate in (program, "python3", "python"):
                path = os.path.join(prefix, "bin", candidate)
                if os.path.exists(path):
                    return path, "environment"
            return os.path.join(prefix, "bin", program), "environment"
        return jupyter_python, "jupyter"
    return shutil.which(program, path=environ.get("PATH", "")), "PATH"


def _describe_interpreter(kernel: KernelFacts, diagnosed: str | None, home: str) -> None:
    """What the interpreter's files say: does it exist, its architectures, is it the
    environment diagnosed, is TensorFlow in its site-packages."""
    path = kernel.interpreter
    if path is None:
        return
    kernel.exists = os.path.isfile(path) and os.access(path, os.X_OK)
    if not kernel.exists:
        kernel.is_target = False
        return
    binary = describe_file(path)
    kernel.format, kernel.archs = binary.get("format"), list(binary.get("archs", []))
    if diagnosed:
        kernel.is_target = same_environment(path, diagnosed)
    if kernel.is_python:
        kernel.has_tensorflow, kernel.tensorflow = tensorflow_in(path, home)


def kernel_target(name: str, environ: Mapping[str, str] | None = None) -> Target:
    """The interpreter of the kernel `name`, for `tfdoctor check --kernel NAME`; TargetNotFound
    (a usage error) when no kernel has that name, or its interpreter cannot be started."""
    default = choose_target(None, environ)
    found = gather_jupyter(default.executable, [prefix_of(default.executable)], environ)
    kernel = found.kernel(name)
    if kernel is None:
        names = ", ".join(k.name for k in found.kernels)
        searched = ", ".join(d.path for d in found.data_dirs if d.exists)
        raise TargetNotFound(f"--kernel {name!r}: no such Jupyter kernel; "
                             + (f"found {names}" if names else
                                f"found none (searched {searched or 'the folders of `jupyter --paths`'})"))
    if kernel.error:
        raise TargetNotFound(f"--kernel {name}: {kernel.spec_dir}/{kernel.error}")
    if kernel.interpreter is None:
        why = {"jupyter": "which Jupyter replaces by the Python it runs in, and no `jupyter` command "
                          "is on PATH to tell which",
               "PATH": "which is not on PATH"}.get(kernel.resolved_by, "which nothing here resolves")
        raise TargetNotFound(f"--kernel {name} starts {kernel.argv0!r}, {why}: diagnose that Python "
                             "with --python")
    if not kernel.exists:
        remove = remove_command(kernel, found.jupyter is not None)
        raise TargetNotFound(f"--kernel {name} starts {kernel.interpreter}, which does not exist (its "
                             f"environment was deleted?); remove the kernel: {remove}")
    where = f"Jupyter kernel {kernel.name}" + (f" ({kernel.display_name})" if kernel.display_name else "")
    return Target(kernel.interpreter, "--kernel", f"{where}, {kernel.spec_dir}")
