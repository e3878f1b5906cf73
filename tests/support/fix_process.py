"""`tfdoctor fix` as a real process for tests: stderr read as it comes (to act at a step), the
state of an environment's files (to say it is as it was), and what a fix may have left running.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable


def path_without_uv() -> str:
    """PATH without uv: the pip code paths, whatever the test machine has installed."""
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and not Path(p, "uv").exists())


class FixRun:
    """`python -m tfdoctor ARGS` started now; `lines` fills with its stderr as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tfdoctor", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: list[str] = []
        self._out: list[str] = []
        self._readers = [threading.Thread(target=self._read, args=(self.proc.stderr, self.lines), daemon=True),
                         threading.Thread(target=self._read, args=(self.proc.stdout, self._out), daemon=True)]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 120) -> bool:
        """Whether a stderr line matching `predicate` came before the process ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(predicate(line) for line in list(self.lines)):
                return True
            if self.proc.poll() is not None:
                self.finish(5)
                return any(predicate(line) for line in self.lines)
            time.sleep(0.02)
        raise AssertionError("not seen in time; stderr so far:\n" + "\n".join(self.lines[-30:]))

    def finish(self, timeout: float = 120) -> int:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("tfdoctor did not end in time:\n" + "\n".join(self.lines[-30:])) from None
        for reader in self._readers:
            reader.join(10)
        return self.proc.returncode

    @property
    def out(self) -> str:
        return "\n".join(self._out)

    @property
    def err(self) -> str:
        return "\n".join(self.lines)


def run_fix(args: list[str], env: dict[str, str], timeout: float = 180) -> FixRun:
    run = FixRun(args, env)
    run.finish(timeout)
    return run


def env_files(env: Path, skip: tuple[str, ...] = ("tfdoctor-restore",)) -> dict[str, str]:
    """Every file and link under `env` (but the top-level names in `skip`): its mode and content
    hash, or its target. Two equal results: the environment holds the same files."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(env):
        if Path(dirpath) == env:
            dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames + [d for d in dirnames if Path(dirpath, d).is_symlink()]:
            path = Path(dirpath, name)
            rel = str(path.relative_to(env))
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            else:
                found[rel] = f"{path.lstat().st_mode:o} {hashlib.sha256(path.read_bytes()).hexdigest()}"
    return found


def processes_naming(text: str) -> list[str]:
    """Command lines of live processes that mention `text` (what a fix left running)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path("/proc", pid, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmd:
            found.append(f"{pid}: {cmd[:200]}")
    return found


def gone_in_time(text: str, timeout: float = 15) -> list[str]:
    """processes_naming(text) once they are gone, or what is still there after `timeout` s (a
    supervisor cleans up a moment after tfdoctor is killed)."""
    deadline = time.monotonic() + timeout
    while processes_naming(text) and time.monotonic() < deadline:
        time.sleep(0.1)
    return processes_naming(text)
