"""Killing a process tree so that nothing survives: the child, its process group, every process
below it recorded while it ran (psutil tells a reused pid apart), and every process that carries
the run's token in its environment (a grandchild that left the group with setsid()). Used inside
the supervisor process (tfdoctor.child.supervisor) and by tfdoctor itself when a supervisor is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported by the supervisor process, which is on the clock
    from typing import Any

TOKEN_VAR = "TFDOCTOR_RUN_TOKEN"
"""Environment variable that marks every process of one run (inherited by all descendants)."""


def record_descendants(seen: dict, done: threading.Event) -> None:
    """Every process seen below this one while the child runs, so that a descendant that left
    the group, the session and the environment is still known at the end (on macOS, where no
    subreaper keeps orphans below this process, as long as it was seen before it was orphaned)."""
    import psutil

    me = psutil.Process()
    while not done.is_set():
        try:
            for proc in me.children(recursive=True):
                seen.setdefault(proc.pid, proc)
        except psutil.Error:
            pass
        done.wait(0.05)


def kill_tree(child: subprocess.Popen, token: str, seen: list | None = None) -> int:
    """Kill the child's process group, every descendant of this process, every process
    carrying the run's token and every one of `seen` (psutil Processes, recorded earlier:
    psutil tells a reused pid apart), until none is left (a process that forks while this runs
    is found in the next round). Returns how many besides the child were alive."""
    import psutil

    me = os.getpid()
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        pass
    killed: set[int] = set()
    for _round in range(50):
        found: dict[int, psutil.Process] = {}
        for proc in seen or ():
            if proc.pid != me and proc.is_running() and running(proc):
                found[proc.pid] = proc
        try:
            found.update((p.pid, p) for p in psutil.Process(me).children(recursive=True))
        except psutil.Error:
            pass
        for proc in psutil.process_iter():
            if proc.pid in found or proc.pid == me:
                continue
            try:
                if proc.environ().get(TOKEN_VAR) == token:
                    found[proc.pid] = proc
            except (psutil.Error, OSError):
                continue
        for pid in found:
            if pid != child.pid:
                reap(pid)  # a zombie re-parented to this subreaper
        live = [p for p in found.values() if running(p)]
        if not live:
            break
        killed.update(p.pid for p in live if p.pid != child.pid)
        stop_processes(live, wait=[p for p in live if p.pid != child.pid])
    return len(killed)


def stop_processes(procs: list, wait: list) -> None:
    """Suspend every process of `procs`, then kill them (stopped first, none can fork a
    replacement), and wait up to a second for those of `wait` to go."""
    import psutil

    for action in ("suspend", "kill"):
        for proc in procs:
            try:
                getattr(proc, action)()
            except psutil.Error:
                pass
    psutil.wait_procs(wait, timeout=1)


def reap(pid: int) -> None:
    """Collect a zombie child of this process (nothing if `pid` is not one)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except OSError:  # not our child
        pass


def running(proc: Any) -> bool:
    import psutil

    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
