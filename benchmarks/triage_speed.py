#!/usr/bin/env python3
"""How fast `tfdoctor triage` reads reports (issue 27: <= 0.3 s for one report, 1,000 reports in
<= 60 s on two cores in one process). Prints its figures; asserts nothing (a busy machine would
make a wall-clock assert fail).

    python benchmarks/triage_speed.py [N]

The reports are the formats the fact reader's tests are written in (tests/data/triage/*.md and
*.txt) and every scenario posted as `tfdoctor collect --format markdown`, repeated to N (1,000).
Then the longest a report can be (1 MiB) made of the shortest lines: blank lines, and `y` lines as
`yes` prints them, in processor time (what each reader pays a line).
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def reports() -> list[bytes]:
    from tfdoctor.facts.snapshot import Snapshot
    from tfdoctor.gather.snapshot_files import snapshot_json
    from tfdoctor.render.markdown import collect_markdown

    texts = [p.read_bytes() for p in sorted((REPO / "tests" / "data" / "triage").glob("*")) if p.suffix in (".md", ".txt")]
    for path in sorted((REPO / "tests" / "scenarios").glob("*.json")):
        s = Snapshot.from_dict(json.loads(path.read_text(encoding="utf-8"))["snapshot"])
        texts.append(collect_markdown(s, snapshot_json(s)).encode())
    return texts


def main(n: int) -> None:
    from tfdoctor.triage.outcome import triage_text

    texts = reports()
    batch = (texts * (n // len(texts) + 1))[:n]
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp, "report.md")
        one.write_bytes(texts[0])
        walls = []
        for _ in range(7):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "tfdoctor", "triage", str(one), "--json"],
                           capture_output=True, check=False)
            walls.append(time.perf_counter() - started)
    started = time.perf_counter()
    for n_, data in enumerate(batch):
        triage_text(f"report-{n_}", data)
    total = time.perf_counter() - started
    print(f"one report, whole command (process start included): median {statistics.median(walls):.3f} s "
          f"(min {min(walls):.3f}, max {max(walls):.3f}, 7 runs)")
    print(f"{len(batch)} reports in one process: {total:.1f} s ({1000 * total / len(batch):.1f} ms a report; "
          f"{len(texts)} distinct texts)")
    for name, text in (("1 MiB of blank lines", b"\n" * (1 << 20)), ("1 MiB of `y` lines", b"y\n" * (1 << 19))):
        before = resource.getrusage(resource.RUSAGE_SELF)
        triage_text(name, text)
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        print(f"{name}: {cpu:.2f} s of processor time")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
