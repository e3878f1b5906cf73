"""A library that failed to load, in a pasted log: the library the loader names decides whose
fault it is. The Metal plugin (or TensorFlow's own frame that loads tensorflow-plugins/): the
TensorFlow pair; another plugin in that folder off macOS: that plugin; a companion's or your own
custom op: that package, built for another TensorFlow; a symbol of macOS's own libraries: a
library built for a newer macOS; an NVIDIA library: the CUDA stack a GPU build wants. (The other
architecture: log_cpu.py.)
"""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.commands import pip
from tfdoctor.advice.fix_answers import ABOUT_THE_LOG
from tfdoctor.advice.installs import (APPLE_PLUGIN_PAGE, install_commands, listing_read, pair_fix,
                                     recommended_requirements)
from tfdoctor.advice.log_evidence import evidence, gpu_wanted, matches_of, names_tensorflow
from tfdoctor.derived import Derived
from tfdoctor.facts.pasted_log import LogTextMatch
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.versions import below, release_minor
from tfdoctor.knowledge.records import version_of
from tfdoctor.logtext import nvidia
from tfdoctor.logtext.importing import LINKER_SKIPPED
from tfdoctor.model import Finding, Remediation, Severity, rule

_PACKAGE_DIRS = {"tensorflow_text": "tensorflow-text", "tensorflow_addons": "tensorflow-addons",
                 "tensorflow_io": "tensorflow-io", "tensorflow_decision_forests": "tensorflow-decision-forests",
                 "tensorflow_recommenders_addons": "tensorflow-recommenders-addons"}
"""site-packages directory -> distribution, for custom-op libraries that name their package."""


def _plugin_load_failures(s: Snapshot) -> list[LogTextMatch]:
    """The pasted plugin load failures that point at the pair: a TensorFlow symbol a plugin
    misses, or else TensorFlow's plugin-loading frame where the text gives no more specific reason
    (a symbol of macOS's own libraries, the other architecture: those have their own findings)."""
    named = matches_of(s, codes.LOG_SYMBOL_NOT_FOUND_PLUGIN)
    if named or matches_of(s, codes.LOG_MACOS_TOO_OLD, codes.LOG_ARCH_MISMATCH):
        return named
    return matches_of(s, codes.LOG_PLUGIN_LOAD_FAILED)


@rule(codes.LOG_SYMBOL_NOT_FOUND_PLUGIN, "The GPU plugin was built for another TensorFlow",
      Severity.ERROR,
      "tensorflow-metal's libmetal_plugin.dylib links against symbols of the TensorFlow it was "
      "built for; pip never enforces the pairing (the plugin's wheels declare no TensorFlow "
      "dependency), so with another TensorFlow `import tensorflow` fails with 'Symbol not "
      "found' (tensorflow/text#654, tensorflow/tensorflow#62061).",
      "Install the TensorFlow/tensorflow-metal pair that loads (the finding names it from the matrix).",
      APPLE_PLUGIN_PAGE, explains=(codes.LOG_NO_GPU_LISTED,), fix_answer=ABOUT_THE_LOG)
def symbol_not_found_plugin(s: Snapshot, d: Derived):
    return [_plugin_failure(symbol_not_found_plugin, s, d, match,
                            f"{match.fields.get('plugin', 'the plugin')} needs {_needs(match)}")
            for match in matches_of(s, codes.LOG_SYMBOL_NOT_FOUND_PLUGIN)]


@rule(codes.LOG_PLUGIN_LOAD_FAILED, "TensorFlow failed to load a plugin from tensorflow-plugins",
      Severity.ERROR,
      "`import tensorflow` loads every library in site-packages/tensorflow-plugins/ (its "
      "`_ll.load_library(_plugin_dir)` frame in a traceback); where the paste stops before the "
      "reason, or gives one no signature reads (dyld's 'Library not loaded: "
      "@rpath/_pywrap_tensorflow_internal.so' from a plugin older than TensorFlow's new layout), "
      "the usual reason is a plugin built for another TensorFlow. A reason the paste does show "
      "(a missing TensorFlow symbol, a symbol of macOS's own libraries, the other architecture) "
      "is its own finding instead (tensorflow/tensorflow#53309).",
      "Install the TensorFlow/tensorflow-metal pair that loads (the finding names it from the matrix).",
      APPLE_PLUGIN_PAGE, explains=(codes.LOG_NO_GPU_LISTED,), fix_answer=ABOUT_THE_LOG)
def plugin_load_failed(s: Snapshot, d: Derived):
    return [_plugin_failure(plugin_load_failed, s, d, match, "a plugin in tensorflow-plugins/ failed to load")
            for match in _plugin_load_failures(s) if match.code == codes.LOG_PLUGIN_LOAD_FAILED]


def _needs(match) -> str:
    """What a library failed to load on: the symbol it lacks, or the library it links (dyld's
    'Library not loaded')."""
    return match.fields.get("symbol") or match.fields.get("missing") or "a symbol it lacks"


def _plugin_failure(rule_fn, s: Snapshot, d: Derived, match, failed: str) -> Finding:
    """What a plugin that failed to load means here: which pair is installed decides it."""
    metal = d.metal.version if d.metal else None
    reqs, why, facts = pair_fix(s, d)
    facts = dict(facts, tensorflow=d.tf_version, tensorflow_metal=metal)
    status = facts.get("pair_status")
    if s.host.system and not d.is_mac and "metal_plugin" not in match.fields.get("plugin", ""):
        # off macOS the folder holds another plugin (Intel's, DirectML's)
        title = (f"{failed}: a plugin in site-packages/tensorflow-plugins/ was built for another "
                 f"TensorFlow than {d.tf_version or 'the installed one'}")
        fix = Remediation("Reinstall that plugin at the release built for this TensorFlow, or "
                          "uninstall it (pip list names it)", (pip(s, "list"),))
    elif metal and status in ("known-working", "documented"):
        title = (f"{failed}; the pair installed here "
                 f"(tensorflow {d.tf_version} + tensorflow-metal {metal}) is {status}, so the log "
                 "came from another pair: reinstall this one in the environment that failed")
        fix = Remediation(title, tuple(install_commands(s, (f"{d.tf_main.name}=={d.tf_version}",
                                                            f"tensorflow-metal=={metal}")))
                          if d.tf_main else (), APPLE_PLUGIN_PAGE)
    elif metal:
        title = f"{failed}: tensorflow-metal {metal} is not built for TensorFlow {d.tf_version}"
        fix = _install_the_pair(s, reqs, why)
    elif listing_read(s) and not d.metal_plugins:  # the listing says no plugin is installed
        title = (f"{failed}; this environment has "
                 "no tensorflow-metal, so the log came from another environment or a plugin "
                 "left behind in tensorflow-plugins/")
        reqs = recommended_requirements(s).requirements
        fix = Remediation("Install the pair for this Python into the environment that failed: "
                          + " + ".join(reqs), tuple(install_commands(s, reqs)), APPLE_PLUGIN_PAGE)
    else:  # which plugin is installed is unknown (the tables cannot judge it): the pair that loads
        title = (f"{failed}: the installed tensorflow-metal is not built for TensorFlow "
                 f"{d.tf_version or '(version not stated)'}")
        fix = _install_the_pair(s, reqs, why)
    return rule_fn.finding(evidence(s, match, **facts), fix, title=title)


def _install_the_pair(s: Snapshot, reqs: tuple[str, ...], why: str) -> Remediation:
    """The pair that loads (tfdoctor.advice.installs.pair_fix), installed."""
    return Remediation(why, tuple(install_commands(s, reqs)) if reqs else (), APPLE_PLUGIN_PAGE)


def _owner(library: str) -> str | None:
    parts = library.replace("\\", "/").split("/")
    for part in reversed(parts[:-1]):
        if part in _PACKAGE_DIRS:
            return _PACKAGE_DIRS[part]
    return None


@rule(codes.LOG_SYMBOL_NOT_FOUND, "A custom-op library was built for another TensorFlow",
      Severity.ERROR,
      "Custom ops (tensorflow-text, tensorflow-addons, tensorflow-io, your own .so) link against "
      "TensorFlow's C++ symbols, which change between minors: a library built for another "
      "TensorFlow fails to load with 'undefined symbol' or 'Symbol not found' "
      "(tensorflow/tensorflow#22432), or with dyld's 'Library not loaded' where it links "
      "TensorFlow's own library under another TensorFlow's name (libtensorflow_framework.1.dylib "
      "is TensorFlow 1.x's: tensorflow/text#97).",
      "Reinstall the package at the version built for the installed TensorFlow minor, or rebuild "
      "the library against it.", fix_answer=ABOUT_THE_LOG)
def symbol_not_found(s: Snapshot, d: Derived):
    out = []
    macos_own = {m.fields["symbol"] for m in matches_of(s, codes.LOG_MACOS_TOO_OLD) if m.fields.get("symbol")}
    skipped = any(m.variant == LINKER_SKIPPED for m in matches_of(s, codes.LOG_ARCH_MISMATCH))
    for match in matches_of(s, codes.LOG_SYMBOL_NOT_FOUND):
        if any(symbol in match.text for symbol in macos_own):
            continue  # dyld expected it in macOS's own libraries: log.macos-too-old, not a TensorFlow pair
        if skipped and "for architecture" in match.text:
            continue  # the linker left out a library of the other architecture: its symbols (log.arch-mismatch)
        library = match.fields.get("library", "")
        owner = _owner(library)
        minor = release_minor(d.tf_version) if d.tf_version else ""
        installed = s.package(owner) if owner else None
        facts = {"tensorflow": d.tf_version, "library_package": owner,
                 "library_package_installed": installed.version if installed else None}
        if owner and minor:
            want = f"{owner}~={minor}.0"
            text = (f"{owner} {installed.version if installed else ''} was not built for TensorFlow "
                    f"{d.tf_version}: install the release of the same minor ({want})").replace("  ", " ")
            commands: tuple[str, ...] = (pip(s, "install", want),)
        elif owner:
            text = (f"{owner} was built for another TensorFlow: install its release of the installed "
                    "TensorFlow's minor (`pip show tensorflow` names it)")
            commands = (pip(s, "show", "tensorflow", owner),)
        else:
            text = (f"{match.fields.get('plugin') or library or 'the library'} was built against another TensorFlow "
                    f"than {d.tf_version or 'the one installed'}: rebuild it against this TensorFlow")
            commands = ('python3 -c "import tensorflow as tf; print(tf.sysconfig.get_compile_flags(), '
                        'tf.sysconfig.get_link_flags())"',)
        out.append(symbol_not_found.finding(evidence(s, match, **facts), Remediation(text, commands),
                                            title=f"{match.fields.get('plugin') or 'A library'} needs {_needs(match)}: {text}"))
    return out


_UPDATE_MACOS = ("Update macOS (System Settings > General > Software Update), or install a release built "
                 "for this macOS")


@rule(codes.LOG_MACOS_TOO_OLD, "A binary needs a newer macOS than this one", Severity.ERROR,
      "dyld names where it expected a missing symbol ('Expected in: ...'). When that is one of "
      "macOS's own libraries or frameworks (/System/Library/Frameworks/..., /usr/lib/libSystem, "
      "libc++), the library that needs it was built for a newer macOS, whose system has the "
      "symbol (its 'Referenced from' line often says 'which was built for Mac OS X 12.0'): not "
      "a TensorFlow pairing problem. Observed, it is the cause; compat.macos-too-old adds what the "
      "tables say of the installed versions. Where this macOS is at least the one the library "
      "was built for, the text came from elsewhere (information).",
      "Update macOS to the version the library was built for, or install the release of that "
      "package built for this macOS.", fix_answer=ABOUT_THE_LOG)
def log_macos_too_old(s: Snapshot, d: Derived):
    out = []
    for match in matches_of(s, codes.LOG_MACOS_TOO_OLD):
        built_for = match.fields.get("built_for")
        needs = f"macOS {built_for} or later" if built_for else "a newer macOS"
        if built_for and d.macos and version_of(d.macos) >= version_of(built_for):
            text = (f"the text shows a library built for {needs}, and this Mac runs macOS {d.macos}: the "
                    "error came from another machine or an older macOS")
            out.append(log_macos_too_old.finding(evidence(s, match, macos=d.macos), Remediation(
                text + ". Run tfdoctor where it failed (`tfdoctor collect --log FILE`)"), title=text,
                severity=Severity.INFO))
            continue
        too_old = f"macOS {d.macos} is too old: " if d.macos else ""
        if not match.fields.get("symbol"):  # the report's words: no library, no symbol to name
            text = (f"the report says a package it installs needs {needs}; this Mac runs "
                    f"{d.macos or 'a macOS it does not state'}. {_UPDATE_MACOS}")
            out.append(log_macos_too_old.finding(evidence(s, match, macos=d.macos),
                                                 Remediation(text, ("sw_vers -productVersion",)),
                                                 title=f"{too_old}the report says it needs {needs}"))
            continue
        text = (f"{match.fields.get('provider_name') or 'a system library'} of this macOS "
                f"({d.macos or 'version not known'}) lacks {match.fields.get('symbol')}: the library "
                f"that needs it was built for {needs}. {_UPDATE_MACOS}")
        out.append(log_macos_too_old.finding(
            evidence(s, match, macos=d.macos), Remediation(text, ("sw_vers -productVersion",)),
            title=f"{too_old}a library needs {match.fields.get('symbol')} from macOS's "
                  f"{match.fields.get('provider_name') or 'system libraries'}, built for {needs}"))
    return out


_TESTED_BUILDS = "https://www.tensorflow.org/install/source#gpu"


@rule(codes.LOG_GPU_LIBRARIES, "TensorFlow's GPU build could not load the NVIDIA libraries it needs",
      Severity.ERROR,
      "A GPU build of TensorFlow loads NVIDIA's stack by file name: the driver (libcuda.so.1, "
      "nvcuda.dll), the CUDA toolkit of the release it was built with (libcudart.so.10.0, "
      "cudart64_100.dll) and cuDNN (libcudnn.so.7). TensorFlow 1.x links them, so a missing one "
      "stops `import tensorflow` ('cannot open shared object file', tensorflow/tensorflow#14280; "
      "the Windows self-check's 'Could not find 'cudart64_100.dll'', tensorflow/tensorflow#31701): "
      "an error. TensorFlow 2.x opens them once a GPU is found and skips the GPU when one is "
      "missing ('Cannot dlopen some GPU libraries', tensorflow/tensorflow#60646): a warning. The "
      "name says which part is missing and which CUDA or cuDNN release the build wants; a driver "
      "library that is missing or an empty file inside a container means the container was "
      "started without the GPU. 'Could not load dynamic library' (and 2.13+'s 'Could not find "
      "cuda drivers on your machine', printed when the CUDA runtime cannot be opened) alone is "
      "what every machine without an NVIDIA GPU prints: read only beside one of these, a GPU "
      "list that came back empty, a writer who says they have a GPU they want used ('I have a "
      "GPU', 'my GPU is not detected'), a library of a CUDA before 10.1 (only tensorflow-gpu "
      "opened one: the tensorflow package became a GPU build in 2.1, with CUDA 10.1), or a text "
      "that says its machine has an NVIDIA GPU or a CUDA "
      "toolkit (a GPU model, a CUDA release, nvidia-smi's table; tensorflow/tensorflow#43947, "
      "tensorflow/tensorflow#61689). A stack that loads can be the wrong release: a cuDNN older "
      "than the one TensorFlow was compiled with ('Loaded runtime CuDNN library: 7.5.0 but source was compiled with: "
      "7.6.0', tensorflow/tensorflow#33666) or a driver older than the CUDA runtime ('CUDA driver "
      "version is insufficient for CUDA runtime version') makes the GPU's work fail, and "
      "convolutions then report 'DNN library is not found': an error, read where the text is "
      "TensorFlow's (JAX prints the same stream executor's lines; TensorFlow 1.x's own form, with "
      "cudnnGetVersion()'s numbers, 'Loaded runtime CuDNN library: 5005 (compatibility version "
      "5000)', predates JAX).",
      "Install the CUDA and cuDNN releases the library names (TensorFlow's tested build "
      "configurations list them), or on Linux TensorFlow 2.14+ with its pip extra that brings "
      "them; for the driver, install or update it, or start the container with the GPU.",
      _TESTED_BUILDS, explains=(codes.LOG_NO_GPU_LISTED,), fix_answer=ABOUT_THE_LOG)
def gpu_libraries(s: Snapshot, d: Derived):
    matches = matches_of(s, codes.LOG_GPU_LIBRARIES)
    failed = [m for m in matches if m.variant in nvidia.IMPORT_FAILED]
    ran = [m for m in matches if m.variant in nvidia.RUN_FAILED
           and (names_tensorflow(s) or m.fields.get("printed_by") == "TensorFlow 1.x")]
    ran.sort(key=lambda m: nvidia.RUN_FAILED.index(m.variant))
    skipped = [m for m in matches if m.variant in nvidia.GPU_SKIPPED]
    named = [m for m in matches if m.variant in nvidia.NOT_OPENED_ANYWHERE]
    wanted = gpu_wanted(s) or any(_gpu_package_only(m) for m in named)
    if not failed and not ran and not skipped and not (named and wanted):
        return None
    libraries = list(dict.fromkeys(m.fields["library"] for m in failed + named if m.fields.get("library")))
    parts: dict[str, str | None] = {}
    for m in failed + ran + named + skipped:
        if m.fields.get("part"):
            parts[m.fields["part"]] = parts.get(m.fields["part"]) or m.fields.get("wants")
    placeholder = any(m.fields.get("problem") == "file too short" for m in failed)
    in_container = bool(s.host.container) or placeholder
    facts = {"libraries": libraries[:8], "tensorflow": d.tf_version, "container": s.host.container}
    if failed:
        head = f"import tensorflow failed: its GPU build could not load {libraries[0] if libraries else 'an NVIDIA library'}"
    elif ran:
        head, text, commands = _wrong_release(s, d, ran[0], libraries, in_container)
        return gpu_libraries.finding(evidence(s, ran[0], **facts), Remediation(text, commands, _TESTED_BUILDS),
                                     title=f"{head}: {text}")
    elif skipped and all(m.variant == nvidia.CUDNN_ONLY for m in skipped):
        head = "TensorFlow's GPU build could not load cuDNN, which its convolutions and RNNs run on"
    elif libraries:
        head = f"TensorFlow ran without the GPU: it could not load {', '.join(libraries[:3])}"
    elif named and all(m.variant == nvidia.NO_CUDA_RUNTIME for m in named):
        head = "TensorFlow ran without the GPU: it could not open the CUDA runtime (libcudart) it was built with"
    else:
        head = "TensorFlow found a GPU but skipped it: some of its GPU libraries could not be loaded"
    text, commands = _missing_part(s, d, parts, libraries, in_container=in_container)
    return gpu_libraries.finding(evidence(s, (failed or skipped or named)[0], **facts),
                                 Remediation(text, commands, _TESTED_BUILDS), title=f"{head}: {text}",
                                 severity=None if failed else Severity.WARNING)


def _gpu_package_only(match: LogTextMatch) -> bool:
    """A CUDA library of a release before 10.1 (cudart64_100.dll, libcublas.so.10.0): only
    tensorflow-gpu, or a GPU build from source, opened one. TensorFlow 2.1's release notes: the
    tensorflow package "now includes GPU support by default", built with CUDA 10.1."""
    wants = match.fields.get("wants") or ""  # a range ("10.1-11.0", "11.x") reads as no version: not below
    return match.fields.get("part") == "CUDA" and "." in wants and below(wants, "10.1")


def _wrong_release(s: Snapshot, d: Derived, match: LogTextMatch, libraries: list[str],
                   in_container: bool) -> tuple[str, str, tuple]:
    """The head, the fix and its commands where the GPU's work failed on the stack's release: a
    cuDNN older than the one TensorFlow was compiled with (cuDNN 7+ needs the same major and at
    least its minor; before 7 the same minor), a driver older than the CUDA runtime, or no cuDNN
    usable at all."""
    if match.variant == nvidia.DRIVER_TOO_OLD:
        head = "the NVIDIA driver is older than the CUDA runtime TensorFlow was built with, so it cannot use the GPU"
        if in_container:
            return head, ("a container uses the host's driver: update the host's NVIDIA driver, or use "
                          "an image of an older CUDA"), ("nvidia-smi",)
        return head, ("update the NVIDIA driver (nvidia-smi's 'CUDA Version' is the newest CUDA it "
                      "runs), or install a TensorFlow built for an older CUDA"), ("nvidia-smi",)
    if match.variant == nvidia.CUDNN_MISMATCH and match.fields.get("wants") and match.fields.get("loaded"):
        wants, loaded = match.fields["wants"], match.fields["loaded"]
        major, major_minor = wants.split(".")[0], ".".join(wants.split(".")[:2])
        later = f" (or a later {major}.x)" if major.isdigit() and int(major) >= 7 else ""  # before 7: that minor
        head = (f"TensorFlow was compiled with cuDNN {wants} but loaded cuDNN {loaded}, so its "
                f"convolutions and RNNs fail on the GPU")
        text = (f"make cuDNN {major_minor}{later} the one loaded: install it and put "
                f"its folder first on {_path_variable(s, libraries)} (a cuDNN found earlier, such as a conda "
                f"package's or another framework's, is loaded instead), or install a TensorFlow built for cuDNN {loaded}")
    else:  # no cuDNN usable, or a mismatch cut before its releases
        head = "a GPU op failed because TensorFlow has no usable cuDNN (missing, or not the release it was built with)"
        text = (f"install the cuDNN release this TensorFlow was built with (its tested build configurations "
                f"list it) and put its folder on {_path_variable(s, libraries)}")
    if _pip_extra_era(s, d, None):
        return (head, text + "; TensorFlow 2.14+ brings the cuDNN it was built with through its pip extra and-cuda",
                (pip(s, "install", "tensorflow[and-cuda]"),))
    return head, text, ()


_LIBRARY_PATH = {".dll": "PATH", ".dylib": "DYLD_LIBRARY_PATH"}


def _missing_part(s: Snapshot, d: Derived, parts: dict[str, str | None], libraries: list[str],
                  in_container: bool) -> tuple[str, tuple]:
    """What to install for the parts of the NVIDIA stack that are missing. An empty driver library
    ('file too short') is the placeholder a GPU image holds where the NVIDIA runtime mounts the
    host's driver: a container started without the GPU."""
    if "driver" in parts and len(parts) == 1:
        if in_container:
            return ("the NVIDIA driver is the host's: start the container with the GPU (docker run "
                    "--gpus all, with the NVIDIA Container Toolkit), or use a CPU image"), ("nvidia-smi",)
        return "the NVIDIA driver is missing: install it (nvidia-smi tells whether one works)", ("nvidia-smi",)
    releases = [f"{part} {version}" for part, version in parts.items() if part != "driver" and version]
    ranges = any("-" in version or version.endswith(".x") for version in parts.values() if version)
    which = "a release of that range" if len(releases) == 1 and ranges else (
        "that release" if len(releases) == 1 else "those releases")
    wanted = (f"this build wants {' and '.join(releases)}: install {which}"
              if releases else "install the CUDA and cuDNN releases this TensorFlow was built with (its "
              "tested build configurations list them)")
    text = f"{wanted} and put the library folder on {_path_variable(s, libraries)}, or install a TensorFlow built for the CUDA you have"
    if _pip_extra_era(s, d, parts.get("CUDA")):
        return (text + "; TensorFlow 2.14+ brings them with its pip extra and-cuda",
                (pip(s, "install", "tensorflow[and-cuda]"),))
    return text, ()


def _path_variable(s: Snapshot, libraries: list[str]) -> str:
    """The variable the loader searches for the libraries named (by their suffix) or of this system."""
    return next((variable for ext, variable in _LIBRARY_PATH.items() if libraries and libraries[0].endswith(ext)),
                "PATH" if s.host.system == "Windows" else "LD_LIBRARY_PATH")


def _pip_extra_era(s: Snapshot, d: Derived, cuda: str | None) -> bool:
    """Whether the pip extra is the fix: TensorFlow 2.14+ on Linux brings the CUDA and cuDNN its
    build wants (CUDA 11.8 for 2.14, 12 from 2.15: the wheels' METADATA); not an upgrade of a
    TensorFlow built for an older CUDA."""
    era = version_of(d.tf_version) >= version_of("2.14") if d.tf_version else (
        cuda is None or version_of(nvidia.first_release(cuda)) >= version_of("12"))
    return s.host.system == "Linux" and era
