"""What to install on the diagnosed machine: the requirements a remediation's pip command names."""

from __future__ import annotations

from dataclasses import dataclass

from tfdoctor.snapshot import Snapshot


@dataclass(frozen=True)
class Requirements:
    requirements: tuple[str, ...]
    text: str


def recommended_requirements(s: Snapshot) -> Requirements:
    """The TensorFlow (and tensorflow-metal on Apple silicon) to install here, or why none fits."""
    py = s.python
    if s.host.system == "Darwin" and py is not None:
        from tfdoctor.matrix import load_matrix  # lazily: only Mac remediations need the matrix

        arch = "arm64" if s.host.hw_arm64 and not py.translated else py.process_arch
        rec = load_matrix().recommended_install(py.minor, arch, s.host.macos_version or "")
        return Requirements(tuple(rec.requirements), rec.reason)
    return Requirements(("tensorflow",), "Install TensorFlow (CPU, or CUDA with tensorflow[and-cuda] on Linux)")
