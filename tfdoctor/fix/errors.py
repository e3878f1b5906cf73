"""How applying a fix can end other than well, each with what was done about it.

Every failure carries `cleanup`, the sentence saying what state the environments were left in
(the half-made one removed, the diagnosed one restored, or what remains and why), so the
command line reports what happened and never a success that did not.
"""

from __future__ import annotations

from tfdoctor.fix.steps import Step


class FixRefused(RuntimeError):
    """The plan cannot be applied here: its new environment exists, another fix holds it, it is blocked.
    Raised before anything changed."""


class FixFailed(RuntimeError):
    """Applying stopped on an error (a step, the disk, a permission); `cleanup` says what was
    done about the environments (set once the clean-up has run)."""

    def __init__(self, message: str, cleanup: str = "") -> None:
        super().__init__(message)
        self.cleanup = cleanup


class StepFailed(FixFailed):
    """A step exited non-zero (or was killed); `tail` is the end of its output, `index` what the
    package index did when that is why (None otherwise)."""

    def __init__(self, step: Step, returncode: int | None, tail: list[str], index: str | None = None) -> None:
        super().__init__(f"{step.title} failed (exit {returncode})" + (f": {index}" if index else ""))
        self.step = step
        self.returncode = returncode
        self.tail = tail
        self.index = index


class Interrupted(Exception):
    """A signal (Ctrl-C, SIGTERM, SIGHUP) stopped the fix; raised once the clean-up is done.
    `original` is the KeyboardInterrupt or Terminated to end with."""

    def __init__(self, signum: int, cleanup: str, original: BaseException) -> None:
        super().__init__(f"interrupted: {cleanup}")
        self.signum = signum
        self.cleanup = cleanup
        self.original = original


class UndoFailed(FixFailed):
    """The restore record is missing or unreadable, or the environment does not match it after
    the undo (what differs is in the message)."""
