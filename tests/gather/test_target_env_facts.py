"""Facts about the user's environment beyond the interpreter (issue 11 items 6-7): the parent
shell, the Pythons on PATH in order, conda's own records, and which environment is diagnosed
when tfdoctor runs from an isolated tool environment (pipx, uv tool)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import sys
from pathlib import Path

import pytest

from gather.test_collector import make_venv
from tfdoctor.advice.commands import pip, python_cmd
from tfdoctor.facts import typed
from tfdoctor.facts.snapshot import ParentProcess, PythonFacts, Snapshot, TargetOutcome
from tfdoctor.gather.static import choose_target, gather_static
from tfdoctor.inside.collector import mac

# --- the parent shell ------------------------------------------------------------------------------


def test_parent_process_is_recorded():
    """gather passes tfdoctor's parent (here: this test process's parent) to the collector."""
    snap = gather_static(None)
    parent = snap.shell.parent
    assert parent.pid == os.getppid()
    assert parent.executable == os.readlink(f"/proc/{os.getppid()}/exe")
    assert parent.format == "elf" and parent.archs == [os.uname().machine.replace("aarch64", "arm64")]
    assert parent.translated is None  # only macOS says


def kinfo(flags: int, pid: int) -> bytes:
    """A kinfo_proc buffer as sysctl {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid} returns it on
    64-bit macOS (648 bytes; xnu bsd/sys/sysctl.h struct kinfo_proc, bsd/sys/proc.h struct
    extern_proc: p_flag at offset 32, p_pid at 40; P_TRANSLATED is 0x00020000)."""
    buf = bytearray(648)
    struct.pack_into("=i", buf, 32, flags)
    struct.pack_into("=i", buf, 40, pid)
    return bytes(buf)


def test_translated_parent_is_read_from_kinfo_proc():
    collector = mac
    p_ctty_and_translated = 0x00000002 | 0x00020000  # P_CONTROLT | P_TRANSLATED
    assert collector.translated_from_kinfo(kinfo(p_ctty_and_translated, 4242), 4242) is True
    assert collector.translated_from_kinfo(kinfo(0x00000002, 4242), 4242) is False
    assert collector.translated_from_kinfo(kinfo(0x00020000, 4242), 1) is None  # layout check
    assert collector.translated_from_kinfo(b"\0" * 20, 4242) is None


ROSETTA_TERMINAL_ZSH = {"pid": 812, "executable": "/bin/zsh", "translated": True,
                        "format": "mach-o-fat", "archs": ["x86_64", "arm64e"], "error": None}
"""Terminal set to "Open using Rosetta" (its Get Info checkbox): the universal /bin/zsh runs
translated, `arch` prints i386, and every universal2 Python started from it runs as x86_64
(issue 11 item 6; sysctl.proc_translated and P_TRANSLATED per Apple's "About the Rosetta
translation environment" and xnu bsd/sys/proc.h)."""


@pytest.mark.parametrize("facts, hw_arm64, arch", [
    (ROSETTA_TERMINAL_ZSH, True, "x86_64"),
    ({**ROSETTA_TERMINAL_ZSH, "translated": False}, True, "arm64"),
    ({**ROSETTA_TERMINAL_ZSH, "translated": None}, True, None),  # universal, nothing read
    ({"pid": 5, "executable": "/usr/local/bin/bash", "translated": None, "archs": ["x86_64"]},
     False, "x86_64"),
    ({"pid": 5, "executable": "/usr/bin/bash", "translated": None, "archs": ["x86_64"]}, None, "x86_64"),
])
def test_parent_architecture_from_recorded_facts(facts, hw_arm64, arch):
    parent = typed.from_plain(ParentProcess, facts)
    assert parent.runs_as(hw_arm64) == arch


# --- Pythons on PATH -------------------------------------------------------------------------------


def test_pythons_on_path_in_order(tmp_path, monkeypatch):
    python, _site = make_venv(tmp_path / "env")
    other = tmp_path / "other"
    other.mkdir()
    (other / "python3").write_text("#!/bin/sh\nexit 0\n")
    (other / "python3").chmod(0o755)
    (other / "python").write_text("not executable\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(other), str(python.parent), "/usr/bin"]))
    snap = gather_static(str(python))
    assert snap.target.ok, snap.target
    found = [(p.path, p.is_target) for p in snap.shell.pythons_on_path]
    assert found[0] == (str(other / "python3"), False)  # what a new terminal's python3 runs
    assert (str(python.parent / "python3"), True) in found
    assert (str(python.parent / "python"), True) in found
    assert str(other / "python") not in [p for p, _ in found]


# --- conda's records ------------------------------------------------------------------------------

APPLE_TF_DEPS = {"name": "tensorflow-deps", "version": "2.10.0", "build": "0",
                 "channel": "https://conda.anaconda.org/apple/osx-arm64", "subdir": "osx-arm64"}
"""The apple channel's tensorflow-deps, which Apple's instructions installed with `conda install
-c apple tensorflow-deps` (developer.apple.com/metal/tensorflow-plugin/, as quoted in
forums.developer.apple.com replies), as conda-meta records a package: name, version, build, the
channel URL with its subdir. It has no dist-info, so only this record shows it."""


def test_conda_records_are_read(tmp_path):
    python, _site = make_venv(tmp_path / "env")
    meta = tmp_path / "env" / "conda-meta"
    meta.mkdir()
    (meta / "tensorflow-deps-2.10.0-0.json").write_text(json.dumps(APPLE_TF_DEPS))
    (meta / "python-3.10.13-h0.json").write_text(json.dumps(
        {"name": "python", "version": "3.10.13", "build": "h0", "subdir": "osx-64",
         "channel": "https://conda.anaconda.org/t/tk-0123456789/private/osx-64"}))
    (meta / "broken-1.0-0.json").write_text("{not json")
    (meta / "history").write_text("==> 2024-01-01 <==\n")
    snap = gather_static(str(python))
    assert snap.target.ok, snap.target
    conda = snap.python.conda
    assert conda.subdir == "osx-64"  # from the python record, as before
    by_name = {p.name: p for p in conda.packages}
    deps = by_name["tensorflow-deps"]
    assert (deps.version, deps.build, deps.subdir) == ("2.10.0", "0", "osx-arm64")
    assert deps.channel == "https://conda.anaconda.org/apple/osx-arm64"
    assert by_name["python"].channel == "https://conda.anaconda.org/t/<token>/private/osx-64"
    assert [e.what for e in snap.errors] == ["conda"] and "broken-1.0-0.json" in snap.errors[0].error


# --- which environment is diagnosed ---------------------------------------------------------------


@pytest.fixture
def tool_prefix(tmp_path) -> Path:
    """An isolated tool environment as pipx leaves it: pipx_metadata.json at its root
    (pypa/pipx src/pipx/pipx_metadata_file.py, PIPX_INFO_FILENAME)."""
    prefix = tmp_path / "pipx" / "venvs" / "tfdoctor"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "python3").symlink_to(sys.executable)
    (prefix / "pipx_metadata.json").write_text('{"pipx_metadata_version": "0.5"}')
    return prefix


def env_dir(root: Path) -> Path:
    (root / "bin").mkdir(parents=True)
    shutil.copy("/bin/true", root / "bin" / "python")
    return root


def test_plain_install_diagnoses_the_active_venv_else_itself(tmp_path):
    """Issue 21 item 1: the active environment wherever tfdoctor is installed; with none
    active (or the active one being tfdoctor's own), tfdoctor's own interpreter."""
    venv = env_dir(tmp_path / "venv")
    target = choose_target(None, {"VIRTUAL_ENV": str(venv)}, prefix=str(tmp_path / "own"),
                           executable=sys.executable)
    assert (target.executable, target.chosen_by, target.tool_env) == (
        str(venv / "bin" / "python"), "VIRTUAL_ENV", None)
    assert target.reason.startswith(f"VIRTUAL_ENV={venv} is active")
    alone = choose_target(None, {}, prefix=str(tmp_path), executable=sys.executable)
    assert (alone.executable, alone.chosen_by, alone.tool_env) == (
        sys.executable, "this interpreter", None)
    assert "no VIRTUAL_ENV or CONDA_PREFIX is active" in alone.reason
    itself = choose_target(None, {"VIRTUAL_ENV": str(tmp_path)}, prefix=str(tmp_path),
                           executable=sys.executable)
    assert (itself.executable, itself.chosen_by) == (sys.executable, "VIRTUAL_ENV")
    stale = choose_target(None, {"VIRTUAL_ENV": str(tmp_path / "gone")}, prefix=str(tmp_path),
                          executable=sys.executable)
    assert stale.executable == sys.executable and "has no bin/python" in stale.reason


def test_pipx_install_diagnoses_the_active_venv(tmp_path, tool_prefix):
    venv = env_dir(tmp_path / "venv")
    conda = env_dir(tmp_path / "conda")
    own = str(tool_prefix / "bin" / "python3")
    target = choose_target(None, {"VIRTUAL_ENV": str(venv), "CONDA_PREFIX": str(conda)},
                           prefix=str(tool_prefix), executable=own)
    assert (target.executable, target.chosen_by) == (str(venv / "bin" / "python"), "VIRTUAL_ENV")
    assert target.tool_env == "pipx" and target.tool_python == own
    assert "pipx" in target.reason and str(venv) in target.reason
    target = choose_target(None, {"CONDA_PREFIX": str(conda)}, prefix=str(tool_prefix), executable=own)
    assert (target.executable, target.chosen_by) == (str(conda / "bin" / "python"), "CONDA_PREFIX")


def test_uv_tool_install_falls_back_to_path_outside_itself(tmp_path):
    prefix = tmp_path / "uv" / "tools" / "tfdoctor"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "python3").symlink_to(sys.executable)
    (prefix / "uv-receipt.toml").write_text('[tool]\nrequirements = [{ name = "tfdoctor" }]\n')
    elsewhere = env_dir(tmp_path / "usr")
    shutil.copy("/bin/true", elsewhere / "bin" / "python3")
    environ = {"PATH": os.pathsep.join([str(prefix / "bin"), str(elsewhere / "bin")]),
               "VIRTUAL_ENV": str(prefix)}  # its own prefix is never "the active venv"
    target = choose_target(None, environ, prefix=str(prefix), executable=str(prefix / "bin" / "python3"))
    assert (target.executable, target.chosen_by, target.tool_env) == (
        str(elsewhere / "bin" / "python3"), "PATH", "uv tool")
    nothing = choose_target(None, {"PATH": str(prefix / "bin")}, prefix=str(prefix),
                            executable=str(prefix / "bin" / "python3"))
    assert nothing.chosen_by == "this interpreter" and nothing.tool_env == "uv tool"


def _venv_with_requested(prefix: Path, *names: str) -> Path:
    """A venv as `python -m venv` and pip leave it: pyvenv.cfg, and a REQUESTED marker in the
    dist-info of each distribution asked for (ensurepip marks pip itself)."""
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "python3").symlink_to(sys.executable)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
    site = prefix / "lib" / "python3.11" / "site-packages"
    for name in ("pip", *names):
        info = site / f"{name.replace('-', '_')}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "REQUESTED").write_text("")
    (site / "typer-0.28.0.dist-info").mkdir()  # a dependency: not requested
    return prefix


def test_a_venv_made_for_tfdoctor_alone_is_a_tool_environment(tmp_path):
    """The README's `.tfdoctor`: with nothing active, tfdoctor diagnoses the first python3 on
    PATH outside it and says so, never prescribing installs into its own venv."""
    own = _venv_with_requested(tmp_path / ".tfdoctor", "tfdoctor")
    elsewhere = env_dir(tmp_path / "usr")
    shutil.copy("/bin/true", elsewhere / "bin" / "python3")
    environ = {"PATH": os.pathsep.join([str(own / "bin"), str(elsewhere / "bin")])}
    target = choose_target(None, environ, prefix=str(own), executable=str(own / "bin" / "python3"))
    assert (target.executable, target.chosen_by, target.tool_env) == (
        str(elsewhere / "bin" / "python3"), "PATH", "venv")
    assert "only tfdoctor was installed into it" in target.reason and "--python" in target.reason
    # a venv where the user asked for more than tfdoctor is theirs: it is diagnosed
    work = _venv_with_requested(tmp_path / "work", "tfdoctor", "tensorflow-cpu")
    mine = choose_target(None, environ, prefix=str(work), executable=str(work / "bin" / "python3"))
    assert (mine.chosen_by, mine.tool_env) == ("this interpreter", None)


def test_explicit_python_wins(tmp_path, tool_prefix):
    venv = env_dir(tmp_path / "venv")
    target = choose_target(str(venv), {"VIRTUAL_ENV": "/elsewhere"}, prefix=str(tool_prefix))
    assert (target.executable, target.chosen_by) == (str(venv / "bin" / "python"), "--python")


def test_fixes_never_install_into_tfdoctors_own_environment(tool_prefix):
    own = str(tool_prefix / "bin" / "python3")
    python = PythonFacts(version="3.11.7", implementation="cpython", executable=own)
    alone = Snapshot(target=TargetOutcome(own, True, chosen_by="this interpreter", tool_env="pipx",
                                          tool_python=own), python=python)
    assert python_cmd(alone) == "python3"
    assert pip(alone, "install", "tensorflow") == "python3 -m pip install -- tensorflow"
    venv_python = PythonFacts(version="3.11.7", implementation="cpython",
                              executable="/Users/ada/venvs/tf/bin/python")
    chosen = Snapshot(target=TargetOutcome("/Users/ada/venvs/tf/bin/python", True,
                                           chosen_by="VIRTUAL_ENV", tool_env="pipx", tool_python=own),
                      python=venv_python)
    assert python_cmd(chosen) == "/Users/ada/venvs/tf/bin/python"


# --- every plugin TensorFlow would load ------------------------------------------------------------


def test_plugins_from_the_user_site_and_the_environment_variable(tmp_path, monkeypatch):
    """TensorFlow scans the user scheme's site-packages even inside a venv (tensorflow/__init__.py
    2.19 loops over every sysconfig scheme), and loads what TF_PLUGGABLE_DEVICE_LIBRARY_PATH
    names: the static facts list both, with where each came from."""
    python, _site = make_venv(tmp_path / "env")
    userbase = tmp_path / "userbase"
    minor = "python%d.%d" % sys.version_info[:2]
    user_plugins = userbase / "lib" / minor / "site-packages" / "tensorflow-plugins"
    user_plugins.mkdir(parents=True)
    shutil.copy("/bin/true", user_plugins / "libstale_user_plugin.so")
    configured = tmp_path / "configured"
    configured.mkdir()
    shutil.copy("/bin/true", configured / "libconfigured.so")
    monkeypatch.setenv("PYTHONUSERBASE", str(userbase))
    monkeypatch.setenv("TF_PLUGGABLE_DEVICE_LIBRARY_PATH", str(configured))
    snap = gather_static(str(python))
    found = {(p.dir, p.name): p.source for p in snap.plugins}
    assert found[(str(user_plugins), "libstale_user_plugin.so")] == "tensorflow-plugins"
    assert found[(str(configured), "libconfigured.so")] == "TF_PLUGGABLE_DEVICE_LIBRARY_PATH"
    assert snap.env["TF_PLUGGABLE_DEVICE_LIBRARY_PATH"] == str(configured)
