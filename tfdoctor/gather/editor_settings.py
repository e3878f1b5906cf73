"""The interpreter VS Code starts with in the working folder: `python.defaultInterpreterPath`
in .vscode/settings.json. VS Code writes its settings as JSON with comments (JSONC: `//` and
`/* */` comments, trailing commas), and the value may use its variables
(`${workspaceFolder}/.venv/bin/python`, `${env:HOME}`, `${userHome}`) or be relative to the
folder. The Python extension uses it until the user picks another interpreter there."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping

from tfdoctor.facts.notebooks import EditorFacts
from tfdoctor.gather.interpreter_files import same_environment
from tfdoctor.gather.settings_files import Unreadable, read_settings

SETTINGS_LIMIT = 1024 * 1024
"""Bytes of a settings.json read (real ones are a few KB)."""
SETTING = "python.defaultInterpreterPath"
DEFAULT_VALUE = "python"
"""The setting's default in the Python extension: whatever `python` is, nothing chosen."""
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*|/\*(?:.*?\*/|.*)|\s+|[^"/\s,\]}]+|.', re.DOTALL)
"""A string (its closing quote optional, so a match never fails and the scan stays linear), a
comment, white space, a run of other characters, or one character."""
_VARIABLE = re.compile(r"\$\{([^}]*)\}")


def without_comments(text: str) -> str:
    """JSONC as JSON: comments and trailing commas dropped, strings untouched."""
    out: list[str] = []
    comma = None
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token.startswith(("//", "/*")):
            out.append(" ")
            continue
        if token in ("}", "]") and comma is not None:
            out[comma] = ""  # a trailing comma
        if token == ",":
            comma = len(out)
        elif not token.isspace():
            comma = None
        out.append(token)
    return "".join(out)


def _expand(value: str, folder: str, environ: Mapping[str, str], home: str) -> str | None:
    """The setting as a path; None when it uses a variable that only VS Code knows."""
    names = {"workspaceFolder": folder, "workspaceRoot": folder,
             "workspaceFolderBasename": os.path.basename(folder), "userHome": home}

    def variable(match: re.Match) -> str:
        name = match.group(1)
        if name.startswith("env:"):
            return environ.get(name[4:], "")
        if name not in names:
            raise KeyError(name)
        return names[name]

    try:
        path = _VARIABLE.sub(variable, value)
    except KeyError:
        return None
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return os.path.normpath(os.path.join(folder, path))


def gather_editor(diagnosed: str | None, folder: str, environ: Mapping[str, str] | None = None,
                  home: str | None = None) -> EditorFacts:
    """The working folder's VS Code interpreter setting, resolved and compared with the
    interpreter diagnosed."""
    environ = os.environ if environ is None else environ
    home = os.path.expanduser("~") if home is None else home
    facts = EditorFacts(folder)
    path = os.path.join(folder, ".vscode", "settings.json")
    if not os.path.lexists(path):
        return facts
    facts.settings = path
    try:
        settings = json.loads(without_comments(read_settings(path, SETTINGS_LIMIT)))
    except Unreadable as exc:
        facts.error = str(exc)
        return facts
    except ValueError as exc:
        facts.error = f"not JSON with comments: {exc}"
        return facts
    value = settings.get(SETTING) if isinstance(settings, dict) else None
    if not isinstance(value, str) or value.strip() in ("", DEFAULT_VALUE):
        return facts
    facts.interpreter_setting = value[:1000]
    facts.interpreter = _expand(value.strip(), folder, environ, home)
    if facts.interpreter is not None:
        facts.exists = os.path.isfile(facts.interpreter) and os.access(facts.interpreter, os.X_OK)
        if diagnosed:
            facts.is_target = bool(facts.exists) and same_environment(facts.interpreter, diagnosed)
    return facts
