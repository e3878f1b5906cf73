"""Text of Apple's 2020-21 ML Compute fork of TensorFlow (tensorflow_macos 0.1alpha): its device API
and ML Compute's own log lines. With the fork installed compat.mlcompute-fork (checks/compat_era.py)
is the cause; with a plugin-era TensorFlow the code was written for the fork."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.fork_exit import fork_failed, plugin_era_way
from tfdoctor.advice.installs import APPLE_PLUGIN_PAGE
from tfdoctor.advice.log_evidence import evidence, matches_of
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import eras
from tfdoctor.logtext.install import FORK_VENV
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.LOG_MLCOMPUTE_FORK, "The text is of Apple's ML Compute fork of TensorFlow",
      Severity.ERROR,
      "`from tensorflow.python.compiler.mlcompute import mlcompute`, `mlcompute.set_mlc_device`, "
      "'MLCompute device must be set before initialization' and ML Compute's 'tf2mlcompute' log "
      "lines belong to Apple's 2020-21 fork (apple/tensorflow_macos#58, #218), and so do its "
      "installer's lines, paths in its installer's default environment (tensorflow_macos_venv, "
      "Python 3.8) and the MLC ops its graphs hold ('tf.MLCConv2D' op is neither a custom "
      "op nor a flex op). Where a plugin-era TensorFlow is installed, the code was written for the "
      "fork and calls a module this TensorFlow does not have (a path in the installer's environment "
      "then says only that the text ran there: information). Otherwise this text is the cause where "
      "it shows the fork failing (a warning), and information where it shows it at work (an "
      "installed fork is then compat.mlcompute-fork's to tell).",
      "Move to TensorFlow with tensorflow-metal (the finding gives the commands) and remove the "
      "mlcompute lines: tensorflow-metal gives TensorFlow the GPU without them.",
      APPLE_PLUGIN_PAGE, fix_answer=ABOUT_THE_LOG)
def log_mlcompute_fork(s: Snapshot, d: Derived):
    # the fork's own words first: the installer's folder is only a name
    for match in sorted(matches_of(s, codes.LOG_MLCOMPUTE_FORK), key=lambda m: m.fields.get("sign") == FORK_VENV):
        tf = d.tensorflow
        if eras.plugin_era(tf) and match.fields.get("sign") == FORK_VENV:
            fix, _reqs = plugin_era_way(s, d, "the TensorFlow that printed this")
            text = (f"the text ran in the ML Compute fork installer's environment (tensorflow_macos_venv), "
                    f"not with this {tf.label}: that environment holds Apple's unmaintained fork")
            return log_mlcompute_fork.finding(evidence(s, match, tensorflow=tf.label), fix, title=text,
                                              severity=Severity.INFO)
        if eras.plugin_era(tf):  # the code is the fork's, this TensorFlow is not
            text = (f"this code selects the GPU through the ML Compute fork's mlcompute module, which "
                    f"{tf.label} does not have: remove the mlcompute lines "
                    "(tensorflow-metal gives TensorFlow the GPU without them)")
            return log_mlcompute_fork.finding(
                evidence(s, match, tensorflow=tf.label),
                Remediation(text, (), APPLE_PLUGIN_PAGE, code=eras.WITHOUT_MLCOMPUTE),
                title=f"Code for Apple's 2020 ML Compute fork run on {tf.label}: {text}")
        what = tf.label if tf is not None else "the TensorFlow that printed this"
        fix, _reqs = plugin_era_way(s, d, what)
        return log_mlcompute_fork.finding(
            evidence(s, match, tensorflow=what if tf is not None else None), fix,
            title=f"ML Compute fork: {what} is Apple's unmaintained fork of TensorFlow 2.4, without "
                  "tensorflow-metal: move to TensorFlow with tensorflow-metal",
            severity=Severity.WARNING if fork_failed(s) else Severity.INFO)  # the fork at work is no failure
    return None
