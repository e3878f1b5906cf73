"""Evidence and advice both runtime rule modules give: the facts every runtime finding quotes, the
child's stderr without faulthandler's dump, the command that reinstalls the TensorFlow installed."""

from __future__ import annotations

from typing import Any

from tfdoctor.advice.commands import pip
from tfdoctor.derived import Derived
from tfdoctor.facts.runtime import STAGE_DOING, RuntimeFacts
from tfdoctor.facts.snapshot import Snapshot


def tf_of(d: Derived) -> tuple[str | None, str | None]:
    """(distribution, version) of the installed TensorFlow, the runtime's version preferred."""
    return (d.tf_main.name if d.tf_main else None), d.tf_version


def metal_version(d: Derived) -> str | None:
    return d.metal.version if d.metal else None


def base_evidence(s: Snapshot, d: Derived, rt: RuntimeFacts) -> dict[str, Any]:
    dist, version = tf_of(d)
    return {"outcome": rt.outcome, "stage": rt.stage, "python": rt.python,
            "tensorflow": f"{dist} {version}" if dist else version,
            "tensorflow_metal": metal_version(d), "duration_s": rt.duration_s}


_FAULTHANDLER_NOISE = ("  File ", "Extension modules:", "Current thread ", "Thread 0x",
                       "Stack (most recent call first)", "Fatal Python error:", "Timeout (")


def stderr_lines(rt: RuntimeFacts, n: int = 8) -> list[str]:
    """The last lines of the child's stderr, without faulthandler's dump (in python_stack)."""
    lines = [line.rstrip() for line in rt.stderr_tail.splitlines()
             if line.strip() and not line.startswith(_FAULTHANDLER_NOISE)]
    return [line[:300] for line in lines[-n:]]


def reinstall_tf(s: Snapshot, d: Derived, *extra: str) -> str | None:
    dist, version = tf_of(d)
    if not dist:
        return None
    return pip(s, "install", "--force-reinstall", f"{dist}=={version}" if version else dist, *extra)


def doing(rt: RuntimeFacts) -> str:
    return STAGE_DOING.get(rt.stage, "running")
