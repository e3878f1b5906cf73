"""tools/binary_facts.py (static load check, remote zip reading, the sections it writes),
tools/metal_kernels.py, and what tfdoctor ships from them (binary_evidence, kernels).

Inputs are real: excerpts of the plugin binaries (tests/data/macho), the TensorFlow wheels'
install names and exports as the sweep read them (tests/data/macho/tf-images-*.json), and the
reference facts (tests/data/reference/metal_binaries_2026-11.json.gz) read independently with
LLVM's tools and an emulator. Network traffic stays on a loopback server, except in the slow test.
"""

from __future__ import annotations

import http.server
import io
import json
import shutil
import subprocess
import sys
import threading
import zipfile
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest
from support.reference import METAL_BINARIES, load_reference

from knowledge.test_macho import PYWRAP, excerpt, minimal_dylib

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "macho"
sys.path.insert(0, str(REPO / "tools"))

import binary_facts  # noqa: E402
import macho  # noqa: E402
import macho_base  # noqa: E402
from binary_index import _WHEEL, Fetcher, WheelRef, _version_key, pick  # noqa: E402
from binary_load import Image, check_load, exported_through, resolve_library  # noqa: E402
from binary_sections import PluginRead, build_kernels, write_sections  # noqa: E402
from binary_zip import central_directory, member_stream, read_image, read_wheel  # noqa: E402

from tfdoctor.knowledge import binary_evidence, kernels  # noqa: E402


def _reference() -> dict:
    return load_reference(METAL_BINARIES)


def _images(version: str) -> list[Image]:
    raw = json.loads((DATA / f"tf-images-{version}-arm64.json").read_text(encoding="utf-8"))
    return [Image(i["path"], i["id"], [tuple(d) for d in i["dylibs"]], i["rpaths"], set(i["exports"]),
                  i.get("build", {})) for i in raw["images"]]


@pytest.fixture(scope="module")
def plugins() -> dict[str, macho.MachO]:
    return {v: macho.parse(excerpt(f"tensorflow_metal-{v}-arm64-libmetal_plugin.excerpt.gz"))
            for v in ("1.1.0", "1.2.0")}


# -- the load check on recorded facts ----------------------------------------------------------


def test_metal_110_fails_on_218_with_the_reported_symbol(plugins):
    result = check_load(plugins["1.1.0"], _images("2.18.0"))
    assert not result.loads
    assert result.missing_libraries == [] and result.missing_flat == []
    assert result.missing_two_level == {PYWRAP: ["__ZN3tsl8internal10LogMessageC1EPKcii"]}
    assert _reference()["load_check"]["reasons"]["a"].startswith(
        "two-level symbol __ZN3tsl8internal10LogMessageC1EPKcii missing")


def test_metal_120_loads_on_2191_and_not_on_2220rc0(plugins):
    assert check_load(plugins["1.2.0"], _images("2.19.1")).loads
    result = check_load(plugins["1.2.0"], _images("2.22.0rc0"))
    detail = _reference()["load_check"]["detail_1.2.0_on_2.22.0rc0"]
    assert result.missing_libraries == detail["missing_libraries"]
    assert result.missing_two_level == detail["missing_two_level"]
    assert result.missing_flat == detail["missing_flat"]


def test_a_tensorflow_wheel_without_the_library_fails_on_every_symbol_bound_to_it(plugins):
    images = [i for i in _images("2.19.1") if i.id_name != PYWRAP]
    result = check_load(plugins["1.2.0"], images)
    assert result.missing_libraries == [PYWRAP]
    assert len(result.missing_two_level[PYWRAP]) == 27


def _image(path: str, id_name: str | None, exports: set[str], dylibs=(), rpaths=()) -> Image:
    return Image(path, id_name, list(dylibs), list(rpaths), exports)


def test_rpath_resolution_reexports_and_weak_imports():
    fw = _image("tensorflow/libtensorflow_framework.2.dylib", "libtensorflow_framework.2.dylib", {"_A"})
    umbrella = _image("tensorflow/python/_pywrap.so", "@rpath/_pywrap.so", {"_B"},
                      dylibs=[("@rpath/libtensorflow_framework.2.dylib", "reexport")],
                      rpaths=["@loader_path/.."])
    fw_by_rpath = resolve_library("@rpath/libtensorflow_framework.2.dylib", umbrella.path,
                                  umbrella.rpaths, [fw, umbrella])
    assert fw_by_rpath is fw  # found as a file through the rpath, not by install name
    assert exported_through(umbrella, [fw, umbrella]) == {"_A", "_B"}
    assert resolve_library("@rpath/nothing.dylib", "tensorflow-plugins/x.dylib", ["@loader_path/.."],
                           [fw, umbrella]) is None


def test_macos_flat_lookups_never_fail(plugins):
    plugin = plugins["1.2.0"]
    flat = [i.name for i in plugin.imports() if i.library == macho_base.FLAT]
    assert "_objc_msgSend" in flat  # served by libobjc, which the plugin links
    result = check_load(plugin, _images("2.19.1"))
    assert "_objc_msgSend" not in result.missing_flat


@pytest.mark.parametrize("fixups", ["opcodes", "chained"])
def test_missing_weak_imports_never_fail_the_load(fixups):
    """dyld binds a missing weak import to NULL (two-level or flat) instead of failing; a missing
    non-weak one fails. The weak flag comes from the bind opcodes or the chained import table."""
    plugin = macho.parse(minimal_dylib(fixups))
    pywrap = _image("tensorflow/python/_pywrap_tensorflow_internal.so", PYWRAP, set())
    result = check_load(plugin, [pywrap])
    assert result.missing_two_level == {PYWRAP: ["_TF_Required"]}
    assert result.missing_flat == ["_TF_FlatRequired"]
    pywrap.exports |= {"_TF_Required", "_TF_FlatRequired"}
    assert check_load(plugin, [pywrap]).loads


# -- reading images from a stream, and zips over HTTP ranges -------------------------------------


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i:i + size]


@pytest.mark.parametrize("chunk", [1000, 65536, 1 << 20])
def test_read_image_keeps_only_what_it_needs(chunk):
    data = excerpt("tensorflow-2.19.1-arm64-_pywrap_tensorflow_internal.excerpt.gz")
    whole = macho.parse(data)
    image = read_image(_chunks(data, chunk), "tensorflow/python/_pywrap_tensorflow_internal.so", "arm64",
                       {"_TF_NewKernelBuilder", "__ZN3tsl8internal10LogMessageC1EPKcii", "_TF_Nope"})
    assert image.id_name == whole.id_name == PYWRAP
    assert image.dylibs == [(d.name, d.kind) for d in whole.dylibs]
    assert image.exports == {"_TF_NewKernelBuilder"}
    every = read_image(_chunks(data, chunk), "x", "arm64", None)
    assert every.exports == whole.exports()
    assert read_image(_chunks(b"#!/bin/sh\n" * 500, chunk), "x", "arm64", None) is None


class _RangeHandler(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        body = self.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        first, last = self.headers["Range"].removeprefix("bytes=").split("-")
        first, last = int(first), min(int(last), len(body) - 1)
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {first}-{last}/{len(body)}")
        self.send_header("Content-Length", str(last - first + 1))
        self.end_headers()
        self.wfile.write(body[first:last + 1])

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[tuple[str, dict[str, bytes]]]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RangeHandler)
    _RangeHandler.files = {}
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", _RangeHandler.files
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_wheel_read_over_range_requests(server):
    base, files = server
    pywrap = excerpt("tensorflow-2.19.1-arm64-_pywrap_tensorflow_internal.excerpt.gz")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("tensorflow/__init__.py", "# " + "x" * 300_000)
        z.writestr("tensorflow/python/_pywrap_tensorflow_internal.so", pywrap)
        z.writestr("tensorflow/include/big.h", bytes(range(256)) * 4000, compress_type=zipfile.ZIP_STORED)
    files["/t.whl"] = buf.getvalue()
    wheel = WheelRef("tensorflow", "2.19.1", "arm64", "t.whl", base + "/t.whl", len(buf.getvalue()))
    fetcher = Fetcher()
    members = central_directory(fetcher, wheel.url, wheel.size)
    assert [m.name for m in members][1] == "tensorflow/python/_pywrap_tensorflow_internal.so"
    stored = members[2]
    assert b"".join(member_stream(fetcher, wheel.url, stored)) == bytes(range(256)) * 4000
    read = read_wheel(fetcher, wheel, {"_TF_NewKernelBuilder"})
    assert [(i.path, i.id_name, i.exports) for i in read.images] == [
        ("tensorflow/python/_pywrap_tensorflow_internal.so", PYWRAP, {"_TF_NewKernelBuilder"})]
    assert 0 < fetcher.bytes < len(buf.getvalue()) + len(pywrap)  # the headers never came


# -- the sections written, and what tfdoctor reads from them ------------------------------------


def test_the_sweep_cache_keeps_a_wheels_images_for_the_symbols_it_was_read_for():
    images = _images("2.19.1")
    wanted = {"_TF_NewKernelBuilder", "_TF_Nope"}
    wheel = WheelRef("tensorflow", "2.19.1", "arm64", "t.whl", "", 0)
    cache = {wheel.filename: json.loads(json.dumps(binary_facts._to_cache(images, wanted)))}
    again = binary_facts._cached(cache, wheel, {"_TF_NewKernelBuilder"})
    assert again == [Image(i.path, i.id_name, i.dylibs, i.rpaths, i.exports & {"_TF_NewKernelBuilder"}, i.build)
                     for i in images]
    assert binary_facts._cached(cache, wheel, wanted | {"_TF_More"}) is None  # read for fewer symbols


def test_write_sections_touches_only_its_own(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"b": 1, "metal_kernels": {"old": True}, "a": [1, 2]}, indent=2) + "\n")
    write_sections(path, {"metal_kernels": {"new": True}, "metal_load_check": {"x": 1}})
    text = path.read_text()
    assert list(json.loads(text)) == ["b", "metal_kernels", "a", "metal_load_check"]
    assert json.loads(text)["metal_kernels"] == {"new": True} and text.endswith("}\n")


def _table(records: list[dict]) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for k in records:
        text = ",".join(f"{a}={d}" for a, d in sorted(k["constraints"].items()))
        text += (";host=" + ",".join(k["host_memory"])) if k["host_memory"] else ""
        out.setdefault(k["op"], Counter())[text] += 1
    return out


def test_kernel_diffs_round_trip_through_tfdoctor_kernels():
    reference = _reference()["kernels"]
    wheel = "tensorflow_metal-{}-cp311-cp311-macosx_12_0_arm64.whl"
    reads = [PluginRead(WheelRef("tensorflow-metal", v, "arm64", wheel.format(v), "", 0),
                        macho.MachO(b"", "arm64", 6, 0), kernels=reference[v]) for v in ("1.1.0", "1.2.0")]
    section = build_kernels(reads)
    assert "full" in section["releases"]["1.2.0"] and section["releases"]["1.1.0"]["base"] == "1.2.0"
    for v in ("1.1.0", "1.2.0"):
        table = kernels.kernel_table(v, {"metal_kernels": section})
        assert {op: sorted(k.encode() for k in ks) for op, ks in table.kernels.items()} == \
            {op: sorted(c) for op, c in _table(reference[v]).items()}


def _shipped() -> dict:
    return json.loads((REPO / "compat_matrix.json").read_text(encoding="utf-8"))


def test_shipped_kernel_tables_equal_the_reference():
    reference, shipped = _reference()["kernels"], _shipped()
    for v in ("1.1.0", "1.2.0"):
        table = kernels.kernel_table(v, shipped)
        assert {op: sorted(k.encode() for k in ks) for op, ks in table.kernels.items()} == \
            {op: sorted(c) for op, c in _table(reference[v]).items()}
    table = kernels.kernel_table("1.2.0", shipped)
    assert len(table.ops()) == 174
    # what `tfdoctor ops Einsum MatMul --plugin 1.2.0` answers (reference README: Einsum runs on the CPU)
    assert not table.has_kernel("Einsum") and table.has_kernel("MatMul", "float32")
    assert table.dtypes("MatMul") == {"bfloat16", "float16", "float32"}
    assert kernels.releases(shipped)[0] == "1.2.0" and "0.1.0" in kernels.releases(shipped)


def test_one_wheel_per_version_and_arch_prefers_cp311():
    names = ["tensorflow-2.19.1-cp39-cp39-macosx_12_0_arm64.whl", "tensorflow-2.19.1-cp311-cp311-macosx_12_0_arm64.whl",
             "tensorflow-2.19.1-cp312-cp312-macosx_12_0_arm64.whl", "tensorflow-2.16.2-cp312-cp312-macosx_10_15_x86_64.whl",
             "tensorflow_metal-0.1.0-cp38-cp38-macosx_11_0_x86_64.whl"]
    refs = [WheelRef("p", _WHEEL.match(n).group("version"), "arm64" if "arm64" in n else "x86_64", n, "", 0)
            for n in names]
    picked = pick(refs)
    assert picked[("p", "2.19.1", "arm64")].filename == names[1]
    assert picked[("p", "2.16.2", "x86_64")].filename == names[3]
    order = sorted(["2.10.0", "2.9.2", "2.13.0rc2", "2.13.0", "2.22.0rc0", "2.5.0"], key=_version_key)
    assert order == ["2.5.0", "2.9.2", "2.10.0", "2.13.0rc2", "2.13.0", "2.22.0rc0"]


def test_shipped_load_checks_equal_the_reference_where_both_cover_a_pair():
    ref = _reference()["load_check"]
    shipped = _shipped()
    if "metal_load_check" not in shipped:
        pytest.fail("compat_matrix.json has no metal_load_check section: run tools/binary_facts.py")
    compared = 0
    for metal in ("1.1.0", "1.2.0"):
        for tf, verdict in zip(ref["columns"], ref[metal]):
            check = binary_evidence.load_check(tf, metal, "arm64", raw=shipped)
            if verdict is None or check is None:
                continue
            compared += 1
            assert check.loads == (verdict == "loads"), (metal, tf)
            if verdict == "fails:a":
                assert "__ZN3tsl8internal10LogMessageC1EPKcii" in check.missing_two_level[PYWRAP]
            if verdict in ("fails:b", "fails:c", "fails:d"):
                assert check.missing_libraries == (PYWRAP,)
    assert compared == 15
    detail = ref["detail_1.2.0_on_2.22.0rc0"]
    check = binary_evidence.load_check("2.22.0rc0", "1.2.0", raw=shipped)
    assert check.missing_two_level_count == detail["counts"]["two_level"]
    assert list(check.missing_flat) == detail["missing_flat"]


def test_binary_evidence_reads_the_section():
    shipped = _shipped()
    if "metal_load_check" not in shipped:
        pytest.fail("compat_matrix.json has no metal_load_check section")
    bad = binary_evidence.load_check("2.18.0", "1.1.0", "arm64", raw=shipped)
    assert bad is not None and not bad.loads and bad.tensorflow == "tensorflow 2.18.0"
    assert bad.first_missing() == ("libmetal_plugin.dylib needs `__ZN3tsl8internal10LogMessageC1EPKcii` from "
                                   "_pywrap_tensorflow_internal.so, which tensorflow 2.18.0 does not export")
    assert bad.tf_wheel.startswith("tensorflow-2.18.0-") and bad.plugin_wheel.startswith("tensorflow_metal-1.1.0-")
    good = binary_evidence.load_check("2.19.1", "1.2.0", raw=shipped)
    assert good.loads and good.first_missing() is None and "resolves every library" in good.summary()
    shim = binary_evidence.load_check("2.13.0", "1.0.0", raw=shipped, package="tensorflow")
    assert shim is not None and shim.tensorflow == "tensorflow-macos 2.13.0"  # tensorflow 2.13.0 is a shim
    assert binary_evidence.load_check("9.9.9", "1.2.0", raw=shipped) is None
    assert binary_evidence.load_check("2.19.1", "7.0.0", raw=shipped) is None
    assert binary_evidence.load_check("2.19.1", "1.2.0", raw={}) is None
    check = binary_evidence.binary_check("arm64", shipped)
    assert check("2.18.0", "1.1.0") == (False, bad.summary()) and check("2.19.1", "1.2.0")[0] is True
    assert check("2.99.0", "1.2.0") is None
    table = binary_evidence.pairs("arm64", shipped)
    assert table["1.2.0"]["tensorflow 2.19.1"] and not table["1.2.0"]["tensorflow 2.20.0"]
    assert "tensorflow 2.13.0" not in table["1.2.0"]  # a shim: its column is tensorflow-macos 2.13.0
    # LC_BUILD_VERSION says more than wheel tags: tensorflow_macos-2.5.0-...-macosx_11_0_arm64.whl needs 12.0
    assert binary_evidence.tensorflow_min_macos("2.5.0", raw=shipped) == ("tensorflow-macos 2.5.0", "12.0")
    assert binary_evidence.plugin_binary("0.1.0", raw=shipped).minos == "12.0"
    built = binary_evidence.plugin_binary("1.2.0", raw=shipped)
    assert (built.minos, built.sdk) == ("12.1", "15.2")


# -- the emulator, on the real wheel -----------------------------------------------------------


@pytest.mark.slow
def test_emulated_kernel_table_of_metal_120_equals_the_reference(tmp_path):
    pytest.importorskip("unicorn", reason="the maintainers' extra (unicorn) is not installed")
    import metal_kernels

    pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--platform", "macosx_12_0_arm64", "--python-version", "3.11", "-d", str(tmp_path),
           "tensorflow-metal==1.2.0"]
    done = subprocess.run(pip, capture_output=True, text=True, timeout=300)
    wheels = list(tmp_path.glob("tensorflow_metal-1.2.0-*.whl"))
    if done.returncode or not wheels:
        pytest.skip(f"the registry is unreachable: {done.stderr.strip()[-200:]}")
    with zipfile.ZipFile(wheels[0]) as z:
        dylib = z.read("tensorflow-plugins/libmetal_plugin.dylib")
    shutil.rmtree(tmp_path, ignore_errors=True)
    result = metal_kernels.emulate_init_kernel(dylib)
    assert _table([k.as_dict() for k in result.kernels]) == _table(_reference()["kernels"]["1.2.0"])
    assert len(result.kernels) == 537 and {k.device for k in result.kernels} == {"GPU"}
    image = macho.parse(dylib)
    assert {(i.name, i.library) for i in image.imports()} == {(i.name, i.library) for i in image.symtab_imports()}
