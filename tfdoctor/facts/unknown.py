"""Facts a snapshot may not know. A snapshot tfdoctor gathers knows them all; one built from a bug
report (`tfdoctor triage`) or written by hand knows only what was stated, and lists the rest in
`Snapshot.unknown`. Unknown is not absent: a rule that would conclude from a fact's absence
("TensorFlow is not installed") declares it in `needs=`, and the engine does not run it where the
fact is unknown; the report then names the command that would tell."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Knowable:
    name: str
    what: str
    command: str
    """A command, run in the environment in question, whose output would tell."""


KNOWABLE = {k.name: k for k in (
    Knowable("packages", "the complete list of installed distributions",
             "python -m pip list"),
    Knowable("python-arch", "the architecture the Python process runs as",
             'python -c "import platform; print(platform.machine())"'),
    Knowable("python-binary", "the architectures in the Python binary",
             "file \"$(python -c 'import sys; print(sys.executable)')\""),
    Knowable("plugins", "the libraries in tensorflow-plugins/",
             "ls \"$(python -c 'import site; print(site.getsitepackages()[0])')/tensorflow-plugins\""),
    Knowable("macos", "the macOS version", "sw_vers -productVersion"),
    Knowable("chip", "the Mac's chip", "sysctl -n machdep.cpu.brand_string"),
    Knowable("environment", "the environment variables TensorFlow reads where the code runs "
             "(TF_USE_LEGACY_KERAS)", "env | grep '^TF_'"),
)}
"""Every fact a snapshot may mark unknown, with the command that reads it."""
