"""A command the reporter ran, with the output printed under it: `uname -m`, `arch`, `python
--version`, `which python`, `sw_vers -productVersion`, `sysctl -n ...`, `python -c "import
platform; print(platform.machine())"` and the same questions asked at a `>>>` prompt.

Such output is one bare word ("x86_64", "3.9.7", a path), which means something only under the
command that printed it; so the command is found first and its output read from the next lines.
The one-liners are code, but code whose printed answer is the fact itself: the only code this
reader takes as evidence. What each prints: `uname -m` and `arch` the terminal's architecture
(`arch` says i386 for x86_64; both say x86_64 under Rosetta), platform.machine() the Python
process's (x86_64 when translated), platform.processor() "arm" or "i386", sys.executable the
interpreter's path, `sysctl -n hw.optional.arm64` 1 on Apple silicon, `sysctl -n
sysctl.proc_translated` 1 in a translated process (sysctl(8), Python's Lib/platform.py), and R's
`R.version$arch` (`[1] "x86_64"`) the build R is: reticulate's Python runs inside R, as R was built.
A reporter who quotes the answer in a sentence ("`R.version$arch` returned "x86_64"",
"platform.machine() gives x86_64") is read the same way, from that line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from tfdoctor.facts.archnames import normalise
from tfdoctor.triage.evidence import Found
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.platforms import PLATFORM, read_platform
from tfdoctor.triage.read_system import brand
from tfdoctor.triage.vocabulary import macos_version, version_at

COMMAND_TAIL = 400
"""Characters at a line's end searched for a command: every line costs the same bounded work."""
LOOK_AHEAD = 6
"""Lines below a command searched for its output (TensorFlow may log a few lines first)."""

_PROMPT_END = r"(?:^|[\s$%#>:;])"
_PY = r"(?:[^\s/'\"]{0,100}/){0,30}python[\d.]{0,5}"
_QUOTED_CODE = r"[ \t]{1,3}-c[ \t]{1,3}(?P<q>['\"])(?P<code>(?:(?!(?P=q)).){1,400})(?P=q)"
_ONE_LINER = re.compile(_PROMPT_END + _PY + _QUOTED_CODE + r"[ \t]*$")
_PATH = re.compile(r"/\S{0,1000}(?:/python[\d.]{0,6}|/Python)")
_HINTS = ("uname", "arch", "python", "which", "command", "type", "sw_vers", "sysctl", "platform.",
          "sys.", "tf.", "tensorflow.", "R.version")
"""Words one of the questions needs: a line without any is no question (a substring test)."""
_BANNER = re.compile(r"\[(?:Clang|GCC|MSC)[^\]]{0,120}\](?: :: (?P<distributor>[^:]{1,60}))?[ \t]on[ \t](?P<platform>\w{1,20})")
_TF_LOG = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


Answer = Callable[[Line, str, str, Found], bool]
"""(output line, its text, source, found) -> whether the text was the command's output (and then
its fact is recorded)."""


@dataclass(frozen=True)
class Question:
    """A command and how to read what it printed."""

    pattern: re.Pattern[str]
    source: str
    answer: Answer


def _arch(name: str) -> Answer:
    def answer(line: Line, text: str, source: str, found: Found) -> bool:
        value = text.strip("'\" ")
        arch = {"i386": "x86_64", "arm": "arm64"}.get(value, normalise(value))
        if arch not in ("arm64", "x86_64"):
            return False
        found.add(line, name, arch, "read", source)
        return True
    return answer


def _r_arch(line: Line, text: str, source: str, found: Found) -> bool:
    """R's answer (`[1] "x86_64"` at its console): the build R is, and so what its Python runs as."""
    value = text.removeprefix("[1]").strip().strip("'\"")
    arch = {"aarch64": "arm64"}.get(value, normalise(value))
    if arch not in ("arm64", "x86_64"):
        return False
    found.add(line, "python_host", f"R {value}", "read", source)
    found.add(line, "python_arch", arch, "inferred", source)
    return True


def _python_version(line: Line, text: str, source: str, found: Found) -> bool:
    value = text.strip("'\" ")
    value = value[7:] if value.startswith("Python ") else value
    version = version_at(value)
    if not version or not version.startswith(("2.", "3.")) or version.count(".") < 1:
        return False
    found.add(line, "python_version", version, "read", source)
    return True


def _python_path(line: Line, text: str, source: str, found: Found) -> bool:
    value = text.strip("'\" ")
    if not _PATH.fullmatch(value):
        return False
    found.add(line, "python_path", value, "read", source)
    return True


def _macos(line: Line, text: str, source: str, found: Found) -> bool:
    value = text.strip()
    if not macos_version(value):
        return False
    found.add(line, "os", "Darwin", "read", source)
    found.add(line, "macos_version_reported" if value == "10.16" else "macos_version", value, "read", source)
    return True


def _brand(line: Line, text: str, source: str, found: Found) -> bool:
    value = text.strip()
    if not value.startswith(("Apple M", "Intel", "VirtualApple")) or len(value) > 120:
        return False
    brand(line, value, source, found)
    return True


def _flag(name: str) -> Answer:
    def answer(line: Line, text: str, source: str, found: Found) -> bool:
        value = text.strip()
        if value not in ("0", "1"):
            return False
        if name == "translated":  # the OID exists on Apple silicon only
            found.add(line, "hw_arm64", "true", "read", source)
            found.add(line, "shell_arch", "x86_64" if value == "1" else "arm64", "read", source)
        else:
            found.add(line, "hw_arm64", "true" if value == "1" else "false", "read", source)
        return True
    return answer


def _platform(line: Line, text: str, source: str, found: Found) -> bool:
    match = PLATFORM.search(text[:300])
    if not match:
        return False
    read_platform(match).record(line, source, found)
    return True


def _tensorflow(line: Line, text: str, source: str, found: Found) -> bool:
    value = text.strip("'\" ")
    if version_at(value) != value or "." not in value:
        return False
    found.add(line, "tensorflow_version", value, "read", source)
    return True


def _shell(command: str) -> re.Pattern[str]:
    return re.compile(_PROMPT_END + command + r"[ \t]*$")


QUESTIONS = (
    Question(_shell(r"(?:print\()?R\.version\$arch\)?"), "R.version$arch", _r_arch),  # before `arch`
    Question(_shell(r"uname[ \t]{1,3}-m"), "uname -m", _arch("shell_arch")),
    Question(_shell(r"arch"), "arch", _arch("shell_arch")),
    Question(_shell(_PY + r"[ \t]{1,3}(?:--version|-V)"), "python --version", _python_version),
    Question(_shell(r"(?:which|command[ \t]-v|type[ \t]-p)[ \t]{1,3}python[\d.]{0,5}"), "which python", _python_path),
    Question(_shell(r"sw_vers[ \t]{1,3}-productVersion"), "sw_vers", _macos),
    Question(_shell(r"sysctl[ \t]{1,3}-n[ \t]{1,3}machdep\.cpu\.brand_string"), "sysctl", _brand),
    Question(_shell(r"sysctl[ \t]{1,3}-i?n[ \t]{1,3}hw\.optional\.arm64"), "sysctl", _flag("hw_arm64")),
    Question(_shell(r"sysctl[ \t]{1,3}-i?n[ \t]{1,3}sysctl\.proc_translated"), "sysctl", _flag("translated")),
)
"""Shell commands whose one-line output is a fact."""

CODE = (
    ("platform.machine()", "platform.machine()", _arch("python_arch")),
    ("platform.processor()", "platform.processor()", _arch("python_arch")),
    ("platform.platform()", "platform.platform()", _platform),
    ("sys.executable", "sys.executable", _python_path),
    ("platform.python_version()", "platform.python_version()", _python_version),
    ("sys.version", "sys.version", _python_version),
    ("tf.__version__", "tf.__version__", _tensorflow),
    ("tf.version.VERSION", "tf.__version__", _tensorflow),
    ("tensorflow.__version__", "tf.__version__", _tensorflow),  # `import tensorflow` without an alias
    ("tensorflow.version.VERSION", "tf.__version__", _tensorflow),
)
"""Python expressions whose printed value is a fact: (text in the code, source, reader)."""


QUOTED = {"uname -m": "uname -m", "platform.machine()": "platform.machine()",
          "platform.processor()": "platform.processor()", "R.version$arch": "R.version$arch"}
"""Commands whose answer a reporter quotes in a sentence, by the source that reads it."""
_QUOTED = re.compile(r"`?(?P<asked>uname -m|platform\.machine\(\)|platform\.processor\(\)|R\.version\$arch)`?"
                     r"(?: command)?[ \t]{1,3}(?:returned|returns|gives|gave|prints|printed|outputs|says|said|shows"
                     r"|showed|is)[ \t]{1,3}(?P<value>[`'\"]?[\w.-]{1,20}[`'\"]?)")
"""`platform.machine()` returns "x86_64": the command, a verb of its output, the value."""


def read(doc: Document, found: Found) -> None:
    lines = doc.lines
    answers = {q.source: q.answer for q in QUESTIONS} | {source: answer for _code, source, answer in CODE}
    for index, line in enumerate(lines):
        if len(line.text) > 2000:
            continue
        asked = _question(line)
        quoted = None if asked or line.code else _QUOTED.search(line.text)
        if asked:
            _answer(lines, index, asked, found)
        elif quoted and answers[QUOTED[quoted.group("asked")]](line, quoted.group("value").strip("`'\""),
                                                              QUOTED[quoted.group("asked")], found):
            found.claim(line)
        elif not line.code and line.text.startswith("Python ") and (line.fenced or "[" in line.text or "(" in line.text):
            _printed_version(lines, index, found)


def _printed_version(lines: Sequence[Line], index: int, found: Found) -> None:
    """"Python 3.10.4" pasted without its command, or the banner an interactive Python starts
    with ("Python 3.9.13 (main, Aug 25 2022, 18:29:29)" over "[Clang 12.0.0 ] :: Anaconda, Inc.
    on darwin", Python/getversion.c and Modules/main.c)."""
    line = lines[index]
    banner_line, banner = line, _BANNER.search(line.text[:400])
    if banner is None and "(" in line.text and index + 1 < len(lines):
        banner_line, banner = lines[index + 1], _BANNER.match(lines[index + 1].text.strip()[:400])
    if banner is None and not line.fenced:
        return  # "Python 3.10" in a sentence is prose's to read
    source = "python banner" if banner else "python --version"
    if not _python_version(line, line.text.strip(), source, found):
        return
    found.claim(line)
    if banner:
        system = {"darwin": "Darwin", "linux": "Linux", "win32": "Windows"}.get(banner.group("platform"))
        if system:
            found.add(banner_line, "os", system, "read", source)
        if banner.group("distributor") and "Anaconda" in banner.group("distributor"):
            found.add(banner_line, "env_manager", "anaconda", "read", source)
        found.claim(banner_line)


def _question(line: Line) -> tuple[str, Answer] | None:
    """The source and reader of the command or expression on this line, if it asks one (looked
    for at the line's end, where a prompt leaves it)."""
    text = line.text[-COMMAND_TAIL:]
    if not any(word in text for word in _HINTS):
        return None
    if line.code:  # a >>> prompt, or a python block: only a lone expression is a question
        expression = text.strip()
        if expression.startswith("print(") and expression.endswith(")"):
            expression = expression[6:-1].strip()
        return next(((source, answer) for code, source, answer in CODE if expression == code), None)
    one_liner = _ONE_LINER.search(text)
    if one_liner:
        code = one_liner.group("code")
        printed = [(source, answer) for key, source, answer in CODE if key in code]
        return printed[0] if len(printed) == 1 and "print(" in code else None
    for question in QUESTIONS:
        if question.pattern.search(text):
            return question.source, question.answer
    return None


def _answer(lines: Sequence[Line], index: int,
            asked: tuple[str, Answer], found: Found) -> None:
    """Read the output under the command at `index`: the first line the command's reader
    accepts, skipping blank lines and TensorFlow's log lines, stopping at the next command."""
    source, answer = asked
    command = lines[index]
    for line in lines[index + 1:index + 1 + LOOK_AHEAD]:
        text = line.text.strip()
        if line.number > command.number + LOOK_AHEAD or (line.code and not command.code) or (
                line.code and command.prompt):
            return  # a shell's next command, or a prompt that printed nothing
        if line.code or not text or _TF_LOG.match(text) or len(text) > 2000:
            continue  # the rest of a script, whose output comes after it
        # the value alone, or after a label the one-liner printed ("TensorFlow version: 2.18.0")
        if answer(line, text, source, found) or (" " in text and answer(line, text.rsplit(None, 1)[-1], source, found)):
            found.claim(command, line)
            return
        if _question(line):
            return
