"""A broken environment and the local index that can fix it, for tests that run `fix` for real.

The index folder holds tiny wheels: a fake tensorflow-cpu 2.21.0 (a `tensorflow/__init__.py`
with its version) requiring protobuf>=6.31.1,<8 (as the real one does), numpy and absl-py, and
those. The template environment (a venv with pip, for in-place fixes) has that TensorFlow with
protobuf 5.29.5 (below the pin) and without absl-py, so an in-place fix both changes a
distribution and adds one. Tests work on copies of it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.fix_process import path_without_uv
from support.local_index import LocalIndex, pip_env
from support.tfenv import file_lock
from support.wheels import build_wheel


@dataclass
class FixWorld:
    root: Path
    wheels: Path
    nowhere: Path
    template: Path

    def copy(self, name: str) -> Path:
        """A copy of the broken environment (venvs copy: their interpreter finds pyvenv.cfg)."""
        dest = self.root / name
        shutil.copytree(self.template, dest, symlinks=True)
        return dest

    def env(self, url: str, **extra: str) -> dict[str, str]:
        """The environment of a `tfdoctor fix` whose pip uses `url` alone (and not uv), its lines
        wide enough for any path of a test's (fix wraps them at the width: tests/screens/test_fix80)."""
        return {**pip_env(url, self.nowhere), "PATH": path_without_uv(), "NO_COLOR": "1",
                "PYTHONUNBUFFERED": "1", "COLUMNS": "1000", **extra}


def _laid_out(root: Path) -> FixWorld:
    """Where a world made in `root` keeps its index, its empty index and its broken template."""
    return FixWorld(root, root / "index", root / "nowhere", root / "broken")


def make_world(root: Path) -> FixWorld:
    world = _laid_out(root)
    wheels, nowhere, template = world.wheels, world.nowhere, world.template
    nowhere.mkdir(parents=True)
    build_wheel(wheels, "tensorflow-cpu", "2.21.0", {"tensorflow/__init__.py": '__version__ = "2.21.0"\n'},
                ["protobuf>=6.31.1,<8.0.0", "numpy>=1.26.0", "absl-py>=1.0.0"])
    for version in ("5.29.5", "6.31.1"):
        build_wheel(wheels, "protobuf", version, {"google/protobuf/__init__.py": f"__version__ = '{version}'\n"})
    build_wheel(wheels, "numpy", "2.1.0", {"numpy/__init__.py": "__version__ = '2.1.0'\n"})
    build_wheel(wheels, "absl-py", "2.0.0", {"absl/__init__.py": ""})
    subprocess.run([sys.executable, "-m", "venv", str(template)], check=True, timeout=300)
    python = str(template / "bin" / "python")
    with LocalIndex(wheels) as index:
        env = pip_env(index.url, nowhere)
        for args in (["tensorflow-cpu==2.21.0"], ["--no-deps", "protobuf==5.29.5"]):
            subprocess.run([python, "-m", "pip", "install", "-q", *args], check=True, timeout=300, env=env)
        subprocess.run([python, "-m", "pip", "uninstall", "-q", "-y", "absl-py"], check=True, timeout=300, env=env)
    return world


def shared_world(tmp_path_factory, name: str) -> FixWorld:
    """A world whose wheels and template are made once per test run, under a file lock, for every
    module and xdist worker that asks (each made its own: a venv with pip and three pip runs,
    6 s, up to six times a run), with a root of the module's own (`name`) for its copies and
    new environments. The template is only read: the tests that use it check it is unchanged."""
    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, not a worker's
    made = run / "fix-world"
    with file_lock(run / ".fix-world.lock"):
        if not (made / ".made").exists():
            if made.exists():
                shutil.rmtree(made)
            make_world(made)
            (made / ".made").write_text("")
    shared = _laid_out(made)
    return FixWorld(tmp_path_factory.mktemp(name), shared.wheels, shared.nowhere, shared.template)


def beside(env: Path) -> list[str]:
    """The lock and journal files of fixes of `env` (none once a fix is over or cleaned up)."""
    return sorted(p.name for p in env.parent.glob(f".{env.name}.tfdoctor-fix.*"))


def index(world: FixWorld, mode: str = "serve", delay: float = 0.0) -> LocalIndex:
    return LocalIndex(world.wheels, mode, delay)

