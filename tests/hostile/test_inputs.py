"""Issue 22, class 6: odd input ends in a clear answer and the right exit code, never a hang, exit
3 or a traceback: FIFOs and devices named *.py for `lint`, malformed notebooks, `probe --model ""`,
`--size` that cannot fit the budget, `probe --model` and `--timeout`, and `ops` where the
installed tensorflow-metal is newer than tfdoctor's kernel table."""

from __future__ import annotations

import json
import os
import sys
import venv
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor

pytestmark = pytest.mark.slow  # tfdoctor subprocesses on FIFOs, devices and odd files

METAL_215 = ("--tensorflow", "2.15.0", "--keras", "2", "--plugin", "1.1.0")


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("where", ["alone", "in-folder"])
def test_lint_skips_a_fifo_named_py(tmp_path, where):
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "ok.py").write_text("import tensorflow as tf\n")
    pipe = fifo(folder / "train.py")
    target = str(pipe) if where == "alone" else str(folder)
    for extra in ([], ["--json"]):
        run = run_tfdoctor("lint", target, *METAL_215, *extra, timeout=30)  # a hang: TimeoutExpired
        assert run.code == 1, run.stderr
        assert_no_traceback(run)
        if extra:
            problems = json.loads(run.stdout)["problems"]
            assert [p["kind"] for p in problems] == ["not-a-file"]
            assert "FIFO" in problems[0]["message"]
        else:
            assert "not linted" in run.stdout and "FIFO" in run.stdout


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_lint_skips_a_link_to_a_device(tmp_path):
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    run = run_tfdoctor("lint", str(tmp_path / "zero.py"), *METAL_215, "--json", timeout=30)
    assert run.code == 1
    assert json.loads(run.stdout)["problems"][0]["kind"] == "not-a-file"


NOTEBOOKS = {
    "invalid-json": "{not json",
    "cells-not-a-list": json.dumps({"cells": "print(1)", "nbformat": 4}),
    "cells-a-dict": json.dumps({"cells": {"0": {}}, "nbformat": 4}),
    "source-int": json.dumps({"cells": [{"cell_type": "code", "source": 42}]}),
    "source-list-of-ints": json.dumps({"cells": [{"cell_type": "code", "source": [1, 2]}]}),
    "source-list-with-null": json.dumps({"cells": [{"cell_type": "code", "source": ["x = 1\n", None]}]}),
    "worksheets-int": json.dumps({"worksheets": 5}),
    "worksheets-str": json.dumps({"worksheets": "abc"}),
    "worksheets-empty-list": json.dumps({"worksheets": []}),
    "top-level-list": "[1, 2, 3]",
    "deeply-nested": "[" * 100000 + "]" * 100000,
    "deep-in-cells": json.dumps({"cells": []})[:-2] + "[" * 50000 + "]" * 50000 + "]}",
}


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_malformed_notebooks_are_a_clear_problem(tmp_path, name):
    path = tmp_path / f"{name}.ipynb"
    path.write_text(NOTEBOOKS[name])
    run = run_tfdoctor("lint", str(path), *METAL_215, "--json")
    assert_no_traceback(run)
    assert run.code == 1, run.stderr
    problems = json.loads(run.stdout)["problems"]
    assert problems and all(p["kind"] == "corrupt-notebook" for p in problems), problems


def test_huge_notebook_is_a_clear_problem(tmp_path):
    path = tmp_path / "huge.ipynb"
    with open(path, "w") as handle:
        handle.write('{"cells": [')
        handle.write(",".join(['{"cell_type": "code", "source": "x = 1\\n"}'] * 200000))
        handle.write("]}")
    run = run_tfdoctor("lint", str(path), *METAL_215, "--json")
    assert_no_traceback(run)
    assert run.code == 1
    assert json.loads(run.stdout)["problems"][0]["kind"] == "too-large"


@pytest.mark.parametrize("flags", [[], ["--json"]])
@pytest.mark.parametrize("model", ["", "   "])
def test_probe_with_an_empty_model_is_a_usage_error(flags, model):
    run = run_tfdoctor("probe", "--model", model, *flags, timeout=60)
    assert run.code == 2, (run.stdout, run.stderr)
    assert run.stdout == ""
    assert "--model needs a model" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert_no_traceback(run)


def test_child_config_refuses_an_empty_model():
    from tfdoctor.gather import user_model

    with pytest.raises(ValueError, match="--model needs a model"):
        user_model.child_config(model="", workload=None, batch=8, budget_s=60.0)


@pytest.mark.parametrize("args", [
    ["--workload", "matmul", "--size", "8192", "--budget", "5"],
    ["--workload", "conv", "--size", "512", "--budget", "1"],
    ["--workload", "train", "--size", "2048", "--budget", "1"],
])
def test_sizes_that_cannot_fit_the_budget_are_refused_up_front(args):
    run = run_tfdoctor("probe", *args, "--json", timeout=60)
    assert run.code == 2, (run.stdout, run.stderr)
    assert "cannot fit the budget" in run.stderr and run.stdout == ""


def test_sizes_that_fit_are_accepted():
    from tfdoctor.cli.probe import _size_problem

    assert _size_problem({"preset": "probe", "workloads": "all", "size": 64}) is None
    assert _size_problem({"preset": "probe", "workloads": "matmul", "size": 4096}) is None
    assert _size_problem({"preset": "probe", "workloads": "matmul", "size": 8192, "budget_s": 60}) is None


def test_probe_model_honours_timeout(tmp_path, monkeypatch):
    """--timeout reaches the model child's allowance for importing TensorFlow and loading the
    model (before: a fixed 60 s allowance); the budget comes after it (issue 28,
    tfdoctor.gather.model_deadline), no longer added here twice."""
    from typer.testing import CliRunner

    from tfdoctor.cli.main import load_app
    from tfdoctor.facts.user_model import ModelFacts
    from tfdoctor.gather import user_model

    seen = {}

    def fake_probe_model(python, config, *, plugin=None, env=None, timeout=None, progress=None):
        seen["timeout"] = timeout
        return ModelFacts(outcome="timeout")

    monkeypatch.setattr(user_model, "probe_model", fake_probe_model)
    model = tmp_path / "m.keras"
    model.write_bytes(b"PK")
    result = CliRunner().invoke(load_app(), ["probe", "--model", str(model), "--timeout", "5",
                                             "--budget", "2", "--json"])
    assert result.exit_code in (0, 1), result.output
    assert seen["timeout"] == 5


def newer_metal_venv(tmp_path: Path) -> Path:
    """A venv where the installed tensorflow-metal is 9.9.9, newer than any bundled table."""
    root = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    import subprocess

    site = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    info = Path(site) / "tensorflow_metal-9.9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow-metal\nVersion: 9.9.9\n")
    (info / "RECORD").write_text("")
    return root


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")
def test_ops_with_a_newer_installed_plugin_gives_json(tmp_path):
    root = newer_metal_venv(tmp_path)
    run = run_tfdoctor("ops", "--python", str(root), "--json", "MatMul")
    assert_no_traceback(run)
    assert run.code in (0, 1), run.stderr
    doc = json.loads(run.stdout)
    assert doc["covered"] is False and doc["installed"] == "9.9.9"
    assert "not covered" in doc["chosen"]
    text = run_tfdoctor("ops", "--python", str(root), "MatMul")
    assert text.code in (0, 1)
    assert "does not cover the installed tensorflow-metal 9.9.9" in " ".join(text.stdout.split())  # wrapped
    explicit = run_tfdoctor("ops", "--plugin", "9.9.9", "--json", "MatMul")
    assert explicit.code == 2  # asked for by name: still a usage error
