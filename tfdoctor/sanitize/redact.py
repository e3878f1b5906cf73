"""Remove what identifies a person, and anything that looks like a credential, from text meant
to be shown or pasted into a public bug report.

Two layers: `mask_secrets` (always applied, whatever the output: credentials never leave the
machine through tfdoctor) and `redact` (home directory, user and host names: for markdown and
`collect`, which are made to be shared), which also masks secrets.
"""

from __future__ import annotations

import functools
import getpass
import json
import os
import re
import socket
from dataclasses import dataclass
from typing import Any

MASK = "<redacted>"

_OTHER_HOMES = re.compile(r"(/Users/|/home/|/var/home/|\b[A-Za-z]:\\+Users\\+)(?!<user>)[^/\\\s\"'`),;>\]]+")
"""Another user's home: the user part ends where a path part would, or at the punctuation prose
puts after a path ("(in /home/bob)", "/home/bob,"); one already masked stays as it is, so that
masking twice (a fact read from masked text) changes nothing."""
_TOO_COMMON_TO_REPLACE = {"root", "user", "admin", "runner", "ubuntu", "home", "users", "local"}
"""User and host names that are also ordinary words in reports ("conda root"); a home under
such a name is still hidden."""

SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "KEY", "CREDENTIAL",
                "COOKIE")
"""A variable or parameter whose name contains one of these holds a credential (issue 15:
Terraform's TF_VAR_db_password and TF_TOKEN_app_terraform_io leaked through `TF_.*`)."""

_NAME_CHARS = r"[A-Za-z0-9_.\-]"
_NAME = (rf"(?<!{_NAME_CHARS})(?=[A-Za-z0-9_.\-]*?(?:" + "|".join(SECRET_WORDS) + rf")){_NAME_CHARS}+")
"""A name holding one of SECRET_WORDS, from the start of its run of name characters: the word is
looked for ahead once, then the whole run is taken (a word repeated in a long run would
otherwise be tried at each of its places, with the rest of the run after each)."""
_ASSIGNED = re.compile(r"(?i)(" + _NAME + r")([ \t]*=[ \t]*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s&;,\"'`]+)")
"""NAME=value (environment dumps, shell lines, URL query strings: ?access_token=...)."""
_QUOTED = re.compile(r"(?i)([\"'])(?=[A-Za-z0-9_.\-]*?(?:" + "|".join(SECRET_WORDS) + r"))"
                     r"([A-Za-z0-9_.\-]+)\1([ \t]*:[ \t]*)([\"'])(?:(?<=\")[^\"\n]*\"|(?<=')[^'\n]*')")
"""A JSON or Python dict entry: "db_password": "value"."""
_SCHEME = r"(?<![A-Za-z0-9+.\-])([a-z][a-z0-9+.\-]*://)"
"""A URL's scheme, from the start of its run of scheme characters (`\b` would let every letter
of a long word begin a scan)."""
_URL_USERINFO = re.compile(r"(?i)" + _SCHEME + r"([^\s/@:\"'`<>]*):(?![0-9]+(?:[/?#\s\"'`<>]|$))"
                           r"((?:[^\s\"'`<>:]|:(?!//))+)@(?=[A-Za-z0-9\[])")
"""scheme://user:password@host: the password goes, to the last `@` before a host, so a password
holding `@`, `/` or `:` goes whole (pip index URLs, database URLs); `host:8080/...` is a port.
The password never reaches past another `://` (where the next URL's own scan starts)."""
_URL_TOKEN_USER = re.compile(r"(?i)" + _SCHEME + r"([^\s/@:\"'`<>]{20,})@")
"""scheme://TOKEN@host: a user part that long is a token (https://ghp_...@github.com)."""
_WEBHOOK = re.compile(
    r"(?i)(?<![A-Za-z0-9+.\-])(https?://(?:hooks\.slack\.com/(?:services|workflows|triggers)"
    r"|(?:[a-z0-9-]+\.)?discord(?:app)?\.com/api/webhooks|[a-z0-9-]+\.webhook\.office\.com"
    r"|outlook\.office(?:365)?\.com/webhook)/)[^\s\"'`<>]+")
"""Incoming webhooks, whose path is the secret (whoever has it may post): Slack, Discord,
Microsoft Teams. The host stays, to say what it was."""
_SAS_TOKEN = re.compile(r"(?i)(?<![^\s\"'`<>])[^\s\"'`<>]*?[?&;=]sig=[^\s\"'`<>]*")
"""A token holding an Azure shared access signature (`?sv=...&sig=...`, a connection string's
SharedAccessSignature=...): its SAS parameters are masked (`_SAS_PART`)."""
_SAS_PART = re.compile(r"(?i)(?<=[?&;=])(sv|ss|srt|sp|se|st|spr|sig|sr|si|sip|skoid|sktid|skt|ske|"
                       r"sks|skv|sdd|ses|rscc|rscd|rsce|rscl|rsct)=[^&;#\s\"'`<>]*")
_FLAG_WORDS = (r"password|passwd|passphrase|pass|pwd|token|secret|api[_-]?key|apikey|access[_-]?key"
               r"|secret[_-]?key|private[_-]?key|auth[_-]?token|credentials?")
_FLAG = re.compile(r"(?i)(?<![\w-])(--?(?:[\w-]*?[_-])?(?:" + _FLAG_WORDS + r"))(=|[ \t]+)(?![-\s])(\S+)")
"""A credential given on a command line: --password X, --token=X, --api-key X, -pass pass:X (the
option's name ends in the word: --token-file and --password-stdin are kept)."""
_PASSWORD_P = re.compile(
    r"(?i)(?<![\w.-])((?:(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)(?:[ \t]+[^\s|;&]{1,100}){0,6}?"
    r"[ \t]+login|twine|sshpass|mysql|mysqldump|mariadb|mariadb-dump)(?:[ \t]+[^\s|;&]{1,200}){0,12}?"
    r"[ \t]+(?-i:-p))(?:([ \t]+|=)(?!-)|(?=[^\s-]))(\S+)")
"""`-p X` where -p is a password, not a port or `mkdir -p`: docker/podman... login, twine,
sshpass, and mysql's attached -pSECRET."""
_TOKEN_VALUES = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,}"
    r"|xox[abposre]-[A-Za-z0-9\-]{10,}|(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}"
    r"|hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_\-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|whsec_[A-Za-z0-9]{20,}|AIza[0-9A-Za-z_\-]{35}|ya29\.[0-9A-Za-z_\-]{20,}"
    r"|pypi-[A-Za-z0-9_\-]{20,}|npm_[A-Za-z0-9]{20,}|dckr_pat_[A-Za-z0-9_\-]{20,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})")
"""Credentials recognisable by their own shape (GitHub, GitLab, Slack, AWS access key ids,
Hugging Face, OpenAI, Stripe, Google API keys and OAuth tokens, PyPI, npm and Docker tokens,
JSON Web Tokens), wherever they appear."""
_PRIVATE_KEY = re.compile(
    r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    re.DOTALL)
"""A PEM, OpenSSH or PGP private key, to its END line (or to the end of a cut excerpt)."""
_AUTH_SCHEME = re.compile(r"(?i)\b(Bearer|Basic|Digest)(\s+)(?=[A-Za-z._~\-]*[0-9+/=])"
                          r"[A-Za-z0-9._~+/\-]{8,}=*")
"""Authorization: Bearer TOKEN (and Basic, Digest) in a header or a curl line; the value has a
digit or a base64 sign (`basic training` is prose)."""
_HEADERS = re.compile(r"(?im)^([ \t>*<-]*(?:\w[\w-]*-)?(?:Authorization|Proxy-Authorization|Cookie|"
                      r"Set-Cookie|X-Api-Key|X-Auth-Token|Api-Key)[ \t]*:[ \t]*)(\S.*)$")
"""Whole header values (an HTTP dump, curl -v: `> Cookie: session=...`)."""
_NETRC = re.compile(r"(?i)\b((?:machine|default)\b(?:(?!\bmachine\b|\bdefault\b)[^\n])*?\b(?:password|passwd|account)"
                    r"\s+)(\S+)")
"""A .netrc line: machine HOST login USER password SECRET."""
_COLON_WORDS = (r"(?:password|passwd|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key"
                r"|secret[_\-]?key|private[_\-]?key|account[_\-]?key|credentials?|auth|cookie|signature)s?")
_COLON = re.compile(r"(?i)(?<![A-Za-z0-9_.\-])(?=[A-Za-z0-9_.\-]*?" + _COLON_WORDS + r"[\"']?[ \t]*:)"
                    r"([A-Za-z0-9_.\-]+)([\"']?[ \t]*:[ \t]*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;\"'`{}\[\]]+)")
"""YAML, a log line or an unquoted dict entry: `password: hunter2`, `api_key: "x"` (the name
must end in the word: `tokenizer: bert` and `KeyError: 'x'` are kept)."""


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether an environment variable or field called `name` holds a credential."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


_NEEDLES = tuple(w.lower() for w in SECRET_WORDS) + (
    "://", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "akia", "hf_",
    "sk-", "pypi-", "npm_", "asia", "agpa", "aida", "aroa", "anpa", "sk_", "rk_", "whsec_",
    "aiza", "ya29.", "dckr_pat_", "eyj", "private key", "bearer", "basic", "digest",
    "authorization", "machine", "default", "pwd", "auth", "signature", "api-key", "hooks.slack",
    "discord", "webhook", "sig=", "pass", "-p")
"""Every pattern below needs one of these (a secret word, a URL, a token prefix), in lower
case: text without any (names, versions, paths, requirements) is returned at once."""


def _may_hold_secrets(text: str) -> bool:
    low = text.lower()
    return any(needle in low for needle in _NEEDLES)  # substring tests: megabytes in ms


def mask_secrets(text: str) -> str:
    """`text` with credential-looking values replaced by <redacted> (names are kept)."""
    if not text or not _may_hold_secrets(text):
        return text
    text = _PRIVATE_KEY.sub(lambda m: f"-----BEGIN {m.group(1)}PRIVATE KEY-----{MASK}"
                                      f"-----END {m.group(1)}PRIVATE KEY-----", text)
    text = _HEADERS.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _NETRC.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _AUTH_SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _WEBHOOK.sub(lambda m: f"{m.group(1)}{MASK}", text)
    text = _SAS_TOKEN.sub(lambda m: _SAS_PART.sub(lambda part: f"{part.group(1)}={MASK}", m.group(0)), text)
    text = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", text)
    text = _URL_TOKEN_USER.sub(lambda m: f"{m.group(1)}{MASK}@", text)
    text = _ASSIGNED.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _QUOTED.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}"
                                 f"{m.group(4)}{MASK}{m.group(4)}", text)
    text = _COLON.sub(lambda m: m.group(0) if m.group(3) == MASK or m.group(3).strip("\"'") == MASK
                      else f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _FLAG.sub(lambda m: m.group(0) if m.group(3) == MASK else f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _PASSWORD_P.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}{MASK}", text)
    return _TOKEN_VALUES.sub(MASK, text)


_FLAG_NAME = re.compile(r"(?i)--?(?:[\w-]*?[_-])?(?:" + _FLAG_WORDS + r")")
_P_IS_PASSWORD = frozenset({"twine", "sshpass", "mysql", "mysqldump", "mariadb", "mariadb-dump"})
_LOGINS = frozenset({"docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras"})


def mask_argv(argv: list[str]) -> list[str]:
    """A command line with its credentials masked: each argument as `mask_secrets` masks text,
    and the argument after a credential option (`--password`, `--token`, ...; `-p` of the
    commands whose -p is a password), which text masking cannot tell from a file name."""
    out = [mask_secrets(arg) for arg in argv]
    programs = {os.path.basename(arg) for arg in argv if not arg.startswith("-")}
    password_p = bool(programs & _P_IS_PASSWORD) or bool(programs & _LOGINS and "login" in argv)
    for i, arg in enumerate(argv[:-1]):
        if (_FLAG_NAME.fullmatch(arg) or (arg == "-p" and password_p)) and not argv[i + 1].startswith("-"):
            out[i + 1] = MASK
    if password_p:
        out = [f"-p{MASK}" if arg.startswith("-p") and len(arg) > 2 and arg[2] != "=" else arg for arg in out]
    return out


def mask_plain(value: Any) -> Any:
    """Plain JSON data with credentials masked: values of secret-named keys (an env entry
    TF_VAR_db_password) and credential-looking text in every string."""
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, (dict, list)) and not _may_hold_secrets(json.dumps(value, default=str)):
        return value  # nothing in it can be a credential: one C-speed dump instead of a walk
    if isinstance(value, list):
        return [mask_plain(v) for v in value]
    if isinstance(value, dict):
        return {key: (MASK if isinstance(item, str) and isinstance(key, str) and is_secret_name(key)
                      else mask_plain(item)) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class Identity:
    home: str
    user: str
    host: str

    @classmethod
    def current(cls) -> "Identity":
        try:
            user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name is fine, there is nothing to hide then
            user = ""
        try:
            host = socket.gethostname()
        except OSError:
            host = ""
        return cls(os.path.expanduser("~"), user, host)


def _word(name: str) -> re.Pattern[str]:
    """`name` as a whole word, also when joined to digits, `_`, `-` or `.` (alice_venv,
    alices-mbp.local), in any case, but not inside a longer word (al in alice)."""
    return re.compile(rf"(?i)(?<![A-Za-z]){re.escape(name)}(?![A-Za-z])")


def _host_names(host: str) -> list[str]:
    """The host name and its first label (Alices-MBP.local is also printed as Alices-MBP)."""
    names = [host, host.split(".", 1)[0]]
    return sorted({n for n in names if len(n) >= 2 and n.lower() not in _TOO_COMMON_TO_REPLACE},
                  key=len, reverse=True)


def redact(text: str, identity: Identity | None = None) -> str:
    """Mask secrets; replace the home directory with ~, other homes' user parts, user and host
    names (also joined to other characters, in any case, short ones too)."""
    who = identity or Identity.current()
    text = mask_secrets(text)
    if who.home and who.home not in ("/", ""):
        # Only the home itself, not a longer name it is a prefix of (/Users/al vs /Users/alice).
        text = re.sub(re.escape(who.home.rstrip("/")) + r"(?![^/\s'\"`),;>\]])", "~", text)
    text = _OTHER_HOMES.sub(lambda m: m.group(1) + "<user>", text)
    for host in _host_names(who.host or ""):
        text = _word(host).sub("<host>", text)
    user = who.user or ""
    if len(user) >= 2 and user.lower() not in _TOO_COMMON_TO_REPLACE:
        text = _word(user).sub("<user>", text)
    return text
