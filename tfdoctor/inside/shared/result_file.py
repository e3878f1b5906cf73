"""How a child program says it could not write its result file: the one line the parent reads
on its stderr to blame tfdoctor's temporary directory instead of the diagnosed interpreter.

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
