"""Ship the repository's top-level compat_matrix.json inside the package.

The user's layout keeps the compatibility knowledge at the top of the repository, and the refresh
tool writes it there; one tracked copy is all there is. Building a wheel copies it into
`tfdoctor/`; an editable install reads it where it lies (tfdoctor.knowledge.matrix.default_path).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

MATRIX = "compat_matrix.json"


class BuildPyWithMatrix(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "tfdoctor" / MATRIX
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).resolve().parent / MATRIX, target)


setup(cmdclass={"build_py": BuildPyWithMatrix})
