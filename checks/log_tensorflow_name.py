"""pip's resolver refusing a package over its requirement on the distribution `tensorflow`
("X 1.0 depends on tensorflow~=2.10.0" under "The conflict is caused by:"), or a report saying so
in words: on a Mac whose TensorFlow is tensorflow-macos, or on Apple silicon before `tensorflow`
had arm64 wheels (2.13), that is the distribution's name (install.requires-tensorflow-name, the
cause); elsewhere a conflict between requirements. Which lines are the name is judged once, in
tfdoctor.advice.tensorflow_name, so this rule and the install rule agree.
"""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.log_evidence import evidence, matches_of, said
from tfdoctor.advice.tensorflow_name import refused_for_tensorflow_name
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.LOG_PIP_DEPENDS_ON_TENSORFLOW, "pip could not satisfy a package's requirement on `tensorflow`",
      Severity.ERROR,
      "pip's resolver prints 'Cannot install X because these package versions have conflicting "
      "dependencies' and, under 'The conflict is caused by:', 'X 1.0 depends on tensorflow~=2.10.0'. "
      "On a Mac whose TensorFlow is tensorflow-macos before 2.13, or on Apple silicon where no "
      "`tensorflow` release the requirement admits has an arm64 wheel, that is the distribution's "
      "name, not a conflict (install.requires-tensorflow-name, the cause). Elsewhere (Linux, or "
      "where `tensorflow` itself is installed) it is a conflict between requirements, not a broken "
      "TensorFlow (information).",
      "On such a Mac install the package with --no-deps beside TensorFlow, or move to TensorFlow "
      "2.13+; elsewhere see which tensorflow releases exist for this Python and loosen the pins.",
      fix_answer=ABOUT_THE_LOG)
def pip_depends_on_tensorflow(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_PIP_DEPENDS_ON_TENSORFLOW)
    if not matches:
        return None
    refused = [r for r in refused_for_tensorflow_name(s, d) if r.match.code == codes.LOG_PIP_DEPENDS_ON_TENSORFLOW]
    match = refused[0].match if refused else matches[0]
    f = match.fields
    what = f"{f.get('required_by', '?')} {f.get('required_by_version', '')}".strip()
    wants = f"tensorflow{f.get('specifier', '')}"
    if said(match):  # the report's words, not pip's lines
        if not refused:
            text = ("the report says a package requires the distribution `tensorflow` where the Mac needs "
                    "tensorflow-macos; not so here (`tensorflow` installed, or not Apple silicon)")
            return pip_depends_on_tensorflow.finding(evidence(s, match, tensorflow=d.tf_version),
                                                     Remediation(text), title=text, severity=Severity.INFO)
        text = ("the report says a package requires the distribution `tensorflow`, where TensorFlow on "
                "Apple silicon before 2.13 is tensorflow-macos")
        return pip_depends_on_tensorflow.finding(
            evidence(s, match, why=refused[0].why, tensorflow=d.tf_version),
            Remediation(text + ": see install.requires-tensorflow-name for the way out"), title=text)
    if refused:
        cause = (f"TensorFlow here is {d.tf_main.name} {d.tf_main.version}"
                 if refused[0].why == "tensorflow-macos" and d.tf_main else
                 "pip found no macOS arm64 wheel of it (they exist from 2.13 on)"
                 if refused[0].why == "before-arm64-wheels" else "no release of it there has a macOS arm64 wheel")
        text = f"pip refused {what}: it depends on `{wants}`, and {cause}"
        return pip_depends_on_tensorflow.finding(
            evidence(s, match, why=refused[0].why, tensorflow=d.tf_version),
            Remediation(text + ": install it without its dependencies (install.requires-tensorflow-name)",
                        (pip(s, "install", "--no-deps", f"{f['required_by']}=={f['required_by_version']}"),)
                        if f.get("required_by") and f.get("required_by_version") else ()),
            title=text)
    text = (f"pip's resolver found no `{wants}` that fits {what} and the rest of what was asked "
            f"(Python {s.python.minor if s.python else '?'}): a conflict between requirements, not a "
            "broken TensorFlow")
    return pip_depends_on_tensorflow.finding(
        evidence(s, match, tensorflow=d.tf_version),
        Remediation(text + ". See which tensorflow releases exist for this Python, then loosen the pins "
                    "that exclude them", (pip(s, "index", "versions", "tensorflow"),)),
        title=text, severity=Severity.INFO)
