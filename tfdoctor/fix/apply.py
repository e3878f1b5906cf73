"""Run a fix plan's steps as one transaction: the environment ends fixed, or as it was.

- A new environment is built under the lock and journal of tfdoctor.fix.guard; a failed step, a
  full disk, Ctrl-C (twice), SIGTERM remove it again, and a SIGKILL leaves a journal from which
  the next fix removes it first. The diagnosed environment is not written to.
- In place: pip resolves the new set first (nothing is removed before it is known to install),
  the restore record keeps the installed set and hard links to what will be replaced
  (tfdoctor.fix.restore), then the environment changes; a failure or a signal returns it to the
  recorded set, offline, and a SIGKILL leaves a journal from which the next fix does so.
Every command runs under tfdoctor's supervisor (tfdoctor.fix.runner).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from typing import Callable, NoReturn

from packaging.utils import canonicalize_name

from tfdoctor.child.process import Terminated, terminate_on_signals
from tfdoctor.fix import restore
from tfdoctor.fix.conda import TOOLS
from tfdoctor.fix.errors import FixFailed, FixRefused, Interrupted, StepFailed
from tfdoctor.fix.guard import EnvLock, Journal, JournalEntry, new_entry, remove_tree, shielded
from tfdoctor.fix.leftovers import LISTING
from tfdoctor.fix.plan import RESTORE_RECORD, Plan
from tfdoctor.fix.runner import Ran, run_command
from tfdoctor.fix.steps import Step
from tfdoctor.sanitize.redact import mask_secrets

Progress = Callable[[str], None]
Verify = Callable[[], "tuple[int | None, str]"]


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


def apply(plan: Plan, progress: Progress, tfdoctor_argv: list[str] | None = None) -> Applied:
    """Run the plan's runnable steps in order. FixRefused before changing anything; FixFailed
    (StepFailed for a step) or Interrupted once the environments are as they were (or, when
    that could not be done, its `cleanup` says what is left)."""
    if plan.blocked:
        raise FixRefused(f"the plan stops at a step only you can take: {plan.blocked}")
    if plan.nothing_to_do or not plan.env_dir:
        return Applied(plan.env, 0.0, None, "")
    started = time.monotonic()
    env_dir = os.path.expanduser(plan.env_dir)
    verify = lambda: _verify(plan, tfdoctor_argv or [sys.executable, "-m", "tfdoctor"], progress)  # noqa: E731
    with EnvLock(env_dir):
        said = recover(env_dir, progress)
        if said:
            progress(said)
        if plan.mode == "new-env":
            code, output = _build(plan, env_dir, progress, verify)
        else:
            code, output = _change_in_place(plan, env_dir, progress, verify)
    return Applied(env_dir if plan.mode == "new-env" else plan.env, time.monotonic() - started, code, output)


# --- a fix that was killed ----------------------------------------------------------------------


def interrupted(env_dirs: list[str]) -> list[JournalEntry]:
    """The journals that killed fixes left for these environments (nothing is changed)."""
    return [entry for entry in (Journal(os.path.expanduser(d)).read() for d in env_dirs) if entry]


def recover_all(env_dirs: list[str], progress: Progress) -> list[str]:
    """Clean up (or restore) after fixes of these environments that were killed, each under its
    lock; what was done, a sentence each."""
    done = []
    for env_dir in dict.fromkeys(os.path.expanduser(d) for d in env_dirs):
        if Journal(env_dir).read() is None:
            continue
        with EnvLock(env_dir):
            said = recover(env_dir, progress)
        if said:
            done.append(said)
    return done


def recover(env_dir: str, progress: Progress) -> str | None:
    """With the lock held: the journal of a fix of `env_dir` that was killed, acted on (the
    half-made environment removed, or the changed one restored); None when there is none."""
    journal = Journal(env_dir)
    entry = journal.read()
    if entry is None:
        return None
    what = (f"an earlier tfdoctor fix of {entry.env_dir} (pid {entry.pid}, started {entry.started}) "
            f"was interrupted at step {entry.step}")
    progress(f"{what}: cleaning up first")
    with shielded():
        if entry.mode == "new-env":
            left = remove_tree(entry.env_dir) if entry.step != "locked" else None
            if left:
                raise FixRefused(f"{what}, and its half-made environment cannot be removed: {left}")
            journal.remove()
            return f"{what}: its half-made environment was removed"
        try:
            said = restore.undo(tuple(entry.launch), entry.python, entry.record or "", progress, entry.listing)
        except (FixFailed, OSError) as exc:
            raise FixRefused(f"{what}, and the environment cannot be restored: {exc}") from None
        journal.remove()
        return f"{what}: the environment was restored ({said})"


def undo_in_place(prefix: str, python: str, launch: tuple[str, ...], progress: Progress) -> str:
    """`fix --undo`: the environment at `prefix` back to its restore record, under its lock (a
    journal left by a killed in-place fix is done with too)."""
    with EnvLock(prefix):
        journal = Journal(prefix)
        killed = journal.read()
        said = restore.undo(launch, python, os.path.join(prefix, RESTORE_RECORD), progress,
                            killed.listing if killed else None)
        journal.remove()
    return said


# --- a new environment --------------------------------------------------------------------------


def _build(plan: Plan, env: str, progress: Progress, verify: Verify) -> tuple[int | None, str]:
    """Create and fill the new environment; its check is part of it (interrupted, it goes too)."""
    if os.path.lexists(env):
        raise FixRefused(f"{env} exists already: choose another --new-env PATH or remove it")
    journal = Journal(env)
    entry = new_entry("new-env", env, os.path.join(env, "bin", "python"), None, plan.launch)
    journal.write(entry)
    try:
        with terminate_on_signals():
            for step in plan.runnable_steps:
                journal.write(dataclasses.replace(entry, step=step.kind))
                if step.kind != "verify":
                    _run_step(step, progress, owned=[env])
            checked = verify()
    except BaseException as exc:  # noqa: BLE001 - every way out removes the half-made environment
        with shielded():
            progress(f"removing the half-made {env}")
            left = remove_tree(env)
            if left is None:
                journal.remove()
        cleanup = (f"the half-made {env} was removed; the diagnosed environment is as it was"
                   if left is None else
                   f"the half-made {env} could not be removed completely ({left}): the next "
                   "tfdoctor fix removes it first, or remove it yourself")
        _raise_after_cleanup(exc, cleanup)
    journal.remove()
    return checked


# --- in place -----------------------------------------------------------------------------------


def _change_in_place(plan: Plan, env_dir: str, progress: Progress, verify: Verify) -> tuple[int | None, str]:
    """Resolve, keep the record, then change the environment; its check is part of it."""
    python, record = plan.env or "", plan.restore_record or ""
    steps = [s for s in plan.runnable_steps if s.kind != "verify"]
    preparing = [s for s in steps if s.kind in ("resolve", "save-restore")]
    replaced: set[str] = set()
    for step in steps:
        if step.kind == "uninstall":
            replaced |= {canonicalize_name(n) for n in step.command[step.command.index("--") + 1:]}
    try:
        with terminate_on_signals():
            for step in preparing:
                if step.kind == "resolve":
                    replaced |= _resolved(_run_step(step, progress, owned=[], stdout_apart=True))
                else:
                    progress(step.title)
                    progress("  " + restore.save(plan.launch, python, record, replaced, progress))
    except BaseException as exc:  # noqa: BLE001
        _raise_after_cleanup(exc, f"nothing was changed in {env_dir}")
    journal = Journal(env_dir)
    entry = new_entry("in-place", env_dir, python, record, plan.launch, os.path.join(record, LISTING))
    try:
        with terminate_on_signals():
            for step in steps:
                if step not in preparing:
                    journal.write(dataclasses.replace(entry, step=step.kind))
                    _run_step(step, progress, owned=[])
            journal.write(dataclasses.replace(entry, step="verify"))
            checked = verify()
    except BaseException as exc:  # noqa: BLE001 - every way out restores the recorded set
        with shielded():
            progress(f"restoring {env_dir} to the recorded set")
            try:
                said = restore.undo(plan.launch, python, record, progress, entry.listing)
                journal.remove()
                cleanup = f"{env_dir} was restored: {said}"
            except (FixFailed, OSError) as why:
                cleanup = (f"{env_dir} could not be restored ({why}): the next tfdoctor fix tries "
                           f"again first, or run `tfdoctor fix --undo --python {python}`")
        _raise_after_cleanup(exc, cleanup)
    journal.remove()
    try:
        restore.prune(record)
    except OSError:
        pass  # housekeeping: the record is whole either way
    return checked


def _resolved(ran: Ran) -> set[str]:
    """Canonical names of what pip's --report says the install takes (so what it may replace)."""
    try:
        return {canonicalize_name(item["metadata"]["name"]) for item in json.loads(ran.stdout)["install"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise FixFailed(f"pip's report of what it would install cannot be read ({exc})") from None


# --- running steps ------------------------------------------------------------------------------


STEP_DOING = {"create-env": "creating the environment", "resolve": "resolving the new set",
              "save-restore": "reading the installed set"}
"""What a step's command does while it says nothing (the others' output says it)."""


def _run_step(step: Step, progress: Progress, owned: list[str], stdout_apart: bool = False) -> Ran:
    started = time.monotonic()
    progress(step.title)
    ran = run_command(step.command, progress, owned, stdout_apart=stdout_apart, doing=STEP_DOING.get(step.kind))
    if ran.code != 0:
        raise StepFailed(step, ran.code, ran.tail, ran.index)
    progress(f"  done in {time.monotonic() - started:.1f}s")
    return ran


def _verify(plan: Plan, tfdoctor_argv: list[str], progress: Progress) -> tuple[int | None, str]:
    verify = next((s for s in plan.steps if s.kind == "verify"), None)
    if verify is None:
        return None, ""
    argv = [*tfdoctor_argv, *verify.command[1:]] if verify.command[0] == "tfdoctor" else list(verify.command)
    progress(f"verifying: {' '.join(verify.command)}")
    # its stage lines (stderr) are progress now; its report (stdout) is printed when all is done
    ran = run_command(argv, progress, [], stdout_apart=True, relay=True, doing="checking the result")
    return ran.code, mask_secrets(ran.stdout.decode("utf-8", "replace")).rstrip("\n")


def _raise_after_cleanup(exc: BaseException, cleanup: str) -> NoReturn:
    """Raise what the CLI reports for `exc`, now that the clean-up is done."""
    if isinstance(exc, FixFailed):
        exc.cleanup = cleanup
        raise exc
    if isinstance(exc, KeyboardInterrupt):
        raise Interrupted(signal.SIGINT, cleanup, exc) from None
    if isinstance(exc, Terminated):
        raise Interrupted(exc.signum, cleanup, exc) from None
    if isinstance(exc, OSError):
        raise FixFailed(os_error(exc), cleanup) from None
    raise exc  # tfdoctor's own failure: reported as one, after the clean-up


def os_error(exc: OSError) -> str:
    """An OSError as one line: what failed, on which path."""
    where = f": {exc.filename}" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"
