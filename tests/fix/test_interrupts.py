"""Issue 25, item 6: `fix` never loses an environment, whatever stops it and wherever.

tfdoctor is stopped for real at every step of an in-place fix and of a new-environment fix, by
SIGINT, SIGTERM and SIGKILL, against a package index on 127.0.0.1 that is slow to send wheels
(so every step is under way when the signal comes). After SIGINT or SIGTERM the diagnosed
environment holds the same files as before (restored, or never changed) and no half-made one is
left; after SIGKILL, what is left is recognised by the next fix, which says so and cleans it up
(or restores) before anything else. A second Ctrl-C does not cut a clean-up short, and a
clean-up that cannot remove everything says so instead of reporting success.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from support.fix_process import FixRun, env_files, gone_in_time, run_fix
from support.fix_world import FixWorld, beside, index, shared_world

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux venv recipe")]

STEPS = {  # the stderr line that starts each step
    "in-place": {"resolve": "Check that the new set installs", "save-restore": "Save the installed set",
                 "install": "Install tensorflow-cpu", "verify": "verifying: "},
    "new-env": {"create-env": "Create ", "install": "Install tensorflow-cpu", "verify": "verifying: "},
}
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)
DELAY_S = 0.5
"""Each wheel download waits this long: the resolve and install steps are under way for seconds."""
PIP_TIMEOUT_S = "20"
"""pip's read timeout against the slow index: the 2 s of pip_env is for indexes that never answer;
here a dozen fix processes share two cores with the index's thread, and a wheel sent after the
delay could reach pip after 2 s (a case failed so: 'Read timed out. (read timeout=2.0)')."""


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> FixWorld:
    return shared_world(tmp_path_factory, "fixinterrupt")


@dataclass
class Case:
    mode: str
    step: str
    signum: int
    env: Path
    """The environment the fix writes to: the diagnosed copy in place, the new one otherwise."""
    args: list[str]
    run: FixRun | None = None
    problems: list[str] = field(default_factory=list)


def _case(world: FixWorld, mode: str, step: str, signum: int, test: str = "every-step") -> Case:
    name = f"{test}-{mode}-{step}-{signal.Signals(signum).name}"
    if mode == "in-place":
        env = world.copy(name)
        return Case(mode, step, signum, env, ["fix", "--python", str(env), "--in-place", "--yes", "--json"])
    env = world.root / f"{name}-new"
    return Case(mode, step, signum, env, ["fix", "--python", str(world.template), "--new-env", str(env),
                                          "--yes", "--json"])


def _interrupt(case: Case) -> None:
    """Wait for the step to start, then send the signal (to a process that is still running)."""
    assert case.run is not None
    started = STEPS[case.mode][case.step]
    if not case.run.wait_for(lambda line: line.startswith(started), timeout=240):
        case.problems.append(f"the step never started:\n{case.run.err}")
        return
    if case.run.proc.poll() is not None:
        case.problems.append(f"ended before the signal:\n{case.run.err}")
        return
    case.run.proc.send_signal(case.signum)
    case.run.finish(120)


def _as_before(world: FixWorld, case: Case, before: dict[str, str]) -> list[str]:
    """What is wrong with the state a stopped fix left (nothing: as before, nothing left over)."""
    wrong = []
    if case.mode == "in-place" and env_files(case.env) != before:
        now = env_files(case.env)
        differ = sorted(k for k in set(now) | set(before) if now.get(k) != before.get(k))
        wrong.append(f"the diagnosed environment changed: {differ[:5]}")
    if case.mode == "new-env" and case.env.exists():
        wrong.append(f"the half-made {case.env} is still there")
    if case.mode == "new-env" and env_files(world.template) != before:
        wrong.append("the diagnosed environment changed")
    if beside(case.env):
        wrong.append(f"left beside it: {beside(case.env)}")
    left = gone_in_time(str(case.env))
    if left:
        wrong.append(f"processes left: {left}")
    return wrong


def test_stopped_at_every_step_by_every_signal_nothing_is_lost(world):
    before = env_files(world.template)
    cases = [_case(world, mode, step, signum) for mode in STEPS for step in STEPS[mode] for signum in SIGNALS]
    with index(world, delay=DELAY_S) as slow:
        for case in cases:
            case.run = FixRun(case.args, world.env(slow.url, PIP_TIMEOUT=PIP_TIMEOUT_S))
        threads = [threading.Thread(target=_interrupt, args=(case,)) for case in cases]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(400)
    killed = []
    for case in cases:
        run = case.run
        assert run is not None
        label = f"{case.mode} at {case.step} by {signal.Signals(case.signum).name}"
        assert not case.problems, f"{label}: {case.problems}"
        assert run.proc.returncode == (130 if case.signum == signal.SIGINT else -case.signum), f"{label}:\n{run.err}"
        assert "Traceback" not in run.err, f"{label}:\n{run.err}"
        if case.signum == signal.SIGKILL:
            killed.append(case)
            continue
        outcome = json.loads(run.out)["outcome"]  # the document, even when stopped by a signal
        assert outcome["status"] == "interrupted" and outcome["exit_code"] == 128 + case.signum, label
        wrong = _as_before(world, case, before)
        assert not wrong, f"{label}: {wrong}\n{run.err}"
    # killed outright: the next fix recognises what was left, says so, and cleans it up first
    # (the index now refuses, so that fix changes nothing itself and fails after the clean-up)
    with index(world, "403") as refusing:
        journals = {id(case): bool(beside(case.env)) and any(n.endswith(".journal") for n in beside(case.env))
                    for case in killed}
        nexts = [(case, FixRun([a for a in case.args if a != "--json"], world.env(refusing.url)))
                 for case in killed if not gone_in_time(str(case.env))]
        assert len(nexts) == len(killed), "a killed fix left processes behind"
        for case, run in nexts:
            run.finish(240)
    for case, run in nexts:
        label = f"{case.mode} killed at {case.step}"
        if journals[id(case)]:
            assert "was interrupted at step" in run.err, f"{label}: not recognised:\n{run.err}"
        assert run.proc.returncode == 1 and "answered HTTP 403" in run.err, f"{label}:\n{run.err}"
        wrong = _as_before(world, case, before)
        assert not wrong, f"{label}: {wrong}\n{run.err}"
    assert any(journals.values()), "no fix was killed half-way"


def test_a_second_ctrl_c_does_not_cut_the_clean_up_short(world):
    before = env_files(world.template)
    in_place = _case(world, "in-place", "install", signal.SIGINT, "twice")
    new_env = _case(world, "new-env", "install", signal.SIGINT, "twice")
    with index(world, delay=DELAY_S) as slow:
        for case, cleaning in ((in_place, "restoring "), (new_env, "removing the half-made")):
            run = case.run = FixRun(case.args, world.env(slow.url, PIP_TIMEOUT=PIP_TIMEOUT_S))
            assert run.wait_for(lambda line: line.startswith("Install tensorflow-cpu"))
            run.proc.send_signal(signal.SIGINT)
            assert run.wait_for(lambda line, text=cleaning: line.startswith(text)), run.err
            for _ in range(3):
                run.proc.send_signal(signal.SIGINT)  # Ctrl-C, again and again, during the clean-up
            assert run.finish(120) == 130, run.err
    for case in (in_place, new_env):
        wrong = _as_before(world, case, before)
        assert not wrong, f"{case.mode}: {wrong}\n{case.run.err if case.run else ''}"
        outcome = json.loads(case.run.out)["outcome"] if case.run else {}
        assert outcome["status"] == "interrupted"
        assert "restored" in outcome["cleanup"] or "was removed" in outcome["cleanup"]


def _block_removal(directory: Path) -> str:
    """Make part of `directory` impossible to remove: a file system mounted in it (root), or a
    directory without write permission (anyone else); "" when neither can be done."""
    stuck = directory / "stuck"
    stuck.mkdir()
    (stuck / "file").write_text("x")
    if os.geteuid() != 0:
        stuck.chmod(0o500)
        return "chmod"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(stuck)], capture_output=True)
    return "mount" if done.returncode == 0 else ""


def test_a_clean_up_that_leaves_files_says_so_and_the_next_fix_finishes_it(world):
    case = _case(world, "new-env", "install", signal.SIGINT, "stuck")
    how = ""
    try:
        with index(world, delay=DELAY_S) as slow:
            run = case.run = FixRun(case.args, world.env(slow.url, PIP_TIMEOUT=PIP_TIMEOUT_S))
            assert run.wait_for(lambda line: line.startswith("Install tensorflow-cpu"))
            how = _block_removal(case.env)
            if not how:
                run.proc.kill()
                run.finish()
                pytest.skip("cannot make a file that resists removal here")
            run.proc.send_signal(signal.SIGINT)
            assert run.finish(120) == 130, run.err
        outcome = json.loads(run.out)["outcome"]
        assert "could not be removed completely" in outcome["cleanup"] and "was removed;" not in run.err
        assert "entries remain" in run.err and case.env.exists()
        assert any(name.endswith(".journal") for name in beside(case.env))  # for the next fix
    finally:
        stuck = case.env / "stuck"
        if how == "mount":
            subprocess.run(["umount", "-l", str(stuck)], capture_output=True)
        elif how == "chmod" and stuck.exists():
            stuck.chmod(0o700)
    with index(world, "403") as refusing:
        again = run_fix([a for a in case.args if a != "--json"], world.env(refusing.url))
    assert "was interrupted at step install" in again.err and "its half-made environment was removed" in again.err
    assert not case.env.exists() and beside(case.env) == []
