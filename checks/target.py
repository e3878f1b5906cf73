"""Could the diagnosed interpreter be examined at all, and completely? A Python that crashes at
start-up, hangs, or has unreadable packages is itself the first thing to fix."""

from __future__ import annotations

from tfdoctor.fixes import pip
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.snapshot import Snapshot

CODES = {
    "target.unusable": CodeDoc(
        "The diagnosed interpreter could not be examined",
        Severity.ERROR,
        "tfdoctor runs a small standard-library script in the interpreter it diagnoses. That "
        "script crashed, hung, or gave no result: the file is not a working Python, or its "
        "start-up (sitecustomize, a .pth file, PYTHONPATH) is broken.",
        "Run the interpreter by hand (`PYTHON -c 'import sys; print(sys.version)'`) and fix what "
        "it prints; check PYTHONPATH and PYTHONHOME.",
    ),
    "target.partial-facts": CodeDoc(
        "Some facts could not be collected",
        Severity.WARNING,
        "Part of the collector failed (an unreadable site-packages directory, a permission "
        "error). Checks that need those facts may miss problems.",
        "Fix the permission or path named in the evidence, or run tfdoctor as the owner.",
    ),
    "target.corrupt-metadata": CodeDoc(
        "Installed distributions have missing or corrupt metadata",
        Severity.WARNING,
        "A *.dist-info directory without a readable METADATA (or without Name/Version) is left "
        "by an interrupted install or a manual delete; pip and TensorFlow's own version checks "
        "then misjudge the environment.",
        "Reinstall the distribution with `--force-reinstall --no-deps`, or delete the stale "
        "dist-info directory.",
    ),
    "target.ok": CodeDoc(
        "The interpreter was examined", Severity.OK, "All facts were collected.", "Nothing to do."
    ),
}


def run(s: Snapshot) -> list[Finding]:
    t = s.target
    if not t.ok:
        return [Finding(
            "target.unusable", Severity.ERROR,
            f"{t.python} could not be examined: {t.message}",
            {"python": t.python, "problem": t.problem, "message": t.message,
             "stderr_tail": t.stderr_tail[-2000:]},
            Remediation("Run the interpreter by hand and fix what it prints",
                        (f"{t.python} -c 'import sys; print(sys.version)'",)),
        )]
    findings = []
    if s.errors:
        findings.append(Finding(
            "target.partial-facts", Severity.WARNING,
            f"{len(s.errors)} part(s) of the facts could not be collected",
            {"errors": [{"what": e.what, "error": e.error} for e in s.errors]},
            Remediation(CODES["target.partial-facts"].fix),
        ))
    broken = [p for p in s.packages if p.error]
    if broken:
        names = [p.name for p in broken if p.name]
        findings.append(Finding(
            "target.corrupt-metadata", Severity.WARNING,
            f"{len(broken)} installed distribution(s) have missing or corrupt metadata",
            {"distributions": [{"location": p.location, "error": p.error} for p in broken]},
            Remediation("Reinstall them, or delete the stale dist-info directories listed",
                        (pip(s, "install", "--force-reinstall", "--no-deps", *names),) if names else ()),
        ))
    if not findings:
        findings.append(Finding("target.ok", Severity.OK,
                                f"{len(s.packages)} distributions read from "
                                f"{len(s.python.site_packages) if s.python else 0} site dirs",
                                {"python": t.python}))
    return findings


CHECK = Check(
    name="target",
    area="Interpreter",
    summary="The diagnosed interpreter runs and its facts were collected",
    run=run,
    codes=CODES,
    order=10,
)
