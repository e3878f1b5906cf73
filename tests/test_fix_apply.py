"""`tfdoctor fix` for real on Linux: a venv with tensorflow-cpu 2.21.0 and protobuf 5.29.5 (below
TensorFlow's pin), fixed into a new environment; the broken one stays byte-identical."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.tf,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux venv recipe")]

TF = "tensorflow-cpu==2.21.0"
OLD_PROTOBUF = "protobuf==5.29.5"


def _run(*argv, timeout=600, check=True):
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
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


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fix")
    venv = root / "broken"
    _run(sys.executable, "-m", "venv", str(venv))
    py = str(venv / "bin" / "python")
    try:
        _run(py, "-m", "pip", "install", "-q", TF)
        _run(py, "-m", "pip", "install", "-q", "--no-deps", OLD_PROTOBUF)
    except AssertionError as exc:
        pytest.skip(f"cannot build the broken venv here: {str(exc)[-300:]}")
    return venv


def test_dry_run_then_fix_into_a_new_env(broken):
    before = tree_hash(broken)
    diag = json.loads(tfdoctor("check", "--python", str(broken), "--no-probes", "--json", check=False).stdout)
    assert "compat.pin-violation" in {f["code"] for f in diag["findings"]}

    dry = tfdoctor("fix", "--python", str(broken), "--dry-run")
    assert "protobuf<8.0.0,>=6.31.1" in dry.stdout and "dry run: nothing changed" in dry.stdout
    assert not (broken.parent / "broken-fixed").exists()
    assert tree_hash(broken) == before

    new = broken.parent / "N"
    fixed = tfdoctor("fix", "--python", str(broken), "--new-env", str(new), "--yes")
    assert "installed" in fixed.stderr and "tfdoctor check exit 0" in fixed.stdout
    assert tree_hash(broken) == before  # the diagnosed environment: byte-identical
    assert not list(broken.parent.glob(".*.tfdoctor-fix.lock"))

    report = json.loads(tfdoctor("check", "--python", str(new), "--no-probes", "--json").stdout)
    assert not [f for f in report["findings"] if f["severity"] == "error"]
    tf = {p["name"].replace("_", "-"): p["version"] for p in report["snapshot"]["packages"]}
    assert tf["tensorflow-cpu"] == "2.21.0"
    assert tf["protobuf"].split(".")[0] in ("6", "7")

    again = json.loads(tfdoctor("fix", "--python", str(new), "--json").stdout)
    assert again["nothing_to_do"] is True and again["steps"] == []


def test_failed_install_leaves_no_half_made_env_and_a_held_lock_refuses(broken, tmp_path):
    from tfdoctor.engine.diagnose import diagnose
    from tfdoctor.fix import apply as fix_apply
    from tfdoctor.fix.plan import build_plan
    from tfdoctor.gather.static import gather_static
    from tfdoctor.knowledge.matrix import load_matrix

    before = tree_hash(broken)
    s = gather_static(str(broken), timeout=60)
    target = tmp_path / "half"
    plan = build_plan(s, diagnose(s), load_matrix(), new_env=str(target), installer="pip")
    steps = tuple(dataclasses.replace(st, command=(*st.command[:4], "tensorflow-cpu==0.0.0.impossible"))
                  if st.kind == "install" else st for st in plan.steps)
    bad = dataclasses.replace(plan, steps=steps)
    lines: list[str] = []
    with pytest.raises(fix_apply.StepFailed) as failed:
        fix_apply.apply(bad, lines.append)
    assert failed.value.step.kind == "install"
    assert not target.exists() and any("removing the half-made" in l for l in lines)
    assert tree_hash(broken) == before

    with fix_apply._locked(str(target)):
        with pytest.raises(fix_apply.FixRefused, match="another tfdoctor fix"):
            fix_apply.apply(plan, lines.append)
    assert not target.exists()
