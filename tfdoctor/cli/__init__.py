"""Stage: the command line. Takes argv and the user's terminal; gives the exit code and what is
printed. main.py is the entry point (it guards the streams and starts the static collector
before typer is imported); app.py holds the typer app, the two consoles and what the commands
share; one module per group of commands: check.py (check, collect, diagnose, schema), probe.py,
tools.py (lint, ops, run), info.py (list-checks, explain, matrix), fix.py.
"""
