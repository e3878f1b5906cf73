"""Failures of architecture: Rosetta 2 routes, Intel conda, wheels of the other architecture (issue 11
corpus).

Conventions (sources, assumptions, expectations, Keras' optimizer lines): see report_parts.py.
"""

from __future__ import annotations

from typing import Any

HOME = "/Users/ada"


def add(b: Any, parts: Any) -> None:
    for build in (conda_osx64_poetry, conda_osx64_mlep, rosetta_shell_fork, arch_prefix_fork,
                  pyorg388_tfjs, pyorg310_x86_tf28, fork_wrong_arch, anaconda_intel_tf211,
                  pyorg385_tf24):
        build(b, parts)


def conda_osx64_poetry(b: Any, parts: Any) -> None:
    py = b.miniforge("3.10.9", f"{HOME}/opt/miniconda3", "env-tf-poet-3.10", subdir="osx-64", arch="x86_64",
                     translated=True)
    site = b.site_of(py)
    b.scenario(
        "conda_osx64_miniconda_tensorflow_deps_not_found",
        title="Mac mini, Miniconda in ~/opt/miniconda3: `conda install -c apple tensorflow-deps` -> PackagesNotFoundError (channels osx-64)",
        source="dstalzjohn/py-poetry-m1#1",
        basis="py-poetry-m1#1 (2023-03-09): on 'Roberts-Mac-mini', `conda install -y -c apple tensorflow-deps` in env "
              "env-tf-poet-3.10 fails with PackagesNotFoundError; the current channels are "
              "https://conda.anaconda.org/apple/osx-64, conda-forge/osx-64, repo.anaconda.com/pkgs/main/osx-64 "
              "(an Intel conda, running under Rosetta; tensorflow-deps exists for osx-arm64 only, reference "
              "tensorflow_deps); conda info: /Users/bob/opt/miniconda3 (the Intel installer's default place). "
              "The env has Python and no TensorFlow. Assumed: an M1, macOS 13.2.1, Python 3.10.9.",
        expected=["arch.conda-osx-64"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "13.2.1", 16, translated=True), py,
            [b.pkg(site, "pip", "22.3.1", "", installer="conda"),
             b.pkg(site, "setuptools", "65.6.3", "", installer="conda")],
            runtime=b.module_not_found(py)))


def conda_osx64_mlep(b: Any, parts: Any) -> None:
    py = b.miniforge("3.11.0", f"{HOME}/anaconda3", "mlep", subdir="osx-64", arch="x86_64", translated=True)
    site = b.site_of(py)
    b.scenario(
        "conda_osx64_anaconda_no_tensorflow_macos",
        title="Anaconda for Intel on an M1: no tensorflow-deps, and pip finds no tensorflow-macos",
        source="https-deeplearning-ai/machine-learning-engineering-for-production-public#70",
        basis="#70 (2022-11-05): `conda install -c apple tensorflow-deps` -> PackagesNotFoundError with channels "
              "apple/osx-64, conda-forge/osx-64, pkgs/main/osx-64; `python -m pip install tensorflow-macos` -> 'from "
              "versions: none'; resolved by installing Miniforge for arm64 ('tensorflow doesn't work on M1 chips "
              "with the old anaconda'). 'from versions: none' for an x86_64 Python means one without any "
              "tensorflow-macos x86_64 wheel: Python 3.11 (x86_64 wheels end at cp310 for 2.9-2.11, reference). "
              "Assumed: Python 3.11.0 in an env 'mlep', macOS 13.0.",
        expected=["arch.conda-osx-64"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "13.0", 8, translated=True), py,
            [b.pkg(site, "pip", "22.2.2", "", installer="conda")],
            runtime=b.module_not_found(py)))


def rosetta_shell_fork(b: Any, parts: Any) -> None:
    py = parts.fork_python(translated=True)
    site = b.site_of(py)
    doc = b.snapshot(
        b.mac("Apple M1", "11.4", 16, translated=True),
        py, [parts.fork_pkg(site, "x86_64"), b.numpy(site, "1.18.5", "3.8", "x86_64")],
        runtime=b.runtime_signal(py, "SIGILL"))
    doc = parts.with_shell(doc, parent={"pid": 7301, "executable": "/bin/zsh", "translated": True,
                                        "format": "mach-o-fat", "archs": ["x86_64", "arm64e"]})
    b.scenario(
        "universal2_rosetta_shell_tensorflow_macos_fork",
        title="A universal2 Python started from a Rosetta terminal (`uname -m` says x86_64): SIGILL importing TensorFlow",
        source="apple/tensorflow_macos#65",
        basis="tensorflow_macos#65 (2020-12-17): 'are you running your terminal in arm64 mode? ... uname -m' prints "
              "arm64 in the native terminal and x86_64 in the Rosetta one; `file $(which python)` of the venv: "
              "'Mach-O universal binary with 2 architectures: [x86_64] [arm64]' (the Command Line Tools' Python "
              "3.8.2); from the native terminal `import tensorflow` works (2.4.0-rc0), from the Rosetta one it "
              "dies with SIGILL. The parent shell runs translated (issue 11 class 6: recorded as shell.parent where "
              "the model has it). Assumed: the fork's x86_64 wheel (its installer picks the machine arch it sees), "
              "macOS 11.4 (the thread's Big Sur release is not given).",
        expected=["arch.universal2-as-x86"], snapshot=doc)


def arch_prefix_fork(b: Any, parts: Any) -> None:
    py = parts.fork_python(translated=True)
    site = b.site_of(py)
    b.scenario(
        "universal2_arch_x86_64_prefix_tensorflow_macos_fork",
        title="`arch -x86_64 python`: the universal2 Python runs its Intel slice, 'zsh: illegal hardware instruction'",
        source="apple/tensorflow_macos#69",
        basis="tensorflow_macos#69 (2020-12-14): with the first alpha 'I was able to install tf using the `arch "
              "-x86_64` prefix'; with the new update, importing tf ends in 'zsh: illegal hardware instruction  "
              "arch -x86_64 python' (the x86_64 build uses AVX, which Rosetta 2 lacks). The venv's python is the "
              "universal2 Command Line Tools 3.8.2 started as x86_64 by `arch`. Assumed: an M1 on macOS 11.4.",
        expected=["arch.universal2-as-x86"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.4", 16, translated=True), py,
            [parts.fork_pkg(site, "x86_64"), b.numpy(site, "1.18.5", "3.8", "x86_64")],
            runtime=b.runtime_signal(py, "SIGILL")))


def pyorg388_tfjs(b: Any, parts: Any) -> None:
    base = "/Library/Frameworks/Python.framework/Versions/3.8"
    py = b.python("3.8.8", f"{base}/bin/python3.8", base, binary=f"{base}/Resources/Python.app/Contents/MacOS/Python",
                  archs=["x86_64"], process_arch="x86_64", translated=True, framework="Python",
                  platform_tag="macosx-10.9-x86_64")
    site = b.site_of(py)
    b.scenario(
        "x86_only_pythonorg_388_tfjs_converter",
        title="python.org 3.8.8 (Intel only) on an M1: tfjs-graph-converter's TensorFlow dies, 'zsh: illegal hardware instruction'",
        source="patlevin/tfjs-to-tf#33",
        basis="tfjs-to-tf#33 (2021-03-16): 'zsh: illegal hardware instruction' running the converter on a MacBook "
              "Pro M1 with python 3.8.8; the maintainer: the x86 TensorFlow is known to fail on the M1 (AVX under "
              "Rosetta). python.org's 3.8 installers are x86_64-only (universal2 builds start with 3.9.1). "
              "Assumed: tensorflow 2.4.1 (pip's x86_64 wheel then), macOS 11.4.",
        expected=["arch.x86-only-interpreter"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.4", 16, translated=True), py,
            [b.pkg(site, "tensorflow", "2.4.1", "cp38-cp38-macosx_10_11_x86_64",
                   b.requires("tensorflow", "2.4.1", "x86_64"), b.macho("x86_64", b.TF_LIB)),
             b.plain(site, "tfjs-graph-converter", "1.4.2", requires_dist=["tensorflow>=2.1"]),
             b.numpy(site, "1.19.5", "3.8", "x86_64")],
            env={}, runtime=b.runtime_signal(py, "SIGILL")))


def pyorg310_x86_tf28(b: Any, parts: Any) -> None:
    py = b.pyorg_universal2("3.10.4", None)
    site = b.site_of(py)
    text = (f"dlopen({site}/tensorflow/python/_pywrap_tensorflow.so, 0x000A): tried: "
            f"'{site}/tensorflow/python/_pywrap_tensorflow.so' (mach-o file, but is an incompatible architecture "
            "(have 'x86_64', need 'arm64e'))")
    b.scenario(
        "wheel_arch_mismatch_x86_tf28_pyorg310",
        title="python.org 3.10 (universal2, run natively): an x86_64 TensorFlow in its site-packages",
        source="tensorflow/tensorflow#55450",
        basis="#55450 (2022-03-31): `import tensorflow` from /Library/Frameworks/Python.framework/Versions/3.10 "
              "fails in pywrap_tensorflow.py with 'dlopen(.../site-packages/tensorflow/python/_pywrap_tensorflow.so, "
              "0x000A): tried: ... (mach-o file, but is an incompatible architecture'. In March 2022 no arm64 "
              "tensorflow wheel existed, so the installed one is the Intel wheel (installed by an x86_64 pip). "
              "Assumed: tensorflow 2.8.0 (cp310 macosx_10_14_x86_64), an M1 on macOS 12.3.1, the '(have 'x86_64', "
              "need 'arm64e'))' tail as #57483 quotes it.",
        expected=["arch.wheel-mismatch"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "12.3.1", 8), py,
            [b.pkg(site, "tensorflow", "2.8.0", "cp310-cp310-macosx_10_14_x86_64",
                   ["numpy>=1.20", "keras<2.9,>=2.8.0rc0", "protobuf>=3.9.2", "h5py>=2.9.0"],
                   b.macho("x86_64", "tensorflow/python/_pywrap_tensorflow.so")),
             b.plain(site, "keras", "2.8.0"), b.numpy(site, "1.22.3", "3.10")],
            env={},
            runtime=b.runtime_import_error(
                py, "ImportError", text,
                [f"{site}/tensorflow/python/__init__.py:61 in <module>",
                 f"{site}/tensorflow/python/pywrap_tensorflow.py:28 in <module>"])))


def fork_wrong_arch(b: Any, parts: Any) -> None:
    py = parts.fork_python(translated=False)
    site = b.site_of(py)
    lib = f"{site}/tensorflow/python/_pywrap_tensorflow_internal.so"
    text = (f"dlopen({lib}, 6): no suitable image found.  Did find:\n\t{lib}: mach-o, but wrong architecture\n"
            f"\t{lib}: mach-o, but wrong architecture")
    b.scenario(
        "wheel_arch_mismatch_fork_x86_in_native_venv",
        title="Apple's 2020 fork: the x86_64 build installed, then imported natively ('mach-o, but wrong architecture')",
        source="apple/tensorflow_macos#146; apple/tensorflow_macos#8",
        basis="tensorflow_macos#146 (2021-02-01): `uname -m` arm64 in the terminal and in the venv, yet `import "
              "tensorflow` raises 'ImportError: dlopen(.../tensorflow_macos_venv/lib/python3.8/site-packages/"
              "tensorflow/python/_pywrap_tensorflow_internal.so, 6): no suitable image found. Did find: ...: "
              "mach-o, but wrong architecture' (the same in #8 on an M1 MacBook Air): the venv holds the fork's "
              "x86_64 wheel, installed from a Rosetta session. Assumed: the venv's interpreter is the universal2 "
              "Command Line Tools 3.8.2 (the fork's default), macOS 11.4.",
        expected=["arch.wheel-mismatch"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.4", 16), py, [parts.fork_pkg(site, "x86_64"), b.numpy(site, "1.18.5", "3.8", "x86_64")],
            runtime=b.runtime_import_error(py, "ImportError", text,
                                           [f"{site}/tensorflow/python/pywrap_tensorflow.py:64 in <module>"])))


def anaconda_intel_tf211(b: Any, parts: Any) -> None:
    py = b.miniforge("3.9.12", f"{HOME}/opt/anaconda3", None, subdir="osx-64", arch="x86_64", translated=True)
    site = b.site_of(py)
    b.scenario(
        "conda_osx64_anaconda_base_tf2110_sigill",
        title="M2, Python 3.9.12, tensorflow 2.11.0: 'zsh: illegal hardware instruction'",
        source="tensorflow/tensorflow#59663",
        basis="#59663 (2023-02-13): macOS 13.1 (22C65) on a Mac M2, Python 3.9.12, pip list with tensorflow 2.11.0, "
              "tensorflow-estimator 2.11.0, tensorboard 2.11.2, tensorflow-io-gcs-filesystem 0.29.0; running "
              "ends in 'zsh: illegal hardware instruction'; the maintainer points to Apple's arm64 "
              "Miniconda/Miniforge route. No arm64 tensorflow 2.11 wheel exists (reference: official arm64 wheels "
              "from 2.13), so this is the x86_64 wheel in an x86_64 Python: Python 3.9.12 is Anaconda 2022.05's, "
              "assumed here as the Intel installer's base env in ~/opt/anaconda3 (conda subdir osx-64) under Rosetta.",
        expected=["arch.conda-osx-64"],
        snapshot=b.snapshot(
            b.mac("Apple M2", "13.1", 16, translated=True), py,
            [b.pkg(site, "tensorflow", "2.11.0", "cp39-cp39-macosx_10_14_x86_64",
                   b.requires("tensorflow", "2.11.0", "x86_64"), b.macho("x86_64", b.TF_LIB)),
             b.plain(site, "keras", "2.11.0"), b.plain(site, "tensorboard", "2.11.2"),
             b.plain(site, "tensorflow-estimator", "2.11.0"),
             b.pkg(site, "numpy", "1.21.5", "", installer="conda")],
            runtime=b.runtime_signal(py, "SIGILL")))


def pyorg385_tf24(b: Any, parts: Any) -> None:
    base = "/Library/Frameworks/Python.framework/Versions/3.8"
    prefix = f"{HOME}/venv"
    py = b.python("3.8.5", f"{prefix}/bin/python", prefix, base_prefix=base,
                  binary=f"{base}/Resources/Python.app/Contents/MacOS/Python", archs=["x86_64"],
                  process_arch="x86_64", translated=True, framework="Python", platform_tag="macosx-10.9-x86_64")
    site = b.site_of(py)
    b.scenario(
        "x86_only_pythonorg_385_tf240_venv",
        title="M1 on Big Sur 11.0.1: TensorFlow's pip instructions with Python 3.8.5, 'illegal hardware instruction'",
        source="tensorflow/tensorflow#46178",
        basis="#46178 (2021-01-05): MacOS Big Sur 11.0.1, Python 3.8.5, TensorFlow 'Latest stable (pip)' installed "
              "'exactly like in the instruction' of tensorflow.org/install/pip (a venv), the verification one-liner "
              "`python -c \"import tensorflow as tf;print(tf.reduce_sum(tf.random.normal([1000, 1000])))\"` ends in "
              "'illegal hardware instruction'; the same steps work on the reporter's Intel Macs. pip's latest then: "
              "tensorflow 2.4.0, x86_64 only (AVX). Assumed: the python.org 3.8.5 installer, which is x86_64-only "
              "(universal2 builds start with 3.9.1), so Python and TensorFlow run under Rosetta 2.",
        expected=["arch.x86-only-interpreter"],
        snapshot=b.snapshot(
            b.mac("Apple M1", "11.0.1", 16, translated=True), py,
            [b.pkg(site, "tensorflow", "2.4.0", "cp38-cp38-macosx_10_11_x86_64",
                   b.requires("tensorflow", "2.4.0", "x86_64"), b.macho("x86_64", b.TF_LIB)),
             b.numpy(site, "1.19.5", "3.8", "x86_64")],
            runtime=b.runtime_signal(py, "SIGILL")))
