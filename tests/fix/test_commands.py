"""Issue 25, items 7 and 8: every command `fix` prints is a shell line to paste as it is.

Values from a snapshot (paths, names, versions) are quoted for the shell, so `$(...)` in one is
text when the printed plan is pasted (tested by pasting every `$` line and every undo line into
bash, in a sandbox where only `touch` exists); names are checked against the distribution-name
grammar and requirements follow `--`, so none becomes a pip option; `~` means the same directory
in a command and in its undo; a value that does not parse is an unknown fact or one line.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tfdoctor.engine.diagnose import diagnose
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.fix.plan import build_plan
from tfdoctor.knowledge.matrix import load_matrix

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
HOSTILE = "$(touch MARKER)"


def scenario(name: str) -> dict:
    return json.loads((SCENARIOS / f"{name}.json").read_text())["snapshot"]


def fix_cli(snapshot: dict, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    return subprocess.run([sys.executable, "-m", "tfdoctor", "fix", "--snapshot", str(path), *args],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "400"})


def printed_lines(text: str) -> list[str]:
    """The `$` lines and the undo lines of a printed plan."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("$ "):
            lines.append(stripped[2:])
        elif stripped.startswith("undo: ") and stripped != "undo: -":
            lines.append(stripped[len("undo: "):])
    return lines


def pasted(line: str, sandbox: Path) -> subprocess.CompletedProcess:
    """`line` run by bash as if pasted, where the only command is touch: nothing else can run."""
    bin_dir = sandbox / "bin"
    bin_dir.mkdir(exist_ok=True)
    if not (bin_dir / "touch").exists():
        (bin_dir / "touch").symlink_to("/usr/bin/touch" if Path("/usr/bin/touch").exists() else "/bin/touch")
    return subprocess.run(["/bin/bash", "-c", line], cwd=sandbox, capture_output=True, text=True, timeout=30,
                          env={"PATH": str(bin_dir), "HOME": str(sandbox / "home")})


def hostile(name: str) -> dict:
    """A scenario whose environment lives under a directory named `$(touch MARKER) x`."""
    snap = copy.deepcopy(scenario(name))
    py = snap["python"]
    old = py["prefix"]
    new = f"{os.path.dirname(old)}/{HOSTILE} x/{os.path.basename(old)}"
    py["prefix"], py["executable"] = new, py["executable"].replace(old, new)
    return snap


PASTE_CASES = [
    ("pair_tf2180_metal110_homebrew39_venv", ()),
    ("pair_tf2180_metal110_homebrew39_venv", ("--in-place", "--dry-run")),
    ("two_tensorflows_macos_and_tensorflow", ("--in-place", "--dry-run")),
    ("numpy_abi_api_0xe_numpy_0xd_tfmacos250", ("--in-place", "--dry-run")),  # conda, in place
    ("numpy_abi_api_0xe_numpy_0xd_tfmacos250", ()),
    ("rosetta_homebrew_usr_local", ()),  # instructions only
]


@pytest.mark.slow  # every printed plan pasted into bash
def test_pasting_a_printed_plan_never_runs_a_value_from_the_snapshot(tmp_path):
    for name, extra in PASTE_CASES:
        run = fix_cli(hostile(name), tmp_path, *extra)
        assert run.returncode == 0, run.stderr
        lines = printed_lines(run.stdout)
        assert len(lines) >= 3 and any(HOSTILE in line for line in lines), run.stdout
        for line in lines:
            syntax = subprocess.run(["/bin/bash", "-n", "-c", line], capture_output=True, text=True, timeout=30)
            assert syntax.returncode == 0, f"{name} {extra}: not a shell line: {line}\n{syntax.stderr}"
            pasted(line, tmp_path)
            assert not (tmp_path / "MARKER").exists(), f"{name} {extra}: pasting ran a snapshot value: {line}"
            if HOSTILE in line:  # quoted: the shell passes it on as text
                assert any(HOSTILE in word for word in shlex.split(line)), line


def _words(line: str, home: Path) -> list[str]:
    """The words bash makes of a printed line (HOME=home): what the command gets."""
    done = subprocess.run(["/bin/bash", "-c", 'printf "%s\\n" ' + line], capture_output=True, text=True,
                          timeout=30, env={"PATH": "/usr/bin:/bin", "HOME": str(home)})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_tilde_means_the_same_directory_in_a_command_and_its_undo(tmp_path):
    """A Python outside any environment: the new one goes to ~/venvs/tf-fixed, and the command
    that makes it and the one that removes it must name the same directory once pasted."""
    snap = scenario("keras3_env_without_tfkeras")
    snap["python"]["base_prefix"] = snap["python"]["prefix"]  # not a venv: the default is under ~
    run = fix_cli(snap, tmp_path)
    assert run.returncode == 0, run.stderr
    plan = run.stdout
    create = next(line.strip()[2:] for line in plan.splitlines() if " -m venv " in line)
    undo = next(line.strip()[len("undo: "):] for line in plan.splitlines() if line.strip().startswith("undo: rm -rf"))
    home = tmp_path / "home"
    made, removed = _words(create, home)[-1], _words(undo, home)[-1]
    assert made == removed == str(home / "venvs" / "tf-fixed")


def test_a_name_from_the_snapshot_never_becomes_an_option_or_a_requirement(tmp_path):
    snap = scenario("numpy2_with_tf214_static")
    template = next(p for p in snap["packages"] if p["name"] == "numpy")
    odd = {"--index-url=http://evil.invalid/simple": "1.0", "-e/tmp/elsewhere": "1.0", "ok-name": "1.0 ; rm",
           "also-ok": HOSTILE, "fine": "2.0"}
    for name, version in odd.items():
        snap["packages"].append({**copy.deepcopy(template), "name": name, "version": version,
                                 "location": f"/x/{name}.dist-info", "requires_dist": []})
    for pkg in snap["packages"]:
        pkg["requested"] = pkg["name"] in odd or pkg["name"] == "tensorflow"
    run = fix_cli(snap, tmp_path, "--json")
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    install = next(step["command"] for step in doc["steps"] if step["kind"] == "install")
    options = install[:install.index("--")]
    assert all(not word.startswith("-") for word in options[4:]), install  # only pip's own before --
    assert "fine==2.0" in install[install.index("--"):]
    refused = {item["name"]: item["why"] for item in doc["not_carried"]}
    for name in ("--index-url=http://evil.invalid/simple", "-e/tmp/elsewhere"):
        assert "not a valid distribution name" in refused[name]
        assert not any(name in word for word in install)
    for name in ("ok-name", "also-ok"):
        assert "not a version pip can pin" in refused[name]


@pytest.mark.slow  # tfdoctor fix subprocesses
def test_values_that_do_not_parse_are_unknown_facts_or_one_line(tmp_path):
    snap = scenario("numpy2_with_tf214_static")
    tf = next(p for p in snap["packages"] if p["name"] == "tensorflow")
    tf["version"] = "abc"
    run = fix_cli(snap, tmp_path, "--json")
    assert run.returncode in (0, 1) and "Traceback" not in run.stderr, run.stderr
    json.loads(run.stdout)
    linux = scenario("healthy_linux_x86_64_cpu_only")
    s = Snapshot.from_dict(linux)
    next(p for p in s.packages if p.key == "tensorflow-cpu").version = "abc"
    from tfdoctor.derived import derive
    from tfdoctor.fix.goal import choose_goal

    notes: list[str] = []
    goal = choose_goal(s, derive(s), load_matrix(), "x86_64", set(), notes)
    assert goal.requirements[0] == "tensorflow-cpu"  # unpinned: the version is not known
    assert any("'abc'" in note for note in notes)
    bad = copy.deepcopy(snap)
    bad["python"]["version"] = f"3.{HOSTILE}"
    run = fix_cli(bad, tmp_path)
    assert run.returncode == 2 and run.stderr.startswith("tfdoctor: error: ") and run.stderr.count("\n") == 1
    relative = copy.deepcopy(snap)
    relative["python"]["executable"] = "-rf"
    run = fix_cli(relative, tmp_path, "--json")
    assert run.returncode == 2 and "not an absolute path" in run.stderr
    assert json.loads(run.stdout)["outcome"]["status"] == "error"


def test_in_place_undo_is_a_command_that_returns_the_recorded_set():
    s = Snapshot.from_dict(scenario("two_tensorflows_macos_and_tensorflow"))
    plan = build_plan(diagnose(s), load_matrix(), in_place=True)
    undo = {step.undo for step in plan.steps if step.kind in ("uninstall", "install")}
    assert undo == {shlex.join(["tfdoctor", "fix", "--undo", "--python", s.python.executable])}
    assert all("--force-reinstall" not in step.undo for step in plan.steps)
