"""Run-to-run spread of the probes: the same probes in RUNS separate processes (each imports
TensorFlow, as `tfdoctor check` and `tfdoctor probe` do), and the coefficient of variation
(stdev / mean) of each workload's median across the runs.

Target (issue "micro-probes"): CV <= 5% for the probe's median.

    python benchmarks/probe_stability.py [--runs 5] [--preset check|probe] [--tf-python PATH]

Prints each run's medians (ms per call), then per workload: mean, min, max and CV.
"""

from __future__ import annotations

import os
import statistics

from timing import parser, tf_python  # noqa: E402  (puts the repo on sys.path)
from tfdoctor.probe_runner import gather_probes  # noqa: E402


def main() -> None:
    cli = parser(__doc__, runs=5)
    cli.add_argument("--preset", default="check")
    cli.add_argument("--workloads", default="matmul,conv,train")
    args = cli.parse_args()
    tf_py = tf_python(args.tf_python)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", None)
    config = {"preset": args.preset, "workloads": args.workloads.split(","), "devices": "cpu"}
    medians: dict[str, list[float]] = {}
    iqr: dict[str, list[float]] = {}
    elapsed = []
    for i in range(args.runs):
        facts = gather_probes(tf_py, config, env=env)
        assert facts.outcome == "ok", facts.message
        elapsed.append(facts.elapsed_s or 0.0)
        row = []
        for run in facts.runs:
            if run.measured and run.role == "main":
                medians.setdefault(run.workload, []).append(run.timing.median_s * 1e3)
                iqr.setdefault(run.workload, []).append(run.timing.iqr_s / run.timing.median_s)
                row.append(f"{run.workload} {run.timing.median_s * 1e3:8.3f} ms")
        print(f"run {i + 1}: " + "   ".join(row) + f"   (probing {facts.elapsed_s:.2f} s)", flush=True)
    print(f"{args.runs} runs, preset {args.preset}, CPU, cpus={os.cpu_count()}, TF {facts.tf_version}; "
          f"probing took median {statistics.median(elapsed):.2f} s a run")
    for workload, values in medians.items():
        mean = statistics.mean(values)
        cv = statistics.stdev(values) / mean if len(values) > 1 else 0.0
        print(f"  {workload:<7} median per call: mean {mean:8.3f} ms  min {min(values):8.3f}  "
              f"max {max(values):8.3f}  CV {cv:.1%}  (within-run IQR/median: median "
              f"{statistics.median(iqr[workload]):.1%})  target CV <= 5%")


if __name__ == "__main__":
    main()
