"""checks/log_install.py and tfdoctor/facts/pasted_log.py: install -- errors from real public threads
(tests/data/logs/, sources in SOURCES.json) diagnosed with the environment facts that change the
answer (Python, the architecture pip runs as, macOS, conda's platform); the log as a snapshot fact
(redacted, kept bounded, surviving a round trip through a snapshot file)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from log_cases import LOGS, SOURCES, WHO, LogRules, commands
from log_cases import one as observed_one
from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, snap

from tfdoctor.checks import MODULE_NEEDS
from tfdoctor.facts import pasted_log

from tfdoctor.logtext import keep
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.logtext.reader import DEFAULT_LIMIT
from tfdoctor.model import Severity
from tfdoctor.render.schemas import snapshot_schema
from tfdoctor.sanitize.redact import Identity

check = LogRules("log_install")
diagnose = check.diagnose
LOG_MODULES = tuple(m for m, sections in MODULE_NEEDS.items() if "log" in sections)


def one(findings: list, code: str):
    found = observed_one(findings, code)
    assert found.evidence["line"] >= 1 and found.evidence["signature_source"].startswith("https://")
    return found


# --- pip: a version pip cannot find, looked up for this Python, architecture and macOS ---------


def test_tensorflow_macos_2_12_on_python_3_12_exists_only_for_older_pythons():
    # kohya_ss#563; tensorflow-macos 2.12.0 has arm64 wheels for 3.8-3.11 only
    f = one(diagnose(apple_silicon(python={"version": "3.12.4"}), "pip_tensorflow_macos_2120_none.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "other-pythons-only" and f.evidence["python"] == "3.12"
    assert "3.8, 3.9, 3.10, 3.11 only" in f.title
    assert "tensorflow==2.19.*" in commands(f) and "tensorflow-metal==1.2.0" in commands(f)


def test_an_unstated_chip_gets_what_each_architecture_says_and_the_question_that_decides():
    """tensorflow 'from versions: none' on Python 3.13, neither the chip nor the Python's
    architecture stated: tensorflow 2.20 has cp313 arm64 wheels (so an arm64 pip ran elsewhere), its
    x86_64 wheels end at cp312. An unstated chip is not Intel: both are said, no Intel pair is
    installed, and the fix asks what the Python runs as."""
    unstated = apple_silicon(python={"version": "3.13.1", "process_arch": "", "translated": None,
                                     "binary": {"archs": []}},
                             host={"hw_arm64": None, "chip": None, "cpu_brand": None}, packages=[])
    unstated["unknown"] = ["packages", "chip", "python-arch"]
    f = one(diagnose(unstated, "pip_tensorflow_none_macos11.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "depends-on-arch"
    assert "as arm64, tensorflow has wheels for Python 3.13" in f.title and "as x86_64, tensorflow has x86_64" in f.title
    assert "print(platform.machine())" in commands(f) and "tensorflow-metal==1.0.0" not in commands(f)


def test_the_same_text_on_python_3_11_means_pip_ran_before_its_wheels():
    # tensorflow-macos has arm64 wheels from 2.5.0, for cp311 only from 2.12.0 (macos_floors)
    f = one(diagnose(apple_silicon(), "pip_tensorflow_macos_2120_none.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "before-python-wheels"
    assert f.evidence["installable_here"] == ["2.12.0"]
    assert "for Python 3.11 only from 2.12.0 on: pip ran before those" in f.title


def test_a_python_every_release_had_means_pip_ran_elsewhere():
    f = one(diagnose(apple_silicon(python={"version": "3.10.12"}), "pip_tensorflow_macos_2120_none.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "installable-here" and "another environment" in f.title


def test_tensorflow_macos_2_13_on_python_3_12():
    f = one(diagnose(apple_silicon(python={"version": "3.12.1"}), "pip_tensorflow_macos_2130_none.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "other-pythons-only"


def test_tensorflow_metal_on_python_3_13_needs_another_python():
    f = one(diagnose(apple_silicon(python={"version": "3.13.0"}), "pip_tensorflow_metal_none.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "other-pythons-only"
    assert commands(f).startswith("python3.12 -m venv")


def test_tensorflow_metal_from_a_pip_under_rosetta_on_python_3_12():
    # tensorflow-metal's x86_64 wheels stop at 1.0.0 (Python <= 3.11); 1.1.0+ are arm64 only
    data = apple_silicon(python={"version": "3.12.4", "process_arch": "x86_64", "translated": True})
    f = one(diagnose(data, "pip_tensorflow_metal_none.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["pip_arch"] == "x86_64" and f.evidence["verdict"] == "rosetta"
    assert f.evidence["installable_here"] == ["1.2.0"]  # 1.1.0 has no cp312 wheel
    assert commands(f) == ""  # pip runs translated here: the native Python comes first


def test_under_rosetta_on_python_3_11_intel_wheels_exist_so_pip_ran_elsewhere():
    data = apple_silicon(python={"process_arch": "x86_64", "translated": True})
    f = one(diagnose(data, "pip_tensorflow_metal_none.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "installable-here" and f.evidence["installable_here"] == ["0.8.0", "1.0.0"]


def test_poetrys_refusal_of_the_locked_release_is_read_as_pips():
    # tensorflow/tensorflow#85418: poetry 2.0 locked tensorflow 2.18.0; on an Intel Mac no wheel of it fits
    data = apple_silicon(host={"hw_arm64": False, "chip": None, "cpu_brand": "Intel(R) Core(TM) i7"},
                         python={"version": "3.11.9", "process_arch": "x86_64"})
    f = one(diagnose(data, "poetry_no_candidates_tensorflow.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "arch-missing"
    assert f.title.startswith("poetry found no tensorflow==2.18.0: tensorflow==2.18.0 has macOS wheels for arm64 only")


def test_tensorflow_on_macos_11_needs_macos_12():
    # tensorflow/tensorflow#47205: `pip3 install tensorflow` on an M1 with macOS 11
    data = apple_silicon(host={"macos_version": "11.7"}, python={"version": "3.9.6"})
    f = one(diagnose(data, "pip_tensorflow_none_macos11.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "macos-too-old" and "macOS 12.0" in f.title


def test_tensorflow_2_4_1_had_intel_mac_wheels_only():
    # the registry's 1.x and early 2.x releases (compat_matrix.json macos_floors) count too
    f = one(diagnose(apple_silicon(), "pip_tensorflow_241_versions.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "arch-missing"
    assert "tensorflow==2.4.1 has macOS wheels for x86_64 only, none for arm64" in f.title
    assert "pip offered 2.5.0rc0 to 2.8.0rc0" in f.title


def test_tensorflow_2_4_1_on_linux_names_the_newest_offered_final():
    f = one(diagnose(linux_cpu(), "pip_tensorflow_241_versions.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["newest_offered"] == "2.7.0"
    assert commands(f).endswith("install -- tensorflow==2.7.0")


def test_tensorflow_metal_2_3_was_never_published():
    # patlevin/tfjs-to-tf#46: a requirement tensorflow-metal>=2.3 (the metal series is 0.x-1.x)
    f = one(diagnose(apple_silicon(), "pip_tensorflow_metal_marker.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "never-published" and f.evidence["log_required_by"] == "tfjs-graph-converter"


def test_tensorflow_text_requiring_tensorflow_macos_2_12_on_python_3_12():
    f = one(diagnose(apple_silicon(python={"version": "3.12.0"}), "pip_text_needs_tensorflow_macos.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "other-pythons-only"


def test_a_package_outside_the_matrix_is_looked_up_with_pip():
    f = one(diagnose(apple_silicon(), "pip_tensorflow_addons_none.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "unknown-package"
    assert commands(f).endswith("-m pip index versions tensorflow-addons")


def test_an_x86_64_cp38_wheel_on_an_arm64_python_3_11():
    f = one(diagnose(apple_silicon(), "pip_unsupported_wheel_x86.txt"), "log.pip-unsupported-wheel")
    assert "it is for Python 3.8, this is Python 3.11" in f.evidence["mismatches"]
    assert "it is for x86_64, this Python runs as arm64" in f.evidence["mismatches"]
    assert "tensorflow-metal==1.2.0" in commands(f)  # 2.6.0 has no arm64 wheel: the pair instead


def test_the_same_wheel_on_an_intel_mac_with_macos_10_15_is_refused_for_macos():
    data = apple_silicon(host={"hw_arm64": False, "macos_version": "10.15.7", "chip": None},
                         python={"version": "3.8.10", "process_arch": "x86_64"})
    f = one(diagnose(data, "pip_unsupported_wheel_x86.txt"), "log.pip-unsupported-wheel")
    assert f.evidence["mismatches"] == ["it needs macOS 11.0, this Mac runs 10.15.7"]


def test_a_wheel_name_the_paste_broke_is_still_a_refusal_without_an_install_line(tmp_path):
    """pip's template with the name a reporter typed ("cp 37": the wheel reads as "37-none-..."):
    no distribution name is known, so no command names one, and no tag is claimed to fit."""
    (tmp_path / "pip.txt").write_text("ERROR: tensorflow-2.5.0-cp 37-none-linux_armv71.whl is not a supported "
                                      "wheel on this platform.\n")
    s = snap(linux_cpu())
    s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
    found = LogRules("log_install").run(s)
    assert "check.crashed" not in {f.code for f in found}
    (f,) = [f for f in found if f.code == "log.pip-unsupported-wheel"]
    assert not f.remediation.commands and "tags fit" not in f.title


def test_a_wheel_refused_for_its_tags_explains_pips_no_matching_distribution_of_that_package(tmp_path):
    """pip refusing tensorflow's wheel file and finding no tensorflow by name is one refusal: the
    tags say why, so the wheel's finding ranks first; another package's refusal is its own."""
    wheel = ("ERROR: tensorflow-2.4.1-cp36-cp36m-macosx_10_11_x86_64.whl is not a supported wheel on this platform.\n"
             "ERROR: Could not find a version that satisfies the requirement {name}==2.4.1 (from versions: none)\n")
    for name, explained in (("tensorflow", True), ("tensorflow-addons", False)):
        (tmp_path / "pip.txt").write_text(wheel.format(name=name), encoding="utf-8")
        s = snap(apple_silicon(host={"hw_arm64": False, "chip": "Intel Core i5", "macos_version": "11.2"},
                               python={"version": "3.9.1", "process_arch": "x86_64"}))
        s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
        (f,) = [f for f in LogRules("log_install").run(s) if f.code == "log.pip-unsupported-wheel"]
        assert ("log.pip-no-matching-distribution" in f.explains) is explained, name


def test_a_wheel_refused_where_the_python_is_unknown_is_not_said_to_fit_it(tmp_path):
    """Nothing was compared: the refusal does not show that pip ran elsewhere, and the fix prints
    the Python's version and architecture to compare with the wheel's tags."""
    (tmp_path / "pip.txt").write_text(
        "ERROR: tensorflow-2.4.1-cp36-cp36m-macosx_10_11_x86_64.whl is not a supported wheel on this platform.\n",
        encoding="utf-8")
    s = snap(apple_silicon(host={"hw_arm64": False, "chip": "Intel Core i5", "macos_version": None},
                           python={"version": "", "process_arch": ""}))
    s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
    (f,) = [f for f in LogRules("log_install").run(s) if f.code == "log.pip-unsupported-wheel"]
    assert "another environment" not in f.title and "not known" in f.title
    assert any("sys.version_info" in str(c) for c in f.remediation.commands)
    assert "Python ." not in f.remediation.text


# --- h5py and conda ------------------------------------------------------------------------------


def test_h5py_built_because_tensorflow_macos_2_6_pins_h5py_3_1():
    data = apple_silicon(python={"version": "3.9.13"},
                         packages=[_pkg("tensorflow-macos", "2.6.0", ["cp39-cp39-macosx_11_0_arm64"],
                                        ["h5py~=3.1.0", "numpy~=1.19.2"])])
    f = one(diagnose(data, "h5py_hdf5_missing.txt"), "log.h5py-build")
    assert f.evidence["h5py_pin"] == "~=3.1.0" and f.evidence["first_arm64_h5py_wheel"] == "3.7.0"
    assert "pins h5py~=3.1.0" in f.title and "tensorflow==2.19.*" in commands(f)


def test_h5py_built_under_rosetta():
    data = apple_silicon(python={"process_arch": "x86_64", "translated": True})
    f = one(diagnose(data, "h5py_hdf5_missing.txt"), "log.h5py-build")
    assert "Rosetta 2" in f.title


def test_tensorflow_deps_from_an_intel_conda():
    f = one(diagnose(apple_silicon(), "conda_tensorflow_deps_osx64.txt"), "log.conda-tensorflow-deps-missing")
    assert f.evidence["searched_subdir"] == "osx-64"
    assert "Miniforge3-MacOSX-arm64.sh" in commands(f)


def test_tensorflow_deps_on_linux_does_not_exist():
    f = one(diagnose(linux_cpu(), "conda_resolve_tensorflow_deps.txt"), "log.conda-tensorflow-deps-missing")
    assert "only for macOS on Apple silicon" in f.title and commands(f).endswith("install -- tensorflow")


def test_tensorflow_deps_from_an_arm64_conda_gets_the_pip_pair():
    data = apple_silicon(python={"conda": {"prefix": "/Users/ada/miniforge3/envs/tf",
                                           "root": "/Users/ada/miniforge3", "subdir": "osx-arm64"}})
    f = one(diagnose(data, "conda_resolve_tensorflow_deps.txt"), "log.conda-tensorflow-deps-missing")
    assert f.evidence["conda_subdir"] == "osx-arm64" and "needs no tensorflow-deps" in f.remediation.text
    assert "tensorflow-metal==1.2.0" in commands(f)


FAST_STYLE_TRANSFER_266 = """PackagesNotFoundError: The following packages are not available from current channels:

  - tensorflow-gpu

Current channels:

  - https://repo.anaconda.com/pkgs/main/osx-64
  - https://repo.anaconda.com/pkgs/main/noarch
  - https://repo.anaconda.com/pkgs/r/osx-64
  - https://repo.anaconda.com/pkgs/r/noarch
"""
"""`conda create -n tf-gpu tensorflow-gpu` on a Mac: https://github.com/lengstrom/fast-style-transfer/issues/266"""


def test_conda_tensorflow_gpu_on_a_mac_is_a_cuda_package(tmp_path):
    path = tmp_path / "conda.log"
    path.write_text(FAST_STYLE_TRANSFER_266, encoding="utf-8")
    s = snap(apple_silicon())
    s.log = keep.read(path, identity=WHO)
    f = one(check.run(s), "log.conda-packages-not-found")
    assert "CUDA packages" in f.title and "Intel (osx-64) build" in f.title
    assert "tensorflow-metal==1.2.0" in commands(f)


# --- the log as a fact -----------------------------------------------------------------------------


def test_the_log_is_redacted_bounded_and_survives_a_snapshot_file(tmp_path):
    text = (LOGS / "metal_plugin_symbol_assign_update.txt").read_text(encoding="utf-8")
    noise = "".join(f"step {i} loss 0.1 https://ada:hunter2secret@pypi.example.com/simple\n" for i in range(20000))
    path = tmp_path / "big.log"
    path.write_text(noise + text + noise, encoding="utf-8")
    facts = keep.read(path, limit=DEFAULT_LIMIT, identity=Identity("/Users/davidlaxer", "davidlaxer", "box"))
    assert [m.code for m in facts.matches] == ["log.plugin-load-failed", "log.symbol-not-found-plugin"]
    dumped = json.dumps(Snapshot(**{**snap(apple_silicon()).__dict__, "log": facts}).to_dict())
    assert "davidlaxer" not in dumped and "hunter2secret" not in dumped
    assert len(facts.excerpt) <= pasted_log.EXCERPT_CHARS + 10 and "Symbol not found" in facts.excerpt
    jsonschema.validate(json.loads(dumped), snapshot_schema())
    (again,) = Snapshot.from_dict(json.loads(dumped)).log.of("log.symbol-not-found-plugin")
    assert again.fields["symbol"] == "_TF_AssignUpdateVariable"
    assert again.fields["library"].startswith("~/")


def test_a_log_larger_than_the_limit_says_what_was_skipped(tmp_path):
    path = tmp_path / "huge.log"
    with open(path, "wb") as out:
        out.write((LOGS / "pip_tensorflow_metal_none.txt").read_bytes())
        out.write((b"y" * 99 + b"\n") * 30000)
    facts = keep.read(path, limit=1_000_000, identity=WHO)
    assert facts.skipped_bytes > 0 and "skipped" in facts.summary()
    assert facts.of("log.pip-no-matching-distribution")


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_real_text_reaches_a_log_finding(name):
    """Each of the real texts, on a healthy Mac, gives at least its own finding (no crash)."""
    from tfdoctor.engine.run import run_rules
    from tfdoctor.engine.registry import Registry

    all_log = RuleModules(*LOG_MODULES)
    s = snap(apple_silicon())
    s.log = keep.read(LOGS / name, identity=WHO)
    found = run_rules(s, Registry(rules=all_log.rules))
    assert SOURCES[name]["code"] in {f.code for f in found}
    assert not [f for f in found if f.code == "check.crashed"]


def test_without_redaction_names_stay_but_credentials_go(tmp_path):
    path = tmp_path / "pip.log"
    path.write_text("Looking in indexes: https://ada:s3cretpass@pypi.corp.example/simple\n"
                    + (LOGS / "pip_tensorflow_macos_2120_none.txt").read_text(encoding="utf-8"), encoding="utf-8")
    facts = keep.read(path, identity=WHO, redacted=False)
    assert str(tmp_path) in facts.source and "s3cretpass" not in facts.excerpt and not facts.redacted
    assert facts.of("log.pip-no-matching-distribution")


def test_no_log_no_log_findings():
    from tfdoctor.engine.run import run_rules
    from tfdoctor.engine.registry import Registry

    rules = RuleModules(*LOG_MODULES).rules
    assert run_rules(snap(apple_silicon()), Registry(rules=rules)) == []


# --- then versus now: wheels that fit this machine today, refused when pip ran (issue 19 class 5)


def _intel_mac(macos: str, reported: str, python: str) -> dict:
    return apple_silicon(
        host={"hw_arm64": False, "chip": None, "cpu_brand": "Intel(R) Core(TM) i7", "macos_version": macos,
              "macos_version_reported": reported},
        python={"version": python, "process_arch": "x86_64",
                "binary": {"path": "/usr/local/bin/python3", "format": "mach-o", "archs": ["x86_64"]}},
        packages=[])


def test_a_pip_older_than_the_macos_11_tags_is_named_before_anything_else():
    # tensorflow/tensorflow#47205: macOS 11.2.1 x86-64, Homebrew Python 3.8, `pip3 install -v`
    # printed "Using pip 20.2.4"; tensorflow/docs#1826: TensorFlow needs pip 20.3+ on macOS 11
    f = one(diagnose(_intel_mac("11.2.1", "11.2.1", "3.8.7"), "pip_old_pip_macos11.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "refused-then"
    assert "pip 20.2.4 is older than 20.3" in f.title
    assert f.remediation.commands[0].endswith("install --upgrade -- pip")


def test_a_python_that_reports_macos_10_16_is_named():
    # tensorflow/tensorflow#50108: Intel iMac on macOS 12.4, Anaconda Python 3.8; the same command
    # with SYSTEM_VERSION_COMPAT=0 installed tensorflow_macos-2.9.2-cp38-cp38-macosx_11_0_x86_64.whl,
    # so that Python reported 10.16 (the collector's macos_version_reported)
    f = one(diagnose(_intel_mac("12.4", "10.16", "3.8.13"), "pip_system_version_compat.txt"),
            "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "refused-then"
    assert "reports macOS 10.16 for 12.4" in f.title and "SYSTEM_VERSION_COMPAT=0" in f.title


def test_the_python_pip_ran_for_is_read_from_the_log():
    # tensorflow/text#1128: pip ran in /opt/homebrew/lib/python3.11; diagnosed here on Python 3.10,
    # where tensorflow-macos 2.12 has a wheel
    f = one(diagnose(apple_silicon(python={"version": "3.10.13"}, packages=[]),
                     "pip_text_needs_tensorflow_macos.txt"), "log.pip-no-matching-distribution")
    assert f.evidence["verdict"] == "refused-then"
    assert "pip ran for Python 3.11 (the log says so), not this Python 3.10" in f.title




def test_a_wheel_tagged_macos_11_that_fits_was_refused_by_an_old_pip_or_an_old_sdk_python(tmp_path):
    """pip's refusal (its template, filled with a wheel apple/tensorflow_macos's install_venv.sh
    bundles) on Big Sur, whose tags fit: pip before 20.3 does not know macOS 11 tags; a Python
    built with an older SDK reports macOS 10.16. pip's own outdated warning names its version."""
    intel = apple_silicon(host={"hw_arm64": False, "chip": None, "cpu_brand": "Intel(R) Core(TM) i5",
                                "macos_version": "11.0.1", "macos_version_reported": "11.0.1"},
                          python={"version": "3.8.5", "process_arch": "x86_64"})
    refused = "ERROR: numpy-1.18.5-cp38-cp38-macosx_11_0_x86_64.whl is not a supported wheel on this platform.\n"

    def finding(text: str):
        (tmp_path / "pip.txt").write_text(text)
        s = snap(intel)
        s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
        (f,) = [f for f in LogRules("log_install").run(s) if f.code == "log.pip-unsupported-wheel"]
        return f

    f = finding(refused)
    assert "which pip before 20.3 does not know" in f.title and "SYSTEM_VERSION_COMPAT=0" in f.title
    assert f.remediation.commands[0].endswith("python -m pip install --upgrade -- pip")
    old_pip = finding("WARNING: You are using pip version 20.2.4; however, version 20.3.1 is available.\n" + refused)
    assert "pip 20.2.4 is older than 20.3" in old_pip.title


def test_a_report_that_names_no_machine_is_not_said_to_be_x86_64(tmp_path):
    """R's reticulate installing tensorflow pasted pip's refusal and nothing of the machine
    (rstudio/keras3#1233, an M1): the architecture is not stated, so the title names none."""
    from log_cases import WHO

    from tfdoctor.logtext import keep

    (tmp_path / "pip.txt").write_text("ERROR: Could not find a version that satisfies the requirement tensorflow "
                                      "(from versions: none)\nERROR: No matching distribution found for tensorflow\n")
    s = snap({"schema_version": 1, "target": {"python": "python3", "ok": True}, "host": {"system": ""},
              "unknown": ["packages", "chip", "python-arch"]})
    s.log = keep.read(tmp_path / "pip.txt", identity=WHO)
    (f,) = [f for f in LogRules("log_install").run(s) if f.code == "log.pip-no-matching-distribution"]
    assert "x86_64" not in f.title and not f.evidence.get("pip_arch")


def test_condas_refusal_cut_after_its_head_names_no_empty_package(tmp_path):
    # carpentries-incubator/introduction-to-conda-for-data-scientists#40: only the header was pasted
    from tfdoctor.logtext import keep

    (tmp_path / "conda.txt").write_text("PackagesNotFoundError: The following packages are not available from "
                                        "current channels:\n")
    s = snap(apple_silicon())
    s.log = keep.read(tmp_path / "conda.txt", identity=WHO)
    (f,) = [f for f in LogRules("log_install").run(s) if f.code == "log.conda-packages-not-found"]
    assert f.title.startswith("conda: the packages asked for (the paste ends before conda names them)")


@pytest.mark.parametrize("name", ["pip_index_unreachable_tls.txt", "pip_index_unreachable_certificate.txt"])
def test_an_empty_version_list_after_an_index_pip_could_not_read_is_the_network(name):
    """apple/turicreate#631, tensorflow/tensorflow#70901: 'Could not fetch URL ... - skipping', then
    '(from versions: )': pip read no page, so the empty list says nothing of the package or machine."""
    found = [f for f in check.diagnose(linux_cpu(packages=[]), name) if f.code == "log.pip-no-matching-distribution"]
    assert found and all(f.severity is Severity.INFO and f.evidence["verdict"] == "index-not-read" for f in found)
    assert "could not read the package index" in found[0].title


def test_versions_listed_despite_a_retry_mean_pip_read_the_index():
    s = snap(linux_cpu(packages=[]))
    s.log = keep.from_bytes(
        b"WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
        b"broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read "
        b"timeout=15)\")': /simple/tensorflow/\nERROR: Could not find a version that satisfies the requirement "
        b"tensorflow==2.99 (from versions: 2.16.1, 2.16.2, 2.17.0)\nERROR: No matching distribution found for "
        b"tensorflow==2.99\n", "paste", identity=WHO)
    (f,) = [f for f in check.run(s) if f.code == "log.pip-no-matching-distribution"]
    assert f.severity is Severity.ERROR and f.evidence["verdict"] != "index-not-read"


@pytest.mark.parametrize("host,command", [
    ({"system": "Linux"}, "install -- 'tensorflow[and-cuda]'"),
    ({"system": "Windows"}, "install -- 'tensorflow==2.10.*'"),
])
def test_tensorflow_gpu_s_removal_notice_asks_for_tensorflow_with_the_gpu_of_the_platform(host, command):
    # dionhaefner/pyhpc-benchmarks#17: pip asked for tensorflow-gpu, whose 2.12+ setup.py refuses to build
    (f,) = [f for f in check.diagnose(linux_cpu(host=host, packages=[]), "tensorflow_gpu_removed.txt")
            if f.code == "log.pip-no-matching-distribution"]
    assert f.severity is Severity.ERROR and "ask for tensorflow instead" in f.title
    assert commands(f).endswith(command)


def test_tensorflow_gpu_s_removal_notice_on_a_mac_names_the_metal_pair():
    (f,) = [f for f in check.diagnose(apple_silicon(packages=[]), "tensorflow_gpu_removed.txt")
            if f.code == "log.pip-no-matching-distribution"]
    assert "the GPU is Metal" in f.title and "tensorflow-metal" in commands(f)
