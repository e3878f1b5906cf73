"""tfdoctor's standard streams made safe before anything else runs: closed descriptors become
/dev/null, unencodable text is replaced, a reader that went away stops the output quietly."""

from __future__ import annotations

import os
import sys


class GuardedStdout:
    """stdout for the whole run. A reader that went away (`tfdoctor check | head -1`) stops the
    output quietly; the exit code stays the report's own (0, 1 or 2), never 3 or a traceback."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._break()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._break()

    def _break(self) -> None:
        # Python flushes stdout again at exit: point the descriptor at /dev/null so that last
        # flush succeeds too (https://docs.python.org/3/library/signal.html#note-on-sigpipe).
        self.broken = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def guard_streams() -> None:
    """Standard descriptors that are closed (`tfdoctor check >&-`) become /dev/null (else the
    first file tfdoctor opens would take their number); text that cannot be encoded (lone
    surrogates from undecodable file names, a strict ASCII or UTF-8 stdout) is replaced, never
    fatal; a broken pipe is quiet (GuardedStdout)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            devnull = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
            if devnull != fd:
                os.dup2(devnull, fd)
                os.close(devnull)
    if sys.stdin is None:  # `diagnose -` then reads nothing, and says so
        sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None:  # Python started with the descriptor closed
            setattr(sys, name, open(fd, "w", encoding="utf-8", errors="replace", closefd=False))
        elif hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="replace")
            except (ValueError, OSError):
                pass
    if not isinstance(sys.stdout, GuardedStdout):
        sys.stdout = GuardedStdout(sys.stdout)
