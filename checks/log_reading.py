"""The log as a whole: one that could not be read (missing, a directory, a binary file, empty),
and one read but holding no message tfdoctor knows. Either way the environment is still
diagnosed; these say what the text added to it."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.LOG_UNREADABLE, "The log given could not be read", Severity.WARNING,
      "The file given with --log is missing, a directory, unreadable, a binary file, or empty, "
      "so there is no error text to diagnose (the environment is still diagnosed).",
      "Give the text file with the error (or `-` and paste it on standard input).", fix_answer=ABOUT_THE_LOG)
def unreadable(s: Snapshot, d: Derived):
    log = s.log
    if log is None or not (log.error or log.binary or log.empty):
        return None
    what = log.error or ("a binary file, not a log" if log.binary else "empty")
    return unreadable.finding({"log": log.source, "problem": what, "size": log.size},
                              Remediation(unreadable.doc.fix), title=f"The log {log.source} is {what}"
                              if not log.error else f"The log {log.source}: {what}")


@rule(codes.LOG_NOT_RECOGNISED, "No known error message in the log", Severity.INFO,
      "The log was read but holds none of the error texts tfdoctor knows (`tfdoctor list-checks` "
      "lists the log.* codes); the diagnosis rests on the environment alone.",
      "If it holds an error about TensorFlow on a Mac, report it with the text so a signature "
      "can be added.", fix_answer=ABOUT_THE_LOG)
def not_recognised(s: Snapshot, d: Derived):
    log = s.log
    if log is None or log.matches or log.error or log.binary or log.empty:
        return None
    ev = {"log": log.source, "summary": log.summary(), "notes": list(log.notes)}
    return not_recognised.finding(ev, Remediation(not_recognised.doc.fix),
                                  title=f"No known error message in {log.source} ({log.lines} lines)")
