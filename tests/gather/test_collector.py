"""The fact collector run for real in throwaway interpreters (venvs), with broken contents."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.static import TargetNotFound, gather_static
from tfdoctor.inside.collector.packages import read_headers

COLLECTOR = Path(__file__).resolve().parents[2] / "tfdoctor" / "inside" / "collector" / "__main__.py"


def make_venv(root: Path) -> tuple[Path, Path]:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = next((root / "lib").glob("python3*/site-packages"))
    return python, site


def add_dist(site: Path, name: str, version: str, metadata: bytes | None = None, tags=("py3-none-any",)):
    dist = site / f"{name}-{version}.dist-info"
    dist.mkdir()
    if metadata is None:
        metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    if metadata is not False:
        (dist / "METADATA").write_bytes(metadata)
    (dist / "WHEEL").write_text("Wheel-Version: 1.0\n" + "".join(f"Tag: {t}\n" for t in tags))
    return dist


def test_gathers_this_interpreter():
    # named: with no environment active, the test venv (tfdoctor and its test extra alone) is a
    # tool environment, and the default is python3 on PATH (tests/gather/test_target_env_facts.py)
    snap = gather_static(sys.executable)
    assert snap.target.ok
    assert snap.python.executable == sys.executable
    assert snap.python.version == ".".join(map(str, sys.version_info[:3]))
    assert snap.package("packaging") is not None  # a runtime dependency of tfdoctor
    assert snap.host.system == os.uname().sysname


def test_broken_dist_infos_and_plugins(tmp_path):
    python, site = make_venv(tmp_path / "env")
    add_dist(site, "good", "1.0", tags=("cp311-cp311-macosx_10_9_x86_64",))
    add_dist(site, "nometa", "2.0", metadata=False)
    add_dist(site, "latin", "3.0", metadata=b"Name: latin\nVersion: 3.0\nSummary: caf\xe9 \xff\xfe\n")
    add_dist(site, "empty", "4.0", metadata=b"\x00\x01garbage")
    (site / "good-1.0.dist-info" / "RECORD").write_text(
        "good/__init__.py,,\ngood/_ext.so,,\ngood-1.0.dist-info/METADATA,,\n")
    (site / "good").mkdir()
    shutil.copy("/bin/true", site / "good" / "_ext.so")
    plugins = site / "tensorflow-plugins"
    plugins.mkdir()
    shutil.copy("/bin/true", plugins / "libreal.so")
    (plugins / "notalib.so").write_text("hello")
    (plugins / "dangling.so").symlink_to(tmp_path / "gone.so")
    snap = gather_static(str(python))
    assert snap.target.ok, snap.target
    by_name = {p.name: p for p in snap.packages}
    assert by_name["good"].wheel_tags == ["cp311-cp311-macosx_10_9_x86_64"]
    (binary,) = by_name["good"].binaries
    assert (binary.path, binary.format) == ("good/_ext.so", "elf")
    assert by_name["nometa"].error == "METADATA missing or unreadable"
    assert by_name["nometa"].version == "2.0"  # from the directory name
    assert by_name["latin"].error is None and by_name["latin"].version == "3.0"
    assert by_name["empty"].error == "METADATA has no Name or Version"
    formats = {p.name: (p.format, p.archs) for p in snap.plugins}
    assert formats["libreal.so"][0] == "elf"
    assert formats["notalib.so"] == ("unknown", [])
    dangling = next(p for p in snap.plugins if p.name == "dangling.so")
    assert dangling.format is None and "FileNotFoundError" in dangling.error


def test_venv_dir_is_accepted_as_python(tmp_path):
    python, _ = make_venv(tmp_path / "env")
    snap = gather_static(str(tmp_path / "env"))
    assert snap.python.prefix == str(tmp_path / "env")
    assert snap.python.in_venv


@pytest.mark.parametrize("arg", ["/nonexistent/python", "no-such-command-xyz"])
def test_missing_python_is_a_usage_error(arg):
    with pytest.raises(TargetNotFound):
        gather_static(arg)


def test_crashing_interpreter_is_described(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nkill -SEGV $$\n")
    fake.chmod(0o755)
    snap = gather_static(str(fake))
    assert not snap.target.ok
    assert snap.target.problem == "crashed" and "SIGSEGV" in snap.target.message


def test_not_a_python_is_told_apart(tmp_path):
    """/bin/true exits 0 without answering the `-c` check: never handed a script of ours."""
    snap = gather_static("/bin/true")
    assert snap.target.problem == "not-python"
    assert "does not answer as a Python 3.8+ would" in snap.target.message


def test_unlistable_site_dir_is_recorded_not_raised(tmp_path, monkeypatch):
    """Root reads every directory, so the permission error is raised by hand here; the guard is
    what is under test."""
    collect = importlib.import_module("tfdoctor.inside.collector.__main__")
    real_listdir = os.listdir

    def listdir(path):
        if str(path) == str(tmp_path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_listdir(path)

    monkeypatch.setattr(collect.os, "listdir", listdir)
    collect.ERRORS[:] = []
    assert collect.package_facts([str(tmp_path)]) == []
    assert collect.ERRORS == [{"what": "packages", "error": f"cannot list {tmp_path}: [Errno 13] Permission denied: '{tmp_path}'"}]


def test_memory_is_known():
    import psutil

    snap = gather_static(None)
    assert snap.host.memory_bytes == psutil.virtual_memory().total
    assert 0 < snap.host.memory_available_bytes <= snap.host.memory_bytes


# --- one mapping, no fact dropped ------------------------------------------------------------------

COLLECTOR_ONLY_KEYS = {"stage", "pid", "collector_version"}
"""Keys of the collector's document that are about the run, not facts."""


def unmapped_keys(cls, data, path="$"):
    """Keys of `data` that no field of dataclass `cls` (recursively) takes: facts the mapping
    onto the snapshot would silently drop."""
    if not (dataclasses.is_dataclass(cls) and isinstance(data, dict)):
        return []
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    missing = [f"{path}.{key}" for key in data if key not in names]
    for key in names & set(data):
        for tp in _dataclasses_in(hints[key]):
            if isinstance(data[key], list):
                for i, item in enumerate(data[key]):
                    missing += unmapped_keys(tp, item, f"{path}.{key}[{i}]")
            else:
                missing += unmapped_keys(tp, data[key], f"{path}.{key}")
    return missing


def _dataclasses_in(tp):
    if dataclasses.is_dataclass(tp):
        return [tp]
    return [found for arg in typing.get_args(tp) for found in _dataclasses_in(arg)]


def test_every_collected_fact_has_a_snapshot_field(tmp_path):
    """The collector's whole document, from an environment with a plugin, a conda record and a
    parent process, maps onto Snapshot: a new fact without a field fails here."""
    python, site = make_venv(tmp_path / "env")
    add_dist(site, "good", "1.0")
    (site / "tensorflow-plugins").mkdir()
    shutil.copy("/bin/true", site / "tensorflow-plugins" / "libreal.so")
    (tmp_path / "env" / "conda-meta").mkdir()
    (tmp_path / "env" / "conda-meta" / "python-3.11.7-h0.json").write_text(
        json.dumps({"name": "python", "version": "3.11.7", "build": "h0", "subdir": "linux-64",
                    "channel": "https://conda.anaconda.org/conda-forge/linux-64"}))
    out = tmp_path / "facts.json"
    subprocess.run([str(python), str(COLLECTOR), str(out), "--parent-pid",
                    str(os.getpid())], check=True, timeout=60)
    document = json.loads(out.read_text())
    assert document["stage"] == "done"
    facts = {k: v for k, v in document.items() if k not in COLLECTOR_ONLY_KEYS}
    assert unmapped_keys(Snapshot, facts) == []
    snap = Snapshot.from_dict({**facts, "schema_version": 1,
                               "target": {"python": str(python), "ok": True}})
    assert snap.plugins[0].name == "libreal.so" and snap.plugins[0].kind == "file"
    assert snap.python.conda.packages[0].subdir == "linux-64"
    assert snap.shell.parent.pid == os.getpid()


def test_unmapped_keys_finds_a_dropped_fact():
    """The check above would catch a fact the collector writes and no dataclass takes."""
    doc = {"host": {"system": "Linux", "gpu_vendor": "x"}, "python": None, "packages": [],
           "plugins": [{"dir": "/p", "name": "a.so", "surprise": 1}], "env": {}, "errors": []}
    assert sorted(unmapped_keys(Snapshot, doc)) == ["$.host.gpu_vendor", "$.plugins[0].surprise"]


# --- METADATA read without the email package (collector/packages.py read_headers) -----------------


def _email_view(text: str) -> list[tuple[str, str]]:
    """What the collector read before: email.parser, compat32, headers only."""
    import email.parser

    return list(email.parser.Parser().parsestr(text, headersonly=True).items())


HEADER_CASES = [
    "Metadata-Version: 2.1\nName: a\nVersion: 1\n\nName: body\n",
    "Name: a\r\nVersion: 1\r\nRequires-Dist: b ; extra == 'x'\r\n\r\nbody",
    "Name: a\rVersion: 1\rSummary: x\r\r",
    "Name: a\nDescription: line one\n        line two\n\tline three\nVersion: 2\n",
    " leading continuation\nName: a\nVersion: 1\n",
    "From someone Mon Jan 1\nName: a\nVersion: 1\n",
    "Name: a\nFrom the middle\n continued\nVersion: 1\n",
    "Name: a\n: no name\nVersion: 1\nFrom the end",
    "Name: a\nnot a header line\nVersion: 1\n",
    "Name:a\nVERSION:   1.0  \nrequires-dist: x\nRequires-Dist: y\n",
    "Name: a\nVersion: 1",
    "",
    "\n\nName: a\n",
    "Name: ü\x00\nVersion: 1\x0c2\nSummary: a\u2028b\n",
]


@pytest.mark.parametrize("text", HEADER_CASES)
def test_headers_are_read_as_email_parser_read_them(text):
    assert read_headers(text) == _email_view(text)


def test_every_installed_metadata_reads_as_email_parser_read_it():
    """Every METADATA and PKG-INFO of this interpreter's site directories (over a hundred real
    files, from setuptools, flit, hatchling, poetry and pip-built wheels)."""
    seen = 0
    for site in {p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)}:
        for entry in os.listdir(site):
            for name in ("METADATA", "PKG-INFO"):
                path = Path(site, entry, name)
                if entry.endswith((".dist-info", ".egg-info")) and path.is_file():
                    text = path.read_bytes().decode("utf-8", "replace")
                    assert read_headers(text) == _email_view(text), path
                    seen += 1
    assert seen >= 20


def test_headers_match_email_parser_on_generated_blocks():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    pieces = st.sampled_from(["Name", "Requires-Dist", "From ", ":", " ", "\t", "x", "é", "a b",
                              ": ", "\n", "\r\n", "\r", "=", "\x0b"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(pieces, max_size=30).map("".join))
    def same(text):
        assert read_headers(text) == _email_view(text)

    same()
