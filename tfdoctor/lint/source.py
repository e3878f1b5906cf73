"""Turn a script or a notebook into one parsed module, or say clearly why it cannot be.

A notebook's code cells are parsed one by one and joined in order (IPython magics and shell
escapes blanked), each line remembering its cell: a cell with a syntax error is reported and left
out, the others are still linted. Nothing here raises on bad input.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import stat
import tokenize
import warnings
from dataclasses import dataclass, field

from tfdoctor.lint.results import FileProblem

MAX_BYTES = 5 * 1024 * 1024
"""A training script or notebook is far smaller; beyond this it is not what we think it is."""


@dataclass
class Parsed:
    """A module ready for the rules, where each of its lines came from, and what went wrong."""

    path: str
    tree: ast.Module | None
    cells: list[tuple[int, int]] = field(default_factory=list)
    """For notebooks: (cell number, first line of the cell in the joined module)."""
    problems: list[FileProblem] = field(default_factory=list)

    def locate(self, line: int) -> tuple[int | None, int | None]:
        if not self.cells:
            return None, None
        for number, first in reversed(self.cells):
            if line >= first:
                return number, line - first + 1
        return None, None


def parse_text(text: str, path: str) -> Parsed:
    """Parse the text of a .py file (or of anything given as source)."""
    tree, problem = _parse(text, path)
    return Parsed(path, tree, problems=[problem] if problem else [])


def parse_path(path: str) -> Parsed:
    """Read and parse a .py or .ipynb file; problems instead of exceptions. Only a regular file
    is read: a FIFO, a socket or a device named *.py (or a link to one) would block the read
    forever or never end (issue 22), so it is a problem, found without opening it."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            return _fail(path, "unreadable", "is a directory")
        if not stat.S_ISREG(info.st_mode):
            return _fail(path, "not-a-file", f"{_kind(info.st_mode)}, not a regular file; not linted")
        if info.st_size > MAX_BYTES:
            return _fail(path, "too-large", f"{info.st_size} bytes: larger than a script ({MAX_BYTES} "
                                            "bytes at most); not linted")
        # O_NONBLOCK: should the file have been swapped for a FIFO since the stat, the open does
        # not wait for a writer; the fstat then sees what was really opened.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return _fail(path, "not-a-file", "not a regular file; not linted")
            data = handle.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return _fail(path, "too-large", f"larger than a script ({MAX_BYTES} bytes at most); not linted")
    except IsADirectoryError:
        return _fail(path, "unreadable", "is a directory")
    except FileNotFoundError:
        return _fail(path, "unreadable", "no such file")
    except PermissionError:
        return _fail(path, "unreadable", "permission denied")
    except OSError as exc:
        return _fail(path, "unreadable", f"could not be read ({exc.strerror or exc})")
    if b"\x00" in data[:8192]:
        return _fail(path, "binary", "a binary file, not Python source")
    if path.endswith(".ipynb"):
        return parse_notebook(data, path)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        return _fail(path, "undecodable", f"not text in its declared encoding ({exc})")
    return parse_text(text, path)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def parse_notebook(data: bytes, path: str) -> Parsed:
    """A notebook's code cells as one module; whatever the JSON holds (not a notebook, cells
    that are not a list, sources of the wrong type, nesting too deep), a problem, never a raise."""
    try:
        return _parse_notebook(data, path)
    except (RecursionError, MemoryError):
        return _fail(path, "corrupt-notebook", "not a notebook: nested too deeply or too large to read")
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        return _fail(path, "corrupt-notebook", f"not a notebook as nbformat describes it ({type(exc).__name__})")


def _parse_notebook(data: bytes, path: str) -> Parsed:
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        return _fail(path, "corrupt-notebook", f"not a notebook: its JSON does not parse ({exc})")
    except RecursionError:
        return _fail(path, "corrupt-notebook", "not a notebook: its JSON is nested too deeply")
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if cells is None and isinstance(notebook, dict):
        worksheets = notebook.get("worksheets") or [{}]  # nbformat 3
        first = worksheets[0] if isinstance(worksheets, list) and worksheets else None
        cells = first.get("cells") if isinstance(first, dict) else None
    if not isinstance(cells, list):
        return _fail(path, "corrupt-notebook", "not a notebook: no list of cells")
    body: list[ast.stmt] = []
    parsed = Parsed(path, None)
    line = 1
    number = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            text = "".join(source)
        else:
            text = source
        if not isinstance(text, str):
            parsed.problems.append(FileProblem(path, "corrupt-notebook",
                                               f"code cell {number} has no text source", cell=number))
            continue
        python = _blank_magics(text)
        if python is None:
            line += text.count("\n") + 1
            continue
        tree, problem = _parse(python, path)
        if problem is not None:
            parsed.problems.append(FileProblem(path, problem.kind, f"code cell {number}: "
                                               f"{problem.message}", problem.line, number))
            continue
        assert tree is not None
        ast.increment_lineno(tree, line - 1)
        parsed.cells.append((number, line))
        body.extend(tree.body)
        line += python.count("\n") + 1
    parsed.tree = ast.Module(body=body, type_ignores=[])
    return parsed


_HELP = re.compile(r"^\s*(?:\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*$")
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "memit"}


def _blank_magics(text: str) -> str | None:
    """IPython-only lines (%magic, !shell, name?) become `pass` so the cell still parses; None
    for a cell that is not Python at all (%%bash, %%html, %%writefile...)."""
    first = text.lstrip().split("\n", 1)[0]
    if first.startswith("%%"):
        magic = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if magic not in _PYTHON_CELL_MAGICS:
            return None
    out = []
    for raw in text.split("\n"):
        stripped = raw.lstrip()
        if stripped.startswith(("%", "!")) or _HELP.match(raw):
            out.append(raw[:len(raw) - len(stripped)] + "pass")
        else:
            out.append(raw)
    return "\n".join(out)


def _parse(text: str, path: str) -> tuple[ast.Module | None, FileProblem | None]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for invalid escapes is not ours to report
            return ast.parse(text, filename=path), None
    except SyntaxError as exc:
        where = f"line {exc.lineno}" if exc.lineno else "somewhere"
        return None, FileProblem(path, "syntax-error", f"syntax error at {where}: {exc.msg}",
                                 exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:
        return None, FileProblem(path, "syntax-error", f"cannot be parsed: {exc}")


def _fail(path: str, kind: str, message: str) -> Parsed:
    return Parsed(path, None, problems=[FileProblem(path, kind, message)])
