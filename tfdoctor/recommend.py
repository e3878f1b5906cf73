"""What to install on the diagnosed machine: the requirements a remediation's pip command names."""

from __future__ import annotations

from dataclasses import dataclass

from tfdoctor.snapshot import Snapshot
from tfdoctor.versions import parse_version


@dataclass(frozen=True)
class Requirements:
    requirements: tuple[str, ...]
    text: str


def recommended_requirements(s: Snapshot) -> Requirements:
    """The TensorFlow (and tensorflow-metal on Apple silicon) to install here, or why none fits."""
    py = s.python
    if s.host.system == "Darwin" and py is not None:
        from tfdoctor.matrix import load_matrix  # lazily: only Mac remediations need the matrix

        # On Apple silicon the right pair is the arm64 one even for a Python under Rosetta:
        # the architecture check tells the user to move to an arm64 Python first.
        arch = "arm64" if s.host.hw_arm64 else py.process_arch
        macos = s.host.macos_version if parse_version(s.host.macos_version) else None
        rec = load_matrix().recommended_install(py.minor, arch, macos)
        return Requirements(tuple(rec.requirements), rec.reason)
    return Requirements(("tensorflow",), "Install TensorFlow (CPU, or CUDA with tensorflow[and-cuda] on Linux)")
