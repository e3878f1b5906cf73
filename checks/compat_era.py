"""Which era of TensorFlow on the Mac GPU is this? Apple's 2020-21 ML Compute fork (tensorflow_macos
0.1alpha, TensorFlow 2.4) has no tensorflow-metal and gets no fixes; the plugin era (tensorflow-macos
2.5 on, then tensorflow with tensorflow-metal) has no mlcompute module. Advice for one era is wrong
in the other (tfdoctor.knowledge.eras). The fork's text is read by checks/log_era.py."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fork_exit import fork_failed, plugin_era_way
from tfdoctor.advice.installs import APPLE_PLUGIN_PAGE
from tfdoctor.advice.log_evidence import matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import eras
from tfdoctor.model import FixAnswer, Severity, rule


@rule(codes.COMPAT_MLCOMPUTE_FORK, "Apple's 2020-21 ML Compute fork of TensorFlow, unmaintained",
      Severity.WARNING,
      "tensorflow-macos 0.1a1-0.1a3 (tensorflow_macos 0.1alpha, installed by the script of the "
      "apple/tensorflow_macos releases) is TensorFlow 2.4.0rc0 rebuilt on Apple's ML Compute: it "
      "picks the GPU with its own `mlcompute.set_mlc_device`, has no tensorflow-metal (the plugin "
      "came with tensorflow-macos 2.5.0 in June 2021), and Apple archived it. Installing "
      "tensorflow-metal into it is wrong; its errors ('MLCompute device must be set before "
      "initialization', ML Compute's 'tf2mlcompute' lines) get no fixes. Told by the installed "
      "version: tensorflow-macos before 2.5, or natively on Apple silicon a `tensorflow` 2.4.0rc0, "
      "the version the fork gives itself; in a report, also a line that installs from "
      "apple/tensorflow_macos, its releases or its scripts (the fork seen only in a text, or failing "
      "in its own text, is log.mlcompute-fork). A warning when the text shows something failing (a "
      "traceback, a crash: the fork gets no fixes) or its writer says the GPU is not found or used; "
      "information when it only shows the fork at work, an empty GPU list printed included (the fork "
      "lists none by design).",
      "Move to the plugin era: a new environment with TensorFlow and tensorflow-metal (the finding "
      "gives the commands), and remove the two mlcompute lines from the code.",
      APPLE_PLUGIN_PAGE,
      explains=(codes.LOG_MLCOMPUTE_FORK, codes.COMPAT_NO_METAL, codes.COMPAT_TF_METAL_MISMATCH,
                codes.LOG_NO_GPU_LISTED, codes.RUNTIME_NO_GPU),
      fix_answer=FixAnswer(False, "leaving the fork also means changing the code (its mlcompute "
                           "lines), and perhaps the Python: the finding gives the commands and lines"))
def mlcompute_fork(s: Snapshot, d: Derived):
    seen = matches_of(s, codes.LOG_MLCOMPUTE_FORK)
    if not d.fork or any(eras.is_fork_failure(match.text) for match in seen):
        return None  # the fork seen only in a text, or failing in it, is that text's story (log.mlcompute-fork)
    tf = d.tensorflow
    what = tf.label
    fix, reqs = plugin_era_way(s, d, what)
    facts = {"tensorflow": what, "based_on": eras.FORK_BASE, "gpu_through": "ML Compute (mlcompute module)",
             "plugin_era_from": f"tensorflow-macos {eras.PLUGIN_ERA_FROM} with tensorflow-metal",
             "sources": list(eras.SOURCES), "recommended": list(reqs) or None}
    if seen:
        facts["observed_in"] = seen[0].text
    return mlcompute_fork.finding(
        facts, fix, title=f"{what} is Apple's unmaintained ML Compute fork (TensorFlow 2.4, no tensorflow-metal): "
                          "move to TensorFlow with tensorflow-metal",
        severity=None if fork_failed(s) else Severity.INFO)  # a working fork is old, not broken
