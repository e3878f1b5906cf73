"""tfdoctor.triage.read_variables: the TensorFlow variables a report sets where its code runs,
in each syntax that sets one (POSIX shells, cmd, PowerShell, IPython's %env, a Dockerfile's ENV,
conda's env config vars, launchd's setenv, Python's os.environ, R's Sys.setenv), and the
diagnosis and questions they change."""

from __future__ import annotations

import pytest

from tfdoctor.triage.facts import read_report
from tfdoctor.triage.outcome import triage_text
from tfdoctor.triage.snapshot import to_snapshot

SET = [
    'export TF_USE_LEGACY_KERAS=1',
    '$ export TF_USE_LEGACY_KERAS="1"',
    'TF_USE_LEGACY_KERAS=1 python train.py',
    'env TF_USE_LEGACY_KERAS=1 jupyter lab',
    '2. `export TF_USE_LEGACY_KERAS=1`',
    'set TF_USE_LEGACY_KERAS=1',
    '$env:TF_USE_LEGACY_KERAS="1"',
    '%env TF_USE_LEGACY_KERAS=1',
    '%env TF_USE_LEGACY_KERAS 1',
    '%set_env TF_USE_LEGACY_KERAS 1',
    'ENV TF_USE_LEGACY_KERAS=1',
    'ENV TF_USE_LEGACY_KERAS 1',
    'launchctl setenv TF_USE_LEGACY_KERAS 1',
    'conda env config vars set TF_USE_LEGACY_KERAS=1',
    "```python\nimport os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\n```",
    '```python\nos.environ.setdefault("TF_USE_LEGACY_KERAS", "1")\n```',
    'os.putenv("TF_USE_LEGACY_KERAS", "1")',
    '```r\nSys.setenv(TF_USE_LEGACY_KERAS = "1")\nlibrary(keras)\n```',
]

NOT_SET = [
    "Should I set TF_USE_LEGACY_KERAS=1 before importing?",   # a sentence about it
    "```python\n# os.environ['TF_USE_LEGACY_KERAS'] = '1'\n```",  # commented out
    "```python\nTF_USE_LEGACY_KERAS = 1\n```",                 # a Python variable
    "```python\nprint(os.environ['TF_USE_LEGACY_KERAS'])\n```",  # read, not set
    "```python\nif os.environ['TF_USE_LEGACY_KERAS'] == '1':\n    pass\n```",
    "```python\nos.environ['TF_USE_LEGACY_KERAS'] = str(flag)\n```",  # no value to read
    "export KERAS_BACKEND=jax",                                  # not one of TensorFlow's
    "export TF_USE_LEGACY_KERAS=$(cat flag)",                    # expanded by the shell: unknown
    'export TF_USE_LEGACY_KERAS="${LEGACY:-1}"',
]


def _variables(text: str) -> dict[str, str]:
    return to_snapshot(read_report(text)).env


@pytest.mark.parametrize("text", SET)
def test_every_syntax_that_sets_the_variable_is_read(text):
    assert _variables(text) == {"TF_USE_LEGACY_KERAS": "1"}


@pytest.mark.parametrize("text", NOT_SET)
def test_what_does_not_set_it_is_not_read(text):
    assert _variables(text) == {}


def test_env_printed_is_read_and_a_setting_is_stated():
    facts = {(f.name, f.value, f.how, f.source) for f in read_report(
        "```\n$ env | grep '^TF_'\nTF_USE_LEGACY_KERAS=1\nTF_CPP_MIN_LOG_LEVEL=2\n```\n"
        "and I also ran\n\n    export TF_XLA_FLAGS=--tf_xla_auto_jit=2\n").facts}
    assert {("env:TF_USE_LEGACY_KERAS", "1", "read", "env"),
            ("env:TF_CPP_MIN_LOG_LEVEL", "2", "read", "env"),
            ("env:TF_XLA_FLAGS", "--tf_xla_auto_jit=2", "stated", "variable setting")} <= facts


def test_a_quoted_reply_and_two_values_leave_it_unknown():
    assert _variables("> export TF_USE_LEGACY_KERAS=1\n\nI did not.\n") == {}
    text = "export TF_USE_LEGACY_KERAS=0\nthen\nexport TF_USE_LEGACY_KERAS=1\n"
    assert _variables(text) == {}
    (contradiction,) = [c for c in read_report(text).contradictions if c.name == "env:TF_USE_LEGACY_KERAS"]
    assert "not judged" in contradiction.why
    assert "environment" in to_snapshot(read_report(text)).unknown  # the rest is still unknown


LISTING = """I'm on an M1 (macOS 14.4). `pip list`:

```
Package            Version
------------------ -------
keras              3.3.3
numpy              1.26.4
pip                24.0
tensorflow         2.16.1
tensorflow-metal   1.1.0
{extra}```
{setting}
"""


def _triaged(extra: str, setting: str):
    return triage_text("report", LISTING.format(extra=extra, setting=setting).encode())


def test_legacy_keras_set_without_tf_keras_is_the_diagnosis():
    """TensorFlow's lazy loader imports tf_keras when the variable says so; with none installed
    tf.keras fails (tensorflow/python/util/lazy_loader.py, KerasLazyLoader)."""
    got = _triaged("", "```python\nimport os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tensorflow as tf\n```")
    found = got.report.diagnosis()
    assert found is not None and found.code == "compat.keras3"
    assert "tf-keras is not installed" in found.title
    assert _triaged("", "").report.diagnosis() is None  # the same report without the setting


def test_tf_keras_installed_asks_for_the_variable_until_the_report_sets_it():
    silent = _triaged("tf_keras           2.16.0\n", "")
    assert silent.report.diagnosis() is None  # unknown is not unset
    asked = [q for q in silent.questions if q.fact == "environment"]
    assert asked and asked[0].command == "env | grep '^TF_'"
    assert "compat.keras3" in asked[0].separates
    off = _triaged("tf_keras           2.16.0\n", "I ran\n\n    $ export TF_USE_LEGACY_KERAS=0")
    assert off.report.diagnosis() is None  # Keras 3 chosen on purpose
    assert not [q for q in off.questions if q.fact == "environment"]
    stated = _triaged("tf_keras           2.16.0\n", "    export TF_USE_LEGACY_KERAS=1")
    assert stated.report.diagnosis() is None
    assert not [q for q in stated.questions if q.fact == "environment"]
