"""Snapshot parts the second corpus (the reports_*.py modules) needs beyond build.py's:
more macOS releases, TensorFlow pins of older releases, and facts the collector gathers since
issue 11 (conda-meta records, the parent shell, the Pythons on PATH), added only where the
snapshot model has the field, so that these builders also run against an older model.

Pins are copied from ../shared/reference/tf_wheels_2026-11.json (records[].key_pins).

Conventions of every reports_*.py module: Each builder names its source and, in `basis`, what the source quotes and what had to be assumed
(versions a thread leaves out are the ones pip installed at the thread's date, and say so); facts
the snapshot model has no field for are named there as missing. Working setups must draw no
warning and no error; a failure's expected_root_causes[0] is the cause its thread established.
tfdoctor's runtime child builds keras.optimizers.Adam() to provoke Keras' M1/M2 optimizer lines, so
Keras 2.11-2.15 runs carry them (tf-keras#46 quotes them), whatever the user's own script did.
`add(b, parts)` is called by build.py with build.py itself and report_parts.py."""

from __future__ import annotations

import dataclasses
from typing import Any

from tfdoctor.facts import snapshot as snapshot_model

DARWIN_MORE = {"11.0.1": "20.1.0", "11.4": "20.5.0", "11.6": "20.6.0", "12.1": "21.2.0",
               "12.3.1": "21.4.0", "12.6.1": "21.6.0", "13.0.1": "22.1.0", "13.1": "22.2.0", "13.0": "22.1.0", "13.2.1": "22.3.0", "13.5": "22.6.0",
               "14.1": "23.1.0", "14.3.1": "23.3.0", "14.4": "23.4.0", "14.7": "23.6.0",
               "15.4": "24.4.0", "15.7": "24.6.0", "26.1": "25.1.0"}
"""uname -r (Darwin kernel) of the further macOS releases used here."""

REQUIRES_MORE = {
    ("tensorflow-macos", "2.5.0"): ["numpy~=1.19.2", "h5py~=3.1.0", "protobuf>=3.9.2",
                                    "tensorboard~=2.5", "keras-nightly~=2.5.0.dev", "grpcio~=1.34.0"],
    ("tensorflow-macos", "2.7.0"): ["numpy>=1.14.5", "h5py>=2.9.0", "protobuf>=3.9.2",
                                    "tensorboard~=2.6", "keras<2.8,>=2.7.0rc0"],
    ("tensorflow-macos", "2.9.1"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf<3.20,>=3.9.2",
                                    "tensorboard<2.10,>=2.9", "keras<2.10.0,>=2.9.0rc0"],
    ("tensorflow-macos", "2.11.0"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf<3.20,>=3.9.2",
                                     "tensorboard<2.12,>=2.11", "keras<2.12,>=2.11.0"],
    # tensorflow-macos 2.16.2 is a reverse shim: on Darwin/arm64 it only requires tensorflow
    ("tensorflow-macos", "2.16.2"): ['tensorflow==2.16.2; platform_system == "Darwin" and platform_machine == "arm64"',
                                     'tensorflow-intel==2.16.2; platform_system == "Windows"'],
    ("tensorflow", "2.21.0"): ["protobuf<8.0.0,>=6.31.1", "keras>=3.12.0", "numpy>=1.26.0",
                               "h5py<3.15.0,>=3.11.0", "ml-dtypes<1.0.0,>=0.5.1"],
    ("tensorflow", "2.4.1", "x86_64"): ["numpy~=1.19.2", "h5py~=2.10.0", "protobuf>=3.9.2",
                                        "tensorboard~=2.4", "grpcio~=1.32.0"],
    ("tensorflow", "2.4.0", "x86_64"): ["numpy~=1.19.2", "h5py~=2.10.0", "protobuf>=3.9.2",
                                        "tensorboard~=2.4", "grpcio~=1.32.0"],
    ("tensorflow", "2.11.0", "x86_64"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf<3.20,>=3.9.2",
                                         "tensorboard<2.12,>=2.11", "keras<2.12,>=2.11.0"],
}
"""Requires-Dist (the pins that matter) of releases build.py's table lacks. The Intel macOS
tensorflow 2.11.0 wheel shares setup.py with tensorflow-macos 2.11.0, whose pins the reference
records; tensorflow 2.4.x's are r2.4's setup.py as quoted in tensorflow/tensorflow#48237
(numpy ~=1.19.2) with its h5py/grpcio pins."""

THIN_MORE = {("tensorflow-macos", "2.16.2", "arm64")}

INTERNAL_BY_PYTHON = {
    ("tensorflow-metal", "0.1.1", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.1.1", "cp38", "x86_64"): "macosx_12_0_universal2",
    ("tensorflow-metal", "0.1.2", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.1.2", "cp38", "x86_64"): "macosx_12_0_x86_64",
    ("tensorflow-metal", "0.2.0", "cp39", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.3.0", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.3.0", "cp39", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.4.0", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.4.0", "cp39", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.5.1", "cp39", "arm64"): "macosx_13_0_universal2",
    ("tensorflow-metal", "0.5.1", "cp310", "arm64"): "macosx_13_0_arm64",
    ("tensorflow-metal", "0.7.1", "cp38", "arm64"): "macosx_12_0_x86_64",
    ("tensorflow-metal", "1.0.1", "cp38", "arm64"): "macosx_13_0_arm64",
    ("tensorflow-macos", "2.5.0", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-macos", "2.5.0", "cp39", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-macos", "2.5.0", "cp38", "x86_64"): "macosx_12_0_universal2",
    ("tensorflow-macos", "2.6.0", "cp39", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-macos", "2.7.0", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-macos", "2.7.0", "cp39", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-macos", "2.8.0", "cp38", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-macos", "2.8.0", "cp39", "arm64"): "macosx_12_0_arm64",
}
"""WHEEL `Tag:` lines of the wheels used here, per Python tag, where they differ from the file name
(reference records[].wheel_internal_tags: e.g. tensorflow-metal 0.7.1's arm64 wheels say x86_64,
0.5.1's cp39 arm64 wheel says universal2). The collector records these, so snapshots carry them."""


def extend(b: Any) -> None:
    """Make build.py's tables know the releases used by the second corpus. build.py's own table of
    internal tags ignores the Python tag; the second corpus (built after the first) uses the
    per-Python table above through a wrapper of build.wheel_tag."""
    b.DARWIN.update({k: v for k, v in DARWIN_MORE.items() if k not in b.DARWIN})
    for key, pins in REQUIRES_MORE.items():
        b.REQUIRES.setdefault(key, pins)
    b.THIN.update(THIN_MORE)
    by_name = b.wheel_tag

    def wheel_tag(dist: str, version: str, py: str, arch: str) -> str:
        cp = "cp" + py.replace(".", "")
        plat = INTERNAL_BY_PYTHON.get((dist, version, cp, arch))
        return f"{cp}-{cp}-{plat}" if plat else by_name(dist, version, py, arch)

    b.wheel_tag = wheel_tag


def _has_field(cls: type, name: str) -> bool:
    return name in {f.name for f in dataclasses.fields(cls)}


def conda_records(py: dict[str, Any], records: list[tuple[str, str, str, str]]) -> None:
    """conda-meta/*.json records (name, version, build, channel URL with subdir) of a conda env:
    the apple channel's tensorflow-deps has no dist-info, so only these show it."""
    if not py.get("conda") or not _has_field(snapshot_model.CondaFacts, "packages"):
        return
    py["conda"]["packages"] = [
        {"name": name, "version": version, "build": build, "channel": channel.rsplit("/", 1)[0],
         "subdir": channel.rsplit("/", 1)[1]} for name, version, build, channel in records]


def with_shell(doc: dict[str, Any], *, parent: dict[str, Any] | None = None,
               pythons: list[dict[str, Any]] = ()) -> dict[str, Any]:
    """Add the parent process and the Pythons on PATH to a built snapshot document."""
    if not _has_field(snapshot_model.Snapshot, "shell"):
        return doc
    doc = dict(doc)
    doc["shell"] = {"parent": parent, "pythons_on_path": list(pythons)}
    return snapshot_model.Snapshot.from_dict(doc).to_dict()


def with_target(doc: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Set target fields (chosen_by, tool_env...) that exist in the model; others are dropped."""
    known = {k: v for k, v in fields.items() if _has_field(snapshot_model.TargetOutcome, k)}
    if not known:
        return doc
    doc = dict(doc)
    doc["target"] = {**doc["target"], **known}
    return snapshot_model.Snapshot.from_dict(doc).to_dict()


APPLE = "https://conda.anaconda.org/apple/osx-arm64"
FORGE = "https://conda.anaconda.org/conda-forge/osx-arm64"


def tensorflow_deps(version: str, numpy: str) -> list[tuple[str, str, str, str]]:
    """What `conda install -c apple tensorflow-deps==VERSION` records in conda-meta: the metapackage
    from the apple channel and the numpy it brought from conda-forge (the version each scenario
    states or assumes). Build strings are left empty: no source gives them."""
    return [("tensorflow-deps", version, "", APPLE), ("numpy", numpy, "", FORGE)]


# --- log lines and packages several reports quote -------------------------------------------------

HOME = "/Users/ada"
NOT_FOUND = "tensorflow.python.framework.errors_impl.NotFoundError"
OPT_LEGACY_214 = "keras.src.optimizers.legacy.adam.Adam"
"""What keras.optimizers.Adam() falls back to on M1/M2 with Keras 2.13-2.15 (keras/src/optimizers/legacy)."""
OPT_LEGACY_212 = "keras.optimizers.legacy.adam.Adam"
NUMA = ("{when}.516523: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:305] "
        "Could not identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have been "
        "built with NUMA support.")
CREATED = ("{when}.516871: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:271] "
           "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) -> "
           "physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)")


def plugin_line(when: str, line: int = 114) -> str:
    """'Plugin optimizer for device_type GPU is enabled.' (registry.cc:113 in 2.8-2.9, :114 in
    2.12-2.13, :117 from 2.14, as the threads quote it)."""
    return (f"{when}.557603: I tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.cc:{line}] "
            "Plugin optimizer for device_type GPU is enabled.")


def bare_banner(device: str, when: str, memory: str | None = None, cache: str | None = None) -> list[str]:
    """The start-up lines of tensorflow-metal before 1.0, printed without a logger prefix."""
    lines = [f"Metal device set to: {device}", ""]
    if memory:
        lines += [f"systemMemory: {memory}", f"maxCacheSize: {cache}", ""]
    return lines + [NUMA.format(when=when), CREATED.format(when=when)]


def init_tb(site: str, line: int = 437) -> list[str]:
    """Where TensorFlow loads tensorflow-plugins/ at import (tensorflow/__init__.py)."""
    return [f"{site}/tensorflow/__init__.py:{line} in <module>",
            f"{site}/tensorflow/python/framework/load_library.py:151 in load_library"]


def fork_python(translated: bool) -> dict[str, Any]:
    """The Command Line Tools' Python 3.8.2 (universal2) and the fork's venv ~/tensorflow_macos_venv."""
    clt = "/Library/Developer/CommandLineTools/Library/Frameworks/Python3.framework/Versions/3.8"
    prefix = f"{HOME}/tensorflow_macos_venv"
    return {"version": "3.8.2", "implementation": "cpython", "executable": f"{prefix}/bin/python",
            "prefix": prefix, "base_prefix": clt, "process_arch": "x86_64" if translated else "arm64",
            "pointer_bits": 64, "translated": translated,
            "binary": {"path": f"{clt}/bin/python3.8", "format": "mach-o-fat", "archs": ["x86_64", "arm64"]},
            "framework": "Python3", "conda": None, "platform_tag": "macosx-11-universal2",
            "site_packages": [f"{prefix}/lib/python3.8/site-packages"]}


def fork_pkg(site: str, arch: str) -> dict[str, Any]:
    """Apple's 2020 fork (TensorFlow r2.4rc0) as installed from its tarball: distribution tensorflow_macos,
    version as the alpha wheels are named (mwidjaja1/DSOnMacARM#3 quotes
    tensorflow_macos-0.1a0-cp38-cp38-macosx_11_0_arm64.whl); its Requires-Dist is assumed to carry
    TensorFlow 2.4's pins (numpy~=1.19.2, as the maintainer quotes in tensorflow/tensorflow#48237)."""
    return {"name": "tensorflow-macos", "version": "0.1a1", "location": f"{site}/tensorflow_macos-0.1a1.dist-info",
            "wheel_tags": [f"cp38-cp38-macosx_11_0_{arch}"],
            "requires_dist": ["numpy~=1.19.2", "h5py~=2.10.0", "protobuf>=3.9.2", "grpcio~=1.32.0"],
            "installer": "pip", "binaries": [{"path": "tensorflow/python/_pywrap_tensorflow_internal.so",
                                              "format": "mach-o", "archs": [arch]}]}


def conda_prefix_env(b: Any, version: str, root: str, prefix: str, *, subdir: str = "osx-arm64",
                     arch: str = "arm64") -> dict[str, Any]:
    """A conda environment made with `conda create --prefix DIR` (not under ROOT/envs)."""
    minor = ".".join(version.split(".")[:2])
    return b.python(version, f"{prefix}/bin/python", prefix, binary=f"{prefix}/bin/python{minor}",
                    archs=[arch], process_arch=arch, translated=False,
                    platform_tag="macosx-11.0-arm64" if arch == "arm64" else "macosx-10.9-x86_64",
                    conda={"prefix": prefix, "root": root, "subdir": subdir})
