"""The versions a bug report asks for, as PyTorch's torch/utils/collect_env.py gives them: the OS
distribution, the C library, how the interpreter was built, the C compilers on PATH and conda's
own version. Read inside the diagnosed interpreter by the collector.

Nothing here is secret by itself; paths (a compiler's, the interpreter's) name the home directory
and are redacted with every other string of a snapshot. A compiler is asked only `--version`,
with a short timeout, and only its first line is kept. Standard library only, Python 3.8+.
"""

from __future__ import annotations

import os
import platform
import shutil

OS_RELEASE = ("/etc/os-release", "/usr/lib/os-release")
"""Where systemd's os-release(5) says a Linux distribution describes itself, in this order."""
COMPILERS = ("gcc", "clang")
COMPILER_TIMEOUT_S = 3.0
APPLE_SHIMS = ("/usr/bin/gcc", "/usr/bin/clang")
"""On macOS these are xcrun shims: without the Command Line Tools, running one opens a dialog
that offers to install them, so they are run only when a developer directory is selected."""


def distribution(system):
    """A Linux distribution's PRETTY_NAME (os-release), e.g. "Debian GNU/Linux 12 (bookworm)";
    None elsewhere (macOS has its product version) or when there is none."""
    if system != "Linux":
        return None
    for path in OS_RELEASE:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                fields = dict(_os_release_line(line) for line in handle.read(65536).splitlines())
        except OSError:
            continue
        return fields.get("PRETTY_NAME") or fields.get("NAME") or None
    return None


def _os_release_line(line):
    key, _, value = line.strip().partition("=")
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return key, value


def python_build():
    """How this interpreter was built: its C compiler, build date, C library (glibc's version,
    read from the executable; macOS has no glibc) and platform string (collect_env's "Python
    platform")."""
    _tag, date = platform.python_build()
    lib, version = platform.libc_ver()
    return {
        "compiler": platform.python_compiler() or None,
        "build_date": " ".join(date.split()) or None,
        "libc": "%s %s" % (lib, version) if lib and version else None,
        "platform": platform.platform(),
    }


def compilers(system, environ):
    """gcc and clang as PATH finds them: path and the first line of `--version`."""
    found = []
    for name in COMPILERS:
        path = shutil.which(name, path=environ.get("PATH"))
        if path is None:
            continue
        entry = {"name": name, "path": path, "version": None, "error": None}
        if system == "Darwin" and path in APPLE_SHIMS and not _developer_dir():
            entry["error"] = "no Command Line Tools (xcode-select -p names none): not run"
        else:
            entry["version"], entry["error"] = _first_line([path, "--version"])
        found.append(entry)
    return found


def _developer_dir():
    out, _error = _first_line(["/usr/bin/xcode-select", "-p"])
    return bool(out) and os.path.isdir(out)


def _first_line(argv):
    """(first line of stdout, None), or (None, why not)."""
    import subprocess

    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=COMPILER_TIMEOUT_S,
                              env=dict(os.environ, LC_ALL="C"), check=False)
    except subprocess.TimeoutExpired:
        return None, "no answer within %g s" % COMPILER_TIMEOUT_S
    except OSError as exc:
        return None, "%s: %s" % (type(exc).__name__, exc)
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if done.returncode != 0 or not lines:
        return None, "exit status %s" % done.returncode
    return lines[0].strip()[:200], None


def conda_version(root):
    """The version of conda installed in a conda root (its conda-meta/conda-VERSION-BUILD.json),
    without running conda."""
    try:
        names = os.listdir(os.path.join(root, "conda-meta"))
    except OSError:
        return None
    for name in sorted(names):
        parts = name[:-len(".json")].split("-") if name.endswith(".json") else []
        if len(parts) == 3 and parts[0] == "conda" and parts[1][:1].isdigit():
            return parts[1]
    return None

