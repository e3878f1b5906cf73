"""Does Python run as the machine's own architecture? On Apple silicon an x86_64 Python runs under
Rosetta 2: no tensorflow-metal wheel fits it, TensorFlow's AVX build crashes or refuses to load,
and the GPU stays idle. The install route decides the fix, so one rule per route names it."""

from __future__ import annotations

import re
import shlex

from packaging.version import Version

from tfdoctor import codes
from tfdoctor.advice.commands import arm64_image, machine_check, python_cmd, venv_command
from tfdoctor.advice.fix_answers import (
    ABOUT_THE_MACHINE,
    ARM64_PYTHON_FIRST,
    NOTHING_WRONG,
)
from tfdoctor.advice.installs import listing_read
from tfdoctor.advice.log_evidence import emulated_x86_container, matches_of, names_tensorflow
from tfdoctor.derived import Derived
from tfdoctor.facts.archnames import ARM64, X86_64
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.versions import parse_version
from tfdoctor.knowledge import best_pair, eras, macos_floors
from tfdoctor.logtext.importing import MKL_REQUIREMENTS
from tfdoctor.model import Remediation, Severity, rule

ROSETTA_CONSEQUENCES = (
    codes.RUNTIME_IMPORT_SIGILL,
    codes.RUNTIME_IMPORT_CRASHED,
    codes.RUNTIME_NO_GPU,
    codes.INSTALL_NO_TENSORFLOW,
    codes.COMPAT_NO_WHEEL_FOR_PYTHON,
    codes.COMPAT_NO_METAL,
    codes.LOG_ILLEGAL_INSTRUCTION,
    codes.LOG_AVX_MISSING,
    codes.LOG_X86_BUILD,
    codes.LOG_ARCH_MISMATCH,
    codes.LOG_NO_GPU_LISTED,
    codes.LOG_PIP_NO_MATCHING_DISTRIBUTION,
    codes.LOG_PIP_UNSUPPORTED_WHEEL,
)
"""Codes whose findings an x86_64 Python on Apple silicon explains (no Metal GPU, AVX crash...)."""
ROUTE_CONSEQUENCES = (codes.ARCH_ROSETTA, *ROSETTA_CONSEQUENCES)

MINIFORGE = "https://github.com/conda-forge/miniforge"
ROSETTA_LINK = "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment"


def _evidence(s: Snapshot) -> dict:
    py, host = s.python, s.host
    return {"process_arch": py.process_arch if py else None, "translated": py.translated if py else None,
            "hw_arm64": host.hw_arm64, "chip": host.chip, "cpu_brand": host.cpu_brand,
            "cpu_has_avx": "avx" in host.cpu_flags}


_ARCH_X86 = re.compile(r"^arch\s+(?:-\w+\s+)*-(?:x86_64|i386)\b")
"""`arch -x86_64 CMD` (or -i386): the command was started on the x86_64 slice of its binary."""


def _x86_shown(s: Snapshot, d: Derived) -> str | None:
    """What shows, on Apple silicon where the snapshot does not say what the Python runs as, that
    it ran x86_64 code: TensorFlow's CPU guard naming the x86 instructions it found, Intel MKL's
    refusal of the CPU (MKL has no arm64 code), a crash
    line of a command started with `arch -x86_64`, or an x86 crash (illegal instruction, the AVX
    message) with an installed TensorFlow the registry has macOS wheels of for x86_64 only (pip
    installs only wheels that fit the interpreter), or, crash or not, an installed TensorFlow older
    than every arm64 build. Outside a container only Rosetta 2 runs x86_64 code on Apple silicon.
    A bare crash says no more than log.illegal-instruction does."""
    if not d.apple_silicon or d.process_arch or (s.python and s.python.translated is not None) \
            or emulated_x86_container(s):  # an amd64 container's x86 code, not Rosetta 2's
        return None
    for match in matches_of(s, codes.LOG_X86_BUILD):
        return match.text
    for match in matches_of(s, codes.LOG_AVX_MISSING):
        if match.variant == MKL_REQUIREMENTS:  # Intel MKL is x86 code only
            return match.text
    started = _started_as_x86(s)
    if started:
        return started
    crashes = matches_of(s, codes.LOG_ILLEGAL_INSTRUCTION, codes.LOG_AVX_MISSING)
    x86_only = [p for p in d.providers if p.version and p.installer != "conda"
                and macos_floors.wheel_archs(p.name, p.version) == {X86_64}]
    if crashes and x86_only:
        return (f"{crashes[0].text} ({x86_only[0].label} has macOS wheels for "
                "x86_64 only)")
    return _older_than_arm64(s, d)


def _older_than_arm64(s: Snapshot, d: Derived) -> str | None:
    """An installed TensorFlow older than every arm64 build (Apple's fork of 2.4.0rc0 came first,
    the registry's first is tensorflow-macos 2.5.0): on Apple silicon only an x86_64 Python can
    hold one, crash or no crash. Only when the snapshot's packages are what is installed: a
    version a report states in prose may be one it wants ("I need TensorFlow 1.15 on my M1"). The
    fork itself, conda's own builds and versions older than TensorFlow's first release (the fork
    numbers itself 0.1aN) are not judged."""
    if "packages" in s.unknown:
        return None
    registry, oldest = macos_floors.first_release_for(ARM64), macos_floors.first_release_for(X86_64)
    first = macos_floors.oldest_arm64_build()
    since = Version(oldest[1]) if oldest else None
    for p in d.providers:
        version = parse_version(p.version)
        if version is None or p.installer == "conda" or eras.installed_fork(p) \
                or version >= Version(first) or (since is not None and version < since):
            continue
        registry_first = f"; on the registry {registry[0]} {registry[1]}" if registry else ""
        return (f"{p.label} is installed, and no TensorFlow before {first} (Apple's fork"
                f"{registry_first}) was built for arm64")
    return None


def _started_as_x86(s: Snapshot) -> str | None:
    """The crashed command, when the text shows it started with `arch -x86_64` (zsh names it)."""
    for match in matches_of(s, codes.LOG_ILLEGAL_INSTRUCTION):
        command = match.fields.get("command", "")
        if _ARCH_X86.match(command):
            return command
    return None


def _translated(s: Snapshot, d: Derived) -> bool:
    """Known to run under Rosetta 2, or shown to by the pasted text's x86 crash (_x86_shown)."""
    return d.translated or _x86_shown(s, d) is not None


def _conda_osx_64(s: Snapshot) -> bool:
    return bool(s.python.conda and s.python.conda.subdir == "osx-64")


@rule(codes.ARCH_CONDA_OSX_64, "The conda environment is osx-64 (Intel) on an Apple silicon Mac",
      Severity.ERROR,
      "conda installs packages for the platform subdir of the environment; an osx-64 "
      "environment (Anaconda's Intel installer, or CONDA_SUBDIR=osx-64) gets x86_64 Python and "
      "x86_64 packages that run under Rosetta 2.",
      "Create an osx-arm64 environment (Miniforge's arm64 installer defaults to it).",
      MINIFORGE, explains=ROUTE_CONSEQUENCES + (codes.LOG_CONDA_TENSORFLOW_DEPS_MISSING, codes.LOG_CONDA_PACKAGES_NOT_FOUND),
      fix_answer=ARM64_PYTHON_FIRST)
def conda_osx_64(s: Snapshot, d: Derived):
    if s.python is None or not d.translated or not _conda_osx_64(s):
        return _searched_osx_64(s, d)
    conda = s.python.conda
    env_name = conda.prefix.rstrip("/").rsplit("/", 1)[-1] if conda.prefix != conda.root else "base"
    intel_installer = "anaconda" in conda.root.lower() or "miniconda" in conda.root.lower()
    text = ("Create an osx-arm64 environment and reinstall TensorFlow in it"
            + (" (your conda comes from an Intel installer: Miniforge's arm64 installer avoids"
               " this for every new environment)" if intel_installer else ""))
    return conda_osx_64.finding(
        {**_evidence(s), "conda_subdir": conda.subdir, "conda_root": conda.root, "conda_env": env_name},
        Remediation(text, _NEW_ENV, MINIFORGE))


_NEW_ENV = ("CONDA_SUBDIR=osx-arm64 conda create -n tf-arm64 python=3.11",
            "conda activate tf-arm64", "conda config --env --set subdir osx-arm64")


def _searched_osx_64(s: Snapshot, d: Derived):
    """conda's own refusal lists the channels it searched, each ending in the environment's
    subdir: osx-64 on an Apple chip is this finding observed, whatever else the report omits."""
    if not d.apple_silicon:
        return None
    seen = [m for m in matches_of(s, codes.LOG_CONDA_TENSORFLOW_DEPS_MISSING, codes.LOG_CONDA_PACKAGES_NOT_FOUND)
            if m.fields.get("subdir") == "osx-64"]
    if not seen:
        return None
    return conda_osx_64.finding(
        {**_evidence(s), "conda_subdir": "osx-64", "observed_in": seen[0].text},
        Remediation("Install Miniforge's arm64 conda (or create an osx-arm64 environment) and reinstall "
                    "TensorFlow there", _NEW_ENV, MINIFORGE), basis="observed",
        title="conda searched its osx-64 (Intel) channels on an Apple silicon Mac: this conda environment "
              "is the Intel one, run under Rosetta 2")


@rule(codes.ARCH_X86_ONLY_INTERPRETER, "The Python binary is x86_64 only",
      Severity.ERROR,
      "The interpreter binary holds no arm64 code (read from its Mach-O header), so on Apple "
      "silicon it can only run under Rosetta 2. Typical routes: Homebrew installed under "
      "/usr/local (the Intel prefix), a pyenv build made from a Rosetta shell, an old python.org "
      "Intel installer.",
      "Install an arm64 (or universal2) Python and recreate the environment with it.", explains=ROUTE_CONSEQUENCES, needs=("python",),
      fix_answer=ARM64_PYTHON_FIRST)
def x86_only_interpreter(s: Snapshot, d: Derived):
    if not d.translated or _conda_osx_64(s) or not d.binary_archs or ARM64 in d.binary_archs:
        return None
    py = s.python
    real = py.binary.path
    if real.startswith(("/usr/local/Cellar/", "/usr/local/opt/")):
        route = "homebrew-intel"
        fix = Remediation(
            "This Python comes from Homebrew's Intel prefix /usr/local. Install Homebrew for "
            "Apple silicon (it lives in /opt/homebrew) from a native shell, then build the "
            "environment with its Python",
            ("arch -arm64 /bin/bash -c \"$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)\"",
             "/opt/homebrew/bin/brew install python@3.11",
             venv_command("3.11", _arm64_pair(d, "3.11"), maker="/opt/homebrew/bin/python3.11")),
            "https://docs.brew.sh/Installation",
        )
    elif "/.pyenv/" in real:
        route = "pyenv-built-under-rosetta"
        fix = Remediation(
            "This pyenv Python was compiled from an x86_64 (Rosetta) shell. Rebuild it natively",
            (f"arch -arm64 pyenv install --force {py.version}",),
        )
    elif real.startswith("/Library/Frameworks/Python.framework/"):
        route = "python.org-intel-installer"
        fix = Remediation(
            "This is a python.org Intel-only build. Install the 'macOS 64-bit universal2' "
            "installer of the same version and recreate the environment",
            (), "https://www.python.org/downloads/macos/",
        )
    else:
        route = "unknown"
        fix = Remediation("Install an arm64 or universal2 Python and recreate the environment with it")
    return x86_only_interpreter.finding(
        {**_evidence(s), "binary": real, "binary_archs": py.binary.archs, "route": route}, fix)


@rule(codes.ARCH_UNIVERSAL2_AS_X86, "A universal2 Python was started as x86_64",
      Severity.ERROR,
      "The binary contains arm64 code, but the process was launched translated: the Terminal "
      "app is set to 'Open using Rosetta', the shell itself runs as x86_64 (`arch` prints "
      "i386), or a parent ran `arch -x86_64`.",
      "Start it as arm64 (`arch -arm64 python3 ...`) and untick 'Open using Rosetta' in the "
      "Terminal app's Get Info panel.",
      ROSETTA_LINK, explains=ROUTE_CONSEQUENCES, fix_answer=ARM64_PYTHON_FIRST)
def universal2_as_x86(s: Snapshot, d: Derived):
    started = _started_as_x86(s)
    if not _translated(s, d) or (s.python and _conda_osx_64(s)):
        return None
    if ARM64 not in d.binary_archs and not started:
        return None
    if started and ARM64 not in d.binary_archs:  # the text shows the launch; the binary was not read
        return universal2_as_x86.finding(
            {**_evidence(s), "started_with": started},
            Remediation(f"The failing command was started as x86_64 (`{started}`), so it ran under Rosetta "
                        "2, which has no AVX. Start it natively (drop `arch -x86_64`, or use "
                        "`arch -arm64`) with arm64 packages in its environment",
                        (machine_check(f"arch -arm64 {python_cmd(s)}"),),
                        ROSETTA_LINK),
            title=f"`{started}` started the process as x86_64: it ran under Rosetta 2")
    parent = s.shell.parent
    shell_arch = parent.runs_as(s.host.hw_arm64) if parent else None
    if shell_arch == X86_64:
        why = (f"Your shell ({parent.executable or 'pid ' + str(parent.pid)}) itself runs under Rosetta "
               "(`arch` prints i386 there), and a universal2 Python started from it runs as x86_64. "
               "Untick 'Open using Rosetta' for the Terminal app (Finder > Applications > Utilities > "
               "Terminal > Get Info), or start an arm64 shell, and open a new window")
    else:
        why = ("The binary has arm64 code but was started translated. Start it as arm64; if `arch` "
               "prints i386 in your shell, untick 'Open using Rosetta' for the Terminal app (Finder > "
               "Applications > Utilities > Terminal > Get Info) and open a new window")
    commands = ((f"arch -arm64 {shlex.quote(parent.executable)} -l",) if shell_arch == X86_64 and parent.executable
                else ()) + (machine_check(f"arch -arm64 {python_cmd(s)}"),)
    return universal2_as_x86.finding(
        {**_evidence(s), "binary": s.python.binary.path, "binary_archs": s.python.binary.archs,
         "parent_shell": parent.executable if parent else None, "parent_shell_arch": shell_arch},
        Remediation(why, commands, ROSETTA_LINK))


@rule(codes.ARCH_ROSETTA, "Python runs as x86_64 under Rosetta 2 on Apple silicon",
      Severity.ERROR,
      "The interpreter is translated by Rosetta 2 (sysctl.proc_translated is 1, "
      "platform.machine() says x86_64). tensorflow-metal has had x86_64 wheels only up to "
      "1.0.0 (for Intel Macs), and TensorFlow's x86_64 macOS builds need AVX, which Rosetta 2 "
      "does not advertise, so importing them dies with 'Illegal instruction' or the AVX "
      "message, and the Apple GPU goes unused. A report that does not say what its Python runs "
      "as on Apple silicon shows it by TensorFlow's CPU guard naming x86 instructions, a crash of "
      "a command started with `arch -x86_64`, an x86 crash under a TensorFlow with x86_64 macOS "
      "wheels only, or an installed TensorFlow older than every arm64 build (before 2.4).",
      "Use an arm64 Python: the finding that names the route (Homebrew, conda, pyenv, Terminal) "
      "gives the exact commands. From R (reticulate), install CRAN's arm64 build of R: its "
      "Python runs inside R's process, as R was built.",
      ROSETTA_LINK, explains=ROSETTA_CONSEQUENCES, fix_answer=ARM64_PYTHON_FIRST)
def rosetta(s: Snapshot, d: Derived):
    shown_by = _x86_shown(s, d)
    if not d.translated and shown_by is None:
        return None
    fix = _in_r(s) or Remediation("Use an arm64 Python; check with the command below that it prints arm64",
                                  (machine_check(python_cmd(s)),),
                                  ROSETTA_LINK)
    if d.translated and d.tf_main is None and not listing_read(s) and s.log and not names_tensorflow(s):
        return rosetta.finding(  # a report about another program: true, and not TensorFlow's problem
            _evidence(s), fix, severity=Severity.INFO,
            title="Python runs as x86_64 under Rosetta 2, but nothing in the report is TensorFlow's")
    if d.translated:
        return rosetta.finding(_evidence(s), fix)
    return rosetta.finding(
        {**_evidence(s), "shown_by": shown_by}, fix,
        title=f"Python ran as x86_64 under Rosetta 2 on Apple silicon (shown by: {shown_by})",
        detail="The snapshot does not say what this Python runs as; on Apple silicon only Rosetta 2 "
               "runs x86_64 code outside a container, and it has no AVX, which x86_64 TensorFlow needs.")


CRAN_MACOS = "https://cran.r-project.org/bin/macosx/"


def _in_r(s: Snapshot) -> Remediation | None:
    """The fix when the Python runs inside R (reticulate): R's build decides its architecture, so
    an arm64 Python is not enough; R itself must be CRAN's arm64 build."""
    host = s.python.host_program if s.python else None
    if not host or not host.startswith("R "):
        return None
    return Remediation(
        f"This Python runs inside R ({host}), and reticulate's Python runs as R was built: install "
        "CRAN's arm64 R for Apple silicon (the R-x.y.z-arm64.pkg installer), check that it prints "
        "aarch64, then install TensorFlow for it from R",
        ("Rscript -e 'cat(R.version$arch, \"\\n\")'",
         "Rscript -e 'install.packages(\"tensorflow\"); tensorflow::install_tensorflow()'"),
        CRAN_MACOS)


@rule(codes.ARCH_EMULATED_CONTAINER, "An x86_64 (amd64) container runs emulated on an ARM host",
      Severity.ERROR,
      "The process is x86_64 but /proc/cpuinfo comes from an ARM kernel ('CPU implementer' "
      "lines and arm64 'Features', e.g. 0x00 in Docker Desktop's VM on Apple silicon, "
      "docker/for-mac#6512): Docker runs the amd64 image under QEMU or Rosetta. TensorFlow's "
      "x86_64 build then fails with the AVX message or 'Check failed: bucket_limits_', and "
      "no GPU is reachable from a Linux container anyway. A pasted text shows it too: QEMU's "
      "own lines ('qemu: uncaught target signal 6 (Aborted) - core dumped', 'qemu-x86_64: ...'); "
      "an abort QEMU reports as the emulated process's signal (protobuf's 'CHECK failed' before "
      "'uncaught target signal 6') happened under the emulation, which is the first thing to remove; "
      "Docker's own warning that the image's platform (linux/amd64) is not the host's (linux/arm64), "
      "or amd64 asked for (`--platform linux/amd64`) on Apple silicon (log.amd64-image). Where such a "
      "text shows the emulated CPU failing (the AVX message, an illegal instruction), that failure's "
      "own finding names the emulator and the arm64 image: the text's story, told once.",
      "Use an arm64 image: `docker run --platform linux/arm64 ...` (docker/for-mac#5342).",
      "https://github.com/docker/for-mac/issues/5342",
      explains=(codes.RUNTIME_IMPORT_SIGILL, codes.RUNTIME_IMPORT_CRASHED, codes.RUNTIME_NO_GPU,
                codes.LOG_AVX_MISSING, codes.LOG_ILLEGAL_INSTRUCTION, codes.LOG_QEMU_EMULATION,
                codes.LOG_AMD64_IMAGE, codes.LOG_PROTOBUF_FATAL), fix_answer=ABOUT_THE_MACHINE)
def emulated_container(s: Snapshot, d: Derived):
    host = s.host
    from_host = host.system == "Linux" and d.process_arch == X86_64 and bool(host.cpu_implementer)
    shown = emulated_x86_container(s)
    seen = [m for m in shown if m.code == codes.LOG_QEMU_EMULATION]
    docker = [m for m in shown if m.code == codes.LOG_AMD64_IMAGE]
    if not from_host and not shown:
        return None
    apple = bool(host.cpu_implementer) and host.cpu_implementer.lower() == "0x61"
    fix = arm64_image("Run an arm64 image instead of the amd64 one (in a Dockerfile: FROM --platform=linux/arm64)")
    facts = {"cpu_implementer": host.cpu_implementer, "apple_host": apple, "container": host.container,
             "binfmt_handlers": host.binfmt_handlers}
    if from_host:
        return emulated_container.finding({**_evidence(s), **facts}, fix)
    if matches_of(s, codes.LOG_AVX_MISSING, codes.LOG_ILLEGAL_INSTRUCTION):
        return None  # the text's CPU failure names the emulator and the arm64 image itself: the text's story
    if not seen:  # Docker said it, or was asked for amd64 on this ARM host
        image = docker[0].fields.get("image", "linux/amd64")
        about_tensorflow = d.tf_main is not None or names_tensorflow(s)
        return emulated_container.finding(
            {**facts, "emulated": image, "observed_in": docker[0].text}, fix,
            severity=Severity.ERROR if about_tensorflow else Severity.INFO,
            title=f"Docker runs the {image} image emulated on this ARM host"
                  + ("" if about_tensorflow else ", but nothing in the report is TensorFlow's"))
    # observed in the text: QEMU itself said it ran the process
    target = seen[0].fields.get("target") or "x86_64"
    return emulated_container.finding(
        {**facts, "emulator": "qemu", "emulated": target, "observed_in": seen[0].text}, fix,
        title=f"QEMU emulated the {target} process that failed: an amd64 container on an ARM host")


@rule(codes.ARCH_NATIVE, "Python runs natively",
      Severity.OK,
      "The interpreter's process architecture matches the hardware.",
      "Nothing to do.", needs=("python",), summary=True, fix_answer=NOTHING_WRONG)
def native(s: Snapshot, d: Derived):
    if not d.process_arch:  # the snapshot does not say what the interpreter runs as
        return None
    host = s.host
    where = "on Apple silicon" if host.hw_arm64 else (f"on {host.system}" if host.system else "")
    return native.finding(_evidence(s), title=f"Python runs natively as {s.python.process_arch} {where}".strip())


def _arm64_pair(d: Derived, python: str) -> tuple[str, ...]:
    """What to install into the new arm64 environment: the recommended pair for that Python on
    this macOS (nothing where none fits: the environment is made and the macOS finding says why)."""
    if d.matrix is None:
        return ()
    return tuple(best_pair.recommended_install(d.matrix, python, ARM64, d.macos).requirements)
