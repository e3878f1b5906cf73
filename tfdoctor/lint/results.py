"""The data of `tfdoctor lint`: the environment a script will run in, findings, and file problems.

Rules are pure functions of a parsed script and a `LintEnv`; the environment is an explicit input
(never read from the machine here) so the same script can be linted for another Mac, a snapshot,
or a test.
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

from tfdoctor.facts.versions import parse_version

SEVERITIES = ("info", "warning", "error")


@dataclass(frozen=True)
class LintEnv:
    """What the script will run on. None means unknown: rules that need it are skipped."""

    tensorflow: str | None = None
    """Installed TensorFlow version (tensorflow, tensorflow-macos...)."""
    keras_major: int | None = None
    """Major version of the Keras that `tf.keras` resolves to (2 or 3)."""
    metal_plugin: str | None = None
    """Installed tensorflow-metal version; None when there is no Metal plugin."""

    def tf_minor(self) -> tuple[int, int] | None:
        version = parse_version(self.tensorflow)
        return (version.major, version.minor) if version else None


@dataclass(frozen=True)
class Finding:
    """One thing a careful reviewer would point out, where, and how to fix it."""

    code: str
    severity: str
    path: str
    line: int
    col: int
    message: str
    fix: str
    cell: int | None = None
    """For notebooks: the code cell (1-based, counting code cells only) and the line in it."""
    cell_line: int | None = None
    references: tuple[str, ...] = ()

    def location(self) -> str:
        if self.cell is not None:
            return f"{self.path}:cell {self.cell}:{self.cell_line}:{self.col}"
        return f"{self.path}:{self.line}:{self.col}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["references"] = list(self.references)
        return data


@dataclass(frozen=True)
class FileProblem:
    """A file that could not be linted (or only in part): the reason, never an exception."""

    path: str
    kind: str
    """unreadable, binary, too-large, undecodable, syntax-error, corrupt-notebook, unsupported."""
    message: str
    line: int | None = None
    cell: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LintResult:
    """Findings of every file, the files that could not be read, and the rules not run."""

    findings: list[Finding] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    files: int = 0
    skipped_rules: dict[str, str] = field(default_factory=dict)
    """Rule code -> why it did not run (the environment fact it needs is unknown)."""

    def extend(self, other: "LintResult") -> None:
        self.findings.extend(other.findings)
        self.problems.extend(other.problems)
        self.files += other.files
        self.skipped_rules.update(other.skipped_rules)

    def exit_code(self) -> int:
        """0 nothing to say, 1 findings of warning or above or files that could not be linted."""
        serious = any(f.severity in ("warning", "error") for f in self.findings)
        return 1 if serious or self.problems else 0

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "findings": [f.to_dict() for f in self.findings],
                "problems": [p.to_dict() for p in self.problems],
                "skipped_rules": dict(self.skipped_rules)}


@dataclass(frozen=True)
class Rule:
    """A lint rule: its stable code, what it needs from the environment, and its check.

    The rule's documentation (what it does, why it is bad, example, references) is the docstring
    of the module that defines it, as in ruff."""

    code: str
    severity: str
    title: str
    check: Callable[["Context"], Iterable[Finding]]
    needs: Callable[[LintEnv], str | None] = lambda env: None
    """Why the rule cannot run in `env` (a fact it needs is unknown), or None when it can."""
    doc: str = ""


class Context:
    """One parsed file handed to every rule: its tree, names, environment and location map."""

    def __init__(self, tree: ast.Module, path: str, env: LintEnv, names: Any,
                 locate: Callable[[int], tuple[int | None, int | None]]) -> None:
        self.tree = tree
        self.path = path
        self.env = env
        self.names = names
        self._locate = locate
        self._index: Any = None
        self.cache: dict[str, Any] = {}
        """Results several rules share (keras objects, late device calls), computed once."""

    @property
    def index(self) -> Any:
        """The shared one-pass index of this file (tfdoctor.lint.index.FileIndex)."""
        if self._index is None:
            from tfdoctor.lint.index import build
            self._index = build(self.tree, self.names)
        return self._index

    def where(self, line: int) -> str:
        """A line of this file as a person finds it: "line 12" or "cell 3, line 2"."""
        cell, cell_line = self._locate(line)
        return f"cell {cell}, line {cell_line}" if cell is not None else f"line {line}"

    def finding(self, rule: Rule, node: ast.AST, message: str, fix: str,
                references: tuple[str, ...] = (), severity: str | None = None) -> Finding:
        line = getattr(node, "lineno", 1)
        cell, cell_line = self._locate(line)
        return Finding(rule.code, severity or rule.severity, self.path, line,
                       getattr(node, "col_offset", 0) + 1, message, fix, cell, cell_line, references)
