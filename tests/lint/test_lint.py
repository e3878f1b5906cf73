"""tfdoctor.lint: every rule fires on its fixture and stays quiet on its counterpart; notebooks
map findings to cells; bad input is a clear result, never an exception.

Fixtures (tests/data/lint) declare the environment in their first line (`# env: tensorflow=...
keras=... metal=...`) and mark each line a rule must report with `# expect: CODE`; a test
compares the exact set of (line, code) found with the set marked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tfdoctor.lint import LintEnv, lint_paths, lint_source, rules

DATA = Path(__file__).parents[1] / "data" / "lint"
FIXTURES = sorted(p.name for p in DATA.glob("*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*([\w.-]+)")


def env_of(text: str) -> LintEnv:
    match = re.search(r"env:([^\n\"]*)", text)
    values = dict(part.split("=", 1) for part in (match.group(1).split() if match else []))
    return LintEnv(values.get("tensorflow"), int(values["keras"]) if "keras" in values else None,
                   values.get("metal"))


def expected(lines: list[str]) -> set[tuple[int, str]]:
    return {(n, m.group(1)) for n, line in enumerate(lines, 1) for m in _EXPECT.finditer(line)}


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_reports_exactly_the_marked_lines(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    result = lint_paths([DATA / name], env_of(text))
    assert result.problems == []
    found = {(f.line, f.code) for f in result.findings}
    assert found == expected(text.splitlines())


def test_every_rule_has_a_fixture_that_fires_and_one_that_does_not() -> None:
    fired: dict[str, set[str]] = {}
    for name in FIXTURES:
        for _line, code in expected((DATA / name).read_text().splitlines()):
            fired.setdefault(code, set()).add(name)
    quiet = {
        "lint.xla-on-metal": "xla_on_metal_ok.py", "lint.v2-optimizer-on-metal": "v2_optimizer_ok.py",
        "lint.no-prefetch": "no_prefetch_ok.py", "lint.async-timing": "async_timing_ok.py",
        "lint.device-config-late": "device_config_late_ok.py", "lint.gpu-hidden": "gpu_hidden_ok.py",
        "lint.cpu-fallback-layer": "cpu_fallback_layer_ok.py",
        "lint.keras2-api-on-keras3": "keras3_api_ok.py",
    }
    for rule in rules():
        assert rule.code in fired, f"no fixture makes {rule.code} fire"
        assert quiet[rule.code] in FIXTURES and not expected((DATA / quiet[rule.code]).read_text().splitlines())


def test_rules_are_documented_with_stable_codes() -> None:
    codes = [r.code for r in rules()]
    assert len(codes) == len(set(codes)) and all(c.startswith("lint.") for c in codes)
    for rule in rules():
        assert rule.code in rule.doc and "Why it is bad" in rule.doc and "Example" in rule.doc
        assert rule.severity in ("info", "warning", "error")


def test_findings_carry_location_message_and_fix() -> None:
    text = (DATA / "device_config_late_fires.py").read_text()
    finding = lint_source(text, "train.py", LintEnv()).findings[0]
    assert (finding.line, finding.col) == (10, 5)
    assert "tf.keras.Sequential" in finding.message and "line 4" in finding.message
    assert finding.fix.startswith("Move") and finding.location() == "train.py:10:5"
    assert json.loads(json.dumps(finding.to_dict()))["code"] == "lint.device-config-late"


def test_notebook_findings_name_cell_and_line_and_a_broken_cell_does_not_stop_the_rest() -> None:
    path = DATA / "notebook_fires.ipynb"
    notebook = json.loads(path.read_text())
    env = env_of("env: " + notebook["metadata"]["tfdoctor_env"])
    result = lint_paths([path], env)
    found = {(f.cell, f.cell_line, f.code) for f in result.findings}
    marked = set()
    cells = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    for number, cell in enumerate(cells, 1):
        for line, code in expected("".join(cell["source"]).splitlines()):
            marked.add((number, line, code))
    assert found == marked
    assert [(p.kind, p.cell) for p in result.problems] == [("syntax-error", 3)]
    assert any(f.location().endswith(f"cell 4:2:{f.col}") for f in result.findings)


def test_environment_changes_the_answer() -> None:
    script = "import tensorflow as tf\nopt = tf.keras.optimizers.Adam()\nopt.apply_gradients([])\n"
    on_215 = lint_source(script, "s.py", LintEnv("2.15.0", 2, "1.1.0")).findings
    on_210 = lint_source(script, "s.py", LintEnv("2.10.0", 2, "0.6.0")).findings
    unknown = lint_source(script, "s.py", LintEnv())
    assert [f.code for f in on_215] == ["lint.v2-optimizer-on-metal"] and on_210 == []
    assert "lint.v2-optimizer-on-metal" in unknown.skipped_rules
    layer = "import tensorflow as tf\nx = tf.keras.layers.Conv2D(8, 3, activation='elu')\n"
    assert lint_source(layer, "s.py", LintEnv("2.19.1", 3, "1.2.0")).findings
    assert lint_source(layer, "s.py", LintEnv("2.19.1", 3, None)).findings == []
    assert "lint.cpu-fallback-layer" in lint_source(layer, "s.py", LintEnv("2.19.1", 3, "9.9.9")).skipped_rules


def test_kernel_facts_come_from_the_plugin_table() -> None:
    """The layer table names ops; whether they lack a kernel is the plugin's table's answer."""
    from tfdoctor.knowledge.kernels import kernel_table
    from tfdoctor.knowledge.layer_ops import ACTIVATIONS, LAYERS

    table = kernel_table("1.2.0")
    assert not table.has_kernel("Einsum") and table.has_kernel("Erf")
    code = "import tensorflow as tf\nl = tf.keras.layers.MultiHeadAttention(2, 4)\n"
    finding = lint_source(code, "s.py", LintEnv("2.19.1", 3, "1.2.0")).findings[0]
    assert "Einsum" in finding.message and finding.severity == "warning"
    assert all(op for use in list(LAYERS.values()) + list(ACTIVATIONS.values()) for op in use.ops)


# --- bad input -----------------------------------------------------------------------------


def test_syntax_error_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("import tensorflow as tf\nif True\n    pass\n")
    result = lint_paths([path])
    assert result.findings == [] and result.exit_code() == 1
    assert [(p.kind, p.line) for p in result.problems] == [("syntax-error", 2)]


def test_corrupt_notebook(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_text('{"cells": [ {"cell_type": "code", "source": "x = 1"')
    result = lint_paths([path])
    assert [p.kind for p in result.problems] == ["corrupt-notebook"]
    path.write_text('["not", "a", "notebook"]')
    assert [p.kind for p in lint_paths([path]).problems] == ["corrupt-notebook"]


def test_binary_missing_unsupported_and_empty(tmp_path: Path) -> None:
    binary = tmp_path / "model.py"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(100))
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    empty = tmp_path / "empty.py"
    empty.write_text("")
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9'\n")
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = '\xff\xfe'\n")
    result = lint_paths([binary, tmp_path / "missing.py", other, empty, latin, bad])
    kinds = [(Path(p.path).name, p.kind) for p in result.problems]
    assert kinds == [("model.py", "binary"), ("missing.py", "unreadable"), ("notes.txt", "unsupported"),
                     ("bad.py", "undecodable")]
    assert result.findings == []


def test_directory_is_walked_for_scripts_and_notebooks(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import tensorflow as tf\ntf.config.set_visible_devices([], 'GPU')\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "b.py").write_text("import tensorflow as tf\ntf.config.set_visible_devices([], 'GPU')\n")
    result = lint_paths([tmp_path])
    assert result.files == 1 and [f.code for f in result.findings] == ["lint.gpu-hidden"]


def test_a_crashing_rule_is_reported_and_the_others_still_run() -> None:
    from tfdoctor.lint.results import Rule

    def boom(ctx):  # noqa: ANN001, ANN202
        raise ValueError("bug")
        yield

    crashing = Rule("lint.boom", "error", "crashes", boom)
    result = lint_source("import tensorflow as tf\ntf.config.set_visible_devices([], 'GPU')\n", "s.py",
                         LintEnv(), rules=(crashing,) + rules())
    assert [p.kind for p in result.problems] == ["rule-crashed"]
    assert [f.code for f in result.findings] == ["lint.gpu-hidden"]


def test_deeply_nested_source_does_not_crash() -> None:
    result = lint_source("x = " + "(" * 5000 + ")" * 5000 + "\n", "deep.py", LintEnv())
    assert result.problems and result.problems[0].kind == "syntax-error"


def test_environment_from_a_snapshot() -> None:
    from tfdoctor.facts.snapshot import PackageFacts, Snapshot, TargetOutcome
    from tfdoctor.lint.environment import from_snapshot, keras_major

    assert keras_major("2.15.1", False, None) == 2
    assert keras_major("2.19.1", False, "1") == 3  # the variable without tf-keras: still Keras 3
    assert keras_major("2.19.1", True, "1") == 2
    assert keras_major(None, True, "1") is None
    snap = Snapshot(TargetOutcome("/usr/bin/python3", True), packages=[PackageFacts("tensorflow", "2.19.1"),
                                               PackageFacts("tensorflow-metal", "1.2.0")])
    assert from_snapshot(snap) == LintEnv("2.19.1", 3, "1.2.0")


def test_readme_lists_every_rule() -> None:
    readme = (Path(__file__).parents[2] / "tfdoctor" / "lint" / "README.md").read_text()
    assert all(f"`{rule.code}`" in readme for rule in rules())


def test_notebook_magics_help_and_shell_cells(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "code", "source": "%%bash\npip install tensorflow-metal\nif [ -x ]; then echo; fi\n"},
        {"cell_type": "code", "source": "%%time\nimport tensorflow as tf\ntf.config.set_visible_devices([], 'GPU')\n"},
        {"cell_type": "code", "source": "tf.config?\nx = 1 if True else 2  # why?\n"},
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    result = lint_paths([path])
    assert result.problems == []
    assert [(f.cell, f.cell_line, f.code) for f in result.findings] == [(2, 3, "lint.gpu-hidden")]


def test_any_text_is_a_result_never_an_exception() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pieces = st.sampled_from(["import tensorflow as tf\n", "tf.config.set_visible_devices([], 'GPU')\n",
                              "x = tf.matmul(a, b)\n", "t = time.time()\n", "for b in ds:\n",
                              "    model.train_on_batch(b)\n", "def f(:\n", "\x00", "(", "@tf.function\n",
                              "model.fit(tf.data.Dataset.range(3))\n", "\t", "'''", "lambda: (yield)\n"])

    @settings(max_examples=150, deadline=None)
    @given(st.lists(pieces, max_size=12), st.sampled_from([LintEnv(), LintEnv("2.15.0", 2, "1.1.0"),
                                                            LintEnv("2.19.1", 3, "1.2.0")]))
    def check(parts: list[str], env: LintEnv) -> None:
        result = lint_source("".join(parts), "fuzz.py", env)
        assert all(p.kind in ("syntax-error",) for p in result.problems)

    check()
