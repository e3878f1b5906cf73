"""What a person wrote about their setup: "M1 Max, Ventura, Python 3.10, tensorflow-macos 2.9
and tensorflow-metal 0.5".

Prose is read only outside fences and code, and only for the few things people state in it:
versions of Python, macOS (by number or by name; a Mac named without one says the OS, and so does
tensorflow-macos or tensorflow-metal, made for macOS only), TensorFlow and its companion packages, the
chip (or Rosetta named: it runs only on Apple silicon), the architecture they believe they run,
an `arm64`/`x86_64` word, a Docker platform and the installer they used. A version stated as a
floor or a requirement ("macOS 12.0 or later", "requires Python 3.8") is not the machine's.
Everything read here is "stated": what the person believes, which a pasted output can
contradict. `statements` is also how issue-template fields are read.
"""

from __future__ import annotations

import re
from typing import Iterator

from tfdoctor.facts.snapshot import TENSORFLOW_DISTRIBUTIONS
from tfdoctor.knowledge import eras
from tfdoctor.triage.evidence import Found, package_fact
from tfdoctor.triage.layout import Document
from tfdoctor.triage.vocabulary import MACOS_NAMES, SYSTEMS, chips_in, macos_version, version_at

_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://\S{1,2000}")
_PYTHON = re.compile(r"(?i)(?<![\w/.-])python[ \t]{0,3}(?:version[ \t:]{0,3})?v?(?=[23]\.\d)")
_MACOS = re.compile(r"(?i)(?<![\w-])(?:(?:mac[ \t]{0,2}os(?:[ \t]{0,2}x)?|os[ \t]{0,2}x)(?![a-z_-])[ \t:,]{0,3}(?:version[ \t:]{0,3})?"
                    r"|mac[ \t]{1,2}(?:version[ \t:]{1,3}(?=\d)|(?=\d{2}\.\d)))")
"""macOS, Mac OS X or OS X, then its version: "macOS 12.3", "macOS11" and "M1/macOS11" as titles
squeeze them, "OSX10.15"; and the Mac with its version, as issue templates' OS fields get it:
"Mac version 10.10.5", "Mac 12.6" (a bare "Mac" only before a dotted release)."""
_NAMES = re.compile(r"(?<![\w-])(Mountain[ \t]?Lion|Mavericks|Yosemite|El[ \t]?Capitan|High[ \t]?Sierra|Sierra|Mojave|"
                    r"Catalina|Big[ \t]?Sur|Monterey|Ventura|Sonoma|Sequoia|Tahoe)(?![\w-])", re.I)
_PLACES = ("tahoe", "sierra", "yosemite", "mavericks")
"""Names that are places (or a team) first: a macOS only with the word macOS, OS X or Mac OS X before them."""
_A_MAC = re.compile(r"(?i)(?<![\w/.-])(?:mac[ \t]?book(?:[ \t]?(?:pro|air))?|imac|mac[ \t]?(?:mini|studio|pro)|"
                    r"mac[ \t]?os(?:[ \t]?x)?|os[ \t]?x|(?:on|my|a|the|for|with)[ \t]{1,3}macs?)(?![\w/-])"
                    r"(?![ \t]{1,3}address)")
"""A Mac named without a version ("on Mac", "my MacBook Pro", "macOS"): the report is about one."""
_VERSION_WORD = re.compile(r"(?i)[ \t(,]{0,3}(?:version[ \t:]{0,3})?")
"""What may stand between a macOS name and its number: "Ventura 13.2", "Monterey (version 12.5"."""
_ARCH_WORD = re.compile(r"(?<![\w/.-])(arm64|x86_64)(?![\w/.-])")
_SILICON = re.compile(r"(?i)\bapple[ \t]{1,3}silicon\b")
_ROSETTA = re.compile(r"(?i)\brosetta(?:[ \t]?2)?\b(?![ \t]?stone)")
_PACKAGE = re.compile(
    r"(?i)(?<![\w./-])(?P<name>tensorflow(?:[-_](?:macos|metal|cpu|intel|deps|gpu|aarch64|text|addons|probability|io|hub|datasets))?"
    r"|tf[-_]nightly(?:[-_]macos)?|tf[-_]keras|keras|numpy|protobuf|h5py|ml[-_]dtypes|tf)"
    r"(?P<sep>-(?=\d)|[ \t]{0,2}(?:===?|=|@|\()?[ \t]{0,2}(?:(?:plugin|package|version)[ \t:]{0,3}){0,2}"
    r"(?P<verb>is[ \t]{1,3})?v?"
    r"|(?:[ \t]{1,3}(?:module|package|library))?,?[ \t]{1,3}(?:which|that)[ \t]{1,3}is[ \t]{1,3}(?:stuck[ \t]{1,3})?"
    r"(?:on|at)[ \t]{1,3}(?:version[ \t]{1,3})?v?)(?=\d)")
"""A package and its version as people write them: "tensorflow-macos 2.9", "keras==2.15",
"tensorflow@2.12", "tensorflow-metal version 0.5.0", "my tensorflow version is 2.10.0", "the
tensorflow-macos module, which is stuck on version 2.16.2", and as a file of it is named,
"tensorflow-probability-0.25.0"."""
_PIN = re.compile(r"(?<![\w.-])(?P<name>[A-Za-z0-9][A-Za-z0-9._-]{0,100})==(?=\d)")
_DOCKER_PLATFORM = re.compile(r"--platform[= ]linux/(amd64|arm64)")
_DOCKER = re.compile(r"(?i)\bdocker[ \t]{1,3}(?:container|image)\b|\b(?:in|inside)[ \t]{1,3}(?:a[ \t]{1,3})?docker\b")
_MANAGERS = re.compile(r"(?i)(?<![\w/.-])(miniforge3?|mini[ -]forge|mambaforge|anaconda3?|miniconda3?|pyenv|venv|virtualenv|python\.org)(?![\w/-])")
_MANAGER_NAMES = {"miniforge": "miniforge", "miniforge3": "miniforge", "mambaforge": "miniforge",
                  "mini forge": "miniforge", "mini-forge": "miniforge",
                  "anaconda": "anaconda", "anaconda3": "anaconda", "miniconda": "miniconda",
                  "miniconda3": "miniconda", "pyenv": "pyenv", "venv": "venv", "virtualenv": "venv",
                  "python.org": "python.org"}
_TF_NAMES = ("tensorflow", "tf")
_MAC_ONLY = re.compile(r"(?i)(?<![\w/.-])tensorflow[-_](?:macos|metal)(?![\w/-])")
"""Distributions made for macOS only: a report that needs, uses or misses them is about a Mac,
unless the same line names another system ("on Ubuntu I cannot install tensorflow-metal")."""
_OTHER_SYSTEM = re.compile(r"(?i)\b(?:" + "|".join(word for word, system in SYSTEMS if system != "Darwin")
                           + r"|wsl2?|colab)\b")
_CHIP_HINT = re.compile(r"m[1-9]")
_PACKAGE_HINTS = ("tensorflow", "tf", "keras", "numpy", "protobuf", "h5py", "dtypes", "==")
_MANAGER_HINTS = ("forge", "conda", "pyenv", "venv", "python.org")


def read(doc: Document, found: Found) -> None:
    for line in doc.lines:
        if line.fenced or line.code or line.number in found.claimed or len(line.text) > 20_000:
            continue
        for name, value in statements(_without_config_comment(line.text)):
            found.add(line, name, value, "stated", "prose")
        if "apple/tensorflow_macos" in line.text.lower() and _installed_from_the_fork(line.text):
            found.add(line, "os", "Darwin", "inferred", "prose")
            found.add(line, package_fact(eras.FORK_PACKAGE), eras.FORK_RELEASES, "inferred", "prose")


_FORK_SOURCE = re.compile(r"(?i)(?:github\.com|raw\.githubusercontent\.com)/apple/tensorflow_macos(?![\w-])"
                          r"(?!/(?:issues|pull|discussions|wiki|labels|milestones?|projects)\b)")
"""apple/tensorflow_macos itself, its releases or its install scripts: where Apple published the
2020-21 ML Compute fork, the one thing that repository ever gave to install. Not a link to one of
its issues: it went on to collect tensorflow-metal's reports."""
_GOT = re.compile(r"(?i)\b(?:install\w{0,4}|download\w{0,4}|set[ \t]?up|from)\b")


def _installed_from_the_fork(text: str) -> bool:
    """Whether a line says TensorFlow was installed from the fork's repository ("install tf for mac
    m1 (https://github.com/apple/tensorflow_macos)", "I downloaded the releases ..."): the fork is
    installed, its release (0.1alpha0-3) unsaid, so the fact is inferred."""
    return bool(_FORK_SOURCE.search(text)) and bool(_GOT.search(_URL.sub(" ", text)))


_CONFIG_COMMENT = re.compile(r"[ \t]{0,40}[A-Za-z_][\w.-]{0,100}[ \t]{0,10}=[ \t]{0,10}[^=\s][^#\n]{0,2000}?[ \t]#")
"""A configuration line (TOML, INI, a shell or Python assignment) with a trailing comment."""


def _without_config_comment(text: str) -> str:
    """A comment after a setting is the note of whoever wrote the file, pasted without fences
    (`tensorflow-metal = ">=1.1" # doesn't work with python 3.12`): it tells what the author knew
    of some machine, not what this one has. The setting itself is read as any line."""
    match = _CONFIG_COMMENT.match(text)
    return text[:match.end() - 1] if match else text


_REQUIREMENT_WORDS = (r"built for|requires?|required|needs?|at least|newer than|older than|supports?|supported on|"
                      r"only on|compatible with|available for")
"""Words before a version that make it a requirement, not the machine's ("requires macOS 12")."""
_NOT_THIS_MAC = re.compile(rf"(?:upgrade to|upgrading to|update to|updating to|{_REQUIREMENT_WORDS})[ \t]{{1,3}}$",
                           re.IGNORECASE)
"""Words before a macOS version that make it another one than the Mac's own: dyld's "(which was
built for Mac OS X 10.12)", "requires macOS 12", "upgrading to macOS 10.12 is not an option" (an
upgrade done says "upgraded to": that one is the Mac's)."""
_REQUIRED = re.compile(rf"(?:{_REQUIREMENT_WORDS}|support for|[<>]=?)[ \t]{{1,3}}$", re.IGNORECASE)
"""Words before a Python version or a macOS name that make it a requirement ("requires Python
3.8", "requires macOS Monterey"). A Python something fails on ("doesn't work with Python 3.12")
is, in a report, most often the reporter's own; an update named ("after the update to
Monterey") is this Mac's: both are read."""
_OS_WORD = re.compile(r"(?:mac[ \t]?os(?:[ \t]?x)?|os[ \t]?x)[ \t]{0,3}$", re.IGNORECASE)
"""The OS's own word between a requirement and a macOS name: "requires macOS Monterey"."""
_OR_LATER = re.compile(r"\+(?![\w.])|[ \t]{0,2}(?:or|and)[ \t]{1,3}(?:later|newer|above|higher|greater|up)\b",
                       re.IGNORECASE)
"""Words after a version that make it a floor, not the machine's: "macOS 12.0 or later", "Python
3.8+". A plus that joins ("macOS 12.3 + tensorflow-metal 0.4") is "and"."""


def statements(text: str) -> Iterator[tuple[str, str]]:
    """(fact name, value) of what a line of prose states. Each pattern runs only on a line that
    holds a word it needs (a substring test), so ordinary prose costs a few scans."""
    if "://" in text:
        text = _URL.sub(" ", text)
    low = text.lower()
    if "python" in low:
        yield from _python(text)
    if "mac" in low or "os" in low or any(name.split()[-1] in low for name in MACOS_NAMES):
        yield from _macos(text)
        if _A_MAC.search(text):
            yield "os", "Darwin"
    if ("macos" in low or "metal" in low) and _MAC_ONLY.search(text) and not _OTHER_SYSTEM.search(text):
        yield "os", "Darwin"
    if _CHIP_HINT.search(low) or "intel" in low:
        for _, chip in chips_in(text):
            yield "chip", chip
    if ("silicon" in low and _SILICON.search(text)) or ("rosetta" in low and _ROSETTA.search(text)):
        yield "hw_arm64", "true"  # Rosetta 2 exists only on Apple silicon: naming it, used or not, says the Mac
    if "arm64" in low or "x86_64" in low:
        for match in _ARCH_WORD.finditer(text):
            yield "python_arch", match.group(1)
    if any(word in low for word in _PACKAGE_HINTS):
        yield from _packages(text)
    if "both" in low and ("installed" in low or "have" in low):
        yield from _both_installed(text)
    if "docker" in low or "--platform" in low:
        for match in _DOCKER_PLATFORM.finditer(text):
            yield "container", f"docker {match.group(1)}"
        if _DOCKER.search(text):
            yield "container", "docker"
    if any(word in low for word in _MANAGER_HINTS):
        for match in _MANAGERS.finditer(text):
            yield "env_manager", _MANAGER_NAMES[match.group(1).lower()]


def _python(text: str) -> Iterator[tuple[str, str]]:
    for match in _PYTHON.finditer(text):
        version = version_at(text, match.end())
        if not version or text[match.end() + len(version):match.end() + len(version) + 1] == "/":
            continue
        if _REQUIRED.search(text, max(0, match.start() - 40), match.start()) \
                or _OR_LATER.match(text, match.end() + len(version)):
            continue  # a requirement or a floor, not the Python in use
        yield "python_version", version


_ON_VERSION = re.compile(r"(?i)[^\d\n]{0,30}?\b(?:I'?m|I[ \t]am|we'?re|we[ \t]are|currently)[ \t]{1,3}(?:on|running|using)"
                         r"[ \t]{1,3}(?:version[ \t]{1,3})?(?=\d)")
"""The Mac's version said just after the OS is named without one: "my osx version? I'm on 10.10.5"."""


def _macos(text: str) -> Iterator[tuple[str, str]]:
    for match in _MACOS.finditer(text):
        if _NOT_THIS_MAC.search(text, max(0, match.start() - 30), match.start()):
            continue  # a binary's floor, a requirement or a way out: not the Mac's own version
        after = match.end()
        named = _NAMES.match(text, after)
        if named:  # "macOS Ventura 13.2", "macOS Monterey version 12.5": the number after the name
            version_word = _VERSION_WORD.match(text, named.end())
            after = version_word.end() if version_word else named.end()
        said = _ON_VERSION.match(text, after) if not text[after:after + 1].isdigit() else None
        after = said.end() if said else after  # "update my osx version? I'm on 10.10.5"
        version = version_at(text, after) if text[after:after + 1].isdigit() else None
        if version and _OR_LATER.match(text, after + len(version)):
            yield "os", "Darwin"  # "macOS 12.0 or later": a floor, not this Mac's version
            continue
        if version and macos_version(version):
            yield "os", "Darwin"
            yield ("macos_version_reported" if version == "10.16" else "macos_version"), version
    for match in _NAMES.finditer(text):
        name = " ".join(match.group(1).lower().split())
        name = {"bigsur": "big sur", "highsierra": "high sierra", "elcapitan": "el capitan",
                "mountainlion": "mountain lion"}.get(name, name)
        if name in _PLACES and not re.search(r"(?:mac ?os|os ?x)[ \t]{0,3}$", text[max(0, match.start() - 12):match.start()],
                                             re.IGNORECASE):
            continue  # Lake Tahoe, the Sierra Nevada, the park, unless macOS says otherwise
        version_word = _VERSION_WORD.match(text, match.end())
        at = version_word.end() if version_word else match.end()
        version = version_at(text, at) if text[at:at + 1].isdigit() else None
        major = MACOS_NAMES[name]
        yield "os", "Darwin"
        before = _OS_WORD.sub("", text[max(0, match.start() - 50):match.start()])
        if _OR_LATER.match(text, at + len(version or "")) or _REQUIRED.search(before):
            continue  # "Monterey or later", "requires macOS Monterey": a floor, not this Mac's
        if version and macos_version(version) and (version == major or version.startswith(major + ".")):
            yield "macos_version", version
        else:
            yield "macos_version", major


_A_RELEASE = re.compile(r"(?:deprecated|removed|introduced|added|dropped)[ \t]{1,3}in(?:[ \t]{1,3}the)?[ \t]{1,3}$"
                        r"|(?:as[ \t]{1,3}of|since|until|prior[ \t]{1,3}to)[ \t]{1,3}$", re.IGNORECASE)
"""Words before a package and its version that name a release, not what is installed: NumPy's own
"deprecated in NumPy 1.20" and "was removed in the NumPy 2.0 release", tensorflow-gpu's "identical
since TensorFlow 2.1"."""


_FILE_TAIL = re.compile(r"-(?:cp|py|pp)\d|\.(?:whl|tar\.gz|zip)\b")
"""A wheel's tags or an archive's suffix after the version: a file pip was given or refused (read
by tfdoctor.triage.read_pip), not a version installed."""
_MAJOR_IS_THE_API = ("keras", "numpy")
"""Packages whose major release alone says what code runs on them, as people write it: "Keras 3"
(the API Keras 2 code breaks on), "NumPy 2" (the ABI extensions built for 1.x break on)."""
_API_WANTED = re.compile(rf"(?:{_REQUIREMENT_WORDS}|to[ \t]use|rel(?:y|ies)[ \t]on|depends?[ \t]on|"
                         r"(?:migrat|switch|mov)(?:e|es|ed|ing)[ \t]to|back[ \t]to)[ \t]{1,3}$", re.IGNORECASE)
"""Words before such a major that make it the API someone wants or a package needs, not the one
installed: "importing tf_keras to use Keras 2", "transformers relies on Keras 2", "requires NumPy 2"."""
_API_NOUN = re.compile(r"[ \t]{1,3}(?:APIs?|code|syntax|support|compatib\w{0,10}|(?:and|or)[ \t]{1,3}(?:keras|numpy)?[ \t]{0,3}\d)\b",
                       re.IGNORECASE)
"""Words after such a major that make it an API named, not a version installed: "Keras 2 APIs",
"Keras 2 code", "NumPy 2 support", "Keras 2 and 3"."""


def _packages(text: str) -> Iterator[tuple[str, str]]:
    """TensorFlow and its companions with a version, and any `name==version` pin. A bare
    "TensorFlow 2.12" names no distribution: it is tensorflow_version, unless the line names
    another one too ("running TensorFlow 2.3 and TensorFlow 2.4"): a comparison or a history
    does not say which one is in use; nor does a release a change came in (_A_RELEASE)."""
    tensorflow = set()
    for match in _PACKAGE.finditer(text):
        version = version_at(text, match.end())
        name = match.group("name").lower()
        whole = bool(version) and ("." in version or (name in _MAJOR_IS_THE_API and version in ("1", "2", "3")
                                                       and not match.group("verb")  # "keras is 3 times faster"
                                                       and not _API_WANTED.search(text, max(0, match.start() - 30),
                                                                                  match.start())
                                                       and not _API_NOUN.match(text, match.end() + len(version))))
        if not whole or _A_RELEASE.search(text, max(0, match.start() - 30), match.start()) \
                or _not_installed(text, match.start()) or _FILE_TAIL.match(text, match.end() + len(version or "")):
            continue
        if name in _TF_NAMES and "==" not in match.group("sep"):
            tensorflow.add(version)
        elif name != "tf":
            yield package_fact(name), version
    if len(tensorflow) == 1:
        yield "tensorflow_version", tensorflow.pop()
    for match in _PIN.finditer(text):
        version = version_at(text, match.end())
        if version and "." in version and not _not_installed(text, match.start()):
            yield package_fact(match.group("name")), version


_DISTRIBUTION = "|".join(re.escape(name).replace(r"\-", "[-_]") for name in
                         sorted(TENSORFLOW_DISTRIBUTIONS, key=len, reverse=True))
_BOTH = re.compile(rf"(?i)\bboth[ \t]{{1,3}}[`'\"]?(?P<first>{_DISTRIBUTION})[`'\"]?[ \t]{{1,3}}and[ \t]{{1,3}}"
                   rf"[`'\"]?(?P<second>{_DISTRIBUTION})[`'\"]?(?![\w-])")
_HAVE_BOTH = re.compile(r"(?i)\b(?:I|we)(?:'ve|[ \t]have|[ \t]had)[ \t]{1,3}both\b|\binstalled\b")
_NOT_BOTH = re.compile(r"(?i)uninstall|remov|instead|\?|n't\b|\b(?:not|never|should|whether|if)\b")
"""A sentence that says they are not both installed, or only asks whether they should be."""


def _both_installed(text: str) -> Iterator[tuple[str, str]]:
    """Two TensorFlow distributions said to be installed together ("I have both `tensorflow` and
    `tensorflow-gpu` installed"), versions unsaid: each is a distribution the report names."""
    match = _BOTH.search(text)
    if match and _HAVE_BOTH.search(text) and not _NOT_BOTH.search(text):
        for name in ("first", "second"):
            yield package_fact(match.group(name)), ""


_ATTEMPT = re.compile(r"(?:cannot|can't|can[ \t]not|couldn't|could[ \t]not|unable[ \t]to|fail(?:s|ed)?[ \t]to|"
                      r"not[ \t]able[ \t]to|tr(?:y|ying|ied)[ \t]to|wants?[ \t]to|wanted[ \t]to)[ \t]{1,3}"
                      r"(?:(?:pip|conda)[ \t]{1,3})?(?:install|get|upgrade[ \t]to|update[ \t]to|downgrade[ \t]to)"
                      r"[ \t]{1,3}(?:the[ \t]{1,3})?(?:\w+[ \t]{1,3})?$", re.IGNORECASE)
"""An attempt before a package and its version: "I cannot install TensorFlow 2.3", "trying to
pip install tensorflow==2.9". What someone could not or wanted to install is not what is
installed, as pip's own refusal names what was asked for."""


def _not_installed(text: str, start: int) -> bool:
    return _ATTEMPT.search(text, max(0, start - 60), start) is not None
