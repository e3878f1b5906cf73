"""Does the installed tensorflow-metal go with the installed TensorFlow? pip enforces none of it:
the metal wheels declare no TensorFlow dependency, so pip installs any plugin beside any
TensorFlow. The verdict comes from the bundled compatibility matrix (compat_matrix.json, see
tfdoctor/knowledge/matrix.py) and the plugin binaries' load check, through tfdoctor.advice.pair_verdict, whose
facts carry their sources; the finding quotes them. Whether this Python, architecture and macOS
have wheels at all is checks/compat_platform.py's question."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fix_answers import GOAL_INSTALLED
from tfdoctor.advice.installs import (APPLE_PLUGIN_PAGE, install_commands, listing_read, matching_metal,
                                     recommended_requirements)
from tfdoctor.advice.pair_verdict import LOAD_FAILURES, judge_pair, judgeable, plugin_load_failures
from tfdoctor.derived import Derived
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
      "Runtime reports win over Apple's table, which also lists 1.1.0 for 2.18.",
      "Install the pair the finding names (a plugin documented or reported to work with this "
      "TensorFlow, else the recommended TensorFlow + tensorflow-metal).",
      APPLE_PLUGIN_PAGE, explains=LOAD_FAILURES, fix_answer=GOAL_INSTALLED)
def tf_metal_mismatch(s: Snapshot, d: Derived):
    if not judgeable(s, d):
        return None
    if d.metal is None:
        return _seen_failing(s, d)
    metal, real = d.metal, d.providers
    if len(real) > 1:
        installed = ", ".join(f"{p.name} {p.version}" for p in real)
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
    problem = judge_pair(s, d, d.matrix, d.tensorflow, metal, s.python.minor, d.hardware_arch).problem
    if problem is None:
        return None
    return tf_metal_mismatch.finding(problem.evidence, problem.fix, title=problem.title,
                                     detail=problem.detail, severity=problem.severity, basis=problem.basis)


def _seen_failing(s: Snapshot, d: Derived):
    """A pasted error shows the Metal plugin failing to load where the snapshot does not say which
    tensorflow-metal is installed (a report that did not list it: unknown, not absent). The pair
    is then observed not to load: the plugin built for the installed TensorFlow is the fix."""
    seen = plugin_load_failures(s)
    if not seen or listing_read(s) or d.metal_plugins or len(d.providers) > 1:
        return None
    tf = d.tensorflow
    plugin = (matching_metal(d.matrix, tf.version, s.python.minor, d.hardware_arch)
              if tf is not None and tf.version else None)
    named = next((m for m in seen if m.fields.get("symbol")), None)
    what = f"{tf.name} {tf.version}" if tf is not None else "the installed TensorFlow"
    if plugin is not None:
        fix = Remediation(f"Install tensorflow-metal {plugin.version}, the plugin built for {what}",
                          tuple(install_commands(s, [f"tensorflow-metal=={plugin.version}"], d=d)),
                          APPLE_PLUGIN_PAGE)
    else:
        reqs = recommended_requirements(s).requirements
        fix = Remediation(f"No tensorflow-metal is known to work with {what}: install "
                          + (" + ".join(reqs) or "a pair that has wheels for this Python"),
                          tuple(install_commands(s, reqs, d=d)) if reqs else (), APPLE_PLUGIN_PAGE)
    return tf_metal_mismatch.finding(
        {"tensorflow": f"{tf.name} {tf.version}" if tf is not None else None, "tensorflow_metal": None,
         "observed_in": (named or seen[0]).text,
         "matching_metal": plugin.version if plugin is not None else None},
        fix, basis="observed", severity=Severity.ERROR if named else Severity.WARNING,
        title=f"The Metal plugin fails to load with {what}: the installed tensorflow-metal (its version "
              f"not stated) is not built for it"
              + ("" if named else " (the paste stops before the reason; this is the usual one)"))
