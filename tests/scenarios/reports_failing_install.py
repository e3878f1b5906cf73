"""Failures of installation and dependencies: no TensorFlow, two TensorFlows, pins (issue 11 corpus).

Conventions (sources, assumptions, expectations, Keras' optimizer lines): see report_parts.py.
"""

from __future__ import annotations

from typing import Any

HOME = "/Users/ada"



def add(b: Any, parts: Any) -> None:
    for build in (py312_nothing_installed, py312_mldtypes, text_pulls_tensorflow, fork_numpy120,
                  py311_april2023, dreambooth_751, keras300_with_tf214, cellfinder_requires_tensorflow):
        build(b, parts)


def py312_nothing_installed(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.12.3", f"{HOME}/apple-silicon/.venv")
    site = b.site_of(py)
    b.scenario(
        "no_tensorflow_py312_metal_resolution_failed",
        title="Python 3.12 (May 2024): `pip install tensorflow tensorflow-macos tensorflow-metal` fails, nothing is installed",
        source="svpino/apple-silicon#1",
        basis="apple-silicon#1 (2024-05-24): `pip install tensorflow tensorflow-macos tensorflow-metal` -> 'No "
              "matching distribution found for tensorflow-metal'; a commenter: 'Using latest Python (3.12) I got "
              "the error for tensorflow-metal' (no cp312 wheel before 1.2.0). pip resolves all or nothing, so the "
              "venv has no TensorFlow and `import tensorflow` raises ModuleNotFoundError. Today tensorflow-metal "
              "1.2.0 has cp312 wheels, so the fix is a working pair for this Python. Assumed: python.org 3.12.3, "
              "an M2, macOS 14.5.",
        expected=["install.no-tensorflow"],
        snapshot=b.snapshot(
            b.mac("Apple M2", "14.5", 16), py,
            [b.plain(site, "pip", "24.0"), b.plain(site, "wheel", "0.43.0")],
            runtime=b.module_not_found(py)))


def py312_mldtypes(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.12.3", f"{HOME}/apple-silicon/.venv312")
    site = b.site_of(py)
    b.scenario(
        "pin_violation_mldtypes020_tf2161_py312",
        title="Python 3.12: tensorflow 2.16.1 with ml-dtypes 0.2.0 (pinned by jax-metal's recipe), and no Metal plugin",
        source="svpino/apple-silicon#2",
        basis="apple-silicon#2 (2024-05-28): 'python 3.12 not supported with tensorflow-metal as well ml_dtypes==0.2.0 "
              "is not supported: tensorflow 2.16.1 requires ml-dtypes~=0.3.1, but you have ml-dtypes 0.2.0 which "
              "is incompatible.' The repository's recipe pins `ml_dtypes==0.2.0` for jax-metal. ml-dtypes is one of "
              "the pins TensorFlow's import depends on, so the pin violation is the error; the missing plugin "
              "(none had cp312 then) comes second. Assumed: python.org 3.12.3, an M2, macOS 14.5, Keras 3.3.3. "
              "Static facts only.",
        expected=["compat.pin-violation"],
        snapshot=b.snapshot(
            b.mac("Apple M2", "14.5", 16), py,
            [b.tensorflow(site, "tensorflow", "2.16.1", "3.12", "arm64"), b.plain(site, "keras", "3.3.3"),
             b.numpy(site, "1.26.4", "3.12"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp312-cp312-macosx_10_9_universal2"),
             b.plain(site, "jax", "0.4.26"), b.plain(site, "h5py", "3.11.0", "cp312-cp312-macosx_11_0_arm64")]))


def text_pulls_tensorflow(b: Any, parts: Any) -> None:
    base = f"{HOME}/anaconda3"
    prefix = f"{HOME}/tensorflow-metal"
    py = b.python("3.8.5", f"{prefix}/bin/python", prefix, base_prefix=base, binary=f"{base}/bin/python3.8",
                  archs=["x86_64"], process_arch="x86_64", translated=None, platform_tag="macosx-10.9-x86_64")
    site = b.site_of(py)
    b.scenario(
        "two_tensorflows_text_pulls_tensorflow250",
        title="pip install tensorflow_text beside tensorflow-macos 2.5.0: pip adds tensorflow 2.5.0 over it",
        source="tensorflow/text#654",
        basis="text#654 (2021-07-13, Intel iMac with an AMD Radeon Pro 5700 XT, Big Sur): in the venv "
              "~/tensorflow-metal (Python 3.8) with tensorflow-macos and tensorflow-metal working, `pip install "
              "tensorflow_text` collects tensorflow_text-2.5.0-cp38-cp38-macosx_10_9_x86_64.whl and, because it "
              "requires the distribution name `tensorflow<2.6,>=2.5.0` that tensorflow-macos does not provide, "
              "tensorflow-2.5.0-cp38-cp38-macosx_10_11_x86_64.whl and tensorflow-hub 0.12.0: a second "
              "TensorFlow over the first (issue 11 class 5). Assumed: tensorflow-metal 0.1.1, macOS 11.4, numpy "
              "1.19.5. Static facts only.",
        expected=["install.multiple-tensorflow"],
        snapshot=b.snapshot(
            b.intel_mac("Intel(R) Core(TM) i9-10910 CPU @ 3.60GHz", "11.4", 32), py,
            [b.tensorflow(site, "tensorflow-macos", "2.5.0", "3.8", "x86_64"),
             b.pkg(site, "tensorflow", "2.5.0", "cp38-cp38-macosx_10_11_x86_64",
                   ["numpy~=1.19.2", "h5py~=3.1.0", "protobuf>=3.9.2", "keras-nightly~=2.5.0.dev", "grpcio~=1.34.0"],
                   b.macho("x86_64", b.TF_LIB)),
             b.pkg(site, "tensorflow-text", "2.5.0", "cp38-cp38-macosx_10_9_x86_64",
                   ["tensorflow<2.6,>=2.5.0", "tensorflow-hub>=0.8.0"]),
             b.plain(site, "tensorflow-hub", "0.12.0"), b.metal(site, "0.1.1", "3.8", "x86_64"),
             b.numpy(site, "1.19.5", "3.8", "x86_64")],
            plugins=[b.plugin_file(site, "x86_64")]))


def fork_numpy120(b: Any, parts: Any) -> None:
    py = b.miniforge("3.8.8", f"{HOME}/miniforge3", "tf24")
    site = b.site_of(py)
    b.scenario(
        "pin_violation_numpy120_tensorflow_macos_fork",
        title="Apple's TensorFlow 2.4 fork in Miniforge with NumPy 1.20.1: outside its numpy~=1.19.2 pin",
        source="tensorflow/tensorflow#48237; apple/tensorflow_macos#220",
        basis="#48237 (2021-04): 'The new Apple M1 MLcompute Tensorflow2.4 not compatible with Numpy1.20.1'; the "
              "maintainer: TF 2.4 bounds numpy to ~=1.19.2 ('>=1.19.2 and < 1.20'); #220: pip could not build "
              "numpy 1.19 on the M1, `conda install numpy=1.19.5` fixed it. Assumed: the fork's arm64 wheel "
              "(tensorflow_macos 0.1a1), a Miniforge Python 3.8.8 environment (the fork's wheels are cp38 only; "
              "#153's recipe made one with python=3.8), numpy 1.20.1 from conda-forge, macOS 11.4. "
              "Static facts only.",
        expected=["compat.pin-violation"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.4", 16), py,
            [parts.fork_pkg(site, "arm64"), b.pkg(site, "numpy", "1.20.1", "", installer="conda")]))


def py311_april2023(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.11.2", f"{HOME}/venvs/tf311")
    site = b.site_of(py)
    b.scenario(
        "no_tensorflow_py311_april2023",
        title="M2, Python 3.11 (April 2023): neither tensorflow nor tensorflow-macos has a wheel, nothing is installed",
        source="tensorflow/tensorflow#60256",
        basis="#60256 (2023-04-06): 'pip install tensorflow -> ERROR: Could not find a version that satisfies the "
              "requirement tensorflow (from versions: none)', the same for tensorflow-macos, on a Mac M2 with Python "
              "3.11 (tf-nightly's 2.1 kB arm64 shim installs). No TensorFlow is installed; today TensorFlow and "
              "tensorflow-metal both have cp311 arm64 wheels, so the fix installs a working pair. Assumed: "
              "python.org 3.11.2 in a venv, macOS 13.3.",
        expected=["install.no-tensorflow"],
        snapshot=b.snapshot(
            b.mac("Apple M2", "13.3", 16), py,
            [b.plain(site, "pip", "23.0.1"), b.plain(site, "setuptools", "65.5.0")],
            runtime=b.module_not_found(py)))


def dreambooth_751(b: Any, parts: Any) -> None:
    prefix = f"{HOME}/stable-diffusion-webui/venv"
    base = "/opt/homebrew/opt/python@3.10/Frameworks/Python.framework/Versions/3.10"
    py = b.python("3.10.9", f"{prefix}/bin/python", prefix, base_prefix=base, binary=f"{base}/bin/python3.10",
                  archs=["arm64"], process_arch="arm64", translated=False, framework="Python",
                  platform_tag="macosx-13-arm64")
    site = b.site_of(py)
    b.scenario(
        "no_tensorflow_webui_requires_tensorflow_2110",
        title="Stable Diffusion web UI's Dreambooth extension on an M1 Ultra: 'No module named tensorflow'",
        source="d8ahazard/sd_dreambooth_extension#751; d8ahazard/sd_dreambooth_extension#801",
        basis="#751 (January 2023): 'No module named tensorflow' on M1 Macs; an M1 Ultra on Ventura 13.1 confirms "
              "the fix: in the extension's requirements.txt replace `tensorflow==2.11.0` with "
              "`tensorflow-macos==2.11.0` (no tensorflow 2.11 wheel exists for macOS arm64, reference "
              "tf_minor_table: official arm64 wheels start at 2.13), then `./venv/bin/pip install "
              "tensorflow-macos`; PR #801 adds the platform markers. The web UI's venv has torch and the "
              "extension's other requirements, no TensorFlow. Assumed: Homebrew Python 3.10.9, torch 1.13.1.",
        expected=["install.no-tensorflow"],
        snapshot=b.snapshot(
            b.mac("Apple M1 Ultra", "13.1", 64), py,
            [b.pkg(site, "torch", "1.13.1", "cp310-none-macosx_11_0_arm64"),
             b.plain(site, "accelerate", "0.15.0"), b.plain(site, "diffusers", "0.10.2"),
             b.plain(site, "transformers", "4.25.1"), b.numpy(site, "1.23.5", "3.10")],
            runtime=b.module_not_found(py)))


def keras300_with_tf214(b: Any, parts: Any) -> None:
    py = b.miniforge("3.10.13", f"{HOME}/miniforge3", "keras3")
    parts.conda_records(py, parts.tensorflow_deps("2.10.0", "1.23.2"))
    site = b.site_of(py)
    b.scenario(
        "pin_violation_keras300_tfmacos2140",
        title="Keras 3.0.0 installed over tensorflow-macos 2.14.0 (conda env with the apple channel's tensorflow-deps)",
        source="keras-team/keras#19009",
        basis="keras#19009 ('Different behaviors on mac M1', 2024-01-04): conda list with tensorflow 2.14.0 (pypi), "
              "tensorflow-deps 2.10.0 (apple), tensorflow-macos 2.14.0, tensorflow-metal 1.1.0 and keras 3.0.0; "
              "the maintainer: 'Use latest Tensorflow 2.15 and Keras 3.0.2 which is compatible'. tensorflow-macos "
              "2.14.0 requires keras<2.15,>=2.14.0 (reference), so Keras 3.0.0 breaks TensorFlow's own pin. "
              "Assumed: Miniforge Python 3.10.13, an M1 on macOS 14.2, numpy 1.26.2. Static facts only. Its code "
              "since 2026-11-29 is compat.keras3, which names a Keras 3 beside TensorFlow 2.6-2.15 (before: "
              "compat.pin-violation; the same fix, keras~=2.14.0).",
        expected=["compat.keras3"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "14.2", 16), py,
            [b.tensorflow(site, "tensorflow", "2.14.0", "3.10", "arm64"),
             b.tensorflow(site, "tensorflow-macos", "2.14.0", "3.10", "arm64"), b.metal(site, "1.1.0", "3.10"),
             b.plain(site, "keras", "3.0.0"), b.numpy(site, "1.26.2", "3.10"),
             b.plain(site, "ml-dtypes", "0.2.0", "cp310-cp310-macosx_10_9_universal2")],
            plugins=[b.plugin_file(site)]))


def cellfinder_requires_tensorflow(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.10", f"{HOME}/miniforge3", "cellfinder")
    parts.conda_records(py, parts.tensorflow_deps("2.8.0", "1.22.3"))
    site = b.site_of(py)
    b.scenario(
        "requires_tensorflow_name_cellfinder_core",
        title="cellfinder-core requires `tensorflow` on an M1 where TensorFlow is tensorflow-macos 2.8 (installed --no-deps)",
        source="brainglobe/cellfinder-core#28 (quoting https://developer.apple.com/forums/thread/701656)",
        basis="cellfinder-core#28 (2022-03): the package required `tensorflow`, unsatisfiable on Apple silicon where "
              "TensorFlow 2.8 is the distribution tensorflow-macos; an Apple engineer (forums thread 701656): 'a lot "
              "of the packages that check for Tensorflow do it against the package name reserved for the baseline "
              "TensorFlow called tensorflow, whereas the TensorFlow package on MacOS is tensorflow-macos'; the PR "
              "switches the dependency on macOS arm64. Before it, users installed it with --no-deps beside "
              "tensorflow-macos, leaving a requirement on `tensorflow` that the next upgrade would satisfy with a "
              "second TensorFlow (issue 11 class 5). Assumed: cellfinder-core 0.2.8 requiring "
              "'tensorflow>=2.5.0', Miniforge Python 3.9.10, tensorflow-deps 2.8.0, tensorflow-metal 0.4.0, "
              "macOS 12.3. Static facts only.",
        expected=["install.requires-tensorflow-name"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "12.3.1", 16), py,
            [b.tensorflow(site, "tensorflow-macos", "2.8.0", "3.9", "arm64"), b.metal(site, "0.4.0", "3.9"),
             b.plain(site, "keras", "2.8.0"), b.pkg(site, "numpy", "1.22.3", "", installer="conda"),
             b.plain(site, "cellfinder-core", "0.2.8", requires_dist=["tensorflow>=2.5.0", "numpy", "scikit-image"])],
            plugins=[b.plugin_file(site)]))

