"""`tfdoctor lint`: static checks of training scripts and notebooks, without importing TensorFlow.

`lint_paths(paths, env)` and `lint_source(text, filename, env)` return a `LintResult` (findings
with a stable code, line, column, message and fix; files that could not be linted; rules that
need an environment fact that is unknown). Rules live one per module in `rules/`.
"""

from __future__ import annotations

from tfdoctor.lint.results import FileProblem, Finding, LintEnv, LintResult, Rule
from tfdoctor.lint.runner import lint_parsed, lint_paths, lint_source


def rules() -> tuple[Rule, ...]:
    from tfdoctor.lint.rules import RULES
    return RULES


__all__ = ["FileProblem", "Finding", "LintEnv", "LintResult", "Rule", "lint_parsed", "lint_paths",
           "lint_source", "rules"]
