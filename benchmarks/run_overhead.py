"""What `tfdoctor run` adds to the command it supervises, one run of N interleaved repeats.

Target (issue 14): at most 1 s plus the static check. Measured here: a trivial command
(`python -c "print(1)"`) run directly and under tfdoctor.gather.supervised_run.run (pipes passed through,
memory sampled, signals forwarded, the leftover sweep at the end); the diagnosis of what it
recorded (tfdoctor.facts.pasted_log + the log rules on a snapshot); and, for reference, the static check
(`tfdoctor check --no-runtime --no-probes`) that `run` adds on top.

    python benchmarks/run_overhead.py [--runs 15]
"""

from __future__ import annotations

import io
import statistics
import sys
import time

from timing import describe, parser, wall  # noqa: E402


def main() -> None:
    args = parser(__doc__, runs=15).parse_args()
    from snapshots import apple_silicon, snap  # tests/ is on sys.path (timing.py)

    from tfdoctor.engine.run import run_rules
    from tfdoctor.engine.registry import Registry, builtin_rules
    from tfdoctor.logtext import keep
    from tfdoctor.gather import supervised_run
    from tfdoctor.sanitize.redact import Identity

    cmd = [sys.executable, "-c", "print(1)"]
    log_rules = Registry(rules=[r for r in builtin_rules() if r.area == "log"])
    who = Identity("/home/bench", "bench", "bench-host")
    direct, supervised, diagnosis = [], [], []
    wall(cmd)
    for _ in range(args.runs):
        direct.append(wall(cmd)[0])
        start = time.perf_counter()
        result = supervised_run.run(cmd, stdout=io.BytesIO(), stderr=io.BytesIO())
        supervised.append(time.perf_counter() - start)
        assert result.facts.ok, result.facts
        start = time.perf_counter()
        s = snap(apple_silicon())
        s.log = keep.from_bytes(result.recorded, "run: python -c", identity=who)
        s.run = result.facts
        run_rules(s, log_rules)
        diagnosis.append(time.perf_counter() - start)
    static = [wall([sys.executable, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes",
                    "--python", sys.executable])[0] for _ in range(3)]
    overhead = statistics.median(supervised) - statistics.median(direct)
    added = overhead + statistics.median(diagnosis)
    print(f"tfdoctor run overhead on a trivial command (python {sys.version.split()[0]})")
    print(describe("direct: python -c 'print(1)'", direct))
    print(describe("under supervised_run.run", supervised))
    print(describe("diagnosis of the recorded text", diagnosis))
    print(describe("static check (reference)", static))
    print(f"supervision overhead (median difference): {overhead:.3f} s; with the diagnosis "
          f"{added:.3f} s (target <= 1 s plus the static check): {'met' if added <= 1.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
