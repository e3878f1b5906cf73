"""Start the static collector before the command line is even parsed.

`tfdoctor check` spends most of its time waiting: for the diagnosed interpreter to answer, for
the supervisor and for the collector child. Those waits need only tfdoctor.gather.static, while parsing
the command line needs typer and rich and diagnosing needs the snapshot model and the rules. So
the entry point reads the arguments of `check` and `collect` here, with no typer at all, starts
the collection they will ask for (tfdoctor.gather.static.start_static), and imports the rest while the
children run. The real parse decides: gather_static adopts the run only when it is asked for the
same interpreter and timeout, and anything not adopted is called off before tfdoctor exits.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any, Optional, Sequence, Tuple

from tfdoctor.gather import static

VALUE_OPTIONS = {
    "check": ("--python", "--format", "--only", "--skip", "--fail-on", "--timeout", "--log"),
    "collect": ("--python", "--timeout", "--log", "-o", "--output"),
}
FLAGS = {
    "check": ("--json", "-v", "--verbose", "--no-runtime", "--no-probes", "--debug", "-q", "--quiet"),
    "collect": ("--no-runtime", "--no-probes", "--no-redact", "-q", "--quiet"),
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
    request = early_request(argv)
    if request is None:
        return False
    static.started_early(Started(*request))
    return True
