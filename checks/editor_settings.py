"""Does the editor run the Python diagnosed? In a folder whose .vscode/settings.json names
another interpreter (`python.defaultInterpreterPath`), VS Code's Run button, terminal and
notebooks start that one, and what this report says does not hold there."""

from __future__ import annotations

import json
import shlex

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_OTHER_INTERPRETERS
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule

SETTING_DOCS = "https://code.visualstudio.com/docs/python/settings-reference#_general-python-settings"


@rule(codes.EDITOR_OTHER_INTERPRETER, "VS Code's interpreter for this folder is another Python",
      Severity.INFO,
      "The working folder's .vscode/settings.json sets python.defaultInterpreterPath to another "
      "interpreter than the one diagnosed. VS Code's Python extension starts scripts, its "
      "terminal and notebooks with it until you pick another one in the folder (Python: Select "
      "Interpreter).",
      "Diagnose that interpreter too (`tfdoctor check --python PATH`), or set the setting to the "
      "interpreter diagnosed.",
      SETTING_DOCS, fix_answer=ABOUT_OTHER_INTERPRETERS)
def other_interpreter(s: Snapshot, d: Derived):
    editor = s.editor
    if editor.interpreter is None or editor.is_target:
        return None
    evidence = {"settings": editor.settings, "python.defaultInterpreterPath": editor.interpreter_setting,
                "interpreter": editor.interpreter, "exists": editor.exists, "diagnosed": s.target.python}
    if not editor.exists:
        return other_interpreter.finding(
            evidence, Remediation(f"Set python.defaultInterpreterPath in {editor.settings} to the "
                                  "interpreter diagnosed", (), SETTING_DOCS,
                                  code=(f'"python.defaultInterpreterPath": {json.dumps(s.target.python)}',)),
            title=f"VS Code's interpreter for this folder, {editor.interpreter}, does not exist")
    return other_interpreter.finding(
        evidence, Remediation("Diagnose the interpreter VS Code runs here",
                              (f"tfdoctor check --python {shlex.quote(editor.interpreter)}",), SETTING_DOCS),
        title=f"VS Code's interpreter for this folder is {editor.interpreter}, not the one diagnosed")
