"""Issue 22 class 7: a fuzz test over every command, not only `check` and `diagnose`.

Odd arguments for every command (options read from the typer app, as in hostile/test_fuzz.py; the cheap
form of each command: `check --no-runtime --no-probes`, `run` with a harmless command, `fix
--dry-run`, live or with `--snapshot`); snapshot documents mutated from a real `tfdoctor collect
-o -` (keys dropped, wrong types, huge numbers, NaN, odd unicode, deep nesting) fed to `diagnose`
and `fix --snapshot`; pasted logs (random bytes, ANSI, huge lines) fed to `check --log`; scripts
and notebooks (random text, broken JSON) fed to `lint`; reports as posted (pastes, JSON Lines)
fed to `triage`; live `fix --dry-run` plans for odd interpreters and environment paths.

The property, whatever the input (`problems`): exit code 0, 1 or 2; no traceback in the output
and no exception escaping the command (exit 3, tfdoctor's own failure); under --json, stdout is
valid JSON (empty is allowed only with exit 2); every invocation ends within HANG_S seconds
(SIGALRM, in process). Derandomized: the same examples every run, about 30 per target.
benchmarks/fuzz_long.py runs the same targets for minutes with random seeds.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import re
import signal
import sys
import time
import threading
import typing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from hostile.test_fuzz import HOSTILE_TEXT, command_params, values_for
from tfdoctor.cli.main import load_app
from tfdoctor.cli.streams import guard_streams

pytestmark = pytest.mark.slow  # a fuzz: minutes of hypothesis cases over every command

app = load_app()
REPO = Path(__file__).resolve().parents[2]
LOGS = sorted((REPO / "tests" / "data" / "logs").glob("*.txt"))
HANG_S = 30.0
"""The stated bound: no invocation may take longer (a hang)."""
EXAMPLES = 30
PY = sys.executable
ALL_COMMANDS = ("check", "collect", "diagnose", "schema", "probe", "lint", "ops", "run", "triage",
                "list-checks", "explain", "matrix", "fix")
FORCED = {"check": ["--no-runtime", "--no-probes"], "collect": ["--no-runtime", "--no-probes"],
          "fix": ["--dry-run"]}
SKIPPED_OPTIONS = {"yes", "in_place", "new_env", "no_runtime", "no_probes", "dry_run", "snapshot"}
"""fix: nothing that could change an environment; check/collect: the cheap form is forced."""
ODD_PYTHONS = ["", "/nonexistent/bin/python", "~nosuchuser/x", "x" * 300, "caf\udce9", "\x00",
               "./nonexistent-python", "nonexistent-python", ":fire:[red]x[/red]\\", "."]
ODD_UNICODE = ["\u202e", "\ufeff", "\x1b[31m", "\x1b]52;c;aGk=\x07", "\u200b", "\U0001f600", "\ud800",
               "\x00", "\r", "e\u0301", "\uffff"]
HARMLESS = [["-c", "pass"], ["-c", "import sys; sys.exit(3)"], ["-c", "print('x' * 100000)"],
            ["-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"],
            ["-c", "import sys; sys.stderr.write('\\x1b]0;title\\x07 Illegal instruction\\n')"],
            ["-c", "import sys; sys.stdout.buffer.write(bytes(range(256)))"]]


def budget(examples: int = EXAMPLES) -> settings:
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None,
                    print_blob=True, suppress_health_check=list(HealthCheck))


# --- one invocation and the property ----------------------------------------------------------


class Hang(BaseException):
    """The bound's alarm: a BaseException, so no `except Exception` of tfdoctor's (a reader's
    guard, the top-level exit 3) takes it for a failure of the command and runs on."""


@contextlib.contextmanager
def bounded(seconds: float):
    """SIGALRM after `seconds` (main thread only; elsewhere unbounded, which tests avoid)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(*_):
        raise Hang(f"no end after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class CliStreams(CliRunner):
    """A CliRunner whose streams are what tfdoctor.cli.main makes of a real run's before any
    command (guard_streams: text that cannot be encoded, such as the lone surrogate of an
    undecodable file name, is replaced; a reader that goes away is quiet). Without it the
    runner's strict UTF-8 stdout failed where the command line prints `caf?`, and the failed
    write stayed in the console's buffer, failing every later command of the run."""

    @contextlib.contextmanager
    def isolation(self, *args, **kwargs):
        with super().isolation(*args, **kwargs) as streams:
            guard_streams()
            yield streams


@dataclass
class Outcome:
    argv: list
    code: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    problems: list[str] = field(default_factory=list)
    """"hang", "traceback", "exit3", "exit N", "json" (each with details after a colon)."""


def invoke(argv: list[str], stdin: bytes = b"") -> Outcome:
    outcome = Outcome(argv)
    try:
        with bounded(HANG_S):
            result = CliStreams().invoke(app, argv, input=stdin)
    except Hang as exc:
        outcome.problems.append(f"hang: {exc}")
        return outcome
    outcome.code, outcome.stdout = result.exit_code, result.stdout_bytes
    outcome.stderr = result.stderr_bytes or b""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        where = "".join(traceback.format_exception(result.exception)[-4:])
        outcome.problems.append(f"exit3: {type(result.exception).__name__}: {result.exception}\n{where}")
    elif result.exit_code not in (0, 1, 2):
        outcome.problems.append(f"exit {result.exit_code}")
    for name, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        if b"Traceback (most recent call last)" in text and OWN_FRAME.search(text):
            outcome.problems.append(f"traceback: on {name}")
    if wants_json(argv) and not outcome.problems:
        if outcome.stdout.strip() or outcome.code != 2:
            try:
                json.loads(outcome.stdout.decode("utf-8"))
            except ValueError as exc:
                outcome.problems.append(f"json: {exc}: {outcome.stdout[:200]!r}")
    return outcome


OWN_FRAME = re.compile(rb'File "[^"\n]*[/\\](tfdoctor|typer|click|rich|json)[/\\][^"\n]*", line \d+')
"""A frame of tfdoctor's own code (or of its libraries'): the inputs here never contain one, so
a traceback with it is tfdoctor's, not an echo of a pasted log."""


def wants_json(argv: list[str]) -> bool:
    before = argv[:argv.index("--")] if "--" in argv else argv
    if "--json" in before:
        return True
    return "--format" in before and before[before.index("--format") + 1:][:1] == ["json"]


def check(argv: list[str], stdin: bytes = b"") -> None:
    outcome = invoke(argv, stdin)
    assert not outcome.problems, (f"argv={argv!r} exit={outcome.code}\n" + "\n".join(outcome.problems)
                                  + f"\nstdout={outcome.stdout[-1500:]!r}\nstderr={outcome.stderr[-1500:]!r}")


# --- inputs ------------------------------------------------------------------------------------


def collected_snapshot() -> dict:
    """A real `tfdoctor collect -o -` of this interpreter (static facts only)."""
    result = CliRunner().invoke(app, ["collect", "--no-runtime", "--no-probes", "-o", "-"])
    assert result.exit_code == 0, result.stdout[-2000:]
    return json.loads(result.stdout)


def _paths(value: typing.Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if len(prefix) > 40:
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value[:20]):
            found += _paths(item, prefix + (index,))
    return found


def nested(depth: int, leaf: typing.Any = 1) -> typing.Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


ODD_VALUES = st.one_of(
    st.sampled_from([None, True, 0, -1, 10**30, -(10**30), 2**63, 2**64, 10**400, 1e308, -1e308,
                     math.nan, math.inf, -math.inf, 5e-324, "", [], {}, "NaN", "1e999", "-0"]),
    st.sampled_from(ODD_UNICODE).map(lambda s: s * 3 + "tensorflow" + s),
    st.text(max_size=30),
    st.integers(min_value=1, max_value=3).map(lambda n: nested(10 ** n)),
)


_BASE: list[dict] = []


def base_snapshot() -> dict:
    if not _BASE:
        _BASE.append(collected_snapshot())
    return _BASE[0]


@st.composite
def mutated_snapshot(draw) -> str:
    base = base_snapshot()
    doc = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 6))):
        every = _paths(doc)
        path = every[draw(st.integers(0, len(every) - 1))]
        if not path:
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        op = draw(st.sampled_from(["drop", "type", "type", "odd", "deep", "list", "string"]))
        if op == "drop":
            del parent[key]
        elif op in ("type", "odd"):
            parent[key] = draw(ODD_VALUES)
        elif op == "deep":
            parent[key] = nested(draw(st.sampled_from([50, 900, 3000, 100000])), parent[key])
        elif op == "list":
            parent[key] = [parent[key]] * draw(st.sampled_from([0, 2, 5000]))
        elif op == "string":
            try:
                shown = str(parent[key])
            except RecursionError:  # nested thousands deep by an earlier "deep"
                shown = "deep"
            parent[key] = draw(st.sampled_from(ODD_UNICODE)) + shown[:10_000] * draw(st.sampled_from([1, 3, 10000]))
    try:
        text = json.dumps(doc, allow_nan=True)
    except (RecursionError, ValueError):
        text = json.dumps(base) + "[" * 100000
    cut = draw(st.sampled_from([None] * 12 + [0.3, 0.999]))
    return text if cut is None else text[:int(len(text) * cut)]


ANSI = [b"\x1b[31m", b"\x1b[0m", b"\x1b]0;pwned\x07", b"\x1b]52;c;c2VjcmV0\x07", b"\x1bc", b"\x1b[2J",
        b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", b"\x9b31m", b"\r", b"\x08", b"\x00"]


@st.composite
def pasted_log(draw) -> bytes:
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["real", "bytes", "ansi", "huge", "lines", "text", "crlf"]))
        if kind == "real":
            text = draw(st.sampled_from(LOGS)).read_bytes()
            at = draw(st.integers(0, max(0, len(text) - 1)))
            parts.append(text[at:] if draw(st.booleans()) else text)
        elif kind == "bytes":
            parts.append(draw(st.binary(max_size=2000)))
        elif kind == "ansi":
            parts.append(b"".join(draw(st.lists(st.sampled_from(ANSI), max_size=30))) + b"Error: x\n")
        elif kind == "huge":
            unit = draw(st.sampled_from([b"a", b"(", b"\\", b"Illegal instruction ", b"\xff", b" ", b"/lib"]))
            parts.append(unit * (draw(st.sampled_from([10**5, 10**6, 3 * 10**6])) // len(unit)))
        elif kind == "lines":
            parts.append(b"\n" * draw(st.sampled_from([1, 10**4, 10**6])))
        elif kind == "crlf":
            parts.append(b"\r\n".join([b"Traceback (most recent call last):", b"  File \"x.py\"",
                                      b"ImportError: dlopen(x.so) (mach-o file, but is an incompatible architecture"]))
        else:
            parts.append(draw(st.text(max_size=500)).encode("utf-8", "surrogatepass"))
    return b"".join(parts)


SCRIPT_BITS = ["import tensorflow as tf\n", "from tensorflow import keras\n", "tf.config.list_physical_devices('GPU')\n",
               "model.fit(x, y, batch_size=\n", "with tf.device('/GPU:0'):\n    pass\n", "def f(:\n",
               "\x00", "\ufeff", "# -*- coding: bogus -*-\n", "(" * 300, "[" * 5000, "x = " + "1+" * 20000 + "1\n",
               "tf.compat.v1.Session()\n", "\t  \t", "'''", "\\\n", "@tf.function(jit_compile=True)\ndef g(): pass\n",
               "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']='3'\n", "\udcff", "lambda: (yield)\n"]


@st.composite
def script_bytes(draw) -> bytes:
    bits = draw(st.lists(st.one_of(st.sampled_from(SCRIPT_BITS), st.text(max_size=80)), min_size=0, max_size=12))
    raw = "".join(bits).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 5)) == 0:
        raw = draw(st.binary(max_size=400)) + raw
    return raw


@st.composite
def notebook_bytes(draw) -> bytes:
    source = draw(st.sampled_from(SCRIPT_BITS + [""])) + draw(st.text(max_size=40))
    cell = {"cell_type": "code", "source": [source], "metadata": {}, "outputs": [], "execution_count": 1}
    nb = {"cells": [cell, {"cell_type": "markdown", "source": "# x"}], "metadata": {}, "nbformat": 4,
          "nbformat_minor": 5}
    op = draw(st.sampled_from(["ok", "type", "type", "drop", "broken", "deep", "random"]))
    if op == "type":
        where = draw(st.sampled_from(["cells", "source", "cell", "cell_type", "metadata", "nbformat", "root"]))
        value = draw(ODD_VALUES)
        if where == "cells":
            nb["cells"] = value
        elif where == "source":
            cell["source"] = value
        elif where == "cell":
            nb["cells"][0] = value
        elif where == "cell_type":
            cell["cell_type"] = value
        elif where == "root":
            nb = value
        else:
            nb[where] = value
    elif op == "drop":
        key = draw(st.sampled_from(["cells", "source", "cell_type"]))
        (cell if key in ("source", "cell_type") else nb).pop(key, None)
    elif op == "deep":
        nb["cells"] = nested(draw(st.sampled_from([100, 5000, 100000])), nb["cells"])
    try:
        text = json.dumps(nb, allow_nan=True)
    except (RecursionError, ValueError):
        text = "[" * 100000
    if op == "broken":
        text = text[:draw(st.integers(0, len(text) - 1))]
    elif op == "random":
        text = draw(st.text(max_size=200))
    return text.encode("utf-8", "surrogatepass")


# --- odd arguments for every command ----------------------------------------------------------


@dataclass
class Pool:
    """Files the arguments may name."""

    root: Path
    snapshots: list[str]
    logs: list[str]
    scripts: list[str]


def make_pool(root: Path, base: dict) -> Pool:
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(22)
    good = root / "collected.json"
    good.write_text(json.dumps(base), encoding="utf-8")
    broken = root / "broken.json"
    broken.write_text(json.dumps(base)[:5000], encoding="utf-8")
    deep = root / "deep.json"
    deep.write_text("[" * 200000, encoding="utf-8")
    log = root / "pasted.log"
    log.write_bytes(b"".join(p.read_bytes() for p in LOGS[:5]) + bytes(rng.randrange(256) for _ in range(3000)))
    script = root / "train.py"
    script.write_text("import tensorflow as tf\nmodel.fit(x, batch_size=4096)\n", encoding="utf-8")
    notebook = root / "nb.ipynb"
    notebook.write_text('{"cells": [{"cell_type": "code", "source": 3}]', encoding="utf-8")
    folder = root / "folder"
    folder.mkdir(exist_ok=True)
    (folder / "a.py").write_bytes(b"\x00\xff(((\n")
    (folder / "b.ipynb").write_text("[]", encoding="utf-8")
    model = root / "model.keras"
    model.write_bytes(b"PK\x03\x04 not a zip")
    return Pool(root, [str(good), str(broken), str(deep), str(root / "missing.json"), str(root)],
                [str(log), str(script), str(root / "nope.log"), str(root), str(model)],
                [str(script), str(notebook), str(folder), str(model), str(broken)])


def argument_values(name: str, pool: Pool) -> st.SearchStrategy[list[str]]:
    one = lambda values: st.sampled_from(values).map(lambda v: [v])  # noqa: E731
    if name == "diagnose":
        return st.lists(st.sampled_from(pool.snapshots), min_size=1, max_size=2)
    if name == "lint":
        return st.lists(st.sampled_from(pool.scripts + HOSTILE_TEXT[:4]), min_size=1, max_size=3)
    if name == "ops":
        return st.lists(st.sampled_from(["MatMul", "Einsum", "matmul", "Conv2D", "Nope"] + HOSTILE_TEXT), max_size=3)
    if name == "explain":
        return one(["arch.rosetta", "log.xla-no-metal", "lint.batch-size", "arch", "nope.nope"] + HOSTILE_TEXT)
    if name == "schema":
        return one(["report", "snapshot", "run", "lint", "ops", "matrix", "fix"] + HOSTILE_TEXT)
    return st.just([])


@st.composite
def argv_for(draw, name: str, pool: Pool) -> list[str]:
    argv = [name]
    arguments: list[str] = []
    for pname, decls, hint, info in command_params(name):
        flag = decls[0] if decls else None
        if flag is None:
            if name != "run":
                arguments = draw(argument_values(name, pool))
            continue
        if pname in SKIPPED_OPTIONS or draw(st.integers(0, 3)):
            continue  # each option in one example out of four
        if hint is bool:
            argv.append(flag)
        elif pname == "python":
            argv += [flag, draw(st.sampled_from(ODD_PYTHONS))]
        elif pname == "output":
            argv += [flag, draw(st.sampled_from(["-", str(pool.root / "out.json"), str(pool.root), "/nonexistent/x"]))]
        elif pname == "log":
            argv += [flag, draw(st.sampled_from(pool.logs + ["-", ""]))]
        elif pname == "model":
            argv += [flag, draw(st.sampled_from(pool.logs + HOSTILE_TEXT[:4]))]
        elif pname in ("only", "skip"):
            argv += [flag, draw(st.sampled_from(["runtime", "compat", "arch", "probe", "nonsense", ""]))]
        else:
            argv += [flag, draw(values_for(hint, info))]
    if name == "fix" and "--python" not in argv and draw(st.booleans()):
        argv += ["--snapshot", draw(st.sampled_from(pool.snapshots))]  # else live, and a dry run
    if name == "collect" and "-o" not in argv and "--output" not in argv:
        argv += ["-o", "-"]
    argv += FORCED.get(name, []) + arguments
    if name == "run":
        argv += ["--", PY, *draw(st.sampled_from(HARMLESS))]
    return argv


# --- the tests ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pool(tmp_path_factory) -> Pool:
    return make_pool(tmp_path_factory.mktemp("fuzzcmd"), base_snapshot())


TARGETS = ("arguments", "snapshot", "log", "lint", "triage", "fix")


def draw_case(data, target: str, tmp: Path, pool: Pool) -> tuple[list[str], bytes]:
    """One fuzz case of `target` (argv, standard input), its files written under `tmp`: what
    the tests below run with fixed seeds and benchmarks/fuzz_long.py runs for minutes."""
    if target == "arguments":
        name = data.draw(st.sampled_from(ALL_COMMANDS))
        return data.draw(argv_for(name, pool)), data.draw(st.sampled_from([b"", b"\xff\x00 junk\n"]))
    if target == "snapshot":
        path = tmp / "mutated.json"
        path.write_text(data.draw(mutated_snapshot()), encoding="utf-8", errors="surrogatepass")
        return data.draw(st.sampled_from([["diagnose", str(path)], ["diagnose", str(path), "--json"],
                                          ["diagnose", str(path), "--format", "markdown", "-v"],
                                          ["fix", "--dry-run", "--snapshot", str(path)],
                                          ["fix", "--dry-run", "--snapshot", str(path), "--json"]])), b""
    if target == "triage":  # a report as posted: a paste, alone or as JSON Lines of several
        text = data.draw(pasted_log())
        flags = data.draw(st.sampled_from([[], ["--json"], ["--format", "markdown"], ["--summary"],
                                           ["--summary", "--json"]]))
        if data.draw(st.integers(0, 3)) == 0:
            return ["triage", "-", *flags], text
        if data.draw(st.booleans()):
            path = tmp / "reports.jsonl"
            body = text.decode("utf-8", "replace")
            path.write_text(json.dumps({"number": 1, "body": body}) + "\n" + json.dumps(body) + "\n{oops\n",
                            encoding="utf-8", errors="surrogatepass")
        else:
            path = tmp / "report.md"
            path.write_bytes(text)
        return ["triage", str(path), *flags], b""
    if target == "fix":  # a live dry run: the interpreter is asked, nothing is changed
        python = data.draw(st.sampled_from([[], ["--python", PY]] + [["--python", p] for p in ODD_PYTHONS]))
        where = data.draw(st.sampled_from([[], ["--in-place"], ["--new-env", str(tmp / "fixed")],
                                           ["--new-env", data.draw(st.sampled_from(ODD_PYTHONS + HOSTILE_TEXT[:4]))]]))
        return ["fix", "--dry-run", *python, *where, *data.draw(st.sampled_from([[], ["--json"]]))], b""
    if target == "log":
        path = tmp / "pasted.txt"
        text = data.draw(pasted_log())
        path.write_bytes(text)
        json_flag = data.draw(st.sampled_from([[], ["--json"], ["--format", "markdown"]]))
        if data.draw(st.integers(0, 4)) == 0:
            return ["check", "--no-runtime", "--no-probes", "--log", "-", *json_flag], text
        return ["check", "--no-runtime", "--no-probes", "--log", str(path), *json_flag], b""
    folder = tmp / "lintme"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    files = []
    for index in range(data.draw(st.integers(1, 3))):
        if data.draw(st.booleans()):
            path = folder / f"s{index}.py"
            path.write_bytes(data.draw(script_bytes()))
        else:
            path = folder / f"n{index}.ipynb"
            path.write_bytes(data.draw(notebook_bytes()))
        files.append(str(path))
    targets = data.draw(st.sampled_from([files, [str(folder)], files[:1]]))
    flags = data.draw(st.sampled_from([["--json"], [], ["--tensorflow", "2.15.0", "--keras", "2", "--plugin", "1.1.0", "--json"],
                                       ["--tensorflow", "nonsense", "--keras", "3", "--plugin", "x"]]))
    return ["lint", *targets, *flags], b""


@budget(60)
@given(data=st.data())
def test_every_command_with_odd_arguments(pool, data):
    check(*draw_case(data, "arguments", Path("."), pool))


@budget()
@given(data=st.data())
def test_snapshots_mutated_from_collect(tmp_path_factory, pool, data):
    check(*draw_case(data, "snapshot", tmp_path_factory.getbasetemp(), pool))


@budget()
@given(data=st.data())
def test_pasted_logs(tmp_path_factory, pool, data):
    check(*draw_case(data, "log", tmp_path_factory.getbasetemp(), pool))


@budget()
@given(data=st.data())
def test_reports_as_posted(tmp_path_factory, pool, data):
    check(*draw_case(data, "triage", tmp_path_factory.getbasetemp(), pool))


@budget()
@given(data=st.data())
def test_scripts_and_notebooks(tmp_path_factory, pool, data):
    check(*draw_case(data, "lint", tmp_path_factory.getbasetemp(), pool))


@budget(12)
@given(data=st.data())
def test_fix_plans_for_the_live_interpreter(tmp_path_factory, pool, data):
    check(*draw_case(data, "fix", tmp_path_factory.getbasetemp(), pool))


@pytest.mark.parametrize("argv", [["fix", "--dry-run", "--new-env", "\x00"],
                                  ["collect", "--no-runtime", "--no-probes", "-o", "\x00"]])
def test_a_path_no_shell_can_pass_is_a_usage_error(pool, argv):
    """Found by the long run: a NUL byte in --new-env or -o (only a program calling tfdoctor in
    process can pass one) reached os.path.realpath and open(), exit 3."""
    outcome = invoke(argv)
    assert not outcome.problems and outcome.code == 2, (outcome.problems, outcome.stderr[-500:])


def test_every_command_is_fuzzed():
    """A command added to the app is fuzzed here too (or this test says it is not)."""
    names = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}
    assert names == set(ALL_COMMANDS)


def test_the_property_catches_what_it_should():
    """invoke() reports an escaped exception as exit 3 and invalid JSON as json (checked on a
    command that always fails: explain with a monkeypatched renderer is not needed, a bogus argv
    to a command that prints text under --json is enough)."""
    outcome = invoke(["schema", "snapshot"])
    assert outcome.code == 0 and not outcome.problems
    assert wants_json(["run", "--json", "--", "x"]) and not wants_json(["run", "--", "x", "--json"])


def test_a_hang_is_one_even_inside_code_that_catches_every_exception(monkeypatch):
    """triage guards each reader with `except Exception`: the bound's alarm must pass through it
    (a Hang caught there let the command run on, and a slow case passed for a quick one)."""
    from tfdoctor.triage import facts

    def stuck(doc, found):
        time.sleep(5)

    monkeypatch.setattr(facts, "READERS", (("stuck", stuck),))
    monkeypatch.setattr(sys.modules[__name__], "HANG_S", 0.3)
    outcome = invoke(["triage", "-"], b"Illegal instruction: 4\n")
    assert [p.split(":")[0] for p in outcome.problems] == ["hang"]
