"""Where people run TensorFlow besides a terminal: the Jupyter kernels this user's Jupyter finds
and the interpreter the working folder's VS Code settings name. "It works in the terminal but
not in the notebook" is a kernel that runs another Python: an x86_64 one, the base environment,
or one of a virtual environment deleted since."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class JupyterDir:
    """A data directory Jupyter searches for kernels/*/kernel.json, in Jupyter's own order."""

    path: str
    kind: str
    """"JUPYTER_PATH", "user" (JUPYTER_DATA_DIR or the platform's user data directory),
    "environment" (an environment's share/jupyter), "system" or "ipython" (~/.ipython)."""
    exists: bool = False


@dataclass
class KernelFacts:
    """One kernelspec as Jupyter finds it (the first of its name in the search order)."""

    name: str
    spec_dir: str
    """The folder holding its kernel.json (what `jupyter kernelspec list` prints)."""
    data_dir_kind: str = ""
    """The JupyterDir.kind it was found in."""
    display_name: str | None = None
    language: str | None = None
    argv0: str | None = None
    """The program as kernel.json writes it (after `arch -x86_64` or `env` when it starts so)."""
    interpreter: str | None = None
    """The program's path as Jupyter starts it; None when nothing here says (a `python` that
    Jupyter replaces by its own interpreter when no Jupyter was found, a relative path)."""
    resolved_by: str = ""
    """How `interpreter` was found: "path" (absolute in kernel.json), "environment" (`python`
    in an environment's own share/jupyter: that environment's Python runs Jupyter there),
    "jupyter" (`python`: the interpreter of the `jupyter` command on PATH; None without one),
    "PATH" (another bare name, looked up on PATH; None when not there), "resource_dir" (a path
    in the kernel's folder; `{prefix}` is Jupyter's sys.prefix, so "environment" or "jupyter"),
    or "" when nothing says (a relative path, an unknown {variable})."""
    started_as: str | None = None
    """The architecture kernel.json starts it as (`arch -x86_64 ...`), or None."""
    exists: bool | None = None
    """The interpreter is an executable file; None when it is not known which file it is."""
    format: str | None = None
    archs: list[str] = field(default_factory=list)
    """Architectures in the interpreter's binary (read from its Mach-O or ELF header)."""
    is_python: bool = False
    """A Python kernel (language python, or ipykernel in its command)."""
    is_target: bool | None = None
    """It runs the interpreter diagnosed (the same environment); None when not known."""
    tensorflow: str | None = None
    """"NAME VERSION" of the TensorFlow distribution in that interpreter's site-packages."""
    has_tensorflow: bool | None = None
    """Whether its site-packages hold TensorFlow; None when they were not found."""
    error: str | None = None
    """Why kernel.json could not be used (unreadable, not JSON, no argv)."""


@dataclass
class JupyterFacts:
    """The kernels found, and where Jupyter was looked for. Absent from a snapshot (None) means
    not gathered, not "no kernels"."""

    data_dirs: list[JupyterDir] = field(default_factory=list)
    kernels: list[KernelFacts] = field(default_factory=list)
    jupyter: str | None = None
    """The `jupyter` command on PATH, if any."""
    jupyter_python: str | None = None
    """The interpreter its script runs (its #! line): the Python that runs Jupyter."""

    def kernel(self, name: str) -> KernelFacts | None:
        """The kernel Jupyter knows by `name` (kernel names are case-insensitive)."""
        return next((k for k in self.kernels if k.name == name.lower()), None)


@dataclass
class EditorFacts:
    """The working folder's .vscode/settings.json: the interpreter VS Code starts with there."""

    folder: str
    settings: str | None = None
    """The settings file, when there is one."""
    interpreter_setting: str | None = None
    """python.defaultInterpreterPath as written (`${workspaceFolder}/.venv/bin/python`)."""
    interpreter: str | None = None
    """That setting as a path (variables, ~ and the folder resolved)."""
    exists: bool | None = None
    is_target: bool | None = None
    error: str | None = None
    """Why the settings could not be read (not JSON with comments, too large)."""
