"""The command line as users and scripts drive it: exit codes, formats, selection, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import assert_no_traceback, run_tfdoctor
from gather.test_collector import add_dist, make_venv

from tfdoctor.render.schemas import SCHEMAS

pytestmark = pytest.mark.slow  # a tfdoctor subprocess per test

SCENARIO = Path(__file__).parents[1] / "scenarios" / "rosetta_homebrew_usr_local.json"

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "tfdoctor" / "schemas"
STATIC = ("--no-runtime", "--no-probes")


@pytest.fixture(scope="module")
def healthy_env(tmp_path_factory):
    """A Linux venv whose metadata says tensorflow-cpu is installed (static checks read only
    metadata, so no TensorFlow is needed for them)."""
    root = tmp_path_factory.mktemp("healthy") / "env"
    python, site = make_venv(root)
    add_dist(site, "tensorflow-cpu", "2.19.1", tags=("cp311-cp311-manylinux_2_17_x86_64",))
    return python


def test_healthy_static_check_exits_0(healthy_env):
    run = run_tfdoctor("check", "--python", str(healthy_env), *STATIC)
    assert run.code == 0, run.stdout + run.stderr
    assert "[✓] TensorFlow installation: tensorflow-cpu 2.19.1" in run.stdout
    assert "no problems found" in run.stdout
    assert "\x1b[" not in run.stdout  # plain output when not a terminal
    areas = [line.split("]", 1)[1].split(":")[0].strip() for line in run.stdout.splitlines()
             if line.startswith("[")]
    # in the order facts flow: the interpreter, its architecture, what is installed, how it fits
    assert areas[:3] == ["Interpreter", "Python architecture", "TensorFlow installation"]


def test_json_output_is_only_json_and_matches_schema(healthy_env):
    run = run_tfdoctor("check", "--python", str(healthy_env), "--json", *STATIC)
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, json.loads((SCHEMA_DIR / "report.schema.json").read_text()))
    assert doc["exit_code"] == run.code == 0
    assert doc["snapshot"]["python"]["executable"] == str(healthy_env)
    assert {a["check"] for a in doc["areas"]} >= {"arch", "install", "target"}


def test_shipped_schemas_are_generated_from_the_model():
    for name, make in SCHEMAS.items():
        assert json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text()) == make(), name


def test_problem_exits_1_and_leads_with_diagnosis(tmp_path):
    python, _ = make_venv(tmp_path / "env")
    run = run_tfdoctor("check", "--python", str(python), *STATIC)
    assert run.code == 1
    first_lines = run.stdout.splitlines()[:6]  # the first line may wrap at 80 columns
    assert any(line.startswith("Diagnosis: TensorFlow is not installed (install.no-tensorflow)") for line in first_lines)
    assert f"$ {python} -m pip install -- tensorflow" in run.stdout


def test_fail_on_warning(tmp_path):
    python, site = make_venv(tmp_path / "env")
    add_dist(site, "tensorflow-cpu", "2.19.1")
    add_dist(site, "broken", "1.0", metadata=False)
    assert run_tfdoctor("check", "--python", str(python), *STATIC).code == 0
    run = run_tfdoctor("check", "--python", str(python), "--fail-on", "warning", *STATIC)
    assert run.code == 1 and "target.corrupt-metadata" in run.stdout


def test_markdown_redacts_home(tmp_path):
    home = tmp_path / "home" / "grace"
    python, site = make_venv(home / "venvs" / "tf")
    add_dist(site, "tensorflow-cpu", "2.19.1")
    run = run_tfdoctor("check", "--python", str(python), "--format", "markdown", *STATIC,
                       env={"HOME": str(home), "USER": "grace", "LOGNAME": "grace"})
    assert run.code == 0
    assert "~/venvs/tf/bin/python" in run.stdout
    assert str(home) not in run.stdout and "grace" not in run.stdout
    assert run.stdout.startswith("## tfdoctor")


def test_only_and_skip(healthy_env):
    run = run_tfdoctor("check", "--python", str(healthy_env), "--only", "arch", "--json", *STATIC)
    assert {f["check"] for f in json.loads(run.stdout)["findings"]} == {"arch"}
    run = run_tfdoctor("check", "--python", str(healthy_env), "--skip", "arch", "--json", *STATIC)
    assert "arch" not in {f["check"] for f in json.loads(run.stdout)["findings"]}
    # one rule by its code; tfdoctor 0.1's check names still work
    run = run_tfdoctor("check", "--python", str(healthy_env), "--only", "arch.binaries-match", "--json", *STATIC)
    assert [f["code"] for f in json.loads(run.stdout)["findings"]] == ["arch.binaries-match"]
    run = run_tfdoctor("check", "--python", str(healthy_env), "--only", "installation", "--json", *STATIC)
    assert {f["check"] for f in json.loads(run.stdout)["findings"]} == {"install"}
    bad = run_tfdoctor("check", "--only", "archh", *STATIC)
    assert bad.code == 2 and "unknown area or rule archh" in bad.stderr and "did you mean arch" in bad.stderr


@pytest.mark.parametrize("args", [("explain", "[/x]"), ("diagnose", "[/x]"), ("check", "--only", "[/x]"),
                                  ("check", "--python", "[bold]x")])
def test_markup_like_input_is_printed_not_interpreted(args):
    """rich would read "[/x]" as a closing tag and raise: user text is escaped everywhere."""
    run = run_tfdoctor(*args, "--no-runtime") if args[0] == "check" else run_tfdoctor(*args)
    assert run.code == 2 and args[-1] in run.stderr
    assert_no_traceback(run)


@pytest.mark.parametrize("arg", ["/nonexistent/python", str(Path(__file__))])
def test_unusable_python_argument_is_usage_error(arg):
    run = run_tfdoctor("check", "--python", arg, *STATIC)
    assert run.code == 2
    assert "--python" in run.stderr
    assert_no_traceback(run)


def test_crashing_interpreter_is_a_finding(tmp_path):
    """The finding says why, and exit 2 says nothing of the interpreter was diagnosed (issue 28)."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'dyld: Library not loaded' >&2\nkill -ABRT $$\n")
    fake.chmod(0o755)
    run = run_tfdoctor("check", "--python", str(fake), "--json", *STATIC)
    doc = json.loads(run.stdout)
    assert run.code == 2 and doc["exit_code"] == 2
    assert doc["diagnosis"]["code"] == "target.unusable"
    assert "SIGABRT" in doc["diagnosis"]["title"]
    assert "Library not loaded" in doc["diagnosis"]["evidence"]["stderr_tail"]
    assert_no_traceback(run)


def test_list_checks_and_explain():
    listed = json.loads(run_tfdoctor("list-checks", "--json").stdout)
    names = {c["name"] for c in listed["checks"]}
    assert {"arch", "install", "compat", "runtime", "probe", "target"} <= names
    run = run_tfdoctor("explain", "arch.rosetta")
    assert run.code == 0 and "Rosetta" in run.stdout and "Fix:" in run.stdout
    assert "log.pip-no-matching-distribution" in " ".join(run.stdout.split())  # what it is the cause of
    typo = run_tfdoctor("explain", "arch.roseta")
    assert typo.code == 2 and "did you mean arch.rosetta" in typo.stderr


def test_explain_says_whether_a_step_of_fix_answers_the_code():
    """A support script asks explain --json whether `tfdoctor fix` can answer a finding; the
    answer is the rule's own declaration (fix_answer=), for every code."""
    from tfdoctor.engine.registry import load_registry

    declared = {rule.code: rule.doc.fix_answer for rule in load_registry().rules}
    for code in ("arch.rosetta", "compat.tf-metal-mismatch", "log.illegal-instruction", "probe.gpu-slower"):
        doc = json.loads(run_tfdoctor("explain", code, "--json").stdout)
        assert doc["fix_answer"] == {"answered": declared[code].answered, "how": declared[code].how}
        text = " ".join(run_tfdoctor("explain", code).stdout.split())
        verdict = "a step answers it" if declared[code].answered else "no step answers it"
        assert f"tfdoctor fix: {verdict}: {declared[code].how}" in text
    assert json.loads(run_tfdoctor("explain", "lint.no-prefetch", "--json").stdout)["fix_answer"] is None


def test_every_listed_code_is_explained():
    """Every code `list-checks` prints (read from the real command) is explained by `explain`,
    run in this process: the 136 codes cost a process start each otherwise."""
    from typer.testing import CliRunner

    from tfdoctor.cli.main import load_app

    listed = json.loads(run_tfdoctor("list-checks", "--json").stdout)
    app, runner = load_app(), CliRunner()
    codes = [code for check in listed["checks"] for code in check["codes"]]
    assert len(codes) > 100
    for code in codes:
        shown = runner.invoke(app, ["explain", code])
        assert shown.exit_code == 0 and code in shown.output, code


def test_internal_failure_exits_3_without_traceback(monkeypatch, capsys):
    import tfdoctor.gather.static
    from tfdoctor.cli import main

    def broken(python, timeout=None):
        raise RuntimeError("simulated bug in tfdoctor")

    monkeypatch.setattr(tfdoctor.gather.static, "gather_static", broken)
    monkeypatch.setattr(sys, "argv", ["tfdoctor", "check", "--no-runtime"])
    with pytest.raises(SystemExit) as exit_info:
        main.main()
    assert exit_info.value.code == 3
    err = capsys.readouterr().err
    assert "simulated bug in tfdoctor" in err and "Traceback" not in err
    monkeypatch.setattr(sys, "argv", ["tfdoctor", "check", "--no-runtime", "--debug"])
    with pytest.raises(SystemExit):
        main.main()
    assert "Traceback" in capsys.readouterr().err


def test_cli_import_does_not_import_tensorflow_or_numpy():
    code = ("import sys, tfdoctor.cli.main, tfdoctor.gather.static, tfdoctor.engine.diagnose, tfdoctor.engine.registry;"
            "tfdoctor.engine.registry.load_registry();"
            "bad = [m for m in ('tensorflow', 'numpy') if m in sys.modules];"
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_version_and_help():
    assert run_tfdoctor("--version").stdout.startswith("tfdoctor ")
    help_text = run_tfdoctor("--help").stdout
    for command in ("check", "list-checks", "explain"):
        assert command in help_text


def test_missing_builtin_rules_are_tfdoctors_own_failure(monkeypatch, capsys):
    """A built-in rule module that cannot be loaded is exit 3 with a clear line, never a silent
    all-clear (tfdoctor 0.1 ran from a checkout found no built-in checks and exited 0)."""
    import tfdoctor.checks

    from tfdoctor.cli import main

    monkeypatch.setattr(tfdoctor.checks, "BUILTIN_MODULES", (*tfdoctor.checks.BUILTIN_MODULES, "lost_rules"))
    monkeypatch.setattr(sys, "argv", ["tfdoctor", "diagnose", str(SCENARIO)])
    with pytest.raises(SystemExit) as exit_:
        main.main()
    err = capsys.readouterr().err
    assert exit_.value.code == 3
    assert "built-in rules could not be loaded" in err and "lost_rules" in err and "Traceback" not in err


# --- the static collector started before the command line is parsed (tfdoctor.cli.main) ------


@pytest.mark.parametrize("argv, expected", [
    (["check", "--no-runtime", "--no-probes", "--python", "/x/py"], ("/x/py", 60.0)),
    (["check", "--python=/x/py", "--timeout", "5", "--json", "-v", "--only", "arch"], ("/x/py", 5.0)),
    (["collect", "-o", "-", "--timeout=12.5"], (None, 12.5)),
    (["check"], (None, 60.0)),
    (["check", "--help"], None),                 # help runs nothing
    (["check", "-h"], None),
    (["check", "--python"], None),               # typer says what is missing
    (["check", "--timeout", "nan"], None),       # typer rejects it
    (["check", "--timeout", "0.5"], None),
    (["check", "--unknown"], None),
    (["check", "extra-argument"], None),
    (["diagnose", "snap.json"], None),           # gathers nothing
    (["--version"], None),
    ([], None),
])
def test_early_start_reads_only_what_it_is_sure_of(argv, expected):
    from tfdoctor.cli.main import early_request

    assert early_request(argv) == expected


def test_check_runs_the_collector_once(tmp_path):
    """The collection started early is adopted by the real parse, not run a second time: a
    .pth file of the diagnosed venv records the process ids of the interpreters started with
    site enabled (the collector's; the Python check runs with -S; a venv's lib64 link makes
    site read the file twice in one process)."""
    python, site = make_venv(tmp_path / "env")
    add_dist(site, "tensorflow-cpu", "2.19.1", tags=("cp311-cp311-manylinux_2_17_x86_64",))
    starts = tmp_path / "starts"
    (site / "count.pth").write_text(f"import os; open({str(starts)!r}, 'a').write('%d\\n' % os.getpid())\n")
    run = run_tfdoctor("check", "--python", str(python), *STATIC)
    assert run.code == 0, run.stdout + run.stderr
    assert len(set(starts.read_text().split())) == 1
    starts.unlink()
    run = run_tfdoctor("check", "--python", str(python), "--timeout", "30", "--json", *STATIC)
    assert run.code == 0 and json.loads(run.stdout)["snapshot"]["python"]["executable"] == str(python)
    assert len(set(starts.read_text().split())) == 1


def test_commands_stay_in_order():
    """`--help` lists the commands in the order of tfdoctor.cli.main.COMMAND_MODULES."""
    from tfdoctor.cli import main

    app = main.load_app()
    names = [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]
    assert names == ["check", "collect", "diagnose", "schema", "probe", "lint", "ops", "run", "triage",
                     "list-checks", "explain", "matrix", "fix"]


def test_plugin_scan_is_skipped_only_when_no_plugin_can_exist(tmp_path):
    """importlib.metadata is imported only when some distribution may declare a
    `tfdoctor.checks` entry point (tfdoctor.engine.registry.may_have_plugins)."""
    from importlib.metadata import entry_points

    from tfdoctor.engine.registry import may_have_plugins

    if not may_have_plugins():  # the shortcut never hides a real plugin
        assert list(entry_points(group="tfdoctor.checks")) == []
    other = tmp_path / "other-1.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    assert may_have_plugins([str(tmp_path), str(tmp_path / "missing")]) is False
    plugin = tmp_path / "Mine-1.0.DIST-INFO"
    plugin.mkdir()
    (plugin / "entry_points.txt").write_text("[tfdoctor.checks]\nmine = mine:RULES\n")
    assert may_have_plugins([str(tmp_path)]) is True
    (tmp_path / "bundle.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    assert may_have_plugins([str(tmp_path / "bundle.zip")]) is True


def test_shell_completion_completes_explain_codes():
    """Issue 21 item 10: the shell completes `tfdoctor explain` with finding and lint codes, through
    typer's own completion protocol (what `tfdoctor --install-completion` wires into the shell)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "_TFDOCTOR_COMPLETE": "complete_bash", "COMP_WORDS": "tfdoctor explain arch.ros",
           "COMP_CWORD": "2"}
    from pathlib import Path

    script = Path(sys.executable).parent / "tfdoctor"  # the console script: its name keys the protocol
    run = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert "arch.rosetta" in run.stdout.split() and "Traceback" not in run.stderr
    from tfdoctor.cli.info import complete_codes

    assert "lint.xla-on-metal" in complete_codes("lint.xla")


@pytest.mark.parametrize("given", ["file", "stdin"])
def test_diagnose_of_a_reports_snapshot_reads_what_it_does_not_know_from_the_log(tmp_path, given):
    """A snapshot built from a report's fields knows no Python architecture; the pasted text sets
    CONDA_SUBDIR=osx-64 (DeepLabCut's M1 instructions): diagnose --log settles it from there,
    from a file or from standard input, which can be read only once."""
    from tfdoctor.triage.facts import read_report
    from tfdoctor.triage.snapshot import to_snapshot

    snap = tmp_path / "snap.json"
    snap.write_text(json.dumps(to_snapshot(read_report("MacBook Pro M2, macOS 13.0.1")).to_dict()))
    posted = "5. `conda activate DEEPLABCUT_M1`\n`conda env config vars set CONDA_SUBDIR=osx-64`\n"
    text = tmp_path / "posted.txt"
    text.write_text(posted)
    if given == "file":
        result = run_tfdoctor("diagnose", str(snap), "--log", str(text), "--json")
    else:
        result = run_tfdoctor("diagnose", str(snap), "--log", "-", "--json", stdin=posted)
    assert json.loads(result.stdout)["diagnosis"]["code"] == "arch.conda-osx-64"
    alone = run_tfdoctor("diagnose", str(snap), "--json")
    assert (json.loads(alone.stdout)["diagnosis"] or {}).get("code") != "arch.conda-osx-64"
