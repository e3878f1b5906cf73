"""Turn TensorFlow's stderr (and the text of import errors) into facts.

Table-driven: each pattern is a named constant, a regular expression for one kind of line with an
example of the real text it was written against and where that text comes from. The same table
reads the child's stderr and the message of an exception `import tensorflow` raised, so the
checks can tell a plugin built for another TensorFlow from a NumPy ABI break or a protobuf clash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfdoctor.facts.runtime import LibraryFailure, LogEvent, LogFacts

MAX_EVENTS = 200
MAX_PER_KIND = 20
MAX_LINE = 500


@dataclass(frozen=True)
class Pattern:
    kind: str
    regex: re.Pattern[str]
    example: str
    source: str


def _p(kind: str, regex: str, example: str, source: str) -> Pattern:
    return Pattern(kind, re.compile(regex, re.MULTILINE), example, source)


# TensorFlow's C++ log line prefix ("2023-03-30 13:41:43.720528: I tensorflow/...cc:306] ") and
# the absl one of newer releases ("F0000 00:00:1700000000.123456   12345 file.cc:12] ").
_TF_FATAL = r"^(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: F (?P<where>\S+)\]|F\d{4} [\d:.]+\s+\d+ (?P<where2>\S+)\]) (?P<message>.+)$"

_LIBRARY = r"(?:(?<![^\s:])(?P<library>[^\s:/]*/[^\s:]+): )?"
"""The path of a library in front of the loader's complaint: a run of non-space characters with
a slash in it, taken from the run's start (from every slash of a long path, each would scan to
its end)."""

# --- tensorflow-metal and PluggableDevices ---------------------------------------------
METAL_DEVICE = _p("metal-device", r"Metal device set to: (?P<device>[^\n]*\S)[^\S\n]*$",
    "Metal device set to: Apple M1 Pro", "tensorflow/tensorflow#50196 (tensorflow-metal log)")
# Older plugins print these bare; newer ones through TensorFlow's logger, after a prefix
# ("... I metal_plugin/src/device/metal_device.cc:296] systemMemory: 16.00 GB", 2024).
SYSTEM_MEMORY = _p("system-memory", r"(?:^\s*|\] )systemMemory: (?P<size>[\d.]+\s*[KMGT]?B)\b",
    "systemMemory: 16.00 GB", "tensorflow/tensorflow#50196")
MAX_CACHE_SIZE = _p("max-cache-size", r"(?:^\s*|\] )maxCacheSize: (?P<size>[\d.]+\s*[KMGT]?B)\b",
    "maxCacheSize: 5.33 GB", "tensorflow/tensorflow#50196")
PLUGIN_OPTIMIZER = _p("plugin-optimizer", r"Plugin optimizer for device_type (?P<device_type>\w+) is enabled",
    "I tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.cc:114] Plugin "
    "optimizer for device_type GPU is enabled.", "tensorflow/tensorflow#50196")
PLUGGABLE_DEVICE = _p("pluggable-device",
    r"Created TensorFlow device \((?P<device>\S+) with (?P<memory>\d+ MB) memory\) -> physical "
    r"PluggableDevice \(device: (?P<index>\d+), name: (?P<platform>[^,)]+)",
    "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) "
    "-> physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)",
    "tensorflow/tensorflow#50196")
# --- Keras on Apple GPUs -----------------------------------------------------------------
OPTIMIZER_SLOWDOWN = _p("optimizer-slowdown",
    r"the v2\.11\+ optimizer `(?P<optimizer>[^`]+)` runs slowly on M1/M2 Macs"
    r"(?:, please use the legacy Keras optimizer instead, located at `(?P<legacy>[^`]+)`)?",
    "WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on "
    "M1/M2 Macs, please use the legacy Keras optimizer instead, located at "
    "`tf.keras.optimizers.legacy.Adam`.", "tensorflow/tensorflow#61092, keras-team/tf-keras#35")
OPTIMIZER_FALLBACK = _p("optimizer-fallback",
    r"known slowdown when using v2\.11\+ Keras optimizers on M1/M2 Macs\. Falling back to the "
    r"legacy Keras optimizer(?:, i\.e\., `(?P<legacy>[^`]+)`)?",
    "WARNING:absl:There is a known slowdown when using v2.11+ Keras optimizers on M1/M2 Macs. "
    "Falling back to the legacy Keras optimizer, i.e., `tf.keras.optimizers.legacy.Adam`.",
    "tensorflow/tensorflow#61092")
# --- dynamic libraries (CUDA and friends) --------------------------------------------------
DYNAMIC_LIBRARY = _p("dynamic-library", r"Could not load dynamic library '(?P<library>[^']+)'(?:; dlerror: (?P<error>[^;\n]*))?",
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
    "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
    "No such file or directory", "tensorflow/tensorflow#56413")
GPU_LIBRARIES_MISSING = _p("gpu-libraries-missing", r"Cannot dlopen some GPU libraries",
    "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1689] Cannot dlopen some GPU libraries. "
    "Please make sure the missing libraries mentioned above are installed properly if you would "
    "like to use GPU.", "NVIDIA/tensorflow#110")
# --- CPU feature guard ---------------------------------------------------------------------
CPU_FEATURE_GUARD = _p("cpu-feature-guard", r"This TensorFlow binary is optimized to use available CPU instructions",
    "I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to "
    "use available CPU instructions in performance-critical operations.",
    "TensorFlow 2.19 import on x86_64 Linux (recorded here)")
CPU_INSTRUCTIONS_UNUSED = _p("cpu-instructions-unused", r"To enable the following instructions: (?P<instructions>[A-Z0-9_ ]+?), in other operations",
    "To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other "
    "operations, rebuild TensorFlow with the appropriate compiler flags.",
    "TensorFlow 2.19 import on x86_64 Linux (recorded here)")
CPU_INSTRUCTIONS_UNUSED_OLD = _p("cpu-instructions-unused", r"Your CPU supports instructions that this TensorFlow binary was not compiled to use: (?P<instructions>[A-Z0-9_. ]+)",
    "I tensorflow/core/platform/cpu_feature_guard.cc:142] Your CPU supports instructions that "
    "this TensorFlow binary was not compiled to use: AVX2 FMA", "TensorFlow 1.x-2.3 log")
CPU_INSTRUCTIONS_OPTIMIZED = _p("cpu-instructions-unused",
    r"This TensorFlow binary is optimized(?: with [^\n]{1,80}?)? to use the following CPU instructions in "
    r"performance[- ]critical operations:\s{1,10}(?P<instructions>[A-Z0-9_. ]{1,200})",
    "This TensorFlow binary is optimized with oneAPI Deep Neural Network Library (oneDNN) to use "
    "the following CPU instructions in performance-critical operations:  AVX2 FMA",
    "tensorflow/core/platform/cpu_feature_guard.cc (2.4-2.8; 'with Intel(R) MKL-DNN' in MKL builds)")
"""What an x86_64 build prints about the x86 instructions it uses (only an x86_64 process can)."""
CPU_INSTRUCTIONS_MISSING = _p("cpu-instructions-missing",
    r"The TensorFlow library was compiled to use (?P<instructions>[\w.]+) instructions, but these "
    r"aren't available on your machine",
    "F tensorflow/core/platform/cpu_feature_guard.cc:37] The TensorFlow library was compiled to "
    "use AVX instructions, but these aren't available on your machine.",
    "docker/for-mac#5342; string in libtensorflow_framework")
# --- fatal errors -------------------------------------------------------------------------
TF_FATAL = _p("tf-fatal", _TF_FATAL,
    "2018-10-29 17:42:25.858222: F tensorflow/python/lib/core/bfloat16.cc:675] Check failed: "
    "PyBfloat16_Type.tp_base != nullptr", "tensorflow/tensorflow#23346")
PYTHON_FATAL = _p("python-fatal", r"^Fatal Python error: (?P<error>[^\n]*\S)[^\S\n]*$",
    "Fatal Python error: Segmentation fault", "CPython faulthandler")
FAULTHANDLER_TIMEOUT = _p("faulthandler-timeout", r"^Timeout \((?P<elapsed>[\d:.]+)\)!\s*$",
    "Timeout (0:00:58)!", "CPython faulthandler.dump_traceback_later")
# --- import errors (exception text or stderr) ---------------------------------------------
NUMPY_1X_ON_2X = _p("numpy-1x-on-2x",
    r"A module that was compiled using NumPy 1\.x cannot be run in\s+NumPy (?P<numpy>\S+) as it may crash",
    "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash. "
    "To support both 1.x and 2.x\nversions of NumPy, modules must be compiled with NumPy 2.0.",
    "CameronBodine/PINGMapper#123 (importing tensorflow)")
NUMPY_API_VERSION = _p("numpy-api-version",
    r"module compiled against (?P<what>API|ABI) version (?P<compiled>0x[0-9a-fA-F]+|[0-9a-fA-F]+) "
    r"but this version of numpy is (?P<installed>0x[0-9a-fA-F]+|[0-9a-fA-F]+)",
    "RuntimeError: module compiled against API version 0xf but this version of numpy is 0xe",
    "neuralmagic/docs#158; tensorflow/tensorflow#57106")
# numpy 1.x's generated headers (__multiarray_api.h, __ufunc_api.h) compiled into the extension
NUMPY_ARRAY_API = _p("numpy-array-api", r"_(?:ARRAY|UFUNC)_API not found",
    "AttributeError: _ARRAY_API not found", "nv-tlabs/vipe#42")
# numpy 2 renamed numpy.core to numpy._core: its headers print "numpy._core.multiarray failed to import"
NUMPY_MULTIARRAY = _p("numpy-multiarray", r"numpy\._?core\.(?:_multiarray_umath|multiarray|umath) failed to import",
    "ImportError: numpy.core.multiarray failed to import", "tensorflow/tensorflow#23071")
# upb's message.c ("cannot not" in protobuf 4.21-4.24, "cannot" from 4.25); the older C++ backend
# (pyext/message.cc) "should not be created directly, but only retrieved from their parent"
PROTOBUF_DESCRIPTORS = _p("protobuf-descriptors", r"Descriptors (?:cannot (?:not )?be|should not be) created directly",
    "TypeError: Descriptors cannot not be created directly.\nIf this call came from a _pb2.py "
    "file, your generated code is out of date and must be regenerated with protoc >= 3.19.0.",
    "tensorflow/tensorflow#56266")
OP_NOT_REGISTERED = _p("op-not-registered", r"Op type not registered '(?P<op>[^']+)' in binary",
    "NotFoundError: Op type not registered 'RaggedBincount' in binary running on XXXXXXXX. Make "
    "sure the Op and Kernel are registered in the binary running in this process.",
    "tensorflow/io#1717")
UNDEFINED_SYMBOL = _p("undefined-symbol", _LIBRARY + r"undefined symbol: (?P<symbol>\S+)",
    "NotFoundError: /venv/lib/python3.11/site-packages/tensorflow-plugins/libbroken_plugin.so: "
    "undefined symbol: TF_TfdoctorMissingSymbol", "TensorFlow 2.19 on Linux (reproduced in tests)")
SYMBOL_NOT_FOUND = _p("symbol-not-found", r"[Ss]ymbol not found(?: in flat namespace)?:? '?(?P<symbol>[^'\s]+)'?",
    "NotFoundError: dlopen(.../tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not found: "
    "_TF_AssignUpdateVariable", "tensorflow/tensorflow#50541; tensorflow/models#10617")
DLOPEN = _p("dlopen", r"dlopen\((?P<library>[^,()]+)(?:, \w+)?\)",
    "dlopen(/Users/u/venv/lib/python3.9/site-packages/tensorflow-plugins/libmetal_plugin.dylib, "
    "0x0006): symbol not found in flat namespace '_TF_AllocateOutput'", "tensorflow/models#10617")
REFERENCED_FROM = _p("referenced-from", r"Referenced from: (?:<[0-9A-Fa-f-]+> )?'?(?P<library>/[^'\s]+)'?",
    "Symbol not found: _TF_AssignUpdateVariable\n  Referenced from: /Users/u/venv/lib/python3.8/"
    "site-packages/tensorflow-plugins/libmetal_plugin.dylib\n  Expected in: flat namespace",
    "apple/tensorflow_macos (tensorflow/text#654)")
INCOMPATIBLE_ARCHITECTURE = _p("arch-mismatch",
    r"incompatible architecture \(have '?\(?(?P<have>\w+)\)?'?, need '?\(?(?P<need>\w+)\)?'?\)",
    "(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))",
    "mindspore-ai/mindspore#249; tensorflow/tensorflow#57483")
WRONG_ARCHITECTURE = _p("arch-mismatch", r"mach-o,? but wrong architecture",
    "_pywrap_tensorflow_internal.so: mach-o, but wrong architecture", "apple/tensorflow_macos#273")
WRONG_ELF_CLASS = _p("arch-mismatch", r"wrong ELF class: (?P<elf_class>ELFCLASS\d+)",
    "libfoo.so: wrong ELF class: ELFCLASS32", "glibc dlerror text")
SYSTEM_SYMBOL_MISSING = _p("system-symbol-missing",
    r"[Ss]ymbol not found:? '?(?P<symbol>[^'\s]{1,300})(?=['\s])'?"  # one end: no backtracking into it
    r"(?P<between>(?:(?![Ss]ymbol not found)[\s\S]){0,1500}?)"  # never past the next message: linear
    r"Expected in:\s{0,20}(?:<[0-9A-Fa-f-]{1,64}>\s{0,20})?'?(?P<provider>/(?:System/Library|usr/lib)/[^'\s]{1,500})",
    "Symbol not found: _OBJC_CLASS_$_MPSGraphCompilationDescriptor\n  Referenced from: .../"
    "tensorflow-plugins/libmetal_plugin.dylib (which was built for Mac OS X 12.0)\n  Expected in: "
    "/System/Library/Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/"
    "MetalPerformanceShadersGraph", "dyld's message template (dyld/dyld2.cpp, "
    "'Symbol not found: %s\\n  Referenced from: %s%s\\n  Expected in: %s')")
"""A symbol missing from a system library or framework: the binary was built for a newer OS."""
LIBRARY_NOT_LOADED = _p("library-not-loaded", r"Library not loaded: '?(?P<library>[^'\s]+)'?",
    "dyld: Library not loaded: @rpath/libtensorflow_framework.2.dylib", "dyld error text")
CANNOT_OPEN_SHARED_OBJECT = _p("library-not-loaded", r"(?<![^\s:'(])(?P<library>[^\s:'(]+): cannot open shared object file",
    "libcudart.so.11.0: cannot open shared object file: No such file or directory",
    "glibc dlerror text")
IMAGE_NOT_FOUND = _p("library-not-loaded", r"image not found", "dlopen(...): image not found", "dyld (macOS 10.x)")
INVALID_SHARED_OBJECT = _p("invalid-shared-object",
    _LIBRARY + r"(?P<problem>invalid ELF header|file too short|only ET_DYN and ET_EXEC can be loaded|not a mach-o file|slice is not valid mach-o file|unknown file type)",
    "NotFoundError: .../tensorflow-plugins/libgarbage.so: invalid ELF header",
    "TensorFlow 2.19 on Linux (reproduced in tests)")
PLUGIN_PATH_MISSING = _p("plugin-path-missing",
    r"The file or folder to load (?P<what>pluggable device|kernel) libraries from does not exist\.?:? ?'?(?P<library>[^'\n]*)'?",
    "FileNotFoundError: [Errno 2] The file or folder to load pluggable device libraries from does "
    "not exist.: '/nonexistent/libx.so'", "tensorflow/python/framework/load_library.py (2.19)")

PATTERNS: tuple[Pattern, ...] = (
    METAL_DEVICE, SYSTEM_MEMORY, MAX_CACHE_SIZE, PLUGIN_OPTIMIZER, PLUGGABLE_DEVICE,
    OPTIMIZER_SLOWDOWN, OPTIMIZER_FALLBACK, DYNAMIC_LIBRARY, GPU_LIBRARIES_MISSING,
    CPU_FEATURE_GUARD, CPU_INSTRUCTIONS_UNUSED, CPU_INSTRUCTIONS_UNUSED_OLD, CPU_INSTRUCTIONS_OPTIMIZED,
    CPU_INSTRUCTIONS_MISSING, TF_FATAL, PYTHON_FATAL, FAULTHANDLER_TIMEOUT, NUMPY_1X_ON_2X,
    NUMPY_API_VERSION, NUMPY_ARRAY_API, NUMPY_MULTIARRAY, PROTOBUF_DESCRIPTORS, OP_NOT_REGISTERED,
    UNDEFINED_SYMBOL, SYMBOL_NOT_FOUND, DLOPEN, REFERENCED_FROM, INCOMPATIBLE_ARCHITECTURE,
    WRONG_ARCHITECTURE, WRONG_ELF_CLASS, LIBRARY_NOT_LOADED, CANNOT_OPEN_SHARED_OBJECT,
    IMAGE_NOT_FOUND, INVALID_SHARED_OBJECT, PLUGIN_PATH_MISSING,
)
"""Every pattern, in the order the runtime child's stderr is read. Signatures of pasted logs
(tfdoctor.logtext.importing, training) use the same constants, so each regex is declared once."""

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<func>\S+)')


def parse(text: str) -> LogFacts:
    """Every recognised line of `text`, and the facts they add up to."""
    facts = LogFacts()
    if not text:
        return facts
    found: list[tuple[int, LogEvent]] = []
    per_kind: dict[str, int] = {}
    for pattern in PATTERNS:
        for match in pattern.regex.finditer(text):
            if per_kind.get(pattern.kind, 0) >= MAX_PER_KIND:
                break
            per_kind[pattern.kind] = per_kind.get(pattern.kind, 0) + 1
            fields = {k: v.strip() for k, v in match.groupdict().items() if v}
            if "where2" in fields:
                fields["where"] = fields.pop("where2")
            found.append((match.start(), LogEvent(pattern.kind, _line_at(text, match), fields)))
    found.sort(key=lambda item: item[0])
    facts.events = [event for _pos, event in found[:MAX_EVENTS]]
    _summarise(facts, text)
    return facts


def _line_at(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    line = text[start:end if end >= 0 else len(text)].strip()
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + "..."


def _summarise(facts: LogFacts, text: str) -> None:
    for event in facts.events:
        f = event.fields
        if event.kind == "metal-device" and facts.metal_device is None:
            facts.metal_device = f.get("device")
        elif event.kind == "system-memory" and facts.system_memory is None:
            facts.system_memory = f.get("size")
        elif event.kind == "max-cache-size" and facts.max_cache_size is None:
            facts.max_cache_size = f.get("size")
        elif event.kind == "plugin-optimizer":
            _add(facts.plugin_optimizers, f.get("device_type"))
        elif event.kind == "pluggable-device":
            _add(facts.pluggable_devices, f.get("platform"))
        elif event.kind == "optimizer-slowdown":
            _add(facts.optimizer_slowdown, f.get("optimizer"))
        elif event.kind == "optimizer-fallback":
            facts.optimizer_fallback = True
        elif event.kind == "dynamic-library":
            failure = LibraryFailure(f.get("library", ""), f.get("error", ""))
            if failure not in facts.library_failures:
                facts.library_failures.append(failure)
        elif event.kind == "gpu-libraries-missing":
            facts.gpu_libraries_missing = True
        elif event.kind == "cpu-instructions-unused":
            for name in f.get("instructions", "").replace(".", " ").split():
                _add(facts.cpu_instructions_unused, name)
        elif event.kind == "cpu-instructions-missing":
            _add(facts.cpu_instructions_missing, f.get("instructions"))
        elif event.kind == "tf-fatal":
            _add(facts.fatal, f.get("message"))
        elif event.kind == "python-fatal" and facts.python_fatal is None:
            facts.python_fatal = f.get("error")
        elif event.kind == "faulthandler-timeout" and facts.python_fatal is None:
            facts.python_fatal = "Timeout"
    facts.python_stack = python_stack(text)


def _add(items: list[str], value: str | None) -> None:
    if value and value not in items:
        items.append(value)


def python_stack(text: str, limit: int = 12) -> list[str]:
    """The first thread stack faulthandler dumped in `text` ("Current thread ..." or the only
    one), innermost frame first, as "file:line in function"."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if line.startswith(("Current thread ", "Stack (most recent call first)")):
            start = i
            break
        if start is None and line.startswith("Thread 0x"):
            start = i
    if start is None:
        return []
    frames = []
    for line in lines[start + 1:]:
        match = _FRAME.match(line)
        if not match:
            break
        if match["file"].startswith("<frozen ") or match["file"].endswith("inside/runtime/__main__.py"):
            continue  # the import machinery and tfdoctor's own child: not where it went wrong
        frames.append(f"{match['file']}:{match['line']} in {match['func']}")
        if len(frames) >= limit:
            break
    return frames


def library_in_error(facts: LogFacts) -> str | None:
    """The shared object an import error names, if any (a plugin, a framework library...)."""
    for kind in ("undefined-symbol", "invalid-shared-object", "dlopen", "plugin-path-missing",
                 "library-not-loaded"):
        for event in facts.events:
            if event.kind == kind and event.fields.get("library"):
                return event.fields["library"]
    return None
