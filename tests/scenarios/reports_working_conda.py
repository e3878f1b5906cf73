"""Working setups in conda environments (Miniforge, Anaconda), several with the apple channel's
tensorflow-deps (issue 11 corpus).

Conventions (sources, assumptions, expectations, Keras' optimizer lines): see report_parts.py.
"""

from __future__ import annotations

from typing import Any

HOME = "/Users/ada"


def add(b: Any, parts: Any) -> None:
    for build in (deps_tf214, deps_tfmacos290, deepworks, numa_lines, killpit_61092, heaton_jan2023,
                  pixi_tf217, jzhangc_bigsur, fastestimator_guide):
        build(b, parts)


def deps_tf214(b: Any, parts: Any) -> None:
    py = b.miniforge("3.10.14", f"{HOME}/miniforge3", "venv-metal")
    parts.conda_records(py, parts.tensorflow_deps("2.10.0", "1.23.2"))
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tf2140_metal110_conda_tensorflow_deps",
        title="conda env with the apple channel's tensorflow-deps, tensorflow 2.14 + tensorflow-metal 1.1.0 from pip",
        source="tensorflow/tensorflow#64507 (comment of 2025-01-06)",
        basis="#64507, the fix its commenter quotes and confirms: `conda create --name venv-metal`, `conda install "
              "-c apple tensorflow-deps --force-reinstall -n venv-metal`, `python -m pip install tensorflow==2.14`, "
              "`python -m pip install tensorflow-metal==1.1.0`; Apple's test script then ran, epoch 1 in 41 s and "
              "epochs 2-5 in about 32 s each, faster than Colab's CPU. tensorflow-deps (2.10.0, the apple channel's "
              "last, osx-arm64 only) shows only in conda-meta; pip then replaced its numpy 1.23.2 by 1.26.4 for "
              "tensorflow-macos 2.14's numpy>=1.23.5 (a stale conda record beside a pip dist-info). Assumed: an "
              "M1, macOS 14.4, Python 3.10.14, no probes.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "14.4", 16), py,
            [b.tensorflow(site, "tensorflow", "2.14.0", "3.10", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.14.0", "3.10", "arm64"), b.metal(site, "1.1.0", "3.10"),
             b.plain(site, "keras", "2.14.0"), b.numpy(site, "1.26.4", "3.10"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp310-cp310-macosx_10_9_universal2"),
             b.pkg(site, "h5py", "3.6.0", "", installer="conda"),
             b.plain(site, "protobuf", "4.25.6", "cp37-abi3-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.14.0", metal_site=site, keras=b.keras2("2.14.0", parts.OPT_LEGACY_214),
                                 stderr=b.metal_banner("Apple M1", when="2025-01-06 10:11:12") + b.OPT_WARN
                                 + [parts.plugin_line("2025-01-06 10:11:14", 117)])))


def deps_tfmacos290(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.13", f"{HOME}/miniforge3", "tf")
    parts.conda_records(py, parts.tensorflow_deps("2.9.0", "1.22.4"))
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos290_metal050_tensorflow_deps290",
        title="tensorflow-deps 2.9.0 (apple channel) + tensorflow-macos 2.9.0 + tensorflow-metal 0.5.0: 'It worked fine!'",
        source="https://forums.developer.apple.com/forums/profile/phprates/replies",
        basis="Apple developer forums (phprates): 'we have specific tensorflow-metal versions for each specific "
              "tensorflow-macos versions. My choice was: python -m pip install tensorflow-macos==2.9.0, python -m "
              "pip install tensorflow-metal==0.5.0. It worked fine! ... I have specified the tensorflow-deps as "
              "2.9.0 as well: conda install -c apple tensorflow-deps==2.9.0'. tensorflow-deps shows only in "
              "conda-meta (its numpy 1.22.4 from conda-forge, kept: 2.9.0 asks numpy>=1.20). Assumed: an M1 on "
              "macOS 12.4, Miniforge Python 3.9.13. Static facts only.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "12.4", 8), py,
            [b.tensorflow(site, "tensorflow-macos", "2.9.0", "3.9", "arm64"), b.metal(site, "0.5.0", "3.9"),
             b.plain(site, "keras", "2.9.0"), b.pkg(site, "numpy", "1.22.4", "", installer="conda"),
             b.plain(site, "protobuf", "3.19.6", "cp39-cp39-macosx_10_9_universal2"),
             b.pkg(site, "h5py", "3.6.0", "", installer="conda")],
            plugins=[b.plugin_file(site)]))


def deepworks(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.13", f"{HOME}/miniforge3", None)
    parts.conda_records(py, parts.tensorflow_deps("2.9.0", "1.22.4"))
    site = b.site_of(py)
    b.scenario(
        "healthy_m1pro_tfmacos292_metal051_miniforge_base",
        title="M1 Pro, Miniforge base env: tensorflow-deps + tensorflow-macos + tensorflow-metal, 'Metal device set to: Apple M1 Pro'",
        source="prodramp/DeepWorks DeeplearningWithMetal/README.md",
        basis="DeepWorks: Miniforge3-MacOSX-arm64 into ~/miniforge3 (base env), `conda install -c apple "
              "tensorflow-deps`, `pip install tensorflow-macos`, `pip install tensorflow-metal`; the validation "
              "quotes 'Metal device set to: Apple M1 Pro / systemMemory: 16.00 GB / maxCacheSize: 5.33 GB' and "
              "list_physical_devices('GPU') with GPU:0, beside torch.backends.mps (so mid/late 2022). Assumed: "
              "what pip gave then, tensorflow-macos 2.9.2 + tensorflow-metal 0.5.1 (a patch release named by no "
              "table row), tensorflow-deps 2.9.0, Python 3.9.13, macOS 12.6.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Pro", "12.6", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.9.2", "3.9", "arm64"), b.metal(site, "0.5.1", "3.9"),
             b.plain(site, "keras", "2.9.0"), b.pkg(site, "numpy", "1.22.4", "", installer="conda"),
             b.plain(site, "protobuf", "3.19.6", "cp39-cp39-macosx_10_9_universal2"),
             b.pkg(site, "h5py", "3.6.0", "", installer="conda")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.9.2", metal_site=site, keras=b.keras2("2.9.0", b.KERAS29_ADAM),
                                 stderr=parts.bare_banner("Apple M1 Pro", "2022-09-20 10:04:51", "16.00 GB", "5.33 GB"))))


def numa_lines(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.7", f"{HOME}/mambaforge", "tensorflow")
    parts.conda_records(py, parts.tensorflow_deps("2.6.0", "1.19.5"))
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos270_metal030_numa_lines",
        title="MacBook Air M1 on macOS 12: the NUMA and 'Created TensorFlow device' lines that users take for errors",
        source="tensorflow/tensorflow#52672",
        basis="#52672 (2021-12-19, 'Warning persists after upgrading to Mac OS 12'): a new MacBook Air M1, "
              "Apple's and MakeOptim's instructions, a mambaforge env 'tensorflow' (channels apple, conda-forge; "
              "py39 builds); the log is 'Metal device set to: Apple M1', then 'Could not identify NUMA node of "
              "platform GPU ID 0, defaulting to 0...' and 'Created TensorFlow device (/job:localhost/replica:0/"
              "task:0/device:GPU:0 with 0 MB memory) -> physical PluggableDevice (device: 0, name: METAL...)': "
              "information lines of a working plugin. Assumed: what pip gave in December 2021, tensorflow-macos "
              "2.7.0 + tensorflow-metal 0.3.0 (table row v2.7), tensorflow-deps 2.6.0, macOS 12.1.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "12.1", 8), py,
            [b.tensorflow(site, "tensorflow-macos", "2.7.0", "3.9", "arm64"), b.metal(site, "0.3.0", "3.9"),
             b.plain(site, "keras", "2.7.0"), b.pkg(site, "numpy", "1.19.5", "", installer="conda"),
             b.plain(site, "protobuf", "3.19.1", "cp39-cp39-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.7.0", metal_site=site, keras=b.keras2("2.7.0", "keras.optimizer_v2.adam.Adam"),
                                 stderr=parts.bare_banner("Apple M1", "2021-12-19 12:18:04"))))


def killpit_61092(b: Any, parts: Any) -> None:
    py = b.miniforge("3.10.11", f"{HOME}/miniforge3", "tf")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1max_tfmacos2120_metal080_optimizer_lines",
        title="The v2.11+ optimizer lines, then 'Plugin optimizer for device_type GPU is enabled' and training",
        source="tensorflow/tensorflow#61092",
        basis="#61092 (2023-06-27): 'WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` "
              "runs slowly on M1/M2 Macs...' and '...Falling back to the legacy Keras optimizer', then "
              "'custom_graph_optimizer_registry.cc:114] Plugin optimizer for device_type GPU is enabled.' and "
              "517/517 steps of an epoch: the GPU trains, and Keras has already switched to the legacy optimizer "
              "the slowdown note recommends. Assumed: an M1 Max (the thread names M1, M1 Max and M2), "
              "tensorflow-macos 2.12.0 + tensorflow-metal 0.8.0 (the table's v2.12 row; the :114 line is 2.12's), "
              "Miniforge Python 3.10.11, macOS 13.4. No probe ran.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1 Max", "13.4", 32), py,
            [b.tensorflow(site, "tensorflow-macos", "2.12.0", "3.10", "arm64"), b.metal(site, "0.8.0", "3.10"),
             b.plain(site, "keras", "2.12.0"), b.numpy(site, "1.23.5", "3.10"),
             b.plain(site, "protobuf", "4.23.3", "cp37-abi3-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.9.0", "cp310-cp310-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.12.0", metal_site=site, keras=b.keras2("2.12.0", parts.OPT_LEGACY_212),
                                 stderr=b.metal_banner("Apple M1 Max", "32.00 GB", "10.67 GB", prefixed=False)
                                 + b.OPT_WARN + [parts.plugin_line("2023-06-27 14:57:34", 114)])))


def heaton_jan2023(b: Any, parts: Any) -> None:
    py = b.miniforge("3.10.8", f"{HOME}/miniconda3", "tensorflow")
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos2110_metal070_miniconda_course",
        title="A course's Mac setup, January 2023: macOS 13.0.1 arm64, TensorFlow 2.11.0, Keras 2.11.0, 'GPU is available'",
        source="jeffheaton/t81_558_deep_learning install/tensorflow-install-mac-metal-jan-2023.ipynb",
        basis="The notebook's saved output: 'Python Platform: macOS-13.0.1-arm64-arm-64bit', 'Tensor Flow Version: "
              "2.11.0', 'Keras Version: 2.11.0', 'Python 3.10.8 | packaged by conda-forge', 'GPU is available', in "
              "the env 'tensorflow' made by `conda env create -f tensorflow-apple-metal.yml` under Miniconda. "
              "tensorflow-macos 2.11.0 pairs with tensorflow-metal 0.7.0 (Apple's table v2.11); Keras 2.11 logs "
              "the v2.11+ optimizer lines and falls back. Assumed: an M1, tensorflow-metal 0.7.0 (0.7.1 came a "
              "month later), numpy 1.23.5, no probes.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "13.0.1", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.11.0", "3.10", "arm64"), b.metal(site, "0.7.0", "3.10"),
             b.plain(site, "keras", "2.11.0"), b.numpy(site, "1.23.5", "3.10"),
             b.plain(site, "protobuf", "3.19.6", "cp310-cp310-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.7.0", "cp310-cp310-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.11.0", metal_site=site,
                                 keras=b.keras2("2.11.0", "keras.optimizers.optimizer_v2.adam.Adam"),
                                 stderr=b.metal_banner("Apple M1", prefixed=False) + b.OPT_WARN)))


def pixi_tf217(b: Any, parts: Any) -> None:
    prefix = f"{HOME}/vae-for-markets/.pixi/envs/default"
    py = parts.conda_prefix_env(b, "3.11.10", prefix, prefix)
    parts.conda_records(py, [("python", "3.11.10", "", parts.FORGE)])
    site = b.site_of(py)
    b.scenario(
        "healthy_tf2171_metal110_pixi_env",
        title="A pixi environment (conda-forge Python 3.11 + PyPI tensorflow 2.17 and tensorflow-metal) on macOS 15.1.1",
        source="hcoj/tensorflow-keras-osx README.md, pixi.toml",
        basis="pixi.toml: channels conda-forge and apple, platform osx-arm64, macos = '15.1.1', python >=3.11,<3.12 "
              "from conda-forge, PyPI dependencies tensorflow >=2.17.0,<2.18, tensorflow-metal >=1.1.0,<2 "
              "('1.1.0 is the latest'), keras >=3,<4; the README's expected output: 'Pyton version: 3.11.10 | "
              "packaged by conda-forge', 'Tensorflow version: 2.17.1', 'GPU is available', 'Keras version: "
              "3.6.0'. The env lives in .pixi/envs/default (conda-meta records, PyPI dist-infos). Assumed: an "
              "M2 Pro, numpy 1.26.4, ml-dtypes 0.4.1.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M2 Pro", "15.1.1", 32), py,
            [b.tensorflow(site, "tensorflow", "2.17.1", "3.11", "arm64"), b.metal(site, "1.1.0", "3.11"),
             b.plain(site, "keras", "3.6.0"), b.numpy(site, "1.26.4", "3.11"),
             b.plain(site, "ml-dtypes", "0.4.1", "cp311-cp311-macosx_10_9_universal2"),
             b.plain(site, "h5py", "3.12.1", "cp311-cp311-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.17.1", metal_site=site, keras=b.keras3("3.6.0"),
                                 stderr=b.metal_banner("Apple M2 Pro", "32.00 GB", "10.67 GB",
                                                       when="2024-12-05 18:40:12"))))


def jzhangc_bigsur(b: Any, parts: Any) -> None:
    prefix = f"{HOME}/git_tf2_experiments/conda_venv_tf_metal"
    py = parts.conda_prefix_env(b, "3.8.10", f"{HOME}/miniforge3", prefix)
    parts.conda_records(py, parts.tensorflow_deps("2.5.0", "1.19.5"))
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos250_metal011_bigsur_114",
        title="13-inch M1 MacBook Pro on Big Sur 11.4 (June 2021): tensorflow-metal for TF 2.5 'seemed to be successful'",
        source="jzhangc/git_tf2_experiments README.md",
        basis="The README (UPDATE June 2021): 'Apple suggests to have at least macOS 12.0 (Monterey), which has not "
              "been out to the public yet. However, test seemed to be successful on a M1 13 inch Macbook Pro running "
              "macOS 11.4 (Big Sur)' (a later revision adds an Intel i9/AMD iMac on 11.4); steps: Miniforge, `conda "
              "env create ... --prefix ./conda_venv_tf_metal`, `conda install -c apple tensorflow-deps`, `pip install "
              "tensorflow-macos tensorflow-metal`. pip in June 2021: tensorflow-macos 2.5.0 + tensorflow-metal 0.1.1 "
              "(wheels tagged macosx_11_0). The GPU was observed working below Apple's table's 12.0 (issue 11 class "
              "2). Assumed: Python 3.8.10, tensorflow-deps 2.5.0 with numpy 1.19.5, 16 GB.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.4", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.5.0", "3.8", "arm64"), b.metal(site, "0.1.1", "3.8"),
             b.pkg(site, "numpy", "1.19.5", "", installer="conda"), b.pkg(site, "h5py", "3.1.0", "", installer="conda")],
            plugins=[b.plugin_file(site)],
            runtime=b.runtime_ok(py, "2.5.0", metal_site=site, memory_growth=None,
                                 stderr=parts.bare_banner("Apple M1", "2021-06-20 15:02:44"))))


def fastestimator_guide(b: Any, parts: Any) -> None:
    py = b.miniforge("3.8.16", f"{HOME}/miniforge3", "femos38")
    parts.conda_records(py, parts.tensorflow_deps("2.10.0", "1.23.2"))
    site = b.site_of(py)
    b.scenario(
        "healthy_m1_tfmacos2110_metal071_fastestimator",
        title="FastEstimator's macOS guide: tensorflow-deps 2.10.0, tensorflow-macos 2.11.0 + tensorflow-metal 0.7.1",
        source="fastestimator/fastestimator installation_docs/mac_installation.md",
        basis="The project's macOS installation guide ('how to install FastEstimator on MacOS starting from a brand "
              "new machine'): `conda create -n femos38 python=3.8`, `conda install -c apple "
              "tensorflow-deps==2.10.0 -y`, `pip install tensorflow-macos==2.11.0`, `pip install "
              "tensorflow-metal==0.7.1`, then torch 2.0.0 and jupyterlab. tensorflow-metal 0.7.1 (uploaded "
              "2023-02-07) is a patch release of 0.7.0, the table's v2.11 plugin, named by no row (issue 11 class "
              "1). Assumed: an M1, Miniforge Python 3.8.16, macOS 13.2.1; keras 2.11.0 and numpy 1.23.2 (pip "
              "keeps tensorflow-deps' numpy: 2.11 asks numpy>=1.20). Static facts only.",
        expected=[], healthy=True,
        snapshot=b.snapshot(
            b.mac("Apple M1", "13.2.1", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.11.0", "3.8", "arm64"), b.metal(site, "0.7.1", "3.8"),
             b.plain(site, "keras", "2.11.0"), b.pkg(site, "numpy", "1.23.2", "", installer="conda"),
             b.plain(site, "protobuf", "3.19.6", "cp38-cp38-macosx_10_9_universal2"),
             b.pkg(site, "torch", "2.0.0", "cp38-none-macosx_11_0_arm64")],
            plugins=[b.plugin_file(site)]))

