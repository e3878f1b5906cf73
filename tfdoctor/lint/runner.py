"""Run the rules over sources and files: one result, whatever the files are."""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from tfdoctor.lint.results import Context, FileProblem, LintEnv, LintResult, Rule
from tfdoctor.lint.names import Names
from tfdoctor.lint.source import Parsed, parse_path, parse_text

SUFFIXES = (".py", ".ipynb")
_SKIP_DIRS = {".git", "__pycache__", ".ipynb_checkpoints", "site-packages", ".venv", "venv",
              "node_modules", ".tox", ".mypy_cache"}


def _rules(rules: Sequence[Rule] | None) -> Sequence[Rule]:
    if rules is None:
        from tfdoctor.lint.rules import RULES
        return RULES
    return rules


def lint_parsed(parsed: Parsed, env: LintEnv, rules: Sequence[Rule] | None = None) -> LintResult:
    result = LintResult(problems=list(parsed.problems), files=1)
    if parsed.tree is None:
        return result
    names = Names(parsed.tree)
    ctx = Context(parsed.tree, parsed.path, env, names, parsed.locate)
    for rule in _rules(rules):
        reason = rule.needs(env)
        if reason is not None:
            result.skipped_rules[rule.code] = reason
            continue
        try:
            result.findings.extend(rule.check(ctx))
        except (RecursionError, MemoryError):
            result.problems.append(FileProblem(parsed.path, "too-complex",
                                               f"{rule.code} gave up: the file is too deeply nested"))
        except Exception as exc:  # noqa: BLE001 - one rule's bug must not stop the others
            result.problems.append(FileProblem(parsed.path, "rule-crashed",
                                               f"{rule.code} failed on this file: {type(exc).__name__}: {exc}"))
    result.findings.sort(key=lambda f: (f.path, f.line, f.col, f.code))
    return result


def lint_source(text: str, filename: str = "<source>", env: LintEnv | None = None,
                rules: Sequence[Rule] | None = None) -> LintResult:
    """Lint Python source given as text."""
    return lint_parsed(parse_text(text, filename), env or LintEnv(), rules)


def lint_paths(paths: Iterable[str | os.PathLike[str]], env: LintEnv | None = None,
               rules: Sequence[Rule] | None = None) -> LintResult:
    """Lint files and directories (.py and .ipynb inside them); never raises on bad input."""
    result = LintResult()
    for path in paths:
        text = os.fspath(path)
        if os.path.isdir(text):
            found = sorted(_walk(text))
            if not found:
                result.problems.append(FileProblem(text, "unsupported", "no .py or .ipynb file in this directory"))
            for file in found:
                result.extend(lint_parsed(parse_path(file), env or LintEnv(), rules))
        elif os.path.exists(text) and not text.endswith(SUFFIXES):
            result.problems.append(FileProblem(text, "unsupported", "not a .py or .ipynb file; not linted"))
        else:
            result.extend(lint_parsed(parse_path(text), env or LintEnv(), rules))
    return result


def _walk(root: str) -> Iterable[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")]
        for name in files:
            if name.endswith(SUFFIXES):
                yield os.path.join(folder, name)
