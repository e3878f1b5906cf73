"""collect / diagnose / schema, and snapshot files that are not what they claim to be."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import assert_no_traceback, run_tfdoctor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshots import apple_silicon, linux_cpu

from tfdoctor.facts.snapshot import SCHEMA_VERSION, Snapshot, SnapshotError
from tfdoctor.gather.snapshot_files import read_snapshot, redact_snapshot
from tfdoctor.render.schemas import snapshot_schema
from tfdoctor.sanitize.redact import Identity

pytestmark = pytest.mark.slow  # tfdoctor collect, diagnose and schema subprocesses

STATIC = ("--no-runtime", "--no-probes")


def write(tmp_path: Path, data, name="snap.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_collect_then_diagnose_gives_the_same_report(tmp_path):
    path = tmp_path / "s.json"
    collected = run_tfdoctor("collect", "-o", str(path), *STATIC)
    assert collected.code == 0 and "redacted" in collected.stderr
    data = json.loads(path.read_text())
    jsonschema.validate(data, snapshot_schema())
    assert data["redacted"] is True and str(Path.home()) not in path.read_text()
    live = json.loads(run_tfdoctor("check", "--json", *STATIC).stdout)
    offline = run_tfdoctor("diagnose", str(path), "--json")
    assert offline.code == live["exit_code"]
    assert [f["code"] for f in json.loads(offline.stdout)["findings"]] == [f["code"] for f in live["findings"]]


def test_no_redact_keeps_paths(tmp_path):
    run = run_tfdoctor("collect", "-o", "-", "--no-redact", *STATIC)
    data = json.loads(run.stdout)
    assert data["redacted"] is False


def test_redaction_reaches_every_string():
    snap = Snapshot.from_dict(apple_silicon(env={"PYTHONPATH": "/Users/ada/lib"}))
    who = Identity(home="/Users/ada", user="ada", host="adas-mbp")
    text = json.dumps(redact_snapshot(snap, who).to_dict())
    assert "ada" not in text and "~/venvs/tf/bin/python" in text


def test_summary_over_several_snapshots(tmp_path):
    healthy = write(tmp_path, apple_silicon(), "healthy.json")
    rosetta = write(tmp_path, apple_silicon(python={"process_arch": "x86_64", "translated": True}), "rosetta.json")
    broken = write(tmp_path, linux_cpu(packages=[]), "linux.json")
    run = run_tfdoctor("diagnose", str(healthy), str(rosetta), str(broken), "--summary", "--json")
    doc = json.loads(run.stdout)
    assert run.code == 1
    rows = {Path(r["file"]).name: r for r in doc["snapshots"]}
    assert rows["healthy.json"]["problems"] == []
    assert rows["rosetta.json"]["diagnosis"] == "arch.universal2-as-x86"
    assert rows["linux.json"]["diagnosis"] == "install.no-tensorflow"
    assert doc["finding_counts"]["arch.rosetta"] == 1
    text = run_tfdoctor("diagnose", str(healthy), str(rosetta), "--summary")
    assert "findings by code" in text.stdout and "arch.universal2-as-x86" in text.stdout


def test_older_snapshot_without_new_sections_loads():
    """A snapshot from the first tfdoctor (no runtime, probes or binaries fields) still loads."""
    data = apple_silicon()
    for pkg in data["packages"]:
        pkg.pop("binaries", None)
    data.pop("runtime", None)
    data.pop("probes", None)
    snap = Snapshot.from_dict(data)
    assert snap.runtime is None and snap.packages[0].binaries == []


def test_newer_snapshot_is_refused_clearly(tmp_path):
    path = write(tmp_path, {**apple_silicon(), "schema_version": SCHEMA_VERSION + 1})
    run = run_tfdoctor("diagnose", str(path))
    assert run.code == 2 and "newer than this tfdoctor understands" in run.stderr


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "not JSON"),
        ('{"schema_version": 1, "target": {"python": "x", "ok": tr', "not JSON"),
        ("[1, 2, 3]", "not a JSON object"),
        ('{"schema_version": "1"}', "no integer schema_version"),
        ('{"schema_version": 1}', "missing field 'target'"),
        ('{"schema_version": 1, "target": {"python": 3, "ok": true}}', "snapshot.target.python: expected str, got int"),
        ('{"schema_version": 1, "target": {"python": "p", "ok": true}, "packages": {}}', "snapshot.packages: expected a list"),
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
    ],
    ids=["empty", "truncated", "array", "string-version", "no-target", "wrong-type", "wrong-container", "deep"],
)
def test_bad_files_give_a_clear_message_and_exit_2(tmp_path, content, message):
    path = write(tmp_path, content)
    run = run_tfdoctor("diagnose", str(path))
    assert run.code == 2, run.stdout + run.stderr
    assert message in run.stderr
    assert_no_traceback(run)


def test_binary_huge_and_missing_files(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as handle:
        handle.truncate(65 * 1024 * 1024)
    for path, message in ((binary, "binary data"), (huge, "too large"),
                          (tmp_path / "missing.json", "no such file"), (tmp_path, "is a directory")):
        run = run_tfdoctor("diagnose", str(path))
        assert run.code == 2 and message in run.stderr, (path, run.stderr)
        assert_no_traceback(run)


def test_schema_command():
    assert json.loads(run_tfdoctor("schema", "snapshot").stdout) == snapshot_schema()
    assert json.loads(run_tfdoctor("schema").stdout)["$id"] == "tfdoctor-report"
    assert run_tfdoctor("schema", "nope").code == 2


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_any_json_is_a_snapshot_or_a_clear_error(tmp_path, value):
    path = write(tmp_path, value)
    try:
        read_snapshot(str(path))
    except SnapshotError as exc:
        assert str(exc).startswith(str(path))


def _mutations():
    """A real snapshot with one field replaced by a value of another type, or removed."""
    base = apple_silicon()
    paths = []

    def walk(node, trail):
        if isinstance(node, dict):
            for key, value in node.items():
                paths.append(trail + [key])
                walk(value, trail + [key])
        elif isinstance(node, list) and node:
            paths.append(trail + [0])
            walk(node[0], trail + [0])

    walk(base, [])
    return base, paths


BASE, PATHS = _mutations()


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(PATHS) - 1), replacement=json_values, delete=st.booleans())
def test_mutated_real_snapshot_loads_or_names_the_field(index, replacement, delete):
    import copy

    data = copy.deepcopy(BASE)
    trail = PATHS[index]
    parent = data
    for key in trail[:-1]:
        parent = parent[key]
    if delete and isinstance(parent, dict):
        del parent[trail[-1]]
    else:
        parent[trail[-1]] = replacement
    try:
        snap = Snapshot.from_dict(data)
    except SnapshotError as exc:
        assert "snapshot" in str(exc)
    else:
        # whatever loads must also survive every check
        from tfdoctor.engine.diagnose import diagnose

        crashed = [f for f in diagnose(snap).findings if f.code == "check.crashed"]
        assert not crashed, crashed[0].evidence


def test_diagnose_reads_a_check_json_report(tmp_path):
    """Support engineers are sent `tfdoctor check --json` output: its snapshot is diagnosed."""
    report = run_tfdoctor("check", "--json", *STATIC)
    path = write(tmp_path, report.stdout)
    again = run_tfdoctor("diagnose", str(path), "--json")
    assert [f["code"] for f in json.loads(again.stdout)["findings"]] == \
        [f["code"] for f in json.loads(report.stdout)["findings"]]


def test_redaction_keeps_other_homes_that_share_a_prefix_apart():
    who = Identity(home="/Users/al", user="al", host="box")
    from tfdoctor.sanitize.redact import redact

    assert redact("/Users/al/venv and /Users/alice/venv", who) == "~/venv and /Users/<user>/venv"
