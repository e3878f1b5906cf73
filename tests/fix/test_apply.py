"""`tfdoctor fix` for real on Linux: a venv with tensorflow-cpu 2.21.0 and protobuf 5.29.5 (below
TensorFlow's pin), fixed into a new environment; the broken one stays byte-identical."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import tfenv
from support.fix_process import FixRun, path_without_uv, processes_naming

pytestmark = [pytest.mark.slow, pytest.mark.tf,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux venv recipe")]

TF = "tensorflow-cpu==2.21.0"
OLD_PROTOBUF = "protobuf==5.29.5"


def _run(*argv, timeout=600, check=True, env=None):
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=env)
    if check and done.returncode != 0:
        raise AssertionError(f"{argv} -> {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done


def tfdoctor(*args, **kw):
    return _run(sys.executable, "-m", "tfdoctor", *args, **kw)


def tree_hash(root: Path) -> str:
    """Every path, mode, symlink target and file content under root."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            p = Path(dirpath, name)
            st = p.lstat()
            h.update(f"{p.relative_to(root)}\0{st.st_mode}\0".encode())
            if p.is_symlink():
                h.update(os.readlink(p).encode())
            elif p.is_file():
                h.update(p.read_bytes())
    return h.hexdigest()


PY = f"py{sys.version_info[0]}{sys.version_info[1]}"
CACHED = tfenv.tf_venv_dir().parent / f"fix-broken-{TF}-{OLD_PROTOBUF}-{PY}".replace("==", "-")
"""Where the broken venv is kept between runs, beside support/tfenv.py's TensorFlow venv: it took
a minute of pip on every run, on each xdist worker that drew a test of this module."""


def _build_broken(venv: Path) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    _run(sys.executable, "-m", "venv", str(venv))
    py = str(venv / "bin" / "python")
    _run(py, "-m", "pip", "install", "-q", TF)
    _run(py, "-m", "pip", "install", "-q", "--no-deps", OLD_PROTOBUF)


@pytest.fixture(scope="module")
def broken_and_hash() -> tuple[Path, str]:
    """The broken venv, built once (under a file lock, as support/tfenv.py builds its venv) and
    reused while its recipe and the Python that made it stay the same, with its tree_hash. Every
    use checks the whole tree against the hash recorded when it was built (rebuilt if anything
    differs), and the tests compare against that hash: no test can start from a changed copy."""
    venv = CACHED / "broken"
    marker = CACHED / "built.json"  # outside the venv: not part of its tree
    recipe = {"requirements": [TF, OLD_PROTOBUF], "python": sys.version, "base": sys._base_executable}
    with tfenv.file_lock(CACHED.parent / f".{CACHED.name}.lock"):
        try:
            recorded = json.loads(marker.read_text())
        except (OSError, ValueError):
            recorded = {}
        if recorded.get("recipe") == recipe and venv.is_dir() and tree_hash(venv) == recorded.get("tree"):
            return venv, recorded["tree"]
        marker.unlink(missing_ok=True)
        try:
            _build_broken(venv)
        except AssertionError as exc:
            pytest.skip(f"cannot build the broken venv here: {str(exc)[-300:]}")
        built = tree_hash(venv)
        marker.write_text(json.dumps({"recipe": recipe, "tree": built}))
    return venv, built


@pytest.fixture(scope="module")
def broken(broken_and_hash) -> Path:
    return broken_and_hash[0]


@pytest.fixture(scope="module")
def before(broken_and_hash) -> str:
    """The broken venv's tree_hash as built (checked when the module started)."""
    return broken_and_hash[1]


def test_dry_run_then_fix_into_a_new_env(broken, before, tmp_path):
    diag = json.loads(tfdoctor("check", "--python", str(broken), "--no-probes", "--json", check=False).stdout)
    assert "compat.pin-violation" in {f["code"] for f in diag["findings"]}

    dry = tfdoctor("fix", "--python", str(broken), "--dry-run")
    assert "protobuf<8.0.0,>=6.31.1" in dry.stdout and "dry run: nothing changed" in dry.stdout
    assert not (broken.parent / "broken-fixed").exists()
    assert tree_hash(broken) == before

    new = tmp_path / "N"  # not beside the cached broken venv
    fixed = tfdoctor("fix", "--python", str(broken), "--new-env", str(new), "--yes", env=_env())  # pip
    assert "(with pip)" in fixed.stdout
    assert "installed" in fixed.stderr and "tfdoctor check exit 0" in fixed.stdout
    assert tree_hash(broken) == before  # the diagnosed environment: byte-identical
    for folder in (broken.parent, new.parent):
        assert not list(folder.glob(".*.tfdoctor-fix.lock"))

    report = json.loads(tfdoctor("check", "--python", str(new), "--no-probes", "--json").stdout)
    assert not [f for f in report["findings"] if f["severity"] == "error"]
    tf = {p["name"].replace("_", "-"): p["version"] for p in report["snapshot"]["packages"]}
    assert tf["tensorflow-cpu"] == "2.21.0"
    assert tf["protobuf"].split(".")[0] in ("6", "7")

    again = json.loads(tfdoctor("fix", "--python", str(new), "--json").stdout)
    assert again["nothing_to_do"] is True and again["steps"] == []


def test_failed_install_leaves_no_half_made_env_and_a_held_lock_refuses(broken, before, tmp_path):
    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.fix import apply as fix_apply
    from tfdoctor.fix.errors import FixRefused, StepFailed
    from tfdoctor.fix.guard import EnvLock
    from tfdoctor.fix.plan import build_plan
    from tfdoctor.gather.static import gather_static
    from tfdoctor.knowledge.matrix import load_matrix

    s = gather_static(str(broken), timeout=60)
    target = tmp_path / "half"
    plan = build_plan(diagnose(s), load_matrix(), new_env=str(target), installer="pip")
    steps = tuple(dataclasses.replace(st, command=(*st.command[:4], "tensorflow-cpu==0.0.0.impossible"))
                  if st.kind == "install" else st for st in plan.steps)
    bad = dataclasses.replace(plan, steps=steps)
    lines: list[str] = []
    with pytest.raises(StepFailed) as failed:
        fix_apply.apply(bad, lines.append)
    assert failed.value.step.kind == "install"
    assert not target.exists() and any("removing the half-made" in l for l in lines)
    assert tree_hash(broken) == before

    with EnvLock(str(target)):
        with pytest.raises(FixRefused, match="another tfdoctor fix"):
            fix_apply.apply(plan, lines.append)
    assert not target.exists()


# --- real processes: Ctrl-C, a full disk, a failed step, two fixes at once, uv ---------------------


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": path_without_uv(), "PYTHONUNBUFFERED": "1", **extra}


def _fix(broken: Path, new: Path, env: dict[str, str], *extra: str) -> FixRun:
    """`tfdoctor fix --python BROKEN --new-env NEW --yes` as a real process; stderr read as it comes."""
    return FixRun(["fix", "--python", str(broken), "--new-env", str(new), "--yes", *extra], env)


def _assert_untouched(broken: Path, before: str, new: Path) -> None:
    assert tree_hash(broken) == before, "the diagnosed environment changed"
    assert not new.exists(), "the half-made environment is still there"
    assert not list(new.parent.glob(".*.tfdoctor-fix.lock"))
    assert not processes_naming(str(new)), processes_naming(str(new))


def _installing(line: str) -> bool:
    return "] collecting " in line  # pip's "Collecting ..." of the install step, condensed


def test_ctrl_c_during_the_install_removes_the_new_env_and_exits_130(broken, before, tmp_path):
    import signal

    new = tmp_path / "interrupted"
    fix = _fix(broken, new, _env())
    assert fix.wait_for(_installing, 300), fix.err
    assert new.is_dir()  # half made: the venv exists, the install is under way
    fix.proc.send_signal(signal.SIGINT)
    code = fix.finish()
    assert code == 130, fix.err
    assert "interrupted" in fix.err and f"{new} was removed" in fix.err
    assert "Traceback" not in fix.err
    _assert_untouched(broken, before, new)


def test_failed_install_step_for_real_leaves_the_old_env_as_it_was(broken, before, tmp_path):
    nowhere = tmp_path / "no-wheels"
    nowhere.mkdir()
    new = tmp_path / "failed"
    # pip finds nothing to install: no index, no configuration, an empty wheel directory
    fix = _fix(broken, new, _env(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(nowhere)))
    code = fix.finish(300)
    assert code == 1, fix.err
    assert "failed (exit 1)" in fix.err and f"{new} was removed" in fix.err
    assert "No matching distribution" in fix.err or "Could not find a version" in fix.err
    assert "Traceback" not in fix.err
    _assert_untouched(broken, before, new)


def _small_disk(where: Path, megabytes: int) -> str:
    """A real filesystem of `megabytes` at `where` (tmpfs; root only); "" when it cannot be made."""
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(where)],
                          capture_output=True, text=True)
    return f"tmpfs size={megabytes}m" if done.returncode == 0 else ""


def test_full_disk_during_the_install_leaves_the_old_env_as_it_was(broken, before, tmp_path):
    disk = tmp_path / "disk"
    how = _small_disk(disk, 60)  # the venv fits (~20 MB), TensorFlow (~600 MB unpacked) does not
    if not how:
        pytest.skip("cannot mount a small tmpfs here (not root?)")
    try:
        new = disk / "N"
        fix = _fix(broken, new, _env())
        code = fix.finish(600)
        assert code == 1, fix.err
        assert "No space left on device" in fix.err or "Errno 28" in fix.err, fix.err
        assert f"{new} was removed" in fix.err and "Traceback" not in fix.err
        _assert_untouched(broken, before, new)
        assert os.listdir(disk) == []  # nothing left on the full disk either
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_second_fix_of_the_same_target_refuses_while_the_first_runs(broken, before, tmp_path):
    import signal

    new = tmp_path / "contested"
    first = _fix(broken, new, _env())
    assert first.wait_for(lambda l: l.startswith("Create"), 300), first.err  # the lock is held from here on
    second = _fix(broken, new, _env())
    assert second.finish(180) == 1
    assert "another tfdoctor fix is changing this environment" in second.err
    assert first.proc.poll() is None, "the first fix must go on undisturbed"
    assert first.wait_for(_installing, 300), first.err
    first.proc.send_signal(signal.SIGTERM)  # then stop the first: it cleans up on SIGTERM too
    assert first.finish() == -signal.SIGTERM
    assert any("removing the half-made" in l for l in first.lines)
    _assert_untouched(broken, before, new)


def test_with_uv_on_path_the_venv_and_the_install_go_through_uv(broken, before, tmp_path):
    import jsonschema

    try:
        import uv
        uv_dir = str(Path(uv.find_uv_bin()).parent)
    except (ImportError, FileNotFoundError):
        pytest.skip("uv is not installed (it is in the test extra)")
    new = tmp_path / "with-uv"
    fix = _fix(broken, new, _env(PATH=f"{uv_dir}{os.pathsep}{path_without_uv()}"), "--json")
    assert fix.finish(300) == 0, fix.err
    doc = json.loads(fix.out)
    jsonschema.validate(doc, json.loads((Path(__file__).resolve().parents[2] / "tfdoctor" / "schemas"
                                         / "fix-plan.schema.json").read_text()))
    assert doc["installer"] == "uv"
    commands = [st["command"] for st in doc["steps"]]
    assert commands[0][:2] == ["uv", "venv"] and commands[1][:3] == ["uv", "pip", "install"]
    assert doc["applied"]["env"] == str(new) and doc["applied"]["verify_exit"] == 0
    assert any("resolved" in l and "packages in" in l for l in fix.lines), fix.err  # uv's own lines
    assert "uv = " in (new / "pyvenv.cfg").read_text()  # made by uv venv, not python -m venv
    report = json.loads(tfdoctor("check", "--python", str(new), "--no-probes", "--json").stdout)
    versions = {p["name"].replace("_", "-"): p["version"] for p in report["snapshot"]["packages"]}
    assert versions["tensorflow-cpu"] == "2.21.0"
    assert tree_hash(broken) == before
