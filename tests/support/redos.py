"""Adversarial text for regular expressions, built from each pattern's own pieces, and the
patterns a package holds, found without a list to keep up to date.

A backtracking engine is slow on a text when some repetition can be tried from many positions,
or in many ways, over a long stretch of characters it accepts. So, for every repetition in a
pattern (`x*`, `x+`, `x{0,2000}`, `(...)*`), the text is what the pattern needs before it (a
sample of the preceding pieces) followed by a long run of what the repetition accepts, and the
same prefix repeated with short runs (many starting points). `patterns_of` finds every compiled
pattern a module keeps (in its globals, in tuples, dicts and dataclasses of them) and every
literal pattern its code passes to `re.*`, so a pass added later is covered without a test edit.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import pkgutil
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType

try:  # Python 3.11+
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

_FIRST = " `0a/>-.\t#:[]()=_'\"~@\\|,;*+?!{}<$%&^Z9zA\x1b\r\x07\x08é…"
ALPHABET = _FIRST + "".join(c for c in string.printable if c not in _FIRST and c != "\n")
"""Characters tried in each class, the likeliest troublemakers first."""
LONG = 16
"""A repetition allowing at least this many is worth a run."""
RUNS_PER_REPEAT = 3
STOP = "\x01"
"""Ends a run with a character hardly any pattern accepts, so that what follows the run fails."""


def modules(package: str) -> list[ModuleType]:
    """The package and every module under it, imported."""
    root = importlib.import_module(package)
    found = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), package + "."):
        found.append(importlib.import_module(info.name))
    return found


@dataclass(frozen=True)
class Found:
    """A pattern a module holds, and how the package calls it."""

    name: str
    pattern: re.Pattern[str]
    methods: frozenset[str]
    """`match`/`fullmatch` only: tried at the start of what it is given (a line, a field);
    anything else (`search`, `finditer`, `sub`, or no call seen): tried at every position."""

    def work(self, text: str) -> None:
        """What the package makes the pattern do with `text`, whole and line by line."""
        lines = text.split("\n")
        if self.methods and self.methods <= ANCHORED:
            for method in self.methods:
                call = getattr(self.pattern, method)
                call(text)
                for line in lines:
                    call(line)
            return
        for _ in self.pattern.finditer(text):
            pass
        for line in lines:
            for _ in self.pattern.finditer(line):
                pass


ANCHORED = frozenset({"match", "fullmatch"})
_METHODS = frozenset({"compile", "sub", "subn", "match", "search", "fullmatch", "findall", "finditer", "split"})


def patterns_in(package: str) -> list[Found]:
    """Every str pattern the package's modules keep or name literally, with how it is called."""
    found: dict[str, Found] = {}
    mods = modules(package)
    kept = {module.__name__: _kept(module) for module in mods}
    calls = _calls(mods, kept)
    for module in mods:
        for name, pattern in kept[module.__name__].items():
            label = f"{module.__name__}.{name}"
            found.setdefault(label, Found(label, pattern, frozenset(calls(module.__name__, name))))
        for line, method, literal in _literal_patterns(module):
            if any(f.pattern.pattern == literal for f in found.values()):
                continue
            try:
                pattern = re.compile(literal)
            except re.error:
                continue
            label = f"{module.__name__}:{line}"
            found.setdefault(label, Found(label, pattern, frozenset({method}) - {"compile"}))
    return list(found.values())


def _kept(module: ModuleType) -> dict[str, re.Pattern[str]]:
    """Compiled patterns in the module's globals, also inside tuples, dicts and dataclasses."""
    found: dict[str, re.Pattern[str]] = {}
    seen: set[int] = set()

    def walk(value: object, name: str, depth: int) -> None:
        if depth > 4 or id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, re.Pattern):
            if isinstance(value.pattern, str):
                found.setdefault(name, value)
        elif isinstance(value, (tuple, list, frozenset, set)):
            for i, item in enumerate(value):
                walk(item, f"{name}[{i}]", depth + 1)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{name}[{key!r}]", depth + 1)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            label = getattr(value, "variant", None) or getattr(value, "kind", None) or name
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name), f"{label}.{f.name}", depth + 1)

    for name, value in vars(module).items():
        if isinstance(value, (re.Pattern, tuple, list, frozenset, set, dict)) or (
                dataclasses.is_dataclass(value) and not isinstance(value, type)):
            walk(value, name, 0)
    return found


def _calls(mods: list[ModuleType], kept: dict[str, dict[str, re.Pattern[str]]]):
    """(module, NAME) -> the methods called on that pattern: in its own module by its name
    (`_INFO.fullmatch(...)`), through the variable of a loop over the module's collection of
    patterns (`for pattern in _PYTHON: pattern.match(...)`: each `_PYTHON[i]`), in modules that
    import the name, or through an attribute of that name (`signature.regex.finditer(...)`)."""
    own: dict[tuple[str, str], set[str]] = {}
    elsewhere: dict[str, set[str]] = {}
    for module in mods:
        tree = _tree(module)
        held = {name.split("[", 1)[0] for name in kept[module.__name__]}
        walked = {node.target.id: node.iter.id for node in ast.walk(tree)
                  if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                  and isinstance(node.iter, ast.Name) and node.iter.id in held}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _METHODS):
                continue
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in walked:
                own.setdefault((module.__name__, walked[owner.id]), set()).add(node.func.attr)
            elif isinstance(owner, ast.Name) and owner.id in kept[module.__name__]:
                own.setdefault((module.__name__, owner.id), set()).add(node.func.attr)
            elif isinstance(owner, (ast.Name, ast.Attribute)) and getattr(owner, "id", None) != "re":
                name = owner.id if isinstance(owner, ast.Name) else owner.attr
                elsewhere.setdefault(name, set()).add(node.func.attr)

    def methods(module: str, name: str) -> set[str]:
        last = name.rsplit(".", 1)[-1]
        walked = own.get((module, name.split("[", 1)[0]), set()) if "[" in name else set()
        return own.get((module, name), set()) | walked | elsewhere.get(last, set())

    return methods


def _tree(module: ModuleType) -> ast.AST:
    try:
        return ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return ast.Module(body=[], type_ignores=[])


def _literal_patterns(module: ModuleType) -> Iterator[tuple[int, str, str]]:
    """String literals given as the pattern of a `re.*` call in the module's source."""
    for node in ast.walk(_tree(module)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                and node.func.attr in _METHODS and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.lineno, node.func.attr, node.args[0].value


def adversarial(pattern: re.Pattern[str], size: int) -> str:
    """About `size` characters that make `pattern` work hardest: for each long repetition, its
    prefix and one long run it accepts (to the line's end, and to a character it refuses), and
    the prefix repeated with short runs. Each prefix is kept whole, so a small size may give a
    longer text (compare costs per character)."""
    units = _units(pattern)
    if not units:
        return ""
    parts = []
    for prefix, unit in units:
        share = max(size // (3 * len(units)), len(prefix) + 4 * len(unit) + 2)
        run = (prefix + unit * (share // len(unit) + 1))[:share]
        parts += [run, run[:-1] + STOP]  # the run to the line's end, or to a character it refuses
        short = prefix + unit * 8
        parts.append((short * (share // len(short) + 1))[:share])
    return "\n".join(parts)


def sample(pattern: re.Pattern[str], size: int) -> str:
    """About `size` characters of the pattern's first long repetition at its hardest: its prefix
    with a run it accepts, up to a character it refuses, and the prefix repeated with short runs.
    Every pattern's sample has its prefix whole at any size a few times the prefix, so texts of
    different sizes mixed from samples hold the same pieces, only longer."""
    units = _units(pattern)
    if not units:
        return ""
    prefix, unit = units[0]
    half = max(size // 2, len(prefix) + 2 * len(unit))
    run = (prefix + unit * (half // len(unit) + 1))[:half - 1] + STOP
    short = prefix + unit * 8
    return run + "\n" + (short * (half // len(short) + 1))[:half]


@functools.cache
def _units(pattern: re.Pattern[str]) -> tuple[tuple[str, str], ...]:
    ignore = bool(pattern.flags & re.IGNORECASE)
    try:
        tree = P.parse(pattern.pattern, pattern.flags)
    except re.error:
        return ()
    units: dict[tuple[str, str], None] = {}
    for prefix, unit in _walk(list(tree), "", ignore):
        if unit:
            units[(prefix, unit)] = None
            units[("", prefix + unit)] = None  # the prefix itself repeated: many starting points
    return tuple(units)


def _walk(items: list, before: str, ignore: bool) -> Iterator[tuple[str, str]]:
    samples = ["".join(_sample([item], ignore)) for item in items]
    for i, (op, av) in enumerate(items):
        here = before + "".join(samples[:i])
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) or op is getattr(C, "POSSESSIVE_REPEAT", None):
            low, high, sub = av
            sub = list(sub)
            if high is C.MAXREPEAT or high >= LONG:
                for chars in _run_units(sub, ignore):
                    yield here + chars * low, chars  # the least it must repeat, then the run
            yield from _walk(sub, here, ignore)
        elif op is C.SUBPATTERN:
            yield from _walk(list(av[-1]), here, ignore)
        elif op is C.BRANCH:
            for alternative in av[1]:
                yield from _walk(list(alternative), here, ignore)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            yield from _walk(list(av[1]), here, ignore)
        elif op is getattr(C, "ATOMIC_GROUP", None):
            yield from _walk(list(av), here, ignore)


def _run_units(sub: list, ignore: bool) -> list[str]:
    """What a repetition repeats: a few single characters it accepts, or a sample of its body."""
    if len(sub) == 1 and sub[0][0] in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
        accepted = [c for c in ALPHABET if _accepts(sub[0], c, ignore)]
        return accepted[:RUNS_PER_REPEAT]
    body = "".join(_sample(sub, ignore))
    return [body] if body else []


def _sample(items: list, ignore: bool) -> Iterator[str]:
    """One short text each item matches (lookarounds and anchors match nothing)."""
    for op, av in items:
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
            yield next((c for c in ALPHABET if _accepts((op, av), c, ignore)), "")
        elif op is C.SUBPATTERN:
            yield from _sample(list(av[-1]), ignore)
        elif op is C.BRANCH:
            yield "".join(_sample(list(av[1][0]), ignore))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT) or op is getattr(C, "POSSESSIVE_REPEAT", None):
            low, _, sub = av
            yield "".join(_sample(list(sub), ignore)) * max(low, 1)
        elif op is getattr(C, "ATOMIC_GROUP", None):
            yield from _sample(list(av), ignore)


_CATEGORIES = {
    C.CATEGORY_DIGIT: str.isdigit, C.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    C.CATEGORY_SPACE: str.isspace, C.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    C.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    C.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
    C.CATEGORY_LINEBREAK: lambda c: c == "\n", C.CATEGORY_NOT_LINEBREAK: lambda c: c != "\n",
}


def _accepts(item: tuple, char: str, ignore: bool) -> bool:
    op, av = item
    variants = {char, char.lower(), char.upper()} if ignore else {char}
    if op is C.ANY:
        return char != "\n"
    if op is C.LITERAL:
        return any(ord(v) == av for v in variants)
    if op is C.NOT_LITERAL:
        return all(ord(v) != av for v in variants)
    negate = bool(av) and av[0][0] is C.NEGATE
    hit = any(_in(entry, v) for entry in av for v in variants)
    return hit != negate


def _in(entry: tuple, char: str) -> bool:
    op, av = entry
    if op is C.LITERAL:
        return ord(char) == av
    if op is C.RANGE:
        return av[0] <= ord(char) <= av[1]
    if op is C.CATEGORY:
        test = _CATEGORIES.get(av)
        return bool(test and test(char))
    return False
