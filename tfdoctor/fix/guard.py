"""Guards around writing to an environment: one fix at a time, a journal that outlives tfdoctor,
and clean-ups that a second signal cannot cut short.

- The lock, `<parent>/.<name>.tfdoctor-fix.lock` beside the environment, is held by every fix
  that writes to it (a new environment, or the diagnosed one in place) and by `fix --undo`.
- The journal, `<parent>/.<name>.tfdoctor-fix.journal`, is written before the first change and
  removed when the environment is complete (or clean again): one left behind means a fix was
  killed (SIGKILL, a power cut) and says what to clean up, which the next fix does first.
- `shielded()` holds SIGINT, SIGTERM and SIGHUP off while a clean-up runs (Ctrl-C twice).
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import shutil
import signal
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from tfdoctor.facts import typed
from tfdoctor.fix.errors import FixRefused


def _beside(env_dir: str, suffix: str) -> str:
    parent, name = os.path.split(os.path.abspath(os.path.expanduser(env_dir)))
    return os.path.join(parent, f".{name}.tfdoctor-fix.{suffix}")


class EnvLock:
    """An exclusive lock on the environment `env_dir`; FixRefused when another fix holds it."""

    def __init__(self, env_dir: str) -> None:
        self.path = _beside(env_dir, "lock")
        self.fd: int | None = None

    def __enter__(self) -> "EnvLock":
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise FixRefused(f"another tfdoctor fix is changing this environment (lock {self.path})") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        return self

    def __exit__(self, *_exc: Any) -> None:
        if self.fd is not None:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None


@dataclass
class JournalEntry:
    """What a running fix is doing to an environment, for the next fix should this one be killed."""

    mode: str
    """"new-env" (the environment is being made: remove it) or "in-place" (restore it)."""
    env_dir: str
    python: str
    """The environment's interpreter (in place: the one whose pip restores the record)."""
    record: str | None
    """In place: the restore record to return to."""
    launch: list[str]
    """What starts the interpreter (`arch -arm64` for a universal2 Python under Rosetta)."""
    listing: str | None
    """In place: the paths before the change (tfdoctor.fix.leftovers), for what pip left."""
    step: str
    """The step under way ("locked" before the first; then the step's kind)."""
    pid: int
    started: str


class Journal:
    def __init__(self, env_dir: str) -> None:
        self.path = _beside(env_dir, "journal")

    def write(self, entry: JournalEntry) -> None:
        """Atomically: a journal is either the old one or the new one, never half of one."""
        tmp = f"{self.path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(typed.to_plain(entry)))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)

    def read(self) -> JournalEntry | None:
        """The journal left by a fix (None when there is none); FixRefused when it is unreadable."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                return typed.from_plain(JournalEntry, json.loads(handle.read(1 << 20)))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, typed.ShapeError) as exc:
            raise FixRefused(f"the journal of an interrupted fix, {self.path}, cannot be read ({exc}): "
                             "check the environment, then remove the journal") from None

    def remove(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def new_entry(mode: str, env_dir: str, python: str, record: str | None, launch: tuple[str, ...],
              listing: str | None = None) -> JournalEntry:
    return JournalEntry(mode, env_dir, python, record, list(launch), listing, "locked", os.getpid(),
                        datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))


@contextmanager
def shielded() -> Iterator[list[int]]:
    """SIGINT, SIGTERM and SIGHUP are noted, not acted on, until the block ends: a clean-up runs
    to its end whatever the user presses (SIGKILL still stops it; the journal then remains)."""
    caught: list[int] = []
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            saved[signum] = signal.signal(signum, lambda number, _frame: caught.append(number))
    try:
        yield caught
    finally:
        for signum, previous in saved.items():
            signal.signal(signum, previous)


def remove_tree(path: str) -> str | None:
    """Remove `path` completely; None when it is gone, else what remains and why (never a
    success when files remain)."""
    errors: list[str] = []

    def note(_func: Any, failed: str, exc: Any) -> None:
        error = exc[1] if isinstance(exc, tuple) else exc
        errors.append(f"{failed}: {getattr(error, 'strerror', None) or error}")

    if not os.path.lexists(path):
        return None
    if os.path.isdir(path) and not os.path.islink(path):
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=note)
        else:  # pragma: no cover - onerror is deprecated from 3.12 on
            shutil.rmtree(path, onerror=note)
    else:
        try:
            os.unlink(path)
        except OSError as exc:
            note(None, path, exc)
    if not os.path.lexists(path):
        return None
    left = sum(len(dirs) + len(files) for _root, dirs, files in os.walk(path)) + 1
    return f"{left} entries remain in {path}" + (f" (first: {errors[0]})" if errors else "")
