"""Issue 15: fuzzing the CLI in-process with a fixed budget. Argument vectors are built from the
CLI's own options (read from the typer app's command functions, so new options are fuzzed
without editing this file); snapshots are real scenarios (tests/scenarios/) mutated in their
structure and in their text. Whatever the input: no exception escapes (that would be exit 3,
tfdoctor's own failure), exit codes are 0, 1 or 2, stdout is valid UTF-8, and --json output
parses. Derandomized: the same examples run every time, in well under a minute."""

from __future__ import annotations

import enum
import inspect
import json
import math
import typing
from pathlib import Path

import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.models import ArgumentInfo, OptionInfo
from typer.testing import CliRunner

from tfdoctor.cli.main import load_app

pytestmark = pytest.mark.slow  # a fuzz: hypothesis cases over the CLI

app = load_app()

SCENARIOS = sorted((REPO / "tests" / "scenarios").glob("*.json"))
def budget(examples: int) -> settings:
    """Fixed examples (derandomized, no example database), no per-example deadline."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
COMMANDS = ("diagnose", "check", "collect", "explain", "schema", "list-checks")
"""Commands that never import TensorFlow (probe and matrix run children of their own)."""
FORCED = {"check": ["--no-runtime", "--no-probes"], "collect": ["--no-runtime", "--no-probes"]}
HOSTILE_TEXT = ["", " ", "-", "--", "x" * 300, "caf\udce9", "\x00", "# h\n</details>", "`", "é",
                "..", "/", "~nosuchuser/x"]


# --- the CLI's own options ---------------------------------------------------------------------


def command_params(name: str) -> list[tuple[str, list[str] | None, typing.Any, typing.Any]]:
    """(option flag or "" for an argument, its declared names, its type, its info) of a command."""
    command = next(c for c in app.registered_commands
                   if (c.name or c.callback.__name__.replace("_", "-")) == name)
    hints = typing.get_type_hints(command.callback, include_extras=True)
    params = []
    for pname, param in inspect.signature(command.callback).parameters.items():
        hint = hints[pname]
        info = param.default if isinstance(param.default, (OptionInfo, ArgumentInfo)) else None
        if typing.get_origin(hint) is typing.Annotated:
            hint, *extras = typing.get_args(hint)
            info = next((e for e in extras if isinstance(e, (OptionInfo, ArgumentInfo))), info)
        decls = None
        if isinstance(info, OptionInfo):
            decls = list(info.param_decls or [])
            if isinstance(info.default, str) and info.default.startswith("-"):
                decls.insert(0, info.default)  # Annotated[..., typer.Option("--json")]
        params.append((pname, decls or None, hint, info))
    return params


def values_for(hint: typing.Any, info: typing.Any) -> st.SearchStrategy[str]:
    """Strings to pass for a parameter of type `hint`: valid ones and hostile ones."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, list, typing.List) and args:
        hint = args[0]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from([m.value for m in hint] * 4 + ["bogus", ""])
    if hint is int:
        return st.sampled_from(["1", "3", "7", "0", "-1", "20000", "1e3", "9" * 30, "abc"])
    if hint is float:
        return st.sampled_from(["1", "5", "60", "0", "-1", "inf", "nan", "-inf", "1e10", "1e400",
                                "0.5", "abc"])
    return st.sampled_from(HOSTILE_TEXT)


@st.composite
def argv_for(draw, name: str, files: list[str]) -> list[str]:
    argv = [name]
    for pname, decls, hint, info in command_params(name):
        flag = decls[0] if decls else None
        if pname == "python":
            continue  # another interpreter is not this test's subject (it runs children)
        if flag is None:  # an argument
            if name == "diagnose":
                argv += draw(st.lists(st.sampled_from(files), min_size=1, max_size=2))
            else:
                argv.append(draw(st.sampled_from(["report", "snapshot", "arch.rosetta"] + HOSTILE_TEXT)))
            continue
        if draw(st.integers(0, 3)):
            continue  # each option in one example out of four
        if hint is bool:
            argv.append(flag)
        elif pname == "output":
            argv += [flag, draw(st.sampled_from(["-", files[-1] + ".out"]))]
        elif pname in ("only", "skip"):
            argv += [flag, draw(st.sampled_from(["runtime", "compat", "arch", "probe", "nonsense", ""]))]
        else:
            argv += [flag, draw(values_for(hint, info))]
    if name == "collect" and "-o" not in argv and "--output" not in argv:
        argv += ["-o", "-"]
    return argv + FORCED.get(name, [])


# --- mutated snapshots -------------------------------------------------------------------------

LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([10**309, -(2**64), 1.7e308, -0.0, 2**63]), st.floats(allow_nan=False),
    st.text(max_size=40), st.sampled_from(HOSTILE_TEXT),
)
VALUE = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text(max_size=10), inner, max_size=4)),
                     max_leaves=12)


def paths(value: typing.Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, prefix + (index,))
    return found


def like(old: typing.Any) -> st.SearchStrategy[typing.Any]:
    """A new value of the old one's type, at its edges: most mutations keep the snapshot
    loadable, so that the checks and renderers see them, not only the loader."""
    if isinstance(old, bool):
        return st.just(not old)
    if isinstance(old, int):
        return st.sampled_from([0, -1, old * 1000, 2**62, 2**64, 10**400, -(10**309)])
    if isinstance(old, float):
        return st.sampled_from([0.0, -1.0, 1e308, 5e-324, old * 1e6, math.inf, -math.inf, math.nan])
    if isinstance(old, str):
        return st.sampled_from(HOSTILE_TEXT + [old + "\udcff", old * 40, old.upper(), "../" + old,
                                               old + "\n# injected", old + "`</details>`"])
    if isinstance(old, list):
        return st.sampled_from([[], old * 3, old[::-1], old[:1]])
    if isinstance(old, dict):
        return st.sampled_from([{}, {**old, "unknown_key": [1]}])
    return VALUE


def mutate(doc: typing.Any, where: float, op: str, draw) -> typing.Any:
    every = paths(doc)
    path = every[min(len(every) - 1, int(where * len(every)))]
    if not path:
        return doc
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if op == "delete":
        del parent[key]
    elif op == "same-type":
        parent[key] = draw(like(parent[key]))
    elif op == "any":
        parent[key] = draw(VALUE)
    elif op == "wrap":
        parent[key] = [parent[key]] if not isinstance(parent[key], list) else {"x": parent[key]}
    return doc


@st.composite
def snapshot_text(draw) -> str:
    source = draw(st.sampled_from(SCENARIOS))
    doc = json.loads(source.read_text())
    doc = doc["snapshot"] if draw(st.booleans()) else doc
    for _ in range(draw(st.integers(1, 4))):
        doc = mutate(doc, draw(st.floats(0, 1, exclude_max=True)),
                     draw(st.sampled_from(["same-type"] * 12 + ["any", "delete", "wrap"])), draw)
    text = json.dumps(doc, allow_nan=True)
    cut = draw(st.sampled_from([None] * 9 + [0.5, 0.99]))
    return text if cut is None else text[:int(len(text) * cut)]


# --- the properties ----------------------------------------------------------------------------


def check_run(argv: list[str], tmp: Path) -> None:
    result = CliRunner().invoke(app, argv, input="")
    shown = f"argv={argv!r}\nstdout={result.stdout[-2000:]!r}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{type(result.exception).__name__}: {result.exception}\n{shown}")
    assert result.exit_code in (0, 1, 2), shown
    result.stdout_bytes.decode("utf-8")  # strict: no lone surrogate reached the output
    wants_json = "--json" in argv or ("--format" in argv and argv[argv.index("--format") + 1:][:1] == ["json"])
    if wants_json and result.exit_code in (0, 1) and argv[0] in ("diagnose", "check"):
        document = json.loads(result.stdout)
        assert isinstance(document, (dict, list))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@budget(120)
@given(data=st.data())
def test_diagnose_any_snapshot(workdir, data):
    texts = data.draw(st.lists(snapshot_text(), min_size=1, max_size=2))
    files = []
    for index, text in enumerate(texts):
        path = workdir / f"snap{index}.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        files.append(str(path))
    files = files * 8 + [str(workdir / "missing.json"), str(workdir), "-"]
    check_run(data.draw(argv_for("diagnose", files)), workdir)


@budget(40)
@given(data=st.data())
def test_any_options(workdir, data):
    name = data.draw(st.sampled_from([c for c in COMMANDS if c != "diagnose"]))
    files = [str(workdir / "collected.json")]
    check_run(data.draw(argv_for(name, files)), workdir)


def test_the_options_are_read_from_the_app():
    """The fuzzer sees the CLI's real options (a renamed option is fuzzed under its new name)."""
    flags = {d[0] for _n, d, _h, _i in command_params("check") if d}
    assert {"--json", "--timeout", "--only", "--fail-on"} <= flags
    assert math.isfinite(len(SCENARIOS)) and len(SCENARIOS) > 10
