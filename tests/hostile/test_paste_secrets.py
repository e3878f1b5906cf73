"""Secrets in every form, and nothing kept that is not needed (issue 28, class 3).

Each form of credential that still reached `check --log --json` is put in a log next to an error
the signatures know (so the line is kept, and must be masked, not merely left out), and the real
command's JSON must not hold it. Then the other half: a report keeps the lines around each match
and what was read, not the log; a secret in an unmatched part of a long paste, in a form no
masker knows, reaches no output of any command that reads a paste, in any format. Only
`--keep-log` keeps the log's text, and then it is there.
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import assert_no_traceback, run_tfdoctor

from tfdoctor.sanitize.redact import MASK, mask_secrets

pytestmark = pytest.mark.slow  # tfdoctor subprocesses on logs full of secrets

ERROR = "NotFoundError: Op type not registered 'SentencepieceOp' in binary running on build-host."
FORMS = [  # (form, the line as a log holds it, what must go, what must stay to show it was kept)
    ("slack-webhook", "posting to https://hooks.slack.com/services/T024BE7LD/B01ABCDEFGH/xQ9bZ3kLmN8pR2sT4vW6yA1c",
     "xQ9bZ3kLmN8pR2sT4vW6yA1c", "hooks.slack.com"),
    ("discord-webhook", "DISCORD=https://discord.com/api/webhooks/1234567890123456789/Zx8-Yw7_Vu6Ts5Rq4Po3Nm2Lk1",
     "Zx8-Yw7_Vu6Ts5Rq4Po3Nm2Lk1", "discord.com/api/webhooks/"),
    ("discordapp-webhook", "hook https://discordapp.com/api/webhooks/987654321/Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8",
     "Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8", "discordapp.com"),
    ("teams-webhook", ("Teams: https://contoso.webhook.office.com/webhookb2/7f1c2d3e-aaaa@72f988bf/IncomingWebhook/"
                       "b41d9c8a3e2f4d5c/0f9e8d7c-6b5a"), "b41d9c8a3e2f4d5c", "contoso.webhook.office.com"),
    ("url-password-with-at", "Looking in indexes: https://deploy:p4ss@w0rd@pypi.corp.example/simple",
     "p4ss@w0rd", "pypi.corp.example"),
    ("url-password-with-slash", "remote: https://ci-bot:Tr1cky/Pass/42@git.corp.example/org/repo.git",
     "Tr1cky/Pass/42", "git.corp.example"),
    ("azure-sas-signature", ("GET https://acct.blob.core.windows.net/models/w.h5?sv=2022-11-02&ss=b&srt=o&sp=r"
                             "&se=2030-01-01T00:00:00Z&st=2024-01-01T00:00:00Z&spr=https&sig=Q2hBbmdlTWVTaWduYXR1cmU%3D"),
     "Q2hBbmdlTWVTaWduYXR1cmU", "acct.blob.core.windows.net"),
    ("azure-sas-other-parts", ("GET https://acct.blob.core.windows.net/c/b?sp=racwdl&st=2024-05-01T08:00:00Z"
                               "&se=2031-07-09T16:00:00Z&spr=https&sv=2022-11-02&sr=c&sig=U0FTc2lnbmF0dXJl"),
     "2031-07-09T16:00:00Z", "acct.blob.core.windows.net"),
    ("password-flag", "python train.py --password Hunt3rTw0 --epochs 3", "Hunt3rTw0", "--epochs 3"),
    ("password-equals", "python train.py --password=Hunt3rEq --epochs 3", "Hunt3rEq", "--epochs 3"),
    ("token-flag", "huggingface-cli download --token hfTokenValue77 org/model", "hfTokenValue77", "org/model"),
    ("api-key-flag", "wandb-cli sync --api-key 5f4dcc3b5aa765d61d8327deb882cf99 run", "5f4dcc3b5aa765d61d8327deb882cf99",
     "wandb-cli sync"),
    ("secret-flag", "deploy --secret Sup3rS3cr3tV4l --region eu", "Sup3rS3cr3tV4l", "--region eu"),
    ("docker-login-p", "docker login -u ada -p DockerPw9x registry.example.com", "DockerPw9x", "registry.example.com"),
    ("twine-p", "twine upload -u __token__ -p TwinePw8y dist/*", "TwinePw8y", "dist/*"),
    ("mysql-attached-p", "mysql -u root -pMysqlPw7z tfdb", "MysqlPw7z", "tfdb"),
]


def _check_json(tmp_path, text: str, *extra: str):
    path = tmp_path / "err.log"
    path.write_text(text, encoding="utf-8")
    run = run_tfdoctor("check", "--no-runtime", "--no-probes", "--json", "--log", str(path), *extra)
    assert_no_traceback(run)
    assert run.code in (0, 1), run.stderr
    return run


@pytest.mark.parametrize("form, line, secret, kept", FORMS, ids=[f[0] for f in FORMS])
def test_each_form_is_masked_in_the_json_of_check_log(tmp_path, form, line, secret, kept):
    run = _check_json(tmp_path, f"{line}\n{ERROR}\n")
    assert kept in run.stdout and MASK in run.stdout, "the line was not kept, so this proves nothing"
    parts = [part for part in re.split(r"[@/:%]", secret) if len(part) >= 4]  # none of it, not a piece
    assert [part for part in parts if part in run.stdout + run.stderr] == []


@pytest.mark.parametrize("line", ["mkdir -p /tmp/tf-cache", "ssh -p 2222 build-host", "mysql -h db -P 3306 tfdb",
                                  "pip install --token-file tokens.txt x", "docker login --password-stdin",
                                  "python train.py --tokenizer bert-base", "https://pypi.org:8443/simple/x@1",
                                  "see https://hooks.example.com/services/a/b"])
def test_what_only_looks_like_a_credential_flag_is_kept(line):
    assert mask_secrets(line) == line


def long_paste(secret: str) -> str:
    """3,000 lines of a training run, an unknown credential in its head and in its middle (far
    from any error), and an error the signatures know at the end."""
    lines = [f"{n}/3000 [==============================] - 9s 4ms/step - loss: 0.29 - accuracy: 0.91"
             for n in range(3000)]
    lines[4] = f"internal build ticket {secret}"  # the head: the old excerpt kept the first 15 lines
    lines[1500] = f"mirror note {secret}"
    return "\n".join(lines + [ERROR]) + "\n"


SECRET = "ZQX7f3aUnmatchedOpaque9d1c"
"""In no form a masker knows: only not keeping it can keep it out."""


@pytest.fixture(scope="module")
def pasted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paste")
    path = folder / "train.log"
    path.write_text(long_paste(SECRET), encoding="utf-8")
    return folder, path


@pytest.mark.parametrize("args", [
    ["check", "--json"], ["check"], ["check", "--format", "markdown"], ["check", "-v"],
    ["collect", "-o", "-"], ["collect", "--format", "markdown", "-o", "-"],
], ids=lambda a: " ".join(a))
def test_a_secret_in_an_unmatched_part_of_a_long_paste_reaches_no_output(pasted, args):
    _, path = pasted
    run = run_tfdoctor(*args, "--no-runtime", "--no-probes", "--log", str(path))
    assert_no_traceback(run)
    assert "SentencepieceOp" in run.stdout  # the matched line is there
    assert SECRET not in run.stdout + run.stderr


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
def test_nor_does_diagnose_log_or_triage(pasted, fmt):
    folder, path = pasted
    snapshot = folder / "snap.json"
    made = run_tfdoctor("collect", "--no-runtime", "--no-probes", "-o", str(snapshot))
    assert made.code == 0, made.stderr
    for args in (["diagnose", str(snapshot), "--log", str(path)], ["triage", str(path)]):
        run = run_tfdoctor(*args, "--format", fmt)
        assert_no_traceback(run)
        assert run.code in (0, 1), run.stderr
        assert SECRET not in run.stdout + run.stderr, args


def test_keep_log_keeps_the_text_when_asked_and_still_masks_credentials(tmp_path):
    text = long_paste(SECRET).replace("mirror note", "mirror note --password Hunt3rTw0 and")
    log = json.loads(_check_json(tmp_path, text, "--keep-log").stdout)["snapshot"]["log"]
    assert SECRET in log["text"] and "Hunt3rTw0" not in log["text"] and MASK in log["text"]
    assert log["kept_lines"] == log["lines"] == 3001


def test_a_command_line_given_to_run_keeps_no_credential():
    """`tfdoctor run -- CMD --password X`: the option and its value are separate arguments, which
    masking each as text cannot see; the command line as recorded is masked as a command line."""
    run = run_tfdoctor("run", "--json", "--", "python3", "-c", "pass", "--password", "RunSecretPw9",
                       "--api-key=RunKey8x", "-p", "kept-not-a-password")
    assert_no_traceback(run)
    argv = json.loads(run.stdout)["run"]["argv"]
    assert argv[3:] == ["--password", MASK, f"--api-key={MASK}", "-p", "kept-not-a-password"]
    assert "RunSecretPw9" not in run.stdout + run.stderr and "RunKey8x" not in run.stdout + run.stderr
