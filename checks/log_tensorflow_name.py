"""pip's resolver refusing a package over its requirement on the distribution `tensorflow`
("X 1.0 depends on tensorflow~=2.10.0" under "The conflict is caused by:"), or a report saying so
in words. On Apple silicon where pip found no arm64 `tensorflow` (before 2.13, or none in the
range) that refusal is the cause, read from what pip printed; beside an installed tensorflow-macos
before 2.13 install.requires-tensorflow-name names it (the installed distribution is the story);
elsewhere it is a conflict between requirements. Which lines are the name is judged once, in
tfdoctor.advice.tensorflow_name, so this rule and the install rule agree.
"""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.log_evidence import evidence, matches_of, said
from tfdoctor.advice.pip_refusal import found_none_of
from tfdoctor.advice.tensorflow_name import refusal_evidence, refusal_story, refused_for_tensorflow_name
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.LOG_PIP_DEPENDS_ON_TENSORFLOW, "pip could not satisfy a package's requirement on `tensorflow`",
      Severity.ERROR,
      "pip's resolver prints 'Cannot install X because these package versions have conflicting "
      "dependencies' and, under 'The conflict is caused by:', 'X 1.0 depends on tensorflow~=2.10.0'. "
      "On Apple silicon the distribution `tensorflow` has arm64 wheels only from 2.13 on (before, "
      "TensorFlow there was tensorflow-macos): where no release the requirement admits has one, or "
      "pip ran before them, that is the cause. Beside an installed tensorflow-macos before 2.13 it is "
      "install.requires-tensorflow-name; pip's own 'No matching distribution found for tensorflow' "
      "beside it is the same name refused, which it explains. Elsewhere (Linux, an Intel Mac, or "
      "where `tensorflow` itself is installed) it is a conflict between requirements, not a broken "
      "TensorFlow (information).",
      "Move to TensorFlow 2.13+ (or a newer release of the package that accepts it), or install the "
      "package with --no-deps beside TensorFlow; elsewhere see which tensorflow releases exist for "
      "this Python and loosen the pins.",
      fix_answer=ABOUT_THE_LOG)
def pip_depends_on_tensorflow(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_PIP_DEPENDS_ON_TENSORFLOW)
    if not matches:
        return None
    refused = [r for r in refused_for_tensorflow_name(s, d) if r.match.code == codes.LOG_PIP_DEPENDS_ON_TENSORFLOW]
    if refused:
        text, fix = refusal_story(s, d, refused[0])
        return pip_depends_on_tensorflow.finding(refusal_evidence(s, d, refused[0]), fix, title=text,
                                                 explains=found_none_of(s, "tensorflow"))  # the same name refused
    match = matches[0]
    f = match.fields
    if said(match):  # the report's words, not pip's lines
        text = ("the report says a package requires the distribution `tensorflow` where the Mac needs "
                "tensorflow-macos; not so here (`tensorflow` installed, or not Apple silicon)")
        return pip_depends_on_tensorflow.finding(evidence(s, match, tensorflow=d.tf_version),
                                                 Remediation(text), title=text, severity=Severity.INFO)
    what = f"{f.get('required_by', '?')} {f.get('required_by_version', '')}".strip()
    wants = f"tensorflow{f.get('specifier', '')}"
    text = (f"pip's resolver found no `{wants}` that fits {what} and the rest of what was asked "
            f"(Python {s.python.minor if s.python else 'version not stated'}): a conflict between requirements, not a "
            "broken TensorFlow")
    return pip_depends_on_tensorflow.finding(
        evidence(s, match, tensorflow=d.tf_version),
        Remediation(text + ". See which tensorflow releases exist for this Python, then loosen the pins "
                    "that exclude them", (pip(s, "index", "versions", "tensorflow"),)),
        title=text, severity=Severity.INFO)
