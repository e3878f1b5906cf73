"""The pipeline's layers are a contract, not a convention: `lint-imports` (import-linter, the
contracts in pyproject.toml) must keep every one of them. It runs here so that the README's test
command, and so CI, checks it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_lint_imports_keeps_every_contract():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(lint_imports)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "Contracts: 6 kept, 0 broken." in run.stdout


def test_the_layers_name_every_stage_of_tfdoctor():
    """A new folder of tfdoctor/ (or of tfdoctor/inside/, the programs run inside the diagnosed
    interpreter) must take its place in its layers contract."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    layered = {c["containers"][0]: c for c in config["contracts"] if c["type"] == "layers"}
    assert set(layered) == {"tfdoctor", "tfdoctor.inside"}
    for container, layers in layered.items():
        folder = REPO.joinpath(*container.split("."))
        named = {part.strip() for layer in layers["layers"] for part in layer.split("|")}
        stages = {p.name for p in folder.iterdir() if (p / "__init__.py").exists()}
        modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("__")}
        assert stages | modules == named, (container, (stages | modules) ^ named)
