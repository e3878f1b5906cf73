"""The contract every rule keeps (as ruff's codes.rs and fixtures do): its code is declared once in
tfdoctor.codes, everything it names in `explains` is a declared code, `tfdoctor explain` knows it,
its module's test file asserts it, rule modules never import each other and the core never imports
a rule module. Adding a rule that breaks one of these fails here, naming the rule."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tfdoctor import codes
from tfdoctor.engine.run import ENGINE_CODES
from tfdoctor.engine.registry import builtin_rules, rules_of

REPO = Path(__file__).resolve().parents[2]
CHECKS = REPO / "checks"
CORE = REPO / "tfdoctor"
RULES = builtin_rules()
DECLARED = {value for name, value in vars(codes).items() if name.isupper()}


def test_every_code_constant_is_one_rule_and_every_rule_a_constant():
    by_code: dict[str, int] = {}
    for r in RULES:
        by_code[r.code] = by_code.get(r.code, 0) + 1
    assert {c for c, n in by_code.items() if n > 1} == set(), "a code declared by two rules"
    assert set(by_code) | set(ENGINE_CODES) == DECLARED


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_is_documented_and_explains_declared_codes(rule):
    assert rule.code.split(".")[0] == rule.area and re.fullmatch(r"[a-z]+\.[a-z0-9-]+", rule.code)
    doc = rule.doc
    assert doc.title and doc.why and doc.fix, "title, why and fix are the rule's documentation"
    assert set(rule.explains) <= DECLARED, set(rule.explains) - DECLARED
    assert rule.code not in rule.explains


def test_explain_knows_every_code():
    from tfdoctor.cli.info import all_codes

    assert DECLARED <= set(all_codes())


def _module_names() -> list[str]:
    package = importlib.import_module("tfdoctor.checks")
    return list(package.BUILTIN_MODULES)


@pytest.mark.parametrize("name", _module_names())
def test_each_rule_module_has_a_test_module_asserting_each_of_its_codes(name):
    module = importlib.import_module(f"tfdoctor.checks.{name}")
    area = name.split("_")[0]
    candidates = [REPO / "tests" / "rules" / f"test_{name}.py", REPO / "tests" / "rules" / f"test_{area}.py"]
    found = [p for p in candidates if p.exists()]
    assert found, f"no tests/rules/test_{name}.py (or test_{area}.py) for checks/{name}.py"
    text = "".join(p.read_text(encoding="utf-8") for p in found)
    untested = [r.code for r in rules_of(module) if f'"{r.code}"' not in text]
    assert not untested, f"rules of checks/{name}.py no test asserts: {untested}"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


@pytest.mark.parametrize("path", sorted(CHECKS.glob("*.py")), ids=lambda p: p.name)
def test_rule_modules_import_no_other_rule_module(path):
    assert not {m for m in _imports(path) if m.startswith("tfdoctor.checks")}


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_the_core_imports_no_rule_module(path):
    assert not {m for m in _imports(path) if m.startswith("tfdoctor.checks")}


@pytest.mark.parametrize("path", sorted(CHECKS.glob("*.py")), ids=lambda p: p.name)
def test_rule_modules_stay_readable(path):
    """Issue 10: modules stay under about 400 lines; a family that outgrows it splits by idea."""
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"checks/{path.name} has {lines} lines: split its family by idea"


def test_a_modules_needs_are_declared_once_and_reach_every_rule():
    """checks.MODULE_NEEDS lets a static check skip importing runtime, probe, log and model
    rules, and is the one place those needs are written: every rule of the module gets them,
    and no rule writes them again in its own `needs=`."""
    from tfdoctor.model import Rule

    package = importlib.import_module("tfdoctor.checks")
    for name, sections in package.MODULE_NEEDS.items():
        assert name in package.BUILTIN_MODULES
        module = importlib.import_module(f"tfdoctor.checks.{name}")
        assert all(set(sections) <= set(r.needs) for r in rules_of(module)), name
        declared = [v for v in vars(module).values() if isinstance(v, Rule)]
        again = [r.code for r in declared if set(r.needs) & set(sections)]
        assert not again, f"{name}: {again} repeat the needs checks.MODULE_NEEDS declares"


def test_a_static_check_loads_only_the_static_rules():
    from tfdoctor.engine.registry import builtin_rules

    static = {r.area for r in builtin_rules({"python"})}
    assert static == {"target", "arch", "install", "compat"}
    assert {r.code for r in builtin_rules({"python"})} < {r.code for r in RULES}


def test_a_need_of_alternatives_is_met_by_either_section():
    """model_speed needs "model|log": its speed verdicts read the model probe or a pasted text's
    timings, so it loads for either and is skipped with neither."""
    from snapshots import apple_silicon, snap

    from tfdoctor.engine.registry import Registry, builtin_rules
    from tfdoctor.engine.run import applicable
    from tfdoctor.logtext import keep

    def speed(sections):
        return {r.code for r in builtin_rules(sections) if r.code in ("model.gpu-slower", "model.gpu-faster")}

    assert speed({"python"}) == set() and speed({"python", "log"}) == speed({"python", "model"}) != set()
    s = snap(apple_silicon())
    registry = Registry(rules=[r for r in RULES if r.code == "model.gpu-slower"])
    assert not applicable(s, registry).rules
    s.log = keep.from_bytes(b"GPU: 10 s\n", "-")
    assert [r.code for r in applicable(s, registry).rules] == ["model.gpu-slower"]
