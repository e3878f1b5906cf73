"""Wall time of the static-only `tfdoctor check` against a bare `import tensorflow`, one run.

Targets (issue "foundation"): median at most 0.5 s on a 2-core machine, and at most a quarter
of `python -c "import tensorflow"` measured in the same run. Runs are interleaved so that machine
noise hits both sides alike; prints medians, spreads and the ratio.

    python benchmarks/static_check.py [--runs 15] [--tf-python PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def describe(name: str, samples: list[float]) -> str:
    q = statistics.quantiles(samples, n=4)
    return (f"{name:<34} median {statistics.median(samples):.3f} s  "
            f"min {min(samples):.3f}  max {max(samples):.3f}  IQR {q[2] - q[0]:.3f}  (n={len(samples)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tf-python", help="interpreter with TensorFlow (default: the test venv)")
    args = parser.parse_args()
    if args.tf_python:
        tf_python = args.tf_python
    else:
        from support.tfenv import tf_python as cached_tf_python

        tf_python = str(cached_tf_python())
    doctor = [sys.executable, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes",
              "--python", tf_python]
    bare = [tf_python, "-c", "import tensorflow"]
    env_note = f"cpus={os.cpu_count()} python={sys.version.split()[0]}"
    wall(doctor), wall(bare)  # warm the file cache for both
    doctor_s, bare_s = [], []
    for _ in range(args.runs):
        doctor_s.append(wall(doctor))
        bare_s.append(wall(bare))
    print(f"static check vs import tensorflow ({env_note}, TF python {tf_python})")
    print(describe("tfdoctor check --no-runtime", doctor_s))
    print(describe("python -c 'import tensorflow'", bare_s))
    ratio = statistics.median(doctor_s) / statistics.median(bare_s)
    print(f"ratio of medians: {ratio:.3f} (target <= 0.25); median target <= 0.5 s: "
          f"{'met' if statistics.median(doctor_s) <= 0.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
