"""Report areas: a line of the summary per code prefix, in the order facts flow (interpreter,
architecture, installation, compatibility, run time, speed), as flutter groups its validators."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Area:
    """One line of the report: the findings whose code starts with `name` + "."."""

    name: str
    area: str
    summary: str
    order: int = 100


AREAS = {
    "target": Area("target", "Interpreter", "The diagnosed interpreter runs and its facts were collected", 10),
    "arch": Area("arch", "Python architecture",
                 "Python and its binaries run as the machine's own architecture, not under Rosetta 2", 20),
    "install": Area("install", "TensorFlow installation", "Exactly one TensorFlow is installed", 40),
    "compat": Area("compat", "TensorFlow/Metal compatibility",
                   "TensorFlow, tensorflow-metal, Python, macOS and pinned dependencies fit together", 50),
    "log": Area("log", "Your error message",
                "The error text given (--log, or recorded by tfdoctor run) diagnosed with this environment", 60),
    "runtime": Area("runtime", "TensorFlow at run time",
                    "TensorFlow imports, lists a GPU and runs an op on it", 70),
    "probe": Area("probe", "GPU speed probes", "Measured work on the GPU is right and faster than on the CPU", 80),
    "model": Area("model", "Your model",
                  "Your model loads, runs on the GPU without CPU fallbacks, matches the CPU and does not leak", 90),
    "kernel": Area("kernel", "Jupyter kernels",
                   "The Python kernels start an existing, native interpreter with this TensorFlow", 94),
    "editor": Area("editor", "Editor", "VS Code's interpreter for this folder is the one diagnosed", 96),
    "check": Area("check", "tfdoctor", "tfdoctor's own rules and plugins loaded and ran", 200),
}

LEGACY_NAMES = {"architecture": "arch", "binaries": "arch", "installation": "install",
                "dependencies": "compat", "probes": "probe"}
"""Check names of tfdoctor 0.1 still accepted by --only/--skip."""


def area_of(code: str) -> Area:
    """The area a code belongs to; a plugin's unknown prefix gets an area of its own."""
    prefix = code.split(".", 1)[0]
    return AREAS.get(prefix) or Area(prefix, prefix, f"findings of plugin rules {prefix}.*", 150)
