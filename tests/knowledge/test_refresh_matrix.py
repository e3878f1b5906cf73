"""tools/refresh_matrix.py: its parsers on recorded samples (tests/data/refresh), its builder,
and its network path against a loopback index (no traffic leaves this machine)."""

from __future__ import annotations

import dataclasses
import http.server
import importlib.util
import io
import json
import random
import sys
import threading
import zipfile
from pathlib import Path
from typing import Iterator

import pytest
from packaging.version import Version
from support.reference import TF_WHEELS, load_reference, unpacked_reference

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "refresh"
sys.path.insert(0, str(REPO / "tools"))

from refresh_build import build_keras, build_sections  # noqa: E402
from refresh_fetch import TAIL_BYTES, central_members, wheels_from_index  # noqa: E402
from refresh_pip import PipSettings, parse_index_page, parse_pip_config_list, pip_settings  # noqa: E402
from refresh_wheels import (  # noqa: E402
    ORIGIN_FILENAMES,
    TableRow,
    WheelInfo,
    in_scope,
    parse_metadata,
    parse_table_row,
    parse_wheel_name,
    parse_wheel_tags,
    table_lines,
    tag_disagreements,
)


def _load_tool():
    spec = importlib.util.spec_from_file_location("refresh_matrix", REPO / "tools" / "refresh_matrix.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["refresh_matrix"] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


rm = _load_tool()


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _recorded(filename: str, stem: str, size: int | None = None) -> WheelInfo:
    """A WheelInfo as read_wheel() would make it, from a recorded METADATA/WHEEL pair."""
    name = parse_wheel_name(filename)
    meta = parse_metadata(_text(f"{stem}.METADATA"))
    return WheelInfo(
        package=name.package, version=name.version, python_tags=name.python_tags,
        platform_tags=name.platform_tags, filename=filename, size=size, upload_time="2025-01-31T00:00:00Z",
        requires_python=meta.requires_python, requires_dist=meta.requires_dist,
        description=meta.description, wheel_file_tags=parse_wheel_tags(_text(f"{stem}.WHEEL")),
    )


def _keras(stem: str, yanked: bool = False) -> WheelInfo:
    """A keras/tf-keras WheelInfo from a recorded METADATA (pure-Python wheels, no WHEEL kept)."""
    filename = f"{stem}-py3-none-any.whl"
    name = parse_wheel_name(filename)
    meta = parse_metadata(_text(f"{stem}.METADATA"))
    return WheelInfo(package=name.package, version=name.version, python_tags=name.python_tags,
                     platform_tags=name.platform_tags, filename=filename,
                     upload_time="2026-03-18T00:00:00Z", requires_python=meta.requires_python,
                     requires_dist=meta.requires_dist, yanked=yanked)


# ---------------------------------------------------------------------------------------------
# pip configuration


def test_pip_config_list_is_read_with_pips_priorities():
    config = parse_pip_config_list(_text("pip-config-list.txt"))
    assert config["extra-index-url"] == "file:///opt/pypi/simple file:///opt/pypi-more/simple"
    assert config["cert"] == "/etc/ssl/certs/ca-certificates.crt"
    settings = pip_settings(config, {})
    assert settings.index_urls == ("https://pypi.org/simple/", "file:///opt/pypi/simple",
                                   "file:///opt/pypi-more/simple")
    assert settings.timeout == 180.0


def test_pip_environment_variables_win():
    config = parse_pip_config_list("global.index-url='https://a.example/simple'\n"
                                   "install.index-url='https://b.example/simple'\n"
                                   "global.proxy='http://p:3128'\n")
    assert config["index-url"] == "https://b.example/simple"
    settings = pip_settings(config, {"PIP_INDEX_URL": "https://c.example/simple",
                                     "PIP_EXTRA_INDEX_URL": "https://d.example/simple https://e.example/simple"})
    assert settings.index_url == "https://c.example/simple"
    assert settings.extra_index_urls == ("https://d.example/simple", "https://e.example/simple")
    assert settings.proxy == "http://p:3128"


# ---------------------------------------------------------------------------------------------
# index pages


def test_recorded_html_index_page():
    page = (DATA / "index-tensorflow-metal.html").read_bytes()
    files = parse_index_page(page, "text/html", "https://pypi.org/simple/tensorflow-metal/")
    assert len(files) == page.count(b"<a ")
    f = next(f for f in files if f.filename == "tensorflow_metal-1.2.0-cp312-cp312-macosx_12_0_arm64.whl")
    assert f.url.startswith("https://files.pythonhosted.org/") and "#sha256=" in f.url
    assert f.upload_time.startswith("2025-01-31")
    assert not f.has_core_metadata and not f.yanked and f.requires_python is None
    versions = {parse_wheel_name(f.filename).version for f in files}
    assert {"0.1.0", "0.5.1", "1.1.0", "1.2.0"} <= versions


def test_html_attributes_of_pep_503_658_and_592():
    page = (b'<a href="../../pkg/x-1.0-py3-none-any.whl#sha256=ab" data-requires-python="&gt;=3.9" '
            b'data-core-metadata="sha256=cd" data-yanked="">x-1.0-py3-none-any.whl</a>'
            b'<a href="x-2.0-py3-none-any.whl" data-dist-info-metadata="true">x-2.0-py3-none-any.whl</a>')
    one, two = parse_index_page(page, "text/html", "https://i.example/simple/x/")
    assert one.url == "https://i.example/pkg/x-1.0-py3-none-any.whl#sha256=ab"
    assert one.requires_python == ">=3.9" and one.has_core_metadata and one.yanked
    assert two.has_core_metadata and not two.yanked


def test_json_index_page():
    body = (DATA / "index-tensorflow-metal-1.2.0.json").read_bytes()
    files = parse_index_page(body, "application/vnd.pypi.simple.v1+json", "https://pypi.org/simple/tensorflow-metal/")
    assert len(files) == 4
    f = next(f for f in files if "cp312" in f.filename)
    assert f.size == 1357400 and f.upload_time.startswith("2025-01-31") and not f.has_core_metadata
    page = {"files": [{"filename": "x-1.0-py3-none-any.whl", "url": "../x-1.0-py3-none-any.whl",
                       "core-metadata": {"sha256": "ab"}, "yanked": "broken", "requires-python": ">=3.10"}]}
    (g,) = parse_index_page(json.dumps(page).encode(), "application/vnd.pypi.simple.v1+json",
                            "https://i.example/simple/x/")
    assert g.url == "https://i.example/simple/x-1.0-py3-none-any.whl"
    assert g.has_core_metadata and g.yanked and g.requires_python == ">=3.10"


# ---------------------------------------------------------------------------------------------
# what a wheel says about itself


def test_wheel_filename_tags():
    name = parse_wheel_name("tensorflow_macos-2.15.1-cp311-cp311-macosx_12_0_arm64.whl")
    assert (name.package, name.version, name.python_tags, name.platform_tags) == (
        "tensorflow-macos", "2.15.1", ("cp311",), ("macosx_12_0_arm64",))
    many = parse_wheel_name("tensorflow-2.12.0-cp38-cp38-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
    assert many.platform_tags == ("manylinux2014_x86_64", "manylinux_2_17_x86_64")
    assert parse_wheel_name("tensorflow-2.12.0.tar.gz") is None


def test_recorded_metadata():
    metal = parse_metadata(_text("tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64.METADATA"))
    assert (metal.name, metal.version, metal.requires_python) == ("tensorflow-metal", "1.2.0", None)
    assert metal.requires_dist == ("wheel~=0.35", "six>=1.15.0")  # no tensorflow dependency
    shim = parse_metadata(_text("tensorflow_macos-2.15.1-cp311-macosx_12_0_arm64.METADATA"))
    assert shim.requires_python == ">=3.9"
    assert 'tensorflow-macos ==2.15.1 ; platform_system == "Darwin" and platform_machine == "arm64"' in shim.requires_dist
    tf = parse_metadata(_text("tensorflow-2.16.1-cp312-macosx_12_0_arm64.METADATA"))
    assert 'numpy <2.0.0,>=1.26.0 ; python_version >= "3.12"' in tf.requires_dist


def test_recorded_wheel_file_disagrees_with_the_filename():
    tags = parse_wheel_tags(_text("tensorflow_metal-1.1.0-cp311-macosx_12_0_arm64.WHEEL"))
    assert tags == ("cp311-cp311-macosx_11_0_arm64",)
    w = _recorded("tensorflow_metal-1.1.0-cp311-cp311-macosx_12_0_arm64.whl", "tensorflow_metal-1.1.0-cp311-macosx_12_0_arm64")
    ok = _recorded("tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl", "tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64")
    assert tag_disagreements([w, ok]) == [
        "tensorflow_metal-1.1.0-cp311-cp311-macosx_12_0_arm64.whl: WHEEL says cp311-cp311-macosx_11_0_arm64"]


def test_apple_table_from_recorded_metadata():
    description = parse_metadata(_text("tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64.METADATA")).description
    lines = table_lines(description)
    assert lines[0] == "|tensorflow  |tensorflow-metal|MacOs| features | "  # verbatim, trailing space kept
    rows = [r for r in map(parse_table_row, lines) if r]
    assert len(lines) == 13 and len(rows) == 11
    assert rows[0] == TableRow("|v2.5 |v0.1.2|12.0+|Pluggable device        |", ("2.5",), "0.1.2", "12.0")
    assert rows[-2].tf_minors == ("2.14", "2.15", "2.16", "2.17", "2.18") and rows[-2].metal == "1.1.0"
    assert rows[-1].metal == "1.1.0" and "2.18+" in rows[-1].text  # the row that means 1.2.0
    assert all(r.metal != "1.2.0" for r in rows)
    own = table_lines(parse_metadata(_text("tensorflow_metal-1.1.0-cp311-macosx_12_0_arm64.METADATA")).description)
    assert own[-1] == "|v2.14|v1.1.0|12.1+||"


# ---------------------------------------------------------------------------------------------
# building the sections


@pytest.fixture(scope="module")
def recorded_sections() -> dict:
    wheels = [
        _recorded("tensorflow-2.16.1-cp312-cp312-macosx_12_0_arm64.whl", "tensorflow-2.16.1-cp312-macosx_12_0_arm64", 227126718),
        _recorded("tensorflow_macos-2.16.1-cp312-cp312-macosx_12_0_arm64.whl", "tensorflow_macos-2.16.1-cp312-macosx_12_0_arm64", 2165),
        _recorded("tensorflow_macos-2.15.1-cp311-cp311-macosx_12_0_arm64.whl", "tensorflow_macos-2.15.1-cp311-macosx_12_0_arm64", 2159),
        _recorded("tensorflow_metal-1.1.0-cp311-cp311-macosx_12_0_arm64.whl", "tensorflow_metal-1.1.0-cp311-macosx_12_0_arm64"),
        _recorded("tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl", "tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64"),
    ]
    return build_sections(wheels)


def test_build_tensorflow_sections(recorded_sections):
    rel = recorded_sections["tensorflow"]["2.16"]["releases"]["2.16.1"]
    assert rel["tensorflow"]["arm64"]["kind"] == "full"
    assert rel["tensorflow-macos"]["arm64"]["kind"] == "thin"
    assert rel["tensorflow-macos"]["arm64"]["depends_on"] == "tensorflow==2.16.1"
    assert rel["code"] == {"arm64": "tensorflow"}
    # only the cp312 wheel was given, so only the Python 3.12 numpy pin applies
    assert rel["pins_macos_arm64"]["numpy"] == ['numpy<2.0.0,>=1.26.0; python_version >= "3.12"']
    assert rel["pins_macos_arm64"]["keras"] == ["keras>=3.0.0"]
    assert recorded_sections["tensorflow"]["2.16"]["keras_major"] == 3
    shim = recorded_sections["tensorflow"]["2.15"]["releases"]["2.15.1"]
    assert shim["tensorflow-macos"]["arm64"]["kind"] == "self-shim"
    assert shim["code"] == {} and shim["pins_macos_arm64"] == {}


def test_build_metal_sections(recorded_sections):
    metal = recorded_sections["tensorflow_metal"]
    assert metal["1.1.0"]["documented_tf_minors"] == ["2.14", "2.15", "2.16", "2.17", "2.18"]
    assert metal["1.1.0"]["own_metadata_rows"] == ["|v2.14|v1.1.0|12.1+||"]
    assert metal["1.1.0"]["apple_table_min_macos"] == "12.1"
    assert metal["1.2.0"]["undocumented"] and metal["1.2.0"]["inferred_tf_minor"] == "2.18"
    assert metal["1.2.0"]["inference"].startswith("INFERENCE")
    assert metal["1.2.0"]["own_metadata_rows"] == []
    assert metal["1.2.0"]["wheels"]["arm64"]["python"] == ["3.11"]
    assert not metal["1.2.0"]["depends_on_tensorflow"]
    table = recorded_sections["apple_table"]
    assert table["source"].endswith("tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl")
    assert len(table["rows"]) == 13


def _comparable(node, filenames_only: set, path: tuple = ()):
    """A section without the fields that say where a fact was read (the shipped file was read
    from the registry on 2026-11-23, the reference on 2026-11-21), with the wheel groups the
    reference knows from filenames only reduced to their tags, and without pre-releases before
    2.13.0rc0 (the reference did not read them)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("source", "pins_source"):
                continue
            if len(path) == 3 and path[2] == "prereleases" and Version(key) < Version("2.13.0rc0"):
                continue
            out[key] = _comparable(value, filenames_only, path + (key,))
        if len(path) == 6 and path[4] == "tensorflow" and (path[3], path[5]) in filenames_only:
            out = {k: v for k, v in out.items() if k in ("python", "min_macos", "platform_tags", "depends_on")}
        return out
    if isinstance(node, list):
        return [_comparable(v, filenames_only, path) for v in node]
    return node


def test_reference_records_rebuild_the_shipped_sections():
    """The shipped sections (read live) say what the reference's records say, where both read."""
    shipped = json.loads((REPO / "compat_matrix.json").read_text(encoding="utf-8"))
    wheels = rm.wheels_from_reference(load_reference(TF_WHEELS))
    rebuilt = build_sections(wheels)
    filenames_only = {(w.version, w.arch) for w in wheels if w.origin == ORIGIN_FILENAMES}
    assert ("2.5.0", "x86_64") in filenames_only
    for key in ("tensorflow", "tensorflow_metal", "apple_table"):
        assert _comparable(rebuilt[key], filenames_only, (key,)) == \
            _comparable(shipped[key], filenames_only, (key,)), key
    assert "keras_packages" not in rebuilt  # the reference has no keras records


def test_cli_from_reference_keeps_other_sections(tmp_path, capsys):
    """--write replaces the wheel sections and keeps every other one, keras_packages (not in
    the reference) and sections other tools own included."""
    shipped = json.loads((REPO / "compat_matrix.json").read_text(encoding="utf-8"))
    shipped["metal_load_check"] = {"owned by": "another tool"}
    target = tmp_path / "compat_matrix.json"
    target.write_text(rm.dump(shipped), encoding="utf-8")
    assert rm.main(["--matrix", str(target), "--from-reference",
                    str(unpacked_reference(TF_WHEELS, tmp_path)), "--write"]) == 0
    assert "wheels" in capsys.readouterr().err  # the closing summary
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["facts_read"] == "2026-11-21"
    for key in set(shipped) - {"facts_read", "tensorflow", "tensorflow_metal", "apple_table"}:
        assert written[key] == shipped[key], key


def test_saved_wheels_rebuild_the_shipped_sections(tmp_path):
    """--save-wheels / --from-wheels round trip: what one live read saved rebuilds the same."""
    wheels = [_recorded("tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl",
                        "tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64"), _keras("tf_keras-2.21.0")]
    saved = {"read_on": "2026-11-23", "wheels": [dataclasses.asdict(w) for w in wheels]}
    assert [rm._wheel_from_json(json.loads(json.dumps(w))) for w in saved["wheels"]] == wheels


def test_merge_keeps_curated_sections_and_diff_shows_changes():
    shipped = {"schema_version": 1, "facts_read": "2026-01-01", "tensorflow": {"2.19": {}},
               "tensorflow_metal": {}, "apple_table": {}, "runtime_evidence": [{"id": "x"}],
               "known_quirks": [{"id": "q"}]}
    sections = {"tensorflow": {"2.20": {}}, "tensorflow_metal": {"1.3.0": {}}, "apple_table": {"rows": []}}
    merged = rm.merge(shipped, sections, "2026-12-01")
    assert merged["runtime_evidence"] == [{"id": "x"}] and merged["known_quirks"] == [{"id": "q"}]
    assert merged["tensorflow"] == {"2.20": {}} and merged["facts_read"] == "2026-12-01"
    text = rm.diff(shipped, merged)
    assert '-    "2.19": {}' in text and '+    "2.20": {}' in text
    assert rm.diff(merged, merged) == ""


# ---------------------------------------------------------------------------------------------
# the network path, against a loopback index


def _small_wheel(dist_info_first: bool = False) -> bytes:
    """A real-shaped wheel: the recorded 1.2.0 METADATA/WHEEL (deflated) plus 600 KB of
    incompressible filler, after them or (as bdist_wheel writes it) before them."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        members = [("tensorflow_metal-1.2.0.dist-info/METADATA", _text("tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64.METADATA")),
                   ("tensorflow_metal-1.2.0.dist-info/WHEEL", _text("tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64.WHEEL"))]
        filler = ("tensorflow-plugins/libmetal_plugin.dylib", random.Random(0).randbytes(600_000))
        for name, data in (members + [filler]) if dist_info_first else ([filler] + members):
            z.writestr(name, data)
    return buf.getvalue()


class _Index(http.server.BaseHTTPRequestHandler):
    """Serves one project page (JSON or HTML), its wheel (with or without ranges) and .metadata."""

    wheel = b""
    json_pages = True
    ranges = True
    core_metadata = True
    log: list = []
    FILE = "tensorflow_metal-1.2.0-cp311-cp311-macosx_12_0_arm64.whl"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.log.append((self.path, self.headers.get("Range"), self.headers.get("Accept")))
        if self.path == "/simple/tensorflow-metal/":
            if self.json_pages and "json" in (self.headers.get("Accept") or ""):
                meta = {"sha256": "x"} if self.core_metadata else False
                body = json.dumps({"meta": {"api-version": "1.1"}, "name": "tensorflow-metal", "files": [
                    {"filename": self.FILE, "url": f"../../files/{self.FILE}", "hashes": {},
                     "core-metadata": meta, "upload-time": "2025-01-31T00:00:00Z"}]}).encode()
                return self._send(200, body, "application/vnd.pypi.simple.v1+json")
            body = f'<a href="../../files/{self.FILE}">{self.FILE}</a>'.encode()
            return self._send(200, body, "text/html")
        if self.path == f"/files/{self.FILE}.metadata" and self.core_metadata:
            return self._send(200, _text("tensorflow_metal-1.2.0-cp311-macosx_12_0_arm64.METADATA").encode(), "text/plain")
        if self.path == f"/files/{self.FILE}":
            rng = self.headers.get("Range")
            if rng and self.ranges:
                first_text, last_text = rng.split("=")[1].split("-")
                if not first_text:  # a suffix range: the last N bytes
                    first, last = max(0, len(self.wheel) - int(last_text)), len(self.wheel) - 1
                else:
                    first, last = int(first_text), int(last_text)
                part = self.wheel[first:last + 1]
                return self._send(206, part, "application/octet-stream",
                                  {"Content-Range": f"bytes {first}-{first + len(part) - 1}/{len(self.wheel)}"})
            return self._send(200, self.wheel, "application/octet-stream")
        self._send(404, b"not found", "text/plain")

    def _send(self, code: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def index() -> Iterator[type[_Index]]:
    handler = type("Handler", (_Index,), {"wheel": _small_wheel(), "log": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    handler.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield handler
    finally:
        server.shutdown()
        server.server_close()


def _read(index: type[_Index]) -> list:
    settings = PipSettings(index_url=index.base + "/simple/", timeout=10)
    return wheels_from_index(settings, jobs=2)


def _wheel_bytes_fetched(index: type[_Index]) -> int:
    total = 0
    for path, rng, _accept in index.log:
        if path.endswith(".whl"):
            if rng is None:
                return -1  # a whole-file GET
            first_text, last_text = rng.split("=")[1].split("-")
            total += int(last_text) if not first_text else int(last_text) - int(first_text) + 1
    return total


def test_json_index_pep_658_metadata_and_range_reads(index):
    (w,) = _read(index)
    assert (w.package, w.version, w.filename) == ("tensorflow-metal", "1.2.0", _Index.FILE)
    assert w.requires_dist == ("wheel~=0.35", "six>=1.15.0")
    assert w.wheel_file_tags == ("cp311-cp311-macosx_12_0_arm64",)
    assert w.size == len(index.wheel) and w.upload_time.startswith("2025-01-31")
    assert any(p.endswith(".metadata") for p, _r, _a in index.log)
    assert any("vnd.pypi.simple.v1+json" in (a or "") for _p, _r, a in index.log)
    fetched = _wheel_bytes_fetched(index)
    assert 0 < fetched < len(index.wheel) / 2  # the filler was never downloaded
    sections = build_sections([w])
    assert sections["tensorflow_metal"]["1.2.0"]["wheels"]["arm64"]["python"] == ["3.11"]
    assert len(sections["apple_table"]["rows"]) == 13


def test_html_index_without_pep_658_reads_metadata_from_the_zip(index):
    index.json_pages = False
    index.core_metadata = False
    (w,) = _read(index)
    assert w.requires_dist == ("wheel~=0.35", "six>=1.15.0") and w.upload_time is None
    assert not any(p.endswith(".metadata") for p, _r, _a in index.log)
    assert 0 < _wheel_bytes_fetched(index) < len(index.wheel) / 2


def test_server_without_ranges_falls_back_to_a_whole_download(index, capsys):
    index.ranges = False
    (w,) = _read(index)
    assert w.wheel_file_tags == ("cp311-cp311-macosx_12_0_arm64",)
    assert [r for p, r, _a in index.log if p.endswith(".whl")] == [f"bytes=-{TAIL_BYTES}"]  # fetched once
    assert "downloading it whole" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# reading only the end of a wheel


def test_central_directory_from_a_real_wheel_tail():
    """The last 12 KB of tensorflow-2.22.0rc0-cp311-cp311-macosx_12_0_arm64.whl (245,347,278
    bytes): the directory is read forward from the first entry whose chain ends on the end record."""
    tail = (DATA / "tensorflow-2.22.0rc0-cp311-macosx_12_0_arm64.tail12k").read_bytes()
    members = central_members(tail, 245_347_278 - len(tail))
    by_name = {m.name: m for m in members}
    meta = by_name["tensorflow-2.22.0rc0.dist-info/METADATA"]
    assert meta.method == 8 and meta.compressed_size == 1508 and meta.local_offset == 243_180_054
    assert members[-1].name == "tensorflow-2.22.0rc0.dist-info/RECORD"
    assert central_members(tail, 0) is None  # offsets that do not add up are refused
    assert central_members(tail[:-22], 245_347_256 - len(tail)) is None  # no end record


@pytest.mark.parametrize("dist_info_first", [False, True])
def test_tail_reader_fetches_at_most_two_ranges(index, dist_info_first):
    index.wheel = _small_wheel(dist_info_first)
    index.core_metadata = False
    (w,) = _read(index)
    ranges = [r for p, r, _a in index.log if p.endswith(".whl")]
    assert ranges[0] == f"bytes=-{TAIL_BYTES}" and len(ranges) == (2 if dist_info_first else 1)
    assert w.wheel_file_tags == ("cp311-cp311-macosx_12_0_arm64",) and w.size == len(index.wheel)
    assert w.requires_dist == ("wheel~=0.35", "six>=1.15.0")
    assert _wheel_bytes_fetched(index) < 80_000


# ---------------------------------------------------------------------------------------------
# pre-releases, keras and tf-keras


def test_scope_takes_prereleases_and_keras():
    def scoped(filename: str) -> bool:
        return in_scope(parse_wheel_name(filename))

    assert scoped("tensorflow-2.22.0rc0-cp311-cp311-macosx_12_0_arm64.whl")
    assert scoped("tensorflow-2.5.0rc0-cp38-cp38-macosx_10_11_x86_64.whl")
    assert not scoped("tensorflow-2.22.0rc0-cp311-cp311-manylinux_2_27_x86_64.whl")
    assert not scoped("tensorflow-2.4.0-cp38-cp38-macosx_10_11_x86_64.whl")
    assert scoped("tf_keras-2.16.0rc1-py3-none-any.whl") and scoped("keras-3.15.1-py3-none-any.whl")
    assert not scoped("keras-3.0.0rc1-py3-none-any.whl") and not scoped("keras-2.5.0rc0-py2.py3-none-any.whl")


def test_prerelease_only_minor():
    """tensorflow 2.22 has only 2.22.0rc0 (Requires-Dist copied from its cp311 wheel, shared
    reference records): kept apart from the finals, and it still describes the minor."""
    wheels = [w for w in rm.wheels_from_reference(load_reference(TF_WHEELS)) if w.version in ("2.22.0rc0", "2.21.0", "2.21.0rc1")]
    minors = build_sections(wheels)["tensorflow"]
    assert minors["2.22"]["releases"] == {} and minors["2.22"]["prerelease_only"]
    assert minors["2.22"]["newest_patch"] == "2.22.0rc0" and minors["2.22"]["keras_major"] == 3
    assert list(minors["2.21"]["releases"]) == ["2.21.0"] and list(minors["2.21"]["prereleases"]) == ["2.21.0rc1"]
    assert not minors["2.21"]["prerelease_only"] and minors["2.21"]["newest_patch"] == "2.21.0"
    # the cp314 wheel pins h5py~=3.15.1, the others h5py<3.15.0: each keeps its Python
    h5py = minors["2.22"]["prereleases"]["2.22.0rc0"]["pins_macos_arm64"]["h5py"]
    assert 'h5py~=3.15.1; python_version == "3.14"' in h5py
    assert 'h5py<3.15.0,>=3.11.0; python_version == "3.13"' in h5py and len(h5py) == 5


def test_keras_packages_from_recorded_metadata():
    sections = build_sections([_keras("tf_keras-2.21.0"), _keras("keras-3.15.1")])
    k = sections["keras_packages"]
    assert k["tf-keras"]["2.21.0"] == {
        "requires_python": ">=3.10", "tensorflow": ["tensorflow<2.22,>=2.21"], "prerelease": False,
        "yanked": False, "upload_date": "2026-03-18", "wheel": "tf_keras-2.21.0-py3-none-any.whl"}
    assert k["keras"]["3.15.1"]["requires_python"] == ">=3.11" and k["keras"]["3.15.1"]["tensorflow"] == []
    assert k["source"] and sections["tensorflow"] == {}
    yanked = build_keras([_keras("tf_keras-2.21.0", yanked=True)])
    assert yanked["tf-keras"]["2.21.0"]["yanked"]
