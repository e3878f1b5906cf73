"""Lines TensorFlow, tensorflow-metal and the macOS loader print that show what the process and
the machine are, pasted in a log.

tensorflow-metal names the GPU it opened ("Metal device set to: Apple M1 Pro"; an AMD Radeon on
an Intel Mac: what the machine printed, it outranks a chip a sentence names, as when a report
describes an Apple-silicon Mac and an Intel one); TensorFlow's x86 builds name x86 instructions ("To enable the following
instructions: AVX2 FMA", "compiled to use AVX instructions, but these aren't available"), which
only an x86_64 process prints; dyld refuses a library "(mach-o file, but is an incompatible
architecture (have 'x86_64', need 'arm64'))", where "need" is the process's own architecture;
QEMU's user-mode emulator names itself ("qemu: uncaught target signal 6 (Aborted)"), and it runs
Linux programs only: the process it ran was in a container (or a Linux VM), whatever Mac hosts it.
The patterns are tfdoctor.logtext's (stderr's table, importing.QEMU_USER), each with the real line
and its source.
"""

from __future__ import annotations

import re

from tfdoctor.facts.archnames import normalise
from tfdoctor.logtext import importing, stderr
from tfdoctor.triage.evidence import QEMU_CONTAINER, TENSORFLOW_CPU_MESSAGE, Found
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.vocabulary import chip_name

METAL_LOG = "tensorflow-metal log"
DYLD = "dyld error"
QEMU = "qemu"
_NEED = re.compile(r"incompatible architecture \(have \(?'?(?P<have>\w{1,12})'?\)?, need \(?'?(?P<need>\w{1,12})'?\)?\)")
_X86_INSTRUCTIONS = (stderr.CPU_INSTRUCTIONS_UNUSED.regex, stderr.CPU_INSTRUCTIONS_UNUSED_OLD.regex,
                     stderr.CPU_INSTRUCTIONS_OPTIMIZED.regex, stderr.CPU_INSTRUCTIONS_MISSING.regex)
_LONG = 4000


def read(doc: Document, found: Found) -> None:
    for line in doc.lines:
        text = line.text
        if line.code or len(text) > _LONG:
            continue
        if "Metal device set to:" in text:
            _metal_device(line, text, found)
        if "incompatible architecture" in text:
            for match in _NEED.finditer(text):
                need = normalise(match.group("need"))
                if need in ("arm64", "x86_64"):
                    found.add(line, "python_arch", need, "read", DYLD)
        if "instructions" in text and any(p.search(text) for p in _X86_INSTRUCTIONS):
            found.add(line, "python_arch", "x86_64", "inferred", TENSORFLOW_CPU_MESSAGE)
        if "qemu" in text and importing.QEMU_USER.regex.search(text):
            found.add(line, "container", QEMU_CONTAINER, "read", QEMU)


def _metal_device(line: Line, text: str, found: Found) -> None:
    match = stderr.METAL_DEVICE.regex.search(text)
    if not match:
        return
    device = match.group("device").strip()
    chip = chip_name(device)
    if chip and chip.startswith("Apple M"):
        found.add(line, "chip", chip, "read", METAL_LOG)
    elif device.startswith(("AMD", "Intel")):  # Metal GPUs of Intel Macs only (no eGPU on Apple silicon)
        found.add(line, "hw_arm64", "false", "read", METAL_LOG)  # printed: it outranks a chip a sentence names
