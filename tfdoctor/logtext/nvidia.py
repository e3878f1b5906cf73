"""Signatures of the NVIDIA libraries a GPU build of TensorFlow loads: the CUDA runtime and its
maths libraries, cuDNN, and the driver's own libcuda / nvcuda.dll.

TensorFlow 1.x GPU builds link them, so one that is missing stops `import tensorflow` (glibc's
"cannot open shared object file", Windows builds' own self-check "Could not find
'cudart64_100.dll'"). From 2.x they are opened at start-up and a missing one makes TensorFlow skip
the GPU ("Cannot dlopen some GPU libraries", printed once a GPU was found). The library's name
says which part of the stack is missing and, by its version suffix, which CUDA or cuDNN the build
wants. The same lines on a machine without an NVIDIA GPU are harmless, so "Could not load
dynamic library" alone is a detail for the rule, never a finding of its own.

A stack that loads can still be the wrong one: a cuDNN older than the one TensorFlow was compiled
with ("Loaded runtime CuDNN library: X but source was compiled with: Y"), a driver older than the
CUDA runtime ("CUDA driver version is insufficient for CUDA runtime version"); the GPU's
convolutions then fail ("DNN library is not found").
"""

from __future__ import annotations

import re

from tfdoctor.logtext import stderr
from tfdoctor.logtext.signature import SAID, Fields, Signature, adds, sig

_LINUX = (r"lib(?:cuda|cudart|cublas(?:Lt)?|cufft|curand|cusolver|cusparse|cudnn(?:_\w{1,20})?|nvrtc|nccl|nvJitLink)"
          r"\.so(?:\.\d{1,3}){0,3}")
_WINDOWS = r"(?:(?:cudart|cublas(?:Lt)?|cufft|curand|cusolver|cusparse|cudnn(?:_\w{1,20})?|nvrtc)64_\d{1,4}|nvcuda)\.dll"
_MACOS = r"libcu(?:da|dart|blas|fft|rand|solver|sparse|dnn)(?:\.\d{1,3}){0,3}\.dylib"
"""A library of the NVIDIA stack by its file name on Linux, Windows or (TensorFlow 1.0-1.1's GPU
builds) macOS. TensorRT (libnvinfer) is left out: TensorFlow only offers it, and its absence is a
warning of its own that costs no GPU."""
LIBRARY_FILE = f"(?:{_LINUX}|{_WINDOWS})"
"""An NVIDIA library as TensorFlow 2.x's loader names it, on Linux or Windows."""

_DRIVER = re.compile(r"^(?:libcuda\.so|nvcuda\.dll)", re.IGNORECASE)
_CUDNN = re.compile(r"cudnn", re.IGNORECASE)
_SUFFIX = re.compile(r"64_(\d{1,4})\.dll$|\.so\.(\d{1,3}(?:\.\d{1,3})?)|^libcu\w+\.(\d{1,3}(?:\.\d{1,3})?)\.dylib$")


def _file_name(library: str) -> str:
    """The library's file name, from a path of either system's separators."""
    return library.replace("\\", "/").rsplit("/", 1)[-1]


def part(library: str) -> str:
    """Which part of the stack a library is: the driver, cuDNN or the CUDA toolkit."""
    name = _file_name(library)
    if _DRIVER.match(name):
        return "driver"
    return "cuDNN" if _CUDNN.search(name) else "CUDA"


_COMPONENT = re.compile(r"^(?:lib)?(cudart|cublas|cufft|curand|cusolver|cusparse)", re.IGNORECASE)
_CUDA_SHIPPING = {
    ("cudart", "11.0"): "11.x", ("cudart", "110"): "11.x", ("cudart", "12"): "12.x",
    ("cublas", "10"): "10.1-10.2", ("cublas", "11"): "11.x", ("cublas", "12"): "12.x",
    ("cufft", "10"): "10.1-11.8", ("cufft", "11"): "12.x",
    ("curand", "10"): "10.1-12.x",
    ("cusolver", "10"): "10.1-11.0", ("cusolver", "11"): "11.1-12.x",
    ("cusparse", "10"): "10.1-10.2", ("cusparse", "11"): "11.x", ("cusparse", "12"): "12.x",
}
"""The CUDA releases whose toolkit ships a library of this name. Up to CUDA 10.0 every library's
name carried the toolkit's release (libcublas.so.10.0); from 10.1 the maths libraries carry their
own major (NVIDIA's CUDA Toolkit Release Notes, "CUDA Toolkit Major Component Versions": cuSOLVER
10.x in CUDA 10.1-11.0, 11.x from 11.1), and every CUDA 11 names its runtime libcudart.so.11.0
(cudart64_110.dll on Windows). So libcusolver.so.10 is CUDA 11.0's as much as 10.1's, never 10.0's."""


def wanted_version(library: str) -> str | None:
    """The CUDA or cuDNN release a library's name asks for: libcublas.so.10.0 and cudart64_100.dll
    are CUDA 10.0, cudart64_90.dll 9.0, libcudnn.so.7 and cudnn64_7.dll cuDNN 7; a maths library
    of CUDA 10.1+ names the releases that ship it (libcusolver.so.10: CUDA 10.1-11.0,
    cublas64_11.dll: 11.x). The driver's libcuda.so.1 has no release in its name."""
    name = _file_name(library)
    if part(name) == "driver":
        return None
    m = _SUFFIX.search(name)
    if not m:
        return None
    component = _COMPONENT.match(name)
    shipped = _CUDA_SHIPPING.get((component[1].lower(), m[1] or m[2] or m[3])) if component else None
    if shipped:
        return shipped
    if m[1]:  # Windows: 100 -> 10.0, 90 -> 9.0; 11, 12 and cuDNN's 7, 8 are majors
        digits = m[1]
        if len(digits) == 3:
            return f"{digits[:2]}.{digits[2]}"
        if len(digits) == 2 and digits[1] == "0" and digits[0] != "1":
            return f"{digits[0]}.0"
        return digits
    return m[2] or m[3]


def first_release(wanted: str) -> str:
    """The oldest release a wanted_version names ("10.1-11.0" -> "10.1", "12.x" -> "12")."""
    return wanted.split("-")[0].removesuffix(".x")


_LEGACY_CUDNN = re.compile(r"^(\d)(\d)(\d{2})$")


def cudnn_release(printed: str) -> str:
    """A cuDNN version as TensorFlow printed it, dotted: 1.x printed cudnnGetVersion()'s number,
    major*1000 + minor*100 + patch (5103 is 5.1.3, 6021 is 6.0.21); later releases print 7.6.0."""
    m = _LEGACY_CUDNN.match(printed)
    return f"{m[1]}.{m[2]}.{int(m[3])}" if m else printed


def _cudnn_pair(fields: Fields) -> Fields:
    """The releases, where the paste was not cut before them; the printer, where the form tells it:
    cudnnGetVersion()'s numbers (5005, 6021) are TensorFlow 1.x's own form, printed before JAX and
    other users of the stream executor existed."""
    out = {"part": "cuDNN"}
    if fields.get("loaded") and fields.get("compiled"):
        out.update(loaded=cudnn_release(fields["loaded"]), wants=cudnn_release(fields["compiled"]))
        if _LEGACY_CUDNN.match(fields["loaded"]):
            out["printed_by"] = "TensorFlow 1.x"
    return out


def library_fields(fields: Fields) -> Fields:
    out = dict(fields)
    library = out["library"] = _file_name(out.get("library", ""))
    out["part"] = part(library)
    version = wanted_version(library)
    if version:
        out["wants"] = version
    return out


_OUTPUTS = ("library", "part", "wants")
GPU_BELOW_CAPABILITY = "gpu-below-minimum-capability"
"""TensorFlow found an NVIDIA GPU and ignored it: the build has no kernels for its compute capability."""
CUINIT_NO_DEVICE = "cuinit-no-device"
"""The driver's own "no CUDA-capable device": a GPU hidden (CUDA_VISIBLE_DEVICES), not passed to a
container, or not seen by the driver; on a machine without one, everyday output."""
_GPU_NAME = re.compile(r"name: ([^,()\n]{1,80})")


def _gpu_name(fields: Fields) -> Fields:
    """The GPU's name from TensorFlow's short description ("device: 0, name: Quadro K2000M, ...")."""
    name = _GPU_NAME.search(fields.get("device", ""))
    return {"gpu": name[1].strip() if name else "", "have": fields.get("have", ""), "need": fields.get("need", "")}


SIGNATURES: tuple[Signature, ...] = (
    # glibc's dlerror ("%s: cannot open shared object file: %s", "file too short" for the empty
    # placeholder an image has where the NVIDIA runtime would mount the driver) as the ImportError
    # of TensorFlow 1.x's pywrap_tensorflow, which links CUDA, cuDNN and the driver
    sig("log.gpu-libraries", "cuda-library-import", "import",
        "import tensorflow failed: the GPU build links an NVIDIA library that could not be loaded",
        rf"(?:ImportError|OSError): (?:[^\s:'\"]{{0,300}}/)?(?P<library>{_LINUX}): "
        r"(?P<problem>cannot open shared object file|file too short|invalid ELF header)",
        "ImportError: libcublas.so.8.0: cannot open shared object file: No such file or directory",
        "https://github.com/tensorflow/tensorflow/issues/14280", needle="Error: ",
        derive=library_fields, outputs=_OUTPUTS + ("problem",), key=("library",),
        head=rf"(?:Import|OS)Error: (?:[^\s:'\"]{{0,300}}/)?(?P<library>{_LINUX})"),
    # TensorFlow 1.5-2.0's Windows self-check (tensorflow/python/platform/self_check.py):
    # "Could not find %r. TensorFlow requires that this DLL be installed in a directory that is
    # named in your %PATH% environment variable." for the driver, the CUDA runtime and cuDNN
    sig("log.gpu-libraries", "cuda-dll-self-check", "import",
        "import tensorflow failed: the GPU build's self-check found no NVIDIA DLL it needs",
        rf"Could not find '(?P<library>{_WINDOWS})'\. TensorFlow requires that this DLL be installed",
        "ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be installed "
        "in a directory that is named in your %PATH% environment variable. Download and install CUDA "
        "10.0 from this URL: https://developer.nvidia.com/cuda-90-download-archive",
        "https://github.com/tensorflow/tensorflow/issues/31701", needle="TensorFlow requires that this DLL",
        derive=library_fields, outputs=_OUTPUTS, key=("library",),
        head=rf"Could not find '(?P<library>{_WINDOWS})'\. TensorFlow requires that this DLL"),
    # TensorFlow 1.0-1.1's macOS GPU builds link the CUDA toolkit's dylibs (dyld's template "Library
    # not loaded: %s"; its words from "not loaded" on name the library whatever came before them)
    sig("log.gpu-libraries", "cuda-library-not-loaded", "import",
        "import tensorflow failed: the macOS GPU build links a CUDA library that is not installed",
        rf"not loaded: '?(?:@rpath/|/usr/local/cuda/lib/)?(?P<library>{_MACOS})",
        "ImportError: dlopen(/Library/Frameworks/Python.framework/Versions/3.5/lib/python3.5/site-packages/"
        "tensorflow/python/_pywrap_tensorflow.so, 10): Library not loaded: @rpath/libcudart.8.0.dylib",
        "https://github.com/tensorflow/tensorflow/issues/6370", needle="not loaded",
        derive=library_fields, outputs=_OUTPUTS, key=("library",)),
    # gpu_device.cc, once a GPU was found: "Cannot dlopen some GPU libraries. Please make sure the
    # missing libraries mentioned above are installed properly if you would like to use GPU ...
    # Skipping registering GPU devices..."
    sig("log.gpu-libraries", "gpu-found-libraries-missing", "import",
        "a GPU was found but TensorFlow skipped it: GPU libraries could not be opened",
        stderr.GPU_LIBRARIES_MISSING.regex.pattern,
        "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1956] Cannot dlopen some GPU libraries. "
        "Please make sure the missing libraries mentioned above are installed properly if you would "
        "like to use GPU.", "https://github.com/tensorflow/tensorflow/issues/60646",
        needle="Cannot dlopen some GPU", key=()),
    # TensorFlow 0.x-1.0's cuda_dnn.cc at start-up: "Unable to load cuDNN DSO"
    sig("log.gpu-libraries", "cudnn-dso", "import",
        "TensorFlow's GPU build could not load cuDNN",
        r"Unable to load cuDNN DSO",
        "I tensorflow/stream_executor/cuda/cuda_dnn.cc:3448] Unable to load cuDNN DSO",
        "https://github.com/tensorflow/tensorflow/issues/5591", needle="cuDNN DSO",
        derive=adds(part="cuDNN"), outputs=("part",), key=()),
    # cuda_dnn.cc once cuDNN was loaded, when it is not the release TensorFlow was compiled
    # with: 1.x's "Loaded runtime CuDNN library: 6021 (compatibility version 6000) but source was
    # compiled with 5110 (compatibility version 5100)", from 1.13 (XLA's stream executor since)
    # "Loaded runtime CuDNN library: 7.5.0 but source was compiled with: 7.6.0.  CuDNN library
    # needs to have matching major version and equal or higher minor version." Convolutions and
    # RNNs then fail ("Failed to get convolution algorithm", "DNN library is not found")
    sig("log.gpu-libraries", "cudnn-version-mismatch", "training",
        "TensorFlow loaded a cuDNN older than, or of another major than, the one it was compiled with",
        r"Loaded runtime CuDNN library: (?P<loaded>\d{1,5}(?:\.\d{1,3}){0,2})(?: \(compatibility version \d{1,5}\))? "
        r"but source was compiled with:? (?P<compiled>\d{1,5}(?:\.\d{1,3}){0,2})(?![\d.]*\d)",
        "E tensorflow/stream_executor/cuda/cuda_dnn.cc:319] Loaded runtime CuDNN library: 7.5.0 but source "
        "was compiled with: 7.6.0.  CuDNN library major and minor version needs to match or have higher "
        "minor version in case of CuDNN 7.0 or later version.", "https://github.com/tensorflow/tensorflow/issues/33666",
        needle="Loaded runtime CuDNN library", derive=_cudnn_pair, outputs=("part", "loaded", "wants", "printed_by"),
        key=("loaded", "wants"), head="Loaded runtime CuDNN library"),
    # the CUDA runtime's cudaErrorInsufficientDriver ("CUDA driver version is insufficient for
    # CUDA runtime version") as TensorFlow reports it: gpu_device.cc's "cudaGetDevice() failed.
    # Status: %s", 0.x-1.x's "Failed to get the number of CUDA devices: %s" and "Failed to
    # initialize CUDA device #%d: %s". The same words from another program (PyTorch's "CUDA
    # error: ...", onnxruntime's "CUDA failure 35: ...") are that program's.
    sig("log.gpu-libraries", "cuda-driver-insufficient", "import",
        "the NVIDIA driver is older than the CUDA runtime TensorFlow was built with",
        r"(?:Status: |Failed to get the number of CUDA devices: |Failed to initialize CUDA device #\d+: )"
        r"CUDA driver version is insufficient for CUDA runtime version",
        "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status: CUDA driver "
        "version is insufficient for CUDA runtime version", "https://github.com/liuwei16/ALFNet/issues/4",
        needle="CUDA driver version is insufficient", derive=adds(part="driver", problem="too old"),
        outputs=("part", "problem"), key=()),
    # the stream executor's answer when an op asks for cuDNN that could not be loaded or
    # initialised: "DNN library is not found." (errors "UNIMPLEMENTED: DNN library is not found.")
    sig("log.gpu-libraries", "dnn-library-not-found", "training",
        "a GPU op failed: TensorFlow has no usable cuDNN",
        r"DNN library is not found\.",
        "W tensorflow/core/framework/op_kernel.cc:1830] OP_REQUIRES failed at conv_ops_fused_impl.h:625 : "
        "UNIMPLEMENTED: DNN library is not found.", "https://github.com/stardist/stardist/issues/228",
        needle="DNN library is not found", derive=adds(part="cuDNN"), outputs=("part",), key=()),
    # which libraries: dso_loader.cc's "Could not load dynamic library 'X'" (2.x) and "Couldn't
    # open CUDA library X" (0.x-1.x); printed on every machine without the stack, so the rule
    # reads them only beside one of the messages above or a list of GPUs that came back empty
    sig("log.gpu-libraries", "nvidia-library-not-opened", "import",
        "TensorFlow could not open an NVIDIA library (harmless without an NVIDIA GPU)",
        rf"(?:Could not load dynamic library '|Couldn't open CUDA library )(?:[^\s']{{0,300}}[/\\])?(?P<library>{_LINUX}|{_WINDOWS})",
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
        "library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such "
        "file or directory", "https://github.com/JdeRobot/BehaviorMetrics/issues/385",
        needle="ould", derive=library_fields, outputs=_OUTPUTS, key=("library",)),
    # gpu_device.cc's GetValidDeviceIds (gpu_init.cc in 0.x): "Ignoring visible gpu device (%s)
    # with Cuda compute capability %s. The minimum required Cuda capability is %s." The build has
    # no kernels for a GPU this old (pip builds: 3.5 through 2.x, later higher), so TensorFlow
    # lists no GPU although the whole stack loaded
    sig("log.no-gpu-listed", GPU_BELOW_CAPABILITY, "import",
        "TensorFlow ignored the GPU: its compute capability is below what the build supports",
        r"Ignoring (?:visible )?gpu device \((?P<device>[^()\n]{0,300})\)\s{1,4}with Cuda compute capability "
        r"(?P<have>\d{1,2}\.\d{1,2})\. The minimum required Cuda capability is (?P<need>\d{1,2}\.\d{1,2})",
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1283] Ignoring visible gpu device (device: 0, name: "
        "Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. "
        "The minimum required Cuda capability is 3.5.", "https://github.com/tensorflow/tensorflow/issues/17445",
        needle="gpu device (", derive=_gpu_name, outputs=("gpu", "have", "need"),
        key=("have", "need"), head=r"Ignoring (?:visible )?gpu device \("),
    # the stream executor's cuda_driver.cc Init (TensorFlow 1.x-2.x, XLA's since): "failed call to
    # cuInit: %s" with the driver's CUresult, CUDA_ERROR_NO_DEVICE ("no CUDA-capable device is
    # detected"; 1.x printed its number, "UNKNOWN ERROR (100)"): the driver loaded and sees no GPU.
    # cuda_diagnostics.cc's next lines say whether the kernel driver runs ("kernel driver does not
    # appear to be running on this host": none, or a container started without the GPU). A machine
    # with the driver's library and no GPU (a cloud notebook's CPU runtime) prints it on every run,
    # so the rule reads it only where a GPU is wanted
    sig("log.no-gpu-listed", CUINIT_NO_DEVICE, "import",
        "the NVIDIA driver found no CUDA device",
        re.compile(r"failed call to cuInit: (?:CUDA_ERROR_NO_DEVICE|UNKNOWN ERROR \(100\))"
                   r"(?:.{0,300}\n(?:.{0,300}\n)?.{0,300}(?P<no_driver>kernel driver does not appear to be running))?"),
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no "
        "CUDA-capable device is detected", "https://github.com/tensorflow/tensorflow/issues/44869",
        needle="failed call to cuInit", key=(), outputs=("no_driver",)),
    # XLA's tsl/cuda/cudart_stub.cc (TensorFlow 2.13+): "Could not find cuda drivers on your
    # machine, GPU will not be used." when it cannot open the CUDA runtime (libcudart); printed
    # on every machine without the stack, so read, as the line above, only where a GPU is wanted
    sig("log.gpu-libraries", "cudart-stub-not-found", "import",
        "TensorFlow could not open the CUDA runtime (harmless without an NVIDIA GPU)",
        r"Could not find cuda drivers on your machine, GPU will not be used",
        "I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used.",
        "https://github.com/tensorflow/tensorflow/issues/61689", needle="Could not find cuda drivers",
        derive=adds(part="CUDA"), outputs=("part",), key=(), head="Could not find cuda drivers on your machine"),
)

IMPORT_FAILED = ("cuda-library-import", "cuda-dll-self-check", "cuda-library-not-loaded")
"""Variants where the GPU build could not be imported at all."""
CUDNN_MISMATCH = "cudnn-version-mismatch"
DRIVER_TOO_OLD = "cuda-driver-insufficient"
NO_DNN = "dnn-library-not-found"
RUN_FAILED = (CUDNN_MISMATCH, DRIVER_TOO_OLD, NO_DNN)
"""Variants where the GPU was found but work on it failed: the stack's releases do not fit."""
CUDNN_ONLY = "cudnn-dso"
GPU_SKIPPED = ("gpu-found-libraries-missing", CUDNN_ONLY)
"""Variants where TensorFlow ran but without the GPU (or without cuDNN on it)."""
NOT_OPENED = "nvidia-library-not-opened"
NO_CUDA_RUNTIME = "cudart-stub-not-found"
SAID_NOT_LOADED = SAID + "cuda-library"
"""A report's own words that an NVIDIA library would not load (tfdoctor.logtext.said)."""
SAID_CUDA_RELEASE = SAID + "cuda-release"
"""A report's own words that TensorFlow looked for another CUDA release's libraries."""
NOT_OPENED_ANYWHERE = (NOT_OPENED, NO_CUDA_RUNTIME, SAID_NOT_LOADED, SAID_CUDA_RELEASE)
"""Variants every machine without an NVIDIA stack prints, and a report saying one would not load: a
finding only where a GPU is wanted."""
