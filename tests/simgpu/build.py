"""Build the simulated PluggableDevice (simgpu.c) against an installed TensorFlow.

    build_plugin(tf_python, out_dir=None, variant="normal") -> Path

compiles ``simgpu.c`` with gcc (``$CC`` overrides) against the headers and
``libtensorflow_framework`` of the TensorFlow that ``tf_python`` imports, and
returns the path of the shared library, named ``libsimgpu.so`` so it can be
copied into a ``tensorflow-plugins/`` directory as is.

Builds are cached under ``out_dir`` (default ``~/.cache/tfdoctor-tests/simgpu``)
in a directory keyed by the TensorFlow version and a hash of the C source, the
compiler flags and the variant; a second call with the same inputs returns at
once.  A file lock makes parallel callers build once.  Nothing here imports
TensorFlow: its location and version are read with importlib, which does not
run ``tensorflow/__init__.py``.

Variants:
  normal          the plugin; behaviour picked at run time by $SIMGPU_MODE
  missing-symbol  references a C API function TensorFlow does not export, so
                  loading it fails like a tensorflow-metal built for another
                  TensorFlow ("undefined symbol" / "Symbol not found")

Command line: ``python tests/simgpu/build.py [--tf-python PY] [--out DIR]
[--variant V]`` prints the library's path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, when run as a script
from support.tfenv import file_lock  # noqa: E402

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "simgpu.c"
LIB_NAME = "libsimgpu.so"
DEFAULT_OUT = Path.home() / ".cache" / "tfdoctor-tests" / "simgpu"
VARIANTS = ("normal", "missing-symbol")

CFLAGS = ("-std=c11", "-O3", "-fPIC", "-pthread", "-Wall", "-Wextra")
_VARIANT_FLAGS = {
    "normal": ("-Wl,--no-undefined",),
    "missing-symbol": ("-DSIMGPU_MISSING_SYMBOL",),
}

# Reads where TensorFlow is and its version without importing it.
_PROBE = r"""
import importlib.metadata as md, importlib.util, json, os, sys
spec = importlib.util.find_spec("tensorflow")
if spec is None or not spec.origin:
    sys.exit("tensorflow is not installed for " + sys.executable)
tf_dir = os.path.dirname(spec.origin)
version = None
for dist in md.packages_distributions().get("tensorflow", []):
    try:
        version = md.version(dist)
        break
    except md.PackageNotFoundError:
        pass
print(json.dumps({"tf_dir": tf_dir, "version": version}))
"""


class BuildError(RuntimeError):
    """The plugin could not be compiled."""


def compiler() -> str | None:
    """The C compiler to use ($CC, else gcc), or None if there is none."""
    cc = os.environ.get("CC") or "gcc"
    return shutil.which(cc)


def tf_build_info(tf_python: os.PathLike | str) -> dict:
    """``{"tf_dir", "version", "include", "framework_lib"}`` for tf_python."""
    proc = subprocess.run(
        [str(tf_python), "-c", _PROBE], capture_output=True, text=True, timeout=120
    )
    if proc.returncode != 0:
        raise BuildError(
            f"cannot locate TensorFlow with {tf_python}: {proc.stderr.strip()}"
        )
    info = json.loads(proc.stdout)
    tf_dir = Path(info["tf_dir"])
    if sys.platform == "darwin":
        lib = tf_dir / "libtensorflow_framework.2.dylib"
    else:
        lib = tf_dir / "libtensorflow_framework.so.2"
    include = tf_dir / "include"
    header = include / "tensorflow/c/experimental/stream_executor/stream_executor.h"
    if not header.exists() or not lib.exists():
        raise BuildError(
            f"TensorFlow at {tf_dir} lacks {header.name} or {lib.name}: "
            "is it a full pip wheel?"
        )
    if not info["version"]:
        raise BuildError(f"cannot tell the version of TensorFlow at {tf_dir}")
    return {
        "tf_dir": str(tf_dir),
        "version": info["version"],
        "include": str(include),
        "framework_lib": str(lib),
    }


def _command(cc: str, info: dict, variant: str, out: Path) -> list[str]:
    lib = Path(info["framework_lib"])
    if sys.platform == "darwin":
        link = [f"-L{lib.parent}", "-ltensorflow_framework.2"]
        rpath = "-Wl,-rpath,@loader_path/../tensorflow"
        flags = [f for f in _VARIANT_FLAGS[variant] if "no-undefined" not in f]
    else:
        link = [f"-L{lib.parent}", f"-l:{lib.name}"]
        # Like tensorflow-metal: find TensorFlow next to tensorflow-plugins/.
        # (When TensorFlow has already been imported the loader reuses the
        # loaded libtensorflow_framework by soname, wherever the plugin is.)
        rpath = "-Wl,-rpath,$ORIGIN/../tensorflow"
        flags = list(_VARIANT_FLAGS[variant])
    return [
        cc,
        *CFLAGS,
        *flags,
        "-shared",
        f"-I{info['include']}",
        str(SOURCE),
        "-o",
        str(out),
        *link,
        rpath,
    ]


def cache_key(version: str, variant: str = "normal") -> str:
    """Directory name for a build: TF version + hash of source, flags, variant."""
    h = hashlib.sha256()
    h.update(SOURCE.read_bytes())
    h.update(repr((CFLAGS, _VARIANT_FLAGS[variant], variant, platform.machine())).encode())
    suffix = "" if variant == "normal" else f"-{variant}"
    return f"simgpu-tf{version}-{h.hexdigest()[:12]}{suffix}"


def build_plugin(
    tf_python: os.PathLike | str,
    out_dir: os.PathLike | str | None = None,
    variant: str = "normal",
) -> Path:
    """Compile (or reuse) libsimgpu.so for the TensorFlow of ``tf_python``."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    cc = compiler()
    if cc is None:
        raise BuildError("no C compiler: install gcc or set $CC")
    info = tf_build_info(tf_python)
    root = Path(out_dir) if out_dir is not None else DEFAULT_OUT
    root.mkdir(parents=True, exist_ok=True)
    target_dir = root / cache_key(info["version"], variant)
    target = target_dir / LIB_NAME
    if target.exists():
        return target
    with file_lock(root / ".build.lock"):
        if target.exists():
            return target
        target_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".libsimgpu-", suffix=".so", dir=target_dir)
        os.close(fd)
        tmp = Path(tmp_name)
        cmd = _command(cc, info, variant, tmp)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if proc.returncode != 0:
                raise BuildError(
                    "compiling simgpu.c failed:\n$ "
                    + " ".join(cmd)
                    + "\n"
                    + proc.stdout
                    + proc.stderr
                )
            os.chmod(tmp, 0o755)
            (target_dir / "build.json").write_text(
                json.dumps({"command": cmd, "tensorflow": info, "variant": variant}, indent=2)
            )
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", help="python that imports TensorFlow "
                        "(default: the cached test venv, see tests/support/tfenv.py)")
    parser.add_argument("--out", help=f"cache directory (default {DEFAULT_OUT})")
    parser.add_argument("--variant", default="normal", choices=VARIANTS)
    args = parser.parse_args(argv)
    tf_python = args.tf_python
    if tf_python is None:
        sys.path.insert(0, str(HERE.parent.parent))
        from tests.support import tfenv

        tf_python = tfenv.tf_python()
    print(build_plugin(tf_python, args.out, args.variant))
    return 0


if __name__ == "__main__":
    sys.exit(main())
