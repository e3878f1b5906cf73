"""Wall time of `tfdoctor check` with the speed probes against a bare `import tensorflow`.

Target (issue "micro-probes"): `tfdoctor check --python TF_PY` (static facts, the runtime child
and the quick probe set) takes at most the bare `python -c "import tensorflow"` time + 8 s on a
2-core machine. Runs are interleaved so that machine noise hits every command alike; prints
medians, spreads, the ratio and the difference of the medians, and the probes' own time
(elapsed_s from the JSON report) when the report carries it.

    python benchmarks/check_with_probes.py [--runs 7] [--tf-python PATH] [--no-baseline]

`--no-baseline` skips `tfdoctor check --no-probes` (measured by default, to show what the
probes add on top of the runtime child).
"""

from __future__ import annotations

import json
import os
import statistics
import sys

from timing import describe, parser, tf_python, wall  # noqa: E402

TARGET_EXTRA_S = 8.0
AIM_EXTRA_S = 1.5
"""Issue 10's aim for a full check: at most the bare import + 1.5 s."""


def probe_seconds(stdout: str) -> float | None:
    try:
        doc = json.loads(stdout)
    except ValueError:
        return None
    probes = (doc.get("snapshot") or {}).get("probes") or {}
    return probes.get("elapsed_s")


def main() -> None:
    cli = parser(__doc__, runs=7)
    cli.add_argument("--no-baseline", action="store_true")
    args = cli.parse_args()
    tf_py = tf_python(args.tf_python)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", None)
    bare = [tf_py, "-c", "import tensorflow"]
    check = [sys.executable, "-m", "tfdoctor", "check", "--python", tf_py, "--json"]
    no_probes = check + ["--no-probes"]
    wall(bare, env), wall(check, env)  # warm the file cache
    bare_s, check_s, base_s, probing = [], [], [], []
    for _ in range(args.runs):
        bare_s.append(wall(bare, env)[0])
        seconds, out = wall(check, env)
        check_s.append(seconds)
        spent = probe_seconds(out)
        if spent is not None:
            probing.append(spent)
        if not args.no_baseline:
            base_s.append(wall(no_probes, env)[0])
    print(f"tfdoctor check with probes vs import tensorflow (cpus={os.cpu_count()}, "
          f"python={sys.version.split()[0]}, TF python {tf_py})")
    print(describe("bare: python -c 'import tensorflow'", bare_s))
    print(describe("tfdoctor check (with probes)", check_s))
    if base_s:
        print(describe("tfdoctor check --no-probes", base_s))
    if probing:
        print(describe("  probes' own elapsed_s (from the report)", probing))
    b, c = statistics.median(bare_s), statistics.median(check_s)
    verdict = "meets" if c <= b + TARGET_EXTRA_S else "MISSES"
    aim = "meets" if c <= b + AIM_EXTRA_S else "MISSES"
    print(f"ratio of medians check/bare {c / b:.2f}; difference {c - b:+.2f} s "
          f"({verdict} the target bare + {TARGET_EXTRA_S:g} s = {b + TARGET_EXTRA_S:.2f} s; "
          f"{aim} issue 10's aim bare + {AIM_EXTRA_S:g} s)")
    if base_s:
        print(f"the probes add {c - statistics.median(base_s):+.2f} s to check --no-probes")


if __name__ == "__main__":
    main()
