"""How the child that imports TensorFlow died or failed to answer: killed by SIGILL (an x86_64
TensorFlow under Rosetta 2 or an emulator, without AVX), crashed by another signal (a plugin, a
fatal check), hung past its timeout, exited without a result, or wrote something that is not one.
Reads only snapshot.runtime (gathered by tfdoctor.gather.runtime); tfdoctor.advice.import_outcome decides which
of these rules (or of checks/runtime_import.py's, when the import raised or NumPy's ABI error came
before the crash) speaks, and every fix is a command to run."""

from __future__ import annotations

import os
import shlex

from tfdoctor import codes
from tfdoctor.advice.commands import machine_check, pip, python_cmd, venv_command
from tfdoctor.advice.fix_answers import (
    ARM64_PYTHON_FIRST,
    CAUSE_NOT_KNOWN,
    GOAL_INSTALLED,
)
from tfdoctor.advice.import_outcome import ImportOutcome, crash_evidence, outcome_rules
from tfdoctor.advice.installs import move_python, pair_fix
from tfdoctor.advice.runtime_evidence import (
    base_evidence,
    doing,
    metal_version,
    reinstall_tf,
    stderr_lines,
)
from tfdoctor.derived import Derived
from tfdoctor.facts.runtime import RuntimeFacts
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import best_pair
from tfdoctor.model import Finding, Remediation, Severity, emitter

# ---------------------------------------------------------------------------------------------
# the findings


def _arm64_fix(s: Snapshot, d: Derived) -> Remediation:
    if s.host.system == "Linux" and s.host.cpu_implementer:
        return Remediation("Run an arm64 image: an x86_64 TensorFlow under emulation lacks AVX",
                           ("docker run --platform linux/arm64 IMAGE",),
                           "https://github.com/docker/for-mac/issues/5342")
    if d.apple_silicon or s.host.system == "Darwin":
        reqs: tuple[str, ...] = ("tensorflow",)
        minor = s.python.minor if s.python else "3"
        why = ""
        matrix = d.matrix
        if matrix is not None and s.python:
            try:
                rec = best_pair.recommended_install(matrix, s.python.minor, "arm64", s.host.macos_version or None)
                reqs = tuple(rec.requirements) or reqs
                if not rec.requirements:  # no pair for this Python on arm64: the newest Python that has one
                    target, _venv, target_reqs = move_python(s, matrix, "arm64")
                    minor, reqs = (target, tuple(target_reqs)) if target else (minor, reqs)
                    why = "" if target_reqs else rec.reason  # nothing installs here yet (an old macOS)
            except Exception:  # noqa: BLE001
                pass
        python = "arch -arm64 python" + shlex.quote(minor)
        check = machine_check(python)
        if why:
            return Remediation(f"An arm64 Python is the fix, but first: {why}", (check,), import_sigill.doc.link)
        return Remediation(
            "Make an environment with an arm64 Python and install TensorFlow into it (check that "
            "the first command prints arm64)",
            (check, venv_command(minor, reqs, directory="~/venvs/tf-arm64", maker=python)),
            import_sigill.doc.link)
    return Remediation("This CPU lacks the instructions (AVX) TensorFlow's wheels need: use a "
                       "build without AVX (conda-forge) or another machine",
                       ("conda install -c conda-forge tensorflow",))


def _sigill(s: Snapshot, d: Derived, rt: RuntimeFacts) -> Finding:
    sig = rt.signal or "a signal"
    missing = rt.log.cpu_instructions_missing
    ev = {**crash_evidence(s, d, rt), "cpu_instructions_missing": missing}
    what = f"needs {', '.join(missing)}" if missing else "uses an instruction"
    title = (f"TensorFlow was killed by {sig} while {doing(rt)}: it {what} this CPU (as this "
             "process sees it) does not have")
    return _emit(codes.RUNTIME_IMPORT_SIGILL, title, ev, _arm64_fix(s, d))


def _crashed(s: Snapshot, d: Derived, rt: RuntimeFacts) -> Finding:
    sig = rt.signal or "a signal"
    log = rt.log
    ev = crash_evidence(s, d, rt)
    in_plugin = bool(rt.loading_plugin) or (
        any("load_library" in frame for frame in log.python_stack) and bool(rt.plugins))
    loading = [rt.loading_plugin] if rt.loading_plugin else [p.path for p in rt.plugins]
    where = (f" while loading {', '.join(os.path.basename(p) for p in loading)}"
             if in_plugin else f" while {doing(rt)}")
    title = f"TensorFlow crashed with {sig}{where}"
    if log.fatal:
        title += f": {log.fatal[0][:160]}"
    if in_plugin and (metal_version(d) or d.apple_silicon):
        reqs, why, facts = pair_fix(s, d)
        ev.update(facts)
        commands = (pip(s, "install", "--force-reinstall", *reqs),) if reqs else ()
        fix = Remediation(f"A plugin crashed TensorFlow: {why}", commands)
    elif in_plugin:
        ev["plugins"] = [p.path for p in rt.plugins]
        fix = Remediation("A plugin crashed TensorFlow while it was loaded: move it out of the "
                          "way, or reinstall the package that installed it at the version built "
                          "for this TensorFlow",
                          tuple(f"mv {shlex.quote(p.path)} {shlex.quote(p.path + '.disabled')}"
                                for p in rt.plugins[:3]))
    else:
        commands = [c for c in (reinstall_tf(s, d),) if c]
        commands.append(f"{python_cmd(s)} -X faulthandler -c \"import tensorflow\"")
        fix = Remediation("Reinstall TensorFlow; the last command reproduces the crash with a "
                          "Python stack", tuple(commands))
    return _emit(codes.RUNTIME_IMPORT_CRASHED, title, ev, fix)


def _hang(s: Snapshot, d: Derived, rt: RuntimeFacts) -> Finding:
    ev = {**base_evidence(s, d, rt), "timeout_s": rt.timeout_s, "python_stack": rt.log.python_stack[:8],
          "stderr_tail": stderr_lines(rt)}
    where = f" (last Python frame: {rt.log.python_stack[0]})" if rt.log.python_stack else ""
    title = f"TensorFlow did not finish within {rt.timeout_s or 0:g} s: stuck {doing(rt)}{where}"
    longer = max(300, int((rt.timeout_s or 60) * 5))
    fix = Remediation(
        "Try a longer timeout; if it still hangs, the second command prints where (after 60 s)",
        (f"tfdoctor check --python {python_cmd(s)} --timeout {longer}",
         f"{python_cmd(s)} -c \"import faulthandler; faulthandler.dump_traceback_later(60, exit=True); "
         "import tensorflow\""))
    return _emit(codes.RUNTIME_IMPORT_HANG, title, ev, fix)


def _no_result(s: Snapshot, d: Derived, rt: RuntimeFacts, code: str) -> Finding:
    ev = {**base_evidence(s, d, rt), "returncode": rt.returncode, "message": rt.message,
          "stderr_tail": stderr_lines(rt)}
    title = (f"The TensorFlow child {rt.message}" if code == codes.RUNTIME_NO_RESULT
             else f"The TensorFlow child's output is unusable: {rt.message}")
    fix = Remediation("Import TensorFlow by hand with this interpreter and fix what it prints",
                      (f"{python_cmd(s)} -c \"import tensorflow as tf; print(tf.__version__)\"",))
    return _emit(code, title, ev, fix)


def _finding(s: Snapshot, d: Derived, outcome: ImportOutcome) -> Finding:
    """The finding of the rule the import's classification named."""
    rt, code = s.runtime, outcome.code
    if code == codes.RUNTIME_IMPORT_SIGILL:
        return _sigill(s, d, rt)
    if code == codes.RUNTIME_IMPORT_CRASHED:
        return _crashed(s, d, rt)
    if code == codes.RUNTIME_IMPORT_HANG:
        return _hang(s, d, rt)
    if rt.outcome == "temp-dir":  # not the interpreter's fault: tfdoctor had no usable temp dir
        return _emit(codes.RUNTIME_NO_RESULT, f"The TensorFlow child could not run: {rt.message}",
                     {**base_evidence(s, d, rt), "message": rt.message},
                     Remediation("Point TMPDIR at a writable directory and run again",
                                 ("mkdir -p ~/tmp", "export TMPDIR=~/tmp")))
    return _no_result(s, d, rt, code)


_outcome_rule = outcome_rules(_finding)


# ---------------------------------------------------------------------------------------------
# the rules (which fires is decided by tfdoctor.advice.import_outcome)


import_sigill = _outcome_rule(codes.RUNTIME_IMPORT_SIGILL, "TensorFlow needs CPU instructions this process does not have (Illegal instruction)",
    Severity.ERROR,
    "Importing TensorFlow killed the interpreter with SIGILL (`Illegal instruction: 4`, "
    "`zsh: illegal hardware instruction python`), or TensorFlow aborted with 'The TensorFlow "
    "library was compiled to use AVX instructions, but these aren't available on your "
    "machine'. Intel builds of TensorFlow need AVX; Rosetta 2 and QEMU do not provide it. "
    "On Apple silicon this means the Python runs as x86_64 under Rosetta 2.",
    "Use an arm64 Python (on a Mac) or an arm64 image (in Docker), and install TensorFlow "
    "into it.",
    "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment",
    fix_answer=ARM64_PYTHON_FIRST)


import_crashed = _outcome_rule(codes.RUNTIME_IMPORT_CRASHED, "TensorFlow crashed the interpreter",
    Severity.ERROR,
    "The child that imports TensorFlow was killed by a signal (SIGSEGV, SIGBUS, SIGABRT...). "
    "Usual causes: a plugin or compiled extension built for another TensorFlow, NumPy or "
    "macOS; a fatal check inside TensorFlow (its 'F ...' log line is in the evidence). "
    "The evidence names the stage and, from faulthandler, the Python frame it died in.",
    "Reinstall TensorFlow (and tensorflow-metal) as a known-good pair; the finding names it.", explains=(codes.RUNTIME_NO_GPU,),
    fix_answer=GOAL_INSTALLED)


import_hang = _outcome_rule(codes.RUNTIME_IMPORT_HANG, "TensorFlow hung while importing or initialising its devices",
    Severity.ERROR,
    "The child was killed (with its whole process group) when the timeout ran out. The "
    "evidence shows the stage and the Python stack faulthandler dumped just before. Slow "
    "network file systems, a first import compiling caches, a plugin waiting on a device, "
    "or a lock held by another process are typical; a GPU plugin whose device cannot be "
    "created can also hang TensorFlow's context initialisation (`ensure_initialized` in the "
    "stack), which the simulated GPU reproduces.",
    "Run again with a longer --timeout; if it still hangs, the stack in the evidence names "
    "the module to look at.", explains=(codes.RUNTIME_NO_GPU,), fix_answer=CAUSE_NOT_KNOWN)


no_result = _outcome_rule(codes.RUNTIME_NO_RESULT, "The TensorFlow child exited without a result",
    Severity.ERROR,
    "The child exited on its own (no signal, no timeout) before finishing: something in "
    "the import called sys.exit/os._exit, or the interpreter failed to start the script. "
    "The last lines of its stderr are in the evidence.",
    "Run `python -c 'import tensorflow'` with the diagnosed interpreter and fix what it prints.",
    fix_answer=CAUSE_NOT_KNOWN)


bad_output = _outcome_rule(codes.RUNTIME_BAD_OUTPUT, "The TensorFlow child wrote something other than its result",
    Severity.ERROR,
    "The result file was not the JSON document tfdoctor's child writes: something in the "
    "environment wrote into it, or the interpreter is not a working Python.",
    "Run `python -c 'import tensorflow'` with the diagnosed interpreter; report a tfdoctor "
    "bug if that works.", fix_answer=CAUSE_NOT_KNOWN)


_emit = emitter(import_sigill, import_crashed, import_hang, no_result, bad_output)
