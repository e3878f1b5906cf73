"""Wall time of the static-only `tfdoctor check` against a bare `import tensorflow`, one run.

Targets (issue 10): median at most 0.3 s on a 2-core machine, and at most a quarter of
`python -c "import tensorflow"` measured in the same run. Runs are interleaved so that machine
noise hits every side alike; prints medians, spreads, the CPU time each run used (user + system
of the whole process tree: steadier than wall time on a shared machine) and the ratio.

    python benchmarks/static_check.py [--runs 15] [--tf-python PATH]
    python benchmarks/static_check.py --doctor /tmp/before/bin/python --doctor /tmp/after/bin/python

--doctor (repeatable) times the tfdoctor installed for that interpreter (a wheel of the landed
commit in its own venv, say) instead of this checkout; --no-tf skips the bare import.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from timing import describe, parser, tf_python  # noqa: E402

NEUTRAL_CWD = tempfile.gettempdir()
"""Where every command runs: from the checkout, `python -m tfdoctor` would import the checkout's
tfdoctor (the current directory comes first on sys.path), whichever venv's python runs it."""


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (children's user + system) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=NEUTRAL_CWD, check=False)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    p = parser(__doc__, runs=15)
    p.add_argument("--doctor", action="append", help="python of a tfdoctor install to time (repeatable)")
    p.add_argument("--no-tf", action="store_true", help="do not time the bare import of TensorFlow")
    args = p.parse_args()
    tf_py = tf_python(args.tf_python)
    doctors = {py: [py, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes", "--python", tf_py]
               for py in (args.doctor or [sys.executable])}
    commands = dict(doctors)
    if not args.no_tf:
        commands["python -c 'import tensorflow'"] = [tf_py, "-c", "import tensorflow"]
    for cmd in commands.values():
        timed(cmd)  # warm the file cache
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, cmd in commands.items():
            samples[name].append(timed(cmd))
    print(f"static check ({os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}, "
          f"python {sys.version.split()[0]}, TF python {tf_py})")
    for name, runs in samples.items():
        label = f"check --no-runtime ({name})" if name in doctors else name
        print(describe(label[-60:], [w for w, _ in runs], width=60))
        print(f"{'':<60} cpu median {statistics.median(c for _, c in runs):.3f} s")
    if not args.no_tf:
        bare = statistics.median(w for w, _ in samples["python -c 'import tensorflow'"])
        for name in doctors:
            doctor = statistics.median(w for w, _ in samples[name])
            print(f"{name}: ratio of medians {doctor / bare:.3f} (target <= 0.25); median target "
                  f"<= 0.3 s: {'met' if doctor <= 0.3 else 'NOT met'}")


if __name__ == "__main__":
    main()
