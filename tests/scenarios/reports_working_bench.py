"""Working setups from published hand tests and benchmarks, with probe timings in the measured
direction (issue 11 corpus).

Conventions (sources, assumptions, expectations, Keras' optimizer lines): see report_parts.py.
"""

from __future__ import annotations

from typing import Any

HOME = "/Users/ada"


def add(b: Any, parts: Any) -> None:
    for build in (itwasme_py38, tlkh_m1max, stardist_napari, m1_machine_learning_test,
                  mac_ml_speed_test, itwasme_py311):
        build(b, parts)


def itwasme_py38(b: Any, parts: Any) -> None:
    prefix = f"{HOME}/venvs/py38"
    base = "/opt/homebrew/opt/python@3.8/Frameworks/Python.framework/Versions/3.8"
    py = b.python("3.8.19", f"{prefix}/bin/python", prefix, base_prefix=base,
                  binary=f"{base}/bin/python3.8", archs=["arm64"], process_arch="arm64", translated=False,
                  framework="Python", platform_tag="macosx-14.0-arm64")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1pro_tfmacos2130_metal100_py38_probed",
        title="M1 Pro, Python 3.8: ResNet50 epoch 64 s on the GPU against 403 s on the CPU; Keras logs its optimizer line",
        source="https://forums.developer.apple.com/forums/profile/itwasme/replies",
        basis="Apple developer forums (itwasme, 2024-07-22): MacBook Pro 14-inch 2021, M1 Pro, 16 GB; in a "
              "Python 3.8.19 environment Apple's example takes 403 s/epoch on the CPU and 64 s/epoch on the GPU, "
              "with 'custom_graph_optimizer_registry.cc:114] Plugin optimizer for device_type GPU is enabled' "
              "(the 2.13 line; tensorflow-macos 2.13.0 is the last with cp38 wheels). Assumed: tensorflow-macos "
              "2.13.0 + tensorflow-metal 1.0.0 (the table's v2.13 row), a Homebrew Python 3.8, macOS 14.5. Keras "
              "2.13 logs the v2.11+ optimizer line and falls back by itself; the probes (constructed in the ratio "
              "the thread measured) show the GPU clearly faster, so the line has no measured impact.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Pro", "14.5", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.13.0", "3.8", "arm64"), b.metal(site, "1.0.0", "3.8"),
             b.plain(site, "keras", "2.13.1"), b.numpy(site, "1.24.3", "3.8"),
             b.plain(site, "protobuf", "4.24.4", "cp37-abi3-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.10.0", "cp38-cp38-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.13.0", metal_site=site, git_version=b.TF213_GIT, probes_ran=True,
                                 keras=b.keras2("2.13.1", parts.OPT_LEGACY_214),
                                 stderr=b.metal_banner("Apple M1 Pro", when="2024-07-22 21:35:46") + b.OPT_WARN
                                 + [parts.plugin_line("2024-07-22 21:35:48", 114)]),
            probes=b.probes("2.13.0", b.healthy_probe_runs(train_cpu=51.0, train_gpu=8.1))))


def tlkh_m1max(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.7", f"{HOME}/miniforge3", "tf")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1max_tfmacos260_metal020_probed",
        title="M1 Max 32-core GPU: matmul reaches several TFLOPS on Metal, ResNet50 140 img/s",
        source="tlkh/tf-metal-experiments README.md; ../shared/GUIDE.md section 3",
        basis="tf-metal-experiments: an M1 Max 32c set up with Apple's instructions, 'Metal device set to: Apple "
              "M1 Max', ResNet50 at 140 img/s and 'around >8 TFLOPS for large enough problem sizes' of float32 "
              "matmul (tflops_sweep.py). Assumed: late 2021, tensorflow-macos 2.6.0 + tensorflow-metal 0.2.0 "
              "(table row v2.6), Miniforge Python 3.9.7, macOS 12.0.1, 64 GB; probe timings constructed at that "
              "scale: a 1024 matmul at about 5 TFLOPS (below the large-size figure), conv and the training step "
              "clearly faster than on the CPU, in agreement.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Max", "12.0.1", 64), py,
            [b.tensorflow(site, "tensorflow-macos", "2.6.0", "3.9", "arm64"), b.metal(site, "0.2.0", "3.9"),
             b.plain(site, "keras", "2.6.0"), b.numpy(site, "1.19.5", "3.9"),
             b.plain(site, "protobuf", "3.19.1", "cp39-cp39-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.6.0", metal_site=site, probes_ran=True,
                                 keras=b.keras2("2.6.0", "keras.optimizer_v2.adam.Adam"),
                                 stderr=parts.bare_banner("Apple M1 Max", "2021-11-02 22:10:05")),
            probes=b.probes("2.6.0", b.healthy_probe_runs(matmul_cpu=5.0, matmul_gpu=0.43, conv_cpu=40.0,
                                                          conv_gpu=3.6, train_cpu=30.0, train_gpu=5.2))))


def stardist_napari(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.9.13", f"{HOME}/venvs/napari")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos290_metal050_probed_4x",
        title="stardist-napari on a vanilla M1: tensorflow-macos + tensorflow-metal from pip, about 4x faster on larger images",
        source="stardist/stardist-napari#21",
        basis="stardist-napari#21 (2022-06-04): 'tensorflow-macos is now pip installable without Apple conda "
              "channel dependancies. tensorflow-metal is also pip installable with no issues and on larger images "
              "it can offer ~4x speedup on vanilla M1'. Assumed: what pip gave that week, tensorflow-macos 2.9.0 + "
              "tensorflow-metal 0.5.0, a python.org 3.9.13 venv, macOS 12.4, 8 GB; probes constructed with the "
              "GPU about 4x faster on conv and training, in agreement.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "12.4", 8), py,
            [b.tensorflow(site, "tensorflow-macos", "2.9.0", "3.9", "arm64"), b.metal(site, "0.5.0", "3.9"),
             b.plain(site, "keras", "2.9.0"), b.numpy(site, "1.22.4", "3.9"),
             b.plain(site, "protobuf", "3.19.4", "cp39-cp39-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.7.0", "cp39-cp39-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.9.0", metal_site=site, probes_ran=True,
                                 keras=b.keras2("2.9.0", b.KERAS29_ADAM),
                                 stderr=parts.bare_banner("Apple M1", "2022-06-04 17:20:45", "8.00 GB", "2.67 GB")),
            probes=b.probes("2.9.0", b.healthy_probe_runs(matmul_cpu=14.0, matmul_gpu=3.1, conv_cpu=48.0,
                                                          conv_gpu=12.0, train_cpu=36.0, train_gpu=9.5))))


M1_TEST = [("Apple M1", 16, "13.727"), ("Apple M1 Pro", 16, "16.117"), ("Apple M1 Max", 32, "14.329")]
"""mrdbourke/m1-machine-learning-test results/<device>_cifar10.csv: TinyVGG on CIFAR-10, batch 32,
seconds per epoch (memory assumed)."""


def m1_machine_learning_test(b: Any, parts: Any) -> None:
    for chip, memory, per_epoch in M1_TEST:
        prefix = f"{HOME}/tensorflow-test/env"
        py = parts.conda_prefix_env(b, "3.8.12", f"{HOME}/miniforge3", prefix)
        parts.conda_records(py, parts.tensorflow_deps("2.5.0", "1.19.5"))
        site = b.site_of(py)
        b.scenario(
            "healthy_" + chip.replace("Apple ", "").replace(" ", "").lower() + "_tfmacos250_metal012_m1_ml_test",
            title=f"{chip}: Miniforge prefix env with tensorflow-deps, tensorflow-macos + tensorflow-metal, TinyVGG {per_epoch} s/epoch",
            source="mrdbourke/m1-machine-learning-test README.md, environment.yml, "
                   f"results/{chip}_cifar10.csv",
            basis="The README's steps: Miniforge3 for arm64, `conda create --prefix ./env` in ~/tensorflow-test, "
                  "`conda install -c apple tensorflow-deps`, `pip install tensorflow-macos tensorflow-metal`; its "
                  "check prints CPU:0 and GPU:0 and 'TensorFlow version: 2.5.0'; environment.yml: python=3.8; "
                  f"results/{chip}_cifar10.csv: TinyVGG on CIFAR-10, {per_epoch} s per epoch. Assumed: "
                  "tensorflow-metal 0.1.2 (Apple's table row for v2.5), tensorflow-deps 2.5.0 with its numpy "
                  f"1.19.5, Python 3.8.12, macOS 12.0.1, {memory} GB.",
            expected=[], healthy=True,
            snapshot=b.snapshot(
                b.mac(chip, "12.0.1", memory), py,
                [b.tensorflow(site, "tensorflow-macos", "2.5.0", "3.8", "arm64"), b.metal(site, "0.1.2", "3.8"),
                 b.pkg(site, "numpy", "1.19.5", "", installer="conda"),
                 b.pkg(site, "h5py", "3.1.0", "", installer="conda")],
                plugins=[b.plugin_file(site)],
                runtime=b.runtime_ok(py, "2.5.0", metal_site=site, memory_growth=None,
                                     stderr=parts.bare_banner(chip, "2021-11-02 09:14:31"))))
    prefix = f"{HOME}/tensorflow-test/env"
    py = parts.conda_prefix_env(b, "3.8.12", f"{HOME}/miniconda3", prefix, subdir="osx-64", arch="x86_64")
    site = b.site_of(py)
    b.scenario(
        "healthy_intel_amd5500m_tfmacos250_metal012_m1_ml_test",
        title="Intel MacBook Pro with an AMD Radeon Pro 5500M 8 GB: tensorflow-macos + tensorflow-metal, TinyVGG 18.0 s/epoch",
        source="mrdbourke/m1-machine-learning-test README.md; results/AMD Radeon Pro 5500M 8 GB (Intel Mac)_cifar10.csv",
        basis="The same benchmark run on an Intel Mac ('steps should also work for Intel'): device 'AMD Radeon Pro "
              "5500M 8 GB (Intel Mac)', TinyVGG on CIFAR-10 at 17.971 s per epoch. tensorflow-deps exists only for "
              "osx-arm64, so on Intel the env is a plain osx-64 conda env (native on an Intel Mac: no Rosetta) "
              "with tensorflow-macos 2.5.0 and tensorflow-metal 0.1.2 x86_64 wheels (cp38 only). Assumed: a "
              "16-inch MacBook Pro 2019 (i9-9880H, 16 GB), Miniconda Python 3.8.12, macOS 12.0.1.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.intel_mac("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", "12.0.1", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.5.0", "3.8", "x86_64"), b.metal(site, "0.1.2", "3.8", "x86_64"),
             b.numpy(site, "1.19.5", "3.8", "x86_64"),
             b.plain(site, "h5py", "3.1.0", "cp38-cp38-macosx_10_9_x86_64")],
            plugins=[b.plugin_file(site, "x86_64")],
            runtime=b.runtime_ok(py, "2.5.0", metal_site=site, memory_growth=None,
                                 stderr=parts.bare_banner("AMD Radeon Pro 5500M", "2021-11-03 20:41:10"))))


M3_TEST = [("Apple M3", 24, "24.00 GB", "8.00 GB", "89.1"), ("Apple M3 Pro", 18, "18.00 GB", "6.00 GB", "81.2"),
           ("Apple M3 Max", 36, "36.00 GB", "13.50 GB", "78.5")]
"""mrdbourke/mac-ml-speed-test results/results_tensorflow_cv/<device>_CIFAR100_ResNet50_32_tensorflow_results.csv:
seconds per epoch at batch 32 (memory assumed)."""


def mac_ml_speed_test(b: Any, parts: Any) -> None:
    for chip, memory, mem_text, cache_text, per_epoch in M3_TEST:
        prefix = f"{HOME}/code/mac-ml-speed-test/env"
        py = parts.conda_prefix_env(b, "3.10.13", f"{HOME}/miniforge3", prefix)
        site = b.site_of(py)
        slug = chip.replace("Apple ", "").replace(" ", "").lower()
        b.scenario(
            f"healthy_{slug}_tf2150_metal110_mac_ml_speed_test",
            title=f"{chip}: pip install tensorflow tensorflow-metal in a conda env, ResNet50 on CIFAR-100 {per_epoch} s/epoch",
            source="mrdbourke/mac-ml-speed-test README.md; results/results_tensorflow_cv/"
                   f"{chip.replace(' ', '_')}_CIFAR100_ResNet50_32_tensorflow_results.csv",
            basis="The README: `conda create --prefix ./env python=3.10`, `python -m pip install tensorflow`, "
                  "`python -m pip install tensorflow-metal # important for GPU usage on MPS!!`; the results file: "
                  f"ResNet50 on CIFAR-100 at batch 32 in {per_epoch} s per epoch on the {chip} (late 2023). pip "
                  "then gave tensorflow 2.15.0 (the arm64 shim) + tensorflow-macos 2.15.0 + tensorflow-metal 1.1.0; "
                  "Keras 2.15 logs the v2.11+ optimizer lines and falls back. Assumed: Python 3.10.13, macOS 14.1, "
                  f"{memory} GB, numpy 1.26.2, no probes.",
            expected=[], healthy=True,
            snapshot=b.snapshot(
                b.mac(chip, "14.1", memory), py,
                [b.tensorflow(site, "tensorflow", "2.15.0", "3.10", "arm64"),
                 b.tensorflow(site, "tensorflow-macos", "2.15.0", "3.10", "arm64"), b.metal(site, "1.1.0", "3.10"),
                 b.plain(site, "keras", "2.15.0"), b.numpy(site, "1.26.2", "3.10"),
                 b.plain(site, "ml-dtypes", "0.2.0", "cp310-cp310-macosx_10_9_universal2"),
                 b.plain(site, "protobuf", "4.23.4", "cp37-abi3-macosx_10_9_universal2")],
                plugins=[b.plugin_file(site)],
                runtime=b.runtime_ok(py, "2.15.0", metal_site=site, keras=b.keras2("2.15.0", parts.OPT_LEGACY_214),
                                     stderr=b.metal_banner(chip, mem_text, cache_text, when="2023-12-04 10:21:07")
                                     + b.OPT_WARN + [parts.plugin_line("2023-12-04 10:21:10", 117)])))


def itwasme_py311(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.9", f"{HOME}/venvs/py311")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1pro_tf2170_metal110_py311_modest_gain",
        title="M1 Pro, Python 3.11 (Keras 3): Apple's example 472 ms/step on the GPU against 544 ms/step on the CPU",
        source="https://forums.developer.apple.com/forums/profile/itwasme/replies",
        basis="Apple developer forums (itwasme, 2024-07-22): MacBook Pro 14-inch 2021, M1 Pro, 16 GB; in a Python "
              "3.11.9 environment Apple's ResNet50 example runs 544 ms/step on the CPU and 472 ms/step on the GPU, "
              "with 'custom_graph_optimizer_registry.cc:117] Plugin optimizer for device_type GPU is enabled' (the "
              "2.16+ line; Keras 3's progress bar): a modest gain, no fault. Assumed: tensorflow 2.17.0 + "
              "tensorflow-metal 1.1.0 (pip's newest in July 2024), Keras 3.4.1, macOS 14.5; probe timings "
              "constructed in the measured ratio for the training step (matmul and conv faster on the GPU).",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Pro", "14.5", 16), py,
            [b.tensorflow(site, "tensorflow", "2.17.0", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "3.4.1"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.4.0", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.17.0", metal_site=site, keras=b.keras3("3.4.1"), probes_ran=True,
                                 stderr=b.metal_banner("Apple M1 Pro", when="2024-07-22 21:48:40")
                                 + [parts.plugin_line("2024-07-22 21:48:42", 117)]),
            probes=b.probes("2.17.0", b.healthy_probe_runs(train_cpu=54.4, train_gpu=47.2))))
