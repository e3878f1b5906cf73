"""What the runtime child costs on top of a bare `python -c "import tensorflow"`.

Four measurements, interleaved so machine noise hits each alike, with the TensorFlow venv's python:
  bare    python -c "import tensorflow"
  bare+exit  python -c "import tensorflow, os; os._exit(0)": the bare import without interpreter
          teardown, which the child skips too (TensorFlow's teardown costs about half a second)
  child   python tfdoctor/target/runtime_child.py RESULT --timeout 60   (import, memory growth,
          devices, a pinned op per device, memory info, Keras; result written after each stage)
  parent  tfdoctor.runtime.gather_runtime(python, 60) in this process: the child plus the
          parent's process group, stderr capture and parsing (logparse) and classification
Prints medians, spreads and the ratios child/bare and parent/bare; also the child's own
import_s (TensorFlow's import inside the child) against the bare process time.

    python benchmarks/runtime_overhead.py [--runs 9] [--tf-python PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from tfdoctor.runtime import CHILD, child_env, gather_runtime  # noqa: E402


def wall(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def describe(name: str, samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    return (f"{name:<44} median {statistics.median(samples):.3f} s  min {min(samples):.3f}  "
            f"max {max(samples):.3f}  IQR {q[2] - q[0]:.3f}  (n={len(samples)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--tf-python", help="interpreter with TensorFlow (default: the test venv)")
    args = parser.parse_args()
    if args.tf_python:
        tf_python = args.tf_python
    else:
        from support.tfenv import tf_python as cached_tf_python

        tf_python = str(cached_tf_python())
    env = child_env()  # the same environment for both: TF_CPP_MIN_LOG_LEVEL=0, unbuffered
    env.pop("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", None)
    bare = [tf_python, "-c", "import tensorflow"]
    bare_exit = [tf_python, "-c", "import tensorflow, os; os._exit(0)"]
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "result.json")
        child = [tf_python, str(CHILD), result, "--timeout", "60"]
        wall(bare, env), wall(child, env)  # warm the file cache
        bare_s, exit_s, child_s, parent_s, import_s = [], [], [], [], []
        for _ in range(args.runs):
            bare_s.append(wall(bare, env))
            exit_s.append(wall(bare_exit, env))
            child_s.append(wall(child, env))
            with open(result) as handle:
                import_s.append(json.load(handle)["import_s"])
            start = time.perf_counter()
            facts = gather_runtime(tf_python, 60)
            parent_s.append(time.perf_counter() - start)
            assert facts.outcome == "ok", facts.message
    note = f"cpus={os.cpu_count()} python={sys.version.split()[0]} TF {facts.tf_version}"
    print(f"runtime child vs import tensorflow ({note}, TF python {tf_python})")
    print(describe("bare: python -c 'import tensorflow'", bare_s))
    print(describe("bare+exit: ... import tensorflow, os._exit", exit_s))
    print(describe("child: runtime_child.py (whole process)", child_s))
    print(describe("parent: gather_runtime() (child + parsing)", parent_s))
    print(describe("  import tensorflow inside the child", import_s))
    bare_m, exit_m = statistics.median(bare_s), statistics.median(exit_s)
    child_m, parent_m = statistics.median(child_s), statistics.median(parent_s)
    print(f"ratio of medians child/bare: {child_m / bare_m:.3f}  parent/bare: {parent_m / bare_m:.3f}  "
          f"child/bare+exit: {child_m / exit_m:.3f}  parent/bare+exit: {parent_m / exit_m:.3f}")
    print(f"overhead of the child's work (child - bare+exit): {child_m - exit_m:+.3f} s; "
          f"of the parent side (parent - child): {parent_m - child_m:+.3f} s")


if __name__ == "__main__":
    main()
