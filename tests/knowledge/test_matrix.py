"""The shipped compat_matrix.json against the reference wheel facts, and the matrix API.

The agreement checks read the reference's own summaries (tf_minor_table, pairs,
pairs_source_table, pip_installable_versions) as well as its per-wheel records, so they do not
merely repeat the builder that made the file. Each returns the list of disagreements; a test
also feeds them a corrupted copy to prove they would notice.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version
from support.reference import TF_WHEELS, load_reference

from tfdoctor.knowledge import best_pair, keras_releases, metal_plugins, pair_rows
from tfdoctor.knowledge.matrix import default_path, load_matrix, parse_matrix
from tfdoctor.knowledge.records import GOOD_STATUSES, STATUSES, MatrixError

REPO = Path(__file__).resolve().parents[2]
MATRIX_PATH = REPO / "compat_matrix.json"


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return json.loads(MATRIX_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def ref() -> dict[str, Any]:
    return load_reference(TF_WHEELS)


@pytest.fixture(scope="module")
def m():
    return load_matrix(MATRIX_PATH)


# ---------------------------------------------------------------------------------------------
# agreement with the reference


def _final(v: str) -> bool:
    return not Version(v).is_prerelease


def _py(tag: str) -> str:
    return f"{tag[2]}.{tag[3:]}"


def _macos(tag: str) -> str:
    _, major, minor, *_ = tag.split("_")
    return f"{major}.{minor}"


def _entries(raw: dict[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(package, version, arch, wheels entry) for every TensorFlow (pre-releases included) and
    metal wheel group."""
    for minor in raw["tensorflow"].values():
        for version, rel in {**minor["releases"], **minor.get("prereleases", {})}.items():
            for package in ("tensorflow", "tensorflow-macos"):
                for arch, entry in rel[package].items():
                    yield package, version, arch, entry
    for version, rel in raw["tensorflow_metal"].items():
        for arch, entry in rel["wheels"].items():
            yield "tensorflow-metal", version, arch, entry


def wheel_disagreements(raw: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    """Python tags, platform tags, min macOS, Requires-Python, kind and files of every wheel group."""
    records = {(r["package"], r["version"]): r for r in ref["records"]}
    filenames_only = {o["version"]: o for row in ref["tf_minor_table"]
                      for o in row.get("tensorflow_official") or () if "note" in o}
    out = []
    seen = set()
    for package, version, arch, e in _entries(raw):
        seen.add((package, version, arch))
        where = f"{package} {version} {arch}"
        rec = records.get((package, version))
        if rec is None and not _final(version) and Version(version) < Version("2.13.0rc0"):
            continue  # the reference read macOS pre-releases from 2.13.0rc0 on only
        if rec is None:
            off = filenames_only.get(version) if package == "tensorflow" else None
            w = off and off.get(f"macos_{arch}")
            if not w:
                out.append(f"{where}: not in the reference")
                continue
            expect_py, expect_tags = [_py(t) for t in w["python_tags"]], w["platform_tags"]
            # the reference knows these from index filenames only: the files must carry its tags
            expect_files = sorted(f for f in e["files"] if any(
                f.endswith(f"-{t}.whl") for t in expect_tags) and any(
                f"-{t}-" in f for t in w["python_tags"]))
            expect_rp, expect_thin = e["requires_python"], None
        else:
            plat = rec["by_platform"].get(f"macos-{arch}")
            if plat is None:
                out.append(f"{where}: the reference has no {arch} wheels")
                continue
            expect_py, expect_tags = [_py(t) for t in plat["python_tags"]], plat["platform_tags"]
            expect_files = sorted(f["filename"] for f in rec["files"]
                                  if f["filename"].endswith(tuple(f"{t}.whl" for t in plat["platform_tags"])))
            expect_rp, expect_thin = rec["requires_python"], plat["thin_wheel"]
            if e["min_macos"] != min(plat["min_macos"], key=Version):
                out.append(f"{where}: min_macos {e['min_macos']} vs {plat['min_macos']}")
        if sorted(e["python"], key=Version) != sorted(expect_py, key=Version):
            out.append(f"{where}: python {e['python']} vs {expect_py}")
        if sorted(e["platform_tags"]) != sorted(expect_tags):
            out.append(f"{where}: platform tags {e['platform_tags']} vs {expect_tags}")
        if e["min_macos"] != min((_macos(t) for t in expect_tags), key=Version):
            out.append(f"{where}: min_macos {e['min_macos']} does not follow from {expect_tags}")
        if e["requires_python"] != expect_rp:
            out.append(f"{where}: requires_python {e['requires_python']} vs {expect_rp}")
        if expect_thin is not None and (e["kind"] in ("thin", "self-shim")) != expect_thin:
            out.append(f"{where}: kind {e['kind']} vs thin_wheel={expect_thin}")
        if sorted(e["files"]) != expect_files:
            out.append(f"{where}: files differ")
    # completeness: every macOS wheel group of the reference (pre-releases too) is in the matrix
    for (package, version), rec in records.items():
        if package != "tensorflow-metal" and Version(version) < Version("2.5"):
            continue
        for plat in rec["by_platform"]:
            if plat.startswith("macos-") and (package, version, plat[6:]) not in seen:
                out.append(f"{package} {version} {plat[6:]}: missing from the matrix")
    return out


def _ref_pins(values: list[str], name: str) -> set[tuple[str, str, str | None]]:
    out = set()
    for text in values:
        if text[:1].isalpha():  # "keras-nightly ~=2.5.0.dev"
            req = Requirement(text)
            out.add((req.name, str(req.specifier), str(req.marker) if req.marker else None))
            continue
        spec, _, marker = text.partition(";")
        out.add((name, str(SpecifierSet(spec.strip())), str(Marker(marker)) if marker.strip() else None))
    return out


def _matrix_pins(values: list[str]) -> set[tuple[str, str, str | None]]:
    """Pins as (name, specifier, marker). The refresh tool marks a line that only some wheels
    carry with `python_version == "X"` (tensorflow 2.22.0rc0's h5py); the reference's summary
    keeps the first wheel's lines, so such lines compare by their specifier alone."""
    reqs = [Requirement(t) for t in values]
    return {(r.name, str(r.specifier), None if str(r.marker or "").startswith('python_version == "')
             else str(r.marker) if r.marker else None) for r in reqs}


def minor_disagreements(raw: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    """Per minor: newest patch, Keras major, tensorflow-macos/official kinds and the arm64 pins."""
    out = []
    table = {row["tf_minor"]: row for row in ref["tf_minor_table"]}
    records = {(r["package"], r["version"]): r for r in ref["records"]}
    for minor, entry in raw["tensorflow"].items():
        row = table.get(minor)
        if row is None:
            out.append(f"{minor}: not in tf_minor_table")
            continue
        versions = [t["version"] for t in row["tensorflow_macos"] or ()] + [
            o["version"] for o in row["tensorflow_official"] or () if o.get("macos_arm64") or o.get("macos_x86_64")]
        versions = versions or row.get("prerelease_only") or []  # 2.22: only 2.22.0rc0 so far
        if entry["prerelease_only"] != bool(row.get("prerelease_only")):
            out.append(f"{minor}: prerelease_only {entry['prerelease_only']}")
        if entry["newest_patch"] != max(versions, key=Version):
            out.append(f"{minor}: newest_patch {entry['newest_patch']} vs {max(versions, key=Version)}")
        if [entry["keras_major"]] != row["keras_major"]:
            out.append(f"{minor}: keras_major {entry['keras_major']} vs {row['keras_major']}")
        kinds = {"full": ("full", None), "broken-self-referencing-shim": ("self-shim", "tensorflow-macos"),
                 "thin-shim->tensorflow": ("thin", "tensorflow")}
        for t in row["tensorflow_macos"] or ():
            got = entry["releases"].get(t["version"], {}).get("tensorflow-macos", {}).get("arm64")
            want_kind, want_target = kinds[t["kind"]]
            if not got or got["kind"] != want_kind or (
                    want_target and got["depends_on"] != f"{want_target}=={t['version']}"):
                out.append(f"{minor}: tensorflow-macos {t['version']} kind {got and got['kind']} vs {t['kind']}")
        for o in row["tensorflow_official"] or ():
            arm = o.get("macos_arm64")
            got = entry["releases"].get(o["version"], {}).get("tensorflow", {}).get("arm64")
            if bool(arm) != bool(got):
                out.append(f"{minor}: official {o['version']} arm64 presence {bool(got)} vs {bool(arm)}")
            elif arm and (got["kind"], got["depends_on"]) != (
                    ("thin", f"tensorflow-macos=={o['version']}") if arm["kind"].startswith("thin") else ("full", None)):
                out.append(f"{minor}: official {o['version']} arm64 kind {got['kind']} vs {arm['kind']}")
        expected = row["arm64_code_package_pins"]
        every = {**entry["releases"], **entry["prereleases"]}
        for key, pins in expected.items():
            dist, version = key.split("==")
            rel = every.get(version)
            if rel is None or rel["code"].get("arm64") != dist:
                out.append(f"{minor}: arm64 code of {version} is {rel and rel['code'].get('arm64')}, reference {dist}")
                continue
            for name in ("numpy", "keras", "protobuf", "h5py"):
                want = _ref_pins(pins[name], name)
                keys = {n for n, _s, _m in want}
                got = set().union(*(_matrix_pins(rel["pins_macos_arm64"].get(k, [])) for k in keys))
                variants = {line for v in records[(dist, version)].get("requires_dist_variants") or ()
                            for line in v["requires_dist"]}
                extra = {g for g in got - want if not any(
                    line.startswith(g[0]) and str(SpecifierSet(line[len(g[0]):].split(";")[0])) == g[1]
                    for line in variants)}
                if not want <= got or extra:
                    out.append(f"{minor}: {key} {name} pins {sorted(got)} vs {sorted(want)}")
            plat = records[(dist, version)]["by_platform"]["macos-arm64"]["key_pins"]
            if "ml-dtypes" in plat and _matrix_pins(rel["pins_macos_arm64"].get("ml-dtypes", [])) != \
                    _ref_pins(plat["ml-dtypes"], "ml-dtypes"):
                out.append(f"{minor}: {key} ml-dtypes pins differ")
        with_pins = {f"{r['code']['arm64']}=={v}" for v, r in every.items() if r["pins_macos_arm64"]
                     if _final(v) or entry["prerelease_only"]}  # the reference's scope
        if with_pins != set(expected):
            out.append(f"{minor}: releases with pins {sorted(with_pins)} vs {sorted(expected)}")
    if set(raw["tensorflow"]) != {r["tf_minor"] for r in ref["tf_minor_table"]
                                  if r["tensorflow_official"] or r["tensorflow_macos"] or r.get("prerelease_only")}:
        out.append("the set of TensorFlow minors differs from tf_minor_table")
    return out


def metal_disagreements(raw: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    """Per tensorflow-metal release against the reference's `pairs`, and the table verbatim."""
    out = []
    pairs = {p["tensorflow_metal"]: p for p in ref["pairs"]}
    if set(pairs) != set(raw["tensorflow_metal"]):
        out.append(f"metal versions {sorted(raw['tensorflow_metal'])} vs {sorted(pairs)}")
    for version, e in raw["tensorflow_metal"].items():
        p = pairs.get(version)
        if p is None:
            continue
        pythons = {a: [_py(t) for t in tags] for a, tags in p["python_tags_by_arch"].items()}
        if {a: w["python"] for a, w in e["wheels"].items()} != pythons:
            out.append(f"metal {version}: python {e['wheels']} vs {pythons}")
        mins = {a: min(v, key=Version) for a, v in p["wheel_min_macos_by_arch"].items()}
        if {a: w["min_macos"] for a, w in e["wheels"].items()} != mins:
            out.append(f"metal {version}: wheel min macOS vs {mins}")
        if e["documented_tf_minors"] != p["documented_tf_minors"]:
            out.append(f"metal {version}: documented {e['documented_tf_minors']} vs {p['documented_tf_minors']}")
        if e["documented_rows"] != (p["documented_rows_in_newest_metadata"] or []):
            out.append(f"metal {version}: documented rows differ")
        table_min = [e["apple_table_min_macos"] + "+"] if e["apple_table_min_macos"] else None
        if table_min != p["documented_min_macos"]:
            out.append(f"metal {version}: table min macOS {table_min} vs {p['documented_min_macos']}")
        if e["undocumented"] != bool(p.get("undocumented")):
            out.append(f"metal {version}: undocumented {e['undocumented']}")
        if p.get("undocumented") and not (p["inferred_tf_minor"] or "").startswith(e["inferred_tf_minor"] or "?"):
            out.append(f"metal {version}: inferred {e['inferred_tf_minor']} vs {p['inferred_tf_minor']}")
        if p.get("undocumented") and "INFERENCE" not in (e["inference"] or ""):
            out.append(f"metal {version}: inference not labelled as such")
        if e["upload_date"] != min(p["upload_dates"]):
            out.append(f"metal {version}: upload date {e['upload_date']} vs {p['upload_dates']}")
        if e["depends_on_tensorflow"] != p["depends_on_tensorflow"]:
            out.append(f"metal {version}: depends_on_tensorflow")
        own = p["own_metadata_table_rows"]
        named = [r for r in own if f"|v{version}|" in r.replace(" ", "")] if own else None
        if e["own_metadata_rows"] != named:
            out.append(f"metal {version}: own rows {e['own_metadata_rows']} vs {named}")
    if raw["apple_table"]["rows"] != ref["pairs_source_table"]["rows"]:
        out.append("apple_table rows differ from pairs_source_table")
    return out


def installable_disagreements(raw: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    """What pip offered per (package, platform, Python) against the wheels the matrix lists."""
    out = []
    for case in ref["pip_installable_versions"]:
        package, platform, py = case["package"], case["platform"], case["python"]
        arch = "arm64" if platform.endswith("arm64") else "x86_64"
        macos = _macos(platform)
        want = {v for v in case["versions"] if _final(v) and (
            package == "tensorflow-metal" or Version(v) >= Version("2.5"))}
        got = {v for p, v, a, e in _entries(raw) if p == package and a == arch and py in e["python"]
               and Version(e["min_macos"]) <= Version(macos) and _final(v)}  # pip skips pre-releases
        if got != want:
            out.append(f"{package} {platform} py{py}: matrix {sorted(got, key=Version)} "
                       f"vs pip {sorted(want, key=Version)}")
    return out


def test_wheels_agree_with_reference(raw, ref):
    assert wheel_disagreements(raw, ref) == []


def test_minors_and_pins_agree_with_reference(raw, ref):
    assert minor_disagreements(raw, ref) == []


def test_metal_agrees_with_reference(raw, ref):
    assert metal_disagreements(raw, ref) == []


def test_wheels_agree_with_what_pip_offered(raw, ref):
    assert installable_disagreements(raw, ref) == []


def test_agreement_checks_notice_wrong_data(raw, ref):
    bad = copy.deepcopy(raw)
    bad["tensorflow"]["2.19"]["releases"]["2.19.1"]["tensorflow"]["arm64"]["python"].append("3.13")
    bad["tensorflow"]["2.18"]["releases"]["2.18.0"]["pins_macos_arm64"]["numpy"] = ["numpy<2.0.0,>=1.26.0"]
    bad["tensorflow_metal"]["1.1.0"]["wheels"]["arm64"]["python"].append("3.12")
    bad["tensorflow_metal"]["0.5.0"]["wheels"]["arm64"]["min_macos"] = "12.0"
    bad["tensorflow"]["2.15"]["releases"]["2.15.1"]["tensorflow-macos"]["arm64"]["kind"] = "full"
    bad["tensorflow"]["2.13"]["releases"]["2.13.1"]["tensorflow-macos"] = {}
    wheels, minors, metal = (wheel_disagreements(bad, ref), minor_disagreements(bad, ref),
                             metal_disagreements(bad, ref))
    installable = installable_disagreements(bad, ref)
    assert any("tensorflow 2.19.1 arm64: python" in d for d in wheels)
    assert any("tensorflow-metal 1.1.0 arm64: python" in d for d in wheels)
    assert any("tensorflow-macos 2.13.1 arm64: missing" in d for d in wheels)
    assert any("tensorflow-macos 2.15.1 arm64: kind" in d for d in wheels)
    assert any("numpy pins" in d and "2.18.0" in d for d in minors)
    assert any(d.startswith("metal 0.5.0: wheel min macOS") for d in metal)
    assert any(d.startswith("tensorflow-metal macosx_12_0_arm64 py3.12") for d in installable)


def test_every_contradiction_is_covered_by_a_quirk(raw, ref):
    texts = [q["reference_text"] for q in raw["known_quirks"]]
    for i, entry in enumerate(ref["contradictions_and_surprises"]):
        assert entry in texts, f"contradictions_and_surprises[{i}] has no known_quirks entry: {entry[:80]}"


# ---------------------------------------------------------------------------------------------
# the file itself (no reference needed)


def _facts_without_source(node: Any, path: str = "") -> Iterator[str]:
    """Paths of fact-carrying objects that lack a non-empty source."""
    if isinstance(node, dict):
        facts = {"kind", "python", "documented_tf_minors", "outcome", "reference_text", "requirements",
                 "newest_patch", "rows"}
        if facts & node.keys() and not (node.get("source") or node.get("sources")):
            yield path
        if node.get("pins_macos_arm64") and not node.get("pins_source"):
            yield path + ".pins_source"
        for key, value in node.items():
            yield from _facts_without_source(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _facts_without_source(value, f"{path}[{i}]")


def test_every_fact_has_a_source(raw):
    assert list(_facts_without_source(raw)) == []
    for e in raw["runtime_evidence"]:
        assert e["sources"] and all(s.startswith(("https://github.com/", "https://developer.apple.com/forums/"))
                                    for s in e["sources"]), e["id"]
        assert e["quotes"] and all(q["text"] and q["source"] for q in e["quotes"]), e["id"]
    assert {s["id"] for s in raw["sources"]} >= {"reference", "apple_table"}


def test_source_check_notices_a_missing_source(raw):
    bad = copy.deepcopy(raw)
    bad["tensorflow_metal"]["1.2.0"]["wheels"]["arm64"]["source"] = ""
    bad["runtime_evidence"][0]["sources"] = []
    assert len(list(_facts_without_source(bad))) == 2


def test_coverage(raw):
    minors = list(raw["tensorflow"])
    assert minors == [f"2.{n}" for n in range(5, 23)]  # 2.22: 2.22.0rc0 only, read 2026-11-23
    assert raw["tensorflow"]["2.22"]["prerelease_only"] and list(raw["tensorflow"]["2.22"]["prereleases"]) == ["2.22.0rc0"]
    assert list(raw["tensorflow_metal"])[0] == "0.1.0" and list(raw["tensorflow_metal"])[-1] == "1.2.0"
    assert raw["schema_version"] == 1 and raw["facts_read"] == "2026-11-23"


def test_quirks_are_complete_records(raw):
    for q in raw["known_quirks"]:
        assert q["summary"] and q["tfdoctor"] and q["source"]
        assert "handled_by_check" in q
        if q["needs_check"]:
            assert q["proposed_finding"], q["id"]


def test_wheel_sections_are_what_the_refresh_tool_would_write(raw):
    """The file is in the refresh tool's canonical formatting (so --write diffs stay small)."""
    assert MATRIX_PATH.read_text(encoding="utf-8") == json.dumps(raw, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------------
# loading


def test_default_path_finds_the_bundled_file():
    assert json.loads(default_path().read_text(encoding="utf-8")) == json.loads(MATRIX_PATH.read_text(encoding="utf-8"))
    assert load_matrix() is load_matrix()


def test_default_path_falls_back_to_the_repository_root(monkeypatch, tmp_path):
    import importlib.resources
    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)  # no compat_matrix.json there
    assert default_path() == MATRIX_PATH


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(MatrixError, match="not found"):
        load_matrix(tmp_path / "nope.json")


def test_corrupt_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(MatrixError, match="unreadable"):
        load_matrix(bad)


def test_wrong_schema_and_missing_keys_are_clear_errors(raw):
    with pytest.raises(MatrixError, match="schema_version"):
        parse_matrix({**raw, "schema_version": 2})
    broken = copy.deepcopy(raw)
    del broken["tensorflow"]["2.19"]["releases"]["2.19.1"]["code"]
    with pytest.raises(MatrixError, match="malformed"):
        parse_matrix(broken)


def test_matrix_module_imports_neither_numpy_nor_tensorflow():
    import ast
    tree = ast.parse((REPO / "tfdoctor" / "knowledge" / "matrix.py").read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"numpy", "tensorflow", "keras"}


# ---------------------------------------------------------------------------------------------
# the query API


def test_tf_minor_accepts_every_version_form(m):
    assert m.tf_minor("2.19.1").minor == "2.19"
    assert m.tf_minor("2.19").newest_patch == "2.19.1"
    assert m.tf_minor("2.16.0rc0").minor == "2.16"
    assert m.tf_minor("2.4.1") is None and m.tf_minor("not a version") is None
    assert m.tf_minor("2.16").release("2.16.0") is None  # there is no 2.16.0 final


def test_tensorflow_macos_kinds(m):
    assert m.tf_minor("2.15").tensorflow_macos == {"2.15.0": "full", "2.15.1": "self-shim"}
    assert m.tf_minor("2.16").tensorflow_macos == {"2.16.1": "thin", "2.16.2": "thin"}
    assert m.tf_minor("2.17").tensorflow_macos == {}
    rel = m.tf_release("2.16.1")
    assert rel.wheels("tensorflow-macos", "arm64").depends_on == "tensorflow==2.16.1"
    assert rel.code == {"arm64": "tensorflow", "x86_64": "tensorflow"}
    assert m.tf_release("2.13.0").wheels("tensorflow", "arm64").depends_on == "tensorflow-macos==2.13.0"
    assert m.tf_release("2.13.0").code["arm64"] == "tensorflow-macos"
    assert m.tf_release("2.15.1").code["arm64"] == "tensorflow"


def test_official_and_apple_wheels_per_arch(m):
    assert m.tf_release("2.16.2").wheels("tensorflow", "x86_64") is not None  # last Intel wheels
    assert m.tf_release("2.17.0").wheels("tensorflow", "x86_64") is None
    assert m.tf_release("2.12.0").wheels("tensorflow", "arm64") is None
    assert m.tf_release("2.12.0").wheels("tensorflow-macos", "x86_64").min_macos == "12.0"
    assert m.tf_release("2.9.0").wheels("tensorflow-macos", "arm64").min_macos == "11.0"
    assert m.tf_release("2.21.0").wheels("tensorflow", "arm64").pythons == ("3.10", "3.11", "3.12", "3.13")


def test_python_3_8_cannot_get_tensorflow_2_13_1(m):
    assert m.tf_release("2.13.1").requirement("3.8", "arm64") is None
    assert m.tf_release("2.13.0").requirement("3.8", "arm64") == "tensorflow-macos==2.13.0"


def test_metal_lookup_and_wheels(m):
    assert m.metal("1.1.0").has("3.11", "arm64") and not m.metal("1.1.0").has("3.12", "arm64")
    assert not m.metal("1.1.0").has("3.8", "arm64")
    assert m.metal("1.2.0").has("3.12", "arm64")
    assert m.metal("1.0.0").has("3.11", "x86_64") and not m.metal("1.0.1").has("3.11", "x86_64")
    assert m.metal("1.2.0").undocumented and m.metal("1.2.0").inferred_tf_minor == "2.18"
    assert m.metal("1.1.0").documented_tf_minors == ("2.14", "2.15", "2.16", "2.17", "2.18")
    assert m.metal("1.1.0").own_metadata_rows == ("|v2.14|v1.1.0|12.1+||",)
    assert m.metal("9.9.9") is None


def test_no_metal_wheel_for_python_3_13(m):
    assert all(not rel.has("3.13", arch) for rel in m.metal_releases.values() for arch in ("arm64", "x86_64"))
    support = best_pair.python_support(m, "3.13", "arm64")
    assert support.tensorflow_metal == () and support.tensorflow == ("2.20.0", "2.21.0")
    assert support.newest_python_with_working_pair == "3.12"


def test_python_support_3_12(m):
    support = best_pair.python_support(m, "3.12", "arm64")
    assert support.tensorflow_metal == ("1.2.0",)
    assert ("2.19.1", "1.2.0") in support.known_working and ("2.18.1", "1.2.0") in support.known_working
    assert ("2.18.0", "1.2.0") not in support.known_working
    assert not any(tf.startswith(("2.20", "2.21")) for tf, _ in support.known_working + support.documented)


@pytest.mark.parametrize("tf,metal,status", [
    ("2.18.0", "1.1.0", "known-broken"),
    ("2.18.1", "1.1.0", "known-broken"),
    ("2.18.1", "1.2.0", "known-working"),
    ("2.19.0", "1.2.0", "known-working"),
    ("2.19.1", "1.2.0", "known-working"),
    ("2.20.0", "1.2.0", "known-broken"),
    ("2.21.0", "1.2.0", "known-broken"),
    ("2.14.1", "1.1.0", "documented"),
    ("2.17.1", "1.1.0", "documented"),
    ("2.13.0", "1.0.0", "documented"),
    ("2.5.0", "0.1.2", "documented"),
    ("2.18.0", "1.2.0", "undocumented"),
    ("2.13.1", "1.0.1", "documented"),  # the 1.0 series of 1.0.0, which Apple documents for 2.13
    ("2.12.0", "0.5.0", "metal-predates-tf"),
    ("2.19.1", "1.1.0", "metal-predates-tf"),
    ("2.19.0", "1.1.0", "known-broken"),  # a public hand test: Symbol not found
    ("2.13.0", "1.1.0", "known-working"),  # the same hand test: imports, verifies
    ("2.10.0", "1.1.0", "metal-postdates-tf"),
    ("2.15.0", "1.2.0", "metal-postdates-tf"),
    ("2.16.2", "1.2.0", "known-working"),  # keras-team/keras#21668 (with Keras <= 3.6)
    ("2.16.0rc0", "1.1.0", "documented"),
])
def test_pairing_status(m, tf, metal, status):
    assert status in STATUSES
    p = best_pair.pairing(m, tf, metal)
    assert p.status == status, p.evidence
    assert p.evidence and p.sources
    assert (p.fix == ()) == (status in GOOD_STATUSES)


def test_pairing_evidence_and_fixes(m):
    broken = best_pair.pairing(m, "2.18.0", "1.1.0")
    assert "https://github.com/tensorflow/tensorflow/issues/81987" in broken.sources
    assert broken.fix == ("tensorflow==2.18.1", "tensorflow-metal==1.2.0")
    assert best_pair.pairing(m, "2.19.0", "1.1.0").fix == ("tensorflow-metal==1.2.0",)
    new = best_pair.pairing(m, "2.21.0", "1.2.0")
    assert "https://github.com/tensorflow/tensorflow/pull/126360" in new.sources
    assert new.fix == ("tensorflow==2.19.*", "tensorflow-metal==1.2.0")
    assert best_pair.pairing(m, "2.12.0", "0.5.0").fix == ("tensorflow-metal==0.8.0",)
    # 1.1.0 is the documented plugin for 2.15, but it has no cp312 wheel
    assert best_pair.pairing(m, "2.15.0", "1.2.0", python="3.11").fix == ("tensorflow-metal==1.1.0",)
    assert best_pair.pairing(m, "2.15.0", "1.2.0", python="3.12").fix == ("tensorflow==2.19.*", "tensorflow-metal==1.2.0")
    unknown = best_pair.pairing(m, "2.19.0", "1.3.0")
    assert unknown.status == "undocumented" and "not in tfdoctor's matrix" in unknown.evidence


def test_recommended_install(m, raw):
    rec = best_pair.recommended_install(m, "3.12", "arm64", "14.5")
    assert rec.requirements == ("tensorflow==2.19.*", "tensorflow-metal==1.2.0")
    assert rec.status == "known-working" and rec.sources
    assert tuple(raw["recommended"]["requirements"]) == rec.requirements
    for py in raw["recommended"]["python"]:
        assert best_pair.recommended_install(m, py, "arm64", raw["recommended"]["min_macos"]).requirements == rec.requirements
    assert best_pair.newest_python_with_working_pair(m, "arm64") == raw["recommended"]["newest_python_with_working_pair"]
    assert best_pair.recommended_install(m, "3.12", "arm64", "").requirements == rec.requirements  # macOS unknown


def test_recommended_install_when_nothing_fits(m):
    rec = best_pair.recommended_install(m, "3.13", "arm64", "15.1")
    assert rec.requirements == ()
    assert rec.reason.startswith("no tensorflow-metal wheel for Python 3.13")
    assert "create a Python 3.12 environment" in rec.reason
    assert rec.cpu_only == ("tensorflow==2.21.*",)
    old_mac = best_pair.recommended_install(m, "3.12", "arm64", "12.0")
    assert old_mac.requirements == () and "macOS 12.1" in old_mac.reason


def test_recommended_install_for_old_pythons_and_intel(m):
    assert best_pair.recommended_install(m, "3.8", "arm64", "13.0").requirements == (
        "tensorflow-macos==2.13.0", "tensorflow-metal==1.0.1")  # 1.0.1: the 1.0 series' newest
    intel = best_pair.recommended_install(m, "3.11", "x86_64", "13.0")
    assert intel.requirements == ("tensorflow==2.13.*", "tensorflow-metal==1.0.0")
    assert intel.status == "documented"


def test_tf_pins(m):
    assert m.tf_pins("2.19.1") == {
        "numpy": "<2.2.0,>=1.26.0", "keras": ">=3.5.0",
        "protobuf": "!=4.21.0,!=4.21.1,!=4.21.2,!=4.21.3,!=4.21.4,!=4.21.5,<6.0.0dev,>=3.20.3",
        "h5py": ">=3.11.0", "ml-dtypes": "<1.0.0,>=0.5.1"}
    assert m.tf_pins("2.19") == m.tf_pins("2.19.1")
    assert m.tf_pins("2.16.1", "3.12")["numpy"] == "<2.0.0,>=1.26.0"
    assert m.tf_pins("2.16.1", "3.11")["numpy"] == "<2.0.0,>=1.23.5"
    assert m.tf_pins("2.16.1")["numpy"] == "<2.0.0"  # only what holds for every Python
    assert m.tf_pins("2.13.1")["numpy"] == "<=1.24.3,>=1.22"  # from tensorflow-macos, the code package
    assert m.tf_pins("2.14.0")["numpy"] == ">=1.23.5"  # not capped
    assert m.tf_pins("2.5.0")["keras-nightly"] == "~=2.5.0.dev"
    assert m.tf_pins("2.11")["keras"] == "<2.12,>=2.11.0"  # newest 2.11 is Intel-only: falls back
    assert m.tf_pins("3.0.0") == {}
    assert m.tf_minor("2.16").keras_major == 3 and m.tf_minor("2.15").keras_major == 2


def test_runtime_evidence(m):
    ids = {e.id: e for e in m.evidence}
    assert ids["xla-jit-compile-unsupported-on-metal"].quotes[0].text.count("Could not find compiler for platform METAL")
    assert ids["keras-v2.11-optimizers-slow-on-metal"].covers("2.11.0") and not \
        ids["keras-v2.11-optimizers-slow-on-metal"].covers("2.10.0")
    assert any("59438" in s for s in ids["keras-v2.11-optimizers-slow-on-metal"].sources)


# ---------------------------------------------------------------------------------------------
# pre-releases, keras / tf-keras, Metal plugins, evidence per pair


def test_prerelease_only_minor_is_known_but_never_recommended(m):
    minor = m.tf_minor("2.22.0rc0")
    assert minor.prerelease_only and minor.releases == () and minor.newest_patch == "2.22.0rc0"
    assert m.tf_release("2.22.0rc0").requirement("3.14", "arm64") == "tensorflow==2.22.0rc0"
    assert m.tf_minor("2.21").release("2.21.0rc1") is not None and m.tf_minor("2.21").newest_patch == "2.21.0"
    assert "2.22.0rc0" not in best_pair.python_support(m, "3.13", "arm64").tensorflow
    assert best_pair.recommended_install(m, "3.13", "arm64", "15.1").cpu_only == ("tensorflow==2.21.*",)
    # tensorflow 2.22.0rc0: the cp314 wheel pins h5py~=3.15.1, cp310-cp313 h5py<3.15.0 (read 2026-11-23)
    assert m.tf_pins("2.22.0rc0", "3.14")["h5py"] == "~=3.15.1"
    assert m.tf_pins("2.22.0rc0", "3.11")["h5py"] == "<3.15.0,>=3.11.0"
    assert "h5py" not in m.tf_pins("2.22") and m.tf_pins("2.22")["keras-nightly"] == ">=3.12.0.dev"
    assert m.tf_minor(None) is None  # a missing version is no crash


@pytest.mark.parametrize("tf,python,requirement,pins", [
    ("2.19.1", "3.12", "tf-keras~=2.19.0", ("tensorflow<2.20,>=2.19",)),
    ("2.18.0", None, "tf-keras~=2.18.0", ("tensorflow<2.19,>=2.18",)),
    ("2.16.2", "3.11", "tf-keras~=2.16.0", ("tensorflow<2.17,>=2.16",)),
    ("2.15.0", None, "tf-keras~=2.15.0", ("tensorflow<2.16,>=2.15",)),  # 2.15.0 pins nothing, 2.15.1 does
    ("2.14.1", None, "tf-keras~=2.14.0", ()),
    ("2.20.0", None, "tf-keras~=2.20.0", ("tensorflow<2.21,>=2.20",)),  # 2.20.0 yanked, 2.20.1 not
    ("2.16.0rc0", None, "tf-keras==2.16.0rc4", ("tensorflow<2.17,>=2.16.0rc0",)),
])
def test_tf_keras_requirement(m, tf, python, requirement, pins):
    pin = keras_releases.tf_keras_requirement(m, tf, python)
    assert pin.requirement == requirement and pin.tensorflow_pins == pins and pin.source
    assert "2.20.0" not in pin.releases  # yanked


def test_unpinned_tf_keras_moves_tensorflow_past_metal(m):
    """tf-keras 2.21.0 requires tensorflow<2.22,>=2.21 and Python >=3.10 (its METADATA): an
    unpinned install on 2.19 upgrades TensorFlow to 2.21, where tensorflow-metal 1.2.0 fails."""
    pin = keras_releases.tf_keras_requirement(m, "2.19.1", "3.12")
    assert pin.unpinned == "2.21.0" and pin.unpinned_moves_tensorflow
    assert best_pair.pairing(m, "2.21.0", "1.2.0").status == "known-broken"
    assert not keras_releases.tf_keras_requirement(m, "2.21.0", "3.12").unpinned_moves_tensorflow
    assert keras_releases.unpinned_tf_keras(m, "3.9").version == "2.20.1"  # 2.21.0 needs 3.10; 2.20.0 is yanked
    assert keras_releases.tf_keras_requirement(m, "2.13.0") is None and keras_releases.tf_keras_requirement(m, "2.22.0rc0") is None
    assert keras_releases.tf_keras_requirement(m, "2.21.0", "3.9") is None and keras_releases.tf_keras_requirement(m, "junk") is None


def test_tf_keras_requirement_reads_the_data(raw):
    bad = copy.deepcopy(raw)
    del bad["keras_packages"]["tf-keras"]["2.19.0"]
    bad["keras_packages"]["tf-keras"]["2.18.0"]["tensorflow"] = ["tensorflow<2.18,>=2.17"]
    changed = parse_matrix(bad)
    assert keras_releases.tf_keras_requirement(changed, "2.19.1") is None
    assert keras_releases.tf_keras_requirement(changed, "2.18.0") is None  # its only final now excludes 2.18
    assert keras_releases.tf_keras_requirement(changed, "2.17.0").requirement == "tf-keras~=2.17.0"


def test_keras_releases(m):
    keras = {r.version: r for r in m.keras_releases["keras"]}
    assert keras["3.15.1"].requires_python == ">=3.11" and not keras["3.15.1"].installs_on("3.10")
    assert keras["3.12.4"].installs_on("3.10") and keras["3.15.1"].admits_tensorflow("2.19.1") is None
    tfk = {r.version: r for r in m.keras_releases["tf-keras"]}
    assert tfk["2.20.0"].yanked and not tfk["2.20.1"].yanked and tfk["2.19.0rc0"].prerelease
    assert tfk["2.21.0"].admits_tensorflow("2.21.0") and not tfk["2.21.0"].admits_tensorflow("2.19.1")


def test_metal_plugins(m):
    apple, third = metal_plugins.metal_plugins(m)
    assert apple.distribution == "tensorflow-metal" and not apple.third_party and not apple.releases
    assert third.distribution == "tensorflow-metal-plugin" and third.third_party
    assert apple.library == third.library == "tensorflow-plugins/libmetal_plugin.dylib"
    assert metal_plugins.third_party_plugin(m) is third and metal_plugins.third_party_plugin(m, "tensorflow-metal") is None
    rel = third.release("0.4.1")
    assert (rel.built_for_tensorflow, rel.min_macos, rel.requires_python) == ("2.21", "15.0", ">=3.10")
    assert rel.requires_dist == ("tensorflow==2.21.*",) and rel.checks_tensorflow_at_load
    assert third.release("0.2.0").built_for_tensorflow is None and third.release("9") is None
    assert third.quotes and all(q.source for q in third.quotes)


def test_third_party_pairing_rule(m):
    assert metal_plugins.third_party_fit(m, "2.21.0", "0.4.1", "3.13", "15.1").ok  # Python 3.13: no Apple wheel
    old = metal_plugins.third_party_fit(m, "2.19.1", "0.4.1", "3.12", "14.6")
    assert not old.ok and any("built for TensorFlow 2.21 only" in p for p in old.problems)
    assert any("macOS 15.0" in p for p in old.problems) and any("tensorflow==2.21.*" in p for p in old.problems)
    assert not metal_plugins.third_party_fit(m, "2.22.0rc0", "0.4.1").ok
    assert metal_plugins.third_party_fit(m, "2.19.1", "0.2.0", "3.12", "14.6").ok  # tensorflow>=2.16, macOS 13+
    assert metal_plugins.third_party_fit(m, "2.21.0", "0.9.9").ok is None
    assert metal_plugins.third_party_fit(m, "2.21.0", "0.4.1", "3.12", "junk").ok  # an unknown macOS is no crash
    assert not metal_plugins.third_party_fit(m, "junk", "0.4.1").ok and metal_plugins.third_party_fit(m, "2.21.0", "junk").ok is None


def test_both_metal_plugins_are_a_conflict(m):
    (c,) = metal_plugins.plugin_conflicts(m, ["tensorflow", "tensorflow_metal", "Tensorflow-Metal-Plugin"])
    assert c.severity == "error" and "libmetal_plugin.dylib" in c.summary
    assert any('already registered with name: "METAL"' in q.text for q in c.quotes)
    assert metal_plugins.plugin_conflicts(m, ["tensorflow-metal"]) == () and metal_plugins.plugin_conflicts(m, []) == ()


def test_reported_behaviour_facts(m):
    ids = {e.id: e for e in m.evidence}
    odd = ids["metal-1.2.0-tf-2.16-keras-3.7-wrong-results"]
    assert odd.outcome == "wrong-results" and not odd.is_pair
    assert odd.covers("2.16.2", "1.2.0", "3.8.0") and not odd.covers("2.16.2", "1.2.0", "3.6.0")
    assert not odd.covers("2.16.2", "1.1.0", "3.8.0") and odd.sources == ("https://github.com/keras-team/keras/issues/21668",)
    train = ids["pluggable-devices-cannot-train-on-tf-2.20-2.21"]
    assert train.covers("2.20.0") and train.covers("2.21.0", "1.2.0") and not train.covers("2.22.0rc0")
    assert {"https://github.com/tensorflow/tensorflow/issues/126374",
            "https://github.com/tensorflow/tensorflow/pull/126377"} == set(train.sources)
    forum = ids["metal-1.2.0-works-on-tf-2.19.0-keras-3.9.1"]
    assert forum.is_pair and forum.covers("2.19.0", "1.2.0", "3.9.1") and not forum.covers("2.19.1", "1.2.0")
    assert best_pair.pairing(m, "2.16.2", "1.2.0").status == "known-working"
    assert "https://developer.apple.com/forums/thread/778640" in best_pair.pairing(m, "2.19.0", "1.2.0").sources


def _binary(asked: list | None = None):
    """A stand-in for the binary load check with the reference's answers for tensorflow-metal
    1.2.0 (tests/data/reference/metal_binaries_2026-11.json.gz load_check: loads on 2.16.2-2.19.1,
    fails from 2.20.0 on) and 1.1.0 (fails from 2.18.0 on); None for pairs it did not read."""
    def check(tf: str, metal: str):
        if asked is not None:
            asked.append((tf, metal))
        v = Version(tf)
        if metal == "1.2.0" and v >= Version("2.16.2"):
            return (v < Version("2.20.0rc0"), "reference load_check")
        if metal == "1.1.0" and v >= Version("2.16.2"):
            return (v < Version("2.18.0rc0"), "__ZN3tsl8internal10LogMessageC1EPKcii missing")
        return None
    return check


def test_pairing_with_the_binary_load_check(m):
    check = _binary()
    loads = best_pair.pairing(m, "2.17.1", "1.2.0", binary=check)  # no report, no table row: it loads
    assert loads.status == "loads-untested" and "not tested at run time" in loads.evidence
    assert loads.sources == ("metal_load_check",) and loads.fix  # not recommended as tested
    assert best_pair.pairing(m, "2.17.1", "1.2.0").status == "metal-postdates-tf"  # without the check: by era only
    fails = best_pair.pairing(m, "2.18.0", "1.1.0", binary=check)
    assert fails.status == "known-broken" and "81987" in " ".join(fails.sources)  # reports first
    rc = best_pair.pairing(m, "2.22.0rc0", "1.2.0", binary=check)
    assert rc.status == "known-broken" and rc.evidence.startswith("binary load check:")
    doc = best_pair.pairing(m, "2.17.1", "1.1.0", binary=check)
    assert doc.status == "documented" and "metal_load_check" in doc.sources
    assert best_pair.pairing(m, "2.19.1", "1.2.0", binary=check).status == "known-working"
    assert best_pair.pairing(m, "2.13.0", "1.0.0", binary=check).status == "documented"  # not read: as before


def test_rows_keep_evidence_kinds_apart(m):
    asked = []
    rows = {(r.tensorflow, r.tensorflow_metal): r for r in pair_rows.rows(m, binary=_binary(asked))}
    r = rows[("2.21.0", "1.2.0")]
    assert r.status == "known-broken" and r.reports == ("fails: metal-1.2.0-fails-on-tf-2.20-and-2.21",)
    assert "cannot-train: pluggable-devices-cannot-train-on-tf-2.20-2.21" in r.behaviour
    assert r.binary == "fails: reference load_check" and r.apple_table == () and "inferred" in r.era
    assert r.pythons == ("3.10", "3.11", "3.12")
    doc = rows[("2.17.1", "1.1.0")]
    assert doc.apple_table and doc.apple_table[0].startswith("|v2.14-v2.18|v1.1.0|") and doc.era is None
    assert doc.reports == () and doc.status == "documented" and doc.binary == "loads"
    assert rows[("2.17.1", "1.2.0")].status == "loads-untested"
    pre = rows[("2.22.0rc0", "1.2.0")]
    assert pre.prerelease and pre.reports == () and pre.status == "known-broken"
    assert ("2.22.0rc0", "1.2.0") in asked
    old = rows[("2.13.0", "1.0.0")]
    assert old.binary is None and old.status == "documented"
    assert all(not r.prerelease for r in pair_rows.rows(m, prereleases=False))
    assert all(r.binary is None for r in pair_rows.rows(m))
    assert not any(r.tensorflow_metal == "1.1.0" for r in pair_rows.rows(m, "x86_64"))  # Intel wheels end at 1.0.0


def test_new_sections_are_validated(raw):
    bad = copy.deepcopy(raw)
    bad["keras_packages"]["tf-keras"]["2.21.0"]["tensorflow"] = ["tensorflow<<2"]
    with pytest.raises(MatrixError, match="malformed"):
        parse_matrix(bad)
    bad = copy.deepcopy(raw)
    del bad["metal_plugins"]["plugins"]["tensorflow-metal-plugin"]["releases"]["0.4.1"]["min_macos"]
    with pytest.raises(MatrixError, match="malformed"):
        parse_matrix(bad)
    old = {k: v for k, v in raw.items() if k not in ("keras_packages", "metal_plugins")}
    assert metal_plugins.metal_plugins(parse_matrix(old)) == ()
    assert keras_releases.tf_keras_requirement(parse_matrix(old), "2.19.1") is None


def _plugin_file(name: str) -> str:
    return (REPO / "tests" / "data" / "refresh" / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("version", ["0.4.1", "0.2.0"])
def test_third_party_plugin_facts_match_its_sdist(m, version):
    """The hand-curated release facts say what the recorded sdist files say."""
    import email.parser
    import re
    headers = email.parser.Parser().parsestr(_plugin_file(f"tensorflow_metal_plugin-{version}.PKG-INFO-headers"))
    rel = metal_plugins.third_party_plugin(m).release(version)
    assert headers["Version"] == version and headers["Requires-Python"] == rel.requires_python
    assert tuple(headers.get_all("Requires-Dist")) == rel.requires_dist
    make = _plugin_file(f"tensorflow_metal_plugin-{version}.Makefile-excerpt")
    floor = re.search(r"MACOS_MIN := (\S+)|-mmacosx-version-min=(\S+)", make)
    assert rel.min_macos == (floor.group(1) or floor.group(2))
    if version == "0.4.1":
        supported = _plugin_file("tensorflow_metal_plugin-0.4.1.TF_SUPPORTED_VERSION").strip()
        assert rel.built_for_tensorflow == ".".join(supported.split(".")[:2]) == "2.21"
        assert "libmetal_plugin.dylib" in make and metal_plugins.third_party_plugin(m).library.endswith("/libmetal_plugin.dylib")
    else:
        assert rel.built_for_tensorflow is None and not rel.checks_tensorflow_at_load
    assert all(r.source for r in metal_plugins.third_party_plugin(m).releases.values())
