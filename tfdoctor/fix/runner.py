"""Run one command of a fix under tfdoctor's supervisor, with condensed progress on stderr.

The command runs in a process group of its own, killed with its descendants when it ends, when
tfdoctor is interrupted, or when tfdoctor dies outright (tfdoctor.child.supervisor), in which
case the supervisor also removes the directories it is given (a half-made environment). Its
output goes to a private file read as it grows (credentials in it masked); a step that goes
quiet gets a line every few seconds saying what it waits on or what it was last doing
(tfdoctor.fix.index), and a failed one says why when the package index is the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

from tfdoctor.child.supervisor import Supervisor
from tfdoctor.child.tree import TOKEN_VAR
from tfdoctor.fix.guard import shielded
from tfdoctor.fix.index import WAIT_NOTICE_S, index_trouble, waiting_line
from tfdoctor.fix.steps import expand_home
from tfdoctor.sanitize.redact import mask_secrets

STEP_TIMEOUT_S = 3600.0
TAIL_LINES = 25
STDOUT_LIMIT = 64 << 20
"""A JSON report (pip inspect, pip's --report) larger than this is not read."""
LOG_TAIL = 256 << 10


@dataclass
class Ran:
    code: int | None
    tail: list[str]
    """The last lines of the output (stdout and stderr together, unless stdout was kept apart)."""
    stdout: bytes = b""
    """stdout, when kept apart (a JSON report)."""
    index: str | None = None
    """What the package index did, when the command failed and that is why."""


_PIP_LINES = (
    (re.compile(r"^Collecting (\S+)"), "collecting {0}"),
    (re.compile(r"^Installing collected packages: (.*)"), "installing {n} packages"),
    (re.compile(r"^Successfully installed (.*)"), "installed {n} packages"),
    (re.compile(r"^Successfully uninstalled (\S+)"), "uninstalled {0}"),
    (re.compile(r"^Resolved (\d+) packages? in (.*)"), "resolved {0} packages in {1}"),
    (re.compile(r"^Prepared (\d+) packages? in (.*)"), "downloaded/built {0} packages in {1}"),
    (re.compile(r"^Installed (\d+) packages? in (.*)"), "installed {0} packages in {1}"),
    (re.compile(r"^Using (?:CPython|Python) (\S+)"), "python {0}"),
    (re.compile(r"^(ERROR: .*|error: .*)"), "{0}"),
)
ONGOING = ("collecting ", "installing ")
"""Condensed lines that start what comes next (pip says nothing more until all is installed):
a quiet spell after one of them is still that."""


def condense(line: str) -> str | None:
    """One line of pip's or uv's output as a short progress line, None for the rest."""
    line = line.strip()
    for pattern, text in _PIP_LINES:
        found = pattern.match(line)
        if found:
            groups = found.groups()
            n = len(groups[0].replace(",", " ").split()) if groups else 0
            return text.format(*groups, n=n)
    return None


def run_command(argv: tuple[str, ...] | list[str], progress: Callable[[str], None], owned: list[str],
                *, stdout_apart: bool = False, keep: int = TAIL_LINES, quiet: bool = False,
                relay: bool = False, doing: str | None = None) -> Ran:
    """Run argv (a leading ~/ expanded as the shell would) under the supervisor; `owned`:
    directories the supervisor removes should tfdoctor die while it runs. Progress lines go to
    `progress` unless `quiet`: pip's and uv's lines condensed, or with `relay` every line as it
    is (output that is progress already: `tfdoctor check`'s stage lines). A quiet spell says
    what the command is `doing` until its output says more."""
    tmp = tempfile.mkdtemp(prefix="tfdoctor-fix-")
    # no bytecode caches written by the commands' own imports: pip run in the diagnosed
    # environment changes only what it installs (its own compiling of those is unaffected)
    child_env = {**os.environ, TOKEN_VAR: os.urandom(16).hex(), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                 "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    child_env.pop("VIRTUAL_ENV", None)
    pip_log = None if "PIP_LOG" in child_env else os.path.join(tmp, "pip.log")
    if pip_log:
        child_env["PIP_LOG"] = pip_log
    fd = os.open(os.path.join(tmp, "output.txt"), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    out_fd = os.open(os.path.join(tmp, "stdout.txt"), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600) \
        if stdout_apart else None
    watch = _Watch(progress, keep, quiet, pip_log, relay, doing)
    try:
        try:
            with shielded() as caught:  # a signal now would leave the command running, unwatched
                supervisor = Supervisor.start(expand_home(argv), child_env, fd, [tmp, *owned], stdout_fd=out_fd)
        except OSError as exc:
            return Ran(127, [f"cannot run {argv[0]}: {exc.strerror or exc}"])
        try:
            for signum in caught:
                os.kill(os.getpid(), signum)  # the handlers act on it now, and the command is killed
            code = supervisor.wait(STEP_TIMEOUT_S, lambda elapsed: watch.tick(fd, elapsed), 0.2)
        except BaseException:
            supervisor.kill()
            raise
        watch.drain(fd, final=True)
        stdout = os.pread(out_fd, STDOUT_LIMIT, 0) if out_fd is not None else b""
        trouble = None
        if code != 0:
            trouble = index_trouble(_tail_of(pip_log, LOG_TAIL) + "\n" + "\n".join(watch.tail))
        return Ran(code, watch.tail, stdout, trouble)
    finally:
        for descriptor in (fd, out_fd):
            if descriptor is not None:
                os.close(descriptor)
        shutil.rmtree(tmp, ignore_errors=True)


class _Watch:
    """The output file read as it grows: lines kept, condensed to progress, quiet spells said."""

    def __init__(self, progress: Callable[[str], None], keep: int, quiet: bool, pip_log: str | None,
                 relay: bool, doing: str | None) -> None:
        self.progress = progress
        self.keep = keep
        self.quiet = quiet
        self.pip_log = pip_log
        self.relay = relay
        self.step_doing = doing
        self.doing = doing
        """What the command was last seen doing: its step's work, or an ongoing condensed line."""
        self.tail: list[str] = []
        self.pos = 0
        self.partial = b""
        self.started = time.monotonic()
        self.last_news = self.started

    def tick(self, fd: int, elapsed: float) -> None:
        if self.drain(fd):
            self.last_news = time.monotonic()
        silent = time.monotonic() - self.last_news
        if not self.quiet and silent >= WAIT_NOTICE_S:
            log = _tail_of(self.pip_log, 4096)
            self.progress(waiting_line(elapsed, silent, log, bool(log), self.doing))
            self.last_news = time.monotonic()

    def drain(self, fd: int, final: bool = False) -> bool:
        """Read what the command wrote since the last call; whether there was anything."""
        data = os.pread(fd, 1 << 20, self.pos)
        got = bool(data)
        while data:
            self.pos += len(data)
            self.partial += data
            data = os.pread(fd, 1 << 20, self.pos)
        *lines, self.partial = self.partial.split(b"\n")
        if final and self.partial:
            lines.append(self.partial)
            self.partial = b""
        for raw in lines:
            line = mask_secrets(raw.decode("utf-8", "replace").rstrip("\r"))
            self.tail.append(line)
            del self.tail[:-self.keep]
            if self.quiet or not line.strip():
                continue
            if self.relay:
                self.progress(line)
                continue
            short = condense(line)
            if short:
                self.doing = short if short.startswith(ONGOING) else self.step_doing
                self.progress(f"  [{time.monotonic() - self.started:6.1f}s] {short}")
        return got


def _tail_of(path: str | None, size: int) -> str:
    """The last `size` bytes of a file as text; "" when there is none."""
    if not path:
        return ""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - size))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
