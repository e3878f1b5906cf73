"""Is exactly one TensorFlow installed, and is tensorflow-metal installed with one? Several
distributions ship the same `tensorflow` import package and overwrite each other's files; the
shims (tensorflow-macos 2.16+ onto tensorflow, tensorflow 2.13-2.15 onto tensorflow-macos on
Apple silicon) are the exception, told apart by their Requires-Dist."""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tfdoctor.fixes import pip
from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity
from tfdoctor.recommend import recommended_requirements
from tfdoctor.snapshot import TENSORFLOW_DISTRIBUTIONS, PackageFacts, Snapshot

CODES = {
    "install.no-tensorflow": CodeDoc(
        "TensorFlow is not installed",
        Severity.ERROR,
        "No distribution that provides the `tensorflow` package is installed in this "
        "interpreter's site-packages.",
        "Install the pair tfdoctor recommends for this machine (shown in the finding).",
    ),
    "install.multiple-tensorflow": CodeDoc(
        "Several TensorFlow distributions are installed at once",
        Severity.ERROR,
        "tensorflow, tensorflow-macos, tensorflow-cpu, tensorflow-intel and tf-nightly all "
        "install the same `tensorflow` import package. Installed together, the last one wins "
        "file by file and the result matches neither version.",
        "Uninstall all of them, then install one.",
    ),
    "install.metal-without-tensorflow": CodeDoc(
        "tensorflow-metal is installed without TensorFlow",
        Severity.ERROR,
        "tensorflow-metal's wheels declare no dependency on TensorFlow, so pip installs it alone "
        "without complaint; the plugin is useless until a matching TensorFlow is installed.",
        "Install the TensorFlow that matches the plugin (shown in the finding).",
    ),
    "install.ok": CodeDoc(
        "One TensorFlow is installed", Severity.OK, "Exactly one distribution provides the "
        "`tensorflow` package (shims that only depend on it excepted).", "Nothing to do.",
    ),
}


def _requires(pkg: PackageFacts) -> set[str]:
    names = set()
    for text in pkg.requires_dist:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is None or "extra" not in str(req.marker):
            names.add(canonicalize_name(req.name))
    return names


def providers(s: Snapshot) -> tuple[list[PackageFacts], list[PackageFacts]]:
    """Split installed TensorFlow distributions into those shipping code and shims onto them."""
    dists = s.tensorflow_distributions()
    keys = {d.key for d in dists}
    shims = [d for d in dists if _requires(d) & (keys - {d.key})]
    real = [d for d in dists if d not in shims]
    return real, shims


def run(s: Snapshot) -> list[Finding]:
    real, shims = providers(s)
    metal = s.package("tensorflow-metal")
    installed = {d.name: d.version for d in real + shims}
    if not real and not shims:
        reqs = recommended_requirements(s)
        code = "install.metal-without-tensorflow" if metal else "install.no-tensorflow"
        evidence = {"tensorflow_distributions": {}, "tensorflow_metal": metal.version if metal else None}
        title = (f"tensorflow-metal {metal.version} is installed without TensorFlow" if metal
                 else "TensorFlow is not installed")
        fix = Remediation(reqs.text, (pip(s, "install", *reqs.requirements),) if reqs.requirements else ())
        return [Finding(code, Severity.ERROR, title, evidence, fix)]
    if len(real) > 1:
        names = sorted(installed)
        keep = recommended_requirements(s)
        commands = [pip(s, "uninstall", "-y", *names)]
        if keep.requirements:
            commands.append(pip(s, "install", *keep.requirements))
        return [Finding(
            "install.multiple-tensorflow", Severity.ERROR,
            f"{len(real)} TensorFlow distributions are installed at once: "
            + ", ".join(f"{d.name} {d.version}" for d in real),
            {"providers": {d.name: d.version for d in real},
             "shims": {d.name: d.version for d in shims}},
            Remediation("Uninstall every TensorFlow distribution, then install one", tuple(commands)),
            explains=("runtime.import-failed", "compat.tf-metal-mismatch"),
        )]
    main = real[0] if real else shims[0]
    via = f" (via {', '.join(d.name for d in shims)})" if shims else ""
    return [Finding("install.ok", Severity.OK, f"{main.name} {main.version}{via}",
                    {"tensorflow_distributions": installed,
                     "tensorflow_metal": metal.version if metal else None})]


CHECK = Check(
    name="installation",
    area="TensorFlow installation",
    summary="Exactly one TensorFlow is installed",
    run=run,
    codes=CODES,
    needs=("python",),
)


__all__ = ["CHECK", "TENSORFLOW_DISTRIBUTIONS", "providers"]
