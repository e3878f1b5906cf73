"""Issue 15, pipes: a reader that goes away (`tfdoctor diagnose ... | head -1`) ends tfdoctor
quietly with the report's own exit code (before: click's silent exit 1, whatever the report
said); a closed stdout (`>&-`) runs the diagnosis and exits with its code (before: exit 3)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow  # tfdoctor subprocesses with closed and vanishing pipes

HEALTHY = REPO / "tests" / "scenarios" / "healthy_m2_tf2191_metal120_probed.json"
BROKEN = REPO / "tests" / "scenarios" / "pair_metal110_tf218_symbol_not_found.json"


def big_snapshot(tmp_path: Path, source: Path) -> Path:
    """Output far larger than a pipe's buffer (64 KiB), so the writer really meets EPIPE."""
    data = copy.deepcopy(json.loads(source.read_text())["snapshot"])
    data["packages"] += [{"name": f"filler-{i}", "version": "1.0", "wheel_tags": ["py3-none-any"]}
                         for i in range(3000)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("source, code", [(HEALTHY, 0), (BROKEN, 1)], ids=["healthy", "broken"])
@pytest.mark.parametrize("fmt", [["--json"], ["--format", "markdown"], ["-v"]])
def test_reader_that_goes_away(tmp_path, source, code, fmt):
    proc = subprocess.Popen([sys.executable, "-m", "tfdoctor", "diagnose",
                             str(big_snapshot(tmp_path, source)), *fmt],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "NO_COLOR": "1"})
    assert proc.stdout.read(10)
    proc.stdout.close()  # as `head -c 10` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == code
    assert err == b""


@pytest.mark.parametrize("source, code", [(HEALTHY, 0), (BROKEN, 1)], ids=["healthy", "broken"])
def test_closed_stdout(tmp_path, source, code):
    run = subprocess.run(["sh", "-c", f'"{sys.executable}" -m tfdoctor diagnose "{source}" --json >&-'],
                         capture_output=True, env={**os.environ, "NO_COLOR": "1"}, timeout=60)
    assert run.returncode == code, run.stderr
    assert run.stderr == b""


def test_closed_stdin_and_stderr():
    """`diagnose -` with stdin closed is a usage error, not exit 3; a closed stderr changes
    nothing."""
    run = subprocess.run(["sh", "-c", f'"{sys.executable}" -m tfdoctor diagnose - <&-'],
                         capture_output=True, env={**os.environ, "NO_COLOR": "1"}, timeout=60)
    assert run.returncode == 2 and b"Traceback" not in run.stderr and b"<stdin>" in run.stderr
    run = subprocess.run(["sh", "-c", f'"{sys.executable}" -m tfdoctor diagnose "{BROKEN}" --json 2>&-'],
                         capture_output=True, env={**os.environ, "NO_COLOR": "1"}, timeout=60)
    assert run.returncode == 1 and json.loads(run.stdout)
