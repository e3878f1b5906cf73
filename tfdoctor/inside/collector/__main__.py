"""Gather static facts from inside the diagnosed interpreter and write them as JSON.

Run as `python tfdoctor/inside/collector/__main__.py OUT.json [--parent-pid PID]` (from a private
copy) by the interpreter being diagnosed, so that every fact (architecture, Rosetta translation,
CPU flags, installed packages) is the one *that* process sees; PID is tfdoctor's parent (the
user's shell), whose architecture is read too. Site directories, plugin entries, the environment,
the Pythons on PATH and conda's records are read by core.py, the rules the runtime child shares;
the distributions by packages.py, macOS's sysctls by mac.py, the versions a bug report asks for
(OS distribution, libc, the Python build, compilers) by build.py. Nothing is imported from the
environment's own packages and nothing is changed. Each part that fails is recorded in "errors"
and the others still run (PyTorch's collect_env says "Could not collect"; we say why). The
document's keys are Snapshot's field names (tfdoctor.gather.static maps them without a key list).
Standard library only, Python 3.8+.
"""

from __future__ import annotations

import json
import os
import platform
import struct
import sys
import sysconfig

if not __package__:  # started as a script: the copy's root replaces this folder on the path
    HERE = os.path.dirname(os.path.realpath(__file__))  # (tfdoctor/inside/__init__.py says why)
    sys.path[:] = [HERE.rsplit(os.sep, 3)[0]] + [p for p in sys.path if os.path.realpath(p or ".") != HERE]
from tfdoctor.inside.collector import build, core, mac, packages  # noqa: E402
from tfdoctor.inside.collector.mac import native_sysctl, sysctl  # noqa: E402
from tfdoctor.inside.collector.packages import read_text as _read_text  # noqa: E402
from tfdoctor.inside.shared import binfmt  # noqa: E402
from tfdoctor.inside.shared.result_file import result_lost  # noqa: E402

ERRORS = []


def guarded(what):
    """Run a fact-gathering function; on failure record why and return None."""

    def wrap(func):
        def run(*args):
            try:
                return func(*args)
            except Exception as exc:  # noqa: BLE001 - any failure becomes a recorded fact
                ERRORS.append({"what": what, "error": "%s: %s" % (type(exc).__name__, exc)})
                return None

        return run

    return wrap


# --- host ------------------------------------------------------------------------------------


def _linux_cpu():
    text = _read_text("/proc/cpuinfo") or ""
    fields = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip().lower(), value.strip())
    flags = (fields.get("flags") or fields.get("features") or "").split()
    return {
        "cpu_brand": fields.get("model name"),
        "cpu_flags": sorted(set(f.lower() for f in flags)),
        "cpu_implementer": fields.get("cpu implementer"),
    }


def _container():
    if os.path.exists("/.dockerenv"):
        return "docker"
    if os.path.exists("/run/.containerenv"):
        return "podman"
    cgroup = _read_text("/proc/1/cgroup") or ""
    for name in ("docker", "kubepods", "containerd", "lxc", "podman"):
        if name in cgroup:
            return name
    return None


def _binfmt_handlers():
    """Registered binfmt_misc handlers (qemu-x86_64, rosetta...) that run foreign binaries."""
    try:
        names = os.listdir("/proc/sys/fs/binfmt_misc")
    except OSError:
        return None
    return sorted(n for n in names if n not in ("register", "status"))


@guarded("host")
def host_facts():
    system = platform.system()
    facts = {
        "system": system,
        "release": platform.release(),
        "macos_version": None,
        "macos_version_reported": None,
        "hw_arm64": None,
        "chip": None,
        "memory_bytes": None,
        "container": None,
        "binfmt_handlers": None,
        "distribution": build.distribution(system),
    }
    if system == "Darwin":
        facts["macos_version"] = sysctl("kern.osproductversion", "str") or native_sysctl(
            "kern.osproductversion"
        )
        facts["macos_version_reported"] = platform.mac_ver()[0] or None
        arm64 = sysctl("hw.optional.arm64", "int")
        facts["hw_arm64"] = bool(arm64) if arm64 is not None else False
        facts["chip"] = native_sysctl("machdep.cpu.brand_string")
        facts["memory_bytes"] = sysctl("hw.memsize", "int")
        facts.update(mac.mac_cpu())
    else:
        if system == "Linux":
            facts.update(_linux_cpu())
            facts["container"] = _container()
            facts["binfmt_handlers"] = _binfmt_handlers()
        try:
            facts["memory_bytes"] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            pass
    return facts


# --- python ----------------------------------------------------------------------------------


def _conda_facts(prefix):
    meta = os.path.join(prefix, "conda-meta")
    if not os.path.isdir(meta):
        return None
    records = core.conda_records(prefix, ERRORS)
    subdir = next((p["subdir"] for p in records if p["name"] == "python"), None)
    root = prefix
    parts = prefix.split(os.sep)
    if "envs" in parts:
        root = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("envs")])
    return {"prefix": prefix, "root": root, "subdir": subdir, "packages": records,
            "conda_version": build.conda_version(root)}


@guarded("python")
def python_facts():
    executable = sys.executable or ""
    real = os.path.realpath(executable) if executable else ""
    translated = sysctl("sysctl.proc_translated", "int")
    binary = binfmt.describe_file(real) if real else {"format": None, "archs": []}
    binary["path"] = real
    return {
        "version": platform.python_version(),
        "implementation": platform.python_implementation().lower(),
        "executable": executable,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "process_arch": platform.machine(),
        "pointer_bits": 8 * struct.calcsize("P"),
        "translated": (translated == 1) if sys.platform == "darwin" else None,
        "binary": binary,
        "framework": sysconfig.get_config_var("PYTHONFRAMEWORK") or None,
        "conda": _conda_facts(sys.prefix),
        "platform_tag": sysconfig.get_platform(),
        "site_packages": core.importable_site_dirs(),
        "externally_managed": _externally_managed(),
        **(build_facts() or {}),
    }


@guarded("python build")
def build_facts():
    return build.python_build()


def _externally_managed():
    """PEP 668: an EXTERNALLY-MANAGED file in the standard library's directory makes pip refuse
    to install into this interpreter (outside a virtual environment, where it does not apply)."""
    try:
        stdlib = sysconfig.get_path("stdlib")
        return bool(stdlib) and os.path.isfile(os.path.join(stdlib, "EXTERNALLY-MANAGED"))
    except (OSError, KeyError, ValueError):
        return None


# --- packages and plugins ---------------------------------------------------------------------


@guarded("packages")
def package_facts(site_dirs):
    return packages.package_facts(site_dirs, ERRORS)


@guarded("plugins")
def plugin_facts():
    """Every entry of the tensorflow-plugins/ directories TensorFlow scans, and what
    TF_PLUGGABLE_DEVICE_LIBRARY_PATH names; the header (format, architectures) is read from
    regular files only: a FIFO would block, a directory cannot be a library."""
    plugins = core.find_plugins(platform.system(), os.environ, ERRORS)
    for entry in plugins:
        entry["format"], entry["archs"] = None, []
        if entry["kind"] == "file":
            info = binfmt.describe_file(entry["path"])
            entry["format"], entry["archs"] = info["format"], info["archs"]
            entry["error"] = info.get("error")
        del entry["path"]  # dir and name say it
    return plugins


# --- the shell tfdoctor was started from ------------------------------------------------------

@guarded("shell")
def shell_facts(parent_pid):
    """tfdoctor's parent process (the shell it was started from, as far as tfdoctor knows it):
    its binary's architectures and, on macOS, whether Rosetta translates it (a universal2 Python
    started from a translated shell runs as x86_64 too). Plus the Pythons on PATH."""
    parent = None
    if parent_pid:
        translated, executable = None, None
        if sys.platform == "darwin":
            try:
                translated, executable = mac.mac_process(parent_pid)
            except (OSError, AttributeError, ValueError) as exc:
                ERRORS.append({"what": "shell", "error": "%s: %s" % (type(exc).__name__, exc)})
        elif os.path.exists("/proc/%d/exe" % parent_pid):
            try:
                executable = os.readlink("/proc/%d/exe" % parent_pid)
            except OSError:
                executable = None
        binary = binfmt.describe_file(executable) if executable else {"format": None, "archs": []}
        parent = {"pid": parent_pid, "executable": executable, "translated": translated,
                  "format": binary.get("format"), "archs": binary.get("archs") or [],
                  "error": binary.get("error")}
    return {"parent": parent,
            "pythons_on_path": core.pythons_on_path(os.environ, sys.executable),
            "compilers": compiler_facts() or []}


@guarded("compilers")
def compiler_facts():
    return build.compilers(platform.system(), os.environ)


def env_facts():
    return core.capture_env(os.environ)


def _write(path, document):
    text = json.dumps(document, default=str)
    if path:
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        except (FileNotFoundError, NotADirectoryError) as exc:
            result_lost(exc)
    else:
        sys.stdout.write(text)


def main(argv):
    """`collector/__main__.py [OUT.json] [--parent-pid PID]`. OUT.json is written first with only
    {"stage": "started"} (so a hang here is told from one in the interpreter's start-up), then
    with every fact and "stage": "done"."""
    out = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else None
    parent_pid = None
    if "--parent-pid" in argv:
        try:
            parent_pid = int(argv[argv.index("--parent-pid") + 1])
        except (IndexError, ValueError):
            parent_pid = None
    if out:
        _write(out, {"stage": "started", "pid": os.getpid()})
    python = python_facts()
    site_dirs = python["site_packages"] if python else []
    facts = {
        "stage": "done",
        "pid": os.getpid(),
        "collector_version": 2,
        "host": host_facts(),
        "python": python,
        "shell": shell_facts(parent_pid),
        "packages": package_facts(site_dirs) or [],
        "plugins": plugin_facts() or [],
        "env": env_facts(),
        "errors": ERRORS,
    }
    _write(out, facts)


if __name__ == "__main__":
    main(sys.argv)
