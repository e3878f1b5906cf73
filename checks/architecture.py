"""Is Python running as the machine's own architecture? On Apple silicon an x86_64 Python runs
under Rosetta 2: no tensorflow-metal wheel fits it, TensorFlow's AVX build crashes or refuses to
load, and the GPU stays idle. The install route decides the fix, so this check names it."""

from __future__ import annotations

from tfdoctor.fixes import python_cmd
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.snapshot import Snapshot

from tfdoctor.checks.archnames import ARM64, X86_64, normalise

ROSETTA_CONSEQUENCES = (
    "runtime.import-sigill",
    "runtime.import-crashed",
    "runtime.no-gpu",
    "install.no-tensorflow",
    "compat.no-wheel-for-python",
)
"""Codes whose findings an x86_64 Python on Apple silicon explains (no Metal GPU, AVX crash...)."""

MINIFORGE = "https://github.com/conda-forge/miniforge"
ROSETTA_LINK = "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment"

CODES = {
    "arch.rosetta": CodeDoc(
        "Python runs as x86_64 under Rosetta 2 on Apple silicon",
        Severity.ERROR,
        "The interpreter is translated by Rosetta 2 (sysctl.proc_translated is 1, "
        "platform.machine() says x86_64). tensorflow-metal has had x86_64 wheels only up to "
        "1.0.0 (for Intel Macs), and TensorFlow's x86_64 macOS builds need AVX, which Rosetta 2 "
        "does not advertise, so importing them dies with 'Illegal instruction' or the AVX "
        "message, and the Apple GPU goes unused.",
        "Use an arm64 Python: the finding that names the route (Homebrew, conda, pyenv, Terminal) "
        "gives the exact commands.",
        ROSETTA_LINK,
    ),
    "arch.x86-only-interpreter": CodeDoc(
        "The Python binary is x86_64 only",
        Severity.ERROR,
        "The interpreter binary holds no arm64 code (read from its Mach-O header), so on Apple "
        "silicon it can only run under Rosetta 2. Typical routes: Homebrew installed under "
        "/usr/local (the Intel prefix), a pyenv build made from a Rosetta shell, an old python.org "
        "Intel installer.",
        "Install an arm64 (or universal2) Python and recreate the environment with it.",
    ),
    "arch.universal2-as-x86": CodeDoc(
        "A universal2 Python was started as x86_64",
        Severity.ERROR,
        "The binary contains arm64 code, but the process was launched translated: the Terminal "
        "app is set to 'Open using Rosetta', the shell itself runs as x86_64 (`arch` prints "
        "i386), or a parent ran `arch -x86_64`.",
        "Start it as arm64 (`arch -arm64 python3 ...`) and untick 'Open using Rosetta' in the "
        "Terminal app's Get Info panel.",
        ROSETTA_LINK,
    ),
    "arch.conda-osx-64": CodeDoc(
        "The conda environment is osx-64 (Intel) on an Apple silicon Mac",
        Severity.ERROR,
        "conda installs packages for the platform subdir of the environment; an osx-64 "
        "environment (Anaconda's Intel installer, or CONDA_SUBDIR=osx-64) gets x86_64 Python and "
        "x86_64 packages that run under Rosetta 2.",
        "Create an osx-arm64 environment (Miniforge's arm64 installer defaults to it).",
        MINIFORGE,
    ),
    "arch.emulated-container": CodeDoc(
        "An x86_64 (amd64) container runs emulated on an ARM host",
        Severity.ERROR,
        "The process is x86_64 but /proc/cpuinfo comes from an ARM kernel ('CPU implementer' "
        "lines and arm64 'Features', e.g. 0x00 in Docker Desktop's VM on Apple silicon, "
        "docker/for-mac#6512): Docker runs the amd64 image under QEMU or Rosetta. TensorFlow's "
        "x86_64 build then fails with the AVX message or 'Check failed: bucket_limits_', and "
        "no GPU is reachable from a Linux container anyway.",
        "Use an arm64 image: `docker run --platform linux/arm64 ...` (docker/for-mac#5342).",
        "https://github.com/docker/for-mac/issues/5342",
    ),
    "arch.native": CodeDoc(
        "Python runs natively",
        Severity.OK,
        "The interpreter's process architecture matches the hardware.",
        "Nothing to do.",
    ),
}


def _finding(code: str, evidence: dict, fix: Remediation, explains=(), detail: str = "") -> Finding:
    doc = CODES[code]
    return Finding(code, doc.severity, doc.title, evidence, fix, detail, tuple(explains))


def _rosetta_route(s: Snapshot, evidence: dict) -> Finding | None:
    """The most specific reason this Python is x86_64, with the fix for that route."""
    py = s.python
    explains = ("arch.rosetta", *ROSETTA_CONSEQUENCES)
    binary_archs = {normalise(a) for a in py.binary.archs}
    if py.conda and py.conda.subdir == "osx-64":
        env_name = py.conda.prefix.rstrip("/").rsplit("/", 1)[-1] if py.conda.prefix != py.conda.root else "base"
        intel_installer = "anaconda" in py.conda.root.lower() or "miniconda" in py.conda.root.lower()
        text = ("Create an osx-arm64 environment and reinstall TensorFlow in it"
                + (" (your conda comes from an Intel installer: Miniforge's arm64 installer avoids"
                   " this for every new environment)" if intel_installer else ""))
        commands = ["CONDA_SUBDIR=osx-arm64 conda create -n tf-arm64 python=3.11",
                    "conda activate tf-arm64", "conda config --env --set subdir osx-arm64"]
        ev = {**evidence, "conda_subdir": py.conda.subdir, "conda_root": py.conda.root,
              "conda_env": env_name}
        return _finding("arch.conda-osx-64", ev, Remediation(text, tuple(commands), MINIFORGE), explains)
    if binary_archs and ARM64 not in binary_archs:
        real = py.binary.path
        if real.startswith(("/usr/local/Cellar/", "/usr/local/opt/")):
            route = "homebrew-intel"
            fix = Remediation(
                "This Python comes from Homebrew's Intel prefix /usr/local. Install Homebrew for "
                "Apple silicon (it lives in /opt/homebrew) from a native shell, then build the "
                "environment with its Python",
                ("arch -arm64 /bin/bash -c \"$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)\"",
                 "/opt/homebrew/bin/brew install python@3.11",
                 "/opt/homebrew/bin/python3.11 -m venv ~/venvs/tf"),
                "https://docs.brew.sh/Installation",
            )
        elif "/.pyenv/" in real:
            version = py.version
            route = "pyenv-built-under-rosetta"
            fix = Remediation(
                "This pyenv Python was compiled from an x86_64 (Rosetta) shell. Rebuild it natively",
                (f"arch -arm64 pyenv install --force {version}",),
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
        ev = {**evidence, "binary": real, "binary_archs": py.binary.archs, "route": route}
        return _finding("arch.x86-only-interpreter", ev, fix, explains)
    if ARM64 in binary_archs:
        fix = Remediation(
            "The binary has arm64 code but was started translated. Start it as arm64; if `arch` "
            "prints i386 in your shell, untick 'Open using Rosetta' for the Terminal app (Finder > "
            "Applications > Utilities > Terminal > Get Info) and open a new window",
            (f"arch -arm64 {python_cmd(s)} -c \"import platform; print(platform.machine())\"",),
            ROSETTA_LINK,
        )
        ev = {**evidence, "binary": py.binary.path, "binary_archs": py.binary.archs}
        return _finding("arch.universal2-as-x86", ev, fix, explains)
    return None


def run(s: Snapshot) -> list[Finding]:
    py, host = s.python, s.host
    arch = normalise(py.process_arch)
    evidence = {"process_arch": py.process_arch, "translated": py.translated,
                "hw_arm64": host.hw_arm64, "chip": host.chip, "cpu_brand": host.cpu_brand,
                "cpu_has_avx": "avx" in host.cpu_flags}
    if host.system == "Darwin" and host.hw_arm64 and (py.translated or arch == X86_64):
        route = _rosetta_route(s, evidence)
        rosetta = _finding(
            "arch.rosetta", evidence,
            Remediation("Use an arm64 Python; check with the command below that it prints arm64",
                        (f"{python_cmd(s)} -c \"import platform; print(platform.machine())\"",),
                        ROSETTA_LINK),
            ROSETTA_CONSEQUENCES,
        )
        return [route, rosetta] if route else [rosetta]
    if host.system == "Linux" and arch == X86_64 and host.cpu_implementer:
        apple = host.cpu_implementer.lower() == "0x61"
        ev = {**evidence, "cpu_implementer": host.cpu_implementer, "apple_host": apple,
              "container": host.container, "binfmt_handlers": host.binfmt_handlers}
        fix = Remediation(
            "Run an arm64 image instead of the amd64 one",
            ("docker run --platform linux/arm64 IMAGE", "# in a Dockerfile: FROM --platform=linux/arm64 BASE"),
            CODES["arch.emulated-container"].link,
        )
        return [_finding("arch.emulated-container", ev, fix,
                         ("runtime.import-sigill", "runtime.import-crashed", "runtime.no-gpu"))]
    if not arch:  # the snapshot does not say what the interpreter runs as
        return []
    where = "on Apple silicon" if host.hw_arm64 else (f"on {host.system}" if host.system else "")
    title = f"Python runs natively as {py.process_arch} {where}".strip()
    return [Finding("arch.native", Severity.OK, title, evidence)]


CHECK = Check(
    name="architecture",
    area="Python architecture",
    summary="Python runs as the machine's own architecture, not under Rosetta 2 or emulation",
    run=run,
    codes=CODES,
    needs=("python",),
    order=20,
)
