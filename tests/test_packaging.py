"""The wheel as users get it: built from the repo, installed in a fresh venv, with a third-party
check plugin installed beside it; an editable install too; target code runs on Python 3.8."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TARGET_CODE = REPO / "tfdoctor" / "target"

pytestmark = pytest.mark.slow

PLUGIN = {
    "pyproject.toml": """
        [build-system]
        requires = ["setuptools>=68"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "tfdoctor-hello"
        version = "0.1"
        [project.entry-points."tfdoctor.checks"]
        hello = "tfd_hello:CHECKS"
        broken = "tfd_hello_missing:CHECK"
    """,
    "tfd_hello.py": """
        from tfdoctor.model import Check, CodeDoc, Finding, Remediation, Severity

        def hello(snapshot):
            n = len(snapshot.packages)
            return [Finding("hello.count", Severity.WARNING, f"hello from a plugin: {n} packages",
                            {"packages": n}, Remediation("nothing", ("true",)))]

        def explode(snapshot):
            raise ZeroDivisionError("plugin bug")

        CHECKS = [
            Check("hello", "Hello plugin", "counts packages", hello,
                  {"hello.count": CodeDoc("Hello", Severity.WARNING, "why", "fix")}),
            Check("explode", "Exploding plugin", "always raises", explode),
        ]
    """,
}


def run(*cmd, **kw):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    return proc


def ok(*cmd, **kw):
    proc = run(*cmd, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    ok(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, REPO)
    (whl,) = out.glob("tfdoctor-*.whl")
    return whl


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "tfdoctor/checks/architecture.py" in names
    assert "tfdoctor/compat_matrix.json" in names
    assert "tfdoctor/target/collect_static.py" in names
    assert "tfdoctor/schemas/report.schema.json" in names
    assert not any(n.startswith("checks/") for n in names), "a generic top-level 'checks' package"
    data = zipfile.ZipFile(wheel).read("tfdoctor/compat_matrix.json")
    assert json.loads(data)  # the real file, not a dangling link


def test_wheel_in_fresh_venv_with_third_party_plugin(wheel, tmp_path):
    ok(sys.executable, "-m", "venv", tmp_path / "venv")
    py = tmp_path / "venv" / "bin" / "python"
    ok(py, "-m", "pip", "install", "-q", wheel)
    site = Path(ok(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())
    assert not (site / "checks").exists()

    cli = tmp_path / "venv" / "bin" / "tfdoctor"
    listed = json.loads(ok(cli, "list-checks", "--json").stdout)
    assert {"architecture", "binaries", "installation", "target"} <= {c["name"] for c in listed["checks"]}
    report = run(py, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes", "--json")
    assert report.returncode in (0, 1), report.stderr
    doc = json.loads(report.stdout)
    assert doc["snapshot"]["python"]["prefix"] == str(tmp_path / "venv")

    plugin = tmp_path / "plugin"
    plugin.mkdir()
    for name, text in PLUGIN.items():
        (plugin / name).write_text(textwrap.dedent(text))
    ok(py, "-m", "pip", "install", "-q", plugin)
    doc = json.loads(run(cli, "check", "--no-runtime", "--no-probes", "--json").stdout)
    by_code = {f["code"]: f for f in doc["findings"]}
    assert by_code["hello.count"]["check"] == "hello"
    assert by_code["hello.count"]["title"].startswith("hello from a plugin: ")
    assert by_code["check.crashed"]["evidence"]["error"] == "ZeroDivisionError: plugin bug"
    assert "tfd_hello_missing" in by_code["check.load-failed"]["evidence"]["entry_point"]
    assert by_code["install.no-tensorflow"]["check"] == "installation"  # built-ins still ran
    assert ok(cli, "explain", "hello.count").stdout.startswith("hello.count")


def test_editable_install(tmp_path):
    ok(sys.executable, "-m", "venv", tmp_path / "venv")
    py = tmp_path / "venv" / "bin" / "python"
    ok(py, "-m", "pip", "install", "-q", "-e", REPO)
    listed = json.loads(ok(py, "-m", "tfdoctor", "list-checks", "--json").stdout)
    modules = {c["module"] for c in listed["checks"]}
    assert "tfdoctor.checks.architecture" in modules
    where = ok(py, "-c", "import tfdoctor.checks.architecture as m; print(m.__file__)").stdout.strip()
    assert Path(where) == REPO / "checks" / "architecture.py"
    ok(py, "-c", "from tfdoctor.matrix import load_matrix; load_matrix()")


def test_target_code_runs_on_python_38():
    """What runs inside the diagnosed interpreter must work on Python 3.8 (checked statically:
    no machine here has 3.8)."""
    files = sorted(str(p) for p in TARGET_CODE.glob("*.py"))
    assert any(f.endswith("collect_static.py") for f in files)
    vermin = "import sys; from vermin import main; sys.exit(main())"
    proc = run(sys.executable, "-c", vermin, "--target=3.8-", "--violations", "--no-tips",
               "--eval-annotations", *files)
    assert proc.returncode == 0, proc.stdout + proc.stderr
