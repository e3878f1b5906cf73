"""Hostile target environments (issue 15), made for real in throwaway venvs: a start-up that
hangs, a FIFO or a directory in tensorflow-plugins/, Terraform's TF_* secrets in the
environment, a `--python` that is not a Python (or deletes what it is given), unusable
`--python` names, and no usable temporary directory."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import assert_no_traceback, run_tfdoctor

from gather.test_collector import make_venv
from tfdoctor.gather.static import INSIDE, TargetNotFound, gather_static
from tfdoctor.inside.collector import core

HANG = "import time; time.sleep(120)\n"


@pytest.mark.slow  # waits out a start-up that hangs, twice
@pytest.mark.parametrize("where", ["sitecustomize.py", "hang.pth"])
def test_hanging_startup_honours_the_timeout(tmp_path, monkeypatch, where):
    """A sitecustomize.py or a .pth line that sleeps: stopped at the timeout given (not 30 s;
    had tfdoctor waited, the collector would have run after the sleep), and told apart from a
    hang in the collector (started is false). The sitecustomize.py is on PYTHONPATH, as
    coverage's and IDE debuggers' are: in a venv's site-packages, the system Python's own
    (Debian's /usr/lib/python3.X/sitecustomize.py) would be imported instead."""
    python, folder = make_venv(tmp_path / "env")
    if where == "sitecustomize.py":
        folder = tmp_path / "hooks"
        folder.mkdir()
        monkeypatch.setenv("PYTHONPATH", str(folder))
    (folder / where).write_text(HANG)
    snap = gather_static(str(python), timeout=3)
    assert snap.target.problem == "timeout" and snap.target.started is False
    assert "start-up" in snap.target.message and "3 s" in snap.target.message


def test_fifo_and_directory_in_plugins_dir(tmp_path):
    """Neither is opened (a FIFO without a writer would block the collector for good); both are
    recorded as not-a-file entries TensorFlow would try to load."""
    python, site = make_venv(tmp_path / "env")
    plugins = site / "tensorflow-plugins"
    plugins.mkdir()
    os.mkfifo(plugins / "libfifo.so")
    (plugins / "libx.so").mkdir()
    shutil.copy("/bin/true", plugins / "libreal.so")
    (plugins / "README.txt").write_text("not a library")
    snap = gather_static(str(python), timeout=20)
    assert snap.target.ok, snap.target
    by_name = {p.name: p for p in snap.plugins}
    fifo, directory, real = by_name["libfifo.so"], by_name["libx.so"], by_name["libreal.so"]
    assert (fifo.kind, fifo.file_type, fifo.format) == ("not-a-file", "fifo", None)
    assert (directory.kind, directory.file_type) == ("not-a-file", "directory")
    assert fifo.loaded_by_tensorflow and directory.loaded_by_tensorflow
    assert (real.kind, real.format, real.size) == ("file", "elf", os.path.getsize("/bin/true"))
    assert by_name["README.txt"].loaded_by_tensorflow is False


def test_fifos_in_dist_info_and_record_do_not_block(tmp_path):
    """A METADATA that is a FIFO and a RECORD-listed library that is one: skipped, not read."""
    python, site = make_venv(tmp_path / "env")
    dist = site / "odd-1.0.dist-info"
    dist.mkdir()
    os.mkfifo(dist / "METADATA")
    (dist / "RECORD").write_text("odd/_ext.so,,\n")
    (site / "odd").mkdir()
    os.mkfifo(site / "odd" / "_ext.so")
    snap = gather_static(str(python), timeout=20)
    odd = snap.package("odd")
    assert odd.error == "METADATA missing or unreadable" and odd.version == "1.0"
    assert odd.binaries[0].format is None and "not a regular file" in odd.binaries[0].error


def test_terraform_variables_and_url_passwords_are_never_captured(tmp_path, monkeypatch):
    """issue 15: TF_VAR_db_password and TF_TOKEN_app_terraform_io appeared in snapshots."""
    monkeypatch.setenv("TF_VAR_db_password", "hunter2-var")
    monkeypatch.setenv("TF_TOKEN_app_terraform_io", "hunter2-token")
    monkeypatch.setenv("TF_CLI_ARGS", "-no-color")
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "1")
    monkeypatch.setenv("KERAS_HOME", "https://ada:hunter2-url@example.com/keras")
    snap = gather_static(None)
    assert snap.target.ok, snap.target
    assert snap.env["TF_CPP_MIN_LOG_LEVEL"] == "1"
    assert snap.env["KERAS_HOME"] == "https://ada@example.com/keras"
    assert not any(name.startswith(("TF_VAR_", "TF_TOKEN_", "TF_CLI_")) for name in snap.env)
    assert "hunter2" not in json.dumps(snap.to_dict())


def test_capture_env_is_an_allowlist():
    environ = {"TF_VAR_db_password": "x", "TF_TOKEN_app_terraform_io": "y", "TF_FOO": "z",
               "AWS_SECRET_ACCESS_KEY": "s", "DYLD_LIBRARY_PATH": "/opt/lib",
               "TF_USE_LEGACY_KERAS": "1", "HOME": "/Users/ada"}
    assert core.capture_env(environ) == {"DYLD_LIBRARY_PATH": "/opt/lib", "TF_USE_LEGACY_KERAS": "1"}
    assert not [name for name in core.ENV_ALLOWLIST if core.looks_like_credential(name)]
    assert core.scrub_value("https://conda.anaconda.org/t/tk-123-abc/apple/osx-arm64") == \
        "https://conda.anaconda.org/t/<token>/apple/osx-arm64"


# --- a --python that is not a Python ---------------------------------------------------------------


def test_rm_as_python_deletes_nothing_of_ours():
    """`--python rm` used to receive the collector's path and delete it."""
    before = sorted(p.name for p in INSIDE.rglob("*.py"))
    snap = gather_static("rm")
    assert snap.target.problem == "not-python"
    assert sorted(p.name for p in INSIDE.rglob("*.py")) == before


def test_a_python_older_than_38_is_told_apart(tmp_path):
    """No Python 3.7 exists here: a script answers the check as a 3.7.17 would."""
    old = tmp_path / "python3.7"
    old.write_text('#!/bin/sh\necho "tfdoctor-python-check:3.7.17"\n')
    old.chmod(0o755)
    snap = gather_static(str(old))
    assert snap.target.problem == "unsupported-python"
    assert snap.target.message == "Python 3.7.17 is older than 3.8, the oldest tfdoctor can examine"


def test_a_python_that_deletes_its_script_gets_a_private_copy(tmp_path):
    """A wrapper that answers the `-c` check as a Python, then deletes the script it is given:
    it only ever sees a private copy, so tfdoctor's own collector stays."""
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\ncase "$1" in -s) exec {sys.executable} "$@";; esac\n'
                       'rm -f "$1"\necho "deleted $1" >&2\n')
    wrapper.chmod(0o755)
    snap = gather_static(str(wrapper))
    assert snap.target.problem == "no-output" and snap.target.started is False
    deleted = snap.target.stderr_tail.split("deleted ", 1)[1].strip()
    assert deleted.endswith("collector/__main__.py") and Path(deleted).parent != INSIDE / "collector"
    assert (INSIDE / "collector" / "__main__.py").is_file()
    assert not Path(deleted).parent.exists()  # the private copy is removed too


def test_a_child_that_removes_the_temp_dir_is_not_called_unstartable(tmp_path):
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\ncase "$1" in -s) exec {sys.executable} "$@";; esac\n'
                       'rm -rf "$(dirname "$2")"\n')
    wrapper.chmod(0o755)
    snap = gather_static(str(wrapper))  # no TargetNotFound: it did start
    assert not snap.target.ok
    assert snap.target.problem in ("temp-dir", "no-output"), snap.target
    assert "cannot be started" not in snap.target.message


def test_site_code_that_removes_the_temp_dir_is_told_apart(tmp_path):
    """A .pth line that deletes the directory of the collector's result file: the collector
    says so (RESULT_LOST) and the problem is tfdoctor's temporary directory."""
    python, site = make_venv(tmp_path / "env")
    (site / "zap.pth").write_text(
        "import os, shutil, sys; len(sys.argv) > 1 and sys.argv[1].endswith('result.json') "
        "and shutil.rmtree(os.path.dirname(sys.argv[1]), ignore_errors=True)\n")
    snap = gather_static(str(python))
    assert snap.target.problem == "temp-dir" and snap.target.started is True, snap.target
    assert "temporary directory was removed" in snap.target.message


def test_no_usable_temp_dir_is_not_blamed_on_the_interpreter(tmp_path, monkeypatch):
    """tempfile finds no directory it can create files in (here: its directory is gone)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    snap = gather_static(None)
    assert snap.target.problem == "temp-dir"
    assert "temporary directory" in snap.target.message and "FileNotFoundError" in snap.target.message


@pytest.mark.parametrize("name", ["~nosuchuser-tfdoctor/bin/python", "p" * 300,
                                  "/tmp/" + "d" * 300 + "/python", "bad\0name"])
def test_unusable_python_names_are_usage_errors(name):
    with pytest.raises(TargetNotFound):
        gather_static(name)


@pytest.mark.parametrize("name", ["~nosuchuser-tfdoctor/bin/python", "p" * 300])
def test_unusable_python_names_exit_2(name):
    run = run_tfdoctor("check", "--python", name, "--no-runtime", "--no-probes")
    assert_no_traceback(run)
    assert run.code == 2, run.stderr


def test_rm_as_python_is_a_finding_not_a_deletion():
    run = run_tfdoctor("check", "--python", "rm", "--no-runtime", "--no-probes", "--json")
    assert_no_traceback(run)
    assert run.code == 2  # rm could not answer: nothing was diagnosed (issue 28)
    target = json.loads(run.stdout)["snapshot"]["target"]
    assert target["problem"] == "not-python" and target["chosen_by"] == "--python"
    assert (INSIDE / "collector" / "__main__.py").is_file()


def test_runtime_child_that_removes_the_temp_dir_is_not_called_unstartable(tmp_path):
    """A `tensorflow` package whose import deletes the directory of the child's result file
    (and of the script it runs): the interpreter did start, so never "not-started"."""
    from tfdoctor.gather.runtime import gather_runtime

    python, site = make_venv(tmp_path / "env")
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(
        "import os, shutil, sys\n"
        "shutil.rmtree(os.path.dirname(sys.argv[1]), ignore_errors=True)\n"
        "shutil.rmtree(os.path.dirname(os.path.abspath(sys.argv[0])), ignore_errors=True)\n")
    facts = gather_runtime(str(python), timeout=30)
    assert facts.outcome == "temp-dir", facts
    assert "temporary directory was removed while the child ran" in facts.message
    assert (INSIDE / "runtime" / "__main__.py").is_file()
