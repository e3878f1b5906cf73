"""What the paths in a report say about the Python behind them: tracebacks, pip's "in
/.../site-packages" and error messages name the interpreter's directories, and where an
interpreter lives says who installed it.

Every conclusion here is inferred, from layouts the installers document: Homebrew installs to
/opt/homebrew on Apple silicon and /usr/local on Intel (docs.brew.sh/Installation), so its Python
there is arm64 or x86_64; python.org's installer to /Library/Frameworks/Python.framework; Apple's
Command Line Tools Python to /Library/Developer/CommandLineTools; Anaconda, Miniconda, Miniforge
and Mambaforge to a directory named after them, environments under envs/NAME; pyenv to
~/.pyenv/versions/VERSION; a prefix's packages to lib/pythonX.Y/site-packages (Debian's to
dist-packages); an installed distribution's metadata to NAME-VERSION.dist-info.
"""

from __future__ import annotations

import re

from tfdoctor.triage.evidence import Found, package_fact
from tfdoctor.triage.layout import Document
from tfdoctor.triage.vocabulary import version_at

_SEGMENT = r"[^\s/\"'`()<>\[\]{},;:|*?]"
_PATH = re.compile(r"(?<![\w.~:/-])(?:~|\.{1,2})?/(?:" + _SEGMENT + r"{1,255}/){0,64}" + _SEGMENT + r"{0,255}")
"""An absolute (or ~/, ./) POSIX path; not the inside of a URL (scheme:// is refused by the
look-behind). Each segment ends at a /, so the match is linear."""
_WINDOWS = re.compile(r"(?<![\w])[A-Za-z]:\\{1,2}(?:Users|Program Files|Python\d{2,3}|ProgramData)\\")
_SITE = re.compile(r"/lib/python(?P<minor>[23]\.\d{1,2})/(?P<kind>site-packages|dist-packages)(?:/|$)")
_STDLIB = re.compile(r"/lib/python(?P<minor>[23]\.\d{1,2})(?:/|$)")
_FRAMEWORK = re.compile(r"(?P<root>/Library/Frameworks|/System/Library/Frameworks|/Library/Developer/CommandLineTools/Library/Frameworks|/Applications/Xcode[\w.-]{0,40}\.app/Contents/Developer/Library/Frameworks)/Python3?\.framework/Versions/(?P<minor>[23]\.\d{1,2})(?:/|$)")
_PYENV = re.compile(r"/\.pyenv/versions/(?P<version>[^/]{1,100})(?:/|$)")
_DIST_INFO = re.compile(r"/(?P<name>[A-Za-z0-9][A-Za-z0-9_.]{0,200})-(?P<version>\d[\w.+]{0,60})\.dist-info(?:/|$)")
_EXECUTABLE = re.compile(r"/bin/python(?:[23](?:\.\d{1,2})?)?$")
_CONDA_DIRS = {"anaconda3": "anaconda", "anaconda": "anaconda", "anaconda2": "anaconda",
               "miniconda3": "miniconda", "miniconda": "miniconda", "miniconda2": "miniconda",
               "miniforge3": "miniforge", "miniforge": "miniforge", "mambaforge": "miniforge",
               "miniforge-pypy3": "miniforge", "mambaforge-pypy3": "miniforge"}
_VENV_DIRS = frozenset({"venv", ".venv", "virtualenv", ".virtualenvs", "virtualenvs", "venvs"})


def read(doc: Document, found: Found) -> None:
    for line in doc.lines:
        text = line.text
        traceback = text.lstrip().startswith('File "')
        if line.code and not traceback:
            continue  # a path in code the user wrote is where they point, not what they have
        source = "traceback path" if traceback else "path"
        if "\\" in text and _WINDOWS.search(text):
            found.add(line, "os", "Windows", "inferred", source)
        if "/" not in text:
            continue
        for match in _PATH.finditer(text):
            for name, value in path_facts(match.group()):
                found.add(line, name, value, "inferred", source)


def path_facts(path: str) -> list[tuple[str, str]]:
    """(fact name, value) of everything a path says about the Python behind it."""
    facts: list[tuple[str, str]] = []
    python_owned = bool(_SITE.search(path) or _STDLIB.search(path) or _EXECUTABLE.search(path)
                        or "/Python.framework/" in path or "/python@" in path)
    if path.startswith("/Users/"):
        facts.append(("os", "Darwin"))
    elif path.startswith("/home/") and python_owned:
        facts.append(("os", "Linux"))
    facts += _homebrew(path, python_owned)
    framework = _FRAMEWORK.search(path)
    if framework:
        root = framework.group("root")
        facts.append(("env_manager", "python.org" if root == "/Library/Frameworks" else "system"))
        facts.append(("python_version", framework.group("minor")))
    if path.startswith(("/usr/bin/python3", "/Library/Developer/CommandLineTools/usr/bin/python3")):
        facts.append(("env_manager", "system"))
    pyenv = _PYENV.search(path)
    if pyenv:
        facts.append(("env_manager", "pyenv"))
        version = version_at(pyenv.group("version"))
        if version and version.startswith(("2.", "3.")) and version.count(".") >= 1:
            facts.append(("python_version", version))
    facts += _conda(path)
    site = _SITE.search(path)
    if site:
        facts.append(("python_version", site.group("minor")))
        prefix = path[:site.start()]
        if site.group("kind") == "dist-packages":
            facts.append(("os", "Linux"))
        elif prefix:
            facts.append(("python_prefix", prefix))
            if _VENV_DIRS.intersection(prefix.split("/")) or prefix.rsplit("/", 1)[-1].endswith("venv"):
                facts.append(("env_manager", "venv"))
    elif _STDLIB.search(path):
        facts.append(("python_version", _STDLIB.search(path).group("minor")))
    executable = _EXECUTABLE.search(path)
    if executable:
        facts.append(("python_path", path))
        if "." in executable.group():
            facts.append(("python_version", executable.group()[len("/bin/python"):]))
    dist = _DIST_INFO.search(path)
    if dist:
        facts.append((package_fact(dist.group("name")), dist.group("version")))
    return facts


def _homebrew(path: str, python_owned: bool) -> list[tuple[str, str]]:
    """Homebrew's prefix says the architecture of everything it built (its bottles hold one
    architecture, never universal2): a Homebrew Python in /opt/homebrew is an arm64 binary, one
    in /usr/local/Cellar an x86_64 one."""
    if path.startswith("/opt/homebrew/"):
        facts = [("env_manager", "homebrew-arm64"), ("hw_arm64", "true")]
        return facts + ([("python_arch", "arm64"), ("python_binary_archs", "arm64")] if python_owned else [])
    if path.startswith(("/usr/local/Cellar/", "/usr/local/opt/")):
        return [("env_manager", "homebrew-intel")] + (
            [("python_arch", "x86_64"), ("python_binary_archs", "x86_64")] if python_owned else [])
    return []


def _conda(path: str) -> list[tuple[str, str]]:
    """An Anaconda, Miniconda or Miniforge directory, and the environment a path is inside."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        manager = _CONDA_DIRS.get(part.lower())
        if manager is None:
            continue
        root = "/".join(parts[:index + 1])
        facts = [("env_manager", manager), ("conda_root", root)]
        rest = parts[index + 1:]
        if len(rest) >= 3 and rest[0] == "envs" and rest[2] in ("lib", "bin"):
            facts.append(("conda_prefix", f"{root}/envs/{rest[1]}"))
        elif rest and rest[0] in ("lib", "bin"):
            facts.append(("conda_prefix", root))
        return facts
    return []
