"""Gather a fact snapshot of an interpreter, always by running the collector inside it.

The current interpreter is gathered the same way as a `--python` one, so tfdoctor installed once
(with pipx, say) diagnoses any environment, and the facts are always those of the process that
will run TensorFlow, never the doctor's own.
"""

from __future__ import annotations

import datetime
import os
import shutil
import sys
from pathlib import Path

from tfdoctor import __version__
from tfdoctor.childproc import ChildResult, run_child
from tfdoctor.snapshot import Snapshot, SnapshotError, TargetOutcome

TARGET_DIR = Path(__file__).parent / "target"
COLLECT_TIMEOUT_S = 30.0


class TargetNotFound(Exception):
    """The --python argument names nothing that can be started (a usage error, exit 2)."""


def resolve_python(python: str | None) -> str:
    """The interpreter to diagnose: a path, a name on PATH, or (None) the current one."""
    if python is None:
        return sys.executable
    candidate = Path(python).expanduser()
    if os.sep not in python and not candidate.exists():
        found = shutil.which(python)
        if found is None:
            raise TargetNotFound(f"--python {python!r}: no such command on PATH")
        return found
    if candidate.is_dir():
        for sub in ("bin/python", "bin/python3", "Scripts/python.exe"):
            if (candidate / sub).exists():
                return str(candidate / sub)
        raise TargetNotFound(f"--python {python!r} is a directory with no bin/python in it")
    if not candidate.exists():
        raise TargetNotFound(f"--python {python!r}: no such file")
    if not os.access(candidate, os.X_OK):
        raise TargetNotFound(f"--python {python!r} is not executable")
    return str(candidate)


def gather_static(python: str | None = None) -> Snapshot:
    """Run the static collector in the target interpreter and build a snapshot from its facts."""
    executable = resolve_python(python)
    try:
        child = run_child(executable, TARGET_DIR / "collect_static.py", timeout=COLLECT_TIMEOUT_S)
    except OSError as exc:
        raise TargetNotFound(f"--python {executable!r} cannot be started: {exc}") from None
    outcome = _outcome(executable, child)
    data = child.result if outcome.ok else {}
    snapshot_data = {
        "schema_version": 1,
        "tfdoctor_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "target": outcome.__dict__,
        "host": data.get("host") or {},
        "python": data.get("python"),
        "packages": data.get("packages") or [],
        "plugins": data.get("plugins") or [],
        "env": data.get("env") or {},
        "errors": data.get("errors") or [],
    }
    for fill in (_fill_cpu_brand, _fill_memory):
        try:
            fill(snapshot_data["host"])
        except Exception as exc:  # noqa: BLE001 - a missing fact, recorded, never a crash
            snapshot_data["errors"].append({"what": fill.__name__.removeprefix("_fill_"),
                                            "error": f"{type(exc).__name__}: {exc}"})
    try:
        return Snapshot.from_dict(snapshot_data)
    except SnapshotError as exc:
        # The collector is ours, but it ran in a foreign interpreter: keep what is certain.
        outcome = TargetOutcome(executable, False, "bad-output", str(exc), child.stderr[-4000:])
        return Snapshot(target=outcome, tfdoctor_version=__version__)


def _outcome(executable: str, child: ChildResult) -> TargetOutcome:
    tail = child.stderr[-4000:]
    if child.timed_out:
        return TargetOutcome(executable, False, "timeout",
                             f"did not finish within {COLLECT_TIMEOUT_S:.0f} s", tail)
    if child.signal_name:
        return TargetOutcome(executable, False, "crashed", f"killed by {child.signal_name}", tail)
    if child.result_error == "missing":
        last = tail.strip().splitlines()[-1] if tail.strip() else "no output"
        return TargetOutcome(executable, False, "no-output",
                             f"exited with code {child.returncode} without a result: {last}", tail)
    if child.result_error or not isinstance(child.result, dict):
        return TargetOutcome(executable, False, "bad-output",
                             child.result_error or "result is not a JSON object", tail)
    return TargetOutcome(executable, True)


def _fill_cpu_brand(host: dict) -> None:
    """py-cpuinfo names the CPU where the collector's own readers (/proc/cpuinfo, sysctl) have
    nothing. Never on macOS: there it hangs under an x86_64 Python on macOS 15
    (workhorsy/py-cpuinfo#218), and sysctl already answers. It takes about a second, so only
    as a fallback."""
    if host.get("cpu_brand") or host.get("system") in (None, "Darwin", "Linux"):
        return
    import cpuinfo

    host["cpu_brand"] = cpuinfo.get_cpu_info().get("brand_raw")


def _fill_memory(host: dict) -> None:
    """Total and available RAM from psutil (the same for every process on the machine; on Apple
    silicon the GPU shares it, so what is free bounds what Metal can allocate)."""
    import psutil

    memory = psutil.virtual_memory()
    host["memory_bytes"] = host.get("memory_bytes") or memory.total
    host["memory_available_bytes"] = memory.available
