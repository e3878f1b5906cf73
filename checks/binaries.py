"""Do the installed binaries match the interpreter? An x86_64 numpy wheel inside an arm64
environment (copied site-packages, a pip run under Rosetta) fails at import with "incompatible
architecture"; a TensorFlow plugin built for the other architecture or format never loads."""

from __future__ import annotations

from tfdoctor.fixes import pip
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.snapshot import Snapshot

from tfdoctor.checks.archnames import normalise

CODES = {
    "arch.wheel-mismatch": CodeDoc(
        "Installed wheels are built for another architecture",
        Severity.ERROR,
        "A package's compiled libraries (their Mach-O/ELF headers, found through its RECORD) "
        "hold no code for the architecture the interpreter runs as. Importing them fails with "
        "'incompatible architecture "
        "(have 'x86_64', need 'arm64')'. It happens when an environment was filled by a pip run "
        "under Rosetta 2 or site-packages were copied from another machine.",
        "Reinstall those packages from the native interpreter (`--force-reinstall --no-deps`).",
    ),
    "arch.plugin-mismatch": CodeDoc(
        "A TensorFlow plugin binary is of the wrong format or architecture",
        Severity.ERROR,
        "TensorFlow loads every library in site-packages/tensorflow-plugins/ at import. A file "
        "there that is not a library for this OS and architecture (read from its header) makes "
        "`import tensorflow` fail, or is silently unusable.",
        "Reinstall the plugin's distribution for this interpreter, or remove the stray file.",
    ),
    "arch.binaries-match": CodeDoc(
        "Installed binaries match the interpreter",
        Severity.OK,
        "Every compiled library read from the installed packages, and every plugin binary, has "
        "code for the interpreter's architecture.",
        "Nothing to do.",
    ),
}

_FORMATS = {"Darwin": ("mach-o", "mach-o-fat"), "Linux": ("elf",), "Windows": ("pe",)}
_LIBRARY_SUFFIXES = (".so", ".dylib", ".dll", ".pyd")


def _mismatched_wheels(s: Snapshot, arch: str) -> list[dict]:
    """Distributions whose compiled libraries (read from their headers) lack `arch`.

    WHEEL `Tag:` lines are kept as evidence only: they often disagree with the wheel's real
    platform (compat_matrix.json known_quirks), so judging by them would raise false alarms.
    """
    bad = []
    for pkg in s.packages:
        foreign = [b for b in pkg.binaries
                   if b.format and b.archs and arch not in {normalise(a) for a in b.archs}]
        if foreign:
            bad.append({"name": pkg.name, "version": pkg.version, "wheel_tags": pkg.wheel_tags,
                        "binaries": [{"path": b.path, "format": b.format, "archs": b.archs}
                                     for b in foreign]})
    return bad


def _mismatched_plugins(s: Snapshot, arch: str) -> list[dict]:
    expected = _FORMATS.get(s.host.system)
    bad = []
    for plugin in s.plugins:
        if not plugin.name or not plugin.name.endswith(_LIBRARY_SUFFIXES):
            continue
        archs = {normalise(a) for a in plugin.archs}
        wrong_format = expected is not None and plugin.format not in expected
        if plugin.error or wrong_format or arch not in archs:
            bad.append({"file": f"{plugin.dir}/{plugin.name}", "format": plugin.format,
                        "archs": plugin.archs, "error": plugin.error})
    return bad


def run(s: Snapshot) -> list[Finding]:
    arch = normalise(s.python.process_arch)
    if arch is None:  # the snapshot does not say what the interpreter runs as: nothing to compare
        return []
    findings = []
    wheels = _mismatched_wheels(s, arch)
    if wheels:
        names = [w["name"] for w in wheels]
        findings.append(Finding(
            "arch.wheel-mismatch", Severity.ERROR,
            f"{len(wheels)} installed wheel(s) are not built for {arch}: {', '.join(names[:5])}",
            {"interpreter_arch": arch, "packages": wheels},
            Remediation(f"Reinstall them from this {arch} interpreter",
                        (pip(s, "install", "--force-reinstall", "--no-deps", "--no-cache-dir", *names),)),
            explains=("runtime.library-arch-mismatch", "runtime.import-failed"),
        ))
    plugins = _mismatched_plugins(s, arch)
    if plugins:
        findings.append(Finding(
            "arch.plugin-mismatch", Severity.ERROR,
            f"{len(plugins)} file(s) in tensorflow-plugins/ cannot load into this {arch} "
            f"{s.host.system or 'system'} process",
            {"interpreter_arch": arch, "expected_formats": list(_FORMATS.get(s.host.system, ())),
             "plugins": plugins},
            Remediation("Reinstall the plugin's distribution (tensorflow-metal on a Mac) for this "
                        "interpreter, or remove the stray file",
                        (pip(s, "install", "--force-reinstall", "--no-deps", "tensorflow-metal"),)
                        if s.host.system == "Darwin" else ()),
            explains=("runtime.plugin-load-failed",),
        ))
    if not findings:
        findings.append(Finding(
            "arch.binaries-match", Severity.OK,
            f"{len(s.packages)} packages and {len(s.plugins)} plugin files fit {arch}",
            {"interpreter_arch": arch, "packages": len(s.packages), "plugins": len(s.plugins)},
        ))
    return findings


CHECK = Check(
    name="binaries",
    area="Installed binaries",
    summary="Wheels and TensorFlow plugins match the interpreter's architecture",
    run=run,
    codes=CODES,
    needs=("python",),
    order=30,
)
