"""Issue 15, scale: package lookups are indexed, so `diagnose` grows linearly with the number of
installed packages (before: a scan per lookup, 0.27 ms per package, 40 s for 150,000). Growth is
asserted as ratios of CPU time or counted steps, never seconds; benchmarks/diagnose_scale.py
prints the figures."""

from __future__ import annotations

import json
import sys
import typing
from collections.abc import Callable

import pytest
from conftest import REPO
from support.cpu_time import cost_ratio, seconds

MIN_SECONDS = 0.02
"""Each timing repeats its call until this much processor time has passed (timer noise)."""

from tfdoctor.facts.snapshot import PackageFacts, Snapshot, TargetOutcome

pytestmark = pytest.mark.slow  # time growth: diagnose timed at two sizes

sys.path.insert(0, str(REPO / "benchmarks"))


def test_every_package_found_in_constant_time():
    """A lookup among 50,000 packages costs what one among 5,000 costs (a scan: 10 times)."""
    def snapshot(count: int) -> Snapshot:
        return Snapshot(TargetOutcome("python", True),
                        packages=[PackageFacts(f"Pkg_{i}", "1.0") for i in range(count)])

    def last_thousand(snap: Snapshot) -> Callable[[], object]:
        names = [f"pkg-{i}" for i in range(len(snap.packages) - 1000, len(snap.packages))]
        return lambda: [snap.package(n) for n in names]

    small, large = snapshot(5_000), snapshot(50_000)
    ratio = cost_ratio(last_thousand(small), last_thousand(large), MIN_SECONDS)
    assert ratio < 3, f"a lookup among 50,000 packages costs {ratio:.1f} times one among 5,000"
    found = [large.package(f"pkg-{i}") for i in range(50_000)]
    assert all(p is not None and p.name == f"Pkg_{i}" for i, p in enumerate(found))
    assert large.package("no-such-thing") is None


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
    small = seconds(lambda: time_diagnose(1000), MIN_SECONDS, rounds=2)
    large = seconds(lambda: time_diagnose(10000), MIN_SECONDS, rounds=1)
    assert large < 25 * small, f"1k: {small:.2f} s, 10k: {large:.2f} s of CPU"  # quadratic: ~100x


def test_snapshot_round_trip_of_many_packages_resolves_type_hints_once_per_class(monkeypatch):
    """Evaluating a dataclass's string annotations costs ~0.3 ms: once per class, not once per
    package (counted), and the whole conversion grows linearly (CPU time of 2,000 and 20,000)."""
    from diagnose_scale import snapshot_with

    small, large = (json.dumps(snapshot_with(n)) for n in (2000, 20000))
    resolved = []
    real = typing.get_type_hints
    monkeypatch.setattr(typing, "get_type_hints", lambda tp, *a, **k: resolved.append(tp) or real(tp, *a, **k))
    snap = Snapshot.from_dict(json.loads(large))
    assert len(snap.packages) == 20000
    assert len(resolved) == len(set(resolved)) < 100, resolved
    ratio = cost_ratio(lambda: Snapshot.from_dict(json.loads(small)), lambda: Snapshot.from_dict(json.loads(large)),
                       MIN_SECONDS)
    assert ratio < 25, f"20,000 packages cost {ratio:.1f} times 2,000"
