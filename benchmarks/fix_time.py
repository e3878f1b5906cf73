#!/usr/bin/env python3
"""Time to a fixed environment: `tfdoctor fix --new-env N --yes` on a broken venv (tensorflow-cpu
2.21.0 with protobuf 5.29.5, below its pin), with pip and, when `pip install uv` works, with uv.

    python benchmarks/fix_time.py [--repeats N]

Prints the median seconds of each (the whole command: diagnosis, venv, install, verification).
Linux x86_64; downloads go through pip's configured index and cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(*argv: str, env: dict | None = None) -> None:
    subprocess.run(list(argv), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="tfdoctor-fixbench-"))
    try:
        broken = root / "broken"
        run(sys.executable, "-m", "venv", str(broken))
        run(str(broken / "bin" / "python"), "-m", "pip", "install", "-q", "tensorflow-cpu==2.21.0")
        run(str(broken / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "protobuf==5.29.5")
        tools = root / "tools"
        uv_bin = None
        try:
            run(sys.executable, "-m", "venv", str(tools))
            run(str(tools / "bin" / "python"), "-m", "pip", "install", "-q", "uv")
            uv_bin = tools / "bin"
        except subprocess.CalledProcessError:
            print("uv: `pip install uv` failed here; timing pip only")
        path_without_uv = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                          if not (Path(p) / "uv").exists())
        setups = {"pip": {**os.environ, "PATH": path_without_uv}}
        if uv_bin:
            setups["uv"] = {**os.environ, "PATH": f"{uv_bin}{os.pathsep}{path_without_uv}"}
        for name, env in setups.items():
            times = []
            for i in range(args.repeats):
                new = root / f"fixed-{name}-{i}"
                t0 = time.perf_counter()
                run(sys.executable, "-m", "tfdoctor", "fix", "--python", str(broken), "--new-env", str(new),
                    "--yes", env=env)
                times.append(time.perf_counter() - t0)
                shutil.rmtree(new, ignore_errors=True)
            print(f"{name}: median {statistics.median(times):.1f} s to a fixed environment "
                  f"({', '.join(f'{t:.1f}' for t in times)} s over {len(times)} runs)")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
