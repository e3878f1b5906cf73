"""Remove what identifies a person from text meant to be pasted into a public bug report."""

from __future__ import annotations

import getpass
import os
import re
import socket
from dataclasses import dataclass

_OTHER_HOMES = re.compile(r"(/Users/|/home/)[^/\s\"']+")
_TOO_COMMON_TO_REPLACE = {"root", "user", "admin", "runner", "ubuntu"}
"""User names that are also ordinary words in reports ("conda root"); their home is still hidden."""


@dataclass(frozen=True)
class Identity:
    home: str
    user: str
    host: str

    @classmethod
    def current(cls) -> "Identity":
        try:
            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name is fine, there is nothing to hide then
            user = ""
        return cls(os.path.expanduser("~"), user, socket.gethostname())


def redact(text: str, identity: Identity | None = None) -> str:
    """Replace the home directory with ~, other homes' user parts, the user and host names."""
    who = identity or Identity.current()
    if who.home and who.home not in ("/", ""):
        # Only the home itself, not a longer name it is a prefix of (/Users/al vs /Users/alice).
        text = re.sub(re.escape(who.home.rstrip("/")) + r"(?![^/\s'\"`])", "~", text)
    text = _OTHER_HOMES.sub(lambda m: m.group(1) + "<user>", text)
    if who.host and len(who.host) >= 3:
        text = re.sub(rf"\b{re.escape(who.host)}\b", "<host>", text)
    if who.user and len(who.user) >= 3 and who.user.lower() not in _TOO_COMMON_TO_REPLACE:
        text = re.sub(rf"\b{re.escape(who.user)}\b", "<user>", text)
    return text
