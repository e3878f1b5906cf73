"""Signatures of `import tensorflow` failing: the wrong CPU, the wrong plugin, the wrong NumPy.

Where tfdoctor.logtext.stderr already reads the same text from the runtime child, its pattern is used
here as it is (its named constant), so a message is recognised the same way in both places.
"""

from __future__ import annotations

import re

from tfdoctor.logtext import stderr
from tfdoctor.logtext.signature import Fields, Signature, adds, sig



def _plugin(fields: Fields) -> Fields:
    out = dict(fields)
    library = out.get("library", "")
    if library:
        out["plugin"] = library.rstrip("/").rsplit("/", 1)[-1]
        out["in_plugin_dir"] = "yes" if "tensorflow-plugins" in library else "no"
    return out


def _plugin_code(fields: Fields) -> str:
    plugin = fields.get("plugin", "")
    if fields.get("in_plugin_dir") == "yes" or "metal_plugin" in plugin:
        return "log.symbol-not-found-plugin"
    return "log.symbol-not-found"


_TENSORFLOW_LIBRARY = re.compile(r"tensorflow|tf_|_ops\.so|_ops\.dylib|metal_plugin", re.IGNORECASE)
_TENSORFLOW_SYMBOL = re.compile(r"TF_|tensorflow|tsl\d|3tsl|xla", re.IGNORECASE)


def _expected_in_system(symbol: str, text: str) -> bool:
    """dyld expects `symbol` in one of the OS's own libraries, read in any view of the text
    (line by line, or with a paste's lines joined)."""
    at = text.find(symbol)
    if at < 0:
        return False
    return bool(_SYSTEM_PROVIDER.search(text, at, at + len(symbol) + 1500))


APPLE_CLASS = re.compile(r"_OBJC_(?:META)?CLASS_\$_(?:MPS|MTL|MTK|NS|CA|CI|AV|ML)[A-Z]")
"""An Objective-C class of Apple's frameworks (their reserved prefixes: MetalPerformanceShaders
and MPSGraph, Metal, MetalKit, Foundation, Core Animation and Image, AVFoundation, Core ML): only
macOS provides it, so a binary missing one was built for a newer macOS, wherever dyld looked."""
APPLE_FUNCTION = re.compile(r"_(?:k?Sec|SSL|k?CF)[A-Z][a-z]|_(?:dispatch|xpc)_[a-z]|_os_(?:log|unfair_lock|signpost|activity)_"
                            r"|_clock_gettime(?![\w$])|_{3,4}chkstk_darwin(?![\w$])")
"""A C function or constant of macOS's own libraries, by Apple's reserved prefixes: Security and
Secure Transport (Sec, SSL), Core Foundation (CF), libdispatch, XPC, libSystem's os_ calls,
clock_gettime (macOS 10.12) and ___chkstk_darwin (libSystem's stack probe, 10.15, which clang
calls in code built for 10.15 on; dyld prints it with one more underscore): only macOS provides
it, so a binary missing one was built for a newer macOS, wherever dyld looked."""
_APPLE_CLASS_MISSING = re.compile(r"ymbol not found:? '?(?:" + APPLE_CLASS.pattern + "|" + APPLE_FUNCTION.pattern + ")")
_SYSTEM_PROVIDER = re.compile(r"Expected in:\s*(?:<[0-9A-Fa-f-]+>\s*)?'?/(?:System/Library|usr/lib)/")


def _tensorflow_library(fields: Fields, text: str) -> bool:
    """A missing symbol is TensorFlow's failure only when the library is TensorFlow's, a plugin
    or a custom op (its path, or a TensorFlow frame of the text, says so), or the symbol is one of
    TensorFlow's; a protobuf or grpc extension missing its own symbol is another story, and so is
    a symbol the error expects in a system library (log.macos-too-old: the OS is too old)."""
    library, symbol = fields.get("library", ""), fields.get("symbol", "")
    if symbol and (_expected_in_system(symbol, text) or APPLE_CLASS.match(symbol) or APPLE_FUNCTION.match(symbol)):
        return False
    if not symbol and _APPLE_CLASS_MISSING.search(text):  # a paste read cut after its head
        return False
    if library:
        return bool(_TENSORFLOW_LIBRARY.search(library) or _TENSORFLOW_SYMBOL.search(symbol))
    return bool(_TENSORFLOW_SYMBOL.search(symbol)) or "tensorflow" in text


_DYLD_VERSION_NOTE = (r"(?:'?[ \t]{0,20}(?:\n?[ \t]{0,20}Referenced from:[^\n(]{0,500})?\(which was built for "
                      r"(?:Mac OS X|macOS) (?P<built_for>\d+(?:\.\d+)*))?")
"""dyld's "Referenced from" line with its version note, when the paste kept them (a paste that
joined dyld's lines keeps the note beside the symbol)."""


def _not_tensorflow_symbol(fields: Fields, text: str) -> bool:
    """A TensorFlow symbol missing is the TensorFlow pair's story, whatever dyld adds about the OS."""
    return not _TENSORFLOW_SYMBOL.search(fields.get("symbol", ""))


_BUILT_FOR = re.compile(r"built for (?:Mac OS X|macOS) (?P<version>\d+(?:\.\d+)*)")


def _built_for(fields: Fields) -> Fields:
    """The macOS the binary was built for, when dyld's "Referenced from" line says it."""
    out = {k: v for k, v in fields.items() if k != "between"}
    found = _BUILT_FOR.search(fields.get("between", ""))
    if found:
        out["built_for"] = found.group("version")
    out["provider_name"] = out.get("provider", "").rstrip("/").rsplit("/", 1)[-1]
    return out


def _addons(fields: Fields) -> Fields:
    """tensorflow-addons' range of TensorFlow versions as one specifier (>=min,<max)."""
    out = {k: v for k, v in fields.items() if k not in ("min", "max")}
    out["package"] = "tensorflow-addons"
    if fields.get("min") and fields.get("max"):
        out["needs"] = f">={fields['min']},<{fields['max']}"
    return out


_INTERNAL = (r"(?P<internal>tensorflow(?:_core)?(?:\._api\.v[12])?\.(?:python|compat\.v2)(?:\.\w{1,60}){0,8}"
             r"|tensorflow(?:_core)?(?:\.\w{1,60}){0,6}\.__internal__(?:\.\w{1,60}){0,6})")
"""TensorFlow's modules that only packages built for one TensorFlow reach: its private tree
(tensorflow.python), the namespace Keras 2 imports as `tf` (`import tensorflow.compat.v2 as tf`)
and tf.__internal__, the API TensorFlow keeps for Keras alone. Printed with the tree's prefix
where the module comes from it (tensorflow_core in 1.15, tensorflow._api.v1 / v2). Not the public
API: "module 'tensorflow._api.v2.train' has no attribute 'GradientDescentOptimizer'" is a
person's TensorFlow 1 code."""


def _numpy_removed(fields: Fields) -> Fields:
    """The NumPy name and the release that removed it (1.24 the builtin aliases, else 2.0)."""
    if fields.get("alias"):
        return {"name": fields["alias"], "removed_in": "1.24"}
    return {"name": fields.get("expired", ""), "removed_in": "2.0"}


NUMPY_REMOVED = re.compile(
    r"AttributeError: (?:module 'numpy' has no attribute '(?P<alias>object|bool|int|float|complex|str|long|unicode)'"
    r"|`np\.(?P<expired>\w{1,30})` was removed in the NumPy 2\.0 release)", re.MULTILINE)
_FRAME_PACKAGE = re.compile(r"(?:site|dist)-packages[/\\](\w+)[/\\]")
_NUMPY_FRAME = re.compile(r"[/\\]numpy[/\\]")
_FRAME_START = re.compile(r"\n|(?=File \")")
"""Where a traceback's frame begins: a line, or `File "` where a paste joined its lines."""
_IMPORTED = re.compile(r"\b(?:import|from)[ \t]{1,4}([\w.]{1,100})")
_TENSORFLOWS_CODE = ("tensorflow", "tensorflow_core", "tensorboard", "keras", "tf_keras")


def _tensorflows(package: str) -> bool:
    """A site-packages folder of TensorFlow's family: TensorFlow's, TensorBoard's, Keras', a tensorflow_* companion's."""
    return package in _TENSORFLOWS_CODE or package.startswith("tensorflow_")


def _in_tensorflows_code(fields: Fields, text: str) -> bool:
    """Whether the code that reached the removed name is TensorFlow's: the traceback's last frame
    before the error (NumPy's own __getattr__ aside) is in its (TensorBoard's, Keras', a tensorflow_*
    companion's) package, or, where no frame was pasted, the last import before it is TensorFlow's.
    A user's own code, or another library's, that used np.object is theirs."""
    found = NUMPY_REMOVED.search(text)
    before = text[:found.start()] if found else text
    frames = [line for line in _FRAME_START.split(before) if ".py" in line and ("File " in line or " in " in line)]
    frames = [line for line in frames if not _NUMPY_FRAME.search(line)]  # NumPy's __getattr__ raises it
    if frames:
        owner = _FRAME_PACKAGE.search(frames[-1])  # none: the user's own file
        return bool(owner) and _tensorflows(owner.group(1))
    imported = _IMPORTED.findall(before)
    return bool(imported) and imported[-1].split(".")[0] == "tensorflow"  # the last import made is TensorFlow's


_WARNED_FILE = re.compile(r"(?:site|dist)-packages[/\\](\w+)[/\\][^\s\"']{0,500}\.py:\d{1,6}: FutureWarning: "
                          r"In the future `?np\.(\w+)", re.IGNORECASE)  # as the flat view reads: case folded


_WRAPPED_PATH = re.compile(r"\s{1,20}(?=[/\\])")


def _warned_in_tensorflows_code(fields: Fields, text: str) -> bool:
    """NumPy's warning names the file that used the name: TensorFlow's (TensorBoard's, Keras', a
    tensorflow_* companion's), not the user's nor another library's."""
    joined = _WRAPPED_PATH.sub("", text)  # a path a terminal or a forum wrapped before a separator
    return any(name == fields.get("name") and _tensorflows(owner) for owner, name in _WARNED_FILE.findall(joined))


def _tensorflows_bfloat16(fields: Fields, text: str) -> bool:
    """pybind11's message is any binding's: it is TensorFlow's NumPy types where the text shows
    TensorFlow's bfloat16 being made (its dtypes.py line)."""
    return "bfloat16" in text and ("dtypes.py" in text or "_np_bfloat16" in text)


def _tensorflow_named(fields: Fields, text: str) -> bool:
    """A C++ runtime's generic abort is TensorFlow's story only where the text around it names it."""
    return "tensorflow" in text.lower()


_ENSURE_TF_PRODUCTS = {"TensorFlow Probability": "tensorflow-probability", "TensorFlow Datasets": "tensorflow-datasets",
                       "TensorFlow Addons": "tensorflow-addons", "TF Agents": "tf-agents", "TF-GAN": "tensorflow-gan"}
"""The products whose import check prints the shared template, by the name it gives them."""
_ENSURE_TF_NAMES = "|".join(re.escape(product) for product in _ENSURE_TF_PRODUCTS)
_ENSURE_TF_PACKAGE = {product.lower(): package for product, package in _ENSURE_TF_PRODUCTS.items()}
"""The same, by the name as the flat view reads it (case ignored)."""


def _ensure_tf(fields: Fields) -> Fields:
    """The companion's floor as a specifier; its check raises ImportError: a failure."""
    out = {"package": _ENSURE_TF_PACKAGE[fields["product"].lower()], "fails": "ImportError"}  # the head names it too
    if fields.get("min"):
        out["needs"] = f">={fields['min']}"
    if fields.get("tensorflow"):
        out["tensorflow"] = fields["tensorflow"]
    return out


def _probability_specs(fields: Fields) -> Fields:
    """TensorFlow Probability's signature check fails its import: a failure, of which function."""
    return {**fields, "package": "tensorflow-probability", "fails": "ValueError"}


_METRIC_NAME = re.compile(r"same name: (/[^\s'\"`]{1,300})", re.IGNORECASE)


_KERAS_AT_IMPORT = (r"(?:[ \t]{0,4}File[ \t]{1,3}\"?)?(?:~|/|[A-Za-z]:)[^\n\"]{0,300}?(?:site|dist)-packages[/\\]"
                    r"(?:tensorflow[/\\]python[/\\])?(?:keras|tf_keras)[/\\][^\n\"]{0,300}?\.py"
                    r"(?: in <module>|:\d{1,6}[ \t]*$|\", line \d{1,6}, in <module>)")
"""A frame (a path at a line's start, or after `File`) running a module of Keras (standalone,
tf-keras, TensorFlow's tensorflow/python/keras) at import: IPython 7's `PATH in <module>`,
IPython 8's `File PATH:LINE` (a function's frame adds `, in NAME(...)`), Python's `File "PATH",
line N, in <module>`. There, the only AlreadyExistsError is a metric created twice: Keras creates
its metrics as its modules load (a variable or a file that exists is a function's error, in a
function's frame)."""


def _keras_metric(fields: Fields, text: str) -> bool:
    """A metric Keras creates (its names say keras), or a message cut before the name (a cut
    read where the name is in the text after all is judged by that name)."""
    named = fields.get("metric") or next(iter(_METRIC_NAME.findall(text)), "")
    return not named or "keras" in named.lower()


def _job_command(fields: Fields) -> Fields:
    """zsh names the command after the signal's text, bash after its job number, fish in quotes
    before it: one field."""
    out = dict(fields)
    job, fish = out.pop("job", ""), out.pop("fish", "")  # alternatives of the pattern: one is set at most
    if (job or fish) and not out.get("command"):
        out["command"] = job or fish
    return out


MKL_REQUIREMENTS = "mkl-minimum-requirements"
"""Intel MKL's refusal of a CPU: MKL is x86 code only, so it also shows an x86 process ran."""
_MKL_NEEDS = re.compile(r"\(Intel\(R\) ([\w.]{1,12})\) instructions")


def _mkl(fields: Fields) -> Fields:
    """The instructions MKL lists as required (SSSE3, SSE4.2, AVX): what this MKL build needs
    ("" when the paste ends before its list)."""
    return {"instructions": ", ".join(_MKL_NEEDS.findall(fields.get("needs", "")))}


_NATIVE_MODULE = re.compile(r"_?pywrap_tensorflow|native TensorFlow runtime")


def _tensorflows_native_module(fields: Fields, text: str) -> bool:
    """Whether the DLL that failed is TensorFlow's own native module: named by Python 3.8+'s
    message ("while importing _pywrap_tensorflow_internal"), else by the traceback or TensorFlow's
    own note around it ("Failed to load the native TensorFlow runtime")."""
    module = fields.get("module")
    return bool(_NATIVE_MODULE.search(module)) if module else bool(_NATIVE_MODULE.search(text))


def _avx(fields: Fields) -> Fields:
    out = dict(fields)
    if out.pop("qemu", ""):
        out["emulator"] = "qemu"
    return out


_DLOPEN_SYMBOL = re.compile(
    stderr.DLOPEN.regex.pattern + r":\s*" + stderr.SYMBOL_NOT_FOUND.regex.pattern)
_UNDEFINED = stderr.UNDEFINED_SYMBOL.regex

_TENSORFLOWS_OWN_LIBRARY = re.compile(r"libtensorflow_framework|_pywrap_tensorflow|libtensorflow_cc")
_DEPENDENCY_MISSING = re.compile(
    stderr.DLOPEN.regex.pattern + r":\s*Library not loaded: '?(?P<missing>[^'\s]{1,300})'?", re.MULTILINE)
"""A library that could not load a library it links: dyld's "dlopen(LIB, 6): Library not loaded:
@rpath/libtensorflow_framework.1.dylib" (dyld/dyld2.cpp's template, passed on by TensorFlow's
load_op_library and by Python's import)."""


def _links_tensorflow(fields: Fields, text: str) -> bool:
    """The library that failed is a plugin's or a companion's (not TensorFlow's own: its broken
    install is another story) and what it could not load is TensorFlow's own library, which a
    release of another TensorFlow names differently (libtensorflow_framework.1 for 1.x, the
    _pywrap_tensorflow_internal the plugin of a later layout links)."""
    library, missing = fields.get("library", ""), fields.get("missing", "")
    own = re.search(r"[/\\]tensorflow(?:_core)?[/\\]", library)
    theirs = _TENSORFLOWS_OWN_LIBRARY.search(missing) if missing else True  # a paste cut before the name
    return bool(theirs and _TENSORFLOW_LIBRARY.search(library) and not own)


LINKER_SKIPPED = "ld-other-architecture"
"""The linker's form of the mismatch: a build skipped a library of the other architecture, and
the symbols it then reports undefined are that library's."""
NOT_MACH_O = "not-mach-o"
"""dyld's form for a library of no macOS format at all: a package that put another system's build
(a Linux ELF .so) in what macOS installed, or a file cut short."""


def _linked(fields: Fields) -> Fields:
    """One set of fields for either linker's wording."""
    return {"file": fields.get("file") or fields.get("file2", ""), "have": fields.get("have") or fields.get("have2", ""),
            "need": fields.get("need") or fields.get("need2", "")}


_GENCODE_NEEDS = {"symbol_database": "2.6", "builder": "3.20", "runtime_version": "5.26"}
"""What code generated by protoc imports from google.protobuf, by the runtime release that added
it: every _pb2.py since protobuf 2.6 imports symbol_database (BVLC/caffe#1202: 2.5 has none), protoc 3.20+ code
`internal.builder`, protoc 5.26+ code `runtime_version`. A name a newer runtime removed is the
opposite failure and is left out."""
_GENCODE_MODULES = "|".join(_GENCODE_NEEDS)


def _gencode_needs(fields: Fields) -> Fields:
    module = (fields.get("name") or fields["frame"]).lower()  # one of the two forms matched; the flat view ignores case
    return {"module": module, "needs": _GENCODE_NEEDS[module]}


WINDOWS_DLL_INIT_FAILED = "windows-dll-init-failed"
"""Windows refusing TensorFlow's native module at its start-up: AVX, or a runtime it loads."""
NUMPY_MULTIARRAY = "numpy-multiarray"
"""NumPy 1.x's C-API import failing, without (or after) the line that says why."""
NUMPY_BEFORE_1_16 = "numpy-before-1.16"
"""A module compiled against NumPy 1.16+ under an older NumPy: it imports numpy.core._multiarray_umath."""

# QEMU's user-mode emulator (Docker's amd64 images on an ARM host): linux-user/signal.c prints
# "qemu: uncaught target signal %d (%s) - core dumped" and, through error_report with its
# program name, "qemu-x86_64: QEMU internal SIG%s {code=%s, addr=%p}"; its loader
# "qemu-x86_64: Could not open '/lib64/ld-linux-x86-64.so.2': No such file or directory"
QEMU_USER = sig("log.qemu-emulation", "qemu-user", "import",
    "the process ran under QEMU's user-mode emulation (an amd64 container on an ARM host)",
    r"\bqemu(?:-(?P<target>[a-z0-9_]+?)(?:-static)?)?: (?:uncaught target signal (?P<signal>\d+) "
    r"\((?P<signal_name>[^)\n]{0,40})\)|QEMU internal SIG(?P<host_signal>[A-Z]+)|"
    r"Could not open '(?P<loader>[^'\n]{1,300})')",
    "qemu: uncaught target signal 6 (Aborted) - core dumped",
    "https://github.com/tensorflow/tensorflow/issues/52972", needle="qemu", key=(),
    head=r"\bqemu(?:-(?P<target>[a-z0-9_]+?)(?:-static)?)?: (?:uncaught target signal|QEMU internal SIG|"
         r"Could not open)")
"""QEMU's own lines: the process they name was a Linux one it emulated (triage reads a container
from them, tfdoctor.triage.read_tflog)."""

SIGNATURES: tuple[Signature, ...] = (
    # zsh (Src/jobs.c printjob) names the job after the signal's text: "zsh: illegal hardware
    # instruction  arch -x86_64 python3", so the command that died (and how it was started) is read
    sig("log.illegal-instruction", "illegal-instruction-4", "import",
        "the process died on an instruction this CPU lacks (x86_64 code under Rosetta 2)",
        r"Illegal instruction: 4|illegal hardware instruction(?:[ \t]+(?P<command>\S[^\n`]{0,200}))?|"
        r"Fatal Python error: Illegal instruction|"
        # bash on Linux (an amd64 container under emulation): jobs.c's "%s (core dumped)", whose
        # note is translated with the locale (Italian "(core dump creato)", German "(Speicherabzug
        # geschrieben)") while the signal's name may stay English
        r"Illegal instruction[ \t]{0,2}\([ \t]{0,2}(?:core[ \t]dump|Speicherabzug)[^)\n]{0,40}\)|"
        # bash's job report without a core ("line 51:   276 Illegal instruction     python3 x.py"),
        # or alone on its line after the command that died (">>> import tensorflow" / "Illegal instruction")
        r"^(?:.{0,300}\bline \d+:[ \t]+\d+[ \t]+|[ \t`]*)Illegal instruction(?:[ \t]{2,}(?P<job>\S[^\n`]{0,200}))?[ \t`]*$|"
        # fish (src/proc.cpp: "fish: Job %d, '%ls' terminated by signal %ls (%ls)"; 2.x without the job),
        # gdb ("Program received signal SIGILL, Illegal instruction.")
        r"fish: (?:Job \d+, )?'(?P<fish>[^'\n]{1,200})' terminated by signal SIGILL \(Illegal instruction\)|"
        r"received signal SIGILL, Illegal instruction\.",
        "Illegal instruction: 4", "https://github.com/tensorflow/tensorflow/issues/62860",
        needle="llegal", key=(), derive=_job_command, outputs=("command",)),
    # JetBrains IDEs (PyCharm's run console, intellij-community ProcessTerminatedListener) print
    # "Process finished with exit code 132 (interrupted by signal 4: SIGILL)" (":SIGILL" in newer
    # releases) for the same death: 132 is 128 + SIGILL, so the bare code is one too
    sig("log.illegal-instruction", "ide-exit-code-132", "import",
        "the process died on an instruction this CPU lacks (x86_64 code under Rosetta 2)",
        r"Process finished with exit code 132(?: \(interrupted by signal 4: ?SIGILL\))?(?!\d)",
        "Process finished with exit code 132 (interrupted by signal 4: SIGILL)",
        "https://github.com/tensorflow/tensorflow/issues/47799",
        needle="exit code 132", key=()),
    # Windows' STATUS_ILLEGAL_INSTRUCTION (ntstatus.h 0xC000001D) for the same death: Python 3.5-3.7
    # report it as "ImportError: DLL load failed with error code -1073741795" when the DLL's own
    # start-up code hit it (TensorFlow's _pywrap_tensorflow_internal.pyd, built with AVX since 1.6);
    # JetBrains IDEs as "Process finished with exit code -1073741795 (0xC000001D)"
    sig("log.illegal-instruction", "windows-illegal-instruction", "import",
        "the process died on an instruction this CPU lacks (Windows' STATUS_ILLEGAL_INSTRUCTION)",
        r"(?:error|exit) code -1073741795(?!\d)(?: \(0xC000001D\))?",
        "ImportError: DLL load failed with error code -1073741795",
        "https://github.com/tensorflow/tensorflow/issues/35409", needle="1073741795", key=()),
    # Windows' ERROR_DLL_INIT_FAILED (winerror.h 1114) for TensorFlow's own native module: the
    # module's start-up code runs the AVX its x86_64 builds are compiled with (from 1.6), and a CPU
    # without it (or a build's AVX2 on a CPU with AVX only, fo40225/tensorflow-windows-wheel#48)
    # fails there; TensorFlow's maintainers answer it with the AVX requirement (tensorflow/tensorflow#39092)
    sig("log.avx-missing", WINDOWS_DLL_INIT_FAILED, "import",
        "TensorFlow's native module failed its start-up on Windows (DLL initialization routine failed)",
        r"DLL load failed(?: while importing (?P<module>\w{1,100}))?: A dynamic link library \(DLL\) "
        r"initialization routine failed",
        "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: A dynamic link library (DLL) "
        "initialization routine failed.", "https://github.com/tensorflow/tensorflow/issues/39855",
        needle="initialization routine failed", applies=_tensorflows_native_module, key=()),
    sig("log.avx-missing", "avx-missing", "import",
        "TensorFlow for x86_64 needs AVX, which this CPU (or its emulator) does not offer",
        re.compile(stderr.CPU_INSTRUCTIONS_MISSING.regex.pattern +
                   r"(?:.{0,300}\n(?:.{0,300}\n)?(?P<qemu>qemu: uncaught target signal))?", re.MULTILINE),
        "The TensorFlow library was compiled to use AVX instructions, but these aren't available "
        "on your machine.", "https://github.com/tensorflow/tensorflow/issues/52972",
        needle="compiled to use", derive=_avx, key=("instructions",),
        outputs=("instructions", "emulator"), head=r"The TensorFlow library was compiled to use"),
    # Intel MKL's start-up check (NumPy, SciPy, PyTorch and TensorFlow builds linked to MKL, as
    # conda's defaults channel ships them): it names each instruction set it needs on a line of its
    # own. MKL has only x86 code, and Rosetta 2 offers SSSE3 and SSE4.2 but no AVX, so on Apple
    # silicon this says an x86_64 process ran (MKL 2022+ refuses Rosetta 2, JuliaLinearAlgebra/MKL.jl#146)
    sig("log.avx-missing", MKL_REQUIREMENTS, "import",
        "Intel MKL (x86 code only) found the instructions it needs missing on this CPU or its translator",
        r"Intel MKL FATAL ERROR: This system does not meet the minimum requirements for use of the "
        r"Intel\(R\) Math Kernel Library\.(?P<needs>(?:[ \t]{0,8}\n?[ \t\"]{0,8}The processor must support "
        r"the Intel\(R\) [^\n()]{1,80}\(Intel\(R\) [\w.]{1,12}\) instructions\.){0,6})",
        "Intel MKL FATAL ERROR: This system does not meet the minimum requirements for use of the Intel(R) "
        "Math Kernel Library.", "https://github.com/faylward/viralrecall/issues/16",
        needle="Intel MKL FATAL ERROR", derive=_mkl, outputs=("instructions",), key=()),
    # CPython's import system ("No module named %R": Python/import.c, importlib._bootstrap) for
    # the top package itself: the interpreter that ran has no tensorflow at all (a submodule
    # missing, 'tensorflow.keras', is another story)
    sig("log.no-tensorflow-module", "no-module-named-tensorflow", "import",
        "the interpreter that ran found no tensorflow package to import",
        r"No module named (?:'tensorflow'|\"tensorflow\"|tensorflow(?![\w.'\"]))",
        "ModuleNotFoundError: No module named 'tensorflow'",
        "https://github.com/kyleskom/NBA-Machine-Learning-Sports-Betting/issues/180",
        needle="No module named", key=()),
    # R's reticulate (import(): "Python module %s was not found.", then "Detected Python
    # configuration:"): the Python R bound to has no tensorflow package
    sig("log.no-tensorflow-module", "reticulate-module-not-found", "import",
        "the Python R's reticulate bound to has no tensorflow package",
        r"Python module (?P<module>tensorflow(?:\.keras)?) was not found\.",
        "Erro: Python module tensorflow.keras was not found.\n\nDetected Python configuration:",
        "https://github.com/rstudio/keras3/issues/1100", needle="was not found.", key=()),
    # transformers' requires_tf (TENSORFLOW_IMPORT_ERROR in file_utils.py, later utils/import_utils.py):
    # a TF model class used where transformers found no TensorFlow 2.0+ it knows by distribution name
    sig("log.no-tensorflow-module", "transformers-requires-tensorflow", "import",
        "transformers found no TensorFlow 2.0+ it recognises in the interpreter that ran",
        r"(?P<what>\w{1,100}) requires the TensorFlow library but it was not found in your environment",
        "TFBertModel requires the TensorFlow library but it was not found in your environment. Checkout the "
        "instructions on the\ninstallation page: https://www.tensorflow.org/install and follow the ones that "
        "match your environment.", "https://github.com/apple/tensorflow_macos/issues/144",
        needle="requires the TensorFlow library but it was not found", key=()),
    # tensorflow/core/platform/cpu_feature_guard.cc InfoAboutUnusedCPUFeatures, compiled for x86
    # only: the x86 features the running CPU has and the build does not use. "...optimized with
    # Intel(R) MKL-DNN to use the following CPU instructions in performance critical operations:
    # SSE4.1 SSE4.2" (2.1-2.4), "...with oneAPI Deep Neural Network Library (oneDNN) to use the
    # following CPU instructions in performance-critical operations:  AVX2 FMA" (2.5-2.13),
    # "...optimized to use available CPU instructions in performance-critical operations.\nTo
    # enable the following instructions: AVX2 FMA, in other operations" (2.14+), and 1.x's "Your
    # CPU supports instructions that this TensorFlow binary was not compiled to use: AVX2 FMA"
    sig("log.x86-build", "cpu-feature-guard", "import",
        "TensorFlow's CPU guard names x86 instructions: an x86_64 TensorFlow build ran",
        r"(?:This TensorFlow binary is optimized (?:with [^\n]{0,80}?)?to use (?:the following CPU "
        r"instructions in performance[- ]critical operations:|available CPU instructions in "
        r"performance-critical operations\.\s*To enable the following instructions:)"
        r"|Your CPU supports instructions that this TensorFlow binary was not compiled to use:)"
        r"\s*(?P<instructions>(?:SSE[\d.]*|AVX\w*|FMA)(?:[ ,]+(?:SSE[\d.]*|AVX\w*|FMA))*)",
        "This TensorFlow binary is optimized with oneAPI Deep Neural Network Library (oneDNN) to use "
        "the following CPU instructions in performance-critical operations:  SSE4.2 AVX AVX2 FMA",
        "https://github.com/apple/tensorflow_macos/issues/18",
        needle="TensorFlow binary", key=("instructions",), outputs=("instructions",)),
    # tensorflow/addons tensorflow_addons/utils/ensure_tf_install.py _check_tf_version (Python ops)
    sig("log.companion-mismatch", "addons-python-ops", "import",
        "tensorflow-addons says the installed TensorFlow is outside the range it supports",
        r"Tensorflow Addons supports using Python ops for all Tensorflow versions above or equal to "
        r"(?P<min>\d[\w.]*) and strictly below (?P<max>\d[\w.]*?)\.? \(nightly versions are not supported\)\.?"
        r"(?:\s*The versions? of TensorFlow you are currently using is (?P<tensorflow>\d[\w.+-]*?)\.? and)?",
        "Tensorflow Addons supports using Python ops for all Tensorflow versions above or equal to 2.5.0 "
        "and strictly below 2.8.0 (nightly versions are not supported).",
        "https://github.com/mindee/doctr/pull/998", needle="Tensorflow Addons supports",
        derive=_addons, key=("package",), outputs=("package", "needs", "tensorflow"),
        head=r"Tensorflow Addons supports using Python ops for all Tensorflow versions"),
    # tensorflow/addons tensorflow_addons/utils/resource_loader.py display_warning_if_incompatible
    sig("log.companion-mismatch", "addons-custom-ops", "import",
        "tensorflow-addons' custom ops are compiled against another TensorFlow",
        r"You are currently using TensorFlow (?P<tensorflow>\d[\w.+-]*) and trying to load a custom op "
        r"\((?P<library>[^)\n]+)\)\.?\s*TensorFlow Addons has compiled its custom ops against TensorFlow "
        r"(?P<built_for>\d[\w.]*?),(?:[\s\S]{0,1500}?equal to or above (?P<min>\d[\w.]*) and strictly "
        r"below (?P<max>\d+(?:\.\d+)*))?",
        "You are currently using TensorFlow 2.2.0-dev20200421 and trying to load a custom op "
        "(custom_ops/activations/_activation_ops.so).\nTensorFlow Addons has compiled its custom ops "
        "against TensorFlow 2.1.0,", "https://github.com/tensorflow/addons/issues/1716",
        needle="and trying to load a custom op", derive=_addons, key=("package",),
        outputs=("package", "built_for", "needs", "tensorflow", "library"),
        head=r"You are currently using TensorFlow (?P<tensorflow>\d[\w.+-]*) and trying to load a custom op"),
    # tensorflow/decision-forests tensorflow_decision_forests/tensorflow/ops/inference/api.py (and
    # the training ops' loader): its compiled op library failed to load, which it blames on the pair
    sig("log.companion-mismatch", "decision-forests-custom-ops", "import",
        "tensorflow-decision-forests' compiled ops did not load (it names the TensorFlow pair)",
        r"Failure to load the (?P<library>\w{1,60}\.so) custom c\+\+ tensorflow ops\. This error is likely caused "
        r"the version of TensorFlow and TensorFlow Decision Forests are not compatible\.",
        "WARNING:root:Failure to load the inference.so custom c++ tensorflow ops. This error is likely caused "
        "the version of TensorFlow and TensorFlow Decision Forests are not compatible. Full error:",
        "https://github.com/tensorflow/decision-forests/issues/217", needle="custom c++ tensorflow ops",
        derive=adds(package="tensorflow-decision-forests", fails="its op library"), key=("package",),
        outputs=("package", "library", "fails"),
        head=r"Failure to load the (?P<library>\w{1,60}\.so) custom c\+\+ tensorflow ops"),
    # Python's "cannot import name X from M" where M is TensorFlow's private tensorflow.python: a
    # package built against another TensorFlow's internals (TFP, Keras 2, addons reach into them)
    sig("log.companion-mismatch", "imports-tensorflow-internal", "import",
        "a package imports a TensorFlow internal this TensorFlow does not have: built for another TensorFlow",
        r"(?:ImportError: )?cannot import name '(?P<name>\w{1,100})' from '" + _INTERNAL + "'",
        "_ImportError: cannot import name 'naming' from 'tensorflow.python.autograph.core'",
        "https://github.com/tensorflow/probability/issues/987", needle="cannot import name",
        derive=adds(fails="ImportError"), key=("name",), outputs=("name", "internal", "fails"),
        head=r"(?:ImportError: )?cannot import name '\w{1,100}' from 'tensorflow(?:_core)?\.(?:python|compat\.v2|_api\.v[12]\.compat\.v2)"),
    # the same before Python 3.7, whose message names no module ("cannot import name 'X'"): the
    # import line above it does (a traceback's code line, IPython's "---> 9 from ...", or both on
    # one line, as an issue's title quotes them)
    sig("log.companion-mismatch", "imports-tensorflow-internal-line", "import",
        "a package imports a TensorFlow internal this TensorFlow does not have: built for another TensorFlow",
        r"from " + _INTERNAL + r" import (?P<name>\w{1,100})(?: as \w{1,100})?"
        r"(?:[ \t]{0,20}\n(?:[^\n]{0,300}\n){0,4}?[ \t]{0,20}|[ \t]{1,20})ImportError: cannot import name '?(?P=name)'?(?![\w'])",
        "from tensorflow.python.keras.utils import tf_utils ImportError: cannot import name 'tf_utils'",
        "https://github.com/LZQthePlane/Online-Realtime-Action-Recognition-based-on-OpenPose/issues/40",
        needle="from tensorflow", derive=adds(fails="ImportError"), key=("name",),
        outputs=("name", "internal", "fails"),
        head=r"from tensorflow(?:_core)?(?:\._api\.v[12])?\.(?:python|compat\.v2)(?:\.\w{1,60}){0,8} import "
             r"(?P<name>\w{1,100})(?: as \w{1,100})?[ \t]{1,20}ImportError: cannot import"),
    # Python's "module M has no attribute X" (Objects/moduleobject.c module_getattro) where a
    # package built for another TensorFlow reaches M.X: Keras 2.6+ calls tf.__internal__.tf2
    # through `import tensorflow.compat.v2 as tf`, which TensorFlow 2.4 and 1.x lack
    sig("log.companion-mismatch", "tensorflow-internal-attribute", "import",
        "a package uses a TensorFlow internal this TensorFlow does not have: built for another TensorFlow",
        r"AttributeError: module '" + _INTERNAL + r"' has no attribute '(?P<name>\w{1,100})'",
        "AttributeError: module 'tensorflow.compat.v2.__internal__' has no attribute 'tf2'",
        "https://github.com/divamgupta/image-segmentation-keras/issues/309", needle="AttributeError: module 'tensorflow",
        derive=adds(fails="AttributeError"), key=("name",), outputs=("name", "internal", "fails"),
        head=r"AttributeError: module 'tensorflow(?:_core)?(?:\._api\.v[12])?\.(?:python|compat\.v2)"),
    # the _ensure_tf_install template Google's companions share (tensorflow_probability/__init__.py,
    # tensorflow_datasets/core/tf_compat.py, tensorflow_addons 0.7-0.8, tf_agents, tensorflow_gan):
    # "This version of {product} requires TensorFlow version >= {required}; Detected an
    # installation of version {present}. Please upgrade TensorFlow to proceed."
    sig("log.companion-mismatch", "companion-needs-tensorflow", "import",
        "a TensorFlow companion needs a newer TensorFlow than the installed one",
        r"This version of (?P<product>" + _ENSURE_TF_NAMES + r") requires "
        r"TensorFlow version >= ?(?P<min>\d+(?:\.\d+)*)"
        r"(?:;?\s*Detected an installation of version (?P<tensorflow>\d+(?:\.\d+)*(?:[a-z-]+\w*)?))?",
        "ImportError: This version of TensorFlow Probability requires TensorFlow version >= 2.4",
        "https://github.com/GPflow/GPflow/blob/develop/README.md", needle=" requires TensorFlow",
        derive=_ensure_tf, key=("package",), outputs=("package", "needs", "tensorflow", "fails"),
        head=r"This version of (?P<product>" + _ENSURE_TF_NAMES + r") requires TensorFlow"),
    # Keras 2.4's keras/__init__.py, a thin wrapper of tf.keras: "try: from tensorflow.keras.layers.
    # experimental.preprocessing import RandomRotation / except ImportError: raise ImportError('Keras
    # requires TensorFlow 2.2 or higher. Install TensorFlow via `pip install tensorflow`')". Any
    # failure of that import says it: a TensorFlow before 2.2, none, or one that does not import.
    sig("log.companion-mismatch", "keras-needs-tensorflow", "import",
        "Keras 2.4 could not import the TensorFlow 2.2+ it wraps",
        r"Keras requires TensorFlow (?P<min>\d+(?:\.\d+)*) or higher",
        "ImportError: Keras requires TensorFlow 2.2 or higher. Install TensorFlow via `pip install tensorflow`",
        "https://github.com/rolux/stylegan2encoder/issues/26", needle="Keras requires TensorFlow",
        derive=lambda fields: {"package": "keras", "needs": f">={fields['min']}", "fails": "ImportError"},
        key=("package",), outputs=("package", "needs", "fails")),
    # tensorflow/probability tensorflow_probability/python/internal/prefer_static.py: TFP's numpy
    # twins of TensorFlow functions must have the signature of the TensorFlow TFP was written for
    # (_copy_docstring: "..., new=..., fn=...", _prefer_static: "..., static=..., fn=..."); another
    # TensorFlow's function has other arguments, and importing TFP raises
    sig("log.companion-mismatch", "probability-arg-specs", "import",
        "TensorFlow Probability's twin of a TensorFlow function takes other arguments: written for another TensorFlow",
        r"Arg specs do not match: original=FullArgSpec\([\s\S]{0,1500}?\),\s*(?:new|static)=FullArgSpec\("
        r"[\s\S]{0,1500}?\),\s*fn=<function (?P<function>\w{1,100})",
        "ValueError: Arg specs do not match: original=FullArgSpec(args=['input', 'dtype', 'name', 'layout'], "
        "varargs=None, varkw=None, defaults=(None, None, None), kwonlyargs=[], kwonlydefaults=None, "
        "annotations={}), new=FullArgSpec(args=['input', 'dtype', 'name'], varargs=None, varkw=None, "
        "defaults=(None, None), kwonlyargs=[], kwonlydefaults=None, annotations={}), "
        "fn=<function ones_like_v2 at 0x7fce4da0e480>",
        "https://github.com/tensorflow/probability/issues/1752", needle="Arg specs do not match",
        derive=_probability_specs, key=("package",), outputs=("package", "function", "fails"),
        head=r"Arg specs do not match: original="),
    sig("log.symbol-not-found-plugin", "dlopen-symbol-not-found", "import",
        "a shared library needs a symbol the installed TensorFlow does not export",
        _DLOPEN_SYMBOL,
        "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/davidlaxer/tensorflow-"
        "metal/lib/python3.8/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not "
        "found: _TF_AssignUpdateVariable", "https://github.com/tensorflow/text/issues/654",
        needle="ymbol not found", derive=_plugin, applies=_tensorflow_library, code_for=_plugin_code,
        key=("library", "symbol"),
        outputs=("library", "symbol", "plugin", "in_plugin_dir"),
        head=stderr.DLOPEN.regex.pattern + r":\s*[Ss]ymbol not found"),
    # the same library failing on a library it links rather than a symbol: TensorFlow's own, named
    # as another TensorFlow names it (dyld's "Library not loaded")
    sig("log.symbol-not-found-plugin", "tensorflow-library-not-loaded", "import",
        "a shared library links a TensorFlow library this TensorFlow does not have: built for another TensorFlow",
        _DEPENDENCY_MISSING,
        "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/ethan/venv/nlp_env/lib/python3.7/"
        "site-packages/tensorflow_text/python/ops/_constrained_sequence_op.so, 6): Library not loaded: "
        "@rpath/libtensorflow_framework.1.dylib", "https://github.com/tensorflow/text/issues/97",
        needle="Library not loaded", derive=_plugin, applies=_links_tensorflow, code_for=_plugin_code,
        key=("library", "missing"), outputs=("library", "missing", "plugin", "in_plugin_dir"),
        head=stderr.DLOPEN.regex.pattern + r":\s*Library not loaded"),
    # tensorflow/__init__.py (api_template.py, TF 2.5 on; read in tensorflow-cpu 2.19.1): the frame
    # of a traceback raised while TensorFlow loads site-packages/tensorflow-plugins. Python prints
    # the line indented; IPython marks the failing line "--> N" among numbered context lines.
    sig("log.plugin-load-failed", "plugin-dir-load-failed", "import",
        "TensorFlow failed to load a plugin from site-packages/tensorflow-plugins",
        r"^(?:[ \t]*-->[ \t]*\d+[ \t]+|[ \t]+)_ll\.load_(?:pluggable_device_)?library\(_plugin_dir\)[ \t]*$",
        'File "/Users/zhangjing/miniforge3/envs/tf3.7/lib/python3.8/site-packages/tensorflow/__init__.py", '
        "line 449, in <module>\n    _ll.load_library(_plugin_dir)",
        "https://github.com/tensorflow/tensorflow/issues/53309", needle="(_plugin_dir)", key=()),
    sig("log.macos-too-old", "system-symbol-missing", "import",
        "a binary needs a symbol this macOS's own libraries lack: it was built for a newer macOS",
        stderr.SYSTEM_SYMBOL_MISSING.regex,
        "Symbol not found: _OBJC_CLASS_$_MPSGraphCompilationDescriptor\n  Referenced from: /Users/nick/"
        "Library/r-miniconda-arm64/envs/r-reticulate/lib/python3.8/site-packages/tensorflow-plugins/"
        "libmetal_plugin.dylib (which was built for Mac OS X 12.0)\n  Expected in: /System/Library/"
        "Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/MetalPerformanceShadersGraph",
        "https://github.com/rstudio/tensorflow/issues/493",
        needle="ymbol not found", derive=_built_for, key=("symbol",),
        outputs=("symbol", "provider", "provider_name", "built_for"),
        # what tells it apart is where dyld expected the symbol: a system library
        head=stderr.SYSTEM_SYMBOL_MISSING.regex.pattern.split("(?P<provider>")[0] + r"/(?:System/Library|usr/lib)/"),
    sig("log.symbol-not-found-plugin", "undefined-symbol", "import",
        "a shared library needs a symbol the installed TensorFlow does not export (Linux text)",
        _UNDEFINED,
        "tensorflow.python.framework.errors_impl.NotFoundError: /home/selena/pcn-master/pc_distance/"
        "tf_nndistance_so.so: undefined symbol: _ZN10tensorflow15OpKernelContext10CtxFailureEPKciRKNS_6StatusE",
        "https://github.com/tensorflow/tensorflow/issues/22432",
        needle="undefined symbol", derive=_plugin, applies=_tensorflow_library, code_for=_plugin_code,
        key=("library", "symbol"),
        outputs=("library", "symbol", "plugin", "in_plugin_dir"),
        head=stderr.UNDEFINED_SYMBOL.regex.pattern.split("undefined symbol")[0] + "undefined symbol"),
    # dyld's template (Symbol not found / Referenced from ... (which was built for Mac OS X N)) for a
    # class of Apple's frameworks: a paste without its "Expected in" line still names the system
    sig("log.macos-too-old", "system-class-missing", "import",
        "a binary needs a class this macOS's own frameworks lack: it was built for a newer macOS",
        r"[Ss]ymbol not found:? '?(?P<symbol>(?:" + APPLE_CLASS.pattern + r")[A-Za-z0-9_]{0,200})" + _DYLD_VERSION_NOTE,
        "Symbol not found: _OBJC_CLASS_$_MPSGraphCompilationDescriptor\n  Referenced from: /Users/zhangjing/"
        "miniforge3/envs/tf3.7/lib/python3.8/site-packages/tensorflow-plugins/libmetal_plugin.dylib (which "
        "was built for Mac OS X 12.0)", "https://github.com/tensorflow/tensorflow/issues/53309",
        needle="ymbol not found", key=("symbol",), head=r"[Ss]ymbol not found:? '?(?:" + APPLE_CLASS.pattern + ")"),
    # dyld 2 (ImageLoaderMachOCompressed.cpp, "check if maybe this image is too new for this OS"):
    # " (which was built for Mac OS X %d.%d)" follows "Referenced from" only when the image's
    # minimum macOS is above the running one. Said of a symbol not TensorFlow's, it is the cause.
    sig("log.macos-too-old", "image-too-new-for-os", "import",
        "dyld: a binary built for a newer macOS than this one misses a symbol of this one",
        r"[Ss]ymbol not found:? '?(?P<symbol>[^'\s,，]{1,300})(?=['\s,，])'?[,，]?\s{0,20}Referenced from:[ \t]{0,20}"
        r"(?:<[0-9A-Fa-f-]{1,64}>[ \t]{0,20})?'?[^\n(']{1,1000}'?[ \t]{0,5}"
        r"\(which was built for (?:Mac OS X|macOS) (?P<built_for>\d{2}(?:\.\d{1,2}){0,2})\)",
        "ImportError: dlopen(/Users/LloydJones/anaconda2/envs/r-tensorflow/lib/python3.7/site-packages/tensorflow/"
        "python/_pywrap_tensorflow_internal.so, 6): Symbol not found: _clock_gettime\n  Referenced from: "
        "/Users/LloydJones/anaconda2/envs/r-tensorflow/lib/python3.7/site-packages/tensorflow/python/../"
        "libtensorflow_framework.so (which was built for Mac OS X 10.12)",
        "https://github.com/rstudio/keras3/issues/791", needle="which was built for",
        applies=_not_tensorflow_symbol, key=("symbol",)),
    sig("log.macos-too-old", "system-function-missing", "import",
        "a binary needs a function this macOS's own libraries lack: it was built for a newer macOS",
        r"[Ss]ymbol not found:? '?(?P<symbol>(?:" + APPLE_FUNCTION.pattern + r")[A-Za-z0-9_]{0,200})" + _DYLD_VERSION_NOTE,
        "ImportError: dlopen(/Users/alexjunyuexuli/anaconda3/envs/tensorflow/lib/python3.7/site-packages/"
        "tensorflow_core/python/_pywrap_tensorflow_internal.so, 6): Symbol not found: _SecKeyCopyExternalRepresentation",
        "https://github.com/tensorflow/community/issues/272", needle="ymbol not found", key=("symbol",),
        head=r"[Ss]ymbol not found:? '?(?:" + APPLE_FUNCTION.pattern + ")"),
    sig("log.arch-mismatch", "incompatible-architecture", "import",
        "a binary of the other architecture (x86_64 vs arm64)",
        stderr.INCOMPATIBLE_ARCHITECTURE.regex,
        "(mach-o file, but is an incompatible architecture (have (x86_64), need (arm64e)))",
        "https://github.com/tensorflow/tensorflow/issues/57483",
        needle="incompatible architecture", key=("have", "need"),
        head=r"incompatible architecture \(have '?\(?(?P<have>\w+)"),
    # Apple's linker (ld64): "ignoring file %s, building for %s-%s but attempting to link with
    # file built for %s-%s"; ld-prime (Xcode 15): "ignoring file '%s': found architecture '%s',
    # required architecture '%s'"
    sig("log.arch-mismatch", LINKER_SKIPPED, "install",
        "the linker skipped a library built for the other architecture (x86_64 vs arm64)",
        r"ignoring file '?(?P<file>[^\s',]{1,500})'?, building for macOS-(?P<need>\w+) but attempting to link with "
        r"file built for macOS-(?P<have>\w+)|"
        r"ignoring file '(?P<file2>[^'\n]{1,500})': found architecture '(?P<have2>\w+)', required architecture "
        r"'(?P<need2>\w+)'",
        "ld: warning: ignoring file /usr/local/lib/libtensorflow.so, building for macOS-x86_64 but attempting "
        "to link with file built for macOS-arm64", "https://github.com/tensorflow/build/issues/82",
        needle="ignoring file", derive=_linked, key=("file",), outputs=("file", "have", "need")),
    sig("log.arch-mismatch", "wrong-architecture", "import",
        "a binary of the other architecture (x86_64 vs arm64)",
        stderr.WRONG_ARCHITECTURE.regex,
        "_pywrap_tensorflow_internal.so: mach-o, but wrong architecture",
        "https://github.com/apple/tensorflow_macos/issues/273", needle="wrong architecture", key=()),
    # dyld 3/4 (common/MachOFile.cpp): "tried: '<path>' (not a mach-o file)", a library of no
    # macOS format at all
    sig("log.arch-mismatch", NOT_MACH_O, "import",
        "a library that is no macOS binary (a Linux .so, a file cut short)",
        r"(?:['\s](?P<library>/[^'\s:(]{1,500})'?:?[ \t]\(?)?not a mach-o file",
        "tried: '/Users/apattabi/maxtext/my_env/lib/python3.11/site-packages/grain/_src/python/"
        "experimental/index_shuffle/python/index_shuffle_module.so' (not a mach-o file)",
        "https://github.com/google/grain/issues/620", needle="mach-o", key=("library",)),
    sig("log.numpy-abi", "numpy-1x-on-2x", "import",
        "a module built against NumPy 1.x imported under NumPy 2",
        stderr.NUMPY_1X_ON_2X.regex,
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash.",
        "https://github.com/CameronBodine/PINGMapper/issues/123", needle="NumPy 1.x", key=(),
        head=r"A module that was compiled using NumPy 1\.x cannot be run in"),
    sig("log.numpy-abi", "numpy-array-api", "import",
        "a module built against NumPy 1.x imported under NumPy 2",
        stderr.NUMPY_ARRAY_API.regex, "AttributeError: _ARRAY_API not found",
        "https://github.com/nv-tlabs/vipe/issues/42", needle="_API not found", key=()),
    sig("log.numpy-abi", "numpy-api-version", "import",
        "a module built against a newer NumPy C API than the one installed",
        stderr.NUMPY_API_VERSION.regex,
        "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd",
        "https://github.com/AI4EPS/PhaseNet/issues/32", needle="compiled against",
        key=(), head=r"module compiled against (?P<what>API|ABI) version"),
    # Python's import error for the extension NumPy 1.16 introduced (numpy/core/_multiarray_umath,
    # multiarray and umath merged): a module compiled against NumPy 1.16+ imports it, and a NumPy
    # before 1.16 has none (TensorFlow 1.13's wheels were built against 1.16). NumPy 2 keeps the
    # name as a shim of numpy._core, so the message is a NumPy older than the module's
    sig("log.numpy-abi", NUMPY_BEFORE_1_16, "import",
        "a module built against NumPy 1.16+ imported under an older NumPy",
        r"No module named '?numpy\.core\._multiarray_umath'?",
        "ModuleNotFoundError: No module named 'numpy.core._multiarray_umath'\n"
        "ImportError: numpy.core.multiarray failed to import",
        "https://github.com/tensorflow/tensorflow/issues/26273", needle="_multiarray_umath", key=()),
    # TensorFlow's Tensor.__array__ (tensorflow/python/framework/ops.py): "Cannot convert a symbolic
    # Tensor ({}) to a numpy array. This error may indicate that you're trying to pass a Tensor to a
    # NumPy call, which is not supported". Before 2.7, TensorFlow's own array_ops._constant_if_small
    # calls np.prod on a shape that may hold a symbolic tensor and catches only TypeError; NumPy 1.20
    # made np.prod convert it, so building an LSTM or a random layer raises this under NumPy 1.20+
    # (TensorFlow 2.4-2.6 pin numpy~=1.19.2).
    sig("log.numpy-abi", "symbolic-tensor-to-numpy", "training",
        "TensorFlow written for NumPy before 1.20 met a newer NumPy (or code passed a symbolic tensor to NumPy)",
        r"Cannot convert a symbolic Tensor \((?!\{\}\))(?P<tensor>[^()\n]{1,300})\) to a numpy array",
        "NotImplementedError: Cannot convert a symbolic Tensor (lstm/strided_slice:0) to a numpy array. This "
        "error may indicate that you're trying to pass a Tensor to a NumPy call, which is not supported",
        "https://github.com/ianscottknight/Predicting-Myers-Briggs-Type-Indicator-with-Recurrent-Neural-Networks/issues/1",
        needle="symbolic Tensor", key=(), head=r"Cannot convert a symbolic Tensor(?! \(\{\}\))"),
    # NumPy's own AttributeError for a name it removed (numpy/__init__.py __getattr__): 1.24 dropped
    # the aliases of builtins deprecated in 1.20 ("module 'numpy' has no attribute 'object'" over
    # "`np.object` was a deprecated alias for the builtin `object`"), 2.0 its __expired_attributes__
    # ("`np.string_` was removed in the NumPy 2.0 release. Use `np.bytes_` instead."). Only where
    # TensorFlow's (TensorBoard's, Keras') own code used it: a NumPy newer than that release
    sig("log.numpy-abi", "numpy-removed-name", "import",
        "TensorFlow's own code used a name the installed NumPy removed",
        NUMPY_REMOVED, ">>> import tensorflow\n...\nAttributeError: module 'numpy' has no attribute 'object'.",
        "https://github.com/AnacondaRecipes/repodata-hotfixes/issues/215", needle="AttributeError: ",
        derive=_numpy_removed, applies=_in_tensorflows_code, key=("name",), outputs=("name", "removed_in"),
        head=r"AttributeError: (?:module 'numpy' has no attribute '(?:object|bool|int|float|complex|str|long|unicode)'"
             r"|`np\.\w{1,30}` was removed in the NumPy 2\.0)"),
    # the same removal's warning (numpy/__init__.py __getattr__ from 1.24: for a name in both
    # __future_scalars__ and __former_attrs__, object, bool and str, it warns just before it raises),
    # printed by Python's warnings as "FILE:LINE: FutureWarning: ..." with FILE the code that used
    # the name (stacklevel=2): TensorFlow's own, where a paste cut the traceback after it
    sig("log.numpy-abi", "numpy-future-scalar", "import",
        "TensorFlow's own code used a name the installed NumPy removed (NumPy's warning names the file)",
        r"\.py:\d{1,6}: FutureWarning: In the future `np\.(?P<alias>object|bool|str)` "
        r"will be defined as the corresponding NumPy scalar",
        "/home/username/anaconda3/envs/synthseg_38/lib/python3.8/site-packages/tensorflow/python/framework/"
        "dtypes.py:513: FutureWarning: In the future `np.object` will be defined as the corresponding NumPy scalar.",
        "https://github.com/BBillot/SynthSeg/issues/92", needle="FutureWarning: In the future `np.",
        derive=_numpy_removed, applies=_warned_in_tensorflows_code, key=("name",), outputs=("name", "removed_in")),
    # Cython's __Pyx_ImportType: a ValueError (a RuntimeWarning in older Cython) when the module
    # was compiled against a NumPy whose structs have another size
    sig("log.numpy-abi", "numpy-size-changed", "import",
        "a compiled module and the installed NumPy disagree on NumPy's structs",
        r"(?P<what>numpy\.\w+) size changed, may indicate binary incompatibility"
        r"(?:\. Expected (?P<expected>\d+)(?: from C header)?, got (?P<got>\d+))?",
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C "
        "header, got 88 from PyObject", "https://github.com/tensorflow/tensorflow/issues/98406",
        needle="size changed, may indicate binary incompatibility", key=()),
    # pybind11's error for a function returning a Python object it could not make ("Unable to
    # convert function return value to a Python type! The signature was\n\t() -> handle"): raised
    # at TensorFlow's dtypes.py, whose bfloat16 (_pywrap_bfloat16.TF_bfloat16_type(), from 2.13
    # pywrap_ml_dtypes.bfloat16()) is a NumPy type made by its compiled code; it fails when that
    # code and the NumPy it finds do not match
    sig("log.numpy-abi", "numpy-bfloat16-handle", "import",
        "TensorFlow's compiled bfloat16 type could not be made with the NumPy it found",
        r"Unable to convert function return value to a Python type! The signature was\s{0,10}\(\) -> handle",
        "    _np_bfloat16 = _pywrap_bfloat16.TF_bfloat16_type()\n\nTypeError: Unable to convert function return "
        "value to a Python type! The signature was\n\t() -> handle",
        "https://github.com/githubharald/SimpleHTR/issues/148", needle="Unable to convert function return value",
        applies=_tensorflows_bfloat16, key=(), head=r"Unable to convert function return value to a Python type"),
    # TensorFlow 1.x-2.3's own abort (tensorflow/python/lib/core/bfloat16.cc RegisterNumpyBfloat16:
    # CHECK(PyBfloat16_Type.tp_base != nullptr)) when NumPy's C API could not be imported first
    sig("log.numpy-abi", "numpy-bfloat16-check", "import",
        "TensorFlow's compiled bfloat16 type could not be made with the NumPy it found",
        r"F tensorflow/python/lib/core/bfloat16\.cc:\d{1,5}\] Check failed: PyBfloat16_Type\.tp_base != nullptr",
        "2019-03-04 01:03:42.312319: F tensorflow/python/lib/core/bfloat16.cc:675] Check failed: "
        "PyBfloat16_Type.tp_base != nullptr", "https://github.com/deepfakes/faceswap/issues/645",
        needle="PyBfloat16_Type", key=()),
    # NumPy 1.x's C-API import, compiled into every extension built against it (numpy/core/include/
    # numpy/__multiarray_api.h, _import_array): it raises this when the NumPy imported does not fit,
    # after the line that says why ("module compiled against API version", a NumPy older than the
    # module's; "_ARRAY_API not found", NumPy 2). A paste that kept only this line still says the
    # module and the NumPy imported disagree. (NumPy 2's headers say numpy._core: another message.)
    # Declared after the other NumPy messages: where one of them is in the text, it is the occurrence.
    sig("log.numpy-abi", NUMPY_MULTIARRAY, "import",
        "a module built against NumPy 1.x could not import the NumPy it found",
        r"numpy\.core\.(?:_multiarray_umath|multiarray|umath) failed to import",
        "ImportError: numpy.core.multiarray failed to import\nFailed to load the native TensorFlow runtime.",
        "https://github.com/MaybeShewill-CV/CRNN_Tensorflow/issues/9", needle="failed to import", key=()),
    sig("log.protobuf-descriptors", "protobuf-descriptors", "import",
        "protobuf newer than the generated code TensorFlow ships",
        stderr.PROTOBUF_DESCRIPTORS.regex,
        "TypeError: Descriptors cannot not be created directly.",
        "https://github.com/maudzung/SFA3D/issues/82", needle="created directly", key=()),
    # the same message's workarounds (protobuf 4.21+'s python/google/protobuf/descriptor.py: "If you
    # cannot immediately regenerate your protos, some other possible workarounds are:\n 1.
    # Downgrade the protobuf package to 3.20.x or lower.\n 2. Set PROTOCOL_BUFFERS_PYTHON_
    # IMPLEMENTATION=python ..."): a paste that starts after the message's first lines
    sig("log.protobuf-descriptors", "protobuf-descriptors-workarounds", "import",
        "protobuf newer than the generated code TensorFlow ships (its message's workarounds)",
        r"Downgrade the protobuf package to 3\.20\.x or lower",
        " 1. Downgrade the protobuf package to 3.20.x or lower.", "https://github.com/maudzung/SFA3D/issues/82",
        needle="protobuf package to 3.20.x", key=()),
    # generated code (_pb2.py) newer than the protobuf runtime that imports it (_GENCODE_NEEDS);
    # protoc 5.26+ code imports google.protobuf.runtime_version, whose ValidateProtobufRuntimeVersion
    # refuses an older runtime ("Detected incompatible Protobuf Gencode/Runtime versions when
    # loading {location}: gencode {gen} runtime {rt}. Runtime version cannot be older than the
    # linked gencode version.")
    sig("log.protobuf-too-old", "protobuf-gencode-import", "import",
        "generated code imports a module its protobuf runtime is too old to have",
        rf"cannot import name '(?P<name>{_GENCODE_MODULES})' from 'google\.protobuf(?:\.internal)?'|"
        # Python 2 and before 3.7 name no module: the generated code's own line above says it
        rf"from google\.protobuf(?:\.internal)? import (?P<frame>{_GENCODE_MODULES}) as _\w{{1,40}}[ \t]*\n"
        rf"(?:[^\n]{{0,300}}\n){{0,4}}?[ \t]{{0,20}}ImportError: cannot import name '?(?:{_GENCODE_MODULES})'?(?![\w'])",
        "ImportError: cannot import name 'builder' from 'google.protobuf.internal' "
        "(/home/ubuntu/.local/lib/python3.10/site-packages/google/protobuf/internal/__init__.py)",
        "https://github.com/tensorflow/tensorflow/issues/60175", needle="google.protobuf",
        derive=_gencode_needs, key=(), outputs=("needs", "module")),
    sig("log.protobuf-too-old", "protobuf-gencode-newer", "import",
        "generated code newer than the protobuf runtime that loads it",
        r"Detected incompatible Protobuf Gencode/Runtime versions when loading (?P<location>[^\s:]{1,300}): "
        r"gencode (?P<needs>\d{1,3}(?:\.\d{1,4}){1,2}) runtime (?P<runtime>\d{1,3}(?:\.\d{1,4}){1,2})\. "
        r"Runtime version cannot be older than the linked gencode version",
        "Detected incompatible Protobuf Gencode/Runtime versions when loading client.proto: gencode 5.28.3 "
        "runtime 5.27.3. Runtime version cannot be older than the linked gencode version. See Protobuf "
        "version guarantees at https://protobuf.dev/support/cross-version-runtime-guarantee.",
        "https://github.com/YarmolenkoD/notpixel/issues/134", needle="Gencode/Runtime", key=("location",),
        head=r"Detected incompatible Protobuf Gencode/Runtime versions when loading (?P<location>[^\s:]{1,300}):"),
    sig("log.protobuf-fatal", "protobuf-check-failed", "training",
        "protobuf's C++ runtime aborted the process",
        r"\[libprotobuf FATAL (?P<where>[^\]\n]{1,300})\] CHECK failed: (?P<check>[^:\n]{0,300}[^:\s])[ \t]*:",
        "[libprotobuf FATAL google/protobuf/message_lite.cc:353] CHECK failed: target + size == res: ",
        "https://github.com/tensorflow/tensorflow/issues/64507", needle="libprotobuf FATAL",
        key=("check",), head=r"\[libprotobuf FATAL (?P<where>[^\]\n]{1,300})\] CHECK failed"),
    # protobuf's C++ version check (src/google/protobuf/stubs/common.cc, VerifyVersion): code
    # compiled against protobuf X found an older libprotobuf Y already loaded ("This program
    # requires version 3.5.0 of the Protocol Buffer runtime library, but the installed version is
    # 2.6.1. ... (Version verification failed in "....pb.cc".)"). Any C++ program prints it: the
    # rule reads it as TensorFlow's where the text names TensorFlow
    sig("log.protobuf-fatal", "protobuf-runtime-older", "import",
        "a libprotobuf older than the one TensorFlow was compiled with was loaded first",
        r"This program requires version (?P<needs>\d{1,2}(?:\.\d{1,3}){1,2}) of the Protocol Buffer runtime "
        r"library, but the installed version is (?P<runtime>\d{1,2}(?:\.\d{1,3}){1,2})"
        r"(?:(?:(?!\(Version verification)[^\n]){0,400}\(Version verification failed in \"(?P<file>[^\"\n]{1,300})\")?",
        "[libprotobuf FATAL google/protobuf/stubs/common.cc:61] This program requires version 3.5.0 of the "
        "Protocol Buffer runtime library, but the installed version is 2.6.1.  Please update your library.  If "
        "you compiled the program yourself, make sure that your headers are from the same version of Protocol "
        "Buffers as your link-time library.  (Version verification failed in \"bazel-out/arm-opt/genfiles/"
        "tensorflow/contrib/tpu/proto/tpu_embedding_config.pb.cc\".)",
        "https://github.com/tensorflow/tensorflow/issues/19370", needle="Protocol Buffer runtime",
        key=()),
    # libc++'s std::mutex::lock throwing (the abort's last words on macOS) where TensorFlow 2.20 and
    # another package each carry their own protobuf/abseil in one process (pyarrow, tokenizers:
    # tensorflow/tensorflow#98563); abseil's own "[mutex.cc : N] RAW: Lock blocking" is the hang
    sig("log.protobuf-fatal", "two-runtimes-mutex", "import",
        "two copies of protobuf/abseil in one process: a mutex of one used by the other aborted it",
        r"libc\+\+abi: terminating due to uncaught exception of type std::__1::system_error: mutex lock failed: "
        r"Invalid argument|\[mutex\.cc : \d{1,5}\] RAW: Lock blocking",
        ">>> import tensorflow\n>>> import pyarrow  # aborts\nlibc++abi: terminating due to uncaught exception "
        "of type std::__1::system_error: mutex lock failed: Invalid argument",
        "https://github.com/apache/arrow/issues/40088", needle="utex",
        applies=_tensorflow_named, key=()),
    sig("log.plugin-registered-twice", "platform-already-registered", "import",
        "two plugins register the same device platform (two Metal plugins)",
        r"platform is already registered with name: \"?(?P<platform>[A-Za-z0-9_]+)",
        "status: INTERNAL: platform is already registered with name: \"METAL\"",
        "https://github.com/bmaltais/kohya_ss/issues/563", needle="already registered",
        key=("platform",), head="platform is already registered"),
    # tensorflow/core/lib/monitoring/collection_registry.cc CollectionRegistry::Register:
    # LOG(ERROR) << "Cannot register 2 metrics with the same name: " << metric_def->name(), for
    # any metric. Keras's are named /tensorflow/api/keras/... or /tensorflow/api/oss-keras/...:
    # two copies of Keras's code (a `keras` of another version than TensorFlow's own, keras-nightly,
    # tf-keras) each creating them. Another name (/tensorflow/core/saved_model/..., two copies of
    # TensorFlow's own library in one process) is another story.
    sig("log.keras-registered-twice", "metric-registered-twice", "import",
        "two copies of Keras registered the same metric: a Keras of another version than TensorFlow's",
        r"Cannot register 2 metrics with the same name: (?P<metric>/[^\s'\"`]{1,300})",
        "E tensorflow/core/lib/monitoring/collection_registry.cc:77] Cannot register 2 metrics with the "
        "same name: /tensorflow/api/keras/optimizers",
        "https://github.com/drivendataorg/cloud-cover-runtime/pull/14", needle="Cannot register 2 metrics",
        applies=_keras_metric, key=(), head="Cannot register 2 metrics with the same name"),
    # tensorflow/core/lib/monitoring/{counter,gauge,sampler,percentile_sampler}.h: the metric's
    # status when Register failed, raised in Python as AlreadyExistsError where Python code
    # creates the metric (tf.__internal__.monitoring). TensorFlow's own Python modules are
    # imported once per process, so a second creation comes from a second copy of the code
    # that creates metrics at import: Keras's. The line alone (no metric name) is this code.
    sig("log.keras-registered-twice", "metric-already-exists", "import",
        "two copies of Keras registered the same metric: a Keras of another version than TensorFlow's",
        r"Another metric with the same name already exists",
        "tensorflow.python.framework.errors_impl.AlreadyExistsError: Another metric with the same name "
        "already exists.", "https://github.com/scikit-hep/pyhf/issues/1683",
        needle="Another metric with the same name", key=()),
    # IPython's traceback (IPython/core/ultratb.py, VerboseTB.prepare_header) opens with the
    # exception's class and "Traceback (most recent call last)" right-aligned; the message comes
    # last, and a paste cut in the frames loses it. Raised while a Keras module loads, the class
    # alone is the metric above.
    sig("log.keras-registered-twice", "already-exists-importing-keras", "import",
        "importing Keras raised AlreadyExistsError: two copies of Keras registered the same metric",
        r"^AlreadyExistsError[ \t]{1,200}Traceback \(most recent call last\)[ \t]*\n"
        r"(?:(?!AlreadyExistsError)[^\n]{0,300}\n){0,40}?" + _KERAS_AT_IMPORT,
        "AlreadyExistsError                        Traceback (most recent call last)\n"
        "<ipython-input-40-e95456fa7b4f> in <module>\n"
        "      1 from sklearn.model_selection import train_test_split\n"
        "----> 2 from tensorflow.keras.utils import to_categorical\n"
        "\n"
        "~\\anaconda3\\lib\\site-packages\\tensorflow\\__init__.py in <module>\n"
        "     39 import sys as _sys\n"
        "     40 \n"
        "---> 41 from tensorflow.python.tools import module_util as _module_util\n"
        "     42 from tensorflow.python.util.lazy_loader import LazyLoader as _LazyLoader\n"
        "     43 \n"
        "\n"
        "~\\anaconda3\\lib\\site-packages\\tensorflow\\python\\__init__.py in <module>\n"
        "     46 from tensorflow.python import data\n"
        "     47 from tensorflow.python import distribute\n"
        "---> 48 from tensorflow.python import keras\n"
        "     49 from tensorflow.python.feature_column import feature_column_lib as feature_column\n"
        "     50 from tensorflow.python.layers import layers\n"
        "\n"
        "~\\anaconda3\\lib\\site-packages\\tensorflow\\python\\keras\\__init__.py in <module>",
        "https://github.com/nicknochnack/ActionDetectionforSignLanguage/issues/12",
        needle="AlreadyExistsError", key=()),
    QEMU_USER,
    # TensorFlow's monitoring sampler (tensorflow/core/lib/monitoring/sampler.cc, ExplicitBuckets:
    # CHECK_GT(bucket_limits_[i], bucket_limits_[i - 1])) checks buckets TensorFlow computes itself at
    # import; they come out unordered ("0 vs. 10", "-inf vs. -inf") only where an emulator gets the
    # x86 floating point wrong: QEMU running an amd64 image on an ARM host (docker/for-mac#5342)
    sig("log.qemu-emulation", "sampler-bucket-limits", "import",
        "TensorFlow's check of its own histogram buckets failed, as it does under QEMU's x86 emulation",
        r"Check failed: bucket_limits_\[i\] > bucket_limits_\[i ?- ?1\](?: \((?P<values>[^()\n]{1,80})\))?",
        "Check failed: bucket_limits_[i] > bucket_limits_[i - 1] (0 vs. 10)",
        "https://github.com/tensorflow/tensorflow/issues/52845", needle="bucket_limits_", key=(),
        head=r"Check failed: bucket_limits_"),
    # the Docker CLI (cli/command/container/create.go) when an image has only another platform
    sig("log.amd64-image", "docker-platform-mismatch", "import",
        "Docker runs an image of another architecture than the host's (emulated)",
        r"The requested image's platform \((?P<image>linux/[\w/]{1,20})\) does not match the detected host "
        r"platform \((?P<host>linux/[\w/]{1,20})\)",
        "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform "
        "(linux/arm64/v8) and no specific platform was requested",
        "https://github.com/pranjal-joshi/Screeni-py/issues/195", needle="requested image's platform", key=()),
    # and the user asking for amd64 (docker run/build --platform, a Dockerfile's FROM --platform=,
    # DOCKER_DEFAULT_PLATFORM, compose's `platform:`, or the platform named in words: "the
    # linux/x86_64 emulated arch"), not a path in a URL: emulated where the host is ARM
    sig("log.amd64-image", "platform-amd64-requested", "import",
        "an amd64 (x86_64) image is asked for",
        r"(?:^|(?<=[\s\"'`=(,]))(?P<image>linux/(?:amd64|x86_64|x86-64))\b(?![/\w.-]*\.(?:whl|tar|gz|zip|sh)\b)",
        "--platform linux/x86_64", "https://github.com/PINTO0309/onnx2tf/pull/548", needle="linux/", key=()),
)
