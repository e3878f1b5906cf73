"""Working setups installed with pip into a venv or a plain Python (issue 11 corpus).

Conventions (sources, assumptions, expectations, Keras' optimizer lines): see report_parts.py.
"""

from __future__ import annotations

from typing import Any

HOME = "/Users/ada"


def add(b: Any, parts: Any) -> None:
    for build in (osl_dynamics, cleanlab, asadsk8r02, aet_cs_m4, svpino_py311, keras_21668, jahio_m2max,
                  pbnelson_m1max, intel_bigsur, self_shim_beside_tensorflow, kp_prediction):
        build(b, parts)


def osl_dynamics(b: Any, parts: Any) -> None:
    py = b.miniforge("3.8.18", f"{HOME}/miniforge3", "osld")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos291_metal050_osl_dynamics",
        title="M1, conda env osld: tensorflow-macos 2.9.1 with tensorflow-metal 0.5.0, the GPU listed",
        source="OHBA-analysis/osl-dynamics#247",
        basis="osl-dynamics#247 (2024-04-20): on an M1 MacBook, 'after `pip install tensorflow-macos==2.9.1`, I "
              "also ran `pip install tensorflow-metal==0.5.0`. This works', list_physical_devices('GPU') gives "
              "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]. A patch release of TensorFlow "
              "(2.9.1) with the plugin of its minor (Apple's table: v2.9 / v0.5.0). Assumed: the env 'osld' is a "
              "Miniforge env with Python 3.8 (the project's install guide of the time), macOS 14.4, Keras 2.9.0; "
              "tensorflow-metal 0.5.0 prints its banner without a logger prefix.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "14.4", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.9.1", "3.8", "arm64"), b.metal(site, "0.5.0", "3.8"),
             b.plain(site, "keras", "2.9.0"), b.numpy(site, "1.22.4", "3.8"),
             b.plain(site, "protobuf", "3.19.6", "cp38-cp38-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.6.0", "cp38-cp38-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.9.1", metal_site=site, keras=b.keras2("2.9.0", b.KERAS29_ADAM),
                                 stderr=parts.bare_banner("Apple M1", "2024-04-20 13:41:02", "16.00 GB", "5.33 GB"))))


def cleanlab(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.10.8", f"{HOME}/cleanlab/ENV")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1pro_tfmacos292_metal051_cleanlab",
        title="cleanlab's test environment on Apple silicon: tensorflow-macos 2.9.2 + tensorflow-metal 0.5.1",
        source="cleanlab/cleanlab DEVELOPMENT.md (2022-2023 revisions)",
        basis="cleanlab's DEVELOPMENT.md told contributors 'For Macs with Apple silicon: replace `tensorflow` in "
              "requirements-dev.txt with: `tensorflow-macos==2.9.2` and `tensorflow-metal==0.5.1`' and to run the "
              "test suite in a venv (./ENV). tensorflow-metal 0.5.1 (uploaded 2022-08-17, between 0.5.0 for v2.9 "
              "and 0.6.0 for v2.10) is named by no row of Apple's table: a patch release for the TensorFlow minor "
              "of its base release. Assumed: an M1 Pro on macOS 13.0, python.org 3.10.8, numpy 1.23.4, Keras "
              "2.9.0. Static facts only.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Pro", "13.0", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.9.2", "3.10", "arm64"), b.metal(site, "0.5.1", "3.10"),
             b.plain(site, "keras", "2.9.0"), b.numpy(site, "1.23.4", "3.10"),
             b.plain(site, "protobuf", "3.19.6", "cp310-cp310-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.7.0", "cp310-cp310-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)]))


def asadsk8r02(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.8", f"{HOME}/tf_metal_env")
    site = b.site_of(py)
    when = "2024-04-24 13:07:05"
    b.scenario(
        "healthy_m2pro_tf2140_metal110_venv",
        title="MacBook Pro M2 Pro: tensorflow 2.14.0 + tensorflow-metal 1.1.0 in a venv, GPU set to memory growth",
        source="asadsk8r02/Macbook_M2_GPU_enable README.md",
        basis="The README: `python3.11 -m venv ~/tf_metal_env`, `pip install tensorflow==2.14.0`, "
              "`tensorflow-metal==1.1.0`; list_physical_devices shows GPU:0 with details {'device_name': "
              "'METAL'}; set_memory_growth succeeds ('GPU is available and set to use.'); the log quotes 'Metal "
              "device set to: Apple M2 Pro', 'systemMemory: 16.00 GB', 'maxCacheSize: 5.33 GB' and 'Plugin "
              "optimizer for device_type GPU is enabled' (registry.cc:117) before ResNet50 trains at 57 ms/step. "
              "tensorflow 2.14.0 on arm64 is the shim onto tensorflow-macos 2.14.0 (reference). Assumed: "
              "python.org 3.11.8, macOS 14.4, numpy 1.26.4; Keras 2.14's optimizer lines come from tfdoctor's "
              "child building keras.optimizers.Adam().",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M2 Pro", "14.4", 16), py,
            [b.tensorflow(site, "tensorflow", "2.14.0", "3.11", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.14.0", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "2.14.0"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "protobuf", "4.25.3", "cp37-abi3-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.14.0", metal_site=site, keras=b.keras2("2.14.0", parts.OPT_LEGACY_214),
                                 stderr=b.metal_banner("Apple M2 Pro", when=when) + b.OPT_WARN
                                 + [parts.plugin_line("2024-04-24 13:07:07", 117)])))


def aet_cs_m4(b: Any, parts: Any) -> None:
    py = b.miniforge("3.12.8", f"{HOME}/miniforge3", "tfmetal-pip")
    site = b.site_of(py)
    b.scenario(
        "healthy_m4_tf2162_metal120_conda_py312",
        title="M4, conda env with Python 3.12: tensorflow 2.16.2 + tensorflow-metal 1.2.0, a pair no table names",
        source="AET-CS/aet-cs.github.io white/2025/ML/readme-mac-metal.md",
        basis="'This documents the working setup as of 2026-01-22': Python 3.12 (conda env tfmetal-pip), "
              "`pip install tensorflow==2.16.2 tensorflow-metal==1.2.0`, tested on an M4; 'TF 2.16.2 with "
              "tensorflow-metal 1.2.0 loads cleanly and exposes the GPU'. tensorflow-metal 1.2.0 is in no row of "
              "Apple's table (reference pairs); the plugin binary resolves against 2.16.2 (reference "
              "metal_binaries load_check). Assumed: Miniforge root, Python 3.12.8, macOS 26.1, Keras 3.12.0 "
              "(pip's newest then), numpy 1.26.4 (2.16 caps numpy below 2).",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M4", "26.1", 16), py,
            [b.tensorflow(site, "tensorflow", "2.16.2", "3.12", "arm64"), b.metal(site, "1.2.0", "3.12"),
             b.plain(site, "keras", "3.12.0"), b.numpy(site, "1.26.4", "3.12"),
             b.plain(site, "ml-dtypes", "0.3.2", "cp312-cp312-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.12.1", "cp312-cp312-macosx_11_0_arm64"),
             b.plain(site, "protobuf", "4.25.8", "cp37-abi3-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.16.2", metal_site=site, keras=b.keras3("3.12.0"),
                                 stderr=b.metal_banner("Apple M4", when="2026-01-22 16:20:31"))))


def svpino_py311(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.8", f"{HOME}/apple-silicon/.venv")
    site = b.site_of(py)
    b.scenario(
        "healthy_m2_tf2161_metal110_py311",
        title="Python 3.11.8: tensorflow 2.16.1 + tensorflow-metal, Apple's ResNet50 example runs on the GPU",
        source="svpino/apple-silicon#1",
        basis="apple-silicon#1 (2024-05-24): 'Using python 3.11.8 and leaving out tensorflow-macos (for "
              "Tensorflow 2.13+) ... tensorflow: 2.16.1 ... Using the ResNet50 example on Apple Developers site, I "
              "see the GPU is working!' (and Python 3.12 fails for tensorflow-metal: the failing scenario "
              "no_metal_python312_tf2161_svpino). `pip install tensorflow-metal` in May 2024 gave 1.1.0 (Apple's "
              "table: v2.14-v2.18). Assumed: an M2, macOS 14.5, python.org 3.11.8, Keras 3.3.3, numpy 1.26.4.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M2", "14.5", 16), py,
            [b.tensorflow(site, "tensorflow", "2.16.1", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "3.3.3"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.16.1", metal_site=site, keras=b.keras3("3.3.3"),
                                 stderr=b.metal_banner("Apple M2", when="2024-05-24 18:02:40")
                                 + [parts.plugin_line("2024-05-24 18:02:44", 117)])))


def keras_21668(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.9", f"{HOME}/venvs/k21668")
    site = b.site_of(py)
    b.scenario(
        "healthy_tfmacos2162_shim_tf2162_metal120_keras36",
        title="tensorflow-macos 2.16.2 (a shim onto tensorflow 2.16.2) + tensorflow-metal 1.2.0 with Keras 3.6",
        source="keras-team/keras#21668; ../shared/reference/tf_wheels_2026-11.json records (tensorflow-macos 2.16.2)",
        basis="keras#21668: tensorflow-macos 2.16.2 with tensorflow-metal 1.2.0 gives the expected results with "
              "Keras up to 3.6 (odd ones from 3.7: this scenario keeps 3.6.0). The reference: tensorflow-macos "
              "2.16.2's only Darwin/arm64 requirement is tensorflow==2.16.2, so both are installed and the code is "
              "tensorflow's: a hollow shim beside its real provider, one TensorFlow. Assumed: an M2 Pro, macOS "
              "15.1, python.org 3.11.9, numpy 1.26.4.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M2 Pro", "15.1", 32), py,
            [b.tensorflow(site, "tensorflow-macos", "2.16.2", "3.11", "arm64"),
             b.tensorflow(site, "tensorflow", "2.16.2", "3.11", "arm64"), b.metal(site, "1.2.0", "3.11"),
             b.plain(site, "keras", "3.6.0"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.12.1", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.16.2", metal_site=site, keras=b.keras3("3.6.0"),
                                 stderr=b.metal_banner("Apple M2 Pro", "32.00 GB", "10.67 GB",
                                                       when="2025-10-02 09:30:11"))))


def jahio_m2max(b: Any, parts: Any) -> None:
    prefix = f"{HOME}/.venv/metal"
    base = f"{HOME}/.pyenv/versions/3.11.6"
    py = b.python("3.11.6", f"{prefix}/bin/python", prefix, base_prefix=base, binary=f"{base}/bin/python3.11",
                  archs=["arm64"], process_arch="arm64", translated=False, platform_tag="macosx-14.1-arm64")
    site = b.site_of(py)
    b.scenario(
        "healthy_m2max_tf2150_metal110_pyenv",
        title="Mac Studio M2 Max, pyenv Python 3.11 venv: pip install tensorflow tensorflow-metal, Apple's example trains",
        source="jahio/appl-silicon-tensorflow readme.md",
        basis="The readme (2023-11-10): `pyenv install 3.11`, a venv ~/.venv/metal, `pip install tensorflow`, `pip "
              "install tensorflow-metal`; the log: 'Metal device set to: Apple M2 Max', 'systemMemory: 64.00 GB', "
              "'maxCacheSize: 24.00 GB', 'registry.cc:117] Plugin optimizer for device_type GPU is enabled', "
              "five epochs at 56-62 ms/step; the NUMA and 'Created TensorFlow device' lines it calls 'nothing to "
              "worry about'. pip in November 2023: tensorflow 2.15.0 (the arm64 shim) + tensorflow-macos 2.15.0 + "
              "tensorflow-metal 1.1.0. Assumed: pyenv 3.11.6, macOS 14.1, numpy 1.26.2.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M2 Max", "14.1", 64), py,
            [b.tensorflow(site, "tensorflow", "2.15.0", "3.11", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.15.0", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "2.15.0"), b.numpy(site, "1.26.2", "3.11"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "protobuf", "4.23.4", "cp37-abi3-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.10.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)], env=b.env_for(py, PYENV_VERSION="3.11.6"),
            runtime=b.runtime_ok(py, "2.15.0", metal_site=site, keras=b.keras2("2.15.0", parts.OPT_LEGACY_214),
                                 stderr=b.metal_banner("Apple M2 Max", "64.00 GB", "24.00 GB",
                                                       when="2023-11-10 22:05:58") + b.OPT_WARN
                                 + [parts.plugin_line("2023-11-10 22:06:01", 117)])))


def pbnelson_m1max(b: Any, parts: Any) -> None:
    prefix = f"{HOME}/tensorflow-metal"
    base = "/opt/homebrew/opt/python@3.8/Frameworks/Python.framework/Versions/3.8"
    py = b.python("3.8.13", f"{prefix}/bin/python", prefix, base_prefix=base, binary=f"{base}/bin/python3.8",
                  archs=["arm64"], process_arch="arm64", translated=False, framework="Python",
                  platform_tag="macosx-12-arm64")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1max_tfmacos280_metal040_homebrew38",
        title="MacBook Pro 18,4 (M1 Max, 64 GB), Monterey 12.3.1: Homebrew Python 3.8 venv, tensorflow-macos + tensorflow-metal",
        source="pbnelson/macbookpro18-python-ml README.md",
        basis="The README: MacBook Pro 18,4, Monterey v12.3.1, Apple M1 Max, 32 GPU cores, 64 GB; `brew reinstall "
              "python@3.8`, a venv ~/tensorflow-metal, `pip install tensorflow-macos`, `pip install "
              "tensorflow-metal`, and list_physical_devices() 'should print' CPU:0 and GPU:0; keras installed "
              "after TensorFlow. pip in April 2022: tensorflow-macos 2.8.0 + tensorflow-metal 0.4.0 (table row "
              "v2.8) and keras 2.8.0. Assumed: Homebrew's Python 3.8.13, numpy 1.22.3.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Max", "12.3.1", 64), py,
            [b.tensorflow(site, "tensorflow-macos", "2.8.0", "3.8", "arm64"), b.metal(site, "0.4.0", "3.8"),
             b.plain(site, "keras", "2.8.0"), b.numpy(site, "1.22.3", "3.8"),
             b.plain(site, "protobuf", "3.20.0", "cp38-cp38-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.6.0", "cp38-cp38-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.8.0", metal_site=site, keras=b.keras2("2.8.0", b.KERAS29_ADAM),
                                 stderr=parts.bare_banner("Apple M1 Max", "2022-04-16 11:02:13", "64.00 GB", "24.00 GB"))))


def intel_bigsur(b: Any, parts: Any) -> None:
    base = f"{HOME}/anaconda3"
    prefix = f"{HOME}/tensorflow-metal"
    py = b.python("3.8.5", f"{prefix}/bin/python", prefix, base_prefix=base, binary=f"{base}/bin/python3.8",
                  archs=["x86_64"], process_arch="x86_64", translated=None, platform_tag="macosx-10.9-x86_64")
    site = b.site_of(py)
    b.scenario(
        "healthy_intel_imac_amd5700xt_tfmacos250_metal011_bigsur",
        title="Intel iMac 27\" with an AMD Radeon Pro 5700 XT on Big Sur 11.4: tensorflow-macos 2.5 runs on the GPU",
        source="tensorflow/text#654; tensorflow/tensorflow#50541; jzhangc/git_tf2_experiments README.md",
        basis="text#654 (2021-07-13): 'I am able to get my AMD Radeon Pro 5700 XT gpu to run on an iMac 27\" with "
              "Big Sur tensorflow 2.5' (a screenshot of the run); #50541, the same machine: Big Sur 11.4, "
              "Python 3.8.5 (an Anaconda build: prompt '(base) ... x86_64-apple-darwin13'), a venv "
              "~/tensorflow-metal. pip in July 2021: tensorflow-macos 2.5.0 + tensorflow-metal 0.1.1. Apple's "
              "table asks macOS 12.0+ for the plugin, the wheels say macosx_11_0: here the GPU was observed "
              "running, which outranks the table (issue 11 class 2); git_tf2_experiments reports the same on an Intel "
              "i9/AMD iMac running 11.4. Assumed: the start-up lines (first line "
              "only, as 0.1.x printed it), the iMac's i9-10910 with 32 GB.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.intel_mac("Intel(R) Core(TM) i9-10910 CPU @ 3.60GHz", "11.4", 32), py,
            [b.tensorflow(site, "tensorflow-macos", "2.5.0", "3.8", "x86_64"), b.metal(site, "0.1.1", "3.8", "x86_64"),
             b.numpy(site, "1.19.5", "3.8", "x86_64"),
             b.plain(site, "h5py", "3.1.0", "cp38-cp38-macosx_10_9_x86_64"),
             b.plain(site, "protobuf", "3.17.3", "cp38-cp38-macosx_10_9_x86_64")],
            plugins=[b.plugin_file(site, "x86_64")],
            runtime=b.runtime_ok(py, "2.5.0", metal_site=site, memory_growth=None,
                                 stderr=parts.bare_banner("AMD Radeon Pro 5700 XT", "2021-07-13 11:49:32"))))


def self_shim_beside_tensorflow(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.9", f"{HOME}/venvs/pinned")
    site = b.site_of(py)
    b.scenario(
        "healthy_tf2162_beside_selfshim_tfmacos2151",
        title="tensorflow 2.16.2 beside the empty tensorflow-macos 2.15.1 self-shim: one TensorFlow, nothing overwritten",
        source="../shared/reference/tf_wheels_2026-11.json contradictions_and_surprises (tensorflow-macos 2.15.1); "
               "openvinotoolkit/openvino_notebooks#2793",
        basis="Constructed from registry facts (not a single report): a requirements file pinned "
              "'tensorflow-macos<2.16' (which resolves to the 2 KB 2.15.1 self-shim: no tensorflow package), and "
              "a later `pip install tensorflow==2.16.2` added the only distribution carrying the tensorflow "
              "package; openvino_notebooks#2793 shows why the remedy matters: uninstalling the real one leaves "
              "nothing. "
              "Two 'TensorFlow' distributions, but only one provides code, so nothing is overwritten (issue 11 "
              "class 5). tensorflow-metal 1.1.0 loads with 2.16 (table v2.14-v2.18). Static facts only.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "14.6", 16), py,
            [b.tensorflow(site, "tensorflow", "2.16.2", "3.11", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.15.1", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "3.4.1"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)]))


def kp_prediction(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.8.18", f"{HOME}/Kp-prediction/venv")
    site = b.site_of(py)
    b.scenario(
        "healthy_m2pro_tf2130_metal101_py38",
        title="M2 Pro, macOS 14.3, Python 3.8.18: tensorflow 2.13.0 with the tensorflow-metal pip gives Python 3.8 (1.0.1)",
        source="deepsuncode/Kp-prediction Screenshots-2-8-2024/README.md",
        basis="The project's configuration (CHANGELOG 3rd Feb 2024): Apple M2 Pro, MacOS 14.3, Python v3.8.18, pip "
              "23.0.1, tensorflow==2.13.0, 'tensorflow-metal - Optional and only for Apple silicon', keras==2.13.1, "
              "numpy==1.22.4. For Python 3.8 the newest tensorflow-metal with a cp38 wheel is 1.0.1 (1.1.0 has "
              "none, reference), a patch release of 1.0.0, the table's v2.13 plugin (issue 11 class 1). tensorflow "
              "2.13.0 on arm64 is the shim onto tensorflow-macos 2.13.0. Assumed: python.org 3.8.18 venv. Static "
              "facts only.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M2 Pro", "14.3", 16), py,
            [b.tensorflow(site, "tensorflow", "2.13.0", "3.8", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.13.0", "3.8", "arm64"), b.metal(site, "1.0.1", "3.8"),
             b.plain(site, "keras", "2.13.1"), b.numpy(site, "1.22.4", "3.8"),
             b.plain(site, "protobuf", "4.25.2", "cp37-abi3-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)]))
