"""Do the installed binaries match the interpreter? An x86_64 numpy wheel inside an arm64
environment (copied site-packages, a pip run under Rosetta) fails at import with "incompatible
architecture"; a TensorFlow plugin built for the other architecture or format never loads."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import GOAL_INSTALLED, NOTHING_WRONG
from tfdoctor.advice.installs import reinstall_commands
from tfdoctor.advice.log_evidence import matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.archnames import normalise
from tfdoctor.facts.snapshot import PackageFacts, Snapshot
from tfdoctor.model import Remediation, Severity, rule

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


@rule(codes.ARCH_WHEEL_MISMATCH, "Installed wheels are built for another architecture",
      Severity.ERROR,
      "A package's compiled libraries (their Mach-O/ELF headers, found through its RECORD) "
      "hold no code for the architecture the interpreter runs as. Importing them fails with "
      "'incompatible architecture "
      "(have 'x86_64', need 'arm64')'. It happens when an environment was filled by a pip run "
      "under Rosetta 2 or site-packages were copied from another machine. An error you bring "
      "(--log) that names one of these binaries is its consequence (log.arch-mismatch).",
      "Reinstall those packages from the native interpreter (`--force-reinstall --no-deps`).",
      explains=(codes.RUNTIME_LIBRARY_ARCH_MISMATCH, codes.RUNTIME_IMPORT_FAILED), fix_answer=GOAL_INSTALLED)
def wheel_mismatch(s: Snapshot, d: Derived):
    arch = d.process_arch
    wheels = _mismatched_wheels(s, arch) if arch else []
    if not wheels:
        return None
    names = [w["name"] for w in wheels]
    n = len(wheels)
    return wheel_mismatch.finding(
        {"interpreter_arch": arch, "packages": wheels},
        Remediation(f"Reinstall them from this {arch} interpreter",
                    tuple(reinstall_commands(s, d, [p for p in map(s.package, names) if p is not None]))),
        title=f"{n} installed wheel{'s are' if n != 1 else ' is'} not built for {arch}: {', '.join(names[:5])}",
        explains=_log_errors_about(s, wheels))


def _log_errors_about(s: Snapshot, wheels: list[dict]) -> tuple[str, ...]:
    """The user's "incompatible architecture" error is this finding's consequence when it names
    one of the foreign binaries (another package's error has another cause)."""
    files = {b["path"].rsplit("/", 1)[-1] for w in wheels for b in w["binaries"]}
    named = any(f in m.text for m in matches_of(s, codes.LOG_ARCH_MISMATCH) for f in files)
    return (codes.LOG_ARCH_MISMATCH,) if named else ()


@rule(codes.ARCH_PLUGIN_MISMATCH, "A TensorFlow plugin binary is of the wrong format or architecture",
      Severity.ERROR,
      "TensorFlow loads every library in site-packages/tensorflow-plugins/ at import. A file "
      "there that is not a library for this OS and architecture (read from its header) makes "
      "`import tensorflow` fail, or is silently unusable.",
      "Reinstall the plugin's distribution for this interpreter, or remove the stray file.",
      explains=(codes.RUNTIME_PLUGIN_LOAD_FAILED,), fix_answer=GOAL_INSTALLED)
def plugin_mismatch(s: Snapshot, d: Derived):
    arch = d.process_arch
    plugins = _mismatched_plugins(s, arch) if arch else []
    if not plugins:
        return None
    n = len(plugins)
    return plugin_mismatch.finding(
        {"interpreter_arch": arch, "expected_formats": list(_FORMATS.get(s.host.system, ())),
         "plugins": plugins},
        Remediation("Reinstall the plugin's distribution (tensorflow-metal on a Mac) for this "
                    "interpreter, or remove the stray file",
                    (pip(s, "install", "--force-reinstall", "--no-deps", _same_release(d.metal)),)
                    if d.is_mac else ()),
        title=f"{n} file{'s' if n != 1 else ''} in tensorflow-plugins/ cannot load into this {arch} "
              f"{s.host.system or 'system'} process")


@rule(codes.ARCH_BINARIES_MATCH, "Installed binaries match the interpreter",
      Severity.OK,
      "Every compiled library read from the installed packages, and every plugin binary, has "
      "code for the interpreter's architecture.",
      "Nothing to do.", summary=True, fix_answer=NOTHING_WRONG)
def binaries_match(s: Snapshot, d: Derived):
    if not d.process_arch:  # the snapshot does not say what the interpreter runs as
        return None
    return binaries_match.finding(
        {"interpreter_arch": d.process_arch, "packages": len(s.packages), "plugins": len(s.plugins)},
        title=f"{len(s.packages)} packages and {len(s.plugins)} plugin files fit {d.process_arch}")


def _same_release(pkg: PackageFacts | None) -> str:
    """A reinstall of what is installed, never an upgrade (`--force-reinstall` of a bare name
    installs the newest release)."""
    if pkg is None:
        return "tensorflow-metal"
    return f"{pkg.key}=={pkg.version}" if pkg.version else pkg.key
