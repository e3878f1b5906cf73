"""Issue 15, any bytes: lone surrogates (what Python makes of undecodable bytes in file names and
messages) never make --json, markdown or `collect -o FILE` invalid UTF-8 or exit 3, also when
stdout is strict UTF-8 (PYTHONIOENCODING=utf-8:strict, LC_ALL=C) or plain ASCII."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from tfdoctor.facts.typed import json_text

pytestmark = pytest.mark.slow  # tfdoctor subprocesses in venvs with undecodable names

SCENARIO = REPO / "tests" / "scenarios" / "pair_metal110_tf218_symbol_not_found.json"
STRICT = {"PYTHONIOENCODING": "utf-8:strict", "LC_ALL": "C", "NO_COLOR": "1"}


def tfdoctor(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfdoctor", *args], capture_output=True,
                          env={**os.environ, **env}, timeout=120)


def surrogate_snapshot(tmp_path: Path) -> Path:
    """A snapshot as the collector writes it for a venv under a non-UTF-8 directory name and a
    message with an undecodable byte: json.dump escapes the lone surrogates as \\udcXX."""
    data = copy.deepcopy(json.loads(SCENARIO.read_text())["snapshot"])
    data["python"]["executable"] = "/Users/ada/caf\udce9/bin/python"
    data["packages"][0]["location"] = "/Users/ada/caf\udce9/site-packages/x.dist-info"
    data["runtime"]["import_error"]["message"] += " \udcff\ud800"
    data["env"] = {"TF_CPP_MIN_LOG_LEVEL\udcfe": "0\udcfd"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="ascii")
    return path


def test_json_text_is_always_encodable():
    text = json_text({"k\udcff": ["v\ud800", {"x": "\udce9"}]})
    assert json.loads(text.encode("utf-8").decode("utf-8")) == {"k\ufffd": ["v\ufffd", {"x": "\ufffd"}]}


@pytest.mark.parametrize("fmt", [["--json"], ["--format", "markdown"], ["-v"]])
@pytest.mark.parametrize("encoding", ["utf-8:strict", "ascii:strict"])
def test_outputs_stay_encodable_on_a_strict_stdout(tmp_path, fmt, encoding):
    run = tfdoctor("diagnose", str(surrogate_snapshot(tmp_path)), *fmt,
                   env={**STRICT, "PYTHONIOENCODING": encoding})
    assert run.returncode == 1, run.stderr.decode(errors="replace")
    assert b"Traceback" not in run.stderr
    text = run.stdout.decode(encoding.split(":")[0])  # raises if the bytes are not valid
    if fmt == ["--json"]:
        json.loads(text)  # on ASCII, characters it lacks become "?", still valid JSON
    if fmt == ["--json"] and encoding.startswith("utf-8"):
        assert json.loads(text)["snapshot"]["python"]["executable"] == "/Users/ada/caf\ufffd/bin/python"


def test_collect_writes_valid_utf8_from_a_non_utf8_environment(tmp_path):
    """A real venv whose site-packages holds a dist-info directory with a Latin-1 byte in its
    name (made by an old installer on a non-UTF-8 file system)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    bad = os.path.join(os.fsencode(site), b"caf\xe9-1.0.dist-info")
    os.mkdir(bad)
    with open(os.path.join(bad, b"METADATA"), "wb") as handle:
        handle.write(b"Metadata-Version: 2.1\nName: caf\xe9\nVersion: 1.0\n")
    out = tmp_path / "snap.json"
    run = tfdoctor("collect", "-o", str(out), "--python", str(venv / "bin" / "python"),
                   "--no-runtime", "--no-probes", env=STRICT)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    json.loads(out.read_bytes().decode("utf-8"))
    check = tfdoctor("check", "--python", str(venv / "bin" / "python"), "--no-runtime",
                     "--no-probes", "--json", env=STRICT)
    assert check.returncode in (0, 1) and b"Traceback" not in check.stderr
    json.loads(check.stdout.decode("utf-8"))
