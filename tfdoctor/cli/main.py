"""The `tfdoctor` command line. Exit codes: 0 no problem at or above --fail-on, 1 problems found,
2 usage error, 3 tfdoctor itself failed.

This module is the entry point and stays light: `main` guards the streams, starts the static
collector a `check` will need and only then imports typer, rich and the commands, one module per
group: check (check, collect, diagnose, schema), probe, tools (lint, ops, run), info
(list-checks, explain, matrix), fix; what they share is in tfdoctor.cli.app.

Starting early: `tfdoctor check` spends most of its time waiting, for the diagnosed interpreter,
the supervisor and the collector child, and those waits need only tfdoctor.gather.static, while
parsing the command line needs typer and rich and diagnosing needs the snapshot model and the
rules. So `main` reads the arguments of `check` and `collect` with no typer at all
(`early_request`), starts the collection they will ask for, and imports the rest while the
children run. The real parse decides: gather_static adopts the run only when it is asked for the
same interpreter and timeout, and anything not adopted is called off before tfdoctor exits.
"""

from __future__ import annotations

import math
import os
import sys
import threading
from typing import Any, Optional, Sequence, Tuple

COMMAND_MODULES = ("tfdoctor.cli.check", "tfdoctor.cli.probe", "tfdoctor.cli.tools", "tfdoctor.cli.triage",
                   "tfdoctor.cli.info", "tfdoctor.cli.fix")
"""The command groups, in the order of `tfdoctor --help`."""
EXIT_INTERNAL = 3


def load_app() -> Any:
    """The typer app with every command registered."""
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    from tfdoctor.cli.app import app

    # a module imported earlier by other code registered its commands earlier: order by group
    app.registered_commands.sort(key=lambda c: COMMAND_MODULES.index(c.callback.__module__)
                                 if c.callback and c.callback.__module__ in COMMAND_MODULES
                                 else len(COMMAND_MODULES))
    return app



def main() -> None:
    """Entry point: turns any failure of tfdoctor itself into exit code 3 and one clear line."""
    from tfdoctor.child import reaper
    from tfdoctor.child.process import Terminated, die_of
    from tfdoctor.cli.streams import guard_streams

    try:
        try:
            guard_streams()  # first: a closed descriptor must not be taken by a child's pipe
            reaper.adopt_orphans()  # before any child: whatever its supervisor, it stays below us
            start_early(sys.argv[1:])
            load_app()()
        finally:
            from tfdoctor.gather.static import cancel_started

            cancel_started()  # a collection started early and not used: nothing outlives us
            reaper.kill_orphans()  # nor what a command left when it killed its supervisor
    except Terminated as stop:  # SIGTERM/SIGHUP: the children are gone, every with-block ran
        die_of(stop)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        _err().print("interrupted")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the doctor must not end in a traceback
        # markup=False: this handler must not fail on whatever text the exception carries
        _err().print(f"tfdoctor failed: {type(exc).__name__}: {exc}", markup=False, style="red")
        if "--debug" in sys.argv:
            import traceback

            _err().print(traceback.format_exc(), markup=False)
        else:
            _err().print("[dim]run again with --debug for the traceback[/]")
        sys.exit(EXIT_INTERNAL)


def _err() -> Any:
    from tfdoctor.cli.app import err

    return err


# --- the static collection started before the command line is parsed ---------------------------

VALUE_OPTIONS = {
    "check": ("--python", "--format", "--only", "--skip", "--fail-on", "--timeout", "--log"),
    "collect": ("--python", "--timeout", "--log", "-o", "--output"),
}
FLAGS = {
    "check": ("--json", "-v", "--verbose", "--no-runtime", "--no-probes", "--debug", "-q", "--quiet",
              "--keep-log"),
    "collect": ("--no-runtime", "--no-probes", "--no-redact", "-q", "--quiet", "--keep-log"),
}
"""The options of the commands started early (tfdoctor/cli/check.py): anything else, `--help`
included, and nothing is started."""
DEFAULT_TIMEOUT_S = 60.0
COMPLETION_VAR = "_TFDOCTOR_COMPLETE"
"""Set by the shell when it asks typer for completions: then nothing is run."""


def early_request(argv: Sequence[str]) -> Optional[Tuple[Optional[str], float]]:
    """(--python, --timeout) of a `check` or `collect` command line, or None when the line is
    anything else or anything this reading is unsure of (the real parse then runs alone)."""
    if not argv or argv[0] not in VALUE_OPTIONS or os.environ.get(COMPLETION_VAR):
        return None
    values, flags = VALUE_OPTIONS[argv[0]], FLAGS[argv[0]]
    python, timeout = None, str(DEFAULT_TIMEOUT_S)
    rest = list(argv[1:])
    while rest:
        token = rest.pop(0)
        name, has_value, value = token.partition("=")
        if not name.startswith("--"):
            name, has_value, value = token, "", ""
        if name in flags and not has_value:
            continue
        if name not in values:
            return None  # --help, an argument, a typo: typer says what it is
        if not has_value:
            if not rest:
                return None
            value = rest.pop(0)
        if name == "--python":
            python = value
        elif name == "--timeout":
            timeout = value
    try:
        seconds = float(timeout)
    except ValueError:
        return None
    if not (math.isfinite(seconds) and 1.0 <= seconds <= 86400.0):
        return None
    return python, seconds


class Started:
    """A static collection running in a thread of its own; only its waiting happens there (the
    snapshot is built by whoever adopts it), and it can be called off at any step."""

    def __init__(self, python: str | None, limit: float) -> None:
        self.key = (python, limit)
        self._called_off = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="tfdoctor-static-facts", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from tfdoctor.gather import static

        try:
            self._value = static.run_collector(self.key[0], self.key[1], self._called_off.is_set)
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that adopts it
            self._error = exc

    def result(self) -> tuple:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value

    def cancel(self) -> None:
        self._called_off.set()
        self._thread.join()


def start_early(argv: Sequence[str]) -> bool:
    """Start the static collection the command line will ask for, if it is `check` or
    `collect`; True when one was started (static.cancel_started() calls it off)."""
    from tfdoctor.gather import static

    request = early_request(argv)
    if request is None:
        return False
    static.started_early(Started(*request))
    return True
