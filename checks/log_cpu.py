"""The wrong CPU in a pasted log, diagnosed with this environment: an illegal instruction or a
missing AVX (x86_64 TensorFlow under Rosetta 2 or QEMU, or an old CPU), an x86_64 build's CPU
guard on Apple silicon, QEMU's own lines, an amd64 image on an ARM host, a binary of the other
architecture. The log says what broke; the snapshot says which process was translated."""

from __future__ import annotations

import re
import shlex
from typing import Any

from tfdoctor import codes
from tfdoctor.advice.commands import arm64_image, machine_check, pip, python_cmd
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import HARDWARE_REQUIREMENTS, install_commands, recommended_requirements
from tfdoctor.advice.log_evidence import amd64_on_arm, emulated_x86_container, evidence, matches_of, names_tensorflow, said
from tfdoctor.derived import Derived
from tfdoctor.facts.pasted_log import LogTextMatch
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.logtext.importing import LINKER_SKIPPED, MKL_REQUIREMENTS, NOT_MACH_O, WINDOWS_DLL_INIT_FAILED
from tfdoctor.model import Finding, Remediation, Severity, rule

ARM64_PYTHON = "https://www.python.org/downloads/macos/"
_PYTHON_PROGRAM = re.compile(r"python|jupyter|\.py\b|tensorflow", re.IGNORECASE)
"""A crashed command (zsh names it) that runs Python or TensorFlow."""


def _arch_facts(s: Snapshot, d: Derived) -> dict[str, Any]:
    py = s.python
    return {"apple_silicon": d.apple_silicon, "translated": d.translated,
            "process_arch": d.process_arch, "python_binary_archs": sorted(d.binary_archs) or None,
            "python": py.executable if py else None, "container": s.host.container,
            "cpu_flags_avx": ("avx" in s.host.cpu_flags) if s.host.cpu_flags else None}


def _cpu_cause(s: Snapshot, d: Derived, what: str, emulator: str | None = None) -> tuple[str, Remediation]:
    """Why x86_64 TensorFlow met a CPU without AVX here, and the fix."""
    emulator = emulator or ("docker" if emulated_x86_container(s) else None)
    if not emulator and (d.translated or (d.apple_silicon and not d.process_arch)):
        # unknown: outside a container only Rosetta runs x86 here
        runs = "runs" if d.translated else "ran (on Apple silicon only Rosetta 2 runs x86_64 code)"
        cause = (f"{what}: this Python {runs} as x86_64 under Rosetta 2, which has no AVX; "
                 "x86_64 TensorFlow needs it (`tfdoctor explain arch.rosetta` says where such a Python comes from)")
        reqs = recommended_requirements(s).requirements
        executable = s.python.executable if s.python else ""
        looks = ["arch", "file " + shlex.quote(executable) if executable else machine_check(python_cmd(s))]
        return cause, Remediation(cause + ". Use an arm64 Python and install the arm64 wheels",
                                  tuple(looks + install_commands(s, reqs)), ARM64_PYTHON)
    no_avx = s.host.system == "Linux" and bool(s.host.cpu_flags) and "avx" not in s.host.cpu_flags
    if emulator or (s.host.container and (s.host.cpu_implementer or no_avx)):
        cause = (f"{what}: an amd64 container or emulator (QEMU) runs x86_64 code without AVX "
                 "(docker/for-mac#5342)")
        return cause, Remediation(cause + ". Use an arm64 image (docker run --platform linux/arm64) "
                                  "with the aarch64 TensorFlow wheel", ("docker run --platform linux/arm64 ...",),
                                  "https://github.com/docker/for-mac/issues/5342")
    if no_avx:  # a CPU of its own, without AVX (TensorFlow's x86_64 wheels need it since 1.6)
        cause = f"{what}: this CPU ({s.host.cpu_brand or 'its flags list no avx'}) has no AVX, which the TensorFlow build needs"
        return cause, Remediation(cause + ". Run it on a CPU with AVX, or use a TensorFlow built without "
                                  "AVX (built from source for this CPU)", ("grep -o -w avx /proc/cpuinfo | head -1",))
    if d.apple_silicon:
        cause = (f"{what}: this Python runs natively as {d.process_arch}, so the log came from "
                 "another process: one started under Rosetta 2 (a Terminal set to 'Open using "
                 "Rosetta', `arch -x86_64`, an Intel Homebrew or Anaconda Python)")
        return cause, Remediation(cause + ". Run the failing command with this interpreter",
                                  ("arch", "which -a python3"), ARM64_PYTHON)
    if "avx" in s.host.cpu_flags:
        cause = (f"{what}: this machine's CPU has AVX, so the log came from another machine, a VM "
                 "or an emulator without it")
        return cause, Remediation(cause + ". Run tfdoctor there (`tfdoctor collect --log FILE`)")
    cause = f"{what}: the CPU that ran it lacks an instruction the TensorFlow build needs (AVX)"
    return cause, Remediation(cause + ". Use a machine with AVX, or a TensorFlow built without it")


def _cpu_finding(rule_: Any, s: Snapshot, d: Derived, match: Any, what: str,
                 emulator: str | None = None) -> Finding:
    """A CPU finding of `rule_` on `match`: the cause and fix _cpu_cause gives, with the arch facts.
    Where the text shows the emulated container, the failure tells its story, and explains the
    text's signs of it (QEMU's lines, Docker's platform warning)."""
    cause, fix = _cpu_cause(s, d, what, emulator)
    shown = (codes.LOG_QEMU_EMULATION, codes.LOG_AMD64_IMAGE) if emulated_x86_container(s) else ()
    return rule_.finding(evidence(s, match, **_arch_facts(s, d)), fix, title=cause, explains=shown)


@rule(codes.LOG_ILLEGAL_INSTRUCTION, "The process died on an illegal instruction", Severity.ERROR,
      "x86_64 TensorFlow wheels use AVX. Rosetta 2 translates x86_64 code but has no AVX, so an "
      "x86_64 Python on Apple silicon (Anaconda's Intel installer, Homebrew under /usr/local, a "
      "Terminal opened with Rosetta) dies with 'Illegal instruction: 4' or 'zsh: illegal hardware "
      "instruction' on `import tensorflow` (tensorflow/tensorflow#62860). The same happens in "
      "amd64 containers emulated by QEMU.",
      "Use an arm64 Python and the arm64 wheels (the finding says which process was translated).",
      fix_answer=ABOUT_THE_LOG)
def illegal_instruction(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_ILLEGAL_INSTRUCTION):
        program = match.fields.get("command", "")
        if _another_programs(s, d, match):
            text = (f"the program that died is `{program}`, not Python, and nothing in the text names "
                    "TensorFlow: its illegal instruction is that program's")
            return illegal_instruction.finding(
                evidence(s, match, **_arch_facts(s, d)),
                Remediation(text + ". Ask its authors for a build for this CPU"),
                title=text, severity=Severity.INFO)
        return _cpu_finding(illegal_instruction, s, d, match, "Illegal instruction")
    return None


def _another_programs(s: Snapshot, d: Derived, match: Any) -> bool:
    """A crash of a program that is not Python, in a text that never names TensorFlow."""
    program = match.fields.get("command", "")
    return bool(program) and not _PYTHON_PROGRAM.search(program) and d.tf_main is None and not names_tensorflow(s)


def _own_x86_cpu(s: Snapshot, d: Derived) -> bool:
    """The text's machine runs x86 code on an x86 CPU of its own: its chip or macOS says it is no
    Apple silicon (or it is Windows, whose TensorFlow is x86_64 only), and nothing says a
    container or an emulator ran it."""
    if d.apple_silicon or d.translated or s.host.container or emulated_x86_container(s) \
            or matches_of(s, codes.LOG_QEMU_EMULATION):
        return False
    return s.host.hw_arm64 is False or s.host.system == "Windows"


_AVX_FLAG = {"Linux": "grep -o -w -m1 avx /proc/cpuinfo", "Darwin": "sysctl -n machdep.cpu.features | grep -o -w AVX1.0"}
"""The command that prints AVX where the CPU has it (macOS names it AVX1.0)."""


def _illegal_on_own_x86_cpu(s: Snapshot, d: Derived) -> Finding | None:
    """An illegal instruction where TensorFlow ran on an x86 CPU of its own: TensorFlow's x86_64
    builds use AVX (the registry's wheels from 1.6; community builds often AVX2 and FMA too), so
    there the instruction missing is AVX, not Rosetta's or an emulator's."""
    if not _own_x86_cpu(s, d):
        return None
    for match in matches_of(s, codes.LOG_ILLEGAL_INSTRUCTION):
        if _another_programs(s, d, match):
            continue
        cpu = s.host.cpu_brand or s.host.chip or {"Darwin": "an Intel Mac"}.get(s.host.system, "an x86 CPU")
        cause = (f"Illegal instruction on an x86 CPU of its own ({cpu}): TensorFlow's x86_64 builds use AVX "
                 "(the registry's wheels from 1.6; some builds AVX2 and FMA too), which this CPU lacks")
        commands = (_AVX_FLAG[s.host.system],) if s.host.system in _AVX_FLAG else ()
        return avx_missing.finding(
            evidence(s, match, **_arch_facts(s, d)),
            Remediation(cause + ". Check the CPU's flags for AVX; without it, use a TensorFlow built for this "
                        "CPU (from source, or a build without AVX such as TensorFlow 1.5) or a machine with AVX",
                        commands, HARDWARE_REQUIREMENTS), title=cause)
    return None


@rule(codes.LOG_X86_BUILD, "An x86_64 TensorFlow ran on Apple silicon", Severity.INFO,
      "TensorFlow's CPU guard (tensorflow/core/platform/cpu_feature_guard.cc) is compiled for x86 "
      "only and names the x86 instructions the running CPU offers that the build does not use "
      "('...to use the following CPU instructions in performance-critical operations: AVX2 FMA'). "
      "On an Intel Mac or Linux that is an everyday line; on Apple silicon it says the TensorFlow "
      "that printed it is an x86_64 build, run by Rosetta 2 (which offers SSE4.2 but no AVX): "
      "arch.rosetta is then the cause.",
      "Use an arm64 Python and the arm64 wheels.", fix_answer=ABOUT_THE_LOG)
def x86_build(s: Snapshot, d: Derived):
    if not d.apple_silicon:
        return None  # an x86 CPU printing its own features: nothing to say
    for match in matches_of(s, codes.LOG_X86_BUILD):
        return _cpu_finding(x86_build, s, d, match, "An x86_64 TensorFlow ran (its CPU guard names "
                                                    f"{match.fields.get('instructions', 'x86 instructions')})")
    return None


@rule(codes.LOG_AVX_MISSING, "TensorFlow needs AVX, which this CPU (or its emulator) lacks",
      Severity.ERROR,
      "TensorFlow's x86_64 wheels are built with AVX and check for it at import: Rosetta 2 and "
      "QEMU do not offer it (tensorflow/tensorflow#52972, docker/for-mac#5342). Intel MKL (NumPy, "
      "SciPy or TensorFlow built with it, as conda's defaults channel ships them) checks the CPU "
      "too ('Intel MKL FATAL ERROR: This system does not meet the minimum requirements'); MKL has "
      "only x86 code, so on Apple silicon that says an x86_64 process ran. An illegal instruction "
      "where the report's chip or macOS (before 11) says TensorFlow ran on an x86 CPU of its own, "
      "neither Rosetta nor an emulator, is this too: TensorFlow's x86_64 builds use AVX from 1.6 "
      "(its install guide's hardware requirements), so that CPU lacks it.",
      "Run arm64 TensorFlow natively: an arm64 Python on the Mac, an arm64 image in Docker; on an "
      "x86 CPU without the instructions MKL lists, builds without MKL (conda's nomkl, pip's wheels).",
      explains=(codes.LOG_ILLEGAL_INSTRUCTION,), fix_answer=ABOUT_THE_LOG)
def avx_missing(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_AVX_MISSING):
        if match.variant == MKL_REQUIREMENTS:
            return _mkl_refused(s, d, match)
        if match.variant == WINDOWS_DLL_INIT_FAILED:
            return _dll_init_failed(s, d, match)
        return _cpu_finding(avx_missing, s, d, match, f"TensorFlow needs {match.fields.get('instructions', 'AVX')}",
                            match.fields.get("emulator"))
    return _illegal_on_own_x86_cpu(s, d)


_CPU_HAS_AVX = "import cpuinfo; print('AVX' if 'avx' in cpuinfo.get_cpu_info()['flags'] else 'no AVX')"
"""Windows has no command of its own that lists the CPU's flags: py-cpuinfo reads them."""


def _dll_init_failed(s: Snapshot, d: Derived, match: Any) -> Finding:
    """Windows refusing TensorFlow's native module at its start-up: the AVX its builds use, which
    TensorFlow's maintainers answer it with; where the CPU has AVX, the C++ runtime its DLLs load."""
    cause = ("Windows could not start TensorFlow's native module (DLL initialization routine failed): its x86_64 "
             "builds use AVX from 1.6 (some builds AVX2 too), which this CPU most likely lacks")
    return avx_missing.finding(
        evidence(s, match, **_arch_facts(s, d)),
        Remediation(cause + ". Check the CPU for AVX; without it, use a TensorFlow built for this CPU or another "
                    "machine. If it has AVX, install the latest Microsoft Visual C++ Redistributable (x64), the "
                    "runtime TensorFlow's DLLs load",
                    (pip(s, "install", "py-cpuinfo"), f'{python_cmd(s)} -c "{_CPU_HAS_AVX}"'), HARDWARE_REQUIREMENTS),
        title=cause)


def _mkl_refused(s: Snapshot, d: Derived, match: Any) -> Finding:
    """Intel MKL's refusal: under Rosetta 2 or an emulator it is the x86 process's story, as
    TensorFlow's own AVX check is; on an x86 CPU of its own the MKL build (NumPy's, SciPy's or
    TensorFlow's from conda's defaults channel) is what needs more than the CPU has."""
    what = f"Intel MKL (x86 code only) needs {match.fields.get('instructions') or 'instructions this CPU lacks'}"
    if d.apple_silicon or s.host.container or emulated_x86_container(s):
        return _cpu_finding(avx_missing, s, d, match, what)
    cause = (f"{what}, which the CPU that ran it does not offer: NumPy, SciPy or TensorFlow built with MKL "
             "(conda's defaults channel) cannot run there")
    return avx_missing.finding(
        evidence(s, match, **_arch_facts(s, d)),
        Remediation(cause + ". Use builds without MKL (OpenBLAS): conda's nomkl, or pip's wheels",
                    ("conda install nomkl numpy scipy",)), title=cause)


SAMPLER_CHECK = "sampler-bucket-limits"


@rule(codes.LOG_QEMU_EMULATION, "A process ran under QEMU's emulation", Severity.WARNING,
      "QEMU's user-mode emulator prints its own lines when the process it runs dies: 'qemu: "
      "uncaught target signal 6 (Aborted) - core dumped', 'qemu-x86_64: QEMU internal SIGSEGV', "
      "'qemu-x86_64: Could not open /lib64/ld-linux-x86-64.so.2' (QEMU linux-user); TensorFlow's "
      "'Check failed: bucket_limits_[i] > bucket_limits_[i - 1]' (its sampler checking buckets it "
      "computes itself, which come out unordered only where the x86 floating point is emulated "
      "wrongly) is the same emulation seen from TensorFlow. Docker runs "
      "amd64 images that way on an ARM host (Docker Desktop on Apple silicon), where x86_64 "
      "TensorFlow lacks AVX (tensorflow/tensorflow#52972) and no GPU is reachable. "
      "arch.emulated-container is the cause when the emulated process is x86, or the CPU failure "
      "the text shows under it (log.avx-missing, log.illegal-instruction), which names the emulator.",
      "Use an image for the host's architecture: `docker run --platform linux/arm64 ...`.",
      "https://github.com/docker/for-mac/issues/5342", fix_answer=ABOUT_THE_LOG)
def qemu_emulation(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_QEMU_EMULATION):
        target = match.fields.get("target") or "x86_64 (amd64)"
        text = (f"QEMU emulated a {target} process: Docker runs an image of another architecture "
                "on this host. Run an image built for the host's architecture")
        title = f"The process ran under QEMU's emulation of {target}"
        if match.variant == SAMPLER_CHECK:
            title = ("TensorFlow's check of the buckets it computes itself failed, as it does only where "
                     f"the x86 floating point is emulated: QEMU's emulation of {target}")
        return qemu_emulation.finding(
            evidence(s, match), Remediation(text, ("docker run --platform linux/arm64 IMAGE",),
                                            "https://github.com/docker/for-mac/issues/5342"), title=title)
    return None


@rule(codes.LOG_AMD64_IMAGE, "An amd64 (x86_64) container image on an ARM host", Severity.WARNING,
      "The Docker CLI warns 'The requested image's platform (linux/amd64) does not match the "
      "detected host platform (linux/arm64/v8)' when it runs an image built for another "
      "architecture, and a report's `--platform linux/amd64` (docker run or build, a Dockerfile's "
      "FROM --platform=, DOCKER_DEFAULT_PLATFORM, compose's platform:, or linux/amd64 named in its "
      "words, not in a URL's path) asks for one. On an ARM host "
      "(Docker Desktop on Apple silicon) the container runs emulated (QEMU, or Rosetta for Linux), "
      "where x86_64 TensorFlow lacks AVX and no GPU is reachable: arch.emulated-container is the "
      "cause, or the CPU failure the text shows there (log.avx-missing, log.illegal-instruction). On "
      "an x86_64 host an amd64 image runs natively (information).",
      "Use an image for the host's architecture: `docker run --platform linux/arm64 ...`, or "
      "FROM --platform=linux/arm64 in the Dockerfile.",
      "https://github.com/docker/for-mac/issues/5342", fix_answer=ABOUT_THE_LOG)
def amd64_image(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_AMD64_IMAGE):
        image = match.fields.get("image", "linux/amd64")
        emulated = amd64_on_arm(s, match)
        fix = arm64_image("Run an image built for the host's architecture (linux/arm64 on Apple silicon)")
        if emulated:
            return amd64_image.finding(evidence(s, match, emulated=True), fix,
                                       title=f"The {image} image runs emulated on this ARM host")
        where = "an x86_64 host runs it natively" if emulated is False else \
            "emulated if the host is ARM (Apple silicon), native on x86_64"
        return amd64_image.finding(evidence(s, match, emulated=emulated), fix, severity=Severity.INFO,
                                   title=f"An {image} image: {where}")
    return None


def _not_mach_o(s: Snapshot, match: LogTextMatch, package: str | None, facts: dict[str, Any]) -> Finding:
    """dyld's 'not a mach-o file': no architecture to reconcile, a package's build for another system."""
    library = match.fields.get("library") or ""
    owner = f"the package that installed it ({package})" if package else "the package that installed it"
    text = (f"{library or 'a library'} is no macOS binary (a Linux .so, or a file cut short): {owner} "
            "shipped a build for another system. `file` tells which; install a release of it that has "
            "a macOS wheel for this Mac's architecture, reinstalling without pip's cache")
    commands = tuple(c for c in ("file " + shlex.quote(library) if library else "",
                                 pip(s, "install", "--force-reinstall", "--no-cache-dir", package) if package else "") if c)
    return arch_mismatch.finding(evidence(s, match, library=library or None, **facts), Remediation(text, commands),
                                 title=f"Not a macOS binary: {text}")


@rule(codes.LOG_ARCH_MISMATCH, "A binary of the other architecture was loaded", Severity.ERROR,
      "macOS refuses to load a library built for the other architecture: 'incompatible "
      "architecture (have (x86_64), need (arm64e))' (tensorflow/tensorflow#57483). It happens "
      "when wheels installed by an x86_64 pip (under Rosetta 2) are imported by an arm64 Python, "
      "or the other way round. dyld's 'not a mach-o file' is the far end of it: the library is no "
      "macOS binary at all, another system's build (a Linux .so) that the package shipped to "
      "macOS, or a file cut short (google/grain#620).",
      "Reinstall the package from the Python that imports it, running as the machine's own "
      "architecture (a library that is no macOS binary: a release of the package built for macOS).",
      fix_answer=ABOUT_THE_LOG)
def arch_mismatch(s: Snapshot, d: Derived):
    for match in matches_of(s, codes.LOG_ARCH_MISMATCH):
        have, need = match.fields.get("have", ""), match.fields.get("need", "")
        facts = _arch_facts(s, d)
        if match.variant == LINKER_SKIPPED:  # a build linking a library, not Python importing one
            text = (f"the linker skipped {match.fields.get('file') or 'a library'}: it is built for {have}, "
                    f"the build is for {need}. Link a {need} build of that library (TensorFlow's C library: "
                    f"one built for {need}), or build for {have}")
            return arch_mismatch.finding(evidence(s, match, binary_arch=have, needed=need, **facts),
                                         Remediation(text, ("file " + shlex.quote(match.fields.get("file") or "LIBRARY"),)),
                                         title=f"Architecture mismatch: {text}")
        library = re.search(r"site-packages/([^/]+)/", match.text)
        package = library.group(1).replace("_", "-") if library else None
        if match.variant == NOT_MACH_O:
            return _not_mach_o(s, match, package, facts)
        if said(match):  # the report's words: no binary, no architectures named
            text = ("the report says an import fails because of the architecture: a binary of one "
                    "architecture was loaded by a process of the other. An IDE or terminal running under "
                    "Rosetta 2 starts even a universal2 Python as x86_64: check what Python runs as where it "
                    "fails (an arm64 install needs arm64)")
            return arch_mismatch.finding(evidence(s, match, **facts), Remediation(
                text, (machine_check(python_cmd(s)),)),
                title=f"Architecture mismatch: {text}")
        if d.translated:
            text = ("this Python runs as x86_64 under Rosetta 2 and imports arm64 binaries: start it "
                    "natively (see arch.rosetta)")
            commands: tuple[str, ...] = ()
        else:
            runs = f"this Python runs as {d.process_arch}" if d.process_arch else "this Python runs as the other architecture"
            text = (f"the binary is {have or 'of the other architecture'}, {runs}: it was installed by a pip "
                    "running as the other architecture. Reinstall without pip's cache")
            dist = d.tf_main.name if d.tf_main and (package or "").startswith("tensorflow") else package
            commands = (pip(s, "install", "--force-reinstall", "--no-cache-dir", dist),) if dist else ()
        return arch_mismatch.finding(evidence(s, match, binary_arch=have, needed=need, **facts),
                                     Remediation(text, commands), title=f"Architecture mismatch: {text}")
    return None
