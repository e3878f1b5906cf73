"""What a name in a script refers to: `tf.keras.layers.Dense`, `layers.Dense` after
`from tensorflow.keras import layers`, and `Dense` after `from keras.layers import Dense` are all
`keras.layers.Dense` here, so a rule is written once for every way users import Keras."""

from __future__ import annotations

import ast

_KERAS_PREFIXES = ("tensorflow.keras.", "tensorflow.python.keras.", "tf_keras.", "keras.src.",
                   "tensorflow.compat.v2.keras.")
_KERAS_SUBPACKAGES = ("keras.layers.experimental.preprocessing.", "keras.layers.preprocessing.",
                      "keras.layers.core.", "keras.layers.convolutional.", "keras.layers.pooling.",
                      "keras.layers.regularization.", "keras.layers.activation.")


def canonical(name: str) -> str:
    """One spelling for every Keras import path; TensorFlow's own names start with tensorflow."""
    for prefix in _KERAS_PREFIXES:
        if name.startswith(prefix):
            name = "keras." + name[len(prefix):]
            break
    if name in ("tensorflow.keras", "tf_keras"):
        return "keras"
    for sub in _KERAS_SUBPACKAGES:
        if name.startswith(sub):
            return "keras.layers." + name[len(sub):]
    if name.startswith("keras.models.") and name.rsplit(".", 1)[-1] in ("Sequential", "Model"):
        return "keras." + name.rsplit(".", 1)[-1]
    if name.startswith("keras.optimizers.experimental."):
        return "keras.optimizers." + name[len("keras.optimizers.experimental."):]
    return name


class Names:
    """Import aliases of one module and the dotted name of any expression."""

    def __init__(self, tree: ast.AST) -> None:
        self.aliases: dict[str, str] = {}
        self._dotted: dict[int, str | None] = {}
        for node in _statements(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def dotted(self, node: ast.AST) -> str | None:
        """`a.b.c` with `a` resolved through the imports, canonical; None for anything else."""
        key = id(node)
        if key not in self._dotted:
            self._dotted[key] = self._resolve(node)
        return self._dotted[key]

    def _resolve(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id, node.id)
        return canonical(".".join([base] + parts[::-1]))

    def imports(self, module: str) -> bool:
        return any(v == module or v.startswith(module + ".") for v in self.aliases.values())


def _statements(tree: ast.AST) -> list[ast.AST]:
    """Every statement, nested ones included (imports are statements: no need to visit
    expressions)."""
    out: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(block)
    return out


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def literal(node: ast.AST | None) -> object:
    """The value of a literal expression, or a sentinel `NOT_LITERAL`."""
    if node is None:
        return NOT_LITERAL
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_LITERAL


NOT_LITERAL = object()


def assigned_names(node: ast.AST) -> list[str]:
    """Simple names bound by an assignment statement (`a = ...`, `a, b = ...`)."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    names: list[str] = []
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                names.append(sub.id)
    return names


def statements_in_order(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements of a block and of its nested blocks (if/for/while/try/with), in source order,
    not descending into functions or classes (their bodies run later, if at all)."""
    out: list[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            out.extend(statements_in_order(getattr(stmt, name, []) or []))
        for handler in getattr(stmt, "handlers", []) or []:
            out.extend(statements_in_order(handler.body))
    return out
