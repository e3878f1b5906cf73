"""Issue 15, the child's result is untrusted input: a `tensorflow` that replaces the runtime
child's result or stderr file with a symlink to /dev/zero, a FIFO, a sparse 3 GiB file, JSON
nested past the recursion limit, or a forged all-clear must give runtime.bad-output in bounded
time and memory (before: a hang forever, 800 MB read, exit 3, or a forged "ok")."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from faults import site_packages
from rich.console import Console

from tfdoctor.gather.runtime import gather_runtime

pytestmark = pytest.mark.slow  # a venv whose tensorflow forges the child's files, per case

FAKE = '''
import json, os, sys, time
mode = os.environ["HOSTILE_MODE"]
result = sys.argv[1]
stderr = os.path.join(os.path.dirname(result), "stderr.txt")
def replace(path, make):
    os.remove(path)
    make(path)
if mode == "symlink-zero":
    replace(result, lambda p: os.symlink("/dev/zero", p))
elif mode == "fifo":
    replace(result, os.mkfifo)
elif mode == "fifo-then-hang":
    replace(result, os.mkfifo)
    time.sleep(60)
elif mode == "sparse":
    with open(result, "r+") as handle:
        handle.truncate(3 * 2**30)
elif mode == "deep":
    with open(result, "w") as handle:
        handle.write("[" * 200000 + "]" * 200000)
elif mode == "forged-all-clear":
    with open(result, "w") as handle:
        json.dump({"schema": 1, "stage": "done", "complete": True, "pid": 1, "tf_version": "2.19.1",
                   "import_s": 1.0, "stage_s": {"started": 0.1, "importing": 0.2, "imported": 1.2,
                   "done": 1.5}, "physical_devices": [{"name": "/physical_device:GPU:0",
                   "device_type": "GPU"}]}, handle)
elif mode == "forged-minimal":
    with open(result, "w") as handle:
        handle.write('{"schema": 1, "stage": "done", "complete": true}')
elif mode == "stderr-sparse":
    sys.stderr.write("a line before\\n")
    sys.stderr.flush()
    os.ftruncate(2, 3 * 2**30)   # a sparse 3 GiB stderr
    raise ImportError("an import error that cannot be believed")
elif mode == "stderr-symlink-zero":
    replace(stderr, lambda p: os.symlink("/dev/zero", p))
    raise ImportError("an import error that cannot be believed")
elif mode == "stderr-fifo":
    replace(stderr, os.mkfifo)
    raise ImportError("an import error that cannot be believed")
elif mode == "stderr-flood":
    for _ in range(3 * 2**10):   # 3 MiB of real, dense output: not tampering
        sys.stderr.write("x" * 1023 + "\\n")
    raise ImportError("a real import error")
os._exit(0)
'''


@pytest.fixture(scope="module")
def hostile_python(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("hostile") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = site_packages(venv)
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(FAKE)
    info = site / "tensorflow-2.19.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.19.1\n")
    (info / "RECORD").write_text("")
    return venv / "bin" / "python"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


REFUSED_FOR = {
    "symlink-zero": "a symbolic link", "fifo": "not a regular file", "sparse": "3221225472 bytes, more than",
    "deep": "nested too deeply", "forged-all-clear": "names process 1", "forged-minimal": "names process None",
    "stderr-sparse": "sparse (3221225472 bytes", "stderr-symlink-zero": "with a symbolic link",
    "stderr-fifo": "with a FIFO",
}
"""What each tampering is refused for: by what the file is (a link, a FIFO, its size), before
any reading, so bounded in time without a clock (before: a hang forever, 800 MB read)."""


@pytest.mark.parametrize("mode", ["symlink-zero", "fifo", "sparse", "deep", "forged-all-clear",
                                  "forged-minimal"])
def test_hostile_result_file_is_bad_output(hostile_python, monkeypatch, mode):
    monkeypatch.setenv("HOSTILE_MODE", mode)
    before = peak_rss_mb()
    facts = gather_runtime(str(hostile_python), 20)
    assert peak_rss_mb() - before < 100
    assert facts.outcome == "bad-output" and REFUSED_FOR[mode] in facts.message, facts.message
    assert facts.tf_version is None  # nothing of a forged document is believed


def test_the_progress_display_does_not_block_on_a_fifo(hostile_python, monkeypatch):
    """The spinner reads the result file while the child runs: a FIFO there must not hang it."""
    monkeypatch.setenv("HOSTILE_MODE", "fifo-then-hang")
    screen = Console(file=open(os.devnull, "w"), force_terminal=True)
    facts = gather_runtime(str(hostile_python), 2, progress=screen)  # returns: nothing blocked
    assert facts.outcome in ("timeout", "bad-output")


@pytest.mark.parametrize("mode", ["stderr-sparse", "stderr-symlink-zero", "stderr-fifo"])
def test_stderr_replaced_or_inflated_is_bad_output(hostile_python, monkeypatch, mode):
    monkeypatch.setenv("HOSTILE_MODE", mode)
    before = peak_rss_mb()
    facts = gather_runtime(str(hostile_python), 20)
    assert peak_rss_mb() - before < 100
    assert facts.outcome == "bad-output" and REFUSED_FOR[mode] in facts.message, facts.message
    assert "stderr" in facts.message and len(facts.stderr_tail) <= 8000


def test_a_real_flood_of_stderr_is_not_tampering(hostile_python, monkeypatch):
    monkeypatch.setenv("HOSTILE_MODE", "stderr-flood")
    facts = gather_runtime(str(hostile_python), 20)
    assert facts.outcome == "import-error" and "a real import error" in facts.message
    assert facts.stderr_bytes >= 3 * 2**20


def test_forged_result_end_to_end(hostile_python):
    env = {**os.environ, "HOSTILE_MODE": "forged-all-clear", "NO_COLOR": "1"}
    run = subprocess.run([sys.executable, "-m", "tfdoctor", "check", "--python", str(hostile_python),
                          "--json", "--no-probes", "--timeout", "20"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert report["snapshot"]["runtime"]["outcome"] == "bad-output"
    assert "runtime.bad-output" in [f["code"] for f in report["findings"]]
