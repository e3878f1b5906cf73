"""Is each companion with compiled ops (tensorflow-text, tensorflow-io, tensorflow-decision-forests,
tensorflow-addons) built for the installed TensorFlow, and is it one tensorflow-probability's import
accepts? Their wheels say which TensorFlow (tfdoctor.knowledge.companions); with another their ops
fail to load ('undefined symbol', 'Symbol not found', 'Op type not registered'), or TFP refuses to
import, so the companion's mismatch is the cause of those errors. A report that names both versions
is enough: no wheel needs to be read here."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import OUTSIDE_THE_GOAL
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import companions
from tfdoctor.model import Remediation, Severity, rule


@rule(codes.COMPAT_COMPANION_BUILT_FOR, "A companion package is built for another TensorFlow",
      Severity.ERROR,
      "tensorflow-text, tensorflow-io and tensorflow-decision-forests ship compiled ops linked "
      "against one TensorFlow minor, and their METADATA says which (tensorflow-text 2.15.0: "
      "tensorflow>=2.15.0,<2.16; tensorflow-io 0.37.1: tensorflow>=2.16.0,<2.17.0 through its "
      "extra; tensorflow-decision-forests 1.12.0: tensorflow==2.19.0; compat_matrix.json "
      "companion_pins, read from the registry's wheels). tensorflow-addons 0.9+ names the "
      "TensorFlow minor its custom ops were compiled for in its resource_loader.py (0.23.0: 2.15), "
      "the range of its 'compiled against TensorFlow' warning; its Python ops run on more, so "
      "there the finding is a warning. With another TensorFlow their ops fail "
      "to load, and pip does not stop it when TensorFlow is upgraded after them. "
      "tensorflow-probability's METADATA names no TensorFlow, but its import refuses one older than "
      "its required_tensorflow_version (0.24.0: 2.16; 0.25.0: 2.18), read from its wheels: pip installs "
      "the newest TFP beside an older TensorFlow without a word.",
      "Install the companion release built for the installed TensorFlow (the finding names it), "
      "or, where none exists, keep the TensorFlow it was built for in its own environment. (It "
      "names no consequence: a load error or an unmet requirement may be another package's; the "
      "error's own finding names the library's package.)", fix_answer=OUTSIDE_THE_GOAL)
def companion_built_for(s: Snapshot, d: Derived):
    tf = d.tf_version
    if not tf:
        return None
    out = []
    for name in companions.packages():
        installed = s.package(name)
        if installed is None or not installed.version:
            continue
        made = companions.built_for(name, installed.version)
        if made is None or made.fits(tf):
            continue
        fitting = companions.release_for(name, tf)
        what = (f"{name} {installed.version} requires TensorFlow {made.tensorflow} when imported; {tf} is installed"
                if made.checked_at_import else
                f"{name} {installed.version} is built for TensorFlow {made.tensorflow}; {tf} is installed")
        if fitting:
            fix = Remediation(f"Install {name} {fitting}, the release for TensorFlow {tf}",
                              (pip(s, "install", f"{name}=={fitting}"),))
        else:
            fix = Remediation(f"No {name} release is built for TensorFlow {tf}: keep TensorFlow "
                              f"{made.tensorflow} for it (in an environment of its own), or drop it")
        consequence = ("its custom ops (C++ kernels) will not load; its Python ops still run"
                       if made.compiled_ops_only else "it refuses to import" if made.checked_at_import
                       else "its compiled ops will not load")
        out.append(companion_built_for.finding(
            {"package": name, "version": installed.version, "built_for_tensorflow": str(made.tensorflow),
             "tensorflow": tf, "release_for_this_tensorflow": fitting, "source": made.source},
            fix, title=f"{what}: {consequence}", basis="table",
            severity=Severity.WARNING if made.compiled_ops_only else None))
    return out
