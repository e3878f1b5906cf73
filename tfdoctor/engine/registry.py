"""Find the rules: the built-ins are listed in code (checks.BUILTIN_MODULES); third parties
register in the `tfdoctor.checks` entry-point group, naming a Rule, a Check (tfdoctor 0.1's
interface, still supported) or a list of them.

A built-in that cannot be loaded is tfdoctor's own failure (BuiltinsMissing, exit 3), never a
silent gap in the diagnosis; a broken plugin becomes a `check.load-failed` finding.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Collection

from tfdoctor.model import Check, Rule

ENTRY_POINT_GROUP = "tfdoctor.checks"
BUILTIN_PACKAGE = "tfdoctor.checks"


class BuiltinsMissing(RuntimeError):
    """tfdoctor's own rule modules could not be loaded: the installation is broken."""


@dataclass(frozen=True)
class LoadFailure:
    """A registered entry point that could not be turned into rules or checks."""

    entry_point: str
    error: str


@dataclass
class Registry:
    rules: list[Rule] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    """Third-party checks written against the coarser 0.1 interface."""
    failures: list[LoadFailure] = field(default_factory=list)


def _checks_package() -> ModuleType:
    """The built-in rules package: installed as tfdoctor.checks; in a checkout it is the
    top-level checks/ folder beside tfdoctor/, loaded under the same name."""
    try:
        return importlib.import_module(BUILTIN_PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != BUILTIN_PACKAGE:
            raise
    folder = Path(__file__).resolve().parents[2] / "checks"
    spec = importlib.util.spec_from_file_location(
        BUILTIN_PACKAGE, folder / "__init__.py", submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None or not folder.is_dir():
        raise BuiltinsMissing(f"tfdoctor's built-in rules are missing (no {BUILTIN_PACKAGE}, no {folder})")
    module = importlib.util.module_from_spec(spec)
    sys.modules[BUILTIN_PACKAGE] = module
    spec.loader.exec_module(module)
    return module


def rules_of(module: ModuleType) -> list[Rule]:
    """The rules a module declares, in the order they are written; a built-in module's rules
    also need the sections checks.MODULE_NEEDS declares for all of them."""
    package, _, name = module.__name__.rpartition(".")
    shared = _checks_package().MODULE_NEEDS.get(name, ()) if package == BUILTIN_PACKAGE else ()
    return [replace(value, needs=(*shared, *value.needs)) if shared else value
            for value in vars(module).values() if isinstance(value, Rule)]


def builtin_rules(sections: Collection[str] | None = None) -> list[Rule]:
    """The built-in rules (those of the modules whose needs are all among `sections`; all when
    `sections` is None); BuiltinsMissing when a built-in module fails to load."""
    try:
        package = _checks_package()
        names = [n for n in package.BUILTIN_MODULES
                 if sections is None or all(set(need.split("|")) & set(sections)
                                            for need in package.MODULE_NEEDS.get(n, ()))]
        modules = [importlib.import_module(f"{BUILTIN_PACKAGE}.{name}") for name in names]
    except BuiltinsMissing:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure here means a broken install
        raise BuiltinsMissing(f"tfdoctor's built-in rules could not be loaded: {type(exc).__name__}: {exc}") from exc
    return [r for m in modules for r in rules_of(m)]


def may_have_plugins(path: Collection[str] | None = None) -> bool:
    """False only when no distribution on `path` (sys.path) can declare a `tfdoctor.checks`
    entry point: no *.dist-info or *.egg-info folder there has an entry_points.txt naming the
    group, and nothing else could hold one (a zip file on the path, a finder of its own on
    sys.meta_path). Then importlib.metadata, about a tenth of a static check's start-up to
    import and scan with, is not needed at all."""
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return True
    group = ENTRY_POINT_GROUP.encode()
    for entry in sys.path if path is None else path:
        folder = entry or "."
        try:
            if not os.path.isdir(folder):
                if os.path.exists(folder):
                    return True  # a zip file (or an .egg): importlib.metadata reads inside it
                continue
            names = os.listdir(folder)
        except (OSError, ValueError):
            continue
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(folder, name, "entry_points.txt"), "rb") as handle:
                        if group in handle.read():
                            return True
                except OSError:
                    continue
    return False


_PLUGIN_ENTRY_POINTS: list = []


def _entry_points() -> list:
    """The `tfdoctor.checks` entry points, read once per process."""
    if not _PLUGIN_ENTRY_POINTS:
        found = []
        if may_have_plugins():
            from importlib.metadata import entry_points

            found = list(entry_points(group=ENTRY_POINT_GROUP))
        _PLUGIN_ENTRY_POINTS.append(found)
    return _PLUGIN_ENTRY_POINTS[0]


def load_registry(sections: Collection[str] | None = None) -> Registry:
    """Built-in rules (for a snapshot with these `sections`; all by default), then the
    third-party rules and checks registered as entry points."""
    registry = Registry(rules=builtin_rules(sections))
    seen = {r.code for r in registry.rules}
    for ep in _entry_points():
        label = f"{ep.name} = {ep.value}"
        if ep.value.startswith(BUILTIN_PACKAGE + "."):
            continue  # an entry point left by tfdoctor 0.1's own metadata
        try:
            loaded = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the doctor
            registry.failures.append(LoadFailure(label, f"{type(exc).__name__}: {exc}"))
            continue
        items = loaded if isinstance(loaded, (list, tuple)) else [loaded]
        for item in items:
            if isinstance(item, Rule):
                if item.code not in seen:
                    seen.add(item.code)
                    registry.rules.append(item)
            elif isinstance(item, Check):
                if all(c.name != item.name for c in registry.checks):
                    registry.checks.append(item)
            else:
                registry.failures.append(LoadFailure(
                    label, f"names {type(item).__name__}, not a tfdoctor.model.Rule or Check "
                    "(plugins register rules declared with tfdoctor.model.rule, or Check objects)"))
    registry.checks.sort(key=lambda c: (c.order, c.name))
    return registry
