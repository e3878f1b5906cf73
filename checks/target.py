"""Could the diagnosed interpreter be examined at all, and completely? A Python that crashes at
start-up, hangs, or has unreadable packages is itself the first thing to fix."""

from __future__ import annotations

import shlex

from tfdoctor import codes
from tfdoctor.advice.commands import pip, venv_command
from tfdoctor.advice.fix_answers import (
    ABOUT_OTHER_INTERPRETERS,
    ABOUT_THE_FACTS,
    NOTHING_WRONG,
)
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.TARGET_UNUSABLE, "The diagnosed interpreter could not be examined", Severity.ERROR,
      "tfdoctor runs a small standard-library script in the interpreter it diagnoses. That "
      "script crashed, hung, or gave no result: the file is not a working Python, or its "
      "start-up (sitecustomize, a .pth file, PYTHONPATH) is broken.",
      "Run the interpreter by hand (`PYTHON -c 'import sys; print(sys.version)'`) and fix what "
      "it prints; check PYTHONPATH and PYTHONHOME.", fix_answer=ABOUT_THE_FACTS)
def unusable(s: Snapshot, d: Derived):
    t = s.target
    if t.ok or t.problem == "temp-dir":
        return None
    python = shlex.quote(t.python)
    if t.problem == "not-python":
        fix = Remediation("This is not a Python interpreter: pass --python a python executable, "
                          "a virtualenv or a conda environment folder", (f"{python} --version",))
    elif t.problem == "unsupported-python":
        fix = Remediation("tfdoctor diagnoses Python 3.8 or later (TensorFlow for macOS needs it "
                          "too): create an environment with a newer Python",
                          (venv_command("3", ("tensorflow",), maker="python3"),))
    elif t.started is False:
        fix = Remediation("The interpreter did not finish starting: its site customisation "
                          "(sitecustomize.py, a .pth file, PYTHONSTARTUP/PYTHONPATH) hangs or "
                          "crashes; start it without site to confirm",
                          (f"{python} -S -c 'import sys; print(sys.version)'",
                           f"{python} -c 'import sys; print(sys.version)'"))
    else:
        fix = Remediation("Run the interpreter by hand and fix what it prints",
                          (f"{python} -c 'import sys; print(sys.version)'",))
    return unusable.finding(
        {"python": t.python, "problem": t.problem, "message": t.message, "started": t.started,
         "stderr_tail": t.stderr_tail[-2000:]}, fix,
        title=f"{t.python} could not be examined: {t.message}")


@rule(codes.TARGET_TEMP_DIR, "tfdoctor could not use a temporary directory", Severity.ERROR,
      "tfdoctor runs its collector and the TensorFlow child from a private temporary directory "
      "(removed afterwards). None could be created, or something in the diagnosed environment "
      "deleted it while the child ran: the interpreter itself may be fine.",
      "Point TMPDIR at a writable directory (or free space in the one it names) and run again.",
      fix_answer=ABOUT_THE_FACTS)
def temp_dir(s: Snapshot, d: Derived):
    t = s.target
    if t.ok or t.problem != "temp-dir":
        return None
    return temp_dir.finding(
        {"python": t.python, "message": t.message, "TMPDIR": s.env.get("TMPDIR")},
        Remediation("Use a writable temporary directory", ("mkdir -p ~/tmp", "export TMPDIR=~/tmp")),
        title=f"tfdoctor could not use a temporary directory: {t.message}")


@rule(codes.TARGET_PARTIAL_FACTS, "Some facts could not be collected", Severity.WARNING,
      "Part of the collector failed (an unreadable site-packages directory, a permission "
      "error). Rules that need those facts may miss problems.",
      "Fix the permission or path named in the evidence, or run tfdoctor as the owner.",
      fix_answer=ABOUT_THE_FACTS)
def partial_facts(s: Snapshot, d: Derived):
    if not s.target.ok or not s.errors:
        return None
    n = len(s.errors)
    return partial_facts.finding(
        {"errors": [{"what": e.what, "error": e.error} for e in s.errors]},
        Remediation(partial_facts.doc.fix),
        title=f"{n} part{'s' if n != 1 else ''} of the facts could not be collected")


@rule(codes.TARGET_CORRUPT_METADATA, "Installed distributions have missing or corrupt metadata",
      Severity.WARNING,
      "A *.dist-info directory without a readable METADATA (or without Name/Version) is left "
      "by an interrupted install or a manual delete; pip and TensorFlow's own version checks "
      "then misjudge the environment.",
      "Reinstall the distribution with `--force-reinstall --no-deps`, or delete the stale "
      "dist-info directory.", fix_answer=ABOUT_THE_FACTS)
def corrupt_metadata(s: Snapshot, d: Derived):
    broken = [p for p in s.packages if p.error]
    if not s.target.ok or not broken:
        return None
    names = [f"{p.name}=={p.version}" if p.version else p.name for p in broken if p.name]
    n = len(broken)
    return corrupt_metadata.finding(
        {"distributions": [{"location": p.location, "error": p.error} for p in broken]},
        Remediation("Reinstall them, or delete the stale dist-info directories listed",
                    (pip(s, "install", "--force-reinstall", "--no-deps", *names),) if names else ()),
        title=f"{n} installed distribution{'s have' if n != 1 else ' has'} missing or corrupt metadata")


@rule(codes.TARGET_OTHER_PYTHON_ON_PATH, "A new terminal's python3 is another interpreter", Severity.INFO,
      "The first python3 on PATH is not the interpreter diagnosed, so `python3 train.py` in a new "
      "terminal runs another Python with other packages: what this report says of one does not "
      "hold for the other.",
      "Run your scripts with the interpreter diagnosed (or activate its environment), or diagnose "
      "the other one with --python.", fix_answer=ABOUT_OTHER_INTERPRETERS)
def other_python_on_path(s: Snapshot, d: Derived):
    on_path = [p for p in s.shell.pythons_on_path if p.name in ("python3", "python")]
    if not s.target.ok or not on_path or any(p.is_target for p in on_path[:1]):
        return None
    first = on_path[0]
    return other_python_on_path.finding(
        {"diagnosed": s.target.python, "first_on_path": first.path, "realpath": first.realpath,
         "on_path": [p.path for p in on_path[:6]]},
        Remediation("Diagnose the one a new terminal runs too", (f"tfdoctor check --python {shlex.quote(first.path)}",)),
        title=f"A new terminal's {first.name} is {first.path}, not the interpreter diagnosed")


@rule(codes.TARGET_OK, "The interpreter was examined", Severity.OK, "All facts were collected.",
      "Nothing to do.", summary=True, fix_answer=NOTHING_WRONG)
def target_ok(s: Snapshot, d: Derived):
    if not s.target.ok or s.errors or any(p.error for p in s.packages):
        return None
    dirs = len(s.python.site_packages) if s.python else 0
    return target_ok.finding(
        {"python": s.target.python},
        title=f"{len(s.packages)} distributions read from {dirs} site dir{'s' if dirs != 1 else ''}")
