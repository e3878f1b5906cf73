"""How a child program ends once its result file is written (at once, without the interpreter's
teardown), and how it says it could not write it: the one line the parent reads on its stderr to
blame tfdoctor's temporary directory instead of the diagnosed interpreter.

Imported by the child programs and by tfdoctor.gather (which reads the line).
"""

from __future__ import annotations

import os
import sys

RESULT_LOST = "tfdoctor-child: cannot write its result (its temporary directory is gone):"
"""The line a child script writes to stderr, before exiting with RESULT_LOST_EXIT, when the
directory of its result file was removed or broken under it (by code it imported): the parent
then blames tfdoctor's temporary directory, not the interpreter."""
RESULT_LOST_EXIT = 75  # EX_TEMPFAIL (sysexits.h)


def result_lost(exc):
    """Say RESULT_LOST on stderr and exit at once (nothing else could be reported)."""
    try:
        sys.stderr.write("%s %s: %s\n" % (RESULT_LOST, type(exc).__name__, exc))
        sys.stderr.flush()
    finally:
        os._exit(RESULT_LOST_EXIT)


def exit_at_once():
    """Flush and exit 0, skipping the interpreter's teardown: TensorFlow and its plugins are known
    to crash or hang there, and everything worth saying is already in the result file."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
