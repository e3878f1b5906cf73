"""The `tfdoctor` command line. Exit codes: 0 no problem at or above --fail-on, 1 problems found,
2 usage error, 3 tfdoctor itself failed.

This module is the entry point and stays light: `main` guards the streams, starts the static
collector a `check` will need (tfdoctor.cli.early) and only then imports typer, rich and the
commands, one module per group: check (check, collect, diagnose, schema), probe, tools (lint,
ops, run), info (list-checks, explain, matrix); what they share is in tfdoctor.cli.app.
"""

from __future__ import annotations

import sys
from typing import Any

COMMAND_MODULES = ("tfdoctor.cli.check", "tfdoctor.cli.probe", "tfdoctor.cli.tools", "tfdoctor.cli.info",
                   "tfdoctor.cli.fix")
"""Imported in this order, which is the order of the commands in `tfdoctor --help`."""
EXIT_INTERNAL = 3


def load_app() -> Any:
    """The typer app with every command registered."""
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    from tfdoctor.cli.app import app

    return app



def main() -> None:
    """Entry point: turns any failure of tfdoctor itself into exit code 3 and one clear line."""
    from tfdoctor.child.process import Terminated, die_of
    from tfdoctor.cli.streams import guard_streams

    try:
        try:
            guard_streams()  # first: a closed descriptor must not be taken by a child's pipe
            from tfdoctor.cli.early import start_early

            start_early(sys.argv[1:])
            load_app()()
        finally:
            from tfdoctor.gather.static import cancel_started

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
    from tfdoctor.cli.app import err

    return err
