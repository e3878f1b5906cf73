"""compat.unmet-requirements (checks/compat_requirements.py): `pip check` for the diagnosed
interpreter, on snapshots built from recorded facts, and once on a real venv.

Requires-Dist below are verbatim from METADATA: TF_CPU_2_21 lists the distributions
`pip install tensorflow-cpu==2.21.0` put into a Python 3.11 venv on Linux x86_64, for which
`pip check` says "No broken requirements found."; numba 0.59.1 and pandas 2.2.3 are from their
cp311 manylinux wheels (`pip download --no-deps`); jsonschema 4.26.0 from its installed
dist-info; tensorflow-metal 1.2.0 and tf-keras 2.17.0 as tests/rules/test_compat_pins.py records
them. Requirers called `app` are constructed, and say so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_no_traceback, run_tfdoctor
from snapshots import RuleModules, _pkg, apple_silicon, linux_cpu, merge, snap
from support.wheels import build_wheel

from tfdoctor.model import Severity

requirements = RuleModules("compat_requirements")
with_pins = RuleModules("compat_pins", "compat_requirements")

PIP = "/usr/bin/python3 -m pip"
CODE = "compat.unmet-requirements"

TF_CPU_2_21: dict[str, tuple[str, list[str]]] = {
    "tensorflow_cpu": ("2.21.0", [
        "absl-py>=1.0.0", "astunparse>=1.6.0", "flatbuffers>=25.9.23", "gast!=0.5.0,!=0.5.1,!=0.5.2,>=0.2.1",
        "google_pasta>=0.1.1", "libclang>=13.0.0", "opt_einsum>=2.3.2", "packaging",
        "protobuf<8.0.0,>=6.31.1", "requests<3,>=2.21.0", "setuptools", "six>=1.12.0", "termcolor>=1.1.0",
        "typing_extensions>=3.6.6", "wrapt>=1.11.0", "grpcio<2.0,>=1.24.3", "keras>=3.12.0",
        "numpy>=1.26.0", "h5py<3.15.0,>=3.11.0", "ml_dtypes<1.0.0,>=0.5.1",
        'nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == "and-cuda"',
        'tensorflow-io-gcs-filesystem>=0.23.1; (sys_platform != "win32" and python_version < "3.13") '
        'and extra == "gcs-filesystem"']),
    "absl-py": ("2.5.1", []), "astunparse": ("1.6.3", ["wheel (<1.0,>=0.23.0)", "six (<2.0,>=1.6.1)"]),
    "certifi": ("2026.10.19.post1", []), "charset-normalizer": ("3.5.3", []),
    "flatbuffers": ("25.12.19", []), "gast": ("0.7.0", []), "google-pasta": ("0.2.0", ["six"]),
    "grpcio": ("1.85.3", ["typing-extensions~=4.12"]), "h5py": ("3.14.0", ["numpy>=1.19.3"]),
    "idna": ("3.20", []),
    "keras": ("3.15.1", ["absl-py", "numpy", "rich", "namex", "h5py", "optree", "ml-dtypes", "packaging"]),
    "libclang": ("18.1.1", []), "markdown-it-py": ("4.3.0", ["mdurl~=0.1", 'pytest ; extra == "testing"']),
    "mdurl": ("0.1.2", []),
    "ml_dtypes": ("0.6.0", ["numpy>=2.0.0", 'numpy>=2.1.0; python_version >= "3.13"',
                            'numpy>=2.3.0; python_version >= "3.14"', 'pylint>=2.6.0; extra == "dev"']),
    "namex": ("0.1.0", []), "numpy": ("2.4.6", []), "opt_einsum": ("3.4.0", []),
    "optree": ("0.20.0", ["typing-extensions>=4.10.0", 'typing-extensions>=4.12.0; python_version >= "3.13"',
                          'typing-extensions>=4.14.0; python_version >= "3.15"']),
    "packaging": ("26.4", []), "protobuf": ("7.36.2", []), "Pygments": ("2.21.0", []),
    "requests": ("2.34.2", ["charset_normalizer<4,>=2", "idna<4,>=2.5", "urllib3<3,>=1.26",
                            "certifi>=2023.5.7", 'PySocks!=1.5.7,>=1.5.6; extra == "socks"']),
    "rich": ("15.0.0", ['ipywidgets (>=7.5.1,<9) ; extra == "jupyter"', "markdown-it-py (>=2.2.0)",
                        "pygments (>=2.13.0,<3.0.0)"]),
    "setuptools": ("65.5.0", []), "six": ("1.17.0", []), "termcolor": ("3.3.0", []),
    "typing_extensions": ("4.16.0", []), "urllib3": ("2.8.0", []), "wheel": ("0.48.0", ["packaging >= 24.0"]),
    "wrapt": ("2.5.2", []),
}
NUMBA_0_59_1 = ["llvmlite <0.43,>=0.42.0dev0", "numpy <1.27,>=1.22"]
PANDAS_2_2_3 = ['numpy>=1.22.4; python_version < "3.11"', 'numpy>=1.23.2; python_version == "3.11"',
                'numpy>=1.26.0; python_version >= "3.12"', "python-dateutil>=2.8.2", "pytz>=2020.1",
                "tzdata>=2022.7"]
JSONSCHEMA_4_26_0 = ["attrs>=22.2.0", "jsonschema-specifications>=2023.03.6", "referencing>=0.28.4",
                     "rpds-py>=0.25.0", "idna; extra == 'format'", "webcolors>=1.11; extra == 'format'"]
TF_KERAS_2_17_0 = ["tensorflow <2.18,>=2.17"]


def pkg(name: str, version: str, requires: list[str] = ()) -> dict[str, Any]:
    return _pkg(name, version, ["py3-none-any"], list(requires))


def tf_cpu(*others: dict[str, Any], python: str = "3.11.7", **versions: str) -> dict[str, Any]:
    """The recorded tensorflow-cpu 2.21.0 venv, with `versions` (name=version) changed as a later
    `pip install` changes them, and `others` installed beside it."""
    packages = [pkg(name, versions.pop(name.replace("-", "_"), version), requires)
                for name, (version, requires) in TF_CPU_2_21.items()]
    assert not versions, versions
    return merge(linux_cpu(packages=packages + list(others)), {"python": {"version": python}})


def run(data: dict[str, Any], modules: RuleModules = requirements) -> list:
    return modules.run(snap(data))


def one(data: dict[str, Any]):
    findings = [f for f in run(data) if f.code == CODE]
    assert len(findings) == 1, [(f.code, f.title) for f in findings]
    return findings[0]


# ---------------------------------------------------------------------------------------------
# what pip check accepts stays quiet


def test_the_recorded_tensorflow_environment_meets_every_requirement():
    assert run(tf_cpu()) == []


def test_a_requirement_on_a_distribution_not_listed_is_not_judged():
    """No fact says a snapshot lists every installed distribution: numpy absent is unknown."""
    data = tf_cpu()
    data["packages"] = [p for p in data["packages"] if p["name"] != "numpy"]
    assert run(data) == []


def test_an_extra_nobody_asks_for_is_not_required():
    """rich's `jupyter` extra wants ipywidgets>=7.5.1: installed 7.0.0 is no one's concern."""
    assert run(tf_cpu(pkg("ipywidgets", "7.0.0"))) == []


# ---------------------------------------------------------------------------------------------
# severity: what TensorFlow loads, and the rest


def test_numpy_below_what_ml_dtypes_needs_is_a_warning_with_one_numpy_for_every_requirer():
    """`pip install numpy==1.26.4` after tensorflow-cpu 2.21.0: within TensorFlow's own pin
    (numpy>=1.26.0), below ml-dtypes 0.6.0's numpy>=2.0.0, which TensorFlow loads."""
    f = one(tf_cpu(numpy="1.26.4"))
    assert f.severity is Severity.WARNING
    assert f.title == "ml_dtypes 0.6.0 requires numpy>=2.0.0, but numpy 1.26.4 is installed"
    assert f.evidence["unmet"] == [{"requirer": "ml_dtypes 0.6.0", "requirement": "numpy>=2.0.0",
                                    "installed": "numpy 1.26.4",
                                    "tensorflow_loads_it_through": "tensorflow_cpu 2.21.0 -> ml_dtypes 0.6.0"}]
    (fix,) = f.evidence["resolutions"]
    assert fix["install"] == "numpy>=2.0.0" and fix["must_move"] == []
    assert set(fix["accepted_by"]) == {"tensorflow_cpu 2.21.0", "h5py 3.14.0", "keras 3.15.1", "ml_dtypes 0.6.0"}
    assert f.remediation.commands == (f"{PIP} install -- 'numpy>=2.0.0'",)
    assert f.detail == "TensorFlow loads it: tensorflow_cpu 2.21.0 -> ml_dtypes 0.6.0."


def test_tensorflow_own_pins_stay_compat_pin_violation():
    """h5py 3.15.0 breaks tensorflow-cpu 2.21.0's own h5py<3.15.0: compat.pin-violation says
    it; this rule adds nothing."""
    codes = [f.code for f in run(tf_cpu(h5py="3.15.0"), with_pins)]
    assert "compat.pin-violation" in codes and CODE not in codes


def test_a_package_tensorflow_does_not_load_is_information():
    """pandas 2.2.3 beside tensorflow-cpu, with an old pytz."""
    f = one(tf_cpu(pkg("pandas", "2.2.3", PANDAS_2_2_3), pkg("pytz", "2019.3"), pkg("python-dateutil", "2.9.0"),
                   pkg("tzdata", "2024.1")))
    assert f.severity is Severity.INFO
    assert f.title == "pandas 2.2.3 requires pytz>=2020.1, but pytz 2019.3 is installed"
    assert "tensorflow_loads_it_through" not in f.evidence["unmet"][0]
    assert f.remediation.commands == (f"{PIP} install -- 'pytz>=2020.1'",)
    assert f.detail == "TensorFlow does not load it: TensorFlow is not affected, the requirers may be."


def test_the_metal_plugin_runs_in_tensorflow_so_its_requirements_are_a_warning():
    """tensorflow-metal 1.2.0 requires six>=1.15.0 (tests/rules/test_compat_pins.py)."""
    data = apple_silicon()
    data["packages"] += [pkg("six", "1.14.0")]
    f = one(data)
    assert f.severity is Severity.WARNING
    assert f.evidence["unmet"][0]["tensorflow_loads_it_through"] == "tensorflow-metal 1.2.0"
    assert f.remediation.commands == ("/Users/ada/venvs/tf/bin/python -m pip install -- 'six>=1.15.0'",)


def test_both_kinds_in_one_finding_lead_with_what_tensorflow_loads():
    f = one(tf_cpu(pkg("pandas", "2.2.3", PANDAS_2_2_3), pkg("pytz", "2019.3"), numpy="1.26.4"))
    assert f.severity is Severity.WARNING
    assert f.title.startswith("1 requirement of packages TensorFlow loads is not met, and 1 of other "
                              "packages: ml_dtypes 0.6.0 needs numpy>=2.0.0 (1.26.4 installed), pandas")
    assert f.evidence["unmet_count"] == 2
    assert f.remediation.commands == (f"{PIP} install -- 'numpy>=2.0.0' 'pytz>=2020.1'",)


# ---------------------------------------------------------------------------------------------
# markers and extras


def test_markers_are_evaluated_for_the_diagnosed_python():
    """ml_dtypes 0.6.0 wants numpy>=2.1.0 on Python 3.13 only: numpy 2.0.2 is fine on 3.11."""
    assert run(tf_cpu(numpy="2.0.2")) == []
    f = one(tf_cpu(numpy="2.0.2", python="3.13.1"))
    assert f.evidence["unmet"][0]["requirement"] == 'numpy>=2.1.0; python_version >= "3.13"'
    assert f.evidence["resolutions"][0]["install"] == "numpy>=2.1.0"
    assert f.evidence["markers_for"] == "Python 3.13, Linux x86_64"


def test_an_extra_counts_where_an_installed_requirement_asks_for_it():
    """jsonschema's `format` extra wants webcolors>=1.11; `app` (constructed) requires
    jsonschema[format], so pip installed it and an old webcolors breaks it."""
    schema = [pkg("jsonschema", "4.26.0", JSONSCHEMA_4_26_0), pkg("webcolors", "1.10")]
    assert run(tf_cpu(*schema)) == []
    f = one(tf_cpu(*schema, pkg("app", "1.0", ["jsonschema[format]>=4"])))
    assert f.title == "jsonschema[format] 4.26.0 requires webcolors>=1.11, but webcolors 1.10 is installed"
    assert f.evidence["unmet"][0]["requirement"] == "webcolors>=1.11; extra == \"format\""


def test_an_extra_of_a_package_tensorflow_loads_is_in_its_closure():
    """keras (constructed requirement) asking for rich[jupyter]: TensorFlow loads it through keras."""
    data = tf_cpu(pkg("ipywidgets", "7.0.0"))
    keras = next(p for p in data["packages"] if p["name"] == "keras")
    keras["requires_dist"] = [r if r != "rich" else "rich[jupyter]" for r in keras["requires_dist"]]
    f = one(data)
    assert f.severity is Severity.WARNING
    assert f.evidence["unmet"][0]["tensorflow_loads_it_through"] == \
        "tensorflow_cpu 2.21.0 -> keras 3.15.1 -> rich[jupyter] 15.0.0"


# ---------------------------------------------------------------------------------------------
# conflicts


def test_requirers_no_one_numpy_satisfies_are_named_and_the_outsider_moves():
    """`pip install numba==0.59.1` after tensorflow-cpu 2.21.0 downgrades numpy to 1.26.4:
    numba wants numpy<1.27, ml-dtypes 0.6.0 numpy>=2.0.0. NumPy goes where TensorFlow and what
    it loads agree; numba moves, with TensorFlow held."""
    f = one(tf_cpu(pkg("numba", "0.59.1", NUMBA_0_59_1), pkg("llvmlite", "0.42.0"), numpy="1.26.4"))
    assert f.severity is Severity.WARNING
    (fix,) = f.evidence["resolutions"]
    assert fix["install"] == "numpy>=2.0.0"
    assert fix["must_move"] == [{"requirer": "numba 0.59.1", "requires": "numpy<1.27,>=1.22"}]
    assert f.remediation.text.startswith("No numpy version meets both numba 0.59.1 (numpy<1.27,>=1.22) "
                                         "and tensorflow_cpu 2.21.0")
    assert f.remediation.commands == (
        f"{PIP} install --upgrade -- 'numpy>=2.0.0' numba tensorflow-cpu==2.21.0",)


def test_a_requirement_on_tensorflow_moves_the_requirer_never_tensorflow():
    """tf-keras 2.17.0 requires tensorflow <2.18,>=2.17 beside tensorflow 2.15.0 (Keras 2 era,
    so no compat.keras3 judges it): tf-keras moves, TensorFlow stays."""
    data = linux_cpu(packages=[pkg("tensorflow", "2.15.0", ["keras<2.16,>=2.15.0"]), pkg("keras", "2.15.0"),
                               pkg("tf-keras", "2.17.0", TF_KERAS_2_17_0)])
    f = one(data)
    assert f.severity is Severity.INFO
    assert f.evidence["resolutions"][0]["install"] is None
    assert "keep TensorFlow" in f.remediation.text
    assert f.remediation.commands == (f"{PIP} install --upgrade -- tf-keras tensorflow==2.15.0",)


def test_tf_keras_against_a_keras_3_tensorflow_is_left_to_compat_keras3():
    data = apple_silicon()
    data["packages"] += [pkg("tf-keras", "2.17.0", TF_KERAS_2_17_0)]
    codes = [f.code for f in run(data, with_pins)]
    assert "compat.keras3" in codes and CODE not in codes


# ---------------------------------------------------------------------------------------------
# bad input


def test_unreadable_metadata_is_skipped_without_a_traceback():
    huge = "1" + "0" * 5000  # beyond int()'s 4300-digit limit: Version() raises ValueError
    data = tf_cpu(pkg("$(touch pwned)", "1.0", ["numpy<1"]), pkg("garbled", "1.0", ["numpy >>> 2", "["]),
                  pkg("odd-version", "not a version"), pkg("needs-odd", "1.0", ["odd-version>=1"]),
                  pkg("huge", huge), pkg("needs-huge", "1.0", ["huge>=1", f"numpy<{huge}"]))
    f = one(data)  # only the one requirement that can be judged
    assert f.title == "$(touch pwned) 1.0 requires numpy<1, but numpy 2.4.6 is installed"
    assert f.remediation.commands == ()  # a name that is no distribution's never reaches a command


# ---------------------------------------------------------------------------------------------
# a real environment


@pytest.mark.slow
def test_a_real_venv_broken_with_no_deps(tmp_path: Path):
    """Local wheels in a throwaway venv: a `tensorflow-cpu` wheel of a few bytes takes
    TensorFlow's place in the graph (it requires tfd-keras), tfd-keras requires tfd-numpy>=2.0,
    tfd-app requires tfd-six<2. `pip install --no-deps` of tfd-numpy 1.0 and tfd-six 2.0 breaks
    both; tfdoctor says what `pip check` says, and its command, run as printed, mends both."""
    wheels = tmp_path / "wheels"
    build_wheel(wheels, "tensorflow-cpu", "2.21.0", {"tensorflow/__init__.py": ""}, ["tfd-keras"])
    build_wheel(wheels, "tfd-keras", "3.0.0", {"tfd_keras.py": ""}, ["tfd-numpy>=2.0"])
    build_wheel(wheels, "tfd-app", "1.0.0", {"tfd_app.py": ""}, ["tfd-six<2"])
    for version in ("1.0", "2.0"):
        build_wheel(wheels, "tfd-numpy", version, {"tfd_numpy.py": ""})
        build_wheel(wheels, "tfd-six", version, {"tfd_six.py": ""})
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    offline = ["--no-index", "--find-links", str(wheels), "-q", "--disable-pip-version-check"]
    subprocess.run([python, "-m", "pip", "install", *offline, "tensorflow-cpu", "tfd-app", "tfd-six==1.0"],
                   check=True)

    def diagnosis() -> list[dict[str, Any]]:
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
        result = run_tfdoctor("check", "--python", str(venv), "--no-runtime", "--no-probes", "--json",
                              env=env)
        assert_no_traceback(result)
        return [f for f in json.loads(result.stdout)["findings"] if f["code"] == CODE]

    assert diagnosis() == []
    subprocess.run([python, "-m", "pip", "install", *offline, "--no-deps", "tfd-numpy==1.0", "tfd-six==2.0"],
                   check=True)
    pip_check = subprocess.run([python, "-m", "pip", "check"], capture_output=True, text=True)
    assert "tfd-keras 3.0.0 has requirement tfd-numpy>=2.0, but you have tfd-numpy 1.0." in pip_check.stdout

    (f,) = diagnosis()
    assert f["severity"] == "warning"
    assert f["title"] == ("1 requirement of packages TensorFlow loads is not met, and 1 of other packages: "
                          "tfd-keras 3.0.0 needs tfd-numpy>=2.0 (1.0 installed), "
                          "tfd-app 1.0.0 needs tfd-six<2 (2.0 installed)")
    assert [u["requirer"] for u in f["evidence"]["unmet"]] == ["tfd-keras 3.0.0", "tfd-app 1.0.0"]
    assert f["evidence"]["unmet"][0]["tensorflow_loads_it_through"] == "tensorflow-cpu 2.21.0 -> tfd-keras 3.0.0"
    assert f["remediation"]["commands"] == [f"{python} -m pip install -- 'tfd-numpy>=2.0' 'tfd-six<2'"]
    fix = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels)}
    subprocess.run(f["remediation"]["commands"][0], shell=True, env=fix, check=True)  # as printed
    assert diagnosis() == []
