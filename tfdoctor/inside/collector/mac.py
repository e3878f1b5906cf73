"""macOS facts read through libc inside the diagnosed interpreter: sysctl by name (so Rosetta's
translation shows, as this process sees it), the native sysctl command (so it does not), and
another process's kinfo_proc (whether the shell tfdoctor was started from is translated).

ctypes and subprocess are imported on first use, on macOS only: elsewhere these readers are never
called and the collector starts faster without them. Standard library only, Python 3.8+.
"""

from __future__ import annotations

import struct
import sys

_LIBC = None


def _libc():
    global _LIBC
    if _LIBC is None:
        import ctypes
        import ctypes.util

        _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.dylib", use_errno=True)
    return _LIBC


def sysctl(name, kind):
    """Read a sysctl by name through libc (macOS); None if it does not exist."""
    if sys.platform != "darwin":
        return None
    import ctypes

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
    import subprocess

    try:
        out = subprocess.run(
            ["/usr/sbin/sysctl", "-n", name], capture_output=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.decode("utf-8", "replace").strip()
    return text if out.returncode == 0 and text else None


def mac_cpu():
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


def mac_process(pid):
    """(translated, executable) of another process, through sysctl and proc_pidpath."""
    import ctypes

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
