"""Commands in remediations, written for the diagnosed interpreter (its own path, quoted), so a
person can paste them and a script can run them."""

from __future__ import annotations

import shlex

from tfdoctor.snapshot import Snapshot


def python_cmd(snapshot: Snapshot) -> str:
    """The diagnosed interpreter as a shell word."""
    exe = snapshot.python.executable if snapshot.python else snapshot.target.python
    return shlex.quote(exe or "python3")


def pip(snapshot: Snapshot, *args: str) -> str:
    """`<python> -m pip ARGS`, each argument quoted as needed."""
    return " ".join([python_cmd(snapshot), "-m", "pip", *(shlex.quote(a) for a in args)])
