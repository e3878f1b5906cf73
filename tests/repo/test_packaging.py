"""The wheel as users get it: built from the repo, installed in a fresh venv, with a third-party
check plugin installed beside it; an editable install too; target code runs on Python 3.8."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSIDE_CODE = REPO / "tfdoctor" / "inside"

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
        rules = "tfd_hello:RULES"
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

        # the README's "Writing a rule plugin" example, as written there
        from tfdoctor.model import rule

        @rule("mine.metal-disabled", "Metal disabled by TF_METAL_DISABLE", Severity.WARNING,
              "Our lab image sets TF_METAL_DISABLE for CI runners.", "Unset it on workstations.")
        def metal_disabled(snapshot, derived):
            if "TF_METAL_DISABLE" in snapshot.env or derived.metal is None:
                return metal_disabled.finding({"env": "TF_METAL_DISABLE"},
                                              Remediation("unset it", ("unset TF_METAL_DISABLE",)))

        RULES = [metal_disabled]
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
    """Built from a copy of the checkout: setuptools builds in the source tree (build/, egg-info),
    which test_editable_install's `pip install -e` writes at the same time on another worker."""
    source = tmp_path_factory.mktemp("source") / "tfdoctor"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info",
                                                                 "__pycache__", ".pytest_cache"))
    out = tmp_path_factory.mktemp("dist")
    ok(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source)
    (whl,) = out.glob("tfdoctor-*.whl")
    return whl


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "tfdoctor/checks/arch_interpreter.py" in names
    assert "tfdoctor/compat_matrix.json" in names
    assert {f"tfdoctor/{p.relative_to(REPO / 'tfdoctor')}" for p in INSIDE_CODE.rglob("*.py")} <= set(names)
    assert "tfdoctor/schemas/report.schema.json" in names
    assert "tfdoctor/logtext/keras2_only.json" in names  # the names Keras 3 removed, read by a signature
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
    assert {"arch", "install", "compat", "runtime", "probe", "target"} <= {c["name"] for c in listed["checks"]}
    # a venv holding tfdoctor alone is a tool: with nothing active it is not what is diagnosed
    alone = run(py, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes", "--json",
                env={k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")})
    assert json.loads(alone.stdout)["snapshot"]["target"]["tool_env"] == "venv"
    report = run(py, "-m", "tfdoctor", "check", "--python", py, "--no-runtime", "--no-probes", "--json")
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
    assert by_code["install.no-tensorflow"]["check"] == "install"  # built-ins still ran
    assert by_code["mine.metal-disabled"]["check"] == "mine"
    assert by_code["mine.metal-disabled"]["severity"] == "warning"
    assert ok(cli, "explain", "mine.metal-disabled").stdout.startswith("mine.metal-disabled (warning)")
    assert ok(cli, "explain", "hello.count").stdout.startswith("hello.count")

    # Run from a checkout with the wheel installed: the source folder shadows the install, and
    # the built-in rules come from the checkout's checks/ (tfdoctor 0.1 found none, exit 0).
    from_checkout = run(py, "-m", "tfdoctor", "list-checks", "--json", cwd=REPO)
    modules = {r["module"] for c in json.loads(from_checkout.stdout)["checks"] for r in c["rules"]}
    assert "tfdoctor.checks.arch_interpreter" in modules and not from_checkout.stderr.strip()
    where = ok(py, "-c", "import tfdoctor, tfdoctor.engine.registry as r; r.builtin_rules(); "
               "import tfdoctor.checks.target as m; print(m.__file__)", cwd=REPO).stdout.strip()
    assert Path(where) == REPO / "checks" / "target.py"


def test_editable_install(tmp_path):
    ok(sys.executable, "-m", "venv", tmp_path / "venv")
    py = tmp_path / "venv" / "bin" / "python"
    ok(py, "-m", "pip", "install", "-q", "-e", REPO)
    listed = json.loads(ok(py, "-m", "tfdoctor", "list-checks", "--json").stdout)
    modules = {r["module"] for c in listed["checks"] for r in c["rules"]}
    assert "tfdoctor.checks.arch_interpreter" in modules
    where = ok(py, "-c", "import tfdoctor.checks.arch_interpreter as m; print(m.__file__)").stdout.strip()
    assert Path(where) == REPO / "checks" / "arch_interpreter.py"
    ok(py, "-c", "from tfdoctor.knowledge.matrix import load_matrix; load_matrix()")


def test_target_code_runs_on_python_38():
    """What runs inside the diagnosed interpreter must work on Python 3.8 (checked statically:
    no machine here has 3.8)."""
    files = sorted(str(p) for p in INSIDE_CODE.rglob("*.py"))
    assert any(f.endswith("collector/__main__.py") for f in files)
    vermin = "import sys; from vermin import main; sys.exit(main())"
    proc = run(sys.executable, "-c", vermin, "--target=3.8-", "--violations", "--no-tips",
               "--eval-annotations", *files)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_readme_first_command_in_a_fresh_copy_at_80_columns(tmp_path):
    """The README's install-and-run command, as written, in a clean copy of the repository: it
    installs, runs `tfdoctor check`, and prints prose wrapped between words at 80 columns."""
    import re
    import shutil

    readme = (REPO / "README.md").read_text()
    command = re.search(r"Install and run:\n\n```sh\n(.+?)\n```", readme).group(1)
    copy = tmp_path / "tfdoctor-src"
    for name in ("tfdoctor", "checks"):
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "compat_matrix.json"):
        shutil.copy(REPO / name, copy / name)
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env["COLUMNS"] = "80"
    proc = subprocess.run(["bash", "-c", command], cwd=copy, capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("tfdoctor ") and any(line.startswith("[") for line in lines)
    prose = [line for line in lines if not line.lstrip().startswith("$ ")]
    assert max(len(line) for line in prose) <= 80, [line for line in prose if len(line) > 80]
