#!/usr/bin/env python3
"""Assemble the scenario corpus: one JSON file per real situation, with its expected diagnosis.

    python tests/scenarios/build.py            # (re)write tests/scenarios/*.json
    python tests/scenarios/build.py --check    # exit 1 when a file differs from what this builds

Every scenario below names its public source and says which of its facts the snapshot encodes
(`basis`). Values come from what the threads quote (platform.machine(), pip lists, paths, error
texts, log lines), from tests/facts/mac_facts.json and from the registry facts in
../shared/reference/tf_wheels_2026-11.json (wheel tags, Requires-Dist pins); they are never copied
from tfdoctor's output, and `expected_root_causes` is decided from the situation and the code docs
(`tfdoctor explain CODE`), not by running tfdoctor.

The snapshot documents are what `tfdoctor collect` writes: the builders give the facts, and the
model (tfdoctor.facts.snapshot.Snapshot) fills in every field, so each file validates against
`tfdoctor schema snapshot`. Runtime facts are assembled the way the parent process assembles them
from the child: TensorFlow's stderr (quoted) is read by tfdoctor.logtext.stderr, the same reader a real
run uses; outcome, stage and the child's result fields are written here by hand.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.inside.shared import probe_stats
from tfdoctor.logtext import stderr

HERE = Path(__file__).resolve().parent
SCENARIOS: dict[str, dict[str, Any]] = {}
KEYS = ("title", "source", "basis", "expected_root_causes", "healthy", "snapshot")
REFERENCE = "../shared/reference/tf_wheels_2026-11.json"


def scenario(name: str, *, title: str, source: str, basis: str, expected: list[str],
             snapshot: dict[str, Any], healthy: bool = False) -> None:
    assert name not in SCENARIOS, name
    assert healthy == (not expected), name
    SCENARIOS[name] = {"title": title, "source": source, "basis": basis,
                       "expected_root_causes": list(expected), "healthy": healthy,
                       "snapshot": snapshot}


# =============================================================================================
# wheels: platform tags and the pins TensorFlow declares (reference records, markers evaluated
# for the arch named)

# WHEEL `Tag:` lines that differ from the wheel's file name (reference wheel_internal_tags):
# the collector records the installed WHEEL file, so a real snapshot carries these.
INTERNAL_PLATFORM = {
    ("tensorflow-metal", "0.5.0", "arm64"): "macosx_12_0_arm64",
    ("tensorflow-metal", "0.7.0", "arm64"): "macosx_12_0_x86_64",
    ("tensorflow-metal", "0.8.0", "arm64"): "macosx_13_0_arm64",
    ("tensorflow-metal", "1.0.0", "arm64"): "macosx_13_0_arm64",
    ("tensorflow-metal", "1.1.0", "arm64"): "macosx_11_0_arm64",
    ("tensorflow-macos", "2.8.0", "x86_64"): "macosx_12_0_x86_64",
    ("tensorflow-macos", "2.10.0", "arm64"): "macosx_11_0_arm64",
    ("tensorflow-macos", "2.11.0", "arm64"): "macosx_11_0_x86_64",
    ("tensorflow-macos", "2.12.0", "arm64"): "macosx_12_0_x86_64",
}


def filename_platform(dist: str, version: str, arch: str) -> str:
    """The platform tag in the wheel's file name (reference records' platform_tags)."""
    major_minor = tuple(int(x) for x in version.split(".")[:2])
    if dist == "tensorflow-metal":
        return f"macosx_{11 if major_minor <= (0, 5) and version != '0.5.1' else 12}_0_{arch}"
    if dist == "tensorflow-macos":
        return f"macosx_{11 if major_minor <= (2, 9) else 12}_0_{arch}"
    if dist == "tensorflow" and arch == "x86_64":
        return "macosx_10_15_x86_64"  # tensorflow 2.12-2.16 Intel wheels
    return f"macosx_12_0_{arch}"       # tensorflow 2.13+ arm64 wheels


def wheel_tag(dist: str, version: str, py: str, arch: str) -> str:
    cp = "cp" + py.replace(".", "")
    plat = INTERNAL_PLATFORM.get((dist, version, arch)) or filename_platform(dist, version, arch)
    return f"{cp}-{cp}-{plat}"


# Requires-Dist of TensorFlow releases, reduced to the pins that matter here (numpy, keras,
# protobuf, h5py, ml-dtypes, tensorboard, the shims' targets); copied from the reference records.
PROTOBUF_4 = "protobuf!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<5.0.0dev,>=3.20.3"
PROTOBUF_5 = "protobuf!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<6.0.0dev,>=3.20.3"
NUMPY_216 = ['numpy<2.0.0,>=1.23.5; python_version <= "3.11"',
             'numpy<2.0.0,>=1.26.0; python_version >= "3.12"']
REQUIRES = {
    ("tensorflow-macos", "2.8.0"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf>=3.9.2",
                                    "tensorboard<2.9,>=2.8", "keras<2.9,>=2.8.0rc0"],
    ("tensorflow-macos", "2.9.0"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf>=3.9.2",
                                    "tensorboard<2.10,>=2.9", "keras<2.10.0,>=2.9.0rc0"],
    ("tensorflow-macos", "2.9.2"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf<3.20,>=3.9.2",
                                    "tensorboard<2.10,>=2.9", "keras<2.10.0,>=2.9.0rc0"],
    ("tensorflow-macos", "2.10.0"): ["h5py>=2.9.0", "numpy>=1.20", "protobuf<3.20,>=3.9.2",
                                     "tensorboard<2.11,>=2.10", "keras<2.11,>=2.10.0"],
    ("tensorflow-macos", "2.12.0"): ["h5py>=2.9.0", "numpy<1.24,>=1.22", PROTOBUF_4,
                                     "tensorboard<2.13,>=2.12", "keras<2.13,>=2.12.0"],
    ("tensorflow-macos", "2.13.0"): ["h5py>=2.9.0", "numpy<=1.24.3,>=1.22", PROTOBUF_4,
                                     "tensorboard<2.14,>=2.13", "keras<2.14,>=2.13.1"],
    ("tensorflow-macos", "2.14.0"): ["h5py>=2.9.0", "ml-dtypes==0.2.0", "numpy>=1.23.5", PROTOBUF_4,
                                     "tensorboard<2.15,>=2.14", "keras<2.15,>=2.14.0"],
    ("tensorflow-macos", "2.15.0"): ["h5py>=2.9.0", "ml-dtypes~=0.2.0", "numpy<2.0.0,>=1.23.5",
                                     PROTOBUF_4, "tensorboard<2.16,>=2.15", "keras<2.16,>=2.15.0"],
    # the 2 KB self-shim: on Darwin/arm64 its only requirement is itself
    ("tensorflow-macos", "2.15.1"): [
        'tensorflow-macos==2.15.1; platform_system == "Darwin" and platform_machine == "arm64"',
        'tensorflow-cpu-aws==2.15.1; platform_system == "Linux" and (platform_machine == "arm64" or platform_machine == "aarch64")',
        'tensorflow-intel==2.15.1; platform_system == "Windows"'],
    # tensorflow 2.13-2.15 arm64 wheels: thin shims onto tensorflow-macos
    ("tensorflow", "2.13.0", "arm64"): [
        'tensorflow-macos==2.13.0; platform_system == "Darwin" and platform_machine == "arm64"',
        'tensorflow-cpu-aws==2.13.0; platform_system == "Linux" and (platform_machine == "arm64" or platform_machine == "aarch64")',
        'tensorflow-intel==2.13.0; platform_system == "Windows"'],
    ("tensorflow", "2.14.0", "arm64"): [
        'tensorflow-macos==2.14.0; platform_system == "Darwin" and platform_machine == "arm64"',
        'tensorflow-cpu-aws==2.14.0; platform_system == "Linux" and (platform_machine == "arm64" or platform_machine == "aarch64")',
        'tensorflow-intel==2.14.0; platform_system == "Windows"'],
    ("tensorflow", "2.15.0", "arm64"): [
        'tensorflow-macos==2.15.0; platform_system == "Darwin" and platform_machine == "arm64"',
        'tensorflow-cpu-aws==2.15.0; platform_system == "Linux" and (platform_machine == "arm64" or platform_machine == "aarch64")',
        'tensorflow-intel==2.15.0; platform_system == "Windows"'],
    ("tensorflow", "2.13.1", "x86_64"): ["h5py>=2.9.0", "numpy<=1.24.3,>=1.22", PROTOBUF_4,
                                         "tensorboard<2.14,>=2.13", "keras<2.14,>=2.13.1"],
    ("tensorflow", "2.15.0", "x86_64"): ["h5py>=2.9.0", "ml-dtypes~=0.2.0", "numpy<2.0.0,>=1.23.5",
                                         PROTOBUF_4, "tensorboard<2.16,>=2.15", "keras<2.16,>=2.15.0"],
    ("tensorflow", "2.16.1"): ["h5py>=3.10.0", "ml-dtypes~=0.3.1", PROTOBUF_4,
                               "tensorboard<2.17,>=2.16", "keras>=3.0.0", *NUMPY_216],
    ("tensorflow", "2.16.2"): ["h5py>=3.10.0", "ml-dtypes~=0.3.1", PROTOBUF_4,
                               "tensorboard<2.17,>=2.16", "keras>=3.0.0", *NUMPY_216],
    ("tensorflow", "2.17.0"): ["h5py>=3.10.0", "ml-dtypes<0.5.0,>=0.3.1", PROTOBUF_4,
                               "tensorboard<2.18,>=2.17", "keras>=3.2.0", *NUMPY_216],
    ("tensorflow", "2.17.1"): ["h5py>=3.10.0", "ml-dtypes<0.5.0,>=0.3.1", PROTOBUF_4,
                               "tensorboard<2.18,>=2.17", "keras>=3.2.0", *NUMPY_216],
    ("tensorflow", "2.18.0"): [PROTOBUF_5, "tensorboard<2.19,>=2.18", "keras>=3.5.0",
                               "numpy<2.1.0,>=1.26.0", "h5py>=3.11.0", "ml-dtypes<0.5.0,>=0.4.0"],
    ("tensorflow", "2.18.1"): [PROTOBUF_5, "tensorboard<2.19,>=2.18", "keras>=3.5.0",
                               "numpy<2.1.0,>=1.26.0", "h5py>=3.11.0", "ml-dtypes<1.0.0,>=0.4.0"],
    ("tensorflow", "2.19.0"): [PROTOBUF_5, "tensorboard~=2.19.0", "keras>=3.5.0",
                               "numpy<2.2.0,>=1.26.0", "h5py>=3.11.0", "ml-dtypes<1.0.0,>=0.5.1"],
    ("tensorflow", "2.19.1"): [PROTOBUF_5, "tensorboard~=2.19.0", "keras>=3.5.0",
                               "numpy<2.2.0,>=1.26.0", "h5py>=3.11.0", "ml-dtypes<1.0.0,>=0.5.1"],
    ("tensorflow", "2.20.0"): ["protobuf>=5.28.0", "tensorboard~=2.20.0", "keras>=3.10.0",
                               "numpy>=1.26.0", "h5py>=3.11.0", "ml_dtypes<1.0.0,>=0.5.1"],
}
METAL_REQUIRES = ["wheel~=0.35", "six>=1.15.0"]
"""tensorflow-metal's whole Requires-Dist: no tensorflow, no Requires-Python (reference)."""


def requires(dist: str, version: str, arch: str) -> list[str]:
    return list(REQUIRES.get((dist, version, arch)) or REQUIRES.get((dist, version)) or [])


# =============================================================================================
# snapshot parts


def pkg(site: str, name: str, version: str, tag: str, requires_dist: list[str] = (),
        binaries: list[dict] = (), installer: str = "pip") -> dict[str, Any]:
    """One installed distribution as the collector reads it from its dist-info."""
    dirname = f"{name.replace('-', '_')}-{version}.dist-info"
    return {"name": name, "version": version, "location": f"{site}/{dirname}",
            "wheel_tags": [tag] if tag else [], "requires_dist": list(requires_dist),
            "installer": installer, "binaries": list(binaries)}


def macho(arch: str, *paths: str) -> list[dict[str, Any]]:
    return [{"path": p, "format": "mach-o", "archs": [arch]} for p in paths]


def elf(arch: str, *paths: str) -> list[dict[str, Any]]:
    return [{"path": p, "format": "elf", "archs": [arch]} for p in paths]


TF_LIB = "tensorflow/python/_pywrap_tensorflow_internal.so"
NUMPY_LIB = "numpy/core/_multiarray_umath.cpython-{cp}-darwin.so"


THIN = {("tensorflow", "2.13.0", "arm64"), ("tensorflow", "2.14.0", "arm64"),
        ("tensorflow", "2.15.0", "arm64"), ("tensorflow-macos", "2.15.1", "arm64")}
"""Wheels without code: the arm64 tensorflow 2.13-2.15 shims onto tensorflow-macos (reference
thin_wheel), and the tensorflow-macos 2.15.1 self-shim."""


def tensorflow(site: str, dist: str, version: str, py: str, arch: str) -> dict[str, Any]:
    """A TensorFlow distribution (tensorflow or tensorflow-macos) from its macOS wheel."""
    libs = [] if (dist, version, arch) in THIN else macho(arch, TF_LIB)
    return pkg(site, dist, version, wheel_tag(dist, version, py, arch),
               requires(dist, version, arch), libs)


def metal(site: str, version: str, py: str, arch: str = "arm64") -> dict[str, Any]:
    return pkg(site, "tensorflow-metal", version, wheel_tag("tensorflow-metal", version, py, arch),
               METAL_REQUIRES, macho(arch, "tensorflow-plugins/libmetal_plugin.dylib"))


def plain(site: str, name: str, version: str, tag: str = "py3-none-any", *,
          requires_dist: list[str] = ()) -> dict[str, Any]:
    return pkg(site, name, version, tag, requires_dist)


def numpy(site: str, version: str, py: str, arch: str = "arm64") -> dict[str, Any]:
    cp = "cp" + py.replace(".", "")
    if arch == "x86_64":
        plat = "macosx_10_9_x86_64"
    elif version.startswith("2."):
        plat = "macosx_14_0_arm64"   # numpy 2 arm64 wheels are built against Accelerate (macOS 14)
    else:
        plat = "macosx_11_0_arm64"
    core = "_core" if version.startswith("2.") else "core"
    lib = f"numpy/{core}/_multiarray_umath.{cp_ext(cp)}-darwin.so"
    return pkg(site, "numpy", version, f"{cp}-{cp}-{plat}", binaries=macho(arch, lib))


def cp_ext(cp: str) -> str:
    return "cpython-" + cp[2:]


def plugin_file(site: str, arch: str = "arm64") -> dict[str, Any]:
    """tensorflow-metal's site-packages/tensorflow-plugins/libmetal_plugin.dylib (Mach-O)."""
    return {"dir": f"{site}/tensorflow-plugins", "name": "libmetal_plugin.dylib",
            "format": "mach-o", "archs": [arch], "size": 3_124_416}


# --- hosts ----------------------------------------------------------------------------------

ROSETTA_FEATURES = ("FPU VME DE PSE TSC MSR PAE MCE CX8 APIC SEP MTRR PGE MCA CMOV PAT PSE36 CLFSH "
                    "DS ACPI MMX FXSR SSE SSE2 SS HTT TM PBE SSE3 PCLMULQDQ DTSE64 MON DSCPL VMX EST "
                    "TM2 SSSE3 CX16 TPR PDCM SSE4.1 SSE4.2 AES SEGLIM64")
"""machdep.cpu.features in a Rosetta 2 process (pola-rs/polars#11654, quoted from a Rosetta
Terminal): x86 features without AVX; the collector lowercases them and turns '.' into '_'."""

DARWIN = {"12.0.1": "21.1.0", "12.4": "21.5.0", "12.5.1": "21.6.0", "12.6": "21.6.0",
          "13.1": "22.2.0", "13.3": "22.4.0", "13.4": "22.5.0", "13.5.2": "22.6.0", "13.6": "22.6.0",
          "14.2": "23.2.0", "14.3": "23.3.0", "14.4.1": "23.4.0", "14.5": "23.5.0",
          "14.6": "23.6.0", "15.0.1": "24.0.0", "15.1": "24.1.0", "15.1.1": "24.1.0",
          "15.2": "24.2.0", "15.3": "24.3.0", "15.5": "24.5.0", "15.6": "24.6.0",
          "15.6.1": "24.6.0", "12.5": "21.6.0"}
"""uname -r (Darwin kernel) of each macOS release used below."""

GB = 2 ** 30


def mac(chip: str, macos: str, memory_gb: int, *, translated: bool = False,
        reported: str | None = None) -> dict[str, Any]:
    """An Apple-silicon Mac. hw.optional.arm64 stays 1 under Rosetta (Comfy-Org/comfy-cli#568,
    Homebrew/brew#7995); the chip comes from the native sysctl binary; a translated process sees
    Rosetta's x86 feature list (no AVX) and, per GuillaumeGomez/sysinfo#497, still the Apple brand."""
    features = sorted({f.lower().replace(".", "_") for f in ROSETTA_FEATURES.split()}) if translated else []
    return {"system": "Darwin", "release": DARWIN[macos], "macos_version": macos,
            "macos_version_reported": reported or macos, "hw_arm64": True, "chip": chip,
            "cpu_brand": chip, "cpu_flags": features, "memory_bytes": memory_gb * GB}


def intel_mac(brand: str, macos: str, memory_gb: int) -> dict[str, Any]:
    flags = sorted("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clfsh "
                   "ds acpi mmx fxsr sse sse2 ss htt tm pbe sse3 pclmulqdq dtes64 mon dscpl vmx est "
                   "tm2 ssse3 fma cx16 tpr pdcm sse4_1 sse4_2 x2apic movbe popcnt aes pcid xsave "
                   "osxsave seglim64 tsctmr avx1_0 rdrand f16c avx2 bmi1 bmi2".split())
    return {"system": "Darwin", "release": DARWIN[macos], "macos_version": macos,
            "macos_version_reported": macos, "hw_arm64": False, "chip": brand, "cpu_brand": brand,
            "cpu_flags": flags, "memory_bytes": memory_gb * GB}


ARM_FEATURES = ("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm "
                "jscvt fcma lrcpc dcpop sha3 asimddp sha512 asimdfhm dit uscat ilrcpc flagm ssbs")
"""/proc/cpuinfo 'Features' inside a linux/amd64 container on an M1 (docker/for-mac#5485)."""


def docker_on_apple(release: str, memory_gb: int) -> dict[str, Any]:
    """Docker Desktop's Linux VM on Apple silicon, seen from a container: /proc/cpuinfo has no
    'model name', arm64 'Features', and 'CPU implementer : 0x00' (docker/for-mac#6512)."""
    return {"system": "Linux", "release": release, "cpu_brand": None,
            "cpu_flags": sorted(ARM_FEATURES.split()), "cpu_implementer": "0x00",
            "memory_bytes": memory_gb * GB, "container": "docker", "binfmt_handlers": None}


# --- interpreters ---------------------------------------------------------------------------


def python(version: str, executable: str, prefix: str, *, base_prefix: str | None = None,
           binary: str, archs: list[str], process_arch: str, translated: bool | None,
           framework: str | None = None, platform_tag: str, conda: dict | None = None,
           fmt: str | None = None) -> dict[str, Any]:
    minor = ".".join(version.split(".")[:2])
    site = f"{prefix}/lib/python{minor}/site-packages"
    return {"version": version, "implementation": "cpython", "executable": executable,
            "prefix": prefix, "base_prefix": base_prefix or prefix, "process_arch": process_arch,
            "pointer_bits": 64, "translated": translated,
            "binary": {"path": binary, "format": fmt or ("mach-o-fat" if len(archs) > 1 else "mach-o"),
                       "archs": archs},
            "framework": framework, "conda": conda, "platform_tag": platform_tag,
            "site_packages": [site]}


def site_of(py: dict[str, Any]) -> str:
    return py["site_packages"][0]


def pyorg_universal2(version: str, venv: str | None, *, translated: bool = False) -> dict[str, Any]:
    """A python.org 'macOS 64-bit universal2' framework build (arm64 + x86_64 slices), in a venv."""
    minor = ".".join(version.split(".")[:2])
    base = f"/Library/Frameworks/Python.framework/Versions/{minor}"
    prefix = venv or base
    return python(version, f"{prefix}/bin/python{'' if venv else minor}", prefix, base_prefix=base,
                  binary=f"{base}/Resources/Python.app/Contents/MacOS/Python",
                  archs=["x86_64", "arm64"], process_arch="x86_64" if translated else "arm64",
                  translated=translated, framework="Python", platform_tag="macosx-10.9-universal2")


def miniforge(version: str, root: str, env: str | None, *, subdir: str = "osx-arm64",
              arch: str = "arm64", translated: bool = False) -> dict[str, Any]:
    """A conda environment (Miniforge/Miniconda/Anaconda); subdir from conda-meta/python-*.json."""
    prefix = f"{root}/envs/{env}" if env else root
    minor = ".".join(version.split(".")[:2])
    return python(version, f"{prefix}/bin/python", prefix, binary=f"{prefix}/bin/python{minor}",
                  archs=[arch], process_arch=arch, translated=translated,
                  platform_tag="macosx-11.0-arm64" if arch == "arm64" else "macosx-10.9-x86_64",
                  conda={"prefix": prefix, "root": root, "subdir": subdir})


def env_for(py: dict[str, Any], **extra: str) -> dict[str, str]:
    """The environment variables the collector keeps (VIRTUAL_ENV, CONDA_*, TF_*...)."""
    env: dict[str, str] = {}
    if py.get("conda"):
        env["CONDA_PREFIX"] = py["prefix"]
        env["CONDA_DEFAULT_ENV"] = py["prefix"].rsplit("/", 1)[-1] if "/envs/" in py["prefix"] else "base"
    elif py["prefix"] != py["base_prefix"]:
        env["VIRTUAL_ENV"] = py["prefix"]
    env.update(extra)
    return dict(sorted(env.items()))


def snapshot(host: dict[str, Any], py: dict[str, Any] | None, packages: list[dict], *,
             plugins: list[dict] = (), env: dict[str, str] | None = None,
             runtime: dict | None = None, probes: dict | None = None) -> dict[str, Any]:
    """A full snapshot document: every field the model has, defaults filled in by the model."""
    data = {"schema_version": 1,
            "target": {"python": py["executable"] if py else "python3", "ok": True},
            "host": host, "python": py, "packages": packages, "plugins": list(plugins),
            "env": env if env is not None else (env_for(py) if py else {}),
            "runtime": runtime, "probes": probes}
    return Snapshot.from_dict(data).to_dict()


# --- runtime facts (what the parent makes of the runtime child) ------------------------------

DEV = "/job:localhost/replica:0/task:0/device:"


def metal_banner(chip: str, memory: str = "16.00 GB", cache: str = "5.33 GB", *,
                 prefixed: bool = True, when: str = "2025-03-14 10:02:11") -> list[str]:
    """tensorflow-metal's start-up lines. Newer plugins log them through TensorFlow's logger with
    metal_plugin/src/device/metal_device.cc prefixes (92berra/Selfstudy, 2024); older ones print
    them bare (tensorflow/tensorflow#50196). Then TensorFlow's PluggableDevice lines (#50196)."""
    if prefixed:
        lines = [f"{when}.031989: I metal_plugin/src/device/metal_device.cc:1154] Metal device set to: {chip}",
                 f"{when}.032223: I metal_plugin/src/device/metal_device.cc:296] systemMemory: {memory}",
                 f"{when}.032239: I metal_plugin/src/device/metal_device.cc:313] maxCacheSize: {cache}"]
    else:
        lines = [f"Metal device set to: {chip}", "", f"systemMemory: {memory}", f"maxCacheSize: {cache}", ""]
    return lines + [
        f"{when}.032275: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:305] "
        "Could not identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have "
        "been built with NUMA support.",
        f"{when}.032295: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:271] "
        "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) -> "
        "physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)",
    ]


PLUGIN_OPTIMIZER = ("2025-03-14 10:02:13.213540: I tensorflow/core/grappler/optimizers/"
                    "custom_graph_optimizer_registry.cc:114] Plugin optimizer for device_type GPU is enabled.")
"""Logged when a tf.function first runs on the Metal device (the probes' training step)."""

STAGE_TIMES = {"started": 0.02, "importing": 0.03, "imported": 2.4, "memory-growth": 2.41,
               "devices": 2.45, "placement": 2.9, "memory-info": 2.91, "keras": 3.2, "done": 3.2}


def keras3(version: str, tf_keras: str | None = None, legacy_env: str | None = None) -> dict[str, Any]:
    """tf.keras under TensorFlow 2.16+: Keras 3 unless TF_USE_LEGACY_KERAS and tf-keras."""
    return {"version": version, "tf_keras_version": tf_keras, "tf_keras_module": "keras._tf_keras.keras",
            "tf_keras_resolved_version": version, "is_keras3": True, "use_legacy_keras": legacy_env}


KERAS29_ADAM = "keras.optimizers.optimizer_v2.adam.Adam"
"""Class of keras.optimizers.Adam() in Keras 2.x before 2.11 (keras/optimizers/optimizer_v2/adam.py)."""


def keras2(version: str, optimizer: str) -> dict[str, Any]:
    """tf.keras before TensorFlow 2.16: the keras 2.x distribution; `optimizer` is the class
    keras.optimizers.Adam() built (the child builds it to provoke Keras' M1/M2 warning)."""
    return {"version": version, "tf_keras_module": "keras.api._v2.keras",
            "tf_keras_resolved_version": version, "is_keras3": False, "default_optimizer": optimizer}


def parsed(text: str) -> dict[str, Any]:
    """What tfdoctor.logtext.stderr reads from `text` (stderr, or an exception's message), as plain data."""
    return typed.to_plain(stderr.parse(text))


def runtime_ok(py: dict[str, Any], tf_version: str, *, gpu: bool = True, metal_site: str | None = None,
               stderr: list[str] = (), keras: dict | None = None, gpu_placed_on: str = "GPU:0",
               memory_growth: bool | None = True, memory_growth_error: str | None = None,
               git_version: str | None = None, import_s: float = 2.4, probes_ran: bool = False,
               env: dict[str, str] | None = None) -> dict[str, Any]:
    """The child imported TensorFlow and finished every stage."""
    devices = [{"name": "/physical_device:CPU:0", "device_type": "CPU"}]
    logical = [{"name": "/device:CPU:0", "device_type": "CPU"}]
    placements = [{"requested": "/CPU:0", "device": DEV + "CPU:0", "correct": True}]
    if gpu:
        devices.append({"name": "/physical_device:GPU:0", "device_type": "GPU",
                        "details": {"device_name": "METAL"}, "memory_growth": memory_growth,
                        "memory_growth_error": memory_growth_error})
        logical.append({"name": "/device:GPU:0", "device_type": "GPU"})
        placements.append({"requested": "/GPU:0", "device": DEV + gpu_placed_on, "correct": True})
    plugins = ([{"path": f"{metal_site}/tensorflow-plugins/libmetal_plugin.dylib",
                 "source": "tensorflow-plugins", "exists": True, "size": 3_124_416}]
               if metal_site else [])
    text = "\n".join(stderr) + ("\n" if stderr else "")
    stages = dict(STAGE_TIMES)
    if probes_ran:
        stages.update({"probes": 3.2, "done": 9.6})
    else:
        stages.pop("probes", None)
    return {"outcome": "ok", "message": f"TensorFlow {tf_version} imported in {import_s:.1f} s",
            "stage": "done", "duration_s": stages["done"] + 0.3, "timeout_s": 60.0 + (12.0 if probes_ran else 0.0),
            "returncode": 0, "python": py["executable"], "import_s": import_s, "stage_s": stages,
            "tf_version": tf_version, "tf_git_version": git_version,
            "tf_file": f"{site_of(py)}/tensorflow/__init__.py",
            "physical_devices": devices, "logical_devices": logical, "placements": placements,
            "keras": keras, "plugins": plugins, "env": env or {},
            "log": parsed(text), "stderr_tail": text, "stderr_bytes": len(text.encode())}


def runtime_import_error(py: dict[str, Any], exc_type: str, message: str, traceback: list[str], *,
                         stderr: list[str] = (), chain: list[str] = (),
                         metal_site: str | None = None) -> dict[str, Any]:
    """`import tensorflow` raised in the child (which still wrote its result and exited 0);
    the parent reads the message and its chain with tfdoctor.logtext.stderr, as tfdoctor.gather.runtime does."""
    events = parsed("\n".join([message, *chain]))["events"]
    plugins = ([{"path": f"{metal_site}/tensorflow-plugins/libmetal_plugin.dylib",
                 "source": "tensorflow-plugins", "exists": True, "size": 3_124_416}]
               if metal_site else [])
    text = "\n".join(stderr) + ("\n" if stderr else "")
    short = exc_type.rsplit(".", 1)[-1]
    first = next(line.strip() for line in message.splitlines() if line.strip())[:300]
    return {"outcome": "import-error", "message": f"import tensorflow raised {short}: {first}",
            "stage": "importing", "duration_s": 1.9, "timeout_s": 60.0, "returncode": 0,
            "python": py["executable"], "stage_s": {"started": 0.02, "importing": 0.03},
            "import_error": {"type": exc_type, "message": message, "traceback": traceback,
                             "chain": list(chain), "events": events},
            "plugins": plugins, "log": parsed(text), "stderr_tail": text,
            "stderr_bytes": len(text.encode())}


SIGNALS = {"SIGILL": -4, "SIGABRT": -6, "SIGSEGV": -11}


def runtime_signal(py: dict[str, Any], signal: str, *, stderr: list[str] = (),
                   stage: str = "importing") -> dict[str, Any]:
    """The child was killed by a signal while importing TensorFlow."""
    text = "\n".join(stderr) + ("\n" if stderr else "")
    return {"outcome": "signal", "message": f"killed by {signal} while importing TensorFlow",
            "stage": stage, "duration_s": 1.4, "timeout_s": 60.0, "returncode": SIGNALS[signal],
            "signal": signal, "python": py["executable"],
            "stage_s": {"started": 0.02, "importing": 0.03}, "log": parsed(text),
            "stderr_tail": text, "stderr_bytes": len(text.encode())}


def module_not_found(py: dict[str, Any]) -> dict[str, Any]:
    """`import tensorflow` with no tensorflow package on sys.path."""
    return runtime_import_error(py, "ModuleNotFoundError", "No module named 'tensorflow'",
                                ["<string>:1 in <module>"])


# --- probe facts ----------------------------------------------------------------------------

CONV_FLOPS = 2.0 * 64 * 64 * 64 * 9 * 32                       # per sample (workloads.Conv)
TRAIN_FLOPS = 3.0 * (2.0 * 32 * 32 * 32 * 9 * 3 + 2.0 * 16 * 16 * 64 * 9 * 32 + 2.0 * 8 * 8 * 64 * 10)
TOLERANCE = {"matmul": 1e-4, "conv": 1e-3, "train": 1e-3}


def _shape(workload: str, n: int) -> tuple[str, float, int | None]:
    if workload == "matmul":
        return f"{n}x{n} @ {n}x{n} float32", 2.0 * n ** 3, None
    if workload == "conv":
        return f"NHWC {n}x64x64x32 * 3x3x32x64 SAME float32", CONV_FLOPS * n, n
    return f"batch {n} of 32x32x3, 10 classes; Adam", TRAIN_FLOPS * n, n


def probe_run(workload: str, device: str, size: int, per_call_ms: list[float], *, role: str = "main",
              placed_on: str | None = None, error: float | None = 2e-7, optimizer: str | None = None,
              loss: tuple[float, float] = (2.31, 2.27)) -> dict[str, Any]:
    """One measurement: `per_call_ms` are the repeats (ms per call); agreement `error` is the
    relative L2 error against the CPU (GPU runs only)."""
    shape, flops, samples = _shape(workload, size)
    per = [v / 1e3 for v in per_call_ms]
    number = max(1, int(round(0.05 / per[0])))
    stats = probe_stats.summary(per)
    placed = DEV + (placed_on or device)
    timing = {"number": number, "repeats_s": [p * number for p in per], "per_call_s": per,
              "warmup_s": [per[0] * 40, per[0] * 1.1], "first_call_s": per[0] * 40,
              "readback_s": 4e-5, "calibration": [[number, per[0] * number]],
              "repeat_target_s": 0.05, "budget_limited": False, **stats}
    inputs = {"a": DEV + device, "b": DEV + device} if workload == "matmul" else (
        {"input": DEV + device, "filter": DEV + device} if workload == "conv" else
        {"x": DEV + device, "y": DEV + device})
    placement = ({"conv1": placed, "relu1": placed, "pool1": placed, "conv2": placed, "relu2": placed,
                  "pool2": placed, "flatten": placed, "dense": placed} if workload == "train"
                 else {"output": placed})
    run = {"workload": workload, "device": device, "size": size, "role": role, "shape": shape,
           "flops": flops, "samples": samples, "inputs": inputs, "placed_on": placed,
           "on_device": (placed_on or device) == device, "placement": placement, "timing": timing,
           "gflops": flops / stats["median_s"] / 1e9,
           "samples_per_s": samples / stats["median_s"] if samples else None,
           "duration_s": round(sum(timing["repeats_s"]) + sum(timing["warmup_s"]) + 0.05, 4)}
    if workload == "train":
        run.update({"optimizer": optimizer or "keras.src.optimizers.adam.Adam",
                    "loss_first": loss[0], "loss_last": loss[1], "loss_finite": True})
    if device.startswith("GPU"):
        values = {"output": error} if workload != "train" else {
            "logits": error, "gradients": error, "loss": error}
        run["agreement"] = {"reference": "CPU:0", "metric": "relative L2 error", "values": values,
                            "tolerance": TOLERANCE[workload],
                            "ok": error is not None and error <= TOLERANCE[workload], "finite": True}
    return run


def probes(tf_version: str, runs: list[dict], *, gpu: bool = True) -> dict[str, Any]:
    """The speed probes of `tfdoctor check` (preset "check": 6 repeats, 6 s budget)."""
    devices = ["CPU:0", "GPU:0"] if gpu else ["CPU:0"]
    config = {"preset": "check", "workloads": ["matmul", "conv", "train"], "devices": "all",
              "sizes": {"matmul": 1024, "conv": 32, "train": 64}, "repeats": 6, "min_repeats": 3,
              "warmup": 2, "repeat_s": 0.05, "min_repeat_s": 0.01, "budget_s": 6.0,
              "sweep_sizes": {"matmul": [256, 512, 1024, 2048, 4096], "conv": [4, 8, 16, 32, 64, 128],
                              "train": [16, 32, 64, 128, 256, 512]},
              "retry": True, "retry_factor": {"matmul": 2, "conv": 4, "train": 4},
              "tolerance": dict(TOLERANCE), "seed": 20240611}
    return {"outcome": "ok", "config": config, "tf_version": tf_version, "devices": devices,
            "gpus": devices[1:], "runs": runs, "complete": True,
            "elapsed_s": round(sum(r["duration_s"] for r in runs), 3), "budget_s": 6.0,
            "timer_resolution_s": 1e-9, "returncode": 0, "duration_s": 9.9, "timeout_s": 72.0,
            "messages": [f"{r['workload']} size {r['size']} on {r['device']}: measured" for r in runs]}


def jitter(base_ms: float, n: int = 6) -> list[float]:
    """`n` repeats around `base_ms` with a small, fixed spread (+-2%)."""
    pattern = (1.0, 1.012, 0.991, 1.018, 0.996, 1.006, 0.987, 1.009)
    return [round(base_ms * pattern[i % len(pattern)], 4) for i in range(n)]


def healthy_probe_runs(*, matmul_cpu=19.0, matmul_gpu=1.6, conv_cpu=60.0, conv_gpu=6.5,
                       train_cpu=48.0, train_gpu=9.0) -> list[dict]:
    """A GPU clearly faster than the CPU on all three workloads, numbers in agreement."""
    return [probe_run("matmul", "CPU:0", 1024, jitter(matmul_cpu)),
            probe_run("matmul", "GPU:0", 1024, jitter(matmul_gpu)),
            probe_run("conv", "CPU:0", 32, jitter(conv_cpu)),
            probe_run("conv", "GPU:0", 32, jitter(conv_gpu), error=3e-6),
            probe_run("train", "CPU:0", 64, jitter(train_cpu)),
            probe_run("train", "GPU:0", 64, jitter(train_gpu), error=4e-6)]


# =============================================================================================
# the scenarios
#
# Import errors quoting a plugin path use the interpreter's own site-packages, as a real run
# would; the error text itself is the source's.

HOME = "/Users/ada"


# --- Python under Rosetta 2, by each route -----------------------------------------------------

py = miniforge("3.9.16", f"{HOME}/miniconda3", "Py39dev", subdir="osx-64", arch="x86_64", translated=True)
site = site_of(py)
scenario(
    "rosetta_conda_osx64_intel_installer",
    title="Miniconda's Intel installer on an M1: an osx-64 env, TensorFlow dies with 'Illegal instruction'",
    source="tensorflow/tensorflow#65002; ContinuumIO/anaconda-issues#13174",
    basis="#65002: `Python 3.9.16 [Clang 14.0.6] :: Anaconda, Inc. on darwin`, env "
          "~/miniconda3/envs/Py39dev, `import tensorflow` -> 'Fatal Python error: Illegal instruction' with "
          "the faulthandler stack in tensorflow/python/tf2.py line 21 (the user had updated to the newest "
          "TensorFlow, here 2.16.1, the last with Intel macOS wheels for cp39); anaconda-issues#13174: "
          "Anaconda's Python on an M1 reports platform.machine() == 'x86_64'. conda-meta records subdir "
          "osx-64; hw.optional.arm64 stays 1 under Rosetta. #65002 does not name the chip: the snapshot "
          "places it on an M1, as anaconda-issues#13174 does.",
    expected=["arch.conda-osx-64"],
    snapshot=snapshot(
        mac("Apple M1", "14.4.1", 16, translated=True), py,
        [tensorflow(site, "tensorflow", "2.16.1", "3.9", "x86_64"),
         plain(site, "keras", "3.3.3"), numpy(site, "1.26.4", "3.9", "x86_64"),
         plain(site, "ml-dtypes", "0.3.2", "cp39-cp39-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp39-cp39-macosx_10_9_x86_64"),
         plain(site, "protobuf", "4.25.3", "cp37-abi3-macosx_10_9_universal2")],
        runtime=runtime_signal(py, "SIGILL", stderr=[
            "Fatal Python error: Illegal instruction", "",
            "Current thread 0x0000000204b51240 (most recent call first):",
            '  File "<frozen importlib._bootstrap>", line 228 in _call_with_frames_removed',
            '  File "<frozen importlib._bootstrap_external>", line 1173 in create_module',
            f'  File "{site}/tensorflow/python/tf2.py", line 21 in <module>',
            '  File "<frozen importlib._bootstrap>", line 228 in _call_with_frames_removed'])))

py = miniforge("3.8.10", f"{HOME}/miniforge3", "robomaster", subdir="osx-64", arch="x86_64", translated=True)
site = site_of(py)
scenario(
    "rosetta_conda_subdir_osx64",
    title="CONDA_SUBDIR=osx-64 in an arm64 Miniforge: an Intel env whose pip installs x86_64 TensorFlow",
    source="dji-sdk/RoboMaster-SDK#98; pypa/pip#11573",
    basis="RoboMaster-SDK#98: an env made with CONDA_SUBDIR=osx-64 (and `conda config --env --set subdir "
          "osx-64`) on Apple silicon runs an x86_64 Python (platform.machine() 'x86_64'); pip#11573: pip "
          "running as x86_64 picks macosx_*_x86_64 wheels, here tensorflow 2.13.1 (cp38 Intel wheel, pins "
          f"from {REFERENCE}). Static facts only.",
    expected=["arch.conda-osx-64"],
    snapshot=snapshot(
        mac("Apple M2", "13.6", 16, translated=True), py,
        [tensorflow(site, "tensorflow", "2.13.1", "3.8", "x86_64"), plain(site, "keras", "2.13.1"),
         numpy(site, "1.24.3", "3.8", "x86_64"),
         plain(site, "h5py", "3.9.0", "cp38-cp38-macosx_10_9_x86_64"),
         plain(site, "protobuf", "4.24.4", "cp37-abi3-macosx_10_9_universal2")],
        env=env_for(py, CONDA_SUBDIR="osx-64")))

HB = "/usr/local/Cellar/python@3.11/3.11.7_1/Frameworks/Python.framework/Versions/3.11"
py = python("3.11.7", "/usr/local/bin/python3", "/usr/local/opt/python@3.11/Frameworks/Python.framework/Versions/3.11",
            binary=f"{HB}/bin/python3.11", archs=["x86_64"], process_arch="x86_64", translated=True,
            framework="Python", platform_tag="macosx-14.0-x86_64")
py["site_packages"] = ["/usr/local/lib/python3.11/site-packages"]
site = site_of(py)
scenario(
    "rosetta_homebrew_usr_local",
    title="Homebrew's Intel prefix /usr/local on an M1 Max: x86_64 Python 3.11, 'Illegal instruction: 4'",
    source="tensorflow/tensorflow#62860; Homebrew/homebrew-cask#207117; Homebrew/brew#11717",
    basis="#62860: M1 Max, Sonoma 14.3, `Python 3.11.7 (main, Dec  4 2023) [Clang 15.0.0]` (a Homebrew "
          "build), tensorflow 2.15.0, `import tensorflow` -> 'Illegal instruction: 4'; homebrew-cask#207117: "
          "Intel brew on Apple silicon installs python into /usr/local/Cellar; brew#11717: /usr/local is the "
          "Intel (Rosetta) prefix. The x86_64 tensorflow 2.15.0 wheel is macosx_10_15_x86_64 (reference).",
    expected=["arch.x86-only-interpreter"],
    snapshot=snapshot(
        mac("Apple M1 Max", "14.3", 32, translated=True), py,
        [tensorflow(site, "tensorflow", "2.15.0", "3.11", "x86_64"), plain(site, "keras", "2.15.0"),
         numpy(site, "1.26.3", "3.11", "x86_64"),
         plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.10.0", "cp311-cp311-macosx_10_9_x86_64"),
         plain(site, "protobuf", "4.23.4", "cp37-abi3-macosx_10_9_universal2")],
        env={}, runtime=runtime_signal(py, "SIGILL")))

py = pyorg_universal2("3.10.11", f"{HOME}/virtualenvs/tensorflow-venv", translated=True)
site = site_of(py)
scenario(
    "rosetta_terminal_universal2",
    title="Terminal set to 'Open using Rosetta': a universal2 Python started as x86_64",
    source="apple/tensorflow_macos#72; tensorflow/tensorflow#63495; python/cpython#25804",
    basis="tensorflow_macos#72: with Terminal's 'Open using Rosetta' ticked, `import tensorflow` ends in "
          "'zsh: illegal hardware instruction  python3'; #63495: a fresh venv, `pip install tensorflow==2.16.1`, "
          "'illegal hardware instruction  python', pip list with keras 3.0.5 and h5py 3.10.0; cpython#25804: "
          "python.org universal2 builds run their Intel slice when launched as x86_64. The binary holds both "
          "slices, sysctl.proc_translated is 1 and pip picked the x86_64 wheel.",
    expected=["arch.universal2-as-x86"],
    snapshot=snapshot(
        mac("Apple M2", "14.3", 16, translated=True), py,
        [tensorflow(site, "tensorflow", "2.16.1", "3.10", "x86_64"), plain(site, "keras", "3.0.5"),
         numpy(site, "1.26.4", "3.10", "x86_64"),
         plain(site, "ml-dtypes", "0.3.2", "cp310-cp310-macosx_10_9_universal2"),
         plain(site, "h5py", "3.10.0", "cp310-cp310-macosx_10_9_x86_64"),
         plain(site, "protobuf", "4.25.3", "cp37-abi3-macosx_10_9_universal2")],
        runtime=runtime_signal(py, "SIGILL")))

PYENV = f"{HOME}/.pyenv/versions/3.8.12-x86"
py = python("3.8.12", f"{PYENV}/bin/python", PYENV, binary=f"{PYENV}/bin/python3.8", archs=["x86_64"],
            process_arch="x86_64", translated=True, platform_tag="macosx-12.6-x86_64")
site = site_of(py)
scenario(
    "rosetta_pyenv_built_under_rosetta",
    title="A pyenv Python built from a Rosetta shell ('3.8.12-x86'): tensorflow-macos 2.9.2 dies with SIGILL",
    source="tensorflow/tensorflow#58339; pyenv/pyenv#1768",
    basis="#58339: macOS 12.6, pyenv 3.8.12-x86, the tensorflow-macos x86_64 wheels 2.9.0-2.10.0 are built "
          "with AVX and die with SIGILL under Rosetta; pyenv#1768: pyenv Pythons built from a Rosetta "
          "terminal are x86_64 and named like '3.8.12-x86'. tensorflow-macos 2.9.2 pins from the reference.",
    expected=["arch.x86-only-interpreter"],
    snapshot=snapshot(
        mac("Apple M1", "12.6", 16, translated=True), py,
        [tensorflow(site, "tensorflow-macos", "2.9.2", "3.8", "x86_64"), plain(site, "keras", "2.9.0"),
         numpy(site, "1.23.4", "3.8", "x86_64"),
         plain(site, "protobuf", "3.19.6", "cp38-cp38-macosx_10_9_x86_64"),
         plain(site, "h5py", "3.7.0", "cp38-cp38-macosx_10_9_x86_64")],
        env={"PYENV_VERSION": "3.8.12-x86"}, runtime=runtime_signal(py, "SIGILL")))

PYENV = f"{HOME}/.pyenv/versions/3.8.6"
py = python("3.8.6", f"{PYENV}/bin/python", PYENV, binary=f"{PYENV}/bin/python3.8", archs=["x86_64"],
            process_arch="x86_64", translated=True, platform_tag="macosx-13.1-x86_64")
site = site_of(py)
scenario(
    "rosetta_pyenv_tf212_segfault",
    title="A pyenv x86_64 Python 3.8.6 on macOS 13.1: tensorflow 2.12 segfaults at import instead of SIGILL",
    source="tensorflow/tensorflow#60081; pyenv/pyenv#1768",
    basis="#60081: macOS 13.1, `Python 3.8.6 (default, Jun  7 2022) [Clang 13.1.6 (clang-1316.0.21.2.5)]` "
          "(a locally built, pyenv-style Python), just upgraded to TF 2.12: stderr 'I tensorflow/core/platform/"
          "cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions in "
          "performance-critical operations. To enable the following instructions: AVX2 FMA, in other "
          "operations, rebuild TensorFlow with the appropriate compiler flags.' then 'zsh: segmentation fault  "
          "python'; a maintainer's reply: an arm64 Mac running the Intel tensorflow wheel under Rosetta. "
          "pyenv#1768: pyenv Pythons built from a Rosetta shell are x86_64. tensorflow 2.12.0 Intel wheel "
          "(macosx_10_15_x86_64) and its pins from the reference.",
    expected=["arch.x86-only-interpreter"],
    snapshot=snapshot(
        mac("Apple M1 Pro", "13.1", 16, translated=True), py,
        [pkg(site, "tensorflow", "2.12.0", "cp38-cp38-macosx_10_15_x86_64",
             ["h5py>=2.9.0", "numpy<1.24,>=1.22", PROTOBUF_4, "tensorboard<2.13,>=2.12", "keras<2.13,>=2.12.0"],
             macho("x86_64", TF_LIB)),
         plain(site, "keras", "2.12.0"), numpy(site, "1.23.5", "3.8", "x86_64"),
         plain(site, "protobuf", "4.22.1", "cp37-abi3-macosx_10_9_universal2"),
         plain(site, "h5py", "3.8.0", "cp38-cp38-macosx_10_9_x86_64")],
        env={"PYENV_VERSION": "3.8.6"}, runtime=runtime_signal(py, "SIGSEGV", stderr=[
            "2023-03-23 08:47:14.945316: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow "
            "binary is optimized to use available CPU instructions in performance-critical operations.",
            "To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow with the "
            "appropriate compiler flags."])))

PYORG38 = "/Library/Frameworks/Python.framework/Versions/3.8"
py = python("3.8.6", f"{HOME}/venvs/tf38/bin/python", f"{HOME}/venvs/tf38", base_prefix=PYORG38,
            binary=f"{PYORG38}/Resources/Python.app/Contents/MacOS/Python", archs=["x86_64"],
            process_arch="x86_64", translated=True, framework="Python", platform_tag="macosx-10.9-x86_64")
site = site_of(py)
AVX_LINE = ("2024-12-10 09:41:07.518832: F tensorflow/core/platform/cpu_feature_guard.cc:37] The TensorFlow "
            "library was compiled to use AVX instructions, but these aren't available on your machine.")
scenario(
    "rosetta_pythonorg_intel_avx_abort",
    title="An old python.org Intel-only Python on an M4 with macOS 15: TensorFlow aborts on the AVX guard",
    source="acil-bwh/ChestImagingPlatform#51; sharpemu/sharpemu#328; official-stockfish/Stockfish#5707",
    basis="ChestImagingPlatform#51: TensorFlow's fatal guard line 'F tensorflow/core/platform/"
          "cpu_feature_guard.cc:37] The TensorFlow library was compiled to use AVX instructions, but these "
          "aren't available on your machine.' (which aborts the process, SIGABRT); sharpemu#328: Rosetta on "
          "macOS 15 runs AVX but does not advertise it in CPUID, so a CPUID-gated guard still sees no AVX "
          "(an inference, noted in mac_facts.json); Stockfish#5707: an M4 on 15.1.1. The interpreter is a "
          "python.org 3.8.6 'macOS 64-bit Intel installer' build (thin x86_64) in a venv, with the Intel "
          "tensorflow 2.13.1 wheel (last with cp38).",
    expected=["arch.x86-only-interpreter"],
    snapshot=snapshot(
        mac("Apple M4", "15.1.1", 16, translated=True), py,
        [tensorflow(site, "tensorflow", "2.13.1", "3.8", "x86_64"), plain(site, "keras", "2.13.1"),
         numpy(site, "1.24.3", "3.8", "x86_64"),
         plain(site, "h5py", "3.9.0", "cp38-cp38-macosx_10_9_x86_64"),
         plain(site, "protobuf", "4.24.4", "cp37-abi3-macosx_10_9_universal2")],
        runtime=runtime_signal(py, "SIGABRT", stderr=[AVX_LINE])))


# --- amd64 containers on Apple hardware --------------------------------------------------------

py = python("3.8.10", "/usr/bin/python3", "/usr", binary="/usr/bin/python3.8", archs=["x86_64"],
            process_arch="x86_64", translated=None, platform_tag="linux-x86_64", fmt="elf")
py["site_packages"] = ["/usr/local/lib/python3.8/dist-packages", "/usr/lib/python3/dist-packages"]
site = site_of(py)
scenario(
    "container_amd64_avx_guard",
    title="The amd64 tensorflow/tensorflow:2.7.0 image on an M1: the AVX guard aborts the import",
    source="tensorflow/tensorflow#52972; docker/for-mac#6512; docker/for-mac#5485; acil-bwh/ChestImagingPlatform#51",
    basis="#52972: TF 2.7 images in amd64 containers on M1 stop at the AVX guard; for-mac#6512: /proc/cpuinfo "
          "in Docker Desktop's VM reports 'CPU implementer : 0x00'; for-mac#5485: an amd64 container shows the "
          "host's arm64 'Features' line; ChestImagingPlatform#51: the guard's exact line. The image's Ubuntu "
          "20.04 Python 3.8.10 and tensorflow 2.7.0 (manylinux2010_x86_64) in /usr/local/lib/python3.8/dist-packages.",
    expected=["arch.emulated-container"],
    snapshot=snapshot(
        docker_on_apple("5.15.49-linuxkit", 8), py,
        [pkg(site, "tensorflow", "2.7.0", "cp38-cp38-manylinux2010_x86_64",
             ["numpy>=1.14.5", "keras<2.8,>=2.7.0rc0", "protobuf>=3.9.2", "h5py>=2.9.0"],
             elf("x86_64", TF_LIB)),
         plain(site, "keras", "2.7.0"),
         pkg(site, "numpy", "1.21.4", "cp38-cp38-manylinux_2_12_x86_64",
             binaries=elf("x86_64", "numpy/core/_multiarray_umath.cpython-38-x86_64-linux-gnu.so"))],
        env={}, runtime=runtime_signal(py, "SIGABRT", stderr=[
            "2021-11-16 20:14:50.211803: F tensorflow/core/platform/cpu_feature_guard.cc:37] The TensorFlow "
            "library was compiled to use AVX instructions, but these aren't available on your machine."])))

py = python("3.8.18", "/usr/local/bin/python", "/usr/local", binary="/usr/local/bin/python3.8",
            archs=["x86_64"], process_arch="x86_64", translated=None, platform_tag="linux-x86_64", fmt="elf")
site = site_of(py)
scenario(
    "container_amd64_qemu_bucket_limits",
    title="An amd64 container under Docker Desktop's QEMU on an M1: 'Check failed: bucket_limits_' at import",
    source="docker/for-mac#5342; docker/for-mac#6512",
    basis="for-mac#5342: TensorFlow 2.4.1 (amd64) under Docker Desktop's QEMU on an M1 aborts at import with "
          "'F tensorflow/core/lib/monitoring/sampler.cc:42] Check failed: bucket_limits_[i] > "
          "bucket_limits_[i - 1] (4.17216e-152 vs. 10)' and 'qemu: uncaught target signal 6 (Aborted) - core "
          "dumped'; Docker called it a QEMU bug and advised arm64 images. The thread used the "
          "tensorflow/tensorflow image (Python 3.6); here the same TensorFlow is pip-installed into a python:3.8 "
          "amd64 image, Python 3.8 being the oldest tfdoctor can examine. cpuinfo per for-mac#6512.",
    expected=["arch.emulated-container"],
    snapshot=snapshot(
        docker_on_apple("5.10.104-linuxkit", 4), py,
        [pkg(site, "tensorflow", "2.4.1", "cp38-cp38-manylinux2010_x86_64",
             ["numpy~=1.19.2", "protobuf>=3.9.2", "h5py~=2.10.0"], elf("x86_64", TF_LIB)),
         pkg(site, "numpy", "1.19.5", "cp38-cp38-manylinux2010_x86_64",
             binaries=elf("x86_64", "numpy/core/_multiarray_umath.cpython-38-x86_64-linux-gnu.so")),
         plain(site, "h5py", "2.10.0", "cp38-cp38-manylinux1_x86_64"),
         plain(site, "protobuf", "3.15.1", "cp38-cp38-manylinux1_x86_64")],
        env={}, runtime=runtime_signal(py, "SIGABRT", stderr=[
            "2021-02-12 21:25:20.268211: F tensorflow/core/lib/monitoring/sampler.cc:42] Check failed: "
            "bucket_limits_[i] > bucket_limits_[i - 1] (4.17216e-152 vs. 10)",
            "qemu: uncaught target signal 6 (Aborted) - core dumped"])))


# --- TensorFlow / tensorflow-metal pairings ----------------------------------------------------

BLOG = ("https://github.com/ShapeLayer/blog.jonghyeon.me/blob/648c1a19a2fb7fd2c78e4350b37e1ecbfc7ca940/"
        "_posts/2025-09-11-tensorflow-metal-compatibilities.md")
py_blog = miniforge("3.10.18", "/opt/miniconda3", "metal")
"""The blog's machine: MacBook Air (M1, 2020, 7-core GPU, 16 GB), macOS Sequoia 15.6.1, 'Python 3.10.18
(Jun 5 2025) [Clang 14.0.6]' in a miniconda env /opt/miniconda3/envs/metal, packages installed with pip."""
BLOG_SITE = site_of(py_blog)
BLOG_TB = f"{BLOG_SITE}/tensorflow/__init__.py:437 in <module>"
"""tensorflow/tensorflow#81987: the failure is raised at `_ll.load_library(_plugin_dir)` in tensorflow/__init__.py."""


def blog_error(detail: str) -> str:
    """The blog's NotFoundError text, with its dlopen of the plugin."""
    return (f"dlopen({BLOG_SITE}/tensorflow-plugins/libmetal_plugin.dylib, 0x0006): {detail}")


SYMBOL_TSL = "__ZN3tsl8internal10LogMessageC1EPKcii"
symbol_text = blog_error(
    f"Symbol not found: {SYMBOL_TSL}\n"
    f"  Referenced from: <D2EF42E3-3A7F-39DD-9982-FB6BCDC2853C> {BLOG_SITE}/tensorflow-plugins/libmetal_plugin.dylib\n"
    f"  Expected in:     <300F849B-E9A8-3BDA-B8D9-C6617800789D> {BLOG_SITE}/tensorflow/python/_pywrap_tensorflow_internal.so")
NOT_FOUND = "tensorflow.python.framework.errors_impl.NotFoundError"


def blog_env(tf_dist: str, tf_version: str, metal_version: str, extra: list[dict]) -> list[dict]:
    return [tensorflow(BLOG_SITE, tf_dist, tf_version, "3.10", "arm64"),
            metal(BLOG_SITE, metal_version, "3.10"), *extra]


scenario(
    "pair_metal110_tf218_symbol_not_found",
    title="tensorflow 2.18.0 + tensorflow-metal 1.1.0: the plugin fails to load ('Symbol not found')",
    source=f"{BLOG}; tensorflow/tensorflow#81987; tensorflow/tensorflow#84167",
    basis="The blog's hand test on an M1, macOS 15.6.1, Python 3.10 in /opt/miniconda3/envs/metal: `import "
          "tensorflow` raises NotFoundError 'dlopen(.../tensorflow-plugins/libmetal_plugin.dylib, 0x0006): "
          "Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii' (quoted with its Referenced from / "
          "Expected in lines); #81987: raised at _ll.load_library(_plugin_dir), TF 2.18.0; #84167: 1.1.0 "
          "works with 2.17, fails after upgrading to 2.18. Apple's table still lists 1.1.0 for v2.18.",
    expected=["compat.tf-metal-mismatch"],
    snapshot=snapshot(
        mac("Apple M1", "15.6.1", 16), py_blog,
        blog_env("tensorflow", "2.18.0", "1.1.0", [plain(BLOG_SITE, "keras", "3.8.0"),
                                                    numpy(BLOG_SITE, "2.0.2", "3.10"),
                                                    plain(BLOG_SITE, "ml-dtypes", "0.4.1", "cp310-cp310-macosx_10_9_universal2")]),
        plugins=[plugin_file(BLOG_SITE)],
        runtime=runtime_import_error(py_blog, NOT_FOUND, symbol_text, [BLOG_TB], metal_site=BLOG_SITE)))

scenario(
    "pair_metal110_predates_tf219",
    title="tensorflow 2.19.0 + tensorflow-metal 1.1.0: a plugin made for TensorFlow 2.14-2.18",
    source=f"{BLOG}; tensorflow-metal 1.2.0 METADATA table ({REFERENCE} pairs_source_table)",
    basis="The blog's hand test (M1, macOS 15.6.1, Python 3.10): 2.19.0 + 1.1.0 fails at import with the same "
          "'Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii' as 2.18.0; Apple's table covers 1.1.0 "
          "for v2.14-v2.18 only, so the plugin predates TensorFlow 2.19.",
    expected=["compat.tf-metal-mismatch"],
    snapshot=snapshot(
        mac("Apple M1", "15.6.1", 16), py_blog,
        blog_env("tensorflow", "2.19.0", "1.1.0", [plain(BLOG_SITE, "keras", "3.10.0"),
                                                    numpy(BLOG_SITE, "2.1.3", "3.10"),
                                                    plain(BLOG_SITE, "ml-dtypes", "0.5.1", "cp310-cp310-macosx_10_9_universal2")]),
        plugins=[plugin_file(BLOG_SITE)],
        runtime=runtime_import_error(py_blog, NOT_FOUND, symbol_text, [BLOG_TB], metal_site=BLOG_SITE)))

scenario(
    "pair_metal120_tf220_rpath",
    title="tensorflow 2.20.0 + tensorflow-metal 1.2.0: 'Library not loaded: @rpath/_pywrap_tensorflow_internal.so'",
    source=f"tensorflow/tensorflow#126360; {BLOG}",
    basis="The blog (M1, macOS 15.6.1, Python 3.10): 2.20.0 with 1.2.0 (or 1.1.0) fails at import with "
          "NotFoundError 'dlopen(.../tensorflow-plugins/libmetal_plugin.dylib, 0x0006): Library not loaded: "
          "@rpath/_pywrap_tensorflow_internal.so'; PR #126360 quotes the same for a clean venv with "
          "tensorflow==2.20.0 and finds the real cause, a missing C++ symbol.",
    expected=["compat.tf-metal-mismatch"],
    snapshot=snapshot(
        mac("Apple M1", "15.6.1", 16), py_blog,
        blog_env("tensorflow", "2.20.0", "1.2.0", [plain(BLOG_SITE, "keras", "3.11.3"),
                                                    numpy(BLOG_SITE, "2.2.6", "3.10"),
                                                    plain(BLOG_SITE, "ml-dtypes", "0.5.3", "cp310-cp310-macosx_10_9_universal2"),
                                                    plain(BLOG_SITE, "protobuf", "6.32.0", "cp39-abi3-macosx_10_9_universal2")]),
        plugins=[plugin_file(BLOG_SITE)],
        runtime=runtime_import_error(py_blog, NOT_FOUND, blog_error(
            "Library not loaded: @rpath/_pywrap_tensorflow_internal.so\n"
            f"  Referenced from: <D2EF42E3-3A7F-39DD-9982-FB6BCDC2853C> {BLOG_SITE}/tensorflow-plugins/libmetal_plugin.dylib\n"
            f"  Reason: tried: '{BLOG_SITE}/tensorflow-plugins/../_solib_darwin_arm64/_U@local_Uconfig_Utf_S_S_C_"
            "Upywrap_Utensorflow_Uinternal___Uexternal_Slocal_Uconfig_Utf/_pywrap_tensorflow_internal.so' (no such "
            f"file), '/opt/miniconda3/envs/metal/bin/../lib/_pywrap_tensorflow_internal.so' (no such file)"),
            [BLOG_TB], metal_site=BLOG_SITE)))

scenario(
    "pair_metal070_postdates_tf210",
    title="tensorflow-macos 2.10.0 + tensorflow-metal 0.7.0: a plugin made for 2.11, 'symbol not found in flat namespace'",
    source=f"{BLOG}; tensorflow/models#10617",
    basis="The blog (M1, macOS 15.6.1, Python 3.10): 2.10.0 + 0.7.0 fails at import, symbol "
          "'__ZN3tsl8internal10LogMessage16VmoduleActivatedEPKci'; Apple's table pairs 0.7.0 with v2.11. "
          "The message has the flat-namespace form the blog quotes for 2.11.0 + 0.8.0 and models#10617 shows.",
    expected=["compat.tf-metal-mismatch"],
    snapshot=snapshot(
        mac("Apple M1", "15.6.1", 16), py_blog,
        blog_env("tensorflow-macos", "2.10.0", "0.7.0", [plain(BLOG_SITE, "keras", "2.10.0"),
                                                          numpy(BLOG_SITE, "1.23.5", "3.10"),
                                                          plain(BLOG_SITE, "protobuf", "3.19.6", "cp310-cp310-macosx_10_9_universal2")]),
        plugins=[plugin_file(BLOG_SITE)],
        runtime=runtime_import_error(py_blog, NOT_FOUND, blog_error(
            "symbol not found in flat namespace '__ZN3tsl8internal10LogMessage16VmoduleActivatedEPKci'"),
            [BLOG_TB], metal_site=BLOG_SITE)))

scenario(
    "healthy_m1_tf2130_metal110_reported_working",
    title="M1: tensorflow 2.13.0 + tensorflow-metal 1.1.0, a pair outside Apple's table reported to work",
    source=f"{BLOG}; tensorflow/tensorflow#61915",
    basis="The blog's hand test (M1, macOS 15.6.1, Python 3.10, import and Apple's verification script) lists "
          "2.13.0 + 1.1.0 as 'Supports ❌ (per PyPI's table), Import ✅, Verify ✅' (likewise 2.12.0 + 1.0.0): "
          "Apple's table names 1.1.0 for v2.14-v2.18 only. `pip install "
          "tensorflow==2.13.0` on arm64 brings tensorflow-macos 2.13.0 (#61915); `pip install tensorflow-metal` "
          "in late 2023 gave 1.1.0. Static facts only: a setup a public test found working, so no error is "
          "expected.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M1", "15.6.1", 16), py_blog,
        [tensorflow(BLOG_SITE, "tensorflow", "2.13.0", "3.10", "arm64"),
         tensorflow(BLOG_SITE, "tensorflow-macos", "2.13.0", "3.10", "arm64"), metal(BLOG_SITE, "1.1.0", "3.10"),
         plain(BLOG_SITE, "keras", "2.13.1"), numpy(BLOG_SITE, "1.24.3", "3.10"),
         plain(BLOG_SITE, "protobuf", "4.24.4", "cp37-abi3-macosx_10_9_universal2"),
         plain(BLOG_SITE, "h5py", "3.9.0", "cp310-cp310-macosx_11_0_arm64")],
        plugins=[plugin_file(BLOG_SITE)]))

py = pyorg_universal2("3.12.8", f"{HOME}/venvs/tf")
site = site_of(py)
scenario(
    "pair_metal120_tf2180_undocumented",
    title="tensorflow 2.18.0 + tensorflow-metal 1.2.0 (February 2025): a pair no table row or report covers",
    source=f"tensorflow/tensorflow#126360; {REFERENCE} pairs (1.2.0 in no table row); shared reference "
           "metal_binaries_2026-11.json load_check (1.2.0 loads with 2.18.0)",
    basis="tensorflow-metal 1.2.0 (uploaded 2025-01-31) is named by no row of Apple's table; PR #126360 reports "
          "it working on 2.18.1 and 2.19, nothing about 2.18.0, the newest TensorFlow when 1.2.0 came out. "
          "Python 3.12 (1.2.0 is the only release with a cp312 wheel). Static facts only. The plugin binary "
          "resolves every symbol it imports against tensorflow 2.18.0 (reference load_check), so the pair "
          "loads: issue 12 says such a pair is no problem, only 'loads, not tested at run time', so "
          "as far as static facts go this is a working setup.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M2 Pro", "15.1", 32), py,
        [tensorflow(site, "tensorflow", "2.18.0", "3.12", "arm64"), metal(site, "1.2.0", "3.12"),
         plain(site, "keras", "3.8.0"), numpy(site, "2.0.2", "3.12"),
         plain(site, "ml-dtypes", "0.4.1", "cp312-cp312-macosx_10_9_universal2"),
         plain(site, "h5py", "3.12.1", "cp312-cp312-macosx_11_0_arm64"),
         plain(site, "protobuf", "5.29.3", "cp38-abi3-macosx_10_9_universal2")],
        plugins=[plugin_file(site)]))


# --- Python version, NumPy ABI, protobuf, architecture of wheels ------------------------------

HB13 = "/opt/homebrew/Cellar/python@3.13/3.13.5/Frameworks/Python.framework/Versions/3.13"
py = python("3.13.5", f"{HOME}/venvs/tf313/bin/python", f"{HOME}/venvs/tf313", base_prefix=HB13,
            binary=f"{HB13}/bin/python3.13", archs=["arm64"], process_arch="arm64", translated=False,
            framework="Python", platform_tag="macosx-15.0-arm64")
site = site_of(py)
scenario(
    "python313_no_metal_wheel",
    title="Python 3.13 (Homebrew, arm64): tensorflow 2.20 installs, tensorflow-metal has no wheel",
    source=f"tensorflow/tensorflow#126380; {REFERENCE} contradictions_and_surprises (metal Python coverage)",
    basis="#126380: tensorflow-metal last shipped 1.2.0 (2025-01-31) with no wheel beyond cp312; the reference: "
          "tensorflow 2.20.0 has cp313 macosx_12_0_arm64 wheels, no tensorflow-metal release has cp313, so "
          "`pip install tensorflow-metal` finds no distribution. A native Homebrew (/opt/homebrew) Python 3.13.5.",
    expected=["compat.no-wheel-for-python"],
    snapshot=snapshot(
        mac("Apple M3 Pro", "15.5", 18), py,
        [tensorflow(site, "tensorflow", "2.20.0", "3.13", "arm64"), plain(site, "keras", "3.10.0"),
         numpy(site, "2.3.1", "3.13"),
         plain(site, "ml-dtypes", "0.5.1", "cp313-cp313-macosx_10_13_universal2"),
         plain(site, "h5py", "3.14.0", "cp313-cp313-macosx_11_0_arm64"),
         plain(site, "protobuf", "6.31.1", "cp39-abi3-macosx_10_9_universal2")]))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/tf214")
site = site_of(py)
scenario(
    "numpy2_with_tf214_static",
    title="pip install tensorflow==2.14.0 numpy==2.3.4: NumPy 2 beside a TensorFlow built against NumPy 1",
    source="tensorflow/tensorflow#102743",
    basis="#102743: `pip install tensorflow==2.14.0 numpy==2.3.4` resolves (the pin is numpy>=1.23.5, no upper "
          "bound) and `import tensorflow` prints 'A module that was compiled using NumPy 1.x cannot be run in "
          "NumPy 2.3.4'. On an Apple-silicon Mac tensorflow 2.14.0 is the thin wheel that pulls "
          "tensorflow-macos 2.14.0 (reference). Static facts only (no import).",
    expected=["compat.numpy-abi"],
    snapshot=snapshot(
        mac("Apple M2", "14.6", 16), py,
        [tensorflow(site, "tensorflow", "2.14.0", "3.11", "arm64"),
         tensorflow(site, "tensorflow-macos", "2.14.0", "3.11", "arm64"),
         plain(site, "keras", "2.14.0"), numpy(site, "2.3.4", "3.11"),
         plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.10.0", "cp311-cp311-macosx_11_0_arm64"),
         plain(site, "protobuf", "4.25.8", "cp37-abi3-macosx_10_9_universal2")]))

py = pyorg_universal2("3.10.11", f"{HOME}/venvs/tf217")
site = site_of(py)
BANNER = ["", "A module that was compiled using NumPy 1.x cannot be run in",
          "NumPy 2.1.2 as it may crash. To support both 1.x and 2.x",
          "versions of NumPy, modules must be compiled with NumPy 2.0.",
          "Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.", "",
          "If you are a user of the module, the easiest solution will be to",
          "downgrade to 'numpy<2' or try to upgrade the affected module.",
          "We expect that some modules will need time to support NumPy 2.", ""]
scenario(
    "numpy2_with_tf217_runtime",
    title="NumPy 2.1.2 forced under tensorflow 2.17.0: '_ARRAY_API not found' at import",
    source="nv-tlabs/vipe#42; tensorflow/tensorflow#90245",
    basis="vipe#42 and #90245: `import tensorflow` fails in tensorflow/python/client/pywrap_tf_session.py line "
          "19 with 'AttributeError: _ARRAY_API not found', after NumPy's banner 'A module that was compiled using "
          "NumPy 1.x cannot be run in NumPy 2.1.2 as it may crash...'. The reference pins tensorflow 2.17.0 to "
          "numpy<2.0.0; here numpy 2.1.2 was installed over it (another package's upgrade), with tensorflow-metal "
          "1.1.0 on an M1 Pro.",
    expected=["compat.numpy-abi"],
    snapshot=snapshot(
        mac("Apple M1 Pro", "14.6", 16), py,
        [tensorflow(site, "tensorflow", "2.17.0", "3.10", "arm64"), metal(site, "1.1.0", "3.10"),
         plain(site, "keras", "3.5.0"), numpy(site, "2.1.2", "3.10"),
         plain(site, "ml-dtypes", "0.4.1", "cp310-cp310-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp310-cp310-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_import_error(
            py, "AttributeError", "_ARRAY_API not found",
            [f"{site}/tensorflow/__init__.py:37 in <module>",
             f"{site}/tensorflow/python/__init__.py:37 in <module>",
             f"{site}/tensorflow/python/eager/context.py:35 in <module>",
             f"{site}/tensorflow/python/client/pywrap_tf_session.py:19 in <module>"],
            stderr=BANNER, metal_site=site)))

py = miniforge("3.9.12", f"{HOME}/miniforge3", "tf29")
site = site_of(py)
scenario(
    "protobuf421_with_tfmacos290",
    title="protobuf 4.21 under tensorflow-macos 2.9.0: 'Descriptors cannot not be created directly'",
    source="tensorflow/tensorflow#56266; tensorflow/tensorflow#59665; protocolbuffers/protobuf#10051",
    basis="#56266 (May 2022): after protobuf 4.21.0 came out, `import tensorflow` raises 'TypeError: "
          "Descriptors cannot not be created directly. If this call came from a _pb2.py file, your generated "
          "code is out of date and must be regenerated with protoc >= 3.19.0...'; the fixed releases pin "
          "protobuf<3.20. tensorflow-macos 2.9.0 pins only protobuf>=3.9.2 (reference), so pip kept 4.21.0. "
          "Traceback path as #59665 (context.py importing function_pb2). M1 with Miniforge and tensorflow-metal 0.5.0.",
    expected=["runtime.protobuf"],
    snapshot=snapshot(
        mac("Apple M1", "12.4", 8), py,
        [tensorflow(site, "tensorflow-macos", "2.9.0", "3.9", "arm64"), metal(site, "0.5.0", "3.9"),
         plain(site, "keras", "2.9.0"), numpy(site, "1.22.4", "3.9"),
         plain(site, "protobuf", "4.21.0", "cp37-abi3-macosx_10_9_universal2"),
         plain(site, "h5py", "3.6.0", "cp39-cp39-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_import_error(
            py, "TypeError",
            "Descriptors cannot not be created directly.\nIf this call came from a _pb2.py file, your "
            "generated code is out of date and must be regenerated with protoc >= 3.19.0.\nIf you cannot "
            "immediately regenerate your protos, some other possible workarounds are:\n 1. Downgrade the "
            "protobuf package to 3.20.x or lower.\n 2. Set PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python "
            "(but this will use pure-Python parsing and will be much slower).",
            [f"{site}/tensorflow/__init__.py:37 in <module>",
             f"{site}/tensorflow/python/eager/context.py:32 in <module>",
             f"{site}/tensorflow/core/framework/function_pb2.py:16 in <module>",
             f"{site}/google/protobuf/descriptor.py:560 in __new__"], metal_site=site)))

py = pyorg_universal2("3.10.6", None)
site = site_of(py)
ARCH_TEXT = (f"dlopen({site}/tensorflow/python/_pywrap_tensorflow.so, 0x000A): tried: "
             f"'{site}/tensorflow/python/_pywrap_tensorflow.so' (mach-o file, but is an incompatible "
             "architecture (have (x86_64), need (arm64e)))")
scenario(
    "wheel_arch_mismatch_x86_tensorflow_in_arm64_python",
    title="An x86_64 TensorFlow in a native python.org 3.10: 'incompatible architecture (have (x86_64), need (arm64e))'",
    source="tensorflow/tensorflow#57483; pypa/pip#11573",
    basis="#57483 (macOS 12.5.1, TF 2.9, python.org 3.10 framework site-packages): import fails with "
          "'dlopen(.../tensorflow/python/_pywrap_tensorflow.so, 0x000A): tried: ... (mach-o file, but is an "
          "incompatible architecture (have (x86_64), need (arm64e)))'; the maintainer's reply: this TensorFlow "
          "was compiled for x86_64. pip#11573: a pip run as x86_64 picks x86_64 wheels, which is how an Intel "
          "tensorflow 2.9.1 wheel lands in the site-packages a native arm64 process later imports. The "
          "installed library's Mach-O header says x86_64.",
    expected=["arch.wheel-mismatch"],
    snapshot=snapshot(
        mac("Apple M1", "12.5.1", 8), py,
        [pkg(site, "tensorflow", "2.9.1", "cp310-cp310-macosx_10_14_x86_64",
             ["numpy>=1.20", "keras<2.10.0,>=2.9.0rc0", "protobuf<3.20,>=3.9.2", "h5py>=2.9.0"],
             macho("x86_64", "tensorflow/python/_pywrap_tensorflow.so")),
         plain(site, "keras", "2.9.0"), numpy(site, "1.23.2", "3.10"),
         plain(site, "protobuf", "3.19.4", "cp310-cp310-macosx_10_9_universal2")],
        env={},
        runtime=runtime_import_error(
            py, "ImportError", ARCH_TEXT,
            [f"{site}/tensorflow/__init__.py:37 in <module>",
             f"{site}/tensorflow/python/__init__.py:61 in <module>"])))


# --- Keras 3 surprises ---------------------------------------------------------------------------

py = pyorg_universal2("3.10.11", f"{HOME}/.virtualenvs/r-tensorflow")
site = site_of(py)
scenario(
    "keras3_tfkeras_without_env",
    title="tf-keras installed for Keras 2 but TF_USE_LEGACY_KERAS unset: tf.keras is still Keras 3",
    source="greta-dev/greta#675 (quoting rstudio/tensorflow#602); https://keras.io/getting_started/",
    basis="greta#675: with TF 2.16/2.17, Keras 2 needs `tf_keras` installed *and* TF_USE_LEGACY_KERAS=1 set "
          "before Keras loads (install_tensorflow(version='2.17', extra_packages='tf_keras', "
          "python_version='3.10')). Here the package is installed, the variable is not, so the child's tf.keras "
          "resolved to Keras 3.6.0. tensorflow 2.17.1 + tensorflow-metal 1.1.0 on an M2.",
    expected=["compat.keras3"],
    snapshot=snapshot(
        mac("Apple M2", "14.6", 16), py,
        [tensorflow(site, "tensorflow", "2.17.1", "3.10", "arm64"), metal(site, "1.1.0", "3.10"),
         plain(site, "keras", "3.6.0"),
         plain(site, "tf-keras", "2.17.0", "py3-none-any", requires_dist=["tensorflow<2.18,>=2.17"]),
         numpy(site, "1.26.4", "3.10"),
         plain(site, "ml-dtypes", "0.4.1", "cp310-cp310-macosx_10_9_universal2"),
         plain(site, "h5py", "3.12.1", "cp310-cp310-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.17.1", metal_site=site, keras=keras3("3.6.0", tf_keras="2.17.0"),
                           stderr=metal_banner("Apple M2", when="2024-11-02 15:20:41"))))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/hf")
site = site_of(py)
scenario(
    "keras3_env_without_tfkeras",
    title="TF_USE_LEGACY_KERAS=1 exported, tf-keras not installed: tf.keras cannot load Keras",
    source="huggingface/transformers#29598; huggingface/transformers#40391",
    basis="transformers#29598 sets TF_USE_LEGACY_KERAS=1 to keep tf.keras on Keras 2 (users copied it into their "
          "shell profiles); #40391 quotes what TensorFlow then says without the package: 'Your environment has "
          "TF_USE_LEGACY_KERAS set to True, but you do not have the tf_keras package installed.' Here tensorflow "
          "2.16.2 + tensorflow-metal 1.1.0 with Keras 3.3.3 only. Static facts only.",
    expected=["compat.keras3"],
    snapshot=snapshot(
        mac("Apple M1 Max", "14.5", 32), py,
        [tensorflow(site, "tensorflow", "2.16.2", "3.11", "arm64"), metal(site, "1.1.0", "3.11"),
         plain(site, "keras", "3.3.3"), numpy(site, "1.26.4", "3.11"),
         plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64")],
        plugins=[plugin_file(site)], env=env_for(py, TF_USE_LEGACY_KERAS="1")))


# --- installation ------------------------------------------------------------------------------

py = pyorg_universal2("3.11.9", f"{HOME}/openvino_env")
site = site_of(py)
scenario(
    "two_tensorflows_macos_and_tensorflow",
    title="tensorflow-macos 2.15.0 and tensorflow 2.16.2 installed over each other (tensorflow-hub pulled tensorflow)",
    source="openvinotoolkit/openvino_notebooks#2713; openvinotoolkit/openvino_notebooks#2679; openvinotoolkit/openvino_notebooks#2793",
    basis="#2713: 'tensorflow-macos package was updated but tensorflow package was installed too, but "
          "shouldn't'; #2679: tensorflow-hub installs tensorflow even when tensorflow-macos is installed; #2793: "
          "uninstalling only tensorflow then breaks the shared install. tensorflow-hub 0.16.1 requires tf-keras, "
          "whose 2.16.0 requires tensorflow<2.17,>=2.16, hence tensorflow 2.16.2 (a full arm64 wheel) beside "
          "tensorflow-macos 2.15.0 (also full).",
    expected=["install.multiple-tensorflow"],
    snapshot=snapshot(
        mac("Apple M1", "14.2", 16), py,
        [tensorflow(site, "tensorflow", "2.16.2", "3.11", "arm64"),
         tensorflow(site, "tensorflow-macos", "2.15.0", "3.11", "arm64"),
         plain(site, "tensorflow-hub", "0.16.1", requires_dist=["numpy>=1.12.0", "protobuf>=3.19.6", "tf-keras>=2.14.1"]),
         plain(site, "tf-keras", "2.16.0", requires_dist=["tensorflow<2.17,>=2.16"]),
         plain(site, "keras", "3.3.3"), numpy(site, "1.26.4", "3.11"),
         plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2")]))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/tf215")
site = site_of(py)
scenario(
    "self_shim_tensorflow_macos_2151",
    title="pip install 'tensorflow-macos<2.16' tensorflow-metal: 2.15.1 is an empty self-shim",
    source=f"{REFERENCE} contradictions_and_surprises (tensorflow-macos 2.15.1); UCSD-E4E/PyHa#220",
    basis="The reference: tensorflow-macos 2.15.1 is a ~2 KB wheel whose only Darwin/arm64 Requires-Dist is "
          "'tensorflow-macos ==2.15.1' itself, so installing it gives no TensorFlow (checked with pip's resolver "
          "under Darwin markers); PyHa#220: 'tensorflow-macos is a dependency of itself'. With tensorflow-metal "
          "1.1.0 beside it; `import tensorflow` -> ModuleNotFoundError.",
    expected=["install.self-shim"],
    snapshot=snapshot(
        mac("Apple M2", "14.5", 16), py,
        [tensorflow(site, "tensorflow-macos", "2.15.1", "3.11", "arm64"),
         metal(site, "1.1.0", "3.11")],
        plugins=[plugin_file(site)], runtime=module_not_found(py)))

py = miniforge("3.10.6", f"{HOME}/miniforge3", "tensorflow")
site = site_of(py)
scenario(
    "no_tensorflow_only_tensorflow_deps",
    title="Apple's conda steps stopped after tensorflow-deps: NumPy and friends, no TensorFlow",
    source=f"{REFERENCE} tensorflow_deps; tensorflow/tensorflow#57483 (Apple's steps quoted by a maintainer)",
    basis="#57483 quotes the steps `conda install -c apple tensorflow-deps`, then `python -m pip install "
          "tensorflow-macos` and `tensorflow-metal`; the reference: tensorflow-deps exists only on the apple "
          "channel for osx-arm64 (2.5.0-2.10.0) and installs TensorFlow's dependencies, not TensorFlow. The "
          "environment has those conda packages (installer conda) and no TensorFlow; `import tensorflow` -> "
          "ModuleNotFoundError.",
    expected=["install.no-tensorflow"],
    snapshot=snapshot(
        mac("Apple M1", "12.6", 8), py,
        [pkg(site, "numpy", "1.23.2", "", installer="conda"),
         pkg(site, "h5py", "3.6.0", "", installer="conda"),
         pkg(site, "grpcio", "1.46.3", "", installer="conda"),
         pkg(site, "protobuf", "3.19.6", "", installer="conda")],
        runtime=module_not_found(py)))

py = pyorg_universal2("3.12.8", f"{HOME}/venvs/gpu")
site = site_of(py)
scenario(
    "metal_without_tensorflow",
    title="pip install tensorflow-metal alone: the plugin without any TensorFlow",
    source=f"{REFERENCE} contradictions_and_surprises (tensorflow-metal declares no TensorFlow dependency)",
    basis="The reference: tensorflow-metal's Requires-Dist is only wheel and six, with no Requires-Python and "
          "no tensorflow, so `pip install tensorflow-metal` (1.2.0 for cp312) installs the plugin alone and "
          "pip never complains.",
    expected=["install.metal-without-tensorflow"],
    snapshot=snapshot(
        mac("Apple M3", "15.2", 16), py,
        [metal(site, "1.2.0", "3.12"), plain(site, "wheel", "0.45.1"), plain(site, "six", "1.17.0")],
        plugins=[plugin_file(site)], runtime=module_not_found(py)))

py = pyorg_universal2("3.11.4", f"{HOME}/Library/Caches/pypoetry/virtualenvs/tfapp-x1y2z3-py3.11")
py["base_prefix"] = "/opt/homebrew/opt/python@3.11/Frameworks/Python.framework/Versions/3.11"
py["binary"] = {"path": "/opt/homebrew/Cellar/python@3.11/3.11.4_1/Frameworks/Python.framework/Versions/3.11/bin/python3.11",
                "format": "mach-o", "archs": ["arm64"]}
py["platform_tag"] = "macosx-13.0-arm64"
site = site_of(py)
scenario(
    "poetry_tf213_thin_wheel_without_tensorflow_macos",
    title="poetry add tensorflow==2.13.0 on an M2: only the thin arm64 wheel, no tensorflow-macos, no TensorFlow",
    source="tensorflow/tensorflow#61477; python-poetry/poetry#8271; tensorflow/tensorflow#62000",
    basis="poetry#8271: Poetry 1.5.1, Python 3.11.4, macOS 13.3 on an M2: after `poetry add tensorflow==2.13.0`, "
          "`import tensorflow` -> ModuleNotFoundError: No module named 'tensorflow'; #61477/#62000: the arm64 "
          "wheel's own METADATA requires tensorflow-macos==2.13.0 on Darwin/arm64, but the metadata poetry "
          "resolved from does not, so tensorflow-macos was never installed. The reference marks the tensorflow "
          "2.13.0 arm64 wheel thin (no tensorflow package inside).",
    expected=["install.shim-target-missing"],
    snapshot=snapshot(
        mac("Apple M2", "13.3", 16), py,
        [tensorflow(site, "tensorflow", "2.13.0", "3.11", "arm64"), numpy(site, "1.24.3", "3.11"),
         plain(site, "keras", "2.13.1"), plain(site, "protobuf", "4.24.0", "cp37-abi3-macosx_10_9_universal2")],
        runtime=module_not_found(py)))


# --- macOS -------------------------------------------------------------------------------------

py = miniforge("3.10.11", f"{HOME}/miniforge3", "tf")
site = site_of(py)
scenario(
    "macos_1201_below_apple_table",
    title="macOS 12.0.1 with tensorflow-macos 2.12.0 + tensorflow-metal 0.8.0: Apple asks for 12.1+",
    source=f"{REFERENCE} contradictions_and_surprises (metal min macOS: table vs tags); pyinstaller/pyinstaller#6329",
    basis="The reference: Apple's table asks macOS 12.1+ for tensorflow-metal 0.5.0 on, while the 0.5.1-1.2.0 "
          "wheels are tagged macosx_12_0, so pip installs 0.8.0 on 12.0 and cannot enforce 12.1; pyinstaller#6329: "
          "a Mac on macOS 12.0.1 (the release M1 Pro MacBook Pros shipped with). tensorflow-macos 2.12.0 + "
          "tensorflow-metal 0.8.0 is the table's v2.12 row. Static facts only.",
    expected=["compat.macos-too-old"],
    snapshot=snapshot(
        mac("Apple M1 Pro", "12.0.1", 16), py,
        [tensorflow(site, "tensorflow-macos", "2.12.0", "3.10", "arm64"), metal(site, "0.8.0", "3.10"),
         plain(site, "keras", "2.12.0"), numpy(site, "1.23.5", "3.10"),
         plain(site, "protobuf", "4.22.3", "cp37-abi3-macosx_10_9_universal2"),
         plain(site, "h5py", "3.8.0", "cp310-cp310-macosx_11_0_arm64")],
        plugins=[plugin_file(site)]))


# --- runtime and speed ---------------------------------------------------------------------------

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/bets")
site = site_of(py)
scenario(
    "gpu_slower_than_cpu_small_model",
    title="MacBook Air M2: the GPU is listed and used, but the training step is slower than on the CPU",
    source="kochlisGit/ProphitBet-Soccer-Bets-Predictor#38; ../shared/GUIDE.md section 3",
    basis="ProphitBet#38: a new MacBook Air M2, 'The GPU is recognized, but the Training takes longer than with "
          "the CPU only' (119 ms/step with tensorflow-metal, ~1 ms/step without) for a small dense model, while "
          "Apple's example runs faster; the GUIDE: small workloads are latency-bound on a GPU. The thread gives "
          "no versions: the snapshot uses the recommended pair tensorflow 2.19.1 + tensorflow-metal 1.2.0 so "
          "that only speed is at issue. Probe timings are constructed: matmul and conv clearly faster on the GPU, "
          "the training step clearly slower at batch 64 and at the retry size 256, placement on GPU:0 and "
          "numbers in agreement.",
    expected=["probe.gpu-slower"],
    snapshot=snapshot(
        mac("Apple M2", "15.3", 16), py,
        [tensorflow(site, "tensorflow", "2.19.1", "3.11", "arm64"), metal(site, "1.2.0", "3.11"),
         plain(site, "keras", "3.10.0"), numpy(site, "2.1.3", "3.11"),
         plain(site, "ml-dtypes", "0.5.1", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.13.0", "cp311-cp311-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.19.1", metal_site=site, keras=keras3("3.10.0"), probes_ran=True,
                           git_version="v2.19.0-rc0-6-ge36baa30292",
                           stderr=metal_banner("Apple M2", "16.00 GB") + [PLUGIN_OPTIMIZER]),
        probes=probes("2.19.1", [
            probe_run("matmul", "CPU:0", 1024, jitter(21.0)), probe_run("matmul", "GPU:0", 1024, jitter(1.9)),
            probe_run("conv", "CPU:0", 32, jitter(66.0)), probe_run("conv", "GPU:0", 32, jitter(9.5), error=3e-6),
            probe_run("train", "CPU:0", 64, jitter(4.1)),
            probe_run("train", "GPU:0", 64, jitter(11.8), error=5e-6),
            probe_run("train", "CPU:0", 256, jitter(15.2), role="retry"),
            probe_run("train", "GPU:0", 256, jitter(24.5), role="retry", error=5e-6)])))

py = miniforge("3.8.13", f"{HOME}/miniforge3", "tf-metal")
site = site_of(py)
scenario(
    "ops_fall_back_to_cpu",
    title="'Plugin optimizer for device_type GPU is enabled', yet the GPU is not used: work pinned to GPU:0 runs on the CPU",
    source="tensorflow/tensorflow#56782",
    basis="#56782: MacBook Pro 14 (M1 Pro, 16 GPU cores), macOS 12.4, Python 3.8, tensorflow-macos 2.9.2 (and "
          "2.8) with tensorflow-metal 0.5.0: 'Although I get the message \"Plugin optimizer for device_type GPU is "
          "enabled\", the GPU is not used' (56 min/epoch vs 264 s on the CPU); tensorflow-deps 2.8.0 in its "
          "package list makes it a conda (Miniforge) env. The runtime and probe facts encode "
          "'not used' as placement: the GPU is listed, but the pinned matmul and every probe's output live on "
          "CPU:0 (constructed).",
    expected=["runtime.gpu-placement"],
    snapshot=snapshot(
        mac("Apple M1 Pro", "12.4", 16), py,
        [tensorflow(site, "tensorflow-macos", "2.9.2", "3.8", "arm64"), metal(site, "0.5.0", "3.8"),
         plain(site, "keras", "2.9.0"), numpy(site, "1.22.4", "3.8"),
         plain(site, "protobuf", "3.19.4", "cp38-cp38-macosx_10_9_universal2"),
         plain(site, "h5py", "3.7.0", "cp38-cp38-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.9.2", metal_site=site, keras=keras2("2.9.0", KERAS29_ADAM), gpu_placed_on="CPU:0",
                           probes_ran=True,
                           stderr=metal_banner("Apple M1 Pro", prefixed=False) + [PLUGIN_OPTIMIZER]),
        probes=probes("2.9.2", [
            probe_run("matmul", "CPU:0", 1024, jitter(14.0)),
            probe_run("matmul", "GPU:0", 1024, jitter(14.3), placed_on="CPU:0"),
            probe_run("conv", "CPU:0", 32, jitter(41.0)),
            probe_run("conv", "GPU:0", 32, jitter(42.2), placed_on="CPU:0"),
            probe_run("train", "CPU:0", 64, jitter(30.0), optimizer=KERAS29_ADAM),
            probe_run("train", "GPU:0", 64, jitter(31.5), placed_on="CPU:0", optimizer=KERAS29_ADAM)])))

py = pyorg_universal2("3.9.19", f"{HOME}/venvs/conv")
site = site_of(py)
scenario(
    "gpu_results_wrong_conv",
    title="tensorflow 2.16.1 + tensorflow-metal 1.1.0: the GPU's convolution differs from the CPU's",
    source="tensorflow/tensorflow#71577; tensorflow/tensorflow#92686",
    basis="#71577: tensorflow 2.16.1 + tensorflow-metal 1.1.0, macOS 14.5, Python 3.9.19: a Conv1D under "
          "tf.device('/GPU:0') returns values shifted against the CPU's ('Equal: False'); #92686: the same class "
          "of CPU/GPU disagreement on an M1. The chip is not given in #71577: an M1 is assumed. Probe facts are "
          "constructed: matmul agrees; conv and the training step (which contains convolutions) exceed their "
          "1e-3 tolerance by far, on GPU:0, at GPU speed.",
    expected=["probe.gpu-wrong"],
    snapshot=snapshot(
        mac("Apple M1", "14.5", 16), py,
        [tensorflow(site, "tensorflow", "2.16.1", "3.9", "arm64"), metal(site, "1.1.0", "3.9"),
         plain(site, "keras", "3.4.1"), numpy(site, "1.26.4", "3.9"),
         plain(site, "ml-dtypes", "0.3.2", "cp39-cp39-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp39-cp39-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.16.1", metal_site=site, keras=keras3("3.4.1"), probes_ran=True,
                           stderr=metal_banner("Apple M1", when="2024-07-10 11:05:17") + [PLUGIN_OPTIMIZER]),
        probes=probes("2.16.1", [
            probe_run("matmul", "CPU:0", 1024, jitter(19.0)), probe_run("matmul", "GPU:0", 1024, jitter(1.6)),
            probe_run("conv", "CPU:0", 32, jitter(60.0)),
            probe_run("conv", "GPU:0", 32, jitter(6.4), error=1.41),
            probe_run("train", "CPU:0", 64, jitter(48.0)),
            probe_run("train", "GPU:0", 64, jitter(9.1), error=0.37)])))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/yolo")
site = site_of(py)
scenario(
    "memory_growth_fails",
    title="set_memory_growth fails in a fresh process: 'Physical devices cannot be modified after being initialized'",
    source="hunglc007/tensorflow-yolov4-tflite#171; tensorflow/tensorflow#51705",
    basis="yolov4-tflite#171: `RuntimeError: Physical devices cannot be modified after being initialized`, what "
          "set_memory_growth raises once the devices are initialised; #51705: PluggableDevice plugins can take "
          "memory handling into their own hands. Constructed: right after import, in the child, setting memory "
          "growth on GPU:0 raised that error (something initialised the devices during import); everything "
          "else is healthy (tensorflow 2.19.1 + tensorflow-metal 1.2.0 on an M2 Pro).",
    expected=["runtime.memory-growth"],
    snapshot=snapshot(
        mac("Apple M2 Pro", "15.3", 32), py,
        [tensorflow(site, "tensorflow", "2.19.1", "3.11", "arm64"), metal(site, "1.2.0", "3.11"),
         plain(site, "keras", "3.9.2"), numpy(site, "2.1.3", "3.11"),
         plain(site, "ml-dtypes", "0.5.1", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.13.0", "cp311-cp311-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.19.1", metal_site=site, keras=keras3("3.9.2"), memory_growth=None,
                           memory_growth_error="RuntimeError: Physical devices cannot be modified after being initialized",
                           stderr=metal_banner("Apple M2 Pro", "32.00 GB", "10.67 GB"))))

OPT_WARN = ["WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on M1/M2 "
            "Macs, please use the legacy Keras optimizer instead, located at `tf.keras.optimizers.legacy.Adam`.",
            "WARNING:absl:There is a known slowdown when using v2.11+ Keras optimizers on M1/M2 Macs. Falling "
            "back to the legacy Keras optimizer, i.e., `tf.keras.optimizers.legacy.Adam`."]
TF213_GIT = "v2.13.0-rc2-7-g1cb1a030a62"
py = pyorg_universal2("3.11.4", f"{HOME}/venvs/antibody")
site = site_of(py)
scenario(
    "healthy_m2_tf2130_optimizer_fallback_logged",
    title="tensorflow 2.13.0 on an M2: Keras logs the v2.11+ optimizer line and falls back by itself (healthy)",
    source="keras-team/tf-keras#46; tensorflow/tensorflow#59438; tensorflow/tensorflow#61092",
    basis="tf-keras#46: `v2.13.0-rc2-7-g1cb1a030a62 2.13.0` on an Apple M2, `keras.optimizers.Adam()` logs "
          "'WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on M1/M2 "
          "Macs...' and 'There is a known slowdown ... Falling back to the legacy Keras optimizer'; #59438: "
          "Apple's plugin has the fused kernel only for the legacy optimizers, which is what Keras 2.13 falls "
          "back to, so the slowdown the line names is already avoided; #61092 shows the same lines followed by "
          "normal GPU training. pip install tensorflow==2.13.0 on arm64 brings tensorflow-macos 2.13.0. The "
          "thread names no tensorflow-metal: 1.0.0, the table's v2.13 row. No probe ran. Issue 11 class 1: "
          "this line fires on every healthy Keras-2-era Mac, so the setup is healthy (earlier expected "
          "runtime.optimizer-slowdown; reclassified).",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M2", "13.4", 16), py,
        [tensorflow(site, "tensorflow", "2.13.0", "3.11", "arm64"),
         tensorflow(site, "tensorflow-macos", "2.13.0", "3.11", "arm64"), metal(site, "1.0.0", "3.11"),
         plain(site, "keras", "2.13.1"), numpy(site, "1.24.3", "3.11"),
         plain(site, "protobuf", "4.23.4", "cp37-abi3-macosx_10_9_universal2"),
         plain(site, "h5py", "3.9.0", "cp311-cp311-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.13.0", metal_site=site, git_version=TF213_GIT,
                           keras=keras2("2.13.1", "keras.src.optimizers.legacy.adam.Adam"),
                           stderr=metal_banner("Apple M2", prefixed=False) + OPT_WARN)))

py = pyorg_universal2("3.11.5", f"{HOME}/venvs/rnn")
site = site_of(py)
scenario(
    "optimizer_slowdown_train_slower_m1_ultra",
    title="Mac Studio M1 Ultra, tensorflow 2.13.0: training much slower with tensorflow-metal than without",
    source="tensorflow/tensorflow#62397; keras-team/tf-keras#46; tensorflow/tensorflow#59438",
    basis="#62397: Mac Studio M1 Ultra, macOS 13.5.2, Python 3.11, `v2.13.0-rc2-7-g1cb1a030a62 2.13.0`: ~670 "
          "ms/step with tensorflow-metal, 20 ms/step after uninstalling it; Keras 2.13 logs the v2.11+ optimizer "
          "warning on M1/M2 (tf-keras#46) and #59438 explains the up-to-3x slowdown. Probe timings are "
          "constructed in that direction: matmul and conv faster on the GPU, the training step slower at "
          "both sizes. The tensorflow-metal version is not given: 1.0.0, the table's v2.13 row.",
    expected=["runtime.optimizer-slowdown"],
    snapshot=snapshot(
        mac("Apple M1 Ultra", "13.5.2", 64), py,
        [tensorflow(site, "tensorflow", "2.13.0", "3.11", "arm64"),
         tensorflow(site, "tensorflow-macos", "2.13.0", "3.11", "arm64"), metal(site, "1.0.0", "3.11"),
         plain(site, "keras", "2.13.1"), numpy(site, "1.24.3", "3.11"),
         plain(site, "protobuf", "4.24.4", "cp37-abi3-macosx_10_9_universal2"),
         plain(site, "h5py", "3.10.0", "cp311-cp311-macosx_11_0_arm64")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.13.0", metal_site=site, git_version=TF213_GIT, probes_ran=True,
                           keras=keras2("2.13.1", "keras.src.optimizers.legacy.adam.Adam"),
                           stderr=metal_banner("Apple M1 Ultra", "64.00 GB", "24.00 GB", prefixed=False)
                           + OPT_WARN + [PLUGIN_OPTIMIZER]),
        probes=probes("2.13.0", [
            probe_run("matmul", "CPU:0", 1024, jitter(9.0)), probe_run("matmul", "GPU:0", 1024, jitter(0.6)),
            probe_run("conv", "CPU:0", 32, jitter(25.0)), probe_run("conv", "GPU:0", 32, jitter(2.4), error=2e-6),
            probe_run("train", "CPU:0", 64, jitter(6.0), optimizer="keras.src.optimizers.adam.Adam"),
            probe_run("train", "GPU:0", 64, jitter(19.0), error=4e-6, optimizer="keras.src.optimizers.adam.Adam"),
            probe_run("train", "CPU:0", 256, jitter(21.0), role="retry", optimizer="keras.src.optimizers.adam.Adam"),
            probe_run("train", "GPU:0", 256, jitter(38.0), role="retry", error=4e-6,
                      optimizer="keras.src.optimizers.adam.Adam")])))


# --- Intel Macs ------------------------------------------------------------------------------------

py = pyorg_universal2("3.12.4", f"{HOME}/venvs/tf")
py["process_arch"] = "x86_64"
site = site_of(py)
scenario(
    "intel_mac_python312_no_metal_wheel",
    title="An Intel MacBook Pro with Python 3.12: tensorflow 2.16.2 installs, no tensorflow-metal fits",
    source=f"{REFERENCE} contradictions_and_surprises (metal x86_64 ends at 1.0.0; metal Python coverage)",
    basis="The reference: tensorflow-metal has Intel (x86_64) wheels only up to 1.0.0, at most cp311, and "
          "tensorflow's last Intel macOS wheels are 2.16.x (cp39-cp312, macosx_10_15_x86_64). A python.org "
          "universal2 3.12 on an Intel Mac runs as x86_64 natively (hw.optional.arm64 0, "
          "sysctl.proc_translated absent, read as not translated). Static facts only.",
    expected=["compat.no-wheel-for-python"],
    snapshot=snapshot(
        intel_mac("Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz", "14.6", 16), py,
        [tensorflow(site, "tensorflow", "2.16.2", "3.12", "x86_64"), plain(site, "keras", "3.4.1"),
         numpy(site, "1.26.4", "3.12", "x86_64"),
         plain(site, "ml-dtypes", "0.3.2", "cp312-cp312-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp312-cp312-macosx_10_9_x86_64")]))


# --- healthy machines: no warning, no error --------------------------------------------------------

scenario(
    "healthy_m1_tfmacos290_metal050",
    title="M1, macOS 15.6.1: tensorflow-macos 2.9.0 + tensorflow-metal 0.5.0, the table's v2.9 pair",
    source=f"{BLOG}; tensorflow-metal 1.2.0 METADATA table ({REFERENCE} pairs_source_table)",
    basis="The blog's hand test on an M1, macOS 15.6.1, Python 3.10 (/opt/miniconda3/envs/metal): 2.9.0 + 0.5.0 "
          "imports and passes Apple's verification script; Apple's table: '|v2.9 |v0.5.0|12.1+|'. Static facts "
          "only.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M1", "15.6.1", 16), py_blog,
        blog_env("tensorflow-macos", "2.9.0", "0.5.0", [plain(BLOG_SITE, "keras", "2.9.0"),
                                                         numpy(BLOG_SITE, "1.23.5", "3.10"),
                                                         plain(BLOG_SITE, "protobuf", "3.19.6", "cp310-cp310-macosx_10_9_universal2"),
                                                         plain(BLOG_SITE, "h5py", "3.7.0", "cp310-cp310-macosx_11_0_arm64")]),
        plugins=[plugin_file(BLOG_SITE)]))

py = miniforge("3.10.11", f"{HOME}/miniforge3", "tf212")
site = site_of(py)
scenario(
    "healthy_m1pro_tfmacos2120_metal080",
    title="M1 Pro, macOS 12.5.1, conda-forge Python 3.10: tensorflow-macos 2.12.0 + tensorflow-metal 0.8.0",
    source=f"tensorflow/tensorflow#60652; {BLOG}; tensorflow-metal 1.2.0 METADATA table",
    basis="#60652: an M1 Pro on macOS 12.5.1 with `Python 3.10.11 | packaged by conda-forge` and "
          "tensorflow-macos 2.12.0 (its AdamW report is a Keras API matter, not the environment); Apple's table "
          "row '|v2.12|v0.8.0|12.1+|' and the blog's test (2.12.0 + 0.8.0 works). tensorflow-macos 2.12.0 pins "
          "numpy<1.24 (reference). Static facts only: with Keras 2.12 a runtime run logs Keras' M1/M2 optimizer "
          "warning, a separate scenario.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M1 Pro", "12.5.1", 16), py,
        [tensorflow(site, "tensorflow-macos", "2.12.0", "3.10", "arm64"), metal(site, "0.8.0", "3.10"),
         plain(site, "keras", "2.12.0"), numpy(site, "1.23.5", "3.10"),
         plain(site, "protobuf", "4.22.3", "cp37-abi3-macosx_10_9_universal2"),
         plain(site, "h5py", "3.8.0", "cp310-cp310-macosx_11_0_arm64")],
        plugins=[plugin_file(site)]))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/tf")
site = site_of(py)
scenario(
    "healthy_m2_tf2191_metal120_probed",
    title="M2, macOS 14.5: tensorflow 2.19.1 + tensorflow-metal 1.2.0, GPU listed, used and faster",
    source="tensorflow/tensorflow#126360; compat_matrix.json recommended (tensorflow 2.19 + tensorflow-metal 1.2.0)",
    basis="PR #126360: 'The same plugin works on 2.18.1 and 2.19.' Runtime: CPU:0 and GPU:0 (METAL), memory "
          "growth set, the pinned matmul on GPU:0, Metal's banner 'Metal device set to: Apple M2'; probes "
          "(constructed): the GPU clearly faster on matmul, conv and the training step, in agreement with the CPU.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M2", "14.5", 16), py,
        [tensorflow(site, "tensorflow", "2.19.1", "3.11", "arm64"), metal(site, "1.2.0", "3.11"),
         plain(site, "keras", "3.10.0"), numpy(site, "2.1.3", "3.11"),
         plain(site, "ml-dtypes", "0.5.1", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.13.0", "cp311-cp311-macosx_11_0_arm64"),
         plain(site, "protobuf", "5.29.4", "cp38-abi3-macosx_10_9_universal2")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.19.1", metal_site=site, keras=keras3("3.10.0"), probes_ran=True,
                           git_version="v2.19.0-rc0-6-ge36baa30292",
                           stderr=metal_banner("Apple M2") + [PLUGIN_OPTIMIZER]),
        probes=probes("2.19.1", healthy_probe_runs())))

py = pyorg_universal2("3.11.7", f"{HOME}/venvs/tf215")
site = site_of(py)
scenario(
    "healthy_m2max_tf215_shim_onto_tfmacos",
    title="M2 Max: pip install tensorflow==2.15.0 tensorflow-metal (tensorflow is a shim onto tensorflow-macos)",
    source="tensorflow/tensorflow#61915; astral-sh/uv#12092; tensorflow-metal 1.2.0 METADATA table",
    basis="#61915: from 2.13, tensorflow's setup.py pulls tensorflow-macos on Darwin/arm64; uv#12092: the "
          "tensorflow 2.14.0 arm64 wheel has no tensorflow package, only 'tensorflow-macos (==2.14.0) ; "
          "platform_system == \"Darwin\" and platform_machine == \"arm64\"' (the same for 2.15.0 in the "
          "reference); Apple's table '|v2.14-v2.18|v1.1.0|12.1+|'. Both distributions installed, one of them a "
          "shim: a healthy install. Static facts only (Keras 2.15).",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M2 Max", "14.2", 64), py,
        [tensorflow(site, "tensorflow", "2.15.0", "3.11", "arm64"),
         tensorflow(site, "tensorflow-macos", "2.15.0", "3.11", "arm64"), metal(site, "1.1.0", "3.11"),
         plain(site, "keras", "2.15.0"), numpy(site, "1.26.2", "3.11"),
         plain(site, "ml-dtypes", "0.2.0", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.10.0", "cp311-cp311-macosx_11_0_arm64"),
         plain(site, "protobuf", "4.23.4", "cp37-abi3-macosx_10_9_universal2")],
        plugins=[plugin_file(site)]))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/selfstudy")
site = site_of(py)
scenario(
    "healthy_m3_tf2162_metal110",
    title="M3, macOS 14.5: tensorflow 2.16.2 + tensorflow-metal 1.1.0 (Keras 3), GPU listed and used",
    source="https://github.com/92berra/Selfstudy/blob/HEAD/tensorflow/ex01-install.md; tensorflow-metal 1.2.0 METADATA table; "
           + BLOG,
    basis="Selfstudy (2024-07): Metal's banner on an M3 with 16 GB, 'I metal_plugin/src/device/metal_device.cc:1154] "
          "Metal device set to: Apple M3 ... systemMemory: 16.00 GB ... maxCacheSize: 5.33 GB'; Apple's table "
          "'|v2.14-v2.18|v1.1.0|12.1+|'; the blog: 2.16 + 1.1.0 works. Runtime: GPU:0 listed (METAL), memory "
          "growth set, the pinned matmul on GPU:0, tf.keras is Keras 3.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M3", "14.5", 16), py,
        [tensorflow(site, "tensorflow", "2.16.2", "3.11", "arm64"), metal(site, "1.1.0", "3.11"),
         plain(site, "keras", "3.4.1"), numpy(site, "1.26.4", "3.11"),
         plain(site, "ml-dtypes", "0.3.2", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64"),
         plain(site, "protobuf", "4.25.3", "cp37-abi3-macosx_10_9_universal2")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.16.2", metal_site=site, keras=keras3("3.4.1"),
                           stderr=metal_banner("Apple M3", when="2024-07-01 21:13:32"))))

py = pyorg_universal2("3.11.9", f"{HOME}/venvs/tb")
site = site_of(py)
scenario(
    "healthy_m3pro_tf2170_metal110",
    title="M3 Pro, macOS 14.6: tensorflow 2.17.0 + tensorflow-metal 1.1.0 with Python 3.11",
    source="tensorflow/tensorflow#84167; tensorflow-metal 1.2.0 METADATA table; " + BLOG,
    basis="#84167: 'Apple silicone GPU with tensorflow-metal==1.1.0 and python 3.11 works fine with "
          "tensorboard==2.17.0' (TensorFlow 2.17); Apple's table covers v2.14-v2.18 with 1.1.0; the blog: "
          "2.17.0 + 1.1.0 works. numpy within 2.17's pin (<2.0.0). Runtime healthy.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M3 Pro", "14.6", 18), py,
        [tensorflow(site, "tensorflow", "2.17.0", "3.11", "arm64"), metal(site, "1.1.0", "3.11"),
         plain(site, "keras", "3.5.0"), numpy(site, "1.26.4", "3.11"),
         plain(site, "ml-dtypes", "0.4.1", "cp311-cp311-macosx_10_9_universal2"),
         plain(site, "h5py", "3.11.0", "cp311-cp311-macosx_11_0_arm64"),
         plain(site, "tensorboard", "2.17.0")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.17.0", metal_site=site, keras=keras3("3.5.0"),
                           stderr=metal_banner("Apple M3 Pro", "18.00 GB", "6.00 GB", when="2024-10-09 08:51:02"))))

HB12 = "/opt/homebrew/Cellar/python@3.12/3.12.9/Frameworks/Python.framework/Versions/3.12"
py = python("3.12.9", f"{HOME}/venvs/tf/bin/python", f"{HOME}/venvs/tf", base_prefix=HB12,
            binary=f"{HB12}/bin/python3.12", archs=["arm64"], process_arch="arm64", translated=False,
            framework="Python", platform_tag="macosx-15.0-arm64")
site = site_of(py)
scenario(
    "healthy_m4_tf2190_metal120_probed",
    title="M4, macOS 15.3, native Homebrew Python 3.12: tensorflow 2.19.0 + tensorflow-metal 1.2.0, GPU faster",
    source="tensorflow/tensorflow#126360; Homebrew/brew#11717",
    basis="PR #126360: tensorflow-metal 1.2.0 works with 2.18.1 and 2.19; brew#11717: /opt/homebrew is the "
          "Apple-silicon Homebrew prefix (a native arm64 Python). 1.2.0 is the only release with a cp312 "
          "wheel. Runtime healthy; probes (constructed) show the GPU clearly faster, in agreement.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M4", "15.3", 16), py,
        [tensorflow(site, "tensorflow", "2.19.0", "3.12", "arm64"), metal(site, "1.2.0", "3.12"),
         plain(site, "keras", "3.9.0"), numpy(site, "2.1.3", "3.12"),
         plain(site, "ml-dtypes", "0.5.1", "cp312-cp312-macosx_10_9_universal2"),
         plain(site, "h5py", "3.13.0", "cp312-cp312-macosx_11_0_arm64"),
         plain(site, "protobuf", "5.29.3", "cp38-abi3-macosx_10_9_universal2")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.19.0", metal_site=site, keras=keras3("3.9.0"), probes_ran=True,
                           git_version="v2.19.0-rc0-6-ge36baa30292",
                           stderr=metal_banner("Apple M4", when="2025-03-20 19:44:05") + [PLUGIN_OPTIMIZER]),
        probes=probes("2.19.0", healthy_probe_runs(matmul_cpu=12.0, matmul_gpu=1.1, conv_cpu=38.0,
                                                   conv_gpu=4.2, train_cpu=30.0, train_gpu=6.0))))

py = pyorg_universal2("3.12.8", f"{HOME}/venvs/tf")
site = site_of(py)
scenario(
    "healthy_m4pro_tf2181_metal120",
    title="M4 Pro, macOS 15.2: tensorflow 2.18.1 + tensorflow-metal 1.2.0 with Python 3.12",
    source="tensorflow/tensorflow#126360; compat_matrix.json runtime_evidence metal-1.2.0-works-on-tf-2.18.1-and-2.19",
    basis="PR #126360: 'The same plugin works on 2.18.1 and 2.19.' numpy 2.0.2 within 2.18's pin "
          "(<2.1.0, >=1.26.0, built against NumPy 2). Runtime healthy, Metal banner for an M4 Pro with 24 GB.",
    expected=[], healthy=True,
    snapshot=snapshot(
        mac("Apple M4 Pro", "15.2", 24), py,
        [tensorflow(site, "tensorflow", "2.18.1", "3.12", "arm64"), metal(site, "1.2.0", "3.12"),
         plain(site, "keras", "3.9.0"), numpy(site, "2.0.2", "3.12"),
         plain(site, "ml-dtypes", "0.4.1", "cp312-cp312-macosx_10_9_universal2"),
         plain(site, "h5py", "3.13.0", "cp312-cp312-macosx_11_0_arm64"),
         plain(site, "protobuf", "5.29.3", "cp38-abi3-macosx_10_9_universal2")],
        plugins=[plugin_file(site)],
        runtime=runtime_ok(py, "2.18.1", metal_site=site, keras=keras3("3.9.0"),
                           stderr=metal_banner("Apple M4 Pro", "24.00 GB", "8.00 GB", when="2025-04-02 09:12:44"))))

py = pyorg_universal2("3.8.10", f"{HOME}/tensorflow-metal")
py["process_arch"] = "x86_64"
site = site_of(py)
scenario(
    "healthy_intel_amd_radeon_tfmacos280_metal040",
    title="Intel MacBook Pro with an AMD Radeon Pro 555X: tensorflow-macos 2.8.0 + tensorflow-metal 0.4.0",
    source="tensorflow/tensorflow#57058; tensorflow-metal 1.2.0 METADATA table",
    basis="#57058 (TF 2.8): a maintainer's run on an Intel MacBook Pro in a 'tensorflow-metal' env prints 'Metal "
          "device set to: AMD Radeon Pro 555X', 'systemMemory: 32.00 GB', 'maxCacheSize: 2.00 GB', the METAL "
          "PluggableDevice line, and trains; Apple's table '|v2.8 |v0.4.0|12.0+|'. tensorflow-metal 0.4.0 has "
          "Intel wheels for cp38 only (reference). An Intel Mac: hw.optional.arm64 0, native x86_64.",
    expected=[], healthy=True,
    snapshot=snapshot(
        intel_mac("Intel(R) Core(TM) i9-8950HK CPU @ 2.90GHz", "12.5", 32), py,
        [tensorflow(site, "tensorflow-macos", "2.8.0", "3.8", "x86_64"), metal(site, "0.4.0", "3.8", "x86_64"),
         plain(site, "keras", "2.8.0"), numpy(site, "1.22.4", "3.8", "x86_64"),
         plain(site, "protobuf", "3.19.4", "cp38-cp38-macosx_10_9_x86_64"),
         plain(site, "h5py", "3.6.0", "cp38-cp38-macosx_10_9_x86_64")],
        plugins=[plugin_file(site, "x86_64")],
        runtime=runtime_ok(py, "2.8.0", metal_site=site, keras=keras2("2.8.0", KERAS29_ADAM),
                           stderr=metal_banner("AMD Radeon Pro 555X", "32.00 GB", "2.00 GB", prefixed=False,
                                               when="2022-08-17 12:55:41"))))

py = python("3.11.7", "/usr/bin/python3", "/usr", binary="/usr/bin/python3.11", archs=["x86_64"],
            process_arch="x86_64", translated=None, platform_tag="linux-x86_64", fmt="elf")
py["site_packages"] = ["/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages"]
site = site_of(py)
scenario(
    "healthy_linux_x86_64_cpu_only",
    title="A Linux x86_64 box with tensorflow-cpu 2.19.1: CPU only, nothing to fix",
    source="../shared/GUIDE.md section 4 (tensorflow-cpu installs on these Linux x86_64 machines); " + REFERENCE,
    basis="The GUIDE: the test machines are Linux x86_64 without a GPU, where tensorflow-cpu installs and "
          "imports; tensorflow 2.19.1's pins (reference). Runtime: CPU:0 only, no plugins; TensorFlow's "
          "cpu_feature_guard info line; probes on the CPU only.",
    expected=[], healthy=True,
    snapshot=snapshot(
        {"system": "Linux", "release": "6.1.0-28-amd64", "cpu_brand": "AMD EPYC 7B13",
         "cpu_flags": ["avx", "avx2", "fma", "sse4_1", "sse4_2"], "cpu_implementer": None,
         "memory_bytes": 24 * GB, "container": None, "binfmt_handlers": []}, py,
        [pkg(site, "tensorflow-cpu", "2.19.1", "cp311-cp311-manylinux_2_17_x86_64",
             requires("tensorflow", "2.19.1", "x86_64"), elf("x86_64", TF_LIB)),
         plain(site, "keras", "3.10.0"),
         pkg(site, "numpy", "2.1.3", "cp311-cp311-manylinux_2_17_x86_64",
             binaries=elf("x86_64", "numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so")),
         plain(site, "ml-dtypes", "0.5.1", "cp311-cp311-manylinux_2_17_x86_64"),
         plain(site, "h5py", "3.13.0", "cp311-cp311-manylinux_2_17_x86_64"),
         plain(site, "protobuf", "5.29.4", "cp38-abi3-manylinux2014_x86_64")],
        env={},
        runtime=runtime_ok(py, "2.19.1", gpu=False, keras=keras3("3.10.0"), probes_ran=True,
                           git_version="v2.19.0-rc0-6-ge36baa30292", stderr=[
                               "2025-05-02 08:00:01.112233: I tensorflow/core/platform/cpu_feature_guard.cc:210] "
                               "This TensorFlow binary is optimized to use available CPU instructions in "
                               "performance-critical operations.",
                               "To enable the following instructions: AVX2 FMA, in other operations, rebuild "
                               "TensorFlow with the appropriate compiler flags."]),
        probes=probes("2.19.1", [probe_run("matmul", "CPU:0", 1024, jitter(24.0)),
                                 probe_run("conv", "CPU:0", 32, jitter(80.0)),
                                 probe_run("train", "CPU:0", 64, jitter(55.0))], gpu=False)))

py = python("3.11.13", "/usr/local/bin/python", "/usr/local", binary="/usr/local/bin/python3.11",
            archs=["arm64"], process_arch="aarch64", translated=None, platform_tag="linux-aarch64", fmt="elf")
site = site_of(py)
scenario(
    "healthy_linux_arm64_container_on_apple",
    title="The fix for emulation: an arm64 (linux/arm64) python:3.11 container on an M2 runs TensorFlow natively",
    source="docker/for-mac#5342; docker/for-mac#6512; " + REFERENCE,
    basis="for-mac#5342: Docker advised arm64/multi-arch images instead of amd64 under QEMU; for-mac#6512: "
          "/proc/cpuinfo in Docker Desktop's VM shows 'CPU implementer : 0x00'. The process is aarch64 "
          "(native in the VM), with tensorflow 2.19.1's manylinux_2_17_aarch64 wheel (reference). No GPU in a "
          "Linux container (no Metal), CPU only by design.",
    expected=[], healthy=True,
    snapshot=snapshot(
        {"system": "Linux", "release": "6.10.14-linuxkit", "cpu_brand": None,
         "cpu_flags": sorted(ARM_FEATURES.split()), "cpu_implementer": "0x00", "memory_bytes": 8 * GB,
         "container": "docker", "binfmt_handlers": None}, py,
        [pkg(site, "tensorflow", "2.19.1", "cp311-cp311-manylinux_2_17_aarch64",
             requires("tensorflow", "2.19.1", "aarch64"), elf("arm64", TF_LIB)),
         plain(site, "keras", "3.10.0"),
         pkg(site, "numpy", "2.1.3", "cp311-cp311-manylinux_2_17_aarch64",
             binaries=elf("arm64", "numpy/_core/_multiarray_umath.cpython-311-aarch64-linux-gnu.so")),
         plain(site, "ml-dtypes", "0.5.1", "cp311-cp311-manylinux_2_17_aarch64"),
         plain(site, "h5py", "3.13.0", "cp311-cp311-manylinux_2_17_aarch64"),
         plain(site, "protobuf", "5.29.4", "cp38-abi3-manylinux2014_aarch64")],
        env={},
        runtime=runtime_ok(py, "2.19.1", gpu=False, keras=keras3("3.10.0"),
                           git_version="v2.19.0-rc0-6-ge36baa30292")))


# =============================================================================================
# the second corpus (issue 11): public reports of working setups and of failures, one module each


def _load_reports() -> None:
    """Run the builders of the reports_*.py modules against this module's helpers (they live apart
    to keep each module readable; they call scenario() here, report_parts.py adds shared parts)."""
    import importlib.util

    def load(stem: str):
        spec = importlib.util.spec_from_file_location(f"tfdoctor_scenarios_{stem}", HERE / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
        return module

    this, parts = sys.modules[__name__], load("report_parts")
    parts.extend(this)
    for stem in REPORT_MODULES:
        before = set(SCENARIOS)
        load(stem).add(this, parts)
        SECOND_CORPUS.extend(name for name in SCENARIOS if name not in before)


REPORT_MODULES = ("reports_working_pip", "reports_working_conda", "reports_working_bench",
                  "reports_failing_arch", "reports_failing_install", "reports_failing")
SECOND_CORPUS: list[str] = []
"""The scenarios of issue 11's corpus (public reports not used before), in build order."""
_load_reports()


# =============================================================================================


def documents() -> dict[str, str]:
    """File name -> the JSON text of each scenario (stable key order, two-space indent)."""
    out = {}
    for name, doc in SCENARIOS.items():
        ordered = {key: copy.deepcopy(doc[key]) for key in KEYS}
        out[f"{name}.json"] = json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    args = parser.parse_args(argv)
    wanted = documents()
    present = {p.name for p in HERE.glob("*.json")}
    stale = sorted(present - set(wanted))
    changed = sorted(name for name, text in wanted.items()
                     if not (HERE / name).exists() or (HERE / name).read_text(encoding="utf-8") != text)
    if args.check:
        for name in changed:
            print(f"differs from build.py: {name}")
        for name in stale:
            print(f"not built by build.py: {name}")
        return 1 if changed or stale else 0
    for name in changed:
        (HERE / name).write_text(wanted[name], encoding="utf-8")
    for name in stale:
        (HERE / name).unlink()
    print(f"{len(wanted)} scenarios; wrote {len(changed)}, removed {len(stale)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
