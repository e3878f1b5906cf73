"""Gather static facts from inside the diagnosed interpreter and write them as JSON.

Run as `python collect_static.py OUT.json [--parent-pid PID]` by the interpreter being diagnosed,
so that every fact (architecture, Rosetta translation, CPU flags, installed packages) is the one
*that* process sees; PID is tfdoctor's parent (the user's shell), whose architecture is read too.
Site directories, plugin entries, the environment, the Pythons on PATH and conda's records are
read by collector_core, the rules the runtime child shares. Nothing is imported from the
environment's own packages and nothing is changed. Each part that fails is recorded in "errors"
and the others still run (PyTorch's collect_env says "Could not collect"; we say why). The
document's keys are Snapshot's field names (tfdoctor.gather maps them without a key list).
Standard library only, Python 3.8+.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import email.parser
import json
import os
import platform
import struct
import subprocess
import sys
import sysconfig

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import binfmt  # noqa: E402  (sibling modules, shipped beside this script)
import collector_core as core  # noqa: E402

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


# --- macOS sysctl, read in this process (so Rosetta translation shows) -----------------------

_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.dylib", use_errno=True)
    return _LIBC


def sysctl(name, kind):
    """Read a sysctl by name through libc (macOS); None if it does not exist."""
    if sys.platform != "darwin":
        return None
    libc = _libc()
    size = ctypes.c_size_t(0)
    if libc.sysctlbyname(name.encode(), None, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
        return None
    buf = ctypes.create_string_buffer(size.value)
    if libc.sysctlbyname(name.encode(), buf, ctypes.byref(size), None, ctypes.c_size_t(0)) != 0:
        return None
    raw = buf.raw[: size.value]
    if kind == "str":
        return raw.rstrip(b"\x00").decode("utf-8", "replace")
    return int.from_bytes(raw, sys.byteorder)


def native_sysctl(name):
    """Ask the sysctl command (a native binary) so the answer is not Rosetta's translated view."""
    try:
        out = subprocess.run(
            ["/usr/sbin/sysctl", "-n", name], capture_output=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.decode("utf-8", "replace").strip()
    return text if out.returncode == 0 and text else None


# --- host ------------------------------------------------------------------------------------


def _read_text(path, limit=1 << 20):
    """A regular file's text (never blocks: a FIFO named METADATA or RECORD is not read)."""
    if not core.is_regular_file(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


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


def _mac_cpu():
    features = []
    for name in ("machdep.cpu.features", "machdep.cpu.leaf7_features"):
        value = sysctl(name, "str")
        if value:
            features.extend(value.lower().replace(".", "_").split())
    return {
        "cpu_brand": sysctl("machdep.cpu.brand_string", "str"),
        "cpu_flags": sorted(set(features)),
        "cpu_implementer": None,
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
        facts.update(_mac_cpu())
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
    packages = core.conda_records(prefix, ERRORS)
    subdir = next((p["subdir"] for p in packages if p["name"] == "python"), None)
    root = prefix
    parts = prefix.split(os.sep)
    if "envs" in parts:
        root = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("envs")])
    return {"prefix": prefix, "root": root, "subdir": subdir, "packages": packages}


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
        "pointer_bits": 8 * ctypes.sizeof(ctypes.c_void_p),
        "translated": (translated == 1) if sys.platform == "darwin" else None,
        "binary": binary,
        "framework": sysconfig.get_config_var("PYTHONFRAMEWORK") or None,
        "conda": _conda_facts(sys.prefix),
        "platform_tag": sysconfig.get_platform(),
        "site_packages": core.importable_site_dirs(),
    }


# --- packages and plugins ---------------------------------------------------------------------


def _read_dist(site_dir, entry):
    path = os.path.join(site_dir, entry)
    record = {"location": path, "name": None, "version": None, "wheel_tags": [],
              "requires_dist": [], "requires_python": None, "installer": None, "error": None}
    meta_name = "METADATA" if entry.endswith(".dist-info") else "PKG-INFO"
    text = _read_text(os.path.join(path, meta_name))
    if text is None:
        record["error"] = "%s missing or unreadable" % meta_name
    else:
        msg = email.parser.Parser().parsestr(text, headersonly=True)
        record["name"] = msg.get("Name")
        record["version"] = msg.get("Version")
        record["requires_dist"] = [str(r) for r in (msg.get_all("Requires-Dist") or [])]
        record["requires_python"] = msg.get("Requires-Python")
        if not record["name"] or not record["version"]:
            record["error"] = "%s has no Name or Version" % meta_name
    if record["name"] is None:
        stem = entry.rsplit(".", 1)[0]
        name, _, version = stem.partition("-")
        record["name"], record["version"] = name or None, version or None
    wheel = _read_text(os.path.join(path, "WHEEL"))
    if wheel:
        record["wheel_tags"] = [
            line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")
        ]
    installer = _read_text(os.path.join(path, "INSTALLER"))
    record["installer"] = installer.strip() if installer else None
    record["binaries"] = _dist_binaries(site_dir, path)
    return record


BINARIES_PER_DIST = 3


def _dist_binaries(site_dir, dist_path):
    """Headers of the first compiled libraries a distribution installed (from its RECORD).

    The architecture of the installed code is read from the files themselves: the `Tag:` lines
    in WHEEL files often name another platform than the wheel's file name (tensorflow-macos
    2.11 and 2.12 arm64 wheels say x86_64), so they cannot be trusted for this.
    """
    text = _read_text(os.path.join(dist_path, "RECORD"), limit=8 << 20)
    found = []
    for line in (text or "").splitlines():
        rel = line.split(",", 1)[0]
        if not rel.endswith(core.COMPILED_SUFFIXES) or rel.startswith(".."):
            continue
        full = os.path.join(site_dir, rel)
        if core.is_regular_file(full):
            info = binfmt.describe_file(full)
        else:
            info = {"format": None, "archs": [], "error": "not a regular file, or missing"}
        info["path"] = rel
        found.append(info)
        if len(found) >= BINARIES_PER_DIST:
            break
    return found


@guarded("packages")
def package_facts(site_dirs):
    packages = []
    for site_dir in site_dirs:
        try:
            entries = sorted(os.listdir(site_dir))
        except OSError as exc:
            ERRORS.append({"what": "packages", "error": "cannot list %s: %s" % (site_dir, exc)})
            continue
        for entry in entries:
            if entry.endswith((".dist-info", ".egg-info")):
                packages.append(_read_dist(site_dir, entry))
    return packages


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

CTL_KERN, KERN_PROC, KERN_PROC_PID = 1, 14, 1
P_TRANSLATED = 0x00020000
"""xnu bsd/sys/proc.h: "process is translated" in kinfo_proc.kp_proc.p_flag."""
KP_FLAG_OFFSET, KP_PID_OFFSET = 32, 40
"""Offsets of p_flag and p_pid in struct extern_proc (bsd/sys/proc.h) on 64-bit macOS: the
p_un union (16 bytes), p_vmspace and p_sigacts (8 each), then p_flag; p_stat, padding, p_pid."""


def translated_from_kinfo(raw, pid):
    """P_TRANSLATED of a kinfo_proc buffer; None unless the buffer names `pid` (a layout check)."""
    if len(raw) < KP_PID_OFFSET + 4:
        return None
    (flags,) = struct.unpack_from("=i", raw, KP_FLAG_OFFSET)
    (found_pid,) = struct.unpack_from("=i", raw, KP_PID_OFFSET)
    if found_pid != pid:
        return None
    return bool(flags & P_TRANSLATED)


def _mac_process(pid):
    libc = _libc()
    mib = (ctypes.c_int * 4)(CTL_KERN, KERN_PROC, KERN_PROC_PID, pid)
    buf = ctypes.create_string_buffer(4096)
    size = ctypes.c_size_t(len(buf))
    translated = None
    if libc.sysctl(mib, 4, buf, ctypes.byref(size), None, ctypes.c_size_t(0)) == 0:
        translated = translated_from_kinfo(buf.raw[: size.value], pid)
    path = ctypes.create_string_buffer(4096)
    executable = None
    if libc.proc_pidpath(pid, path, ctypes.c_uint32(len(path))) > 0:
        executable = path.value.decode("utf-8", "replace")
    return translated, executable


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
                translated, executable = _mac_process(parent_pid)
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
            "pythons_on_path": core.pythons_on_path(os.environ, sys.executable)}


def env_facts():
    return core.capture_env(os.environ)


def _write(path, document):
    text = json.dumps(document, default=str)
    if path:
        try:
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
        except (FileNotFoundError, NotADirectoryError) as exc:
            core.result_lost(exc)
    else:
        sys.stdout.write(text)


def main(argv):
    """`collect_static.py [OUT.json] [--parent-pid PID]`. OUT.json is written first with only
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
