"""Issue 25, item 5: `fix` carries only what an index can give back.

A real environment holds distributions installed every way pip knows: from the index, from a
directory (and, through a direct reference, a dependency of one), editable, from a git commit,
from a wheel file, from a path since deleted, from a URL with credentials, with an unreadable
direct_url.json. The index the tests start serves a project of the same name as each of them
(an impostor). The collector must say where each came from (PEP 610) and whether it was asked
for (REQUESTED), credentials masked; the plan must reinstall each from its source or say why
not, never ask the index for it by name; and applying it must not install an impostor.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.fix_process import path_without_uv, run_fix
from support.local_index import LocalIndex, pip_env
from support.wheels import build_wheel, write_project

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux venv recipe")]

SCHEMAS = Path(__file__).resolve().parents[2] / "tfdoctor" / "schemas"
SECRET = "s3cr3t-t0ken"
LOCAL = ("mydir", "mydep", "myedit", "myvcs", "mywheel", "tfdoctor")
"""Distributions the environments got from a path, git or a file: the index has impostors."""


@dataclass
class Sources:
    root: Path
    env: Path
    wheels: Path
    nowhere: Path
    commit: str
    checkout: Path
    """A venv holding only a `pip install .` of a project called tfdoctor (the README story)."""


def _pip(python: Path, env: dict, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", *args],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def _marked(package: str) -> dict[str, str]:
    return {f"{package}/__init__.py": f"WHERE = 'local {package}'\n"}


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Sources:
    if not shutil.which("git"):
        pytest.skip("git is needed for a VCS install")
    root = tmp_path_factory.mktemp("sources")
    wheels, nowhere, dist = root / "index", root / "nowhere", root / "dist"
    nowhere.mkdir()
    build_wheel(wheels, "tensorflow-cpu", "2.21.0", {"tensorflow/__init__.py": '__version__ = "2.21.0"\n'},
                ["protobuf>=6.31.1,<8.0.0", "numpy>=1.26.0"])
    build_wheel(wheels, "tensorflow", "2.21.0", {"tensorflow/__init__.py": '__version__ = "2.21.0"\n'})
    for version in ("5.29.5", "6.31.1"):
        build_wheel(wheels, "protobuf", version, {"google/protobuf/__init__.py": f"__version__ = '{version}'\n"})
    build_wheel(wheels, "numpy", "2.1.0", {"numpy/__init__.py": "__version__ = '2.1.0'\n"})
    for name in LOCAL + ("creds", "garbled", "gone"):  # an unrelated project of each name
        build_wheel(wheels, name, "1.0" if name != "tfdoctor" else "0.1.0",
                    {f"{name}/__init__.py": "WHERE = 'the index impostor'\n"})
    write_project(root / "mydep", "mydep", "1.0", "mydep", _marked("mydep"))
    write_project(root / "mydir", "mydir", "1.0", "mydir", _marked("mydir"),
                  [f"mydep @ file://{root / 'mydep'}"])
    write_project(root / "myedit", "myedit", "1.0", "myedit", _marked("myedit"))
    write_project(root / "gone", "gone", "1.0", "gone", _marked("gone"))
    write_project(root / "myvcs", "myvcs", "1.0", "myvcs", _marked("myvcs"))
    _git(root / "myvcs", "init", "-q")
    _git(root / "myvcs", "add", "-A")
    _git(root / "myvcs", "commit", "-q", "-m", "one")
    commit = _git(root / "myvcs", "rev-parse", "HEAD")
    wheel = build_wheel(dist, "mywheel", "1.0", _marked("mywheel"))
    creds = build_wheel(dist, "creds", "1.0", _marked("creds"))
    garbled = build_wheel(dist, "garbled", "1.0", _marked("garbled"))
    env = root / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    python = env / "bin" / "python"
    checkout = root / "story"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(checkout)], check=True, timeout=120)
    write_project(root / "tfdoctor-checkout", "tfdoctor", "0.1.0", "mytool", _marked("mytool"))
    with LocalIndex(wheels) as index:
        pip = pip_env(index.url, nowhere)
        _pip(python, pip, "tensorflow-cpu==2.21.0", "numpy==2.1.0")
        _pip(python, pip, "--no-deps", "protobuf==5.29.5")
        _pip(python, pip, str(root / "mydir"))
        _pip(python, pip, "-e", str(root / "myedit"))
        _pip(python, pip, f"myvcs @ git+file://localhost{root / 'myvcs'}@{commit}")
        _pip(python, pip, str(wheel), str(creds), str(garbled), str(root / "gone"))
        _pip(checkout / "bin" / "python", pip, str(root / "tfdoctor-checkout"))  # `pip install .`
    shutil.rmtree(root / "gone")
    site = next((env / "lib").glob("python3*/site-packages"))
    (site / "creds-1.0.dist-info" / "direct_url.json").write_text(json.dumps(
        {"url": f"https://alice:{SECRET}@private.example/creds-1.0-py3-none-any.whl", "archive_info": {}}))
    (site / "garbled-1.0.dist-info" / "direct_url.json").write_text("{this is not json")
    return Sources(root, env, wheels, nowhere, commit, checkout)


def _tfdoctor(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfdoctor", *args], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, env=env)


def test_the_collector_says_what_was_asked_for_and_where_each_came_from(sources):
    import jsonschema

    run = _tfdoctor("collect", "--no-runtime", "--no-probes", "--python", str(sources.env), "-o", "-")
    assert run.returncode == 0, run.stderr
    assert SECRET not in run.stdout and SECRET not in run.stderr
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, json.loads((SCHEMAS / "snapshot.schema.json").read_text()))
    pkgs = {p["name"]: p for p in doc["packages"]}
    root = sources.root
    assert pkgs["mydir"]["direct_kind"] == "dir" and pkgs["mydir"]["direct_url"] == f"file://{root / 'mydir'}"
    assert pkgs["mydir"]["requested"] is True and pkgs["mydir"]["editable"] is False
    assert pkgs["mydep"]["requested"] is False and pkgs["mydep"]["direct_kind"] == "dir"  # a dependency
    assert pkgs["myedit"]["editable"] is True and pkgs["myedit"]["direct_url"] == f"file://{root / 'myedit'}"
    assert (pkgs["myvcs"]["direct_kind"], pkgs["myvcs"]["vcs"], pkgs["myvcs"]["vcs_commit"]) == (
        "vcs", "git", sources.commit)
    assert pkgs["mywheel"]["direct_kind"] == "archive" and pkgs["mywheel"]["direct_url"].endswith(".whl")
    assert pkgs["creds"]["direct_url"] == "https://alice:<redacted>@private.example/creds-1.0-py3-none-any.whl"
    assert pkgs["garbled"]["direct_kind"] == "unreadable" and pkgs["garbled"]["direct_url"] is None
    for name in ("numpy", "protobuf", "tensorflow-cpu"):
        assert pkgs[name]["requested"] is True and pkgs[name]["direct_kind"] is None, name


def _plan(sources: Sources, *args: str) -> dict:
    run = _tfdoctor("fix", *args, "--json", env={**os.environ, "PATH": path_without_uv()})
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_plan_reinstalls_each_from_its_own_source_or_says_why_not(sources):
    doc = _plan(sources, "--python", str(sources.env), "--dry-run")
    root = sources.root
    carried = doc["carried"]
    assert f"mydir @ file://{root / 'mydir'}" in carried
    assert f"mydep @ file://{root / 'mydep'}" in carried  # needed by mydir: an index would have it by name
    assert f"myvcs @ git+file://localhost{root / 'myvcs'}@{sources.commit}" in carried
    assert any(c.startswith("mywheel @ file://") and c.endswith("mywheel-1.0-py3-none-any.whl") for c in carried)
    assert "numpy==2.1.0" in carried and "protobuf<8.0.0,>=6.31.1" in carried  # these came from the index
    assert doc["carried_editable"] == [str(root / "myedit")]
    for name in LOCAL + ("creds", "garbled", "gone"):
        assert f"{name}==" not in " ".join(carried), name  # never by name and version
    why = {item["name"]: item["why"] for item in doc["not_carried"]}
    assert "no longer there" in why["gone"] and str(root / "gone") in why["gone"]
    assert "needs credentials" in why["creds"] and SECRET not in json.dumps(doc)
    assert "cannot be read" in why["garbled"]
    install = next(step["command"] for step in doc["steps"] if step["kind"] == "install")
    assert install[install.index("-e") + 1] == str(root / "myedit") and install.index("-e") < install.index("--")


def test_a_snapshot_plan_uses_the_requested_facts_it_carries(sources, tmp_path):
    collected = tmp_path / "snapshot.json"
    run = _tfdoctor("collect", "--no-runtime", "--python", str(sources.env), "-o", str(collected))
    assert run.returncode == 0, run.stderr
    doc = _plan(sources, "--snapshot", str(collected))
    assert doc["requested_known"] is True
    assert f"mydir @ file://{sources.root / 'mydir'}" in doc["carried"]
    assert doc["carried_editable"] == [str(sources.root / "myedit")]


def test_applied_the_new_environment_gets_each_from_its_source_never_the_impostor(sources, tmp_path):
    new = tmp_path / "fixed"
    with LocalIndex(sources.wheels) as index:
        env = {**pip_env(index.url, sources.nowhere), "PATH": path_without_uv(), "NO_COLOR": "1"}
        run = run_fix(["fix", "--python", str(sources.env), "--new-env", str(new), "--yes", "--json"], env, 300)
        asked = [name for name in LOCAL if index.asked_for(name)]
    assert asked == [], f"the index was asked for {asked}"
    code = "import importlib; print(' | '.join(importlib.import_module(n).WHERE for n in {!r}))"
    where = subprocess.run([str(new / "bin" / "python"), "-c", code.format(["mydir", "mydep", "myedit", "myvcs",
                                                                             "mywheel"])],
                           capture_output=True, text=True, timeout=60)
    expected = "local mydir | local mydep | local myedit | local myvcs | local mywheel"
    assert where.stdout.strip() == expected, where.stderr
    assert not list(new.glob("lib/python3*/site-packages/gone")), "a project whose source is gone came from the index"
    assert json.loads(run.out)["outcome"]["status"] == "applied", run.err


def test_readme_story_a_checkout_installed_with_pip_install_dot_is_not_looked_up_by_name(sources, tmp_path):
    """`pip install .` of tfdoctor, no TensorFlow: `fix --yes --new-env DIR` must not ask an
    index for tfdoctor==0.1.0 (it failed with "No matching distribution found"; an index that
    has another project of that name would install it instead)."""
    new = tmp_path / "DIR"
    with LocalIndex(sources.wheels) as index:
        env = {**pip_env(index.url, sources.nowhere), "PATH": path_without_uv(), "NO_COLOR": "1"}
        run = run_fix(["fix", "--python", str(sources.checkout), "--new-env", str(new), "--yes"], env, 300)
        asked = index.asked_for("tfdoctor")
    assert run.proc.returncode in (0, 1) and "fixed environment:" in run.out, run.err
    assert "tfdoctor==0.1.0" not in run.out and f"tfdoctor @ file://{sources.root / 'tfdoctor-checkout'}" in run.out
    assert not asked, "the index was asked for tfdoctor"
    mine = subprocess.run([str(new / "bin" / "python"), "-c", "import mytool; print(mytool.WHERE)"],
                          capture_output=True, text=True, timeout=60)
    assert mine.stdout.strip() == "local mytool", mine.stderr
