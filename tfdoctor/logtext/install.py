"""Signatures of installing: pip and conda refusing, wheels that do not fit, h5py not building.

The environment decides what these mean (a version pip cannot find may not exist at all, exist
for other Pythons only, or be a pre-release), so the signatures only extract what was asked for
and what the index offered; the checks look that up in the matrix for this Python and machine.
"""

from __future__ import annotations

import re

from tfdoctor.logtext.signature import Fields, Signature, adds, sig, wrappable

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?"
_WHEEL = r"(?<![^\s/'\"(\[])(?P<wheel>[A-Za-z0-9_.]+-[^\s/'\"(\[]+?\.whl)"
"""A wheel's file name: it starts after white space, a slash, a quote or a bracket, which it does
not hold (a start inside a word would let every character of a long word begin a scan to its
end)."""
_REQUIREMENT = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]\n]*\])?[ \t]*(?P<spec>.*)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(fields: Fields) -> Fields:
    """Split "tensorflow-macos<2.13,>=2.12.0" into package and specifier."""
    out = dict(fields)
    # pip's line quoted in prose ends in the prose's quote or full stop: "...for tensorflow-macos`."
    m = _REQUIREMENT.match(out.pop("requirement", "").strip().rstrip("`'\".,:"))
    if m:
        out["package"] = _canonical(m["name"])
        out["specifier"] = m["spec"].replace(" ", "")
    if "marker" in out:
        out["marker"] = out["marker"].strip()
    if "versions" in out:
        out["available"] = out.pop("versions").strip() or "none"
    return out


def _no_release_at_all(fields: Fields) -> Fields:
    """pip before 7 found no file of the package at all: what pip since says as 'from versions: none'."""
    return {**_requirement(fields), "available": "none"}


def _pip6(variant: str, message: str) -> Signature:
    """One of pip 1.0-6.0.8's two lines for a package with no file for this Python and platform,
    then the requirement (tensorflow/tensorflow#14207 shows both)."""
    return sig("log.pip-no-matching-distribution", variant, "install",
               "pip (before 7) found no file of a package for this Python and platform",
               re.escape(message) + r" (?P<requirement>" + _NAME + r"[^\s;]*)", f"{message} tensorflow",
               "https://github.com/tensorflow/tensorflow/issues/14207", needle=message,
               derive=_no_release_at_all, key=("package",), outputs=("package", "specifier", "available"))


_CLAUSES = re.compile(r",| and ")


def _depends_on(fields: Fields) -> Fields:
    """pip's resolver line, with the specifier as PEP 440 writes it (pip's format_for_error
    prints "<2.10 and >=2.4.1" for "<2.10,>=2.4.1")."""
    out = {"package": "tensorflow", "required_by": _canonical(fields.get("required_by", "")),
           "required_by_version": fields.get("required_by_version", "")}
    clauses = [c.strip() for c in _CLAUSES.split(fields.get("specifier", ""))]
    out["specifier"] = ",".join(c.replace(" ", "") for c in clauses if c)
    return {k: v for k, v in out.items() if v}


def _wheel(fields: Fields) -> Fields:
    """Name, version and tags of a wheel file name (PEP 427)."""
    out = dict(fields)
    parts = out.get("wheel", "")[:-4].split("-")
    if len(parts) >= 5:
        out.update(package=_canonical(parts[0]), version=parts[1], python_tag=parts[-3],
                   abi_tag=parts[-2], platform_tag=parts[-1])
    return out


_ITEM = re.compile(r"(?:^|\s)-[ \t]*(\S+)")


def _items(block: str) -> list[str]:
    """The `  - name` items of a conda list, one a line or squashed onto one line by a paste."""
    return _ITEM.findall(block)


def _conda(fields: Fields) -> Fields:
    out: Fields = {"packages": ", ".join(_items(fields.get("packages", "")))}
    channels = _items(fields.get("channels", ""))
    if channels:
        out["channels"] = ", ".join(channels)
        out["subdir"] = channels[0].rstrip("/").rsplit("/", 1)[-1]
    return out


def _conda_code(fields: Fields) -> str:
    names = [p.split("=")[0].split("::")[-1] for p in fields.get("packages", "").split(", ")]
    return "log.conda-tensorflow-deps-missing" if "tensorflow-deps" in names else "log.conda-packages-not-found"


_PYTHON_IN_PATH = re.compile(r"(?:Versions/|python)(?P<version>3\.\d{1,2})(?![\d])")


def _fork_python(fields: Fields) -> Fields:
    """The Python the fork's installer rejected, read from its path where the path names it."""
    out = {k: v for k, v in fields.items() if v}
    found = _PYTHON_IN_PATH.search(out.get("python", "") + " " + out.get("venv", ""))
    if found:
        out["python_version"] = found.group("version")
    return {"sign": "installer needs Python 3.8", **out}


def _poetry_release(fields: Fields) -> Fields:
    """poetry names the locked release ("tensorflow (2.12.0)"): as a requirement, ==2.12.0."""
    return {"package": _canonical(fields.get("package", "")), "specifier": f"=={fields.get('version', '')}"}


UV_NO_MATCHING_WHEELS = "uv-no-matching-wheels"
_UV_TAGS = ("Python ABI", "Python implementation", "Python version", "platform")
"""The tags uv's resolver says no wheel matched (uv-resolver's IncompatibleTag reasons)."""


def _uv_tags(fields: Fields) -> Fields:
    """uv's requirement split as pip's, the tag's kind in one line however the terminal wrapped it."""
    out = _requirement(fields)
    out["tag_kind"] = " ".join(out.get("tag_kind", "").split())
    return out


def _conflict(fields: Fields) -> Fields:
    """Names as pip prints them, canonical (tensorflow_macos -> tensorflow-macos); the
    requirement as written, without the marker pip may print after it."""
    out = dict(fields)
    out["required_by"], out["package"] = _canonical(fields["required_by"]), _canonical(fields["package"])
    out["requirement"] = fields["requirement"].split(";", 1)[0].strip()
    return out


FORK_VENV = "installer's environment"
"""The sign of a path in the fork installer's default environment: a name, which a plugin-era
TensorFlow installed there later would carry too."""


def _fork_installer(fields: Fields) -> Fields:
    """The fork's installer at work, or refusing a macOS before 11 (a failure of the fork's own)."""
    return {"sign": "Error: installer needs macOS 11" if fields.get("error") else "installer ran"}


TENSORFLOW_GPU_REMOVED = "tensorflow-gpu-removed"
"""pip asked for tensorflow-gpu at 2.12 or later, the empty package whose setup.py refuses to build."""

SIGNATURES: tuple[Signature, ...] = (
    # apple/tensorflow_macos scripts/install_venv.sh (0.1alpha0-3): the fork's bundled wheels are
    # cp38 only, so its installer rejects any other Python in so many words
    sig("log.mlcompute-fork", "mlcompute-installer-python", "install",
        "the ML Compute fork's installer rejected a Python that is not 3.8",
        r"python executable (?P<python>\S+) not version 3\.8\.?\s+Please specify a Python 3\.8 executable"
        r"|Python version in specificed virtual environment (?P<venv>\S+) not 3\.8",
        "Error retrieving python version, or python executable /Library/Frameworks/Python.framework/"
        "Versions/3.9/bin/python3 not version 3.8. Please specify a Python 3.8 executable with the "
        "--python option.", "https://github.com/apple/tensorflow_macos/issues/279",
        needle="3.8", derive=_fork_python, key=("sign",), outputs=("sign", "python", "venv", "python_version")),
    # the same scripts' own lines and wheel names: the fork being installed (its version numbers
    # 0.1alpha0-3, wheels tensorflow_macos-0.1aN and tensorflow_addons_macos-0.1aN), or its
    # refusal of a macOS before 11
    sig("log.mlcompute-fork", "mlcompute-installer", "install",
        "the ML Compute fork's installer ran (Apple's 2020-21 tensorflow_macos 0.1alpha)",
        r"Installation script for pre-release tensorflow_macos \S{1,20}|"
        r"-> Install tensorflow_macos \S{1,20} into (?:existing|created) virtual environment|"
        r"TensorFlow and TensorFlow Addons with ML Compute for macOS \S{1,10} successfully installed|"
        r"(?P<error>TensorFlow with ML Compute acceleration is only available on macOS 11\.0 and later)|"
        r"\btensorflow_(?:addons_)?macos-0\.1a\d-cp\d{2,3}-cp\d{2,3}m?-macosx_\w{1,40}\.whl",
        "Installation script for pre-release tensorflow_macos 0.1alpha0.  Please visit "
        "https://github.com/apple/tensorflow_macos",
        "https://github.com/apple/tensorflow_macos/issues/17",
        needle="macos", derive=_fork_installer, key=("sign",),
        outputs=("sign",)),
    # the same installer's default environment ("Path to new or existing virtual environment
    # [default: $HOME/tensorflow_macos_venv/]", install_venv.sh), always Python 3.8: a traceback
    # through its site-packages is the fork's TensorFlow running
    sig("log.mlcompute-fork", "mlcompute-installer-venv", "import",
        "a path in the ML Compute fork installer's default environment (tensorflow_macos_venv, Python 3.8)",
        r"/tensorflow_macos_venv/lib/python3\.8/site-packages/",
        "ImportError: dlopen(/Users/pkwang/tensorflow_macos_venv/lib/python3.8/site-packages/tensorflow/python/"
        "_pywrap_tfe.so, 2): Library not loaded: @rpath/_pywrap_tensorflow_internal.so",
        "https://github.com/apple/tensorflow_macos/issues/225", needle="tensorflow_macos_venv",
        derive=adds(sign=FORK_VENV), key=("sign",), outputs=("sign",)),
    # poetry's installer (src/poetry/installation/chooser.py, Chooser.choose_for): no file of the
    # locked release fits this interpreter and platform, which is pip's 'no matching distribution'
    sig("log.pip-no-matching-distribution", "poetry-no-candidates", "install",
        "poetry found no file of the locked release for this Python and platform",
        r"Unable to find installation candidates for (?P<package>[A-Za-z0-9][A-Za-z0-9._-]{0,100}) "
        r"\((?P<version>[^()\s]{1,60})\)",
        "Unable to find installation candidates for tensorflow (2.18.0)",
        "https://github.com/tensorflow/tensorflow/issues/85418",
        needle="Unable to find installation candidates", derive=_poetry_release, key=("package",),
        outputs=("package", "specifier"),
        head=r"(?<![\w\"'])Unable to find installation candidates for"),  # not the frame's f-string
    sig("log.pip-no-matching-distribution", "pip-could-not-find", "install",
        "pip found no distribution of a package for this Python and platform",
        # pip 26 says "a final version"; "(from -r requirements.txt (line 3))" nests brackets;
        # a paste may end before the list of versions closes, and a message quoted in a sentence
        # may end, within its quotes, at the package that asked for it
        r"Could not find a (?:final )?version that satisfies the requirement (?=(?P<requirement>"
        r"[A-Za-z0-9][^\s;(\[]*(?:\[[^\]\n]*\][^\s;(]*)?))(?P=requirement)(?:;(?=(?P<marker>[^(\n]*))(?P=marker))?\s*"
        r"(?:\(from (?!versions:)(?P<required_by>[^()\n]*(?:\([^()\n]*\)[^()\n]*)*)\)\s*)?"
        r"(?:\(from versions: (?P<versions>[^)\n]*)\)?|(?<=\))(?=[\"'`]))",
        "Could not find a version that satisfies the requirement tensorflow-macos==2.12.0 "
        "(from versions: none)", "https://github.com/bmaltais/kohya_ss/issues/563",
        needle="Could not find a ", derive=_requirement, key=("package",),
        outputs=("package", "specifier", "marker", "required_by", "available"),
        # cut after the requirement (an issue's title quotes the line that far): it is still read
        head=r"Could not find a (?:final )?version that satisfies the requirement"
             r"(?:[ \t]{1,3}(?P<requirement>[A-Za-z0-9][^\s;(\[]{0,200}))?"),
    # tensorflow-gpu 2.12.0's setup.py (an empty package since December 2022, pypi.org/project/
    # tensorflow-gpu): raise Exception(TF_REMOVAL_WARNING), 'The "tensorflow-gpu" package has been
    # removed! Please install "tensorflow" instead.', so pip cannot build the name it was asked for
    sig("log.pip-no-matching-distribution", TENSORFLOW_GPU_REMOVED, "install",
        "tensorflow-gpu 2.12+ is an empty package that refuses to build: the GPU build is `tensorflow`",
        r"The \"?tensorflow-gpu\"? package has been removed!",
        "The \"tensorflow-gpu\" package has been removed!\n\n    Please install \"tensorflow\" instead.",
        "https://github.com/dionhaefner/pyhpc-benchmarks/issues/17", needle="package has been removed",
        derive=adds(package="tensorflow-gpu"), outputs=("package",), key=()),
    sig("log.pip-no-matching-distribution", "pip-no-matching", "install",
        "pip found no distribution of a package for this Python and platform",
        r"No matching distribution found for (?P<requirement>" + _NAME + r"[^\s;]*)"
        r"(?:;\s*(?P<marker>[^\n]+))?",
        "ERROR: No matching distribution found for tensorflow-macos==2.12.0",
        "https://github.com/bmaltais/kohya_ss/issues/563",
        needle="No matching distribution", derive=_requirement, key=("package",),
        outputs=("package", "specifier", "marker"), head=r"No matching distribution found for"),
    # pip 1.0-6.0.8 (pip/index.py, PackageFinder.find_requirement): "Could not find any downloads
    # that satisfy the requirement %s", then DistributionNotFound("No distributions at all found
    # for %s"): no file of the package for this Python and platform at all
    _pip6("pip6-no-downloads", "Could not find any downloads that satisfy the requirement"),
    _pip6("pip6-no-distributions", "No distributions at all found for"),
    # uv's resolver (crates/uv-resolver/src/pubgrub/report.rs, the incompatible-wheel reasons):
    # "Because tensorflow-macos<=2.15.0 has no wheels with a matching Python ABI tag (e.g.,
    # `cp312`) and you require ...": the tag names what did not fit (the Python, or the platform)
    sig("log.pip-no-matching-distribution", UV_NO_MATCHING_WHEELS, "install",
        "uv found no wheel of a package whose tags fit this Python or platform",
        r"(?<![\w.-])(?P<requirement>[A-Za-z0-9][A-Za-z0-9._-]{0,100}(?:[<>=!~]=?[^\s,<>=!~]{1,60}"
        r"(?:,\s?[<>=!~]=?[^\s,<>=!~]{1,60}){0,8})?)\s"
        + wrappable("has no wheels with a matching") + r"\s(?P<tag_kind>" + "|".join(map(wrappable, _UV_TAGS))
        + r")\stag(?:\s\(e\.g\.,\s`?(?P<tag>[A-Za-z0-9_.]{1,60})`?\))?",
        "tensorflow-macos<=2.15.0 has no wheels with a matching Python ABI tag (e.g., cp312)",
        "https://github.com/spotify/basic-pitch/issues/203", needle="has no wheels with",
        derive=_uv_tags, key=("package",), outputs=("package", "specifier", "tag_kind", "tag")),
    # uv's installer (crates/uv-distribution-types, the incompatible-dist error) after resolving
    # for every platform: the locked release has no file for this one; its hint names this one
    sig("log.pip-no-matching-distribution", "uv-no-wheel-for-platform", "install",
        "uv cannot install a locked release: no wheel or sdist for this platform",
        r"Distribution `(?P<requirement>[A-Za-z0-9][A-Za-z0-9._-]{0,100}==[^\s`@]{1,60})(?: @ [^`\n]{0,200})?`\s"
        + wrappable("can't be installed because it doesn't have a source distribution or wheel for the current platform")
        + r"(?:\s{0,20}hint: You're on (?P<os>macOS|Linux|Windows) \(`(?P<tag>[A-Za-z0-9_.]{1,60})`\))?",
        "error: Distribution `tensorflow==2.9.0 @ registry+https://pypi.org/simple` can't be installed because "
        "it doesn't have a source distribution or wheel for the current platform\n\nhint: You're on macOS "
        "(`macosx_15_0_arm64`), but `tensorflow` (v2.9.0) only has wheels for the following platforms: "
        "`manylinux_2_17_x86_64`, `manylinux2014_x86_64`, `macosx_10_14_x86_64`, `win_amd64`",
        "https://github.com/astral-sh/uv/issues/13568", needle="can't be installed",
        derive=_requirement, key=("package",), outputs=("package", "specifier", "os", "tag"),
        head=r"Distribution `[^`\n]{1,200}`\s{1,20}can't be installed because"),
    # pip's check after an install (src/pip/_internal/commands/install.py, _warn_about_conflicts):
    # "{name} {version} requires {requirement}, but you have {dep} {version} which is incompatible."
    # (pip 20.3 on); "has requirement ..., but you'll have ..." before; `pip check`: "..., but you have X Y."
    sig("log.pip-conflict", "pip-broke-a-requirement", "install",
        "pip says an installed version breaks a package's requirement",
        r"(?<![\w.-])(?P<required_by>[A-Za-z0-9][A-Za-z0-9._-]{0,100}) (?P<required_by_version>\d[\w.+!-]{0,60}) "
        r"(?:has requirement|requires) (?P<requirement>[A-Za-z0-9][A-Za-z0-9._-]{0,100}[^,\s]{0,100}"
        r"(?:,[^,\s]{1,100}){0,8}(?:;[^,\n]{1,200})?), but you(?: have|'ll have) "
        r"(?P<package>[A-Za-z0-9][A-Za-z0-9._-]{0,100}) (?P<installed>\d[\w.+!-]{0,59}?)(?: which is incompatible)?\.?(?!\S)",
        "ERROR: tensorflow 2.2.1 has requirement numpy<1.19.0,>=1.16.0, but you'll have numpy 1.19.0 which is "
        "incompatible.", "https://github.com/abhishekkrthakur/approachingalmost/issues/26", needle="but you",
        derive=_conflict, key=("required_by", "package"),
        outputs=("required_by", "required_by_version", "requirement", "package", "installed")),
    # setuptools' pkg_resources refusing to load a distribution whose requirement an installed
    # version breaks (pkg_resources/__init__.py, WorkingSet.resolve: "raise VersionConflict(dist,
    # req).with_context(dependent_req)"), printed as its arguments: "ContextualVersionConflict:
    # (numpy 1.23.3 (/path/site-packages), Requirement.parse('numpy~=1.19.2'), {'tensorflow'})"
    sig("log.pip-conflict", "pkg-resources-version-conflict", "import",
        "pkg_resources refused to load a package: an installed version breaks its requirement",
        r"VersionConflict: \((?P<package>[A-Za-z0-9][A-Za-z0-9._-]{0,100}) (?P<installed>\d[\w.+!-]{0,60}) "
        r"\([^()\n]{0,400}\), Requirement\.parse\(['\"](?P<requirement>[A-Za-z0-9][^'\"\n]{0,300})['\"]\), "
        r"\{['\"](?P<required_by>[A-Za-z0-9][A-Za-z0-9._-]{0,100})['\"]",
        "pkg_resources.ContextualVersionConflict: (numpy 1.23.3 (/mnt/hpccs01/work/microbiome/conda/envs/"
        "checkm2-v0.1.3/lib/python3.9/site-packages), Requirement.parse('numpy~=1.19.2'), {'tensorflow'})",
        "https://github.com/chklovski/CheckM2/pull/24", needle="VersionConflict: (",
        derive=_conflict, key=("required_by", "package"),
        outputs=("required_by", "requirement", "package", "installed")),
    # pip's resolver (src/pip/_internal/resolution/resolvelib/factory.py, get_installation_error
    # on ResolutionImpossible): "Cannot install {triggers} because these package versions have
    # conflicting dependencies." then "The conflict is caused by:" and, per cause, four spaces and
    # f"{parent.name} {parent.version} depends on " + req.format_for_error() (the requirement,
    # its comma-separated clauses joined as "A, B and C", read in pip 23.2.1; none for any release,
    # so the specifier is its clauses only, never the next line of a paste read flat). Each candidate
    # is its own occurrence: one that takes any release is not given another's range. Only the lines
    # whose requirement is the distribution `tensorflow` itself (not tensorflow-text, numpy, ...).
    sig("log.pip-depends-on-tensorflow", "pip-conflict-depends-on-tensorflow", "install",
        "pip's resolver could not satisfy a package's requirement on the distribution `tensorflow`",
        r"^[ \t]*(?P<required_by>[A-Za-z0-9][A-Za-z0-9._-]{0,100}(?:\[[^\]\n]{0,100}\])?) "
        r"(?P<required_by_version>[0-9][^\s]{0,60}) depends on tensorflow(?![\w.-])(?:\[[^\]\n]{0,100}\])?"
        r"(?P<specifier>(?:[ \t]{0,3}(?:,|and)?[ \t]{0,3}(?:===|[<>=!~]=|[<>])[ \t]{0,2}[\w.*+!-]{1,60}){0,8})",
        "    basic-pitch 0.2.0 depends on tensorflow<2.10 and >=2.4.1",
        "https://github.com/spotify/basic-pitch/issues/60", needle="depends on tensorflow",
        derive=_depends_on, key=("required_by", "required_by_version"),
        outputs=("package", "required_by", "required_by_version", "specifier")),
    sig("log.pip-unsupported-wheel", "pip-unsupported-wheel", "install",
        "a wheel built for another Python or platform",
        _WHEEL + r" is not a supported wheel on this platform",
        "ERROR: tensorflow-2.6.0-cp38-cp38-macosx_11_0_x86_64.whl is not a supported wheel on this "
        "platform.", "https://github.com/tensorflow/tensorflow/issues/50108",
        needle="is not a supported wheel", derive=_wheel, key=("wheel",),
        head=_WHEEL + r" is not a supported wheel",
        outputs=("wheel", "package", "version", "python_tag", "abi_tag", "platform_tag")),
    sig("log.h5py-build", "h5py-hdf5-missing", "install",
        "h5py was built from source and found no HDF5 library",
        r"(?P<reason_text>Unable to load dependency HDF5, make sure HDF5 is installed properly)",
        "error: Unable to load dependency HDF5, make sure HDF5 is installed properly",
        "https://github.com/mrdbourke/m1-machine-learning-test/issues/5",
        needle="Unable to load dependency HDF5",
        derive=lambda f: {"reason": "hdf5-missing"}, key=(), outputs=("reason",)),
    sig("log.h5py-build", "h5py-failed-wheel", "install",
        "h5py was built from source and failed",
        r"Failed building wheel for h5py|Building wheel for h5py \([^()\n]*\) did not run successfully|"
        r"Failed to build h5py|Failed to build installable wheels for some pyproject\.toml based "
        r"projects \([^()\n]*\bh5py\b",  # pip 24.1+
        "ERROR: Failed building wheel for h5py",
        "https://github.com/mrdbourke/m1-machine-learning-test/issues/5",
        needle="h5py", key=()),
    sig("log.conda-packages-not-found", "conda-packages-not-found", "install",
        "conda found no such package on the channels of this platform",
        # conda's list is one `  - name` a line; a paste may squash the lines onto one, or keep
        # only the error's name and the list ("PackagesNotFoundError:- tensorflow-deps")
        r"PackagesNotFoundError:(?:\s*" + wrappable("The following packages are not available from current channels:")
        + r")?(?P<packages>(?:\s*-[ \t]*[^\s-]\S*)+)(?:\s*Current channels:"
        r"(?P<channels>(?:\s*-[ \t]*[^\s-]\S*)+))?",
        "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
        "  - tensorflow-deps\n\nCurrent channels:\n\n  - https://conda.anaconda.org/apple/osx-64",
        "https://github.com/https-deeplearning-ai/machine-learning-engineering-for-production-public/issues/90",
        needle="PackagesNotFoundError", derive=_conda, code_for=_conda_code, key=("packages",),
        outputs=("packages", "channels", "subdir"), head=r"PackagesNotFoundError:"),
    sig("log.conda-packages-not-found", "conda-resolve-not-found", "install",
        "conda found no such package on the channels of this platform",
        # a package conda cannot resolve through a dependency is printed as a chain "a -> b"
        r"ResolvePackageNotFound:[ \t]*\n(?P<packages>(?:[ \t]*-[ \t]*\S+(?:[ \t]+->[ \t]+\S+)*[ \t]*(?:\n|$))+)",
        "ResolvePackageNotFound: \n  - tensorflow-deps",
        "https://github.com/jeffheaton/t81_558_deep_learning/issues/116",
        needle="ResolvePackageNotFound", derive=_conda, code_for=_conda_code, key=("packages",),
        outputs=("packages",)),
)
