"""The model child's result document, shared by its modules: the state written after every stage
(atomically, so a crash or a hang still leaves what was found), and how failures are recorded
as entries in "errors", never as tracebacks.

Runs inside the diagnosed interpreter: standard library only, Python 3.8+.
"""

from __future__ import annotations

import json
import os
import time

T0 = time.monotonic()
STATE = {"schema": 1, "stage": None, "complete": False, "errors": [], "assumptions": [],
         "stage_s": {}}
RESULT_PATH = [""]
"""The result file (set once by the model child's main through start())."""
TEXT_LIMIT = 2000


def start(path):
    """Where write() puts the result document."""
    RESULT_PATH[0] = path


def write(stage):
    """Record reaching `stage` and rewrite the result file atomically."""
    STATE["stage"] = stage
    STATE["stage_s"][stage] = round(time.monotonic() - T0, 4)
    _dump()


def doing(what):
    """Record what runs now (the parent shows it while it waits) and rewrite the result file."""
    STATE["doing"] = what
    _dump()


def _dump():
    tmp = RESULT_PATH[0] + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(STATE, handle, default=str)
    os.replace(tmp, RESULT_PATH[0])


def describe(exc):
    message = str(exc)
    if len(message) > TEXT_LIMIT:
        message = message[:TEXT_LIMIT] + "..."
    return "%s: %s" % (type(exc).__name__, message)


def error(stage, kind, message):
    STATE["errors"].append({"stage": stage, "kind": kind, "message": message})


def stage_error(stage, exc, names=None):
    """Record a stage's failure as a finding: an op without a kernel on the device it was
    pinned to (with its layer), memory exhausted, or the exception itself."""
    text = str(exc)
    marker = "No OpKernel was registered to support Op '"
    if marker in text:
        op = text.split(marker, 1)[1].split("'", 1)[0]
        node = text.split("{{node ", 1)[1].split("}}", 1)[0] if "{{node " in text else ""
        layer = names.layer_of(node, "(model)") if names is not None and node else None
        if any(e.get("kind") == "no-gpu-kernel" and e.get("op") == op for e in STATE["errors"]):
            return
        STATE["errors"].append({"stage": stage, "kind": "no-gpu-kernel", "op": op,
                                "node": node, "layer": layer,
                                "message": "op %s (%s) has no kernel on the device it must run "
                                           "on: %s" % (op, node or "?", describe(exc)[:600])})
        return
    error(stage, "too-big" if is_oom(exc) else "failed", describe(exc))


def is_oom(exc):
    return isinstance(exc, MemoryError) or type(exc).__name__ == "ResourceExhaustedError" \
        or "OOM when allocating" in str(exc)


class Budget(object):
    def __init__(self, seconds):
        self.deadline = time.monotonic() + float(seconds)

    def left(self):
        return self.deadline - time.monotonic()
