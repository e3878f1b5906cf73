"""Signatures of `import tensorflow` failing: the wrong CPU, the wrong plugin, the wrong NumPy.

Where tfdoctor.logtext.stderr already reads the same text from the runtime child, its pattern is used
here as it is (its named constant), so a message is recognised the same way in both places.
"""

from __future__ import annotations

import re

from tfdoctor.logtext import stderr
from tfdoctor.logtext.signature import Fields, Signature, sig



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


_SYSTEM_PROVIDER = re.compile(r"Expected in:\s*(?:<[0-9A-Fa-f-]+>\s*)?'?/(?:System/Library|usr/lib)/")


def _tensorflow_library(fields: Fields, text: str) -> bool:
    """A missing symbol is TensorFlow's failure only when the library is TensorFlow's, a plugin
    or a custom op (its path, or a TensorFlow frame of the text, says so), or the symbol is one of
    TensorFlow's; a protobuf or grpc extension missing its own symbol is another story, and so is
    a symbol the error expects in a system library (log.macos-too-old: the OS is too old)."""
    library, symbol = fields.get("library", ""), fields.get("symbol", "")
    if symbol and _expected_in_system(symbol, text):
        return False
    if library:
        return bool(_TENSORFLOW_LIBRARY.search(library) or _TENSORFLOW_SYMBOL.search(symbol))
    return bool(_TENSORFLOW_SYMBOL.search(symbol)) or "tensorflow" in text


_BUILT_FOR = re.compile(r"built for (?:Mac OS X|macOS) (?P<version>\d+(?:\.\d+)*)")


def _built_for(fields: Fields) -> Fields:
    """The macOS the binary was built for, when dyld's "Referenced from" line says it."""
    out = {k: v for k, v in fields.items() if k != "between"}
    found = _BUILT_FOR.search(fields.get("between", ""))
    if found:
        out["built_for"] = found.group("version")
    out["provider_name"] = out.get("provider", "").rstrip("/").rsplit("/", 1)[-1]
    return out


def _avx(fields: Fields) -> Fields:
    out = dict(fields)
    if out.pop("qemu", ""):
        out["emulator"] = "qemu"
    return out


_DLOPEN_SYMBOL = re.compile(
    stderr.DLOPEN.regex.pattern + r":\s*" + stderr.SYMBOL_NOT_FOUND.regex.pattern)
_UNDEFINED = stderr.UNDEFINED_SYMBOL.regex

SIGNATURES: tuple[Signature, ...] = (
    sig("log.illegal-instruction", "illegal-instruction-4", "import",
        "the process died on an instruction this CPU lacks (x86_64 code under Rosetta 2)",
        r"Illegal instruction: 4|illegal hardware instruction|Fatal Python error: Illegal instruction|"
        r"Illegal instruction \(core dumped\)",  # bash on Linux (an amd64 container under emulation)
        "Illegal instruction: 4", "https://github.com/tensorflow/tensorflow/issues/62860",
        needle="llegal", key=()),
    sig("log.avx-missing", "avx-missing", "import",
        "TensorFlow for x86_64 needs AVX, which this CPU (or its emulator) does not offer",
        re.compile(stderr.CPU_INSTRUCTIONS_MISSING.regex.pattern +
                   r"(?:.{0,300}\n(?:.{0,300}\n)?(?P<qemu>qemu: uncaught target signal))?", re.MULTILINE),
        "The TensorFlow library was compiled to use AVX instructions, but these aren't available "
        "on your machine.", "https://github.com/tensorflow/tensorflow/issues/52972",
        needle="compiled to use", derive=_avx, key=("instructions",),
        outputs=("instructions", "emulator")),
    sig("log.symbol-not-found-plugin", "dlopen-symbol-not-found", "import",
        "a shared library needs a symbol the installed TensorFlow does not export",
        _DLOPEN_SYMBOL,
        "tensorflow.python.framework.errors_impl.NotFoundError: dlopen(/Users/davidlaxer/tensorflow-"
        "metal/lib/python3.8/site-packages/tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not "
        "found: _TF_AssignUpdateVariable", "https://github.com/tensorflow/text/issues/654",
        needle="ymbol not found", derive=_plugin, applies=_tensorflow_library, code_for=_plugin_code,
        key=("library", "symbol"),
        outputs=("library", "symbol", "plugin", "in_plugin_dir")),
    sig("log.macos-too-old", "system-symbol-missing", "import",
        "a binary needs a symbol this macOS's own libraries lack: it was built for a newer macOS",
        stderr.SYSTEM_SYMBOL_MISSING.regex,
        "Symbol not found: _OBJC_CLASS_$_MPSGraphCompilationDescriptor\n  Referenced from: /Users/nick/"
        "Library/r-miniconda-arm64/envs/r-reticulate/lib/python3.8/site-packages/tensorflow-plugins/"
        "libmetal_plugin.dylib (which was built for Mac OS X 12.0)\n  Expected in: /System/Library/"
        "Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/MetalPerformanceShadersGraph",
        "https://github.com/rstudio/tensorflow/issues/493",
        needle="ymbol not found", derive=_built_for, key=("symbol",),
        outputs=("symbol", "provider", "provider_name", "built_for")),
    sig("log.symbol-not-found-plugin", "undefined-symbol", "import",
        "a shared library needs a symbol the installed TensorFlow does not export (Linux text)",
        _UNDEFINED,
        "tensorflow.python.framework.errors_impl.NotFoundError: /home/selena/pcn-master/pc_distance/"
        "tf_nndistance_so.so: undefined symbol: _ZN10tensorflow15OpKernelContext10CtxFailureEPKciRKNS_6StatusE",
        "https://github.com/tensorflow/tensorflow/issues/22432",
        needle="undefined symbol", derive=_plugin, applies=_tensorflow_library, code_for=_plugin_code,
        key=("library", "symbol"),
        outputs=("library", "symbol", "plugin", "in_plugin_dir")),
    sig("log.arch-mismatch", "incompatible-architecture", "import",
        "a binary of the other architecture (x86_64 vs arm64)",
        stderr.INCOMPATIBLE_ARCHITECTURE.regex,
        "(mach-o file, but is an incompatible architecture (have (x86_64), need (arm64e)))",
        "https://github.com/tensorflow/tensorflow/issues/57483",
        needle="incompatible architecture", key=("have", "need"),
        head=r"incompatible architecture \(have '?\(?(?P<have>\w+)"),
    sig("log.arch-mismatch", "wrong-architecture", "import",
        "a binary of the other architecture (x86_64 vs arm64)",
        stderr.WRONG_ARCHITECTURE.regex,
        "_pywrap_tensorflow_internal.so: mach-o, but wrong architecture",
        "https://github.com/apple/tensorflow_macos/issues/273", needle="wrong architecture", key=()),
    sig("log.numpy-abi", "numpy-1x-on-2x", "import",
        "a module built against NumPy 1.x imported under NumPy 2",
        stderr.NUMPY_1X_ON_2X.regex,
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash.",
        "https://github.com/CameronBodine/PINGMapper/issues/123", needle="NumPy 1.x", key=()),
    sig("log.numpy-abi", "numpy-array-api", "import",
        "a module built against NumPy 1.x imported under NumPy 2",
        stderr.NUMPY_ARRAY_API.regex, "AttributeError: _ARRAY_API not found",
        "https://github.com/nv-tlabs/vipe/issues/42", needle="_API not found", key=()),
    sig("log.numpy-abi", "numpy-api-version", "import",
        "a module built against a newer NumPy C API than the one installed",
        stderr.NUMPY_API_VERSION.regex,
        "RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd",
        "https://github.com/AI4EPS/PhaseNet/issues/32", needle="compiled against",
        key=()),
    # Cython's __Pyx_ImportType: a ValueError (a RuntimeWarning in older Cython) when the module
    # was compiled against a NumPy whose structs have another size
    sig("log.numpy-abi", "numpy-size-changed", "import",
        "a compiled module and the installed NumPy disagree on NumPy's structs",
        r"(?P<what>numpy\.\w+) size changed, may indicate binary incompatibility"
        r"(?:\. Expected (?P<expected>\d+)(?: from C header)?, got (?P<got>\d+))?",
        "ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C "
        "header, got 88 from PyObject", "https://github.com/tensorflow/tensorflow/issues/98406",
        needle="size changed, may indicate binary incompatibility", key=()),
    sig("log.protobuf-descriptors", "protobuf-descriptors", "import",
        "protobuf newer than the generated code TensorFlow ships",
        stderr.PROTOBUF_DESCRIPTORS.regex,
        "TypeError: Descriptors cannot not be created directly.",
        "https://github.com/maudzung/SFA3D/issues/82", needle="created directly", key=()),
    sig("log.protobuf-fatal", "protobuf-check-failed", "training",
        "protobuf's C++ runtime aborted the process",
        r"\[libprotobuf FATAL (?P<where>[^\]\n]{1,300})\] CHECK failed: (?P<check>[^:\n]{0,300}[^:\s])[ \t]*:",
        "[libprotobuf FATAL google/protobuf/message_lite.cc:353] CHECK failed: target + size == res: ",
        "https://github.com/tensorflow/tensorflow/issues/64507", needle="libprotobuf FATAL",
        key=("check",)),
    sig("log.plugin-registered-twice", "platform-already-registered", "import",
        "two plugins register the same device platform (two Metal plugins)",
        r"platform is already registered with name: \"?(?P<platform>[A-Za-z0-9_]+)",
        "status: INTERNAL: platform is already registered with name: \"METAL\"",
        "https://github.com/bmaltais/kohya_ss/issues/563", needle="already registered",
        key=("platform",), head="platform is already registered"),
)
