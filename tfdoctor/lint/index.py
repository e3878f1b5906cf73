"""One pass over a file's tree that every rule shares: its calls (with their resolved names and
the scope they run in), assignments, attribute references, string constants and blocks.

Walking a 2,000-line script once instead of once per rule is what keeps `lint` under half a
second; rules read these lists instead of calling `ast.walk` themselves.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from tfdoctor.lint.names import Names

Scope = ast.AST
"""The module or the function whose body a node runs in."""


def done(node: ast.AST) -> tuple[int, int]:
    """Where a node's evaluation completes (a call's arguments run before the call itself)."""
    return (getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0)


@dataclass
class FileIndex:
    names: Names
    calls: list[ast.Call] = field(default_factory=list)
    call_names: dict[int, str] = field(default_factory=dict)
    call_scope: dict[int, Scope] = field(default_factory=dict)
    assigns: list[ast.Assign] = field(default_factory=list)
    attributes: list[ast.Attribute] = field(default_factory=list)
    strings: list[ast.Constant] = field(default_factory=list)
    import_froms: list[ast.ImportFrom] = field(default_factory=list)
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=list)
    blocks: list[list[ast.stmt]] = field(default_factory=list)

    def name(self, call: ast.Call) -> str:
        """The canonical dotted name of what a call calls ("" when it is not a dotted name)."""
        return self.call_names.get(id(call), "")

    def calls_by_scope(self) -> dict[int, list[ast.Call]]:
        """Calls per scope, in the order they complete."""
        groups: dict[int, list[ast.Call]] = {}
        for call in self.calls:
            groups.setdefault(id(self.call_scope[id(call)]), []).append(call)
        for calls in groups.values():
            calls.sort(key=done)
        return groups


def build(tree: ast.Module, names: Names) -> FileIndex:
    index = FileIndex(names)
    stack: list[tuple[ast.AST, Scope]] = [(tree, tree)]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.Call):
            index.calls.append(node)
            index.call_names[id(node)] = names.dotted(node.func) or ""
            index.call_scope[id(node)] = scope
        elif isinstance(node, ast.Assign):
            index.assigns.append(node)
        elif isinstance(node, ast.Attribute):
            index.attributes.append(node)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            index.strings.append(node)
        elif isinstance(node, ast.ImportFrom):
            index.import_froms.append(node)
        inner = scope
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            index.functions.append(node)
            inner = node
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                index.blocks.append(block)
        for child in ast.iter_child_nodes(node):
            # decorators and default values run in the enclosing scope, the body in the function's
            stack.append((child, inner if isinstance(child, ast.stmt) else scope))
    index.calls.sort(key=lambda c: (c.lineno, c.col_offset))
    return index
