"""The `tfdoctor` command line. Exit codes: 0 no problem at or above --fail-on, 1 problems found,
2 usage error, 3 tfdoctor itself failed.

This module is the entry point and stays light: `main` guards the streams, starts the static
collector a `check` will need (tfdoctor.cli_early) and only then imports typer, rich and the
commands, one module per group: cli_check (check, collect, diagnose, schema), cli_probe (probe),
cli_tools (lint, ops, run), cli_info (list-checks, explain, matrix); what they share is in
cli_common. `from tfdoctor.cli import app` (or all_codes, usage_error...) still works.
"""

from __future__ import annotations

import sys
from typing import Any

COMMAND_MODULES = ("tfdoctor.cli_check", "tfdoctor.cli_probe", "tfdoctor.cli_tools", "tfdoctor.cli_info")
"""Imported in this order, which is the order of the commands in `tfdoctor --help`."""
EXIT_INTERNAL = 3


def load_app() -> Any:
    """The typer app with every command registered."""
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    from tfdoctor.cli_common import app

    return app


def __getattr__(name: str) -> Any:
    """The names this module had before it was split (app, all_codes, usage_error, check...)."""
    if name.startswith("__"):  # the import system asks for __path__ and the like: not ours
        raise AttributeError(name)
    import importlib

    load_app()
    for module in ("tfdoctor.cli_common", *COMMAND_MODULES):
        found = importlib.import_module(module)
        if hasattr(found, name):
            return getattr(found, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point: turns any failure of tfdoctor itself into exit code 3 and one clear line."""
    from tfdoctor.childproc import Terminated, die_of
    from tfdoctor.cli_streams import guard_streams

    try:
        try:
            guard_streams()  # first: a closed descriptor must not be taken by a child's pipe
            from tfdoctor.cli_early import start_early

            start_early(sys.argv[1:])
            load_app()()
        finally:
            from tfdoctor.gather import cancel_started

            cancel_started()  # a collection started early and not used: nothing outlives us
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
    from tfdoctor.cli_common import err

    return err
