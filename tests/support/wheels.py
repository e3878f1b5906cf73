"""Tiny wheels and projects for tests that install packages for real, without the network.

`build_wheel` writes a valid pure-Python wheel with the zipfile module (METADATA, WHEEL and a
RECORD with sha256 hashes), so pip and uv install it as they would one from PyPI.
`write_project` writes a source tree whose build backend lives in the tree itself (PEP 517
`backend-path`) and needs nothing from an index: `pip install DIR` and `pip install -e DIR`
work offline, as for a user's own checkout.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path
from typing import Mapping, Sequence


def normalised(name: str) -> str:
    """PEP 503's normalised name: the index's directory name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def metadata_text(name: str, version: str, requires: Sequence[str] = ()) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {req}" for req in requires]
    return "\n".join(lines) + "\n\n"


def wheel_contents(name: str, version: str, files: Mapping[str, str],
                   requires: Sequence[str] = ()) -> dict[str, bytes]:
    """Every member of the wheel, RECORD last."""
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    members = {path: text.encode() for path, text in files.items()}
    members[f"{dist_info}/METADATA"] = metadata_text(name, version, requires).encode()
    members[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: tfdoctor-tests\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in members.items())
    members[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    return members


def build_wheel(into: Path, name: str, version: str, files: Mapping[str, str],
                requires: Sequence[str] = ()) -> Path:
    """`into/<name>-<version>-py3-none-any.whl` holding `files` (path in the wheel -> text)."""
    into.mkdir(parents=True, exist_ok=True)
    path = into / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for member, data in wheel_contents(name, version, files, requires).items():
            wheel.writestr(member, data)
    return path


_BACKEND = '''"""A PEP 517/660 backend that needs nothing from an index (tests only)."""
import base64, hashlib, json, os, zipfile

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "project.json")) as _f:
    PROJECT = json.load(_f)
HERE = os.path.dirname(os.path.abspath(__file__))


def _hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write(directory, members):
    name, version = PROJECT["name"].replace("-", "_"), PROJECT["version"]
    info = "%s-%s.dist-info" % (name, version)
    meta = "Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n" % (PROJECT["name"], version)
    meta += "".join("Requires-Dist: %s\\n" % r for r in PROJECT["requires"]) + "\\n"
    members = dict(members)
    members[info + "/METADATA"] = meta.encode()
    members[info + "/WHEEL"] = (b"Wheel-Version: 1.0\\nGenerator: tests\\nRoot-Is-Purelib: true\\n"
                                b"Tag: py3-none-any\\n")
    record = "".join("%s,%s,%d\\n" % (p, _hash(d), len(d)) for p, d in members.items())
    members[info + "/RECORD"] = (record + info + "/RECORD,,\\n").encode()
    filename = "%s-%s-py3-none-any.whl" % (name, version)
    with zipfile.ZipFile(os.path.join(directory, filename), "w") as wheel:
        for path, data in members.items():
            wheel.writestr(path, data)
    return filename


def _sources():
    found = {}
    top = os.path.join(HERE, PROJECT["package"])
    for root, _dirs, files in os.walk(top):
        for file in files:
            full = os.path.join(root, file)
            with open(full, "rb") as handle:
                found[os.path.relpath(full, HERE).replace(os.sep, "/")] = handle.read()
    return found


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write(wheel_directory, _sources())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write(wheel_directory, {PROJECT["name"].replace("-", "_") + "_editable.pth": (HERE + "\\n").encode()})


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []
'''


def write_project(root: Path, name: str, version: str, package: str, files: Mapping[str, str],
                  requires: Sequence[str] = ()) -> Path:
    """A source tree `root` for distribution `name` (import package `package`, files relative to
    the tree) with an in-tree build backend: installable offline from the path, also editable."""
    import json

    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[build-system]\nrequires = []\nbuild-backend = "tinybackend"\n'
                                         'backend-path = ["."]\n')
    (root / "tinybackend.py").write_text(_BACKEND)
    (root / "project.json").write_text(json.dumps({"name": name, "version": version, "package": package,
                                                   "requires": list(requires)}))
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root
