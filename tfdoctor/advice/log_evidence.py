"""What the log rules share (checks/log_*.py import no other rule module): a snapshot's matches
of some codes, and the evidence every log finding shows."""

from __future__ import annotations

from typing import Any

from tfdoctor.codes import LOG_AMD64_IMAGE, LOG_NO_GPU_LISTED, LOG_QEMU_EMULATION
from tfdoctor.facts.pasted_log import LogTextMatch
from tfdoctor.logtext.nvidia import CUINIT_NO_DEVICE
from tfdoctor.logtext.signature import SAID


def said(match: LogTextMatch) -> bool:
    """Whether the match is the report's words about a cause, not a message a program printed."""
    return match.variant.startswith(SAID)


def matches_of(snapshot: Any, *codes: str) -> list[LogTextMatch]:
    """The snapshot's log matches of these codes (none without a log). The report's words count
    for a code only where no printed message of that code does: the message says more."""
    log = getattr(snapshot, "log", None)
    found = log.of(*codes) if log is not None else []
    printed = {m.code for m in found if not said(m)}
    return [m for m in found if not (said(m) and m.code in printed)]


def evidence(snapshot: Any, match: LogTextMatch, **facts: Any) -> dict[str, Any]:
    """What every log finding shows: the matched line and where, the fields read from it, the
    log's source, the public thread the message was taken from, and the environment facts that
    changed the answer (`facts`)."""
    log = snapshot.log
    out: dict[str, Any] = {"log": log.source, "line": match.line, "matched": match.text,
                           "stage": match.stage}
    out.update({f"log_{k}": v for k, v in match.fields.items()})
    if match.count > 1:
        out["occurrences"] = match.count
    if log.skipped_bytes:
        out["log_skipped_bytes"] = log.skipped_bytes
    out["signature_source"] = match.sources[0] if match.sources else None
    if said(match):
        out["said"] = True  # the report's words: the engine makes the finding "reported"
    out.update({k: v for k, v in facts.items() if v is not None})
    return out


X86_TARGETS = ("x86_64", "i386", "i486", "i586", "i686")


def emulates_x86(fields: dict[str, str]) -> bool:
    """A QEMU line (log.qemu-emulation) about an x86 process: its program name says which target
    (qemu-x86_64), and plain `qemu:` or an x86-64 loader path leave x86 the only reading."""
    target = fields.get("target")
    return target in X86_TARGETS if target else True


_AMD64 = ("linux/amd64", "linux/x86_64", "linux/x86-64")


def amd64_on_arm(snapshot: Any, match: Any) -> bool | None:
    """Whether a log.amd64-image match is an amd64 image on an ARM host: Docker's own warning
    names both platforms; a request for amd64 (`--platform linux/amd64`) runs emulated where the
    host is Apple silicon or an ARM kernel. None where the host is not known."""
    image = match.fields.get("image", "")
    if match.fields.get("host"):
        return image in _AMD64 and match.fields["host"].startswith("linux/arm64")
    host = snapshot.host
    if host.hw_arm64 or host.cpu_implementer:
        return image in _AMD64
    return None if host.hw_arm64 is None else False


def emulated_x86_container(snapshot: Any) -> list[LogTextMatch]:
    """The text's own signs of an amd64 container emulated on an ARM host: QEMU's lines about an
    x86 process, Docker's platform warning, amd64 asked for on Apple silicon. An x86 crash there
    is the container's, not Rosetta 2's."""
    return [m for m in matches_of(snapshot, LOG_QEMU_EMULATION, LOG_AMD64_IMAGE)
            if (emulates_x86(m.fields) if m.code == LOG_QEMU_EMULATION else amd64_on_arm(snapshot, m))]


def names_tensorflow(snapshot: Any) -> bool:
    """Whether the pasted text (its kept excerpt: head, tail and the lines around each match)
    names TensorFlow or Keras at all. A message printed by any program (a CPU crash, NumPy's ABI
    check) in a text that never does, where no TensorFlow is known, is another project's."""
    log = getattr(snapshot, "log", None)
    return bool(log is not None and log.names_tensorflow)


def gpu_wanted(snapshot: Any) -> bool:
    """Whether the text says its machine has a GPU its writer wants used: a GPU list that came back
    empty (not the driver's own "no CUDA-capable device", which a machine with the driver and no
    GPU prints on every run), an NVIDIA GPU or CUDA release it names, or its writer's words."""
    log = getattr(snapshot, "log", None)
    if log is None:
        return False
    listed_none = any(m.variant != CUINIT_NO_DEVICE for m in matches_of(snapshot, LOG_NO_GPU_LISTED))
    return listed_none or log.names_nvidia_gpu or log.wants_gpu
