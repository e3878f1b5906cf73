"""What every benchmark here shares: which TensorFlow interpreter to time, wall time of a
command, and one line of statistics (median, min, max, IQR) per series."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))


def parser(doc: str, runs: int) -> argparse.ArgumentParser:
    """An argument parser with --runs and --tf-python, described by the script's docstring."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--runs", type=int, default=runs)
    p.add_argument("--tf-python", help="interpreter with TensorFlow (default: the test venv)")
    return p


def tf_python(given: str | None) -> str:
    """The interpreter to time: the one given, else the test suite's cached TensorFlow venv."""
    if given:
        return given
    from support.tfenv import tf_python as cached_tf_python

    return str(cached_tf_python())


def wall(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Seconds `cmd` took, and what it printed on stdout."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                          check=False, text=True)
    return time.perf_counter() - start, proc.stdout


def describe(name: str, samples: list[float], width: int = 40) -> str:
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    return (f"{name:<{width}} median {statistics.median(samples):7.3f} s  min {min(samples):.3f}  "
            f"max {max(samples):.3f}  IQR {q[2] - q[0]:.3f}  (n={len(samples)})")
