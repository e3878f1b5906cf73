"""tfdoctor.logtext.stderr: TensorFlow's stderr and import errors into facts, on the real texts (each
pattern carries the real line it was written against, and where that line comes from)."""

from __future__ import annotations

import pytest

from tfdoctor.logtext import stderr
from tfdoctor.logtext.stderr import PATTERNS, parse

# Real stderr of a tensorflow-metal import and first fit on an M1 Pro (tensorflow/tensorflow#50196).
METAL_LOG = """\
2.11.0
Metal device set to: Apple M1 Pro

systemMemory: 16.00 GB
maxCacheSize: 5.33 GB

2023-03-30 13:41:43.720528: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:306] Could not identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have been built with NUMA support.
2023-03-30 13:41:43.720935: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:272] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) -> physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)
2023-03-30 13:41:44.060864: W tensorflow/tsl/platform/profile_utils/cpu_utils.cc:128] Failed to get CPU frequency: 0 Hz
Epoch 1/10
2023-03-30 13:41:44.213540: I tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.cc:114] Plugin optimizer for device_type GPU is enabled.
"""

# Keras 2.13 on an M2 (keras-team/tf-keras#35; tensorflow/tensorflow#61092).
OPTIMIZER_LOG = """\
WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on M1/M2 Macs, please use the legacy Keras optimizer instead, located at `tf.keras.optimizers.legacy.Adam`.
WARNING:absl:There is a known slowdown when using v2.11+ Keras optimizers on M1/M2 Macs. Falling back to the legacy Keras optimizer, i.e., `tf.keras.optimizers.legacy.Adam`.
"""

# CUDA libraries missing (tensorflow/tensorflow#56413, NVIDIA/tensorflow#110).
CUDA_LOG = """\
2022-06-09 15:50:37.711160: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory
2022-06-09 15:50:37.711178: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
2024-06-19 16:06:44.996140: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1689] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your platform.
"""

# TensorFlow 2.19.1 importing on this machine's x86_64 CPU (recorded here).
FEATURE_GUARD_LOG = """\
2026-11-21 10:00:23.008476: I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow binary is optimized to use available CPU instructions in performance-critical operations.
To enable the following instructions: AVX2 AVX512F AVX512_VNNI AVX512_BF16 FMA, in other operations, rebuild TensorFlow with the appropriate compiler flags.
"""

AVX_LOG = ("2021-03-01 10:00:00.000000: F tensorflow/core/platform/cpu_feature_guard.cc:37] The "
           "TensorFlow library was compiled to use AVX instructions, but these aren't available "
           "on your machine.\n")

# Old numpy under a TF built against a newer one: the abort path (tensorflow/tensorflow#23346).
NUMPY_ABORT_LOG = """\
RuntimeError: module compiled against API version 0xc but this version of numpy is 0xb
ImportError: numpy.core.multiarray failed to import
ImportError: numpy.core.umath failed to import
2018-10-29 17:42:25.858222: F tensorflow/python/lib/core/bfloat16.cc:675] Check failed: PyBfloat16_Type.tp_base != nullptr
"""

# A faulthandler dump, as the child's stderr has it after SIGABRT inside plugin loading.
FAULTHANDLER_LOG = """\
F0000 00:00:1795255497.861945   14298 c_api_experimental.cc:748] Non-OK-status: tensorflow::RegisterPluggableDevicePlugin(lib_handle->lib_handle)
Fatal Python error: Aborted

Stack (most recent call first):
  File "/venv/lib/python3.11/site-packages/tensorflow/python/framework/load_library.py", line 189 in load_pluggable_device_library
  File "/venv/lib/python3.11/site-packages/tensorflow/__init__.py", line 440 in <module>
  File "<frozen importlib._bootstrap>", line 241 in _call_with_frames_removed
  File "/work/main/tfdoctor/inside/runtime/__main__.py", line 190 in import_tensorflow

Extension modules: numpy._core._multiarray_umath (total: 1)
"""

# tensorflow/text#654: tensorflow-metal built for another TensorFlow (macOS 11 dyld format).
MAC_SYMBOL = (
    "dlopen(/Users/davidlaxer/tensorflow-metal/lib/python3.8/site-packages/tensorflow-plugins/"
    "libmetal_plugin.dylib, 6): Symbol not found: _TF_AssignUpdateVariable\n"
    "  Referenced from: /Users/davidlaxer/tensorflow-metal/lib/python3.8/site-packages/"
    "tensorflow-plugins/libmetal_plugin.dylib\n"
    "  Expected in: flat namespace\n"
)


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: f"{p.kind}:{p.example[:30]}")
def test_every_pattern_matches_its_real_example(pattern):
    kinds = parse(pattern.example).kinds()
    assert pattern.kind in kinds, (pattern.kind, pattern.example)
    assert pattern.source


def test_metal_lines():
    facts = parse(METAL_LOG)
    assert facts.metal_device == "Apple M1 Pro"
    assert facts.system_memory == "16.00 GB"
    assert facts.max_cache_size == "5.33 GB"
    assert facts.plugin_optimizers == ["GPU"]
    assert facts.pluggable_devices == ["METAL"]
    assert facts.fatal == [] and facts.python_fatal is None


def test_optimizer_slowdown_warning():
    facts = parse(OPTIMIZER_LOG)
    assert facts.optimizer_slowdown == ["tf.keras.optimizers.Adam"]
    assert facts.optimizer_fallback is True
    event = facts.first("optimizer-slowdown")
    assert event.fields["legacy"] == "tf.keras.optimizers.legacy.Adam"


def test_dynamic_library_failures():
    facts = parse(CUDA_LOG)
    assert facts.gpu_libraries_missing
    assert [f.library for f in facts.library_failures] == ["libcudart.so.11.0"]
    assert "cannot open shared object file" in facts.library_failures[0].error


def test_cpu_feature_guard_informational_and_fatal():
    ok = parse(FEATURE_GUARD_LOG)
    assert ok.cpu_instructions_unused == ["AVX2", "AVX512F", "AVX512_VNNI", "AVX512_BF16", "FMA"]
    assert ok.cpu_instructions_missing == [] and ok.fatal == []
    avx = parse(AVX_LOG)
    assert avx.cpu_instructions_missing == ["AVX"]
    assert avx.fatal and "compiled to use AVX" in avx.fatal[0]


def test_numpy_abort_path_is_recognised():
    facts = parse(NUMPY_ABORT_LOG)
    assert {"numpy-api-version", "numpy-multiarray", "tf-fatal"} <= facts.kinds()
    api = facts.first("numpy-api-version").fields
    assert (api["compiled"], api["installed"]) == ("0xc", "0xb")
    assert facts.fatal == ["Check failed: PyBfloat16_Type.tp_base != nullptr"]


def test_faulthandler_stack_skips_import_machinery_and_the_child():
    facts = parse(FAULTHANDLER_LOG)
    assert facts.python_fatal == "Aborted"
    assert facts.fatal == ["Non-OK-status: tensorflow::RegisterPluggableDevicePlugin(lib_handle->lib_handle)"]
    assert facts.python_stack == [
        "/venv/lib/python3.11/site-packages/tensorflow/python/framework/load_library.py:189 in load_pluggable_device_library",
        "/venv/lib/python3.11/site-packages/tensorflow/__init__.py:440 in <module>",
    ]


def test_hang_dump_is_a_timeout():
    text = 'Timeout (0:00:04)!\nThread 0x00007f (most recent call first):\n  File "/x/tensorflow/__init__.py", line 19 in <module>\n'
    facts = parse(text)
    assert facts.python_fatal == "Timeout"
    assert facts.python_stack == ["/x/tensorflow/__init__.py:19 in <module>"]


def test_mac_plugin_symbol_error_names_library_and_symbol():
    facts = parse(MAC_SYMBOL)
    assert facts.first("symbol-not-found").fields["symbol"] == "_TF_AssignUpdateVariable"
    assert stderr.library_in_error(facts).endswith("tensorflow-plugins/libmetal_plugin.dylib")
    flat = parse("NotFoundError: dlopen(/u/site-packages/tensorflow-plugins/libmetal_plugin.dylib, "
                 "0x0006): symbol not found in flat namespace '_TF_AllocateOutput'")
    assert flat.first("symbol-not-found").fields["symbol"] == "_TF_AllocateOutput"


def test_linux_plugin_errors_name_the_library():
    text = ("/v/site-packages/tensorflow-plugins/libbroken_plugin.so: undefined symbol: "
            "TF_TfdoctorMissingSymbol")
    facts = parse(text)
    event = facts.first("undefined-symbol")
    assert event.fields == {"library": "/v/site-packages/tensorflow-plugins/libbroken_plugin.so",
                            "symbol": "TF_TfdoctorMissingSymbol"}
    garbage = parse("/v/site-packages/tensorflow-plugins/libgarbage.so: file too short")
    assert garbage.first("invalid-shared-object").fields["problem"] == "file too short"
    missing = parse("[Errno 2] The file or folder to load pluggable device libraries from does "
                    "not exist.: '/nonexistent/libx.so'")
    assert missing.first("plugin-path-missing").fields["library"] == "/nonexistent/libx.so"


def test_arch_mismatch_variants():
    new = parse("(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64'))")
    assert new.first("arch-mismatch").fields == {"have": "x86_64", "need": "arm64"}
    old = parse("(mach-o file, but is an incompatible architecture (have (x86_64), need (arm64e)))")
    assert old.first("arch-mismatch").fields == {"have": "x86_64", "need": "arm64e"}


def test_bounded_on_floods():
    flood = "2026-01-01 00:00:00.000000: W x.cc:1] Could not load dynamic library 'libx.so'; dlerror: nope\n" * 5000
    facts = parse(flood)
    assert len(facts.events) <= stderr.MAX_EVENTS
    assert sum(1 for e in facts.events if e.kind == "dynamic-library") <= stderr.MAX_PER_KIND
    assert len(facts.library_failures) == 1


def test_empty_and_unrelated_text():
    assert parse("").events == []
    assert parse("hello\nworld\n").events == []


def test_newer_metal_banner_memory_lines_behind_the_log_prefix():
    """tensorflow-metal releases of 2024 log the banner through TensorFlow's logger (quoted in
    tests/facts/mac_facts.json: M3, 16 GB)."""
    from tfdoctor.logtext import stderr

    text = ("2024-07-01 21:13:32.032223: I metal_plugin/src/device/metal_device.cc:296] systemMemory: 16.00 GB\n"
            "2024-07-01 21:13:32.032239: I metal_plugin/src/device/metal_device.cc:313] maxCacheSize: 5.33 GB\n")
    facts = stderr.parse(text)
    assert (facts.system_memory, facts.max_cache_size) == ("16.00 GB", "5.33 GB")
