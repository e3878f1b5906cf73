"""tfdoctor's own process as the reaper of last resort: nothing it starts outlives it, whatever a
command does to its supervisor (issue 28).

Every child runs under a supervisor that kills its whole tree (tfdoctor.child.supervisor). A
command may kill that supervisor; its orphans (a grandchild that left the session and dropped
the run's environment) then go to the nearest subreaper above them. On Linux tfdoctor makes
itself that subreaper (`adopt_orphans`, PR_SET_CHILD_SUBREAPER: unprivileged, no cgroup, no
pidfd, no ptrace), so every process it ever started stays its descendant however its parents
ended. Whenever a supervisor ends, and before tfdoctor exits, `kill_orphans` stops, kills and
reaps every child of tfdoctor that tfdoctor did not start itself, with its descendants.

The processes tfdoctor starts are remembered (`started`, `ended`), so that only orphans are
killed: tfdoctor starts processes only through Supervisor.start and the one-line check of
tfdoctor.gather.static, both of which go through `started`.

Not guaranteed: if the command kills its supervisor and tfdoctor is then killed outright before
it has cleaned up, the orphans go to init. macOS has no subreaper: an orphan goes to launchd, out
of reach. There the supervisor's sweep (the group, the run's token, the descendants recorded while
the child ran: tfdoctor.child.tree) is all there is, and a process that leaves the session, drops
the token and is orphaned between two looks, or once the command has killed its supervisor,
survives (README, "Exit codes").
"""

from __future__ import annotations

import sys
import threading

from tfdoctor.child.tree import reap, running, stop_processes

TYPE_CHECKING = False
if TYPE_CHECKING:  # the supervisor process imports this module, and is on the clock
    import subprocess
    from collections.abc import Callable

PR_SET_CHILD_SUBREAPER = 36
"""linux/prctl.h."""
MAX_ROUNDS = 50
"""Rounds of kill_orphans: each finds what the previous round's kills re-parented."""

_LOCK = threading.RLock()
"""Held while a process is started and while orphans are killed: a process just started is
remembered before anyone can take it for an orphan."""
_STARTED: set[int] = set()
_ADOPTING: list[bool] = []


def become_subreaper() -> bool:
    """Linux: orphans among this process's descendants are re-parented to it, not to init. False
    where that cannot be (macOS, a libc without prctl)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def adopt_orphans() -> bool:
    """Make tfdoctor the subreaper of everything it starts (once; tfdoctor.cli.main calls it
    first). Not done for a program that imports tfdoctor: its other children are its own."""
    with _LOCK:
        if not _ADOPTING:
            _ADOPTING.append(become_subreaper())
        return _ADOPTING[0]


def started(start: Callable[[], subprocess.Popen]) -> subprocess.Popen:
    """`start()`, a process tfdoctor starts itself, remembered as not an orphan."""
    with _LOCK:
        proc = start()
        _STARTED.add(proc.pid)
        return proc


def ended(proc: subprocess.Popen) -> None:
    """Forget a process started with `started` once it has been waited for."""
    with _LOCK:
        _STARTED.discard(proc.pid)


def kill_orphans() -> int:
    """Stop, kill and reap every child of tfdoctor it did not start (an orphan re-parented here)
    and every descendant of one, until none is left; how many were alive. Nothing happens unless
    adopt_orphans made tfdoctor a subreaper."""
    if not (_ADOPTING and _ADOPTING[0]):
        return 0
    import psutil

    killed: set[int] = set()
    with _LOCK:
        me = psutil.Process()
        for _round in range(MAX_ROUNDS):
            try:
                orphans = [child for child in me.children() if child.pid not in _STARTED]
            except psutil.Error:
                break
            if not orphans:
                break
            found = {orphan.pid: orphan for orphan in orphans}
            for orphan in orphans:
                try:
                    found.update((p.pid, p) for p in orphan.children(recursive=True))
                except psutil.Error:
                    pass
            live = [p for p in found.values() if running(p)]
            # Waited for until they are gone: by then their own children are re-parented here.
            stop_processes(live, wait=live)
            killed.update(p.pid for p in live)
            for orphan in orphans:
                reap(orphan.pid)
    return len(killed)
