"""Gather static facts from inside the diagnosed interpreter and write them as JSON.

Run as `python collect_static.py OUT.json` by the interpreter being diagnosed, so that every fact
(architecture, Rosetta translation, CPU flags, installed packages) is the one *that* process sees.
Nothing is imported from the environment's own packages and nothing is changed. Each part that
fails is recorded in "errors" and the others still run (PyTorch's collect_env says "Could not
collect"; we say why). Standard library only, Python 3.8+.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import email.parser
import json
import os
import platform
import re
import site
import subprocess
import sys
import sysconfig

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import binfmt  # noqa: E402  (sibling module, shipped beside this script)

ENV_PATTERN = re.compile(
    r"^(TF_.*|CUDA_VISIBLE_DEVICES|DYLD_.*|LD_LIBRARY_PATH|LD_PRELOAD|PYTHONPATH|PYTHONHOME|"
    r"KERAS_BACKEND|CONDA_PREFIX|CONDA_DEFAULT_ENV|CONDA_SUBDIR|VIRTUAL_ENV|PYENV_VERSION|"
    r"MTL_.*|METAL_.*|OMP_NUM_THREADS)$"
)
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
    subdir = None
    for name in sorted(os.listdir(meta)):
        if name.startswith("python-") and name.endswith(".json"):
            try:
                with open(os.path.join(meta, name), encoding="utf-8", errors="replace") as fh:
                    subdir = json.load(fh).get("subdir")
            except (OSError, ValueError):
                pass
            break
    root = prefix
    parts = prefix.split(os.sep)
    if "envs" in parts:
        root = os.sep.join(parts[: len(parts) - 1 - parts[::-1].index("envs")])
    return {"prefix": prefix, "root": root, "subdir": subdir}


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
        "site_packages": _site_dirs(),
    }


def _site_dirs():
    dirs = []
    candidates = list(getattr(site, "getsitepackages", lambda: [])())
    if site.ENABLE_USER_SITE:
        candidates.append(site.getusersitepackages())
    candidates.extend(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    for path in candidates:
        if path and path not in dirs and os.path.isdir(path):
            dirs.append(path)
    return dirs


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
_LIBRARY_SUFFIXES = (".so", ".dylib", ".pyd")


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
        if not rel.endswith(_LIBRARY_SUFFIXES) or rel.startswith(".."):
            continue
        info = binfmt.describe_file(os.path.join(site_dir, rel))
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
def plugin_facts(site_dirs):
    plugins = []
    for site_dir in site_dirs:
        plugin_dir = os.path.join(site_dir, "tensorflow-plugins")
        if not os.path.isdir(plugin_dir):
            continue
        try:
            names = sorted(os.listdir(plugin_dir))
        except OSError as exc:
            plugins.append({"dir": plugin_dir, "name": None, "format": None, "archs": [],
                            "size": None, "error": str(exc)})
            continue
        for name in names:
            path = os.path.join(plugin_dir, name)
            if os.path.isdir(path):
                continue
            info = binfmt.describe_file(path)
            try:
                size = os.path.getsize(path)
            except OSError:  # a dangling link: describe_file has recorded the error already
                size = None
            info.update({"dir": plugin_dir, "name": name, "size": size})
            info.setdefault("error", None)
            plugins.append(info)
    return plugins


def env_facts():
    return {k: v for k, v in sorted(os.environ.items()) if ENV_PATTERN.match(k)}


def main(argv):
    python = python_facts()
    site_dirs = python["site_packages"] if python else []
    facts = {
        "collector_version": 1,
        "host": host_facts(),
        "python": python,
        "packages": package_facts(site_dirs) or [],
        "plugins": plugin_facts(site_dirs) or [],
        "env": env_facts(),
        "errors": ERRORS,
    }
    text = json.dumps(facts, default=str)
    if len(argv) > 1:
        with open(argv[1], "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
