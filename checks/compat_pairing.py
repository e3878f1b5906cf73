"""Does the installed tensorflow-metal go with the installed TensorFlow? pip enforces none of it:
the metal wheels declare no TensorFlow dependency, so pip installs any plugin beside any
TensorFlow. The verdict comes from the bundled compatibility matrix (compat_matrix.json, see
tfdoctor/knowledge/matrix.py) and the plugin binaries' load check, through tfdoctor.advice.pair_verdict, whose
facts carry their sources; the finding quotes them. Whether this Python, architecture and macOS
have wheels at all is checks/compat_platform.py's question."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fix_answers import GOAL_INSTALLED
from tfdoctor.advice.installs import APPLE_PLUGIN_PAGE
from tfdoctor.advice.pair_verdict import LOAD_FAILURES, for_every_arch, judge_pair, judge_pair_any_python, judgeable
from tfdoctor.derived import Derived, verdict_archs
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.COMPAT_TF_METAL_MISMATCH, "TensorFlow and tensorflow-metal are not a known-good pair",
      Severity.ERROR,
      "tensorflow-metal links against TensorFlow's internal C++ ABI, so each release works "
      "only with the TensorFlow it was built for; its wheels declare no TensorFlow dependency, "
      "so pip installs any plugin beside any TensorFlow. tfdoctor's matrix rates the installed "
      "pair: reported to fail at load (error, with the report quoted: tensorflow-metal 1.1.0 "
      "with TensorFlow 2.18, 1.2.0 with 2.20 and 2.21), a plugin made for an older or newer "
      "TensorFlow (error), or a pair neither Apple's table nor any report covers (warning). "
      "Runtime reports win over Apple's table, which also lists 1.1.0 for 2.18. A TensorFlow "
      "stated without its patch ('TensorFlow 2.16') stands for its releases: a problem only when "
      "every one of them is.",
      "Install the pair the finding names (a plugin documented or reported to work with this "
      "TensorFlow, else the recommended TensorFlow + tensorflow-metal).",
      APPLE_PLUGIN_PAGE, explains=LOAD_FAILURES, fix_answer=GOAL_INSTALLED)
def tf_metal_mismatch(s: Snapshot, d: Derived):
    if not judgeable(s, d, python=False) or d.metal is None:
        return None
    metal, real = d.metal, d.providers
    if len(real) > 1:
        installed = ", ".join(p.label for p in real)
        return tf_metal_mismatch.finding(
            {"tensorflow_distributions": {p.name: p.version for p in real}, "tensorflow_metal": metal.version},
            Remediation("Leave one TensorFlow installed (see install.multiple-tensorflow); the "
                        "pair is judged then"),
            title=f"tensorflow-metal {metal.version} cannot be paired: {len(real)} TensorFlows are "
                  f"installed over each other ({installed})",
            detail="Their files overwrite each other, so the TensorFlow the plugin meets matches "
                   "neither version.", severity=Severity.WARNING)
    if d.tensorflow is None:
        return None
    problem = for_every_arch([(judge_pair(s, d, d.matrix, d.tensorflow, metal, s.python.minor, arch) if judgeable(s, d)
                               else judge_pair_any_python(s, d, d.matrix, d.tensorflow, metal, arch)).problem
                              for arch in verdict_archs(s, d)], lambda p: p.title, "fix")
    if problem is None:
        return None
    return tf_metal_mismatch.finding(problem.evidence, problem.fix, title=problem.title,
                                     detail=problem.detail, severity=problem.severity, basis=problem.basis)
