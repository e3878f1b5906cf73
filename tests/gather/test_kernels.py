"""Finding kernels as Jupyter does, without Jupyter: its folders per platform (jupyter_core 5.x
paths.py: jupyter_data_dir, jupyter_path, SYSTEM_JUPYTER_PATH), the programs a kernel.json may
start (jupyter_client's KernelManager.format_kernel_cmd: `python` is Jupyter's own, `{prefix}`
and `{resource_dir}` are filled in), and what an interpreter's files say of TensorFlow."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gather.test_collector import add_dist, make_venv
from tfdoctor.gather.interpreter_files import (
    same_environment,
    shebang_interpreter,
    tensorflow_in,
)
from tfdoctor.gather.jupyter_paths import data_dirs
from tfdoctor.gather.kernels import gather_jupyter

HOME = "/Users/ada"


def paths(environ: dict, platform: str, environments=("/env",)) -> list[tuple[str, str]]:
    return [(d.path, d.kind) for d in data_dirs(environ, platform, HOME, list(environments))]


def test_the_folders_of_jupyter_paths_on_a_mac():
    assert paths({}, "darwin") == [
        (f"{HOME}/Library/Jupyter", "user"), (f"{HOME}/.local/share/jupyter", "user"),
        ("/env/share/jupyter", "environment"), ("/usr/local/share/jupyter", "system"),
        ("/usr/share/jupyter", "system"), (f"{HOME}/.ipython", "ipython")]


def test_jupyter_path_comes_first_and_the_environment_before_the_user_when_asked():
    found = paths({"JUPYTER_PATH": "/a:/b/", "JUPYTER_PREFER_ENV_PATH": "1", "XDG_DATA_HOME": "/xdg",
                   "JUPYTER_DATA_DIR": "/data"}, "linux")
    assert found[:5] == [("/a", "JUPYTER_PATH"), ("/b", "JUPYTER_PATH"), ("/env/share/jupyter", "environment"),
                         ("/data", "user"), (f"{HOME}/.local/share/jupyter", "user")]
    assert paths({"XDG_DATA_HOME": "/xdg"}, "linux")[0] == ("/xdg/jupyter", "user")
    assert paths({"JUPYTER_PREFER_ENV_PATH": "no"}, "linux")[0][1] == "user"


def spec(data: Path, name: str, argv: list[str], **more) -> Path:
    folder = data / "kernels" / name
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(json.dumps({"argv": argv, "language": "python", **more}))
    return folder


def gather(tmp_path: Path, environ: dict, environments=(), diagnosed: str | None = None):
    return gather_jupyter(diagnosed, list(environments), {"PATH": "", **environ}, "linux", str(tmp_path / "home"))


def test_python_bare_is_the_environments_own_or_that_of_the_jupyter_on_path(tmp_path):
    env_python, _ = make_venv(tmp_path / "env")
    spec(tmp_path / "env" / "share" / "jupyter", "python3", ["python", "-m", "ipykernel_launcher"])
    spec(tmp_path / "user", "other", ["python3", "-m", "ipykernel_launcher"])
    found = gather(tmp_path, {"JUPYTER_DATA_DIR": str(tmp_path / "user")}, [str(tmp_path / "env")],
                   diagnosed=str(env_python))
    kernels = {k.name: k for k in found.kernels}
    assert (kernels["python3"].interpreter, kernels["python3"].resolved_by) == (str(env_python), "environment")
    assert kernels["python3"].is_target is True
    assert (kernels["other"].interpreter, kernels["other"].resolved_by) == (None, "jupyter")
    # a `jupyter` on PATH says which Python runs Jupyter: pip's launcher for a long path too
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "jupyter").write_text(f"#!/bin/sh\n'''exec' {env_python} \"$0\" \"$@\"\n' '''\n")
    (bin_dir / "jupyter").chmod(0o755)
    found = gather(tmp_path, {"JUPYTER_DATA_DIR": str(tmp_path / "user"), "PATH": str(bin_dir)})
    other = found.kernel("other")
    assert (other.interpreter, other.resolved_by, found.jupyter_python) == (str(env_python), "jupyter", str(env_python))
    # and Jupyter's own environment is searched: its python3 kernel is found without being given
    assert found.kernel("python3").resolved_by == "environment"


def test_argv_forms(tmp_path):
    data = tmp_path / "data"
    folder = spec(data, "resource", ["{resource_dir}/run.sh"])
    spec(data, "arch", ["/usr/bin/arch", "-arch", "x86_64", "-e", "A=1", "/opt/py/bin/python3"])
    spec(data, "env", ["/usr/bin/env", "-i", "PYTHONPATH=/x", "/opt/py/bin/python3"])
    spec(data, "relative", ["bin/python"])
    spec(data, "unknown", ["{conda_prefix}/bin/python"])
    spec(data, "bare", ["no-such-launcher"])
    (data / "kernels" / "broken").mkdir()
    (data / "kernels" / "broken" / "kernel.json").write_text("{not json")
    spec(data, "noargv", [])
    kernels = {k.name: k for k in gather(tmp_path, {"JUPYTER_PATH": str(data)}).kernels}
    assert (kernels["resource"].interpreter, kernels["resource"].resolved_by) == (f"{folder}/run.sh", "resource_dir")
    assert (kernels["arch"].interpreter, kernels["arch"].started_as) == ("/opt/py/bin/python3", "x86_64")
    assert kernels["env"].interpreter == "/opt/py/bin/python3" and kernels["env"].exists is False
    assert kernels["relative"].interpreter is None and kernels["relative"].exists is None
    assert kernels["unknown"].interpreter is None and kernels["unknown"].resolved_by == ""
    assert (kernels["bare"].resolved_by, kernels["bare"].exists) == ("PATH", False)
    assert kernels["broken"].error.startswith("kernel.json is not JSON")
    assert kernels["noargv"].error == "kernel.json has no argv (a list of strings)"


def test_the_first_folder_of_a_name_wins_whatever_its_case(tmp_path):
    spec(tmp_path / "first", "TF", ["/first/python"])
    spec(tmp_path / "second", "tf", ["/second/python"])
    found = gather(tmp_path, {"JUPYTER_PATH": f"{tmp_path / 'first'}:{tmp_path / 'second'}"})
    assert [(k.name, k.interpreter) for k in found.kernels] == [("tf", "/first/python")]
    assert found.kernel("Tf").interpreter == "/first/python"


def test_tensorflow_is_read_from_the_interpreters_own_site_packages(tmp_path):
    python, site = make_venv(tmp_path / "venv")
    assert tensorflow_in(str(python), str(tmp_path)) == (False, None)
    add_dist(site, "tensorflow_macos", "2.15.0")
    assert tensorflow_in(str(python), str(tmp_path)) == (True, "tensorflow-macos 2.15.0")
    assert tensorflow_in(str(tmp_path / "nowhere" / "bin" / "python"), str(tmp_path)) == (None, None)


def test_a_venv_is_its_own_environment_though_its_python_links_to_the_base(tmp_path):
    a, _ = make_venv(tmp_path / "a")
    b, _ = make_venv(tmp_path / "b")
    assert Path(a).resolve() == Path(b).resolve()  # both links to the same base interpreter
    assert not same_environment(str(a), str(b))
    assert same_environment(str(a), str(a.parent / "python3"))


@pytest.mark.parametrize("line, expected", [
    ("#!/opt/homebrew/opt/python@3.12/bin/python3.12\n", "/opt/homebrew/opt/python@3.12/bin/python3.12"),
    ("#!/usr/bin/env python3\n", "FOUND"),
    ("no shebang\n", None),
])
def test_the_python_a_script_starts(tmp_path, line, expected):
    (tmp_path / "python3").write_text("")
    (tmp_path / "python3").chmod(0o755)
    (tmp_path / "jupyter").write_text(line)
    found = shebang_interpreter(str(tmp_path / "jupyter"), {"PATH": str(tmp_path)})
    assert found == (str(tmp_path / "python3") if expected == "FOUND" else expected)


def test_gathering_imports_no_jupyter():
    """Discovery reads files only: neither Jupyter nor IPython is imported (tfdoctor does not
    depend on them, and the diagnosed environment may not have them)."""
    import subprocess

    code = ("import sys, tfdoctor.gather.kernels as k, tfdoctor.notebook; k.gather_jupyter(sys.executable, []); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jupyter_core', 'jupyter_client', "
            "'IPython', 'ipykernel')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_the_listing_stays_short_without_v(tmp_path):
    from rich.console import Console
    from snapshots import linux_cpu, merge, snap

    from tfdoctor.facts.typed import to_plain
    from tfdoctor.render.notebooks import LISTED, render_notebooks

    for i in range(LISTED + 3):
        spec(tmp_path / "data", f"k{i:02d}", ["/opt/py/bin/python3"])
    facts = gather(tmp_path, {"JUPYTER_PATH": str(tmp_path / "data")})
    snapshot = snap(merge(linux_cpu(), {"jupyter": to_plain(facts)}))
    for verbose, listed in ((False, LISTED), (True, LISTED + 3)):
        console = Console(record=True, width=200, no_color=True)
        render_notebooks(console, snapshot, verbose)
        text = console.export_text()
        assert text.count(" · /opt/py/bin/python3 · missing") == listed
        assert ("and 3 more (-v lists them)" in text) is not verbose
