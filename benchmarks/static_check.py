"""Wall time of the static-only `tfdoctor check` against a bare `import tensorflow`, one run.

Targets (issue "foundation"): median at most 0.5 s on a 2-core machine, and at most a quarter
of `python -c "import tensorflow"` measured in the same run. Runs are interleaved so that machine
noise hits both sides alike; prints medians, spreads and the ratio.

    python benchmarks/static_check.py [--runs 15] [--tf-python PATH]
"""

from __future__ import annotations

import os
import statistics
import sys

from timing import describe, parser, tf_python, wall  # noqa: E402


def main() -> None:
    args = parser(__doc__, runs=15).parse_args()
    tf_py = tf_python(args.tf_python)
    doctor = [sys.executable, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes",
              "--python", tf_py]
    bare = [tf_py, "-c", "import tensorflow"]
    env_note = f"cpus={os.cpu_count()} python={sys.version.split()[0]}"
    wall(doctor), wall(bare)  # warm the file cache for both
    doctor_s, bare_s = [], []
    for _ in range(args.runs):
        doctor_s.append(wall(doctor)[0])
        bare_s.append(wall(bare)[0])
    print(f"static check vs import tensorflow ({env_note}, TF python {tf_py})")
    print(describe("tfdoctor check --no-runtime", doctor_s))
    print(describe("python -c 'import tensorflow'", bare_s))
    ratio = statistics.median(doctor_s) / statistics.median(bare_s)
    print(f"ratio of medians: {ratio:.3f} (target <= 0.25); median target <= 0.5 s: "
          f"{'met' if statistics.median(doctor_s) <= 0.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
