"""Gather a fact snapshot of an interpreter, always by running the collector inside it.

The current interpreter is gathered the same way as a `--python` one, so tfdoctor installed once
(with pipx, say) diagnoses any environment, and the facts are always those of the process that
will run TensorFlow, never the doctor's own. Before any script of ours is handed to the
candidate, it must answer as a Python 3.8+ would to a `-c` one-liner (`--python rm` must not get
a path it could delete), and the script it then runs is a private copy in a temporary directory.
"""

from __future__ import annotations

import datetime
import os
import shutil
import signal
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

from tfdoctor import __version__
from tfdoctor.child import reaper
from tfdoctor.child.process import ChildResult, run_child
from tfdoctor.gather.interpreter import Target, TargetNotFound, choose_target  # noqa: F401 (re-exported)
from tfdoctor.inside.shared.result_file import RESULT_LOST, RESULT_LOST_EXIT

if TYPE_CHECKING:  # imported where the snapshot is built: `tfdoctor check` starts the collector
    from tfdoctor.facts.snapshot import (
        Snapshot,  # (tfdoctor.cli.main) before the rest of tfdoctor
    )

Outcome = dict
"""TargetOutcome's fields as keyword arguments (the dataclass is built with the snapshot)."""

INSIDE = Path(__file__).resolve().parents[1] / "inside"
"""The programs that run inside the diagnosed interpreter (tfdoctor/inside/__init__.py)."""
COLLECT_TIMEOUT_S = 30.0
VERIFY_TIMEOUT_S = 10.0
MARKER = "tfdoctor-python-check:"
VERIFY_CODE = "import sys; sys.stdout.write(%r + '%%d.%%d.%%d\\n' %% tuple(sys.version_info[:3]))" % MARKER
"""Run with -s -S: no site (a hanging .pth or sitecustomize does not hide that the file is a
Python) and no user site; PYTHONHOME and PYTHONPATH still apply, as some Pythons need them, and
only the built-in sys module is imported, which no file can shadow. Python 2 answers too."""
PARENT_OWNED = ("target", "runtime", "probes", "schema_version", "tfdoctor_version", "created",
                "redacted", "jupyter", "editor")
"""Snapshot fields tfdoctor sets itself; every other field comes from the collector's document."""
def _verify_python(executable: str, timeout: float,
                   cancelled: Callable[[], bool] = lambda: False) -> Outcome | None:
    """None when `executable` answers as a Python 3.8+; else how it failed (never given a path
    of ours). Raises TargetNotFound when it cannot be started at all, Cancelled when
    `cancelled()` turns true meanwhile."""
    try:
        proc = reaper.started(lambda: subprocess.Popen(
            [executable, "-s", "-S", "-c", VERIFY_CODE], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True))
    except OSError as exc:
        raise TargetNotFound(f"--python {executable!r} cannot be started: {exc}") from None
    deadline = time.monotonic() + timeout
    while True:
        try:
            out, _ = proc.communicate(timeout=max(0.0, min(POLL_S, deadline - time.monotonic())))
            break
        except subprocess.TimeoutExpired:
            if cancelled():
                _kill_group(proc)
                raise Cancelled() from None
            if time.monotonic() < deadline:
                continue
        _kill_group(proc)
        return _target(executable, False, "timeout",
                   f"did not answer a one-line Python check within {timeout:g} s")
    _kill_group(proc)
    text = out.decode("utf-8", "replace")
    if proc.returncode < 0:
        name = _signal_name(proc.returncode)
        return _target(executable, False, "crashed", f"killed by {name}", text[-4000:])
    for line in text.splitlines():
        if line.startswith(MARKER):
            shown = line[len(MARKER):].strip()
            try:
                version = tuple(int(part) for part in shown.split("."))
            except ValueError:
                break
            if version[:2] < (3, 8):
                return _target(executable, False, "unsupported-python",
                               f"Python {shown} is older than 3.8, the oldest tfdoctor "
                               "can examine", text[-4000:])
            return None
    last = text.strip().splitlines()[-1][:300] if text.strip() else "no output"
    return _target(executable, False, "not-python",
                   f"does not answer as a Python 3.8+ would (exit code {proc.returncode}: "
                   f"{last})", text[-4000:])


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.returncode is None:
        proc.wait()
    reaper.ended(proc)
    reaper.kill_orphans()  # what it left outside its group (a setsid grandchild) goes too


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


@contextmanager
def private_scripts() -> Iterator[Path]:
    """A private copy of tfdoctor/inside/ in a new temporary directory (removed afterwards), as
    tfdoctor/inside/ under an empty tfdoctor/ package: whatever the diagnosed interpreter does
    with the path, tfdoctor's own files stay intact, and it imports nothing of tfdoctor but
    these. Yields the copy's root; child_program names a program in it."""
    tmp = Path(tempfile.mkdtemp(prefix="tfdoctor-scripts-"))
    try:
        for script in INSIDE.rglob("*.py"):
            copy = tmp / "tfdoctor" / "inside" / script.relative_to(INSIDE)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(script, copy)
        (tmp / "tfdoctor" / "__init__.py").write_text('"""tfdoctor.inside alone: a private copy."""\n')
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def child_program(root: Path, name: str) -> Path:
    """The script of child program `name` (collector, runtime, probes, model) under `root`,
    tfdoctor's own package folder or a private_scripts copy."""
    return root / "tfdoctor" / "inside" / name / "__main__.py"


def _temp_problem(executable: str, exc: OSError, during: str) -> Outcome:
    where = os.environ.get("TMPDIR") or "unset"
    return _target(executable, False, "temp-dir",
                         f"tfdoctor's temporary directory failed {during} (TMPDIR {where}): "
                         f"{type(exc).__name__}: {exc}")


def _target(python: str, ok: bool, problem: Optional[str] = None, message: str = "",
            stderr_tail: str = "", started: Optional[bool] = None) -> Outcome:
    return {"python": python, "ok": ok, "problem": problem, "message": message,
            "stderr_tail": stderr_tail, "started": started}


def gather_static(python: str | Target | None = None, timeout: float | None = None) -> Snapshot:
    """Run the static collector in the target interpreter and build a snapshot from its facts.

    `python` is --python, or a Target chosen otherwise (a Jupyter kernel's, the notebook's own).
    `timeout` (default COLLECT_TIMEOUT_S) bounds the collector, start-up included. When
    start_static was called with the same arguments, its run is adopted, not repeated."""
    limit = COLLECT_TIMEOUT_S if timeout is None else timeout
    started = _adopt(python, limit)
    target, outcome, child = started.result() if started else run_collector(python, limit)
    return _snapshot(target, outcome, child)


def run_collector(python: str | Target | None, limit: float,
                  cancelled: Callable[[], bool] = lambda: False
                  ) -> tuple[Target, Outcome, ChildResult | None]:
    """Choose the interpreter (unless given), check that it is a Python, run the collector in
    it: every step that waits for a child, and nothing that needs the snapshot model."""
    target = python if isinstance(python, Target) else choose_target(python)
    outcome = _verify_python(target.executable, min(limit, VERIFY_TIMEOUT_S), cancelled)
    child = None
    if outcome is None:
        outcome, child = _collect(target.executable, limit, cancelled)
    return target, outcome, child


def _snapshot(target: Target, outcome: Outcome, child: ChildResult | None) -> Snapshot:
    from tfdoctor.facts.snapshot import Snapshot, SnapshotError, TargetOutcome

    outcome.update(chosen_by=target.chosen_by, chosen_reason=target.reason,
                   tool_env=target.tool_env, tool_python=target.tool_python)
    data = child.result if child is not None and outcome["ok"] else {}
    snapshot_data = {key: value for key, value in data.items() if key not in PARENT_OWNED}
    snapshot_data.update({
        "schema_version": 1,
        "tfdoctor_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "target": TargetOutcome(**outcome).__dict__,
    })
    snapshot_data["host"] = snapshot_data.get("host") or {}
    snapshot_data["errors"] = snapshot_data.get("errors") or []
    host, errors = snapshot_data["host"], snapshot_data["errors"]
    for fill in (_fill_cpu_brand, _fill_memory):
        if not (isinstance(host, dict) and isinstance(errors, list)):
            break  # a malformed document: Snapshot.from_dict below says what is wrong
        try:
            fill(host)
        except Exception as exc:  # noqa: BLE001 - a missing fact, recorded, never a crash
            errors.append({"what": fill.__name__.removeprefix("_fill_"),
                           "error": f"{type(exc).__name__}: {exc}"})
    try:
        snapshot = Snapshot.from_dict(snapshot_data)
    except SnapshotError as exc:
        # The collector is ours, but it ran in a foreign interpreter: keep what is certain.
        bad = TargetOutcome(target.executable, False, "bad-output", str(exc),
                            child.stderr[-4000:] if child else "", chosen_by=target.chosen_by,
                            chosen_reason=target.reason, tool_env=target.tool_env,
                            tool_python=target.tool_python, started=True)
        return Snapshot(target=bad, tfdoctor_version=__version__)
    from tfdoctor.gather.notebooks import add_notebook_facts

    add_notebook_facts(snapshot)
    return snapshot


# --- started early (tfdoctor.cli.main): the collector runs while tfdoctor imports the rest -----

POLL_S = 0.05
"""How often a collection started early looks whether it was called off."""


class Cancelled(Exception):
    """A collection started early was called off (its children are gone)."""


_STARTED: list[Any] = []
"""The collection started early, not yet adopted (at most one): tfdoctor.cli.main.Started."""


def started_early(run: Any) -> None:
    """Register a collection started early (tfdoctor.cli.main) for gather_static to adopt.
    Call cancel_started() before exiting in any case."""
    cancel_started()
    _STARTED.append(run)


def cancel_started() -> None:
    """Call off a collection started early and not adopted: its children are killed and its
    temporary files removed before this returns."""
    while _STARTED:
        _STARTED.pop().cancel()


def _adopt(python: str | Target | None, limit: float) -> Any:
    """The collection started early for these arguments; one for others is called off (and
    always for a Target: only a command line's --python is started early)."""
    if _STARTED and _STARTED[0].key == (python, limit):
        return _STARTED.pop()
    cancel_started()
    return None


def _collect(executable: str, timeout: float, cancelled: Callable[[], bool] = lambda: False
             ) -> tuple[Outcome, ChildResult | None]:
    try:
        with private_scripts() as scripts:
            try:
                child = run_child(executable, child_program(scripts, "collector"),
                                  ["--parent-pid", str(os.getppid())], timeout=timeout,
                                  tick=lambda _path, _elapsed: cancelled(), tick_interval=POLL_S,
                                  also_remove=[scripts])  # even if tfdoctor is killed meanwhile
            except OSError as exc:
                if getattr(exc, "filename", None) != executable:
                    # The interpreter passed the check, so it starts: the temporary directory
                    # was removed or broken while it ran (or none could be made).
                    return _temp_problem(executable, exc, "while the collector ran"), None
                raise TargetNotFound(f"--python {executable!r} cannot be started: {exc}") from None
    except OSError as exc:
        return _temp_problem(executable, exc, "to be created"), None
    if cancelled():
        raise Cancelled()
    return _outcome(executable, child, timeout), child


def _outcome(executable: str, child: ChildResult, timeout: float) -> Outcome:
    tail = child.stderr[-4000:]
    result = child.result if isinstance(child.result, dict) else None
    started = result is not None or RESULT_LOST in child.stderr
    if RESULT_LOST in child.stderr and child.returncode == RESULT_LOST_EXIT:
        line = next(x for x in child.stderr.splitlines() if RESULT_LOST in x)
        return _target(executable, False, "temp-dir",
                             "tfdoctor's temporary directory was removed while the collector ran "
                   f"(by the interpreter's start-up or site code): {line[-300:]}", tail,
                             started=True)
    if child.timed_out:
        where = ("in the collector" if started else "in the interpreter's start-up, before "
                 "tfdoctor's collector ran (sitecustomize.py, usercustomize.py or a .pth file)")
        return _target(executable, False, "timeout",
                   f"hung {where}: stopped after {timeout:g} s", tail, started=started)
    if child.signal_name:
        return _target(executable, False, "crashed", f"killed by {child.signal_name}"
                             + ("" if started else " during start-up"), tail, started=started)
    if child.result_error == "missing" or (result is not None and result.get("stage") != "done"):
        last = tail.strip().splitlines()[-1] if tail.strip() else "no output"
        when = "before finishing" if started else "before the collector ran"
        return _target(executable, False, "no-output",
                   f"exited with code {child.returncode} {when}: {last}", tail,
                             started=started)
    if child.result_error or result is None:
        return _target(executable, False, "bad-output",
                             child.result_error or "result is not a JSON object", tail,
                             started=started)
    return _target(executable, True, started=True)


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
