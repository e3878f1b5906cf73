"""Does the third-party Metal plugin (IPNP-BIPN's tensorflow-metal-plugin) fit the installed
TensorFlow, Python and macOS? It pairs by its own rule: a build serves only the TensorFlow minor it
was compiled against (0.4.1: 2.21, and it offers no GPU to any other), on macOS 15 or later
(compat_matrix.json `metal_plugins`, read from its source archives)."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import OUTSIDE_THE_GOAL
from tfdoctor.derived import Derived
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import metal_plugins
from tfdoctor.model import Remediation, Severity, rule

PLUGIN = "tensorflow-metal-plugin"
PROJECT = "https://github.com/IPNP-BIPN/tensorflow-metal-plugin"


@rule(codes.COMPAT_THIRD_PARTY_PLUGIN, "The third-party Metal plugin does not fit this setup",
      Severity.ERROR,
      "tensorflow-metal-plugin is built at install time against one TensorFlow minor and checks it "
      "when it loads: with another TensorFlow it offers no GPU ('this plugin was built against "
      "TensorFlow X and is loaded into TensorFlow Y, so no GPU device is offered'); 0.4.1 also "
      "needs macOS 15 and Python 3.10 or later. pip does not enforce the minor after an upgrade "
      "of TensorFlow.",
      "Install the TensorFlow minor the plugin was built for, or rebuild the plugin against the "
      "installed TensorFlow (pip install --force-reinstall --no-binary :all: tensorflow-metal-plugin).",
      PROJECT, explains=(codes.RUNTIME_NO_GPU, codes.PROBE_CPU_ONLY, codes.LOG_NO_GPU_LISTED),
      fix_answer=OUTSIDE_THE_GOAL)
def third_party_plugin(s: Snapshot, d: Derived):
    plugin = s.package(PLUGIN)
    if plugin is None or not plugin.version or d.tf_version is None or d.matrix is None:
        return None
    fit = metal_plugins.third_party_fit(d.matrix, d.tf_version, plugin.version, s.python.minor if s.python else None,
                                   d.macos)
    if fit.ok is not False:  # fits, or a release the matrix does not know: nothing to say
        return None
    release = metal_plugins.third_party_plugin(d.matrix, PLUGIN).release(plugin.version)
    built_for = release.built_for_tensorflow if release else None
    commands = [pip(s, "install", f"tensorflow=={built_for}.*")] if built_for else []
    commands.append(pip(s, "install", "--force-reinstall", "--no-binary", ":all:",
                        f"{PLUGIN}=={plugin.version}"))
    return third_party_plugin.finding(
        {"plugin": f"{PLUGIN} {plugin.version}", "tensorflow": d.tf_version, "macos": d.macos,
         "problems": list(fit.problems), "built_for_tensorflow": built_for, "source": fit.source},
        Remediation(f"Install TensorFlow {built_for} (the minor {PLUGIN} {plugin.version} is built for) "
                    "or rebuild the plugin against the installed TensorFlow" if built_for else
                    "Rebuild the plugin against the installed TensorFlow", tuple(commands), PROJECT),
        title=f"{PLUGIN} {plugin.version} does not fit: {fit.problems[0]}", basis="table")
