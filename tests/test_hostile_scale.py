"""Issue 15, scale: package lookups are indexed, so `diagnose` grows linearly with the number of
installed packages (before: a scan per lookup, 0.27 ms per package, 40 s for 150,000).
benchmarks/diagnose_scale.py prints the figures."""

from __future__ import annotations

import json
import sys
import time

from conftest import REPO

from tfdoctor.facts.snapshot import PackageFacts, Snapshot, TargetOutcome

sys.path.insert(0, str(REPO / "benchmarks"))


def test_every_package_found_in_constant_time():
    count = 50_000
    snap = Snapshot(TargetOutcome("python", True),
                    packages=[PackageFacts(f"Pkg_{i}", "1.0") for i in range(count)])
    started = time.perf_counter()
    found = [snap.package(f"pkg-{i}") for i in range(count)]
    assert time.perf_counter() - started < 5  # a scan per lookup: 1.25e9 comparisons, hours
    assert all(p is not None and p.name == f"Pkg_{i}" for i, p in enumerate(found))
    assert snap.package("no-such-thing") is None


def test_the_index_follows_changes_and_keeps_the_first_of_duplicates():
    snap = Snapshot(TargetOutcome("python", True),
                    packages=[PackageFacts("numpy", "1.26.4"), PackageFacts("NumPy", "2.0.0")])
    assert snap.package("numpy").version == "1.26.4"
    snap.packages.append(PackageFacts("keras", "3.10.0"))
    assert snap.package("keras").version == "3.10.0"
    snap.packages = [PackageFacts("keras", "2.15.0")]
    assert snap.package("keras").version == "2.15.0" and snap.package("numpy") is None
    snap.packages[0].name = "tf-keras"
    assert snap.package("keras") is None and snap.package("tf_keras").version == "2.15.0"


def test_diagnose_grows_linearly():
    from diagnose_scale import time_diagnose

    time_diagnose(200)  # imports, the matrix
    small = min(time_diagnose(1000) for _ in range(2))
    large = time_diagnose(10000)
    assert large < 25 * small, f"1k: {small:.2f} s, 10k: {large:.2f} s"  # quadratic: ~100x


def test_snapshot_round_trip_of_many_packages_is_fast():
    from diagnose_scale import snapshot_with

    data = snapshot_with(20000)
    started = time.perf_counter()
    snap = Snapshot.from_dict(json.loads(json.dumps(data)))
    assert len(snap.packages) == 20000
    assert time.perf_counter() - started < 10  # type hints resolved once per class
