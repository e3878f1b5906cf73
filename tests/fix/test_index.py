"""Issue 25, items 6 and 8: `fix` for real against a package index the test starts on 127.0.0.1.

In place, nothing is removed before pip has resolved the new set; the restore record is written
once and kept, and `fix --undo` returns exactly the recorded set (what the fix added is removed),
offline. An index that refuses (HTTP 403, connection refused) or never answers changes nothing,
says so, and a silent one gets progress lines. One lock per environment, in every mode. OS
errors and bad places are one line (exit 1, or 2 for bad input), and --json prints a fix-plan
document whatever happened.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.fix_process import FixRun, env_files, run_fix
from support.fix_world import FixWorld, beside, index, shared_world
from support.local_index import refused_url

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux venv recipe")]

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "tfdoctor" / "schemas"
                     / "fix-plan.schema.json").read_text())


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> FixWorld:
    return shared_world(tmp_path_factory, "fixindex")


def document(run: FixRun) -> dict:
    import jsonschema

    doc = json.loads(run.out)
    jsonschema.validate(doc, SCHEMA)
    return doc


def one_error_line(run: FixRun) -> str:
    errors = [line for line in run.lines if line.startswith("tfdoctor: error: ")]
    assert len(errors) == 1, run.err
    assert "Traceback" not in run.err and "Traceback" not in run.out
    return errors[0]


def installed(env: Path) -> dict[str, str]:
    done = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    return {d["name"].lower(): d["version"] for d in json.loads(done.stdout)}


def test_an_index_that_refuses_or_never_answers_changes_nothing_and_says_why(world, tmp_path):
    cases = {"403": "answered HTTP 403 Forbidden", "404": "has no project tensorflow-cpu (HTTP 404)",
             "refused": "refused the connection", "hang": "did not answer within 6s"}
    with index(world, "403") as forbidden, index(world, "404") as missing, index(world, "hang") as silent:
        urls = {"403": forbidden.url, "404": missing.url, "refused": refused_url(), "hang": silent.url}
        envs = {case: world.copy(f"refuse-{case}") for case in cases}
        before = env_files(world.template)
        runs = {case: FixRun(["fix", "--python", str(envs[case]), "--in-place", "--yes", "--json"],
                             world.env(urls[case], PIP_TIMEOUT="6" if case == "hang" else "2"))
                for case in cases}
        new = tmp_path / "N"
        runs["new-env"] = FixRun(["fix", "--python", str(world.template), "--new-env", str(new), "--yes",
                                  "--json"], world.env(forbidden.url))
        for run in runs.values():
            run.finish(120)
    for case, said in cases.items():
        run = runs[case]
        assert run.proc.returncode == 1, run.err
        line = one_error_line(run)
        assert said in line and f"nothing was changed in {envs[case]}" in line, line
        assert env_files(envs[case]) == before and not (envs[case] / "tfdoctor-restore").exists()
        assert beside(envs[case]) == []
        outcome = document(run)["outcome"]
        assert (outcome["status"], outcome["step"], outcome["exit_code"]) == ("failed", "resolve", 1)
        assert said in outcome["index"]
    waiting = [line for line in runs["hang"].lines if "waiting on the package index 127.0.0.1:" in line]
    assert waiting and all(len(line) <= 80 and line.startswith("  [") for line in waiting), runs["hang"].err
    run = runs["new-env"]
    assert run.proc.returncode == 1 and not new.exists() and beside(new) == []
    assert "answered HTTP 403 Forbidden" in one_error_line(run)
    outcome = document(run)["outcome"]
    assert outcome["step"] == "install" and "was removed" in outcome["cleanup"]


def test_in_place_keeps_one_record_and_undo_returns_exactly_the_recorded_set_offline(world):
    env = world.copy("undo")
    before, before_set = env_files(env), installed(env)
    assert "absl-py" not in before_set and before_set["protobuf"] == "5.29.5"
    with index(world) as served:
        fixed = run_fix(["fix", "--python", str(env), "--in-place", "--yes", "--json"], world.env(served.url))
    assert document(fixed)["outcome"]["status"] == "applied", fixed.err
    now = installed(env)
    assert now["protobuf"] == "6.31.1" and now["absl-py"] == "2.0.0"  # one changed, one added
    record = env / "tfdoctor-restore"
    recorded = json.loads((record / "record.json").read_text())
    assert {d["name"].lower(): d["version"] for d in recorded["distributions"]} == before_set
    kept = record / "files" / "protobuf-5.29.5"
    manifest = json.loads((kept / "manifest.json").read_text())
    init = next(e for e in manifest if e["path"].endswith("google/protobuf/__init__.py"))
    assert (kept / init["file"]).read_text() == "__version__ = '5.29.5'\n"
    first_record = (record / "record.json").read_text()
    with index(world, "403") as refusing:  # undo needs no index
        undone = run_fix(["fix", "--undo", "--python", str(env), "--json"], world.env(refusing.url))
        assert undone.proc.returncode == 0, undone.err
        assert document(undone)["outcome"]["status"] == "undone"
        assert installed(env) == before_set and env_files(env) == before  # absl-py gone too
        with index(world) as served:  # a second fix: the first record stays as it was
            again = run_fix(["fix", "--python", str(env), "--in-place", "--yes"], world.env(served.url))
        assert "fixed environment:" in again.out, again.err
        assert (record / "record.json").read_text() == first_record
        undone = run_fix(["fix", "--undo", "--python", str(env)], world.env(refusing.url))
    assert undone.proc.returncode == 0, undone.err
    assert "the environment holds the recorded set" in undone.err
    assert env_files(env) == before and beside(env) == []


def test_an_install_that_fails_half_way_is_undone(world, tmp_path):
    """pip replaces distributions one by one: a wheel that cannot be installed (absl-py's, with a
    file outside the environment) fails the step after protobuf was replaced (pip installs it
    first); the kept files put protobuf 5.29.5 back, offline."""
    import shutil

    from support.local_index import LocalIndex
    from support.wheels import build_wheel

    bad = tmp_path / "index"
    shutil.copytree(world.wheels, bad)
    (bad / "absl_py-2.0.0-py3-none-any.whl").unlink()
    build_wheel(bad, "absl-py", "2.0.0", {"absl/__init__.py": "", "../../../../escape.py": ""})
    env = world.copy("half-way")
    before = env_files(env)
    with LocalIndex(bad) as served:
        run = run_fix(["fix", "--python", str(env), "--in-place", "--yes", "--json"], world.env(served.url))
    assert run.proc.returncode == 1, run.err
    outcome = document(run)["outcome"]
    assert (outcome["status"], outcome["step"]) == ("failed", "install")
    assert f"{env} was restored" in outcome["cleanup"] and "put back 1 from the kept files" in outcome["cleanup"]
    assert env_files(env) == before and beside(env) == []


def test_in_place_a_distribution_from_a_path_comes_back_from_that_path(world, tmp_path):
    """numpy 2.0.0 from a local checkout, TensorFlow wanting numpy>=2.1.0: the fix replaces it
    from the index. Undone without its kept files, it is built again from the checkout, never
    numpy==2.0.0 from the index, which serves an unrelated project of that name and version."""
    import shutil

    from support.local_index import LocalIndex
    from support.wheels import build_wheel, write_project

    folder = tmp_path / "index"
    shutil.copytree(world.wheels, folder)
    (folder / "tensorflow_cpu-2.21.0-py3-none-any.whl").unlink()
    build_wheel(folder, "tensorflow-cpu", "2.21.0", {"tensorflow/__init__.py": '__version__ = "2.21.0"\n'},
                ["protobuf>=6.31.1,<8.0.0", "numpy>=2.1.0", "absl-py>=1.0.0"])
    build_wheel(folder, "numpy", "2.0.0", {"numpy/__init__.py": "WHERE = 'the index impostor'\n"})
    checkout = write_project(tmp_path / "numpy-src", "numpy", "2.0.0", "numpy",
                             {"numpy/__init__.py": "WHERE = 'the local checkout'\n"})
    env = world.copy("from-a-path")
    python = str(env / "bin" / "python")
    with LocalIndex(folder) as served:
        pip = world.env(served.url)
        for args in (["install", "-q", "--no-deps", "--force-reinstall", "tensorflow-cpu==2.21.0"],
                     ["uninstall", "-q", "-y", "numpy"], ["install", "-q", "--no-deps", str(checkout)]):
            subprocess.run([python, "-m", "pip", *args], check=True, timeout=300, env=pip)
        recorded = installed(env)
        fixed = run_fix(["fix", "--python", str(env), "--in-place", "--yes"], pip)
        assert installed(env)["numpy"] == "2.1.0", fixed.err
        record = env / "tfdoctor-restore"
        assert f"numpy @ file://{checkout}" in (record / "requirements.txt").read_text().splitlines()
        shutil.rmtree(record / "files" / "numpy-2.0.0")  # no kept files: from its source again
        asked_before = len(served.requests)
        undone = run_fix(["fix", "--undo", "--python", str(env)], pip)
        asked = served.requests[asked_before:]
    assert undone.proc.returncode == 0, undone.err
    assert "installed 1 again" in undone.err and not [r for r in asked if "numpy" in r], asked
    where = subprocess.run([python, "-c", "import numpy; print(numpy.WHERE)"], capture_output=True, text=True)
    assert where.stdout.strip() == "the local checkout"
    assert installed(env) == recorded  # the recorded set: numpy 2.0.0 from the checkout


def test_one_lock_per_environment_in_every_mode(world, tmp_path):
    from tfdoctor.fix.guard import EnvLock

    env = world.copy("locked")
    before = env_files(env)
    new = tmp_path / "N"
    with index(world) as served, EnvLock(str(env)), EnvLock(str(new)):
        runs = [FixRun(["fix", "--python", str(env), "--in-place", "--yes", "--json"], world.env(served.url)),
                FixRun(["fix", "--undo", "--python", str(env)], world.env(served.url)),
                FixRun(["fix", "--python", str(env), "--new-env", str(new), "--yes"], world.env(served.url))]
        for run in runs:
            assert run.finish(120) == 1, run.err
            assert "another tfdoctor fix is changing this environment" in one_error_line(run)
    assert document(runs[0])["outcome"]["status"] == "refused"
    assert env_files(env) == before and not new.exists()


def _mount(args: list[str], where: Path) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    return os.geteuid() == 0 and subprocess.run(["mount", *args, str(where)], capture_output=True).returncode == 0


def test_os_errors_and_bad_places_are_one_line_never_a_traceback(world, tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    read_only, full = tmp_path / "ro", tmp_path / "full"
    mounted = [p for p, args in ((read_only, ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"]),
                                 (full, ["-t", "tmpfs", "-o", "size=3m", "tmpfs"])) if _mount(args, p)]
    if read_only not in mounted:
        read_only.chmod(0o555)  # not root: a directory it may not write to
    try:
        cases = {  # --new-env: (exit code, what the one line says)
            str(a_file): (1, "exists already"),
            str(a_file / "sub"): (1, "Not a directory"),
            str(read_only / "N"): (1, "Read-only file system" if read_only in mounted else "Permission denied"),
            str(world.template / "sub"): (2, "is inside the diagnosed environment"),
            str(world.template.parent): (2, "contains the diagnosed environment"),
        }
        if full in mounted:
            cases[str(full / "N")] = (1, "Create")
        with index(world) as served:
            runs = {place: FixRun(["fix", "--python", str(world.template), "--new-env", place, "--yes", "--json"],
                                  world.env(served.url)) for place in cases}
            for run in runs.values():
                run.finish(180)
        for place, (code, said) in cases.items():
            run = runs[place]
            assert run.proc.returncode == code, (place, run.err)
            assert said in one_error_line(run), (place, run.err)
            outcome = document(run)["outcome"]
            assert outcome["exit_code"] == code and outcome["status"] in ("failed", "refused", "error")
        assert a_file.read_text() == "", "a path the plan did not create was touched"
        if full in mounted:
            assert os.listdir(full) == [], "something was left on the full disk"
            assert "was removed" in runs[str(full / "N")].err
    finally:
        for path in mounted:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)
