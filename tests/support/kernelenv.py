"""A real virtual environment with ipykernel, for the Jupyter tests: built once (under a file
lock, as tfenv.py builds the TensorFlow venv) in ~/.cache/tfdoctor-tests and reused while its
requirements stay the same. It holds ipykernel and tfdoctor's runtime dependencies, not
tfdoctor: a kernel started from it imports the working tree's tfdoctor through PYTHONPATH
(`kernel_env`), so the cache never holds a stale tfdoctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tomllib

from support.tfenv import file_lock

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("TFDOCTOR_KERNEL_VENV", Path.home() / ".cache" / "tfdoctor-tests" / "ipykernel"))
MARKER = ".tfdoctor-kernel-ok"


def requirements() -> list[str]:
    """ipykernel and what tfdoctor needs to run (pyproject's dependencies)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return ["ipykernel>=6", *project["dependencies"]]


def kernel_python() -> Path:
    """The interpreter of the cached venv with ipykernel (built on first use)."""
    python = VENV / "bin" / "python"
    wanted = requirements()

    def ready() -> bool:
        try:
            return json.loads((VENV / MARKER).read_text()) == wanted and python.exists()
        except (OSError, ValueError):
            return False

    if ready():
        return python
    with file_lock(VENV.parent / f".{VENV.name}.lock"):
        if not ready():
            log = VENV.parent / f"{VENV.name}.install.log"
            with open(log, "w") as out:
                for command in ([sys.executable, "-m", "venv", "--clear", str(VENV)],
                                [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                                 "--no-input", *wanted]):
                    if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False).returncode:
                        raise RuntimeError(f"building the ipykernel test venv failed; see {log}")
            (VENV / MARKER).write_text(json.dumps(wanted))
    return python


def kernel_env(home: Path, **extra: str) -> dict[str, str]:
    """os.environ for a user whose home is `home` (Jupyter's user folder inside it), with the
    working tree's tfdoctor importable and no colour."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("JUPYTER", "VIRTUAL_ENV", "CONDA", "PYTHONPATH", "IPYTHONDIR"))}
    env.update(HOME=str(home), JUPYTER_DATA_DIR=str(home / "jupyter-data"), PYTHONPATH=str(REPO),
               NO_COLOR="1", **extra)
    return env
