"""What follows from the facts of a report, each conclusion "inferred" and pointing at the facts
it came from.

An Apple M-series chip is Apple silicon and an Intel chip is not (and, with no other OS or a
container named, a Mac running macOS), nor is a Mac on a macOS before 11; a Python binary with one
architecture can only run as that architecture; and on Apple silicon a Python process running as
x86_64 is running under Rosetta 2 (Apple, "About the Rosetta translation environment": the only
way x86_64 code runs there), while an arm64 one runs natively; what the process runs as is taken
from what it printed or what follows from it, never from what its user believes, nor from
TensorFlow's own CPU message, which the log's findings read (evidence.settles). A TensorFlow it
printed that is older than every arm64 build (before 2.4.0rc0, Apple's fork) can only be an
x86_64 one there, and so is a Python pip installed a TensorFlow release into whose macOS wheels
are all x86_64 (`tensorflow` before 2.13). Inside a Linux container the
emulator is another (QEMU, or Rosetta for Linux), so that conclusion is drawn on macOS only.
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from tfdoctor.knowledge import macos_floors
from tfdoctor.triage.evidence import Fact, settles, surest
from tfdoctor.triage.vocabulary import is_apple_chip


def conclusions(facts: list[Fact]) -> list[Fact]:
    """Facts that follow from `facts`, not already among them."""
    out: list[Fact] = []
    seen = {(f.name, f.value, f.how, f.source) for f in facts}

    def conclude(name: str, value: str, basis: Fact, source: str) -> None:
        fact = Fact(name, value, basis.line, "inferred", source)
        if (name, value, "inferred", source) not in seen:
            seen.add((name, value, "inferred", source))
            out.append(fact)

    for fact in facts:
        if fact.name == "chip" and not fact.quoted:
            conclude("hw_arm64", "true" if is_apple_chip(fact.value) else "false", fact, "chip")
        elif fact.name == "python_binary_archs" and len(fact.value.split()) == 1 and not fact.quoted:
            conclude("python_arch", fact.value, fact, "python_binary_archs")
        elif fact.name == "macos_version" and not fact.quoted and _before_big_sur(fact.value):
            conclude("hw_arm64", "false", fact, "macos version")  # Apple silicon came with macOS 11
    known = facts + out
    hardware = surest(known, "hw_arm64")
    process = surest((f for f in known if settles(f)), "python_arch")  # what ran, not a belief
    system = surest(known, "os")
    on_macos = surest(known, "container") is None and (system is None or system.value == "Darwin")
    if on_macos and hardware and hardware.value == "true" and process is None:
        older = _older_than_arm64(known)
        x86_only = None if older is not None else _installed_x86_64_wheel(known)
        if older is not None:  # only an x86_64 Python can hold it on Apple silicon
            conclude("python_arch", "x86_64", older, "tensorflow version")
        elif x86_only is not None:
            conclude("python_arch", "x86_64", x86_only, "wheel pip installed")
        known = facts + out
        process = surest((f for f in known if settles(f)), "python_arch")
    if on_macos and hardware and process and hardware.value == "true" and process.value in ("arm64", "x86_64"):
        basis = max(hardware, process, key=lambda f: f.line)
        conclude("translated", "true" if process.value == "x86_64" else "false", basis,
                 "hw_arm64 + python_arch")
    chip = surest(known, "chip")
    if system is None and surest(known, "container") is None and chip is not None and is_apple_chip(chip.value):
        conclude("os", "Darwin", chip, "chip")  # a Mac's own chip, with no container or other OS named
    return out


def _before_big_sur(release: str) -> bool:
    """A macOS before 11, which no Apple silicon Mac runs (the M1 shipped with macOS 11.0; an x86_64
    Python's "10.16" on macOS 11+ is macos_version_reported, not this fact)."""
    try:
        return Version(release) < Version("10.16")
    except InvalidVersion:
        return False


def _installed_x86_64_wheel(facts: list[Fact]) -> Fact | None:
    """A TensorFlow release pip installed ("Successfully installed tensorflow-2.8.0") whose macOS
    wheels on the registry are all x86_64: pip takes only wheels its Python can run, so that
    Python was x86_64 (a `pip list` row may be conda's build, so only pip's install counts)."""
    for fact in facts:
        if fact.how != "read" or fact.quoted or fact.source != "pip output" or not fact.name.startswith("package:"):
            continue
        archs = macos_floors.wheel_archs(fact.name.removeprefix("package:"), fact.value)
        if archs and "arm64" not in archs:
            return fact
    return None


def _older_than_arm64(facts: list[Fact]) -> Fact | None:
    """A TensorFlow version the environment printed (read, never a version stated in prose: that
    may be one wanted) older than every arm64 build (Apple's fork of 2.4.0rc0 came first, the
    registry's first is tensorflow-macos 2.5.0)."""
    first = macos_floors.oldest_arm64_build()
    for fact in facts:
        if fact.how != "read" or fact.quoted or fact.name not in ("tensorflow_version", "package:tensorflow"):
            continue
        try:
            if Version(fact.value) < Version(first):
                return fact
        except InvalidVersion:
            continue
    return None
