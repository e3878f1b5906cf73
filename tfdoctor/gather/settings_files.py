"""Read other programs' small settings files (a kernel.json, a .vscode/settings.json) without
trusting them: only a regular file, opened without waiting on a FIFO, within a size limit, so
a folder planted with a device or a pipe under that name never stalls `tfdoctor check`."""

from __future__ import annotations

import os
import stat

from tfdoctor.child.files import read_at_most


class Unreadable(ValueError):
    """The file cannot be used; the message says why, in a few words."""


def read_settings(path: str, limit: int) -> str:
    """The file's text (UTF-8, with a BOM allowed); Unreadable when it is missing, not a regular
    file, larger than `limit` bytes or not UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file")
        raw = read_at_most(fd, limit + 1)
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise Unreadable(f"larger than {limit} bytes")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text (byte {exc.start})") from None
