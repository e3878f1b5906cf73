"""Snapshots of real situations, built from documented facts (each builder names its source).

These stand in for macOS, which no test machine here has. Values are what the collector
(tfdoctor/inside/collector/) records on such a machine, per the sources cited; they are
never copied from tfdoctor's own output.
"""

from __future__ import annotations

import copy
from typing import Any

from tfdoctor.facts.snapshot import Snapshot

FRAMEWORK_PY = "/Library/Frameworks/Python.framework/Versions/3.11/Resources/Python.app/Contents/MacOS/Python"


def _pkg(name: str, version: str, tags: list[str], requires: list[str] = ()) -> dict[str, Any]:
    return {"name": name, "version": version, "location": f"/site/{name}-{version}.dist-info",
            "wheel_tags": tags, "requires_dist": list(requires)}


def tf_219_metal_120(arch: str = "arm64") -> list[dict[str, Any]]:
    """tensorflow 2.19.1 + tensorflow-metal 1.2.0 as pip installs them on macOS arm64 (wheel tags
    from tests/data/reference/tf_wheels_2026-11.json.gz: tensorflow 2.19.1 cp311 macosx_12_0_arm64,
    tensorflow-metal 1.2.0 cp311 macosx_12_0_arm64)."""
    return [
        _pkg("tensorflow", "2.19.1", [f"cp311-cp311-macosx_12_0_{arch}"],
             ["numpy<2.2.0,>=1.26.0", "keras>=3.5.0", "protobuf!=4.21.0,<6.0.0dev,>=3.20.3"]),
        _pkg("tensorflow-metal", "1.2.0", [f"cp311-cp311-macosx_12_0_{arch}"], ["wheel~=0.35", "six>=1.15.0"]),
        _pkg("numpy", "2.1.3", [f"cp311-cp311-macosx_14_0_{arch}"]),
        _pkg("keras", "3.10.0", ["py3-none-any"]),
    ]


def metal_plugin(arch: str = "arm64", fmt: str = "mach-o") -> dict[str, Any]:
    """tensorflow-metal ships site-packages/tensorflow-plugins/libmetal_plugin.dylib (arm64 Mach-O
    in the macosx_*_arm64 wheel; see tests/data/binheads/SOURCES.md)."""
    return {"dir": "/site/tensorflow-plugins", "name": "libmetal_plugin.dylib", "format": fmt,
            "archs": [arch], "size": 3_000_000, "error": None}


def apple_silicon(**overrides: Any) -> dict[str, Any]:
    """A healthy M2 Mac, macOS 14.5, python.org universal2 Python 3.11 running natively, in a venv,
    with tensorflow 2.19.1 + tensorflow-metal 1.2.0 (the pair tfdoctor recommends)."""
    data: dict[str, Any] = {
        "schema_version": 1,
        "target": {"python": "/Users/ada/venvs/tf/bin/python", "ok": True},
        "host": {"system": "Darwin", "release": "23.5.0", "macos_version": "14.5",
                 "macos_version_reported": "14.5", "hw_arm64": True, "chip": "Apple M2",
                 "cpu_brand": "Apple M2", "cpu_flags": [], "memory_bytes": 16 * 2**30},
        "python": {"version": "3.11.9", "implementation": "cpython",
                   "executable": "/Users/ada/venvs/tf/bin/python", "prefix": "/Users/ada/venvs/tf",
                   "base_prefix": "/Library/Frameworks/Python.framework/Versions/3.11",
                   "process_arch": "arm64", "translated": False,
                   "binary": {"path": FRAMEWORK_PY, "format": "mach-o-fat", "archs": ["x86_64", "arm64"]},
                   "framework": "Python", "platform_tag": "macosx-10.9-universal2",
                   "site_packages": ["/Users/ada/venvs/tf/lib/python3.11/site-packages"]},
        "packages": tf_219_metal_120(),
        "plugins": [metal_plugin()],
        "env": {},
    }
    return merge(data, overrides)


def linux_cpu(**overrides: Any) -> dict[str, Any]:
    """A Linux x86_64 machine with tensorflow-cpu, like the test machines here."""
    data = {
        "schema_version": 1,
        "target": {"python": "/usr/bin/python3", "ok": True},
        "host": {"system": "Linux", "release": "6.1.0", "cpu_brand": "AMD EPYC",
                 "cpu_flags": ["avx", "avx2", "fma", "sse4_2"], "memory_bytes": 24 * 2**30},
        "python": {"version": "3.11.7", "implementation": "cpython", "executable": "/usr/bin/python3",
                   "prefix": "/usr", "base_prefix": "/usr", "process_arch": "x86_64",
                   "binary": {"path": "/usr/bin/python3.11", "format": "elf", "archs": ["x86_64"]},
                   "platform_tag": "linux-x86_64", "site_packages": ["/usr/lib/python3/dist-packages"]},
        "packages": [_pkg("tensorflow-cpu", "2.19.1", ["cp311-cp311-manylinux_2_17_x86_64"]),
                     _pkg("numpy", "2.1.3", ["cp311-cp311-manylinux_2_17_x86_64"])],
        "plugins": [],
        "env": {},
    }
    return merge(data, overrides)


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge `overrides` into a copy of `base` (dicts merge, anything else replaces)."""
    out = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def snap(data: dict[str, Any]) -> Snapshot:
    return Snapshot.from_dict(data)


class RuleModules:
    """The rules of some built-in rule modules, run as the engine runs them (derived facts built
    once, summary rules only when nothing else in their module found a problem)."""

    def __init__(self, *names: str) -> None:
        import importlib

        from tfdoctor.engine.registry import rules_of

        self.modules = [importlib.import_module(f"tfdoctor.checks.{n}") for n in names]
        self.rules = [r for m in self.modules for r in rules_of(m)]
        self.codes = {r.code: r.doc for r in self.rules}

    def run(self, snapshot: Snapshot) -> list:
        from tfdoctor.engine.run import run_rules
        from tfdoctor.engine.registry import Registry

        return run_rules(snapshot, Registry(rules=self.rules))

    def report(self, snapshot: Snapshot):
        from tfdoctor.engine.diagnose import diagnose
        from tfdoctor.engine.registry import Registry

        return diagnose(snapshot, Registry(rules=self.rules))
