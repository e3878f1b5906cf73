"""Issue 22, class 4: credentials inside a pasted log never reach `check --log --json` or the
snapshot `collect --log` writes. A corpus of real-looking secrets of more than 20 kinds, each
where a log would hold it; each secret part must be gone from every output."""

from __future__ import annotations

import pytest
from conftest import assert_no_traceback, run_tfdoctor

from tfdoctor.sanitize.redact import mask_secrets, redact, Identity

PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7pemSecretBody0123456789abcdef\n"
       "q83jdPEMSECRETLINE2xyz\n-----END RSA PRIVATE KEY-----")
SSH = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUSSHSECRET\n"
       "-----END OPENSSH PRIVATE KEY-----")
CORPUS = [  # (kind, line as a log holds it, the secret part that must go)
    ("aws-access-key-id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("aws-temp-key-id", "using ASIAY34FZKBOKMUTVV7A for s3", "ASIAY34FZKBOKMUTVV7A"),
    ("aws-secret-key", "aws_secret_access_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github-classic", "remote: ghp_R8m2kQ9xZt4LpW7vN3bY6cJ1hF5dS0aE2gTu", "ghp_R8m2kQ9xZt4LpW7vN3bY6cJ1hF5dS0aE2gTu"),
    ("github-fine", "GH github_pat_11ABCDEFG0abcdefghijKLMNOP_qrstuvwxyz0123456789ABCDEFGHIJ",
     "github_pat_11ABCDEFG0abcdefghijKLMNOP"),
    ("gitlab", "CI_TOKEN glpat-xK3nR9vT2mQ8wL5pZ7yB", "glpat-xK3nR9vT2mQ8wL5pZ7yB"),
    ("slack", "hook xoxb-2481357911-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-2481357911"),
    ("stripe", "stripe.api_key sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("openai", "openai.error: Incorrect API key provided: sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQr",
     "sk-proj-Ab12Cd34Ef56Gh78Ij90KlMnOpQr"),
    ("huggingface", "huggingface-cli login hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"),
    ("google-api-key", "url=https://maps.example/api?k AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
     "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("jwt", "id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "eyJzdWIiOiIxMjM0NTY3ODkwIn0"),
    ("bearer", "curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://x",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("authorization-header", "> Authorization: token 0123456789abcdefTOKENVALUE", "0123456789abcdefTOKENVALUE"),
    ("basic-auth-url", "Looking in indexes: https://deploy:Sup3rS3cretPw@pypi.corp.example/simple",
     "Sup3rS3cretPw"),
    ("pem-private-key", PEM, "MIIEowIBAAKCAQEA7pemSecretBody0123456789abcdef"),
    ("ssh-private-key", SSH, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUSSHSECRET"),
    ("cookie", "> Cookie: sessionid=CookieSecret123abc; csrftoken=Csrf456def", "CookieSecret123abc"),
    ("set-cookie", "< Set-Cookie: auth=SetCookieSecret789; Path=/; HttpOnly", "SetCookieSecret789"),
    ("netrc", "machine api.wandb.ai login user password NetrcSecret42xyz", "NetrcSecret42xyz"),
    ("yaml-password", "  password: YamlPassw0rdSecret", "YamlPassw0rdSecret"),
    ("yaml-token", "token: YamlTokenValue123456", "YamlTokenValue123456"),
    ("json-secret", '{"client_secret": "JsonClientSecret999"}', "JsonClientSecret999"),
    ("env-passwd", "DB_PASSWD=EnvPasswdSecret77", "EnvPasswdSecret77"),
    ("azure", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=AzUrEkEy0123456789abcdefABCDEF+/==;"
     "EndpointSuffix=core.windows.net", "AzUrEkEy0123456789abcdefABCDEF"),
    ("npm", "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
     "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("pypi", "twine upload -p pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcA", "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdo"),
    ("google-oauth", "access ya29.a0AfH6SMBxYzAbCdEfGhIjKlMnOpQrStUv", "ya29.a0AfH6SMBxYzAbCdEfGhIjKlMnOpQrStUv"),
]
HOMES = [("home-macos", '  File "/Users/zoe.hacker/proj/train.py", line 3', "zoe.hacker"),
         ("home-linux", "/home/mallory-dev/.cache/pip", "mallory-dev")]


@pytest.mark.parametrize("kind, line, secret", CORPUS, ids=[c[0] for c in CORPUS])
def test_each_kind_is_masked(kind, line, secret):
    masked = mask_secrets(line)
    assert secret not in masked, masked


@pytest.mark.parametrize("kind, line, user", HOMES, ids=[h[0] for h in HOMES])
def test_other_homes_lose_their_user(kind, line, user):
    assert user not in redact(line, Identity("/Users/ada", "ada", "ada-mbp"))


@pytest.mark.parametrize("prose", ["KeyError: 'learning_rate'", "tokenizer: bert-base-uncased",
                                   "basic training loop", "Epoch 1/10 - loss: 0.31 - accuracy: 0.9"])
def test_prose_is_kept(prose):
    assert mask_secrets(prose) == prose


def secret_log(tmp_path):
    lines = ['  File "/x/train.py", line 1, in <module>',
             "ModuleNotFoundError: No module named 'tensorflow'"]
    for _, line, _ in CORPUS + HOMES:
        lines.append(line)
    lines.append("ModuleNotFoundError: No module named 'tensorflow'")
    path = tmp_path / "err.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_check_log_json_holds_no_secret(tmp_path):
    run = run_tfdoctor("check", "--no-runtime", "--log", str(secret_log(tmp_path)), "--json")
    assert_no_traceback(run)
    assert run.code in (0, 1), run.stderr
    leaked = [kind for kind, _, part in CORPUS + HOMES if part in run.stdout or part in run.stderr]
    assert not leaked


def test_collect_log_snapshot_holds_no_secret(tmp_path):
    out = tmp_path / "snap.json"
    run = run_tfdoctor("collect", "--no-runtime", "--log", str(secret_log(tmp_path)), "-o", str(out))
    assert_no_traceback(run)
    assert run.code == 0, run.stderr
    text = out.read_text()
    assert "excerpt" in text
    leaked = [kind for kind, _, part in CORPUS + HOMES if part in text]
    assert not leaked
