"""The README stays true to the code (.ci/run running its test command: test_readme.py)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_tfdoctor

REPO = Path(__file__).resolve().parents[2]


def test_every_code_is_in_the_readme():
    readme = (REPO / "README.md").read_text()
    listed = json.loads(run_tfdoctor("list-checks", "--json").stdout)
    codes = {code for check in listed["checks"] for code in check["codes"]}
    codes |= {"check.crashed", "check.load-failed"}
    missing = sorted(code for code in codes if f"`{code}`" not in readme)
    assert not missing, f"README lacks {missing}"


def test_readme_example_is_real_output():
    """The report shown at the top of the README is what tfdoctor prints for that scenario."""
    readme = (REPO / "README.md").read_text()
    shown = readme.split("```\n$ tfdoctor check\n", 1)[1].split("```\n", 1)[0]
    run = run_tfdoctor("diagnose", str(REPO / "tests" / "scenarios" / "rosetta_homebrew_usr_local.json"))
    assert run.stdout == shown


def test_apple_extra_pins_the_pair_the_matrix_recommends():
    """`pip install tfdoctor[apple]` installs the pair compat_matrix.json calls known to work,
    only on macOS arm64."""
    import tomllib
    from packaging.requirements import Requirement

    extra = [Requirement(r) for r in tomllib.loads((REPO / "pyproject.toml").read_text())
             ["project"]["optional-dependencies"]["apple"]]
    recommended = {Requirement(r).name: Requirement(r).specifier
                   for r in json.loads((REPO / "compat_matrix.json").read_text())["recommended"]["requirements"]}
    assert {r.name for r in extra} == set(recommended)
    for req in extra:
        (pinned,) = list(req.specifier)
        assert pinned.operator == "==" and pinned.version in recommended[req.name], req
        assert req.marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64", "python_version": "3.12"})
        assert not req.marker.evaluate({"sys_platform": "darwin", "platform_machine": "arm64", "python_version": "3.13"})
        assert not req.marker.evaluate({"sys_platform": "linux", "platform_machine": "x86_64", "python_version": "3.11"})


def test_readme_rule_table_is_the_rules_own_documentation():
    """Every rule, and nothing else, is in the README's table, with its code, severity and title."""
    from tfdoctor.engine.registry import load_registry
    from tfdoctor.render.listing import markdown_table

    readme = (REPO / "README.md").read_text()
    start = readme.index("<!-- rules:")
    table = readme[readme.index("\n", start) + 1:readme.index("<!-- /rules -->")]
    assert table == markdown_table(load_registry())
