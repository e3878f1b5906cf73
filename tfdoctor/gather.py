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
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

from tfdoctor import __version__
from tfdoctor.childproc import ChildResult, run_child
from tfdoctor.snapshot import Snapshot, SnapshotError, TargetOutcome
from tfdoctor.target.collector_core import RESULT_LOST, RESULT_LOST_EXIT

TARGET_DIR = Path(__file__).parent / "target"
COLLECT_TIMEOUT_S = 30.0
VERIFY_TIMEOUT_S = 10.0
MARKER = "tfdoctor-python-check:"
VERIFY_CODE = "import sys; sys.stdout.write(%r + '%%d.%%d.%%d\\n' %% tuple(sys.version_info[:3]))" % MARKER
"""Run with -s -S: no site (a hanging .pth or sitecustomize does not hide that the file is a
Python) and no user site; PYTHONHOME and PYTHONPATH still apply, as some Pythons need them, and
only the built-in sys module is imported, which no file can shadow. Python 2 answers too."""
PARENT_OWNED = ("target", "runtime", "probes", "schema_version", "tfdoctor_version", "created",
                "redacted")
"""Snapshot fields tfdoctor sets itself; every other field comes from the collector's document."""
TOOL_MARKERS = (("pipx_metadata.json", "pipx"), ("uv-receipt.toml", "uv tool"))
"""Files at the root of an isolated tool environment: pipx writes pipx_metadata.json
(pypa/pipx src/pipx/pipx_metadata_file.py, PIPX_INFO_FILENAME); `uv tool install` writes
uv-receipt.toml (astral-sh/uv, crates/uv-tool)."""


class TargetNotFound(Exception):
    """The --python argument names nothing that can be started (a usage error, exit 2)."""


@dataclass(frozen=True)
class Target:
    """The interpreter to diagnose, and why it was chosen."""

    executable: str
    chosen_by: str
    reason: str
    tool_env: str | None = None
    tool_python: str | None = None


def resolve_python(python: str | None) -> str:
    """The interpreter to diagnose: a path, a name on PATH, or (None) the current one."""
    return choose_target(python).executable


def _resolve_path(python: str) -> str:
    try:
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
    except RuntimeError as exc:  # "~nosuchuser/...": no such user's home
        raise TargetNotFound(f"--python {python!r}: {exc}") from None
    except (OSError, ValueError) as exc:  # a name over 255 bytes, a NUL byte
        reason = os.strerror(exc.errno) if getattr(exc, "errno", None) else str(exc)
        raise TargetNotFound(f"--python {python[:80]!r}{'...' if len(python) > 80 else ''}: "
                             f"{reason}") from None
    if not os.access(candidate, os.X_OK):
        raise TargetNotFound(f"--python {python!r} is not executable")
    return str(candidate)


def tool_environment(prefix: str) -> str | None:
    """"pipx" or "uv tool" when `prefix` is such an isolated tool environment."""
    for name, kind in TOOL_MARKERS:
        if (Path(prefix) / name).is_file():
            return kind
    return None


def choose_target(python: str | None, environ: Mapping[str, str] | None = None,
                  prefix: str | None = None, executable: str | None = None) -> Target:
    """`--python` when given. Else this interpreter, unless tfdoctor runs from an isolated tool
    environment (pipx, uv tool): then the active VIRTUAL_ENV, else CONDA_PREFIX, else the
    first python3 on PATH outside that environment: the environment the user means."""
    if python is not None:
        return Target(_resolve_path(python), "--python", f"--python {python}")
    environ = os.environ if environ is None else environ
    prefix = sys.prefix if prefix is None else prefix
    executable = sys.executable if executable is None else executable
    tool = tool_environment(prefix)
    if tool is None:
        return Target(executable, "this interpreter", "the interpreter tfdoctor runs in")
    own = _real(prefix) or prefix
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        value = environ.get(variable)
        if value and _real(value) not in (None, own):
            for sub in ("bin/python", "bin/python3", "Scripts/python.exe"):
                candidate = Path(value) / sub
                if candidate.is_file() and os.access(candidate, os.X_OK):
                    return Target(str(candidate), variable,
                                  f"tfdoctor runs from its own {tool} environment; {variable} "
                                  f"names the active environment {value}", tool, executable)
    path = os.pathsep.join(d for d in environ.get("PATH", "").split(os.pathsep)
                           if d and not (_real(d) or own + os.sep).startswith(own + os.sep))
    try:
        found = shutil.which("python3", path=path)
    except (OSError, ValueError):
        found = None
    if found:
        return Target(found, "PATH", f"tfdoctor runs from its own {tool} environment and no "
                      "environment is active: the first python3 on PATH", tool, executable)
    return Target(executable, "this interpreter",
                  f"tfdoctor runs from its own {tool} environment and found no other Python "
                  "(no VIRTUAL_ENV, CONDA_PREFIX or python3 on PATH)", tool, executable)


def _real(path: str) -> str | None:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def _verify_python(executable: str, timeout: float) -> TargetOutcome | None:
    """None when `executable` answers as a Python 3.8+; else how it failed (never given a path
    of ours). Raises TargetNotFound when it cannot be started at all."""
    try:
        proc = subprocess.Popen([executable, "-s", "-S", "-c", VERIFY_CODE],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        raise TargetNotFound(f"--python {executable!r} cannot be started: {exc}") from None
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return TargetOutcome(executable, False, "timeout",
                             f"did not answer a one-line Python check within {timeout:g} s")
    _kill_group(proc)
    text = out.decode("utf-8", "replace")
    if proc.returncode < 0:
        name = _signal_name(proc.returncode)
        return TargetOutcome(executable, False, "crashed", f"killed by {name}", text[-4000:])
    for line in text.splitlines():
        if line.startswith(MARKER):
            shown = line[len(MARKER):].strip()
            try:
                version = tuple(int(part) for part in shown.split("."))
            except ValueError:
                break
            if version[:2] < (3, 8):
                return TargetOutcome(executable, False, "unsupported-python",
                                     f"Python {shown} is older than 3.8, the oldest tfdoctor "
                                     "can examine", text[-4000:])
            return None
    last = text.strip().splitlines()[-1][:300] if text.strip() else "no output"
    return TargetOutcome(executable, False, "not-python",
                         f"does not answer as a Python 3.8+ would (exit code {proc.returncode}: "
                         f"{last})", text[-4000:])


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.returncode is None:
        proc.wait()


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


@contextmanager
def private_scripts() -> Iterator[Path]:
    """A private copy of tfdoctor/target/ in a new temporary directory (removed afterwards):
    whatever the diagnosed interpreter does with the path, tfdoctor's own files stay intact."""
    tmp = tempfile.mkdtemp(prefix="tfdoctor-scripts-")
    try:
        for script in TARGET_DIR.glob("*.py"):
            shutil.copy(script, Path(tmp) / script.name)
        yield Path(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _temp_problem(executable: str, exc: OSError, during: str) -> TargetOutcome:
    where = os.environ.get("TMPDIR") or "unset"
    return TargetOutcome(executable, False, "temp-dir",
                         f"tfdoctor's temporary directory failed {during} (TMPDIR {where}): "
                         f"{type(exc).__name__}: {exc}")


def gather_static(python: str | None = None, timeout: float | None = None) -> Snapshot:
    """Run the static collector in the target interpreter and build a snapshot from its facts.

    `timeout` (default COLLECT_TIMEOUT_S) bounds the collector, start-up included."""
    target = choose_target(python)
    limit = COLLECT_TIMEOUT_S if timeout is None else timeout
    outcome = _verify_python(target.executable, min(limit, VERIFY_TIMEOUT_S))
    child = None
    if outcome is None:
        outcome, child = _collect(target.executable, limit)
    outcome.chosen_by, outcome.chosen_reason = target.chosen_by, target.reason
    outcome.tool_env, outcome.tool_python = target.tool_env, target.tool_python
    data = child.result if child is not None and outcome.ok else {}
    snapshot_data = {key: value for key, value in data.items() if key not in PARENT_OWNED}
    snapshot_data.update({
        "schema_version": 1,
        "tfdoctor_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "target": outcome.__dict__,
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
        return Snapshot.from_dict(snapshot_data)
    except SnapshotError as exc:
        # The collector is ours, but it ran in a foreign interpreter: keep what is certain.
        bad = TargetOutcome(target.executable, False, "bad-output", str(exc),
                            child.stderr[-4000:] if child else "", chosen_by=target.chosen_by,
                            chosen_reason=target.reason, tool_env=target.tool_env,
                            tool_python=target.tool_python, started=True)
        return Snapshot(target=bad, tfdoctor_version=__version__)


def _collect(executable: str, timeout: float) -> tuple[TargetOutcome, ChildResult | None]:
    try:
        with private_scripts() as scripts:
            try:
                child = run_child(executable, scripts / "collect_static.py",
                                  ["--parent-pid", str(os.getppid())], timeout=timeout,
                                  also_remove=[scripts])  # even if tfdoctor is killed meanwhile
            except OSError as exc:
                if getattr(exc, "filename", None) != executable:
                    # The interpreter passed the check, so it starts: the temporary directory
                    # was removed or broken while it ran (or none could be made).
                    return _temp_problem(executable, exc, "while the collector ran"), None
                raise TargetNotFound(f"--python {executable!r} cannot be started: {exc}") from None
    except OSError as exc:
        return _temp_problem(executable, exc, "to be created"), None
    return _outcome(executable, child, timeout), child


def _outcome(executable: str, child: ChildResult, timeout: float) -> TargetOutcome:
    tail = child.stderr[-4000:]
    result = child.result if isinstance(child.result, dict) else None
    started = result is not None or RESULT_LOST in child.stderr
    if RESULT_LOST in child.stderr and child.returncode == RESULT_LOST_EXIT:
        line = next(x for x in child.stderr.splitlines() if RESULT_LOST in x)
        return TargetOutcome(executable, False, "temp-dir",
                             "tfdoctor's temporary directory was removed while the collector ran "
                             f"(by the interpreter's start-up or site code): {line[-300:]}", tail,
                             started=True)
    if child.timed_out:
        where = ("in the collector" if started else "in the interpreter's start-up, before "
                 "tfdoctor's collector ran (sitecustomize.py, usercustomize.py or a .pth file)")
        return TargetOutcome(executable, False, "timeout",
                             f"hung {where}: stopped after {timeout:g} s", tail, started=started)
    if child.signal_name:
        return TargetOutcome(executable, False, "crashed", f"killed by {child.signal_name}"
                             + ("" if started else " during start-up"), tail, started=started)
    if child.result_error == "missing" or (result is not None and result.get("stage") != "done"):
        last = tail.strip().splitlines()[-1] if tail.strip() else "no output"
        when = "before finishing" if started else "before the collector ran"
        return TargetOutcome(executable, False, "no-output",
                             f"exited with code {child.returncode} {when}: {last}", tail,
                             started=started)
    if child.result_error or result is None:
        return TargetOutcome(executable, False, "bad-output",
                             child.result_error or "result is not a JSON object", tail,
                             started=started)
    return TargetOutcome(executable, True, started=True)


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
