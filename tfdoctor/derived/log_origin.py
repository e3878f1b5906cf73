"""Did a pasted log come from the diagnosed environment? The paths and versions a log names are
facts about the process that printed it: a `.dylib` or `/Users/...` path is macOS, a
`lib/python3.8/site-packages` path is Python 3.8. When they contradict the diagnosed interpreter,
advice built from the log must not change this environment (tfdoctor.engine.vet)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfdoctor.facts.snapshot import Snapshot

_OS_MARKS = {
    "Darwin": re.compile(r"\.dylib\b|\bdyld\b|/System/Library/|/Library/Frameworks/|/opt/homebrew/|"
                         r"\.framework/|/Users/[^/\s]+/"),
    "Linux": re.compile(r"/usr/lib/x86_64-linux-gnu/|/usr/lib/aarch64-linux-gnu/|\bld-linux|"
                        r"/home/[^/\s]+/|\.so\.\d"),
    "Windows": re.compile(r"\b[A-Za-z]:\\|\.dll\b|\\site-packages\\"),
}
"""Path shapes only one OS prints (a path's own shape, never a word of prose)."""
_PYTHON_DIR = re.compile(r"[/\\]python(3\.\d{1,2})[/\\](?:site|dist)-packages\b", re.IGNORECASE)
"""`lib/python3.8/site-packages`: the Python whose packages the traceback ran."""


@dataclass(frozen=True)
class LogOrigin:
    elsewhere: bool
    reasons: tuple[str, ...] = ()


def log_origin(s: Snapshot) -> LogOrigin:
    """Whether the snapshot's pasted log contradicts the diagnosed interpreter, and why."""
    log = s.log
    if log is None or not log.excerpt:
        return LogOrigin(False)
    text = log.excerpt
    reasons = []
    system = s.host.system
    seen = sorted(name for name, mark in _OS_MARKS.items() if mark.search(text))
    if system and seen and system not in seen:
        reasons.append(f"the log names {' and '.join(seen)} paths; this is {system}")
    minors = sorted(set(_PYTHON_DIR.findall(text)))
    py = s.python.minor if s.python else None
    if py and minors and py not in minors:
        reasons.append(f"the log ran Python {', '.join(minors)}; the diagnosed Python is {py}")
    return LogOrigin(bool(reasons), tuple(reasons))
