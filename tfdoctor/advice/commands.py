"""Commands in remediations, written for the diagnosed interpreter (its own path, quoted), so a
person can paste them and a script can run them."""

from __future__ import annotations

import shlex

from tfdoctor.facts.snapshot import Snapshot


def python_cmd(snapshot: Snapshot) -> str:
    """The diagnosed interpreter as a shell word; never tfdoctor's own isolated (pipx, uv tool)
    environment, which was diagnosed only for want of another: then plain `python3`."""
    if _is_tfdoctors_own(snapshot):
        return "python3"
    exe = snapshot.python.executable if snapshot.python else snapshot.target.python
    return shlex.quote(exe or "python3")


def _is_tfdoctors_own(snapshot: Snapshot) -> bool:
    target = snapshot.target
    if not target.tool_env:
        return False
    own = target.tool_python
    diagnosed = snapshot.python.executable if snapshot.python else target.python
    return target.chosen_by == "this interpreter" or (bool(own) and own == diagnosed)


def pip(snapshot: Snapshot, *args: str) -> str:
    """`<python> -m pip ARGS`, each argument quoted as needed."""
    return " ".join([python_cmd(snapshot), "-m", "pip", *(shlex.quote(a) for a in args)])
