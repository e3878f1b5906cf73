"""How `tfdoctor diagnose` scales with the number of installed packages (issue 15: it took
0.27 ms per package, 40 s for 150,000, from lookups that scanned the package list).

Builds snapshots of 1k, 10k and 150k packages from a real scenario (the scenario's own packages
plus generated pure-Python ones with Requires-Dist lines, as a large conda env has), runs
`diagnose --json` on each in-process and prints seconds and microseconds per package. Usage:
`python benchmarks/diagnose_scale.py [N ...]`.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from tfdoctor.cli.main import load_app

app = load_app()

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "tests" / "scenarios" / "healthy_m2_tf2191_metal120_probed.json"


def snapshot_with(count: int) -> dict:
    """The scenario's snapshot with `count` packages in all."""
    envelope = json.loads(SCENARIO.read_text(encoding="utf-8"))
    snap = envelope.get("snapshot", envelope)
    real = snap["packages"]
    extra = [{"name": f"pkg-{i}", "version": f"1.{i % 100}.0",
              "location": f"/site/pkg_{i}-1.0.dist-info", "wheel_tags": ["py3-none-any"],
              "requires_dist": [f"pkg-{(i * 7) % count}>=1.0", "numpy>=1.20"]}
             for i in range(max(0, count - len(real)))]
    snap["packages"] = real + extra
    return snap


def time_diagnose(count: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snap.json"
        path.write_text(json.dumps(snapshot_with(count)), encoding="utf-8")
        started = time.perf_counter()
        result = CliRunner().invoke(app, ["diagnose", str(path), "--json"])
        elapsed = time.perf_counter() - started
    if result.exit_code not in (0, 1):
        raise SystemExit(f"diagnose failed with {result.exit_code}: {result.output[-500:]}")
    return elapsed


def main(argv: list[str]) -> None:
    counts = [int(a) for a in argv] or [1000, 10000, 150000]
    time_diagnose(100)  # imports and the matrix load, not counted
    for count in counts:
        seconds = time_diagnose(count)
        print(f"{count:>7} packages: {seconds:7.2f} s  ({seconds / count * 1e6:6.1f} us/package)")


if __name__ == "__main__":
    main(sys.argv[1:])
