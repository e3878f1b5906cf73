"""The TensorFlow variables a report sets where its code runs: `export TF_USE_LEGACY_KERAS=1`,
`os.environ["TF_USE_LEGACY_KERAS"] = "1"`, a notebook's `%env`, a Dockerfile's `ENV`, R's
`Sys.setenv`, or `env | grep '^TF_'` pasted.

A report never shows its whole environment, so the environment stays unknown; a variable it sets
is known, and a rule reads it as it would read the variable from the environment it ran in
(tf.keras is tf_keras only when TF_USE_LEGACY_KERAS says so). Only what is typed or printed
counts: a sentence about a variable is not a setting, and a commented-out line sets nothing.
"""

from __future__ import annotations

import re

from tfdoctor.triage.evidence import ENVIRONMENT, Found
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.vocabulary import typed_command

_NAME = r"(?P<name>TF_[A-Z0-9_]{1,60})"
_VALUE = r"""(?P<quote>["']?)(?P<value>[^\s"'`;&|#$]{0,200})(?P=quote)"""
"""A literal value: one the shell would expand (`$HOME`, `$(cmd)`) is not known from the text."""
_START = typed_command("$%>")
"""Where a command is typed; not after `#`, which in a script comments the setting out."""

_SHELL = re.compile(
    _START + r"(?:export[ \t]{1,3}|set[ \t]{1,3}|ENV[ \t]{1,3}|%env[ \t]{1,3}|%set_env[ \t]{1,3}"
    r"|(?:conda|mamba|micromamba)[ \t]{1,3}env[ \t]{1,3}config[ \t]{1,3}vars[ \t]{1,3}set[ \t]{1,3}"
    r"|env[ \t]{1,3}|\$env:)?" + _NAME + r"[ \t]{0,3}=[ \t]{0,3}" + _VALUE + r"(?=[ \t]|`|$)")
"""`NAME=value` typed as a command: POSIX shells (alone, after `env` or before the command it
runs with), cmd's `set`, PowerShell's `$env:`, IPython's `%env`, a Dockerfile's `ENV`, conda's
`env config vars set` (conda's docs, "Setting environment variables")."""
_SPACED = re.compile(_START + r"(?:ENV|%env|%set_env|(?:launchctl[ \t]{1,3})?setenv)[ \t]{1,3}" + _NAME
                     + r"[ \t]{1,3}" + _VALUE + r"[ \t]{0,5}$")
"""The forms that separate name and value with a space: `ENV NAME value`, `%env NAME value`,
`%set_env NAME value`, csh's and launchd's `setenv NAME value` (how a GUI app, an editor, gets
a variable on macOS)."""
_LITERAL = r"""[ \t]{0,3}(?P<quote>["'])(?P<value>[^"'\n]{0,200})(?P=quote)"""
_UNCOMMENTED = r"[^#]{0,400}?"
_PYTHON = tuple(re.compile(_UNCOMMENTED + pattern + _LITERAL) for pattern in (
    r"""\bos\.environ\[[ \t]{0,3}(?P<q>["'])""" + _NAME + r"(?P=q)[ \t]{0,3}\][ \t]{0,3}=",
    r"""\bos\.(?:environ\.setdefault|putenv)\([ \t]{0,3}(?P<q>["'])""" + _NAME + r"(?P=q)[ \t]{0,3},",
    r"\bSys\.setenv\([ \t]{0,3}" + _NAME + r"[ \t]{0,3}=",
))
"""Python's `os.environ["NAME"] = "value"`, `os.environ.setdefault("NAME", "value")` and
`os.putenv(...)`, and R's `Sys.setenv(NAME = "value")` (reticulate), on a line not commented
out; the value is a string literal, as os.environ takes only strings."""
_LONGEST = 4000


def read(doc: Document, found: Found) -> None:
    for line in doc.lines:
        if "TF_" not in line.text or len(line.text) > _LONGEST:
            continue
        _setting(line, found)


def _setting(line: Line, found: Found) -> None:
    for pattern in _PYTHON:
        python = pattern.match(line.text)
        if python:
            found.add(line, ENVIRONMENT + python.group("name"), python.group("value"), "stated",
                      "variable setting")
            return
    if line.code:  # a Python line's `TF_X = 1` is a Python variable
        return
    shell = _SHELL.match(line.text) or _SPACED.match(line.text)
    if shell is None:
        return
    bare = shell.group(0).lstrip(" \t`").startswith("TF_") and shell.end() == len(line.text.rstrip())
    printed = bare and line.fenced  # `env | grep ^TF_` pasted: what the environment holds
    found.add(line, ENVIRONMENT + shell.group("name"), shell.group("value"),
              "read" if printed else "stated", "env" if printed else "variable setting")

