"""What the reporter's own script printed about its environment, pasted as output:
"TensorFlow version: 2.12.0", "Tensor Flow Version: 2.5.0", "Python version: 3.9.7",
"Platform: macOS-13.2-arm64-arm-64bit", "Machine: arm64" (the lines install guides and
notebooks print with f"... {tf.__version__}", platform.machine(), platform.platform()), and R's
`tensorflow::tf_config()` ("TensorFlow v2.15.1 (PATH)") and `sessionInfo()` ("Platform:
x86_64-apple-darwin17.0 (64-bit)": the Python reticulate embeds in R runs as R was built;
"Running under: macOS Monterey 12.1"), and the versions programs print of what is installed (a
companion's check of TensorFlow, NumPy's and protobuf's own messages).

Only `key: value` lines inside a fence (tf_config()'s lines anywhere, with a path or nothing in
their parentheses: no sentence has that shape), not code and not already read by another reader,
and only keys that name a fact with a value of that fact's shape; the value is what Python
printed, so the fact is "read", from "printed".
"""

from __future__ import annotations

import re

from tfdoctor.facts.archnames import normalise
from tfdoctor.triage.evidence import Found, package_fact
from tfdoctor.triage.layout import Document, Line
from tfdoctor.triage.platforms import PLATFORM, read_platform
from tfdoctor.triage.vocabulary import macos_version, version_at

SOURCE = "printed"
_LINE = re.compile(r"[ \t]{0,8}(?P<key>[A-Za-z][\w .()]{0,40}?)[ \t]{0,3}[:=][ \t]{0,3}(?P<value>\S.{0,300}?)")
"""`key: value` or `key = value`, matched whole against a line without its trailing blanks (a
trailing `[ \t]*` here would scan them again at every length the value is tried at)."""
_KEYS = {
    "tensorflowversion": "tensorflow_version", "tfversion": "tensorflow_version",
    "tensorflow": "tensorflow_version", "tf.__version__": "tensorflow_version",
    "tf.version.version": "tensorflow_version",
    "pythonversion": "python_version", "python": "python_version",
    "platform.python_version()": "python_version",
    "platform": "platform", "pythonplatform": "platform", "platform.platform()": "platform",
    "machine": "python_arch", "platform.machine()": "python_arch", "architecture": "python_arch",
    "macosversion": "macos_version", "macversion": "macos_version", "platform.mac_ver()": "macos_version",
    "numpyversion": "package:numpy", "numpy": "package:numpy", "np.__version__": "package:numpy",
    "runningunder": "running_under",
}
"""Printed keys (lower case, spaces and underscores out, but in Python names) -> the fact."""
R_SESSION = "R sessionInfo()"
_R_PLATFORM = re.compile(r"(?P<arch>x86_64|aarch64|arm64)-apple-darwin\d")
"""R's `sessionInfo()` names the build R is ("Platform: x86_64-apple-darwin17.0 (64-bit)", an
Intel R that Rosetta 2 runs on Apple silicon; "aarch64-apple-darwin20" the arm64 one)."""
_MACOS_NAMED = re.compile(r"(?:macOS|Mac OS X|OS X)(?: [A-Z][a-z]{1,12}){0,2} (?P<version>\d{2}\.\d{1,2}(?:\.\d{1,2})?)")
"""The systems R's sessionInfo() names on a Mac ("Running under: macOS Sonoma 14.2.1", "OS X El
Capitan 10.11.6"); on Linux it names the distribution, whose numbers are no macOS version."""
_R_CONFIG_KEY = r"[ \t]{0,8}(?P<key>TensorFlow|Python) v(?P<value>\d[^\s()]{0,60}) "
_R_CONFIG = re.compile(_R_CONFIG_KEY + r"\([^()\n]{0,1000}\)")
"""R's tensorflow package prints its Python's versions so (print.tensorflow_config, R/tf_config.R):
`tensorflow::tf_config()` gives "TensorFlow v2.15.1 (~/.virtualenvs/r-tensorflow/lib/python3.10/
site-packages/tensorflow)" and "Python v3.10 (~/.virtualenvs/r-tensorflow/bin/python)"; the
TensorFlow line's parentheses are empty where the module has no __file__ to print."""
_R_CONFIG_BARE = re.compile(_R_CONFIG_KEY + r"\((?:[~/][^()\n]{0,1000})?\)")
"""The same line outside a fence: only with a path or nothing in parentheses ("TensorFlow v2.15.1
(see the notes)" is a sentence)."""


_SELF_REPORTS = (
    (re.compile(r"Detected an installation of version (?=\d)|The versions? of TensorFlow you are currently using is (?=\d)"),
     "tensorflow_version", "companion's version check"),
    (re.compile(r"(?:^|cannot be run in\s{1,4})NumPy (?=\d[\w.]{0,30} as it may crash)"), package_fact("numpy"),
     "NumPy's own message"),
    (re.compile(r"Protobuf Gencode/Runtime versions when loading \S{1,300}: gencode \S{1,40} runtime (?=\d)"),
     package_fact("protobuf"), "protobuf's own message"),
)
"""Messages that print the version of what is installed, anywhere in the text: a companion's
check of the TensorFlow it found (TensorFlow Probability's _ensure_tf_install: "Detected an
installation of version 2.3.0-dev20200603"; TensorFlow Addons': "The versions of TensorFlow you are
currently using is 2.3.0"), NumPy 2's own ("A module that was compiled using NumPy 1.x cannot be
run in\nNumPy 2.0.0 as it may crash"), protobuf's runtime check ("... gencode 5.28.3 runtime
5.27.2"). What the running program says of itself outranks a version the reporter believes."""
_PRINTED_VERSION = re.compile(r"\d[\w.+!-]{0,60}")


def read(doc: Document, found: Found) -> None:
    for line in doc.lines:
        if line.code or line.number in found.claimed or len(line.text) > 400:
            continue
        text = line.text.rstrip(" \t")
        if _self_report(line, text, found):
            continue
        match = (_LINE.fullmatch(text) or _R_CONFIG.fullmatch(text)) if line.fenced else _R_CONFIG_BARE.fullmatch(text)
        name = _KEYS.get(_key(match.group("key"))) if match else None
        if name and _printed(line, name, match.group("value").strip("'\""), found):
            found.claim(line)


def _self_report(line: Line, text: str, found: Found) -> bool:
    """Record the version a program printed of what is installed (_SELF_REPORTS), as printed: a
    nightly's suffix too ("2.3.0-dev20200603")."""
    for pattern, name, source in _SELF_REPORTS:
        said = pattern.search(text)
        if said:
            version = _PRINTED_VERSION.match(text, said.end()).group().rstrip(".")
            if "." in version:
                found.add(line, name, version, "read", source)
                return True
    return False


def _key(text: str) -> str:
    """A printed key as _KEYS spells it: "Tensor Flow Version" -> "tensorflowversion", a Python
    name ("tf.__version__", "platform.machine()") kept as written."""
    low = text.lower().replace(" ", "")
    return low if "." in low or "(" in low else low.replace("_", "")


def _printed(line: Line, name: str, value: str, found: Found) -> bool:
    """Record what a printed value says, if it has the shape of that fact."""
    if name == "running_under":  # R's sessionInfo(): "Running under: macOS Monterey 12.1"
        named = _MACOS_NAMED.match(value)
        if not named:
            return False
        name, value = "macos_version", named.group("version")
    if name == "platform":
        match = PLATFORM.search(value)
        if match:
            read_platform(match).record(line, SOURCE, found)
            return True
        built = _R_PLATFORM.match(value)
        if not built:
            return False
        # reticulate loads libpython into R's own process: the Python runs as R was built
        found.add(line, "os", "Darwin", "read", R_SESSION)
        found.add(line, "python_host", f"R {value.split()[0]}", "read", R_SESSION)
        found.add(line, "python_arch", normalise(built.group("arch")), "inferred", R_SESSION)
        return True
    if name == "python_arch":
        arch = normalise(value)
        if arch in ("arm64", "x86_64"):
            found.add(line, name, arch, "read", SOURCE)
            return True
        return False
    version = version_at(value)
    if not version or "." not in version:
        return False
    if name == "macos_version":
        if not macos_version(version):
            return False
        name = "macos_version_reported" if version == "10.16" else name
    elif name == "python_version" and not version.startswith(("2.", "3.")):
        return False
    found.add(line, package_fact("numpy") if name == "package:numpy" else name, version, "read", SOURCE)
    return True
