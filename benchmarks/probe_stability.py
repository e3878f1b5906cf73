"""Run-to-run spread of the probes: the same probes in RUNS separate processes (each imports
TensorFlow, as `tfdoctor check` and `tfdoctor probe` do), and the coefficient of variation
(stdev / mean) of each workload's median across the runs.

Target (issue "micro-probes"): CV <= 5% for the probe's median.

    python benchmarks/probe_stability.py [--runs 5] [--preset check|probe] [--tf-python PATH]
                                         [--repeat-s 0.05,0.03]

Prints each run's medians (ms per call), then per workload: mean, min, max and CV. With
`--repeat-s A,B` the runs alternate between those repeat lengths (each run of A is followed by
one of B), so that one comparison shares the machine's noise; figures are printed per length.
"""

from __future__ import annotations

import os
import statistics

from timing import parser, tf_python  # noqa: E402  (puts the repo on sys.path)

from tfdoctor.gather.probes import gather_probes  # noqa: E402


def main() -> None:
    cli = parser(__doc__, runs=5)
    cli.add_argument("--preset", default="check")
    cli.add_argument("--workloads", default="matmul,conv,train")
    cli.add_argument("--repeat-s", default="", help="comma-separated repeat lengths to alternate")
    args = cli.parse_args()
    tf_py = tf_python(args.tf_python)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", None)
    lengths = [float(x) for x in args.repeat_s.split(",") if x] or [None]
    seen: dict[float | None, dict] = {n: {"medians": {}, "iqr": {}, "elapsed": []} for n in lengths}
    for i in range(args.runs):
        for length in lengths:
            config = {"preset": args.preset, "workloads": args.workloads.split(","), "devices": "cpu"}
            if length is not None:
                config["repeat_s"] = length
            facts = gather_probes(tf_py, config, env=env)
            assert facts.outcome == "ok", facts.message
            got = seen[length]
            got["elapsed"].append(facts.elapsed_s or 0.0)
            row = []
            for run in facts.runs:
                if run.measured and run.role == "main":
                    got["medians"].setdefault(run.workload, []).append(run.timing.median_s * 1e3)
                    got["iqr"].setdefault(run.workload, []).append(run.timing.iqr_s / run.timing.median_s)
                    row.append(f"{run.workload} {run.timing.median_s * 1e3:8.3f} ms")
            label = f" repeat_s {length:g}" if length is not None else ""
            print(f"run {i + 1}{label}: " + "   ".join(row) + f"   (probing {facts.elapsed_s:.2f} s)", flush=True)
    for length, got in seen.items():
        label = f", repeat_s {length:g}" if length is not None else ""
        print(f"{args.runs} runs, preset {args.preset}{label}, CPU, cpus={os.cpu_count()}, TF {facts.tf_version}; "
              f"probing took median {statistics.median(got['elapsed']):.2f} s a run")
        for workload, values in got["medians"].items():
            mean = statistics.mean(values)
            cv = statistics.stdev(values) / mean if len(values) > 1 else 0.0
            print(f"  {workload:<7} median per call: mean {mean:8.3f} ms  min {min(values):8.3f}  "
                  f"max {max(values):8.3f}  CV {cv:.1%}  (within-run IQR/median: median "
                  f"{statistics.median(got['iqr'][workload]):.1%})  target CV <= 5%")


if __name__ == "__main__":
    main()
