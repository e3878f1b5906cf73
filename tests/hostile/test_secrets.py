"""Issue 15, secrets: credentials and identities never reach an output, and text from the
diagnosed environment cannot rewrite the paste-ready markdown report.

The variables are Terraform's real ones (developer.hashicorp.com/terraform/cli/config/
environment-variables: TF_VAR_name, TF_TOKEN_app_terraform_io), which a `TF_.*` capture took
for TensorFlow's."""

from __future__ import annotations

import copy
import json

import pytest
from conftest import REPO, assert_no_traceback, run_tfdoctor
from markdown_it import MarkdownIt

from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.gather.snapshot_files import read_snapshot, redact_snapshot, snapshot_json
from tfdoctor.sanitize.redact import Identity, mask_secrets, redact

SCENARIOS = REPO / "tests" / "scenarios"
SECRET = "hunter2-s3cr3t"
TOKEN = "tfe.abcdefghijklmnop"


def scenario(name: str) -> dict:
    return copy.deepcopy(json.loads((SCENARIOS / name).read_text())["snapshot"])


def with_secrets(data: dict) -> dict:
    data["env"] = {**data.get("env", {}), "TF_VAR_db_password": SECRET,
                   "TF_TOKEN_app_terraform_io": TOKEN, "TF_CPP_MIN_LOG_LEVEL": "2"}
    runtime = data.get("runtime") or {}
    runtime["stderr_tail"] = (f"pip: Looking in indexes: https://ci:{SECRET}@pypi.example.com/simple\n"
                              f"export AWS_SECRET_ACCESS_KEY={SECRET}\n")
    return data


@pytest.mark.parametrize("text, gone", [
    (f"TF_VAR_db_password={SECRET}", SECRET),
    (f"TF_TOKEN_app_terraform_io={TOKEN} next", TOKEN),
    (f"https://bob:{SECRET}@pypi.example.com/simple", SECRET),
    (f"postgresql://app:{SECRET}@db:5432/x", SECRET),
    (f'{{"db_password": "{SECRET}"}}', SECRET),
    ("https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r.git", "ghp_abcdefghijklmnop"),
    (f"?access_token={SECRET}&x=1", SECRET),
])
def test_credentials_are_masked_in_any_text(text, gone):
    masked = mask_secrets(text)
    assert gone not in masked and "<redacted>" in masked


def test_diagnostic_text_that_only_looks_similar_is_kept():
    for text in ("KeyError: 'tensorflow'", "TF_USE_LEGACY_KERAS=1", "keras 3.10.0",
                 "tensorflow-metal 1.2.0 loads with 2.19"):
        assert mask_secrets(text) == text


def test_user_names_joined_to_other_characters_and_host_names_in_any_case():
    who = Identity(home="/Users/alice", user="alice", host="Alices-MBP.local")
    text = redact("/opt/venvs/alice_venv/bin/python on alices-mbp (ALICES-MBP.LOCAL); alice-2; alicebob", who)
    assert "alice_" not in text.lower() and "alices-mbp" not in text.lower()
    assert text.count("<user>") == 2 and text.count("<host>") == 2
    assert "alicebob" in text  # another word that merely starts with the name stays


def test_short_host_names_are_redacted():
    who = Identity(home="/home/zq", user="zq", host="m1")
    assert redact("built on m1 by zq_dev", who) == "built on <host> by <user>_dev"


def test_snapshot_files_never_keep_credentials(tmp_path):
    """collect's redacted file, and also --no-redact's (snapshot_json), and a snapshot read back."""
    snap = Snapshot.from_dict(with_secrets(scenario("healthy_m2_tf2191_metal120_probed.json")))
    who = Identity(home="/Users/ada", user="ada", host="adas-mbp")
    for text in (json.dumps(redact_snapshot(snap, who).to_dict()), snapshot_json(snap)):
        assert SECRET not in text and TOKEN not in text
        assert "TF_CPP_MIN_LOG_LEVEL" in text  # TensorFlow's own settings stay
    path = tmp_path / "s.json"
    path.write_text(json.dumps(with_secrets(scenario("healthy_m2_tf2191_metal120_probed.json"))))
    assert SECRET not in json.dumps(read_snapshot(str(path)).to_dict())


@pytest.mark.parametrize("fmt", [["--json"], ["--format", "markdown"], ["-v"]])
def test_no_output_repeats_a_credential(tmp_path, fmt):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(with_secrets(scenario("pair_metal110_tf218_symbol_not_found.json"))))
    run = run_tfdoctor("diagnose", str(path), *fmt)
    assert_no_traceback(run)
    assert run.code == 1
    assert SECRET not in run.stdout and TOKEN not in run.stdout


HOSTILE = ("boom\n# Injected heading\n</details>\n<img src=x onerror=alert(1)>\n"
           "```\n| a | b |\n`code` **bold** [link](http://evil.example)")


def test_markdown_cannot_be_rewritten_by_the_environment(tmp_path):
    data = scenario("pair_metal110_tf218_symbol_not_found.json")
    data["runtime"]["import_error"]["message"] = HOSTILE
    data["runtime"]["message"] = HOSTILE
    data["env"] = {"TF_CPP_MIN_LOG_LEVEL": "```\n</details>\n# env heading"}
    data["packages"][0]["version"] = "1.0`</details>`"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    run = run_tfdoctor("diagnose", str(path), "--format", "markdown", "-v")
    assert run.code == 1, run.stderr
    tokens = MarkdownIt("commonmark").enable("table").parse(run.stdout)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings == [headings[0], "Findings"] and headings[0].startswith("tfdoctor ")
    html = [t.content.strip() for t in tokens if t.type == "html_block"]
    html += [c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "html_inline"]
    assert html == ["<details><summary>Environment</summary>", "</details>"]
    links = [c for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "link_open"]
    assert links == []
    fences = [t for t in tokens if t.type == "fence"]
    assert any("</details>" in t.content for t in fences)  # shown as text inside the block
    assert "Injected heading" in run.stdout  # the message is still there, as text


def test_markdown_code_spans_survive_backticks():
    from tfdoctor.render.markdown import code_span

    span = code_span("a ``b`` c")
    tokens = MarkdownIt("commonmark").parseInline(span)[0].children
    assert [t.type for t in tokens] == ["code_inline"] and tokens[0].content == "a ``b`` c"


def test_a_gathered_snapshot_is_masked_before_any_output():
    """What `check` gathers live (the collector's stderr tail, env) goes through
    mask_snapshot_secrets before it is shown."""
    from tfdoctor.gather.snapshot_files import mask_snapshot_secrets

    data = with_secrets(scenario("healthy_m2_tf2191_metal120_probed.json"))
    data["target"]["stderr_tail"] = f"Collecting from https://u:{SECRET}@nexus.example/simple"
    masked = mask_snapshot_secrets(Snapshot.from_dict(data))
    text = json.dumps(masked.to_dict())
    assert SECRET not in text and TOKEN not in text
    assert masked.env["TF_VAR_db_password"] == "<redacted>"
    assert masked.packages == Snapshot.from_dict(data).packages  # nothing else changes


def test_a_home_in_parentheses_or_before_a_comma_is_replaced_and_the_punctuation_kept():
    """Prose puts punctuation right after a path: "(in /Users/ada)", "/home/bob,". The home is
    still the home (and another user's name still goes), and the punctuation stays."""
    who = Identity("/Users/ada", "ada", "ada-mbp")
    text = "(in /Users/ada) and /Users/ada/x) y; /home/bob) x, /home/bob, [/Users/alice]"
    assert redact(text, who) == "(in ~) and ~/x) y; /home/<user>) x, /home/<user>, [/Users/<user>]"


def test_masking_masked_text_changes_nothing():
    """A fact read from text already masked (triage's python_prefix from a traceback path) is
    masked again on its way out: "/Users/<user>/venv" must not become "/Users/<user>>/venv"."""
    who = Identity(home="/Users/ada", user="ada", host="m1")
    once = redact("File \"/Users/bob/venv/lib/python3.9/site-packages/x.py\" and C:\\Users\\bob\\env", who)
    assert once == "File \"/Users/<user>/venv/lib/python3.9/site-packages/x.py\" and C:\\Users\\<user>\\env"
    assert redact(once, who) == once
