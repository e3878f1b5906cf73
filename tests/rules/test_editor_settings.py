"""editor.other-interpreter: the working folder's .vscode/settings.json, written as VS Code
writes it (JSON with comments and trailing commas, `${workspaceFolder}`), read for real."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gather.test_collector import make_venv
from snapshots import RuleModules, linux_cpu, merge, snap

from tfdoctor.facts.typed import to_plain
from tfdoctor.gather.editor_settings import gather_editor, without_comments

RULES = RuleModules("editor_settings")


def folder_with(tmp_path: Path, settings: str) -> Path:
    project = tmp_path / "project"
    (project / ".vscode").mkdir(parents=True)
    (project / ".vscode" / "settings.json").write_text(settings)
    return project


def diagnose_in(project: Path, diagnosed: str, environ: dict | None = None):
    facts = gather_editor(diagnosed, str(project), environ or {}, str(project.parent))
    data = linux_cpu(target={"python": diagnosed}, python={"executable": diagnosed})
    return facts, RULES.run(snap(merge(data, {"editor": to_plain(facts)})))


def test_another_interpreter_is_named_with_the_command_that_diagnoses_it(tmp_path):
    python, _ = make_venv(tmp_path / "project" / ".venv")
    project = folder_with(tmp_path, '{\n  // the project venv\n  "python.defaultInterpreterPath": '
                                    '"${workspaceFolder}/.venv/bin/python", /* picked by hand */\n'
                                    '  "editor.rulers": [100,],\n}\n')
    facts, (found,) = diagnose_in(project, sys.executable)
    assert facts.interpreter == str(python) and facts.exists and facts.is_target is False
    assert (found.code, found.severity.value) == ("editor.other-interpreter", "info")
    assert found.title == f"VS Code's interpreter for this folder is {python}, not the one diagnosed"
    assert list(found.remediation.commands) == [f"tfdoctor check --python {python}"]


def test_the_same_environment_says_nothing(tmp_path):
    python, _ = make_venv(tmp_path / "project" / "env")
    project = folder_with(tmp_path, '{"python.defaultInterpreterPath": "env/bin/python3"}')
    facts, found = diagnose_in(project, str(python))  # python3 and python of one venv
    assert facts.is_target is True and found == []


def test_a_missing_interpreter_and_variables(tmp_path):
    project = folder_with(tmp_path, '{"python.defaultInterpreterPath": "${env:TOOLS}/py/bin/python"}')
    facts, (found,) = diagnose_in(project, "/usr/bin/python3", {"TOOLS": "/nowhere"})
    assert facts.interpreter == "/nowhere/py/bin/python" and facts.exists is False
    assert found.title == "VS Code's interpreter for this folder, /nowhere/py/bin/python, does not exist"
    assert list(found.remediation.code) == ['"python.defaultInterpreterPath": "/usr/bin/python3"']


@pytest.mark.parametrize("settings, error", [
    (b'{"python.defaultInterpreterPath": ', "not JSON with comments"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
])
def test_settings_that_cannot_be_read_are_said_not_judged(tmp_path, settings, error):
    project = folder_with(tmp_path, "")
    (project / ".vscode" / "settings.json").write_bytes(settings)
    facts, found = diagnose_in(project, "/usr/bin/python3")
    assert found == [] and facts.interpreter is None and facts.error.startswith(error)


def test_no_setting_or_the_default_says_nothing(tmp_path):
    for settings in ('{"python.defaultInterpreterPath": "python"}', '{"editor.tabSize": 4}'):
        facts, found = diagnose_in(folder_with(tmp_path / settings[3:9], settings), "/usr/bin/python3")
        assert facts.interpreter_setting is None and found == []


def test_comments_and_trailing_commas_go_strings_stay():
    text = '{"a": "// not a comment, }", /* c */ "b": [1, 2,], // end\n}'
    assert without_comments(text).replace(" ", "") == '{"a":"//notacomment,}","b":[1,2]\n}'


def test_an_unterminated_string_or_comment_is_one_token():
    """What keeps the scan linear: a match never fails (a string's closing quote is optional, an
    open comment runs to the end), so no character is scanned again from a later start."""
    from tfdoctor.gather.editor_settings import _TOKEN

    for text in ('"' + "\\a" * 50_000, "/*" + "x" * 100_000):
        assert [m.group(0) for m in _TOKEN.finditer(text)] == [text]
