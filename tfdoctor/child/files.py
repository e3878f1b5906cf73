"""Read what a child left behind (its result file, its stderr file) as untrusted input.

The child runs whatever the environment imports, so its files may be anything: the result is
opened without following symlinks and without blocking, must be a regular file, and is read
within size and nesting limits; stderr is read through tfdoctor's own descriptor, head and tail
only; a stderr path replaced by the child, or punched into a sparse file, makes the result
"unreadable" (runtime.bad-output). Used by tfdoctor.child.process.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from tfdoctor.facts.typed import depth_within

MAX_RESULT_BYTES = 32 * 1024 * 1024
"""Far above a real result (the probes' raw timings are a few hundred KB)."""
MAX_RESULT_DEPTH = 64
"""A real result nests about 7 levels."""


def open_untrusted(name: str | Path, dir_fd: int | None = None) -> int:
    """A descriptor of a file the child may have replaced: no symlink followed, no blocking on a
    FIFO, no controlling terminal taken."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    return os.open(name, flags, dir_fd=dir_fd)


def stderr_tampered(dir_fd: int, fd: int) -> str | None:
    """How the child tampered with its stderr file, or None: it replaced the path (a symlink to
    /dev/zero, a FIFO, another file) or punched it into a sparse file (ftruncate: no real log
    has gigabytes of holes). A removed file is not tampering: the directory may be gone."""
    mine = os.fstat(fd)
    try:
        now = os.stat("stderr.txt", dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    if stat.S_ISLNK(now.st_mode):
        return "the child replaced its stderr file with a symbolic link"
    if not stat.S_ISREG(now.st_mode):
        return "the child replaced its stderr file with a FIFO, a device or a directory"
    if (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
        return "the child replaced its stderr file with another file"
    if mine.st_size > 1 << 20 and getattr(mine, "st_blocks", mine.st_size) * 512 < mine.st_size // 2:
        return f"the child's stderr file is sparse ({mine.st_size} bytes, mostly holes)"
    return None


def read_json_file(path: str | Path, limit: int = MAX_RESULT_BYTES,
                   dir_fd: int | None = None) -> tuple[Any, str | None]:
    """The JSON document in the child's result file, or None and why not ("missing",
    "unreadable: ...", "malformed: ..."), in bounded time and memory whatever the file is."""
    name = Path(path).name if dir_fd is not None else path
    try:
        fd = open_untrusted(name, dir_fd)
    except FileNotFoundError:
        return None, "missing"
    except OSError as exc:
        import errno

        if exc.errno in (errno.ELOOP, getattr(errno, "EMLINK", -1)):
            return None, "unreadable: a symbolic link, not the file the child writes"
        return None, f"unreadable: {exc.strerror or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "unreadable: not a regular file (a FIFO, a device or a directory)"
        if info.st_size > limit:
            return None, f"unreadable: {info.st_size} bytes, more than the {limit} a result may have"
        raw = read_at_most(fd, limit + 1)
    except OSError as exc:
        return None, f"unreadable: {exc.strerror or exc}"
    finally:
        os.close(fd)
    if len(raw) > limit:
        return None, f"unreadable: more than the {limit} bytes a result may have"
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except RecursionError:
        return None, "malformed: JSON nested too deeply"
    except ValueError as exc:
        return None, f"malformed: {str(exc)[:200]}"
    if not depth_within(data, MAX_RESULT_DEPTH):
        return None, f"malformed: JSON nested more than {MAX_RESULT_DEPTH} levels"
    return data, None


def read_at_most(fd: int, count: int) -> bytes:
    """Up to `count` bytes from `fd`, read in chunks of at most 1 MiB (never more, whatever the
    file claims or turns out to be)."""
    chunks = []
    while count > 0:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_bounded_fd(fd: int, keep: int) -> tuple[str, int]:
    """The text of an output file (`keep` bytes from each end, the middle cut), and its size:
    bounded even when the child made it a sparse file of gigabytes."""
    size = os.fstat(fd).st_size
    if size <= 2 * keep:
        data = os.pread(fd, size, 0)
    else:
        data = (os.pread(fd, keep, 0) + b"\n[... %d bytes cut ...]\n" % (size - 2 * keep)
                + os.pread(fd, keep, size - keep))
    return data.replace(b"\x00", b"").decode("utf-8", "replace"), size
