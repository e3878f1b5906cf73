"""Failures of Metal pairing, macOS, NumPy ABI and GPU numerics (issue 11 corpus).

Conventions (sources, assumptions, expectations, Keras' optimizer lines): see report_parts.py.
"""

from __future__ import annotations

from typing import Any

HOME = "/Users/ada"



def add(b: Any, parts: Any) -> None:
    for build in (no_metal_custom_wheel, no_metal_osl_dynamics, bigsur_metal030, numpy_api_0xe,
                  aet_cs_tf220, tfkeras_221_upgrade, dense_relu_graph, homebrew39_tf218,
                  anaconda_m2max_tf218, loss_explodes, keras37_odd_results):
        build(b, parts)


def no_metal_custom_wheel(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.1", f"{HOME}/venvs/tf215")
    site = b.site_of(py)
    tf = b.pkg(site, "tensorflow", "2.15.0", "cp311-cp311-macosx_14_0_arm64",
               ["h5py>=2.9.0", "ml-dtypes~=0.2.0", "numpy<2.0.0,>=1.23.5", b.PROTOBUF_4,
                "tensorboard<2.16,>=2.15", "keras<2.16,>=2.15.0"], b.macho("arm64", b.TF_LIB))
    b.scenario(
        "no_metal_custom_tf2150_wheel",
        title="A self-built tensorflow 2.15.0 arm64 wheel in a clean venv: list_physical_devices('GPU') is []",
        source="sun1638650145/Libraries-and-Extensions-for-TensorFlow-for-Apple-Silicon#20",
        basis="#20 (2023-12-13): `pip install .../tensorflow-2.15.0-cp311-cp311-macosx_14_0_arm64.whl` in a clean "
              "venv with Python 3.11.1, then tf.config.list_physical_devices('GPU') -> []; the maintainer: 'The "
              "reason for not recognizing the GPU is that you have not installed tensorflow-metal.' The wheel is a "
              "full build (not the PyPI shim), its pins those of 2.15.0. Issue 11 class 3: no Metal plugin on "
              "Apple silicon is why no GPU is listed. Keras 2.15 still logs its M1/M2 optimizer lines (they test "
              "the platform, not the GPU): without a Metal GPU in use they must not lead (class 4). Assumed: an "
              "M2, macOS 14.2, numpy 1.26.2, Keras 2.15.0.",
        expected=["compat.no-metal"],
        snapshot=b.snapshot(
            b.mac("Apple M2", "14.2", 16), py,
            [tf, b.plain(site, "keras", "2.15.0"), b.numpy(site, "1.26.2", "3.11"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.10.0", "cp311-cp311-macosx_11_0_arm64")],
            runtime=b.runtime_ok(py, "2.15.0", gpu=False, keras=b.keras2("2.15.0", parts.OPT_LEGACY_214),
                                 stderr=b.OPT_WARN)))


def no_metal_osl_dynamics(b: Any, parts: Any) -> None:
    py = b.miniforge("3.8.18", f"{HOME}/miniforge3", "osld")
    site = b.site_of(py)
    b.scenario(
        "no_metal_tfmacos291_osl_dynamics",
        title="M1, conda env osld with tensorflow-macos 2.9.1 only: HMMs train, 'tensorflow did not seem to use GPU at all'",
        source="OHBA-analysis/osl-dynamics#247",
        basis="osl-dynamics#247: with the project's env set up (`pip install tensorflow-macos==2.9.1`), training "
              "ran but 'tensorflow did not seem to use GPU at all'; the solution was `pip install "
              "tensorflow-metal==0.5.0`, after which GPU:0 was listed (the healthy scenario "
              "healthy_m1_tfmacos291_metal050_osl_dynamics). Assumed as there: Miniforge Python 3.8, macOS 14.4.",
        expected=["compat.no-metal"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "14.4", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.9.1", "3.8", "arm64"), b.plain(site, "keras", "2.9.0"),
             b.numpy(site, "1.22.4", "3.8"), b.plain(site, "protobuf", "3.19.6", "cp38-cp38-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.6.0", "cp38-cp38-macosx_11_0_arm64")],
            runtime=b.runtime_ok(py, "2.9.1", gpu=False, keras=b.keras2("2.9.0", b.KERAS29_ADAM))))


def bigsur_metal030(b: Any, parts: Any) -> None:
    py = b.miniforge("3.8.12", f"{HOME}/miniforge3", "tf3.7")
    parts.conda_records(py, parts.tensorflow_deps("2.6.0", "1.19.5"))
    site = b.site_of(py)
    text = (f"dlopen({site}/tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not found: "
            f"_OBJC_CLASS_$_MPSGraphCompilationDescriptor\n  Referenced from: {site}/tensorflow-plugins/"
            "libmetal_plugin.dylib (which was built for Mac OS X 12.0)\n  Expected in: "
            "/System/Library/Frameworks/MetalPerformanceShadersGraph.framework/Versions/A/"
            "MetalPerformanceShadersGraph\n in " + f"{site}/tensorflow-plugins/libmetal_plugin.dylib")
    b.scenario(
        "macos_too_old_bigsur_metal030",
        title="M1 on Big Sur 11.6: tensorflow-metal needs an MPSGraph class of macOS 12 ('built for Mac OS X 12.0')",
        source="tensorflow/tensorflow#53309",
        basis="#53309 (2021-12-05): macOS Big Sur 11.6, Apple M1, 8 GB; `conda install -c apple "
              "tensorflow-deps==2.6.0`, `pip install tensorflow-macos`, `pip install tensorflow-metal`; `import "
              "tensorflow` raises NotFoundError 'dlopen(.../envs/tf3.7/lib/python3.8/site-packages/"
              "tensorflow-plugins/libmetal_plugin.dylib, 6): Symbol not found: "
              "_OBJC_CLASS_$_MPSGraphCompilationDescriptor ... (which was built for Mac OS X 12.0)' at "
              "_ll.load_library(_plugin_dir) (tensorflow/__init__.py line 449). pip in December 2021: "
              "tensorflow-macos 2.7.0 + tensorflow-metal 0.3.0 (wheels tagged macosx_11_0; Apple's table: 12.0+). "
              "Assumed: Python 3.8.12; the 'Expected in' line is dyld's usual form.",
        expected=["compat.macos-too-old"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.6", 8), py,
            [b.tensorflow(site, "tensorflow-macos", "2.7.0", "3.8", "arm64"), b.metal(site, "0.3.0", "3.8"),
             b.plain(site, "keras", "2.7.0"), b.pkg(site, "numpy", "1.19.5", "", installer="conda")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_import_error(py, parts.NOT_FOUND, text, parts.init_tb(site, 449), metal_site=site)))


def numpy_api_0xe(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.7", f"{HOME}/miniforge3", "tf25")
    site = b.site_of(py)
    b.scenario(
        "numpy_abi_api_0xe_numpy_0xd_tfmacos250",
        title="tensorflow-macos 2.5 in a Miniforge env: 'module compiled against API version 0xe but this version of numpy is 0xd'",
        source="ctrahey/m1-tensorflow-config#1",
        basis="m1-tensorflow-config#1 (2021-09-30): after following the recipe (Miniforge env tf25, Python 3.9), "
              "running code that imports TensorFlow prints 'RuntimeError: module compiled against API version 0xe "
              "but this version of numpy is 0xd' (built against NumPy 1.20's C API, run with NumPy 1.19: "
              "tensorflow-macos 2.5.0 pins numpy~=1.19.2). Assumed: numpy 1.19.5, and the import then failing with "
              "'ImportError: numpy.core.multiarray failed to import' (NumPy's usual follow-up), an M1 on macOS 12.0.1.",
        expected=["runtime.numpy-abi"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "12.0.1", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.5.0", "3.9", "arm64"), b.metal(site, "0.1.2", "3.9"),
             b.numpy(site, "1.19.5", "3.9"), b.plain(site, "h5py", "3.1.0", "cp39-cp39-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_import_error(
                py, "ImportError", "numpy.core.multiarray failed to import",
                [f"{site}/tensorflow/__init__.py:41 in <module>",
                 f"{site}/tensorflow/python/__init__.py:40 in <module>"],
                stderr=["RuntimeError: module compiled against API version 0xe but this version of numpy is 0xd"],
                metal_site=site)))


def aet_cs_tf220(b: Any, parts: Any) -> None:
    py = b.miniforge("3.12.8", f"{HOME}/miniforge3", "tfmetal-latest")
    site = b.site_of(py)
    b.scenario(
        "pair_tf2200_metal120_conda_py312",
        title="M4, Python 3.12 conda env: the latest tensorflow 2.20.0 with tensorflow-metal 1.2.0 fails to load",
        source="AET-CS/aet-cs.github.io white/2025/ML/readme-mac-metal.md; tensorflow/tensorflow#126360",
        basis="The readme (2026-01-22): 'The latest TF 2.20.0 + tensorflow-metal 1.2.0 combo currently fails to load "
              "on macOS/arm with a missing `_pywrap_tensorflow_internal.so` symbol', hence its pin to 2.16.2; PR "
              "#126360 reports the same pair failing. Assumed: Miniforge Python 3.12.8, macOS 26.1, Keras 3.12.0, "
              "numpy 2.2.6. Static facts only.",
        expected=["compat.tf-metal-mismatch"],
        snapshot=b.snapshot(
            b.mac("Apple M4", "26.1", 16), py,
            [b.tensorflow(site, "tensorflow", "2.20.0", "3.12", "arm64"), b.metal(site, "1.2.0", "3.12"),
             b.plain(site, "keras", "3.12.0"), b.numpy(site, "2.2.6", "3.12"),
             b.plain(site, "ml-dtypes", "0.5.3", "cp312-cp312-macosx_10_13_universal2"),
             b.plain(site, "h5py", "3.14.0", "cp312-cp312-macosx_11_0_arm64"),
             b.plain(site, "protobuf", "6.32.0", "cp39-abi3-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)]))


def tfkeras_221_upgrade(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.12.8", f"{HOME}/venvs/legacy")
    site = b.site_of(py)
    b.scenario(
        "pair_tf2210_metal120_tfkeras_upgrade",
        title="An unpinned `pip install tf-keras` upgrades TensorFlow to 2.21.0, past what tensorflow-metal 1.2.0 loads with",
        source="../shared/reference/README.md (tf-keras 2.21.0 METADATA); tensorflow/tensorflow#126384; tensorflow/tensorflow#126360",
        basis="The reference: tf-keras 2.21.0 requires tensorflow>=2.21,<2.22, so `pip install tf-keras` in a working "
              "2.19 + 1.2.0 env upgrades TensorFlow to 2.21.0; PR #126384: tensorflow-metal 'no longer loads. "
              "Installed beside a stock tensorflow==2.21.0 in a clean' env; #126360: 1.2.0 fails with a missing "
              "symbol on 2.20 and 2.21. Assumed: an M3 Pro, macOS 15.6, python.org 3.12.8, keras 3.12.0, "
              "TF_USE_LEGACY_KERAS=1 exported. Static facts only.",
        expected=["compat.tf-metal-mismatch"],
        snapshot=b.snapshot(
            b.mac("Apple M3 Pro", "15.6", 18), py,
            [b.tensorflow(site, "tensorflow", "2.21.0", "3.12", "arm64"), b.metal(site, "1.2.0", "3.12"),
             b.plain(site, "tf-keras", "2.21.0", requires_dist=["tensorflow<2.22,>=2.21"]),
             b.plain(site, "keras", "3.12.0"), b.numpy(site, "2.3.5", "3.12"),
             b.plain(site, "ml-dtypes", "0.5.3", "cp312-cp312-macosx_10_13_universal2"),
             b.plain(site, "h5py", "3.14.0", "cp312-cp312-macosx_11_0_arm64"),
             b.plain(site, "protobuf", "6.32.1", "cp39-abi3-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)], env=b.env_for(py, TF_USE_LEGACY_KERAS="1")))


def dense_relu_graph(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.9", f"{HOME}/venvs/fused")
    site = b.site_of(py)
    b.scenario(
        "gpu_wrong_dense_bias_relu_graph_mode",
        title="Dense(bias, relu) inside tf.function is wrong on Metal (the fused _FusedMatMul kernel), eager is right",
        source="https://origin-devforums.apple.com/forums/profile/polligator/allPosts; ../shared/GUIDE.md section 1",
        basis="Apple developer forums (polligator): in a tf.function graph on the Metal GPU, MatMul -> BiasAdd -> "
              "Relu (what Dense(activation='relu') emits) gives errors 'on the order of tens of units'; eager mode on "
              "the GPU and graph mode on the CPU are right; relu(matmul + b) with AddV2 is right; the plugin's "
              "_FusedMatMul with fused_ops=[BiasAdd, Relu] is the culprit, deterministic at every shape. The forum "
              "post names no versions: tensorflow 2.19.1 + tensorflow-metal 1.2.0 assumed (the recommended pair). "
              "The training probe's Dense(bias, relu) check (issue 11 item 8: agreement values dense_relu_eager "
              "and dense_relu_graph, tfdoctor/inside/shared/workloads.py) is constructed in the reported direction: "
              "eager within float32 rounding, graph mode off by a relative L2 error of 0.31; matmul, conv and "
              "the bias-free network agree and the GPU is faster. A snapshot from before that check has only "
              "the agreeing values, and then nothing can see the bug.",
        expected=["probe.gpu-wrong"],
        snapshot=b.snapshot(
            b.mac("Apple M3 Pro", "15.5", 18), py,
            [b.tensorflow(site, "tensorflow", "2.19.1", "3.11", "arm64"), b.metal(site, "1.2.0", "3.11"),
             b.plain(site, "keras", "3.10.0"), b.numpy(site, "2.1.3", "3.11"),
             b.plain(site, "ml-dtypes", "0.5.1", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.13.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.19.1", metal_site=site, keras=b.keras3("3.10.0"), probes_ran=True,
                                 git_version="v2.19.0-rc0-6-ge36baa30292",
                                 stderr=b.metal_banner("Apple M3 Pro", "18.00 GB", "6.00 GB") + [b.PLUGIN_OPTIMIZER]),
            probes=b.probes("2.19.1", _fused_kernel_wrong(b.healthy_probe_runs()))))


def _fused_kernel_wrong(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The GPU training run with the Dense(bias, relu) values the probe adds (item 8): eager agrees
    with the CPU, graph mode does not, so the run's agreement fails."""
    for run in runs:
        if run["workload"] == "train" and run["device"].startswith("GPU"):
            agreement = run["agreement"]
            agreement["values"].update({"dense_relu_eager": 3e-7, "dense_relu_graph": 0.31})
            agreement["ok"] = False
    return runs


def homebrew39_tf218(b: Any, parts: Any) -> None:
    base = "/opt/homebrew/opt/python@3.9/Frameworks/Python.framework/Versions/3.9"
    prefix = f"{HOME}/test_tf_latest/.venv"
    py = b.python("3.9.20", f"{prefix}/bin/python", prefix, base_prefix=base, binary=f"{base}/bin/python3.9",
                  archs=["arm64"], process_arch="arm64", translated=False, framework="Python",
                  platform_tag="macosx-15.0-arm64")
    site = b.site_of(py)
    text = (f"dlopen({site}/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): Symbol not found: "
            "__ZN3tsl8internal10LogMessageC1EPKcii\n  Referenced from: "
            f"{site}/tensorflow-plugins/libmetal_plugin.dylib\n  Expected in: "
            f"{site}/tensorflow/python/_pywrap_tensorflow_internal.so")
    b.scenario(
        "pair_tf2180_metal110_homebrew39_venv",
        title="Homebrew Python 3.9 venv, `pip install tensorflow tensorflow-metal` (December 2024): 2.18.0 + 1.1.0 fails to load",
        source="tensorflow/tensorflow#81987",
        basis="#81987 (2024-12-02): macOS 15.1.1, `/opt/homebrew/bin/python3.9 -m venv .venv`, `pip install "
              "tensorflow tensorflow-metal` (2.18.0 and 1.1.0, the newest then), `import tensorflow` raises at "
              "tensorflow/__init__.py line 437 `_ll.load_library(_plugin_dir)` a NotFoundError from "
              "libmetal_plugin.dylib, 'a mismatch between the TensorFlow core library and the Metal plugin'. The "
              "symbol is the one the reference's load check names for 1.1.0 on 2.18. Assumed: an M1, Homebrew "
              "Python 3.9.20, Keras 3.7.0, numpy 2.0.2.",
        expected=["compat.tf-metal-mismatch"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "15.1.1", 16), py,
            [b.tensorflow(site, "tensorflow", "2.18.0", "3.9", "arm64"), b.metal(site, "1.1.0", "3.9"),
             b.plain(site, "keras", "3.7.0"), b.numpy(site, "2.0.2", "3.9"),
             b.plain(site, "ml-dtypes", "0.4.1", "cp39-cp39-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.12.1", "cp39-cp39-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_import_error(py, parts.NOT_FOUND, text, parts.init_tb(site), metal_site=site)))


def anaconda_m2max_tf218(b: Any, parts: Any) -> None:
    py = b.miniforge("3.11.11", f"{HOME}/anaconda3", "cryptoNN_ml_core")
    site = b.site_of(py)
    b.scenario(
        "pair_tf218_metal110_anaconda_m2max_upgrade",
        title="M2 Max (38-core GPU), anaconda env: fine with TensorFlow 2.17, broken after upgrading to 2.18",
        source="tensorflow/tensorflow#84167",
        basis="#84167 (2025-01-05): macOS 15.2, Python 3.11.11, Apple M2 Max GPU 38-cores, env "
              "~/anaconda3/envs/cryptoNN_ml_core: 'tensorflow-metal==1.1.0 and python 3.11 works fine with "
              "tensorboard==2.17.0 ... if I upgrade tensorflow to 2.18 I'll have error'. Apple's table still lists "
              "1.1.0 for v2.18; the reference's load check shows 1.1.0 failing from 2.18.0 on. Assumed: Anaconda's "
              "arm64 build (conda subdir osx-arm64), tensorflow 2.18.0, Keras 3.7.0, numpy 2.0.2. Static facts only.",
        expected=["compat.tf-metal-mismatch"],
        snapshot=b.snapshot(
            b.mac("Apple M2 Max", "15.2", 64), py,
            [b.tensorflow(site, "tensorflow", "2.18.0", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "3.7.0"), b.numpy(site, "2.0.2", "3.11"),
             b.plain(site, "ml-dtypes", "0.4.1", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "tensorboard", "2.18.0")],
            plugins=[b.plugin_file(site)]))


def loss_explodes(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.9", f"{HOME}/venvs/aug")
    site = b.site_of(py)
    b.scenario(
        "gpu_wrong_loss_explodes_tf2150_metal110",
        title="tensorflow 2.15 + tensorflow-metal 1.1.0: loss goes from 0.3 to over 1000 within a few epochs on the GPU",
        source="https://gist.github.com/txoof/2973522f45f4cea980648e12dfd1d3d0",
        basis="The gist: Python 3.11.9, TensorFlow 2.15.0, tensorflow-macos 2.15, tensorflow-metal 1.1.0; simple "
              "models 'on Mac M-series ... often suffer from exploding loss after the first few epochs' (epoch 4: "
              "loss 4.64, epoch 6: 262.39), magnified by augmentation; the GUIDE lists exploding loss on Metal as "
              "a kernel bug (tensorflow/tensorflow#71577, #92686). The probe results are constructed in that "
              "direction: the training step on the GPU disagrees with the CPU (gradients and loss), matmul and "
              "conv agree. Assumed: an M2, macOS 14.6.",
        expected=["probe.gpu-wrong"],
        snapshot=b.snapshot(
            b.mac("Apple M2", "14.6", 16), py,
            [b.tensorflow(site, "tensorflow", "2.15.0", "3.11", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.15.0", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "2.15.0"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.15.0", metal_site=site, probes_ran=True,
                                 keras=b.keras2("2.15.0", "keras.src.optimizers.legacy.adam.Adam"),
                                 stderr=b.metal_banner("Apple M2", when="2024-08-12 20:14:09") + b.OPT_WARN
                                 + [b.PLUGIN_OPTIMIZER]),
            probes=b.probes("2.15.0", [
                b.probe_run("matmul", "CPU:0", 1024, b.jitter(19.0)), b.probe_run("matmul", "GPU:0", 1024, b.jitter(1.6)),
                b.probe_run("conv", "CPU:0", 32, b.jitter(60.0)), b.probe_run("conv", "GPU:0", 32, b.jitter(6.5), error=3e-6),
                b.probe_run("train", "CPU:0", 64, b.jitter(48.0)),
                b.probe_run("train", "GPU:0", 64, b.jitter(9.0), error=0.62, loss=(2.31, 41.7))])))


def keras37_odd_results(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.9", f"{HOME}/venvs/k37")
    site = b.site_of(py)
    b.scenario(
        "gpu_wrong_keras37_metal120_training",
        title="tensorflow-macos 2.16.2 + tensorflow-metal 1.2.0 with Keras 3.7+: training on the GPU gives odd results",
        source="keras-team/keras#21668",
        basis="keras#21668: with tensorflow-macos 2.16.2 and tensorflow-metal 1.2.0 the results are as expected with "
              "Keras up to 3.6 and odd from 3.7 on (the healthy twin: healthy_tfmacos2162_shim_tf2162_metal120_keras36). "
              "Here Keras 3.8.0. The training probe runs a Keras model on both devices; its results are constructed "
              "in the reported direction (the GPU's loss and gradients disagree with the CPU's; matmul and conv, "
              "which do not go through Keras, agree). Assumed: an M2 Pro, macOS 15.1, python.org 3.11.9.",
        expected=["probe.gpu-wrong"],
        snapshot=b.snapshot(
            b.mac("Apple M2 Pro", "15.1", 32), py,
            [b.tensorflow(site, "tensorflow-macos", "2.16.2", "3.11", "arm64"),
             b.tensorflow(site, "tensorflow", "2.16.2", "3.11", "arm64"), b.metal(site, "1.2.0", "3.11"),
             b.plain(site, "keras", "3.8.0"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.12.1", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.16.2", metal_site=site, keras=b.keras3("3.8.0"), probes_ran=True,
                                 stderr=b.metal_banner("Apple M2 Pro", "32.00 GB", "10.67 GB") + [b.PLUGIN_OPTIMIZER]),
            probes=b.probes("2.16.2", [
                b.probe_run("matmul", "CPU:0", 1024, b.jitter(19.0)), b.probe_run("matmul", "GPU:0", 1024, b.jitter(1.4)),
                b.probe_run("conv", "CPU:0", 32, b.jitter(58.0)), b.probe_run("conv", "GPU:0", 32, b.jitter(5.9), error=3e-6),
                b.probe_run("train", "CPU:0", 64, b.jitter(45.0)),
                b.probe_run("train", "GPU:0", 64, b.jitter(8.4), error=0.21)])))
