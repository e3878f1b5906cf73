"""What the system's own tools printed, wherever it was pasted: sw_vers, system_profiler, uname -a, sysctl,
Linux's CPU listings (/proc/cpuinfo, lscpu, lshw: the model, and x86's flags), platform strings, `file` and `lipo` on the
interpreter, and Docker's platform warning.

Formats: `sw_vers` prints "ProductName:", "ProductVersion:", "BuildVersion:" lines (sw_vers(1));
`uname -a` on macOS prints "Darwin HOST 22.3.0 Darwin Kernel Version 22.3.0: DATE;
root:xnu-8792.81.3~2/RELEASE_ARM64_T6020 arm64", where the kernel's build names the hardware
and the last word is the machine the calling process sees (x86_64 under Rosetta; uname(1));
`sysctl NAME` prints "NAME: VALUE" (machdep.cpu.brand_string, hw.optional.arm64, and
sysctl.proc_translated, 1 in a translated process; sysctl(8), Apple's "About the Rosetta
Translation Environment"); `file` prints "PATH: Mach-O 64-bit executable x86_64" or "Mach-O
universal binary with 2 architectures: [x86_64:...] [arm64e:...]" (file(1), magic/Magdir/mach);
`lipo -info` prints "Architectures in the fat file: PATH are: x86_64 arm64" or "Non-fat file:
PATH is architecture: x86_64" (lipo(1)); Docker prints "The requested image's platform
(linux/amd64) does not match the detected host platform (linux/arm64/v8)". Python's
platform.platform() strings are read wherever they appear (tfdoctor.triage.platforms).
"""

from __future__ import annotations

import re
from typing import Sequence

from tfdoctor.facts.archnames import normalise
from tfdoctor.triage.evidence import Found
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.platforms import PLATFORM, kernel_hardware, read_platform
from tfdoctor.triage.vocabulary import chip_name, macos_from_darwin, macos_version

_LONG = 4000
"""Longer lines hold no tool output this module reads (they are data, or hostile)."""
_SW_VERS = re.compile(r"ProductVersion:[ \t]{0,20}(?P<version>\d{2}(?:\.\d{1,2}){0,2})[ \t]*")
_UNAME = re.compile(r"(?P<system>Darwin|Linux)[ \t]\S{1,255}[ \t](?P<release>\d{1,3}\.\d{1,3}[\w.+~-]{0,60})[ \t].{0,400}?[ \t](?P<machine>arm64|x86_64|aarch64)(?=[ \t(]|$)")
"""`uname -a`, also with words after it (an issue form's "... arm64 (Sonoma 14.3)")."""
_SYSCTL = re.compile(r"(?P<name>machdep\.cpu\.brand_string|hw\.optional\.arm64|sysctl\.proc_translated)[ \t]{0,3}[:=][ \t]{0,3}(?P<value>\S.{0,120}?)[ \t]*")
_PROFILER = re.compile(r"(?:System Version:[ \t]{1,20}(?:macOS|Mac OS X|OS X)[ \t]{1,5}(?P<version>\d{2}(?:\.\d{1,2}){0,2})"
                       r"(?:[ \t]{1,5}\(\w{3,12}\))?|Kernel Version:[ \t]{1,20}Darwin[ \t]{1,5}(?P<darwin>\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)"
                       r"|Chip:[ \t]{1,20}(?P<chip>Apple[ \t]M\d[\w \t]{0,20}?))[ \t]*")
"""`system_profiler SPSoftwareDataType` ("System Version: macOS 13.4 (22F66)", "Kernel Version:
Darwin 22.5.0") and SPHardwareDataType ("Chip: Apple M1 Pro"), as "About This Mac" reports paste them."""
_PYTHON_FILE = re.compile(r"(?:^|/)(?:python[\d.]{0,6}|Python)$")
_FILE_ARCH = re.compile(r"\[(?P<arch>x86_64h?|arm64e?|i386):")
_THIN = re.compile(r"64-bit executable (?P<arch>x86_64h?|arm64e?)\b")
_LIPO_FAT = re.compile(r"Architectures in the fat file: (?P<path>\S{1,1000}) are: (?P<archs>[\w \t]{1,80})")
_LIPO_THIN = re.compile(r"Non-fat file: (?P<path>\S{1,1000}) is architecture: (?P<arch>\w{1,20})")
_CPU_MODEL = re.compile(r"(?P<field>model name|Model name|product)[ \t]{0,20}:[ \t]{0,40}(?P<brand>\S.{0,200}?)[ \t]*")
"""Linux's CPU listings: /proc/cpuinfo's "model name\t: Intel(R) Core(TM) i5-2400 CPU @ 3.10GHz",
lscpu's "Model name:  AMD Ryzen 7 3700X 8-Core Processor", lshw's "product: Intel(R) Core(TM) i3
CPU M 330 @ 2.13GHz" (lshw names every device's product: only a chip counts)."""
_X86_FLAGS = re.compile(r"(?:flags|Flags)[ \t]{0,20}:[ \t]{0,40}(?=\S)(?:[\w.]{1,40}[ \t]{1,4}){0,200}?sse2(?![\w.])")
"""/proc/cpuinfo's "flags\t\t: fpu vme ... sse sse2 ..." (lscpu's "Flags:"): SSE2 is x86's; an ARM CPU
lists its features as "Features\t: fp asimd ..." (lscpu: "Flags: fp asimd")."""
_DOCKER = re.compile(r"requested image's platform \(linux/(?P<image>amd64|arm64)[\w/]{0,10}\) does not match the detected host platform \(linux/(?P<host>amd64|arm64)")


def read(doc: Document, found: Found) -> None:
    lines = doc.lines
    for line in lines:
        if line.code or len(line.text) > _LONG:
            continue
        text = line.text.strip()
        _sw_vers(line, text, found)
        _system_profiler(line, text, found)
        _uname(line, text, found)
        _sysctl(line, text, found)
        _platform_strings(line, text, found)
        _binary(line, text, found)
        _docker(line, text, found)
        _cpu_model(line, text, found)
    _sw_vers_name(lines, found)


def _sw_vers(line: Line, text: str, found: Found) -> None:
    match = _SW_VERS.fullmatch(text) if text.startswith("ProductVersion:") else None
    if not match or not macos_version(match.group("version")):
        return
    version = match.group("version")
    found.add(line, "os", "Darwin", "read", "sw_vers")
    found.add(line, "macos_version_reported" if version == "10.16" else "macos_version", version,
              "read", "sw_vers")
    found.claim(line)


def _system_profiler(line: Line, text: str, found: Found) -> None:
    match = _PROFILER.fullmatch(text) if text.startswith(("System Version:", "Kernel Version:", "Chip:")) else None
    if not match:
        return
    version, darwin, chip = match.group("version"), match.group("darwin"), match.group("chip")
    if version and macos_version(version):
        found.add(line, "os", "Darwin", "read", "system_profiler")
        found.add(line, "macos_version_reported" if version == "10.16" else "macos_version", version,
                  "read", "system_profiler")
    elif darwin and macos_from_darwin(darwin):
        found.add(line, "os", "Darwin", "read", "system_profiler")
        found.add(line, "macos_version", macos_from_darwin(darwin) or "", "inferred", "system_profiler")
    elif chip and chip_name(chip):
        found.add(line, "chip", chip_name(chip) or "", "read", "system_profiler")
    else:
        return
    found.claim(line)


def _sw_vers_name(lines: Sequence[Line], found: Found) -> None:
    """sw_vers' other lines carry nothing more; they are output, not prose."""
    for line in lines:
        if line.text.strip().startswith(("ProductName:", "BuildVersion:", "ProductVersionExtra:")):
            found.claim(line)


def _uname(line: Line, text: str, found: Found) -> None:
    if not text.startswith(("Darwin ", "Linux ")):
        return
    match = _UNAME.match(text)
    if not match:
        return
    machine = normalise(match.group("machine")) or ""
    found.add(line, "os", match.group("system"), "read", "uname -a")
    found.add(line, "shell_arch", machine, "read", "uname -a")
    if match.group("system") == "Darwin":
        hardware = kernel_hardware(text)
        if hardware:
            found.add(line, "hw_arm64", hardware, "read", "uname -a")
        macos = macos_from_darwin(match.group("release"))
        if macos:
            found.add(line, "macos_version", macos, "inferred", "uname -a")
    elif "linuxkit" in match.group("release"):  # Docker Desktop's VM kernel
        docker = {"x86_64": "docker amd64", "arm64": "docker arm64"}.get(machine, "docker")
        found.add(line, "container", docker, "read", "uname -a")
    found.claim(line)


def _sysctl(line: Line, text: str, found: Found) -> None:
    match = _SYSCTL.fullmatch(text) if text[:1] in ("m", "h", "s") else None
    if not match:
        return
    name, value = match.group("name"), match.group("value")
    if name == "machdep.cpu.brand_string":
        brand(line, value, "sysctl", found)
    elif value in ("0", "1"):
        found.add(line, "hw_arm64", "true" if value == "1" or name == "sysctl.proc_translated" else "false",
                  "read", "sysctl")
        if name == "sysctl.proc_translated":
            found.add(line, "shell_arch", "x86_64" if value == "1" else "arm64", "read", "sysctl")
    found.claim(line)


def brand(line: Line, value: str, source: str, found: Found) -> None:
    """machdep.cpu.brand_string: the chip, or VirtualApple, the CPU Rosetta shows x86 code."""
    found.add(line, "cpu_brand", value, "read", source)
    if value.startswith("VirtualApple"):
        found.add(line, "hw_arm64", "true", "read", source)
        return
    chip = chip_name(value)
    if chip:
        found.add(line, "chip", chip, "read", source)


def _cpu_model(line: Line, text: str, found: Found) -> None:
    match = _CPU_MODEL.fullmatch(text) if text[:1] in ("m", "M", "p") else None
    if match and chip_name(match.group("brand")):  # the kernel pads its model names: one space each
        brand(line, " ".join(match.group("brand").split()), "lshw" if match.group("field") == "product" else "cpuinfo",
              found)
        found.claim(line)
    elif text[:1] in ("f", "F") and _X86_FLAGS.match(text):
        found.add(line, "hw_arm64", "false", "read", "cpuinfo")  # an x86 CPU's flags
        found.claim(line)


def _platform_strings(line: Line, text: str, found: Found) -> None:
    if "64bit" not in text and "Linux-" not in text and "Windows-" not in text:
        return
    for match in PLATFORM.finditer(text):
        facts = read_platform(match)
        facts.record(line, "platform.platform()", found)
        if facts.darwin_release and macos_from_darwin(facts.darwin_release):
            found.add(line, "macos_version", macos_from_darwin(facts.darwin_release) or "",
                      "inferred", "platform.platform()")
        if "linuxkit" in match.group():
            found.add(line, "container", "docker", "read", "platform.platform()")


def _binary(line: Line, text: str, found: Found) -> None:
    """`file` or `lipo -info` run on a Python binary: the architectures it holds."""
    archs: list[str] = []
    path = ""
    at = text.find("Mach-O ")
    if at > 0 and text[:at].rstrip().endswith(":"):
        path, rest = text[:at].rstrip()[:-1].strip(), text[at:at + 700]
        archs = _FILE_ARCH.findall(rest) if "universal binary" in rest else _THIN.findall(rest)[:1]
    elif text.startswith(("Architectures in the fat file:", "Non-fat file:")):
        fat, thin = _LIPO_FAT.fullmatch(text), _LIPO_THIN.fullmatch(text)
        if fat:
            path, archs = fat.group("path"), fat.group("archs").split()
        elif thin:
            path, archs = thin.group("path"), [thin.group("arch")]
    if not _PYTHON_FILE.search(path):
        return  # a library's architectures say nothing of the interpreter's
    names = [normalise(a) or a for a in archs]
    if names:
        source = "file" if "Mach-O" in text else "lipo"
        found.add(line, "python_binary_archs", " ".join(dict.fromkeys(names)), "read", source)
        found.add(line, "python_path", path, "read", source)
        found.claim(line)


def _docker(line: Line, text: str, found: Found) -> None:
    if "does not match the detected host platform" not in text:
        return
    match = _DOCKER.search(text)
    if match:
        found.add(line, "container", f"docker {match.group('image')}", "read", "docker")
        found.add(line, "hw_arm64", "true" if match.group("host") == "arm64" else "false", "read", "docker")
        found.claim(line)

