"""Run a fix plan's steps: build the new environment (or change the diagnosed one in place, after
saving a restore file), with condensed progress on stderr.

Every command runs under tfdoctor's supervisor (tfdoctor.child.supervisor): in a process group of
its own, killed with its descendants when it ends, when tfdoctor is interrupted, or when tfdoctor
dies outright, in which case the supervisor also removes the half-made environment. A failed
step or Ctrl-C removes it too; the diagnosed environment is never written to in a new-env plan.
A lock file beside the new environment makes a second fix of the same target refuse.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tfdoctor.child.process import terminate_on_signals
from tfdoctor.child.supervisor import Supervisor
from tfdoctor.child.tree import TOKEN_VAR
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix.conda import TOOLS
from tfdoctor.fix.plan import Plan
from tfdoctor.fix.steps import Step

STEP_TIMEOUT_S = 3600.0
TAIL_LINES = 25


class FixRefused(RuntimeError):
    """The plan cannot be applied here: its target exists, another fix holds it, it is blocked."""


class StepFailed(RuntimeError):
    """A step exited non-zero (or was killed); `tail` is the end of its output."""

    def __init__(self, step: Step, returncode: int | None, tail: list[str]) -> None:
        super().__init__(f"{step.title} failed (exit {returncode})")
        self.step = step
        self.returncode = returncode
        self.tail = tail


@dataclass
class Applied:
    env: str | None
    seconds: float
    verify_exit: int | None
    verify_output: str


def installer_on_path() -> str:
    """"uv" when uv is on PATH, else "pip"."""
    return "uv" if shutil.which("uv") else "pip"


def conda_tool_on_path() -> str | None:
    """"mamba" or "conda" (the first of them on PATH), None when neither is."""
    return next((tool for tool in TOOLS if shutil.which(tool)), None)


def requested_on_disk(s: Snapshot) -> set[str] | None:
    """The distributions pip marked REQUESTED (what the user asked for), read from the
    dist-info directories the snapshot names; None when none of them is on this disk."""
    seen_any, asked = False, set()
    for pkg in s.packages:
        if not pkg.location or not pkg.location.endswith(".dist-info"):
            continue
        where = Path(pkg.location)
        if where.is_dir():
            seen_any = True
            if (where / "REQUESTED").exists() and pkg.key:
                asked.add(pkg.key)
    return asked if seen_any else None


def apply(plan: Plan, progress: Callable[[str], None], tfdoctor_argv: list[str] | None = None) -> Applied:
    """Run the plan's runnable steps in order. Raises FixRefused before changing anything,
    StepFailed (after removing the half-made environment) when a step fails."""
    if plan.blocked:
        raise FixRefused(f"the plan stops at a step only you can take: {plan.blocked}")
    if plan.nothing_to_do:
        return Applied(plan.env, 0.0, None, "")
    started = time.monotonic()
    env = os.path.expanduser(plan.env) if plan.env else None
    tfdoctor_argv = tfdoctor_argv or [sys.executable, "-m", "tfdoctor"]
    if plan.mode == "new-env":
        assert env is not None
        with _locked(env):
            if os.path.lexists(env):
                raise FixRefused(f"{env} exists already: choose another --new-env PATH or remove it")
            try:
                with terminate_on_signals():
                    for step in plan.runnable_steps:
                        if step.kind != "verify":
                            _run_step(step, progress, owned=[env], env_dir=env)
            except BaseException:
                progress(f"removing the half-made {env}")
                shutil.rmtree(env, ignore_errors=True)
                raise
    else:
        with terminate_on_signals():
            for step in plan.runnable_steps:
                if step.kind == "save-restore":
                    _save_restore(step, plan.restore_file or "tfdoctor-restore.txt", progress)
                elif step.kind != "verify":
                    _run_step(step, progress, owned=[], env_dir=None)
    verify = next((s for s in plan.steps if s.kind == "verify"), None)
    code, output = None, ""
    if verify is not None:
        argv = [*tfdoctor_argv, *verify.command[1:]] if verify.command[0] == "tfdoctor" else list(verify.command)
        progress(f"verifying: {' '.join(verify.command)}")
        with terminate_on_signals():
            code, tail = _supervised(argv, lambda _line: None, [], keep=10_000)
        output = "\n".join(tail)
    return Applied(env, time.monotonic() - started, code, output)


# --- running one step ---------------------------------------------------------------------------


_PIP_LINES = (
    (re.compile(r"^Collecting (\S+)"), "collecting {0}"),
    (re.compile(r"^Installing collected packages: (.*)"), "installing {n} packages"),
    (re.compile(r"^Successfully installed (.*)"), "installed {n} packages"),
    (re.compile(r"^Resolved (\d+) packages? in (.*)"), "resolved {0} packages in {1}"),
    (re.compile(r"^Prepared (\d+) packages? in (.*)"), "downloaded/built {0} packages in {1}"),
    (re.compile(r"^Installed (\d+) packages? in (.*)"), "installed {0} packages in {1}"),
    (re.compile(r"^Using (?:CPython|Python) (\S+)"), "python {0}"),
    (re.compile(r"^(ERROR: .*|error: .*)"), "{0}"),
)


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


def _run_step(step: Step, progress: Callable[[str], None], owned: list[str], env_dir: str | None) -> None:
    t0 = time.monotonic()
    progress(f"{step.title}")

    def show(line: str) -> None:
        short = condense(line)
        if short:
            progress(f"  [{time.monotonic() - t0:6.1f}s] {short}")

    code, tail = _supervised(list(step.command), show, owned)
    if code != 0:
        raise StepFailed(step, code, tail)
    progress(f"  done in {time.monotonic() - t0:.1f}s")


def _supervised(argv: list[str], on_line: Callable[[str], None], owned: list[str],
                keep: int = TAIL_LINES) -> tuple[int | None, list[str]]:
    """Run argv under the supervisor, its output to a private file read as it grows."""
    tmp = tempfile.mkdtemp(prefix="tfdoctor-fix-")
    child_env = {**os.environ, TOKEN_VAR: os.urandom(16).hex(), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                 "PYTHONUNBUFFERED": "1"}
    child_env.pop("VIRTUAL_ENV", None)
    fd = os.open(os.path.join(tmp, "output.txt"), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    tail: list[str] = []
    state = {"pos": 0, "partial": b""}

    def drain(final: bool = False) -> None:
        data = os.pread(fd, 1 << 20, state["pos"])
        while data:
            state["pos"] += len(data)
            state["partial"] += data
            data = os.pread(fd, 1 << 20, state["pos"])
        *lines, state["partial"] = state["partial"].split(b"\n")
        if final and state["partial"]:
            lines.append(state["partial"])
            state["partial"] = b""
        for raw in lines:
            line = raw.decode("utf-8", "replace").rstrip("\r")
            tail.append(line)
            del tail[:-keep]
            on_line(line)

    try:
        supervisor = Supervisor.start(argv, child_env, fd, [tmp, *owned])
        try:
            code = supervisor.wait(STEP_TIMEOUT_S, lambda _elapsed: drain(), 0.2)
        except BaseException:
            supervisor.kill()
            raise
        drain(final=True)
        return code, tail
    except OSError as exc:
        return 127, [f"cannot run {argv[0]}: {exc.strerror or exc}"]
    finally:
        os.close(fd)
        shutil.rmtree(tmp, ignore_errors=True)


def _save_restore(step: Step, path: str, progress: Callable[[str], None]) -> None:
    """`pip freeze --all` of the diagnosed environment into the restore file (written whole)."""
    progress(f"{step.title}")
    done = subprocess.run(list(step.command), capture_output=True, text=True, timeout=300,
                          start_new_session=True)
    if done.returncode != 0:
        raise StepFailed(step, done.returncode, done.stderr.splitlines()[-TAIL_LINES:])
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(done.stdout)
    os.replace(tmp, path)
    progress(f"  saved {len(done.stdout.splitlines())} requirements to {path}")


# --- guards -------------------------------------------------------------------------------------


class _locked:
    """An exclusive lock on `<parent>/.<name>.tfdoctor-fix.lock`; FixRefused when held."""

    def __init__(self, env: str) -> None:
        parent, name = os.path.split(os.path.abspath(env))
        self.path = os.path.join(parent, f".{name}.tfdoctor-fix.lock")
        self.fd: int | None = None

    def __enter__(self) -> "_locked":
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise FixRefused(f"another tfdoctor fix is building this environment (lock {self.path})") from None
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
