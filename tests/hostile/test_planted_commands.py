"""Printed commands are what runs: a value read from the diagnosed environment (its path, its
prefix) is one quoted shell word in every remediation, so pasting a command never runs code the
environment planted (`$(...)`, backticks, `;`). Each scenario is diagnosed with a hostile
interpreter path and every command of every finding is run by bash, with stub programs on PATH
(nothing real is installed or changed), in a scratch HOME."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot

SCENARIOS = sorted((REPO / "tests" / "scenarios").glob("*.json"))
STUBS = ("python", "python3", "python3.8", "python3.9", "python3.10", "python3.11", "python3.12",
         "python3.13", "tfdoctor", "arch", "file", "brew", "conda", "mamba", "pip", "curl", "uv", "docker")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("paste")
    stubs = root / "stubs"
    stubs.mkdir()
    for name in STUBS:
        stub = stubs / name
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    (root / "home").mkdir()
    return root


def _hostile(path: Path, marker: Path) -> Snapshot:
    data = json.loads(path.read_text(encoding="utf-8"))["snapshot"]
    planted = f"/tmp/my envs/$(/usr/bin/touch {marker});`/usr/bin/touch {marker}`"
    if data.get("python"):
        data["python"]["executable"] = f"{planted}/bin/python"
        data["python"]["prefix"] = planted
    data["target"]["python"] = f"{planted}/bin/python"
    return Snapshot.from_dict(data)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_pasting_any_remediation_runs_nothing_the_environment_planted(path, sandbox):
    marker = sandbox / f"planted-{path.stem}"
    commands = [str(c) for f in diagnose(_hostile(path, marker)).findings if f.remediation
                for c in f.remediation.commands]
    env = {"PATH": str(sandbox / "stubs"), "HOME": str(sandbox / "home")}
    for command in commands:
        subprocess.run(["/bin/bash", "-c", command], env=env, cwd=sandbox / "home",
                       capture_output=True, timeout=20, check=False)
        assert not marker.exists(), command
    assert not os.path.exists(marker)
