"""Write tfdoctor/logtext/keras2_only.json: the public Keras 2 names that no Keras 3 release has.

Maintainer tooling, run once per refresh (it downloads the wheels with pip):

    python tools/keras2_only.py

An import error that names one of them ("cannot import name 'ImageDataGenerator' from
'keras.preprocessing.image'", "No module named 'keras.preprocessing.text'") is Keras 2 code
meeting Keras 3, whatever else the report leaves out.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

OUTPUT = Path(__file__).resolve().parents[1] / "tfdoctor" / "logtext" / "keras2_only.json"
METHOD = (
    "Read from the wheels' API packages, the files Keras generates for its public API (one `from "
    "keras.src... import X` line per name): for `keras.*`, Keras 2.15's keras/<module>/__init__.py (not "
    "src/, not api/) against every Keras 3 release's keras/<module> (keras/api/<module> in the 3.x "
    "releases that moved it there); for `tensorflow.keras.*`, Keras 2.15's keras/api/_v2/keras "
    "(TensorFlow 2.15's tf.keras) against Keras 3's keras/_tf_keras/keras (TensorFlow 2.16+'s tf.keras). "
    "A name counts as removed only when no Keras 3 release has it, so a name one release dropped and a "
    "later one restored is not listed (tools/keras2_only.py)."
)
KERAS2 = "2.15.0"
"""The last Keras 2 (TensorFlow 2.15's): every public name Keras 2 code can import."""

_FROM = re.compile(r"^from\s+([\w.]+)\s+import\s+(\w+)(?:\s+as\s+(\w+))?\s*$", re.M)
_IMPORT_AS = re.compile(r"^import\s+([\w.]+)\s+as\s+(\w+)\s*$", re.M)


def api(wheel: Path, root: str, skip: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Module -> public names (and submodules) of every API package under `root`, read as `keras`."""
    out: dict[str, set[str]] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not name.startswith(root) or not name.endswith("__init__.py"):
                continue
            relative = name[len(root):-len("__init__.py")].strip("/")
            if any(relative == s or relative.startswith(s + "/") for s in skip):
                continue
            module = "keras" + ("." + relative.replace("/", ".") if relative else "")
            text = archive.read(name).decode("utf-8", "replace")
            names = out.setdefault(module, set())
            names.update(m.group(3) or m.group(2) for m in _FROM.finditer(text))
            names.update(m.group(2) for m in _IMPORT_AS.finditer(text))
            if "." in module:
                parent, leaf = module.rsplit(".", 1)
                out.setdefault(parent, set()).add(leaf)
    return out


def layouts(wheel: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(keras.*, tensorflow.keras.*) of one wheel, wherever that release keeps them."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    if any(n.startswith("keras/api/_v2/") for n in names):  # Keras 2: tf.keras is api/_v2/keras
        return (api(wheel, "keras/", skip=("src", "api", "protobuf")), api(wheel, "keras/api/_v2/keras/"))
    base = "keras/api/" if any(n.startswith("keras/api/") and n.count("/") > 2 for n in names) else "keras/"
    return api(wheel, base, skip=("src", "api", "_tf_keras")), api(wheel, base + "_tf_keras/keras/")


def removed(keras2: dict[str, set[str]], keras3: list[dict[str, set[str]]], prefix: str) -> dict[str, Any]:
    """The public modules Keras 2 has and no Keras 3 release has, and per module the public names
    (submodules included) Keras 2 has there and no Keras 3 has. Exact names only: an import error
    names one, and older Keras 2 releases kept private modules under some of the same dotted names
    (keras.dtensor.dtensor_api), which are not this story."""
    union: dict[str, set[str]] = {}
    for one in keras3:
        for module, names in one.items():
            union.setdefault(module, set()).update(names)
    modules = [prefix + module for module in sorted(keras2) if module not in union]
    names_gone = {prefix + module: gone for module, names in sorted(keras2.items())
                  if (gone := sorted(n for n in names if n not in union.get(module, ())))}
    return {"modules": modules, "names": names_gone}


def keras3_versions() -> list[str]:
    listed = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "keras"],
                            capture_output=True, text=True, check=True).stdout
    versions = re.search(r"Available versions: (.*)", listed).group(1).split(", ")
    return sorted((v for v in versions if re.fullmatch(r"3\.\d+\.\d+", v)), key=lambda v: tuple(map(int, v.split("."))))


def download(version: str, folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    f"keras=={version}", "-d", str(folder)], check=True)
    return next(folder.glob(f"keras-{version}-*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUTPUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        keras2 = layouts(download(KERAS2, folder))
        versions = keras3_versions()
        keras3 = [layouts(download(v, folder)) for v in versions]
    table = {
        "about": "Public Keras 2 names (Keras " + KERAS2 + ") that no Keras 3 release has: the modules gone "
                 "and, per module, the names gone. An import error naming one is Keras 2 code under Keras 3.",
        "method": METHOD,
        "generated": datetime.date.today().isoformat(),
        "sources": [f"keras-{KERAS2}-py3-none-any.whl"] + [f"keras-{v}-py3-none-any.whl" for v in versions],
        "keras": removed(keras2[0], [k[0] for k in keras3], ""),
        "tensorflow.keras": removed(keras2[1], [k[1] for k in keras3], "tensorflow."),
    }
    args.out.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    print(f"{args.out}: {sum(map(len, table['keras']['names'].values()))} keras.* and "
          f"{sum(map(len, table['tensorflow.keras']['names'].values()))} tensorflow.keras.* names, "
          f"Keras {KERAS2} against {len(versions)} Keras 3 releases ({versions[0]}..{versions[-1]})")


if __name__ == "__main__":
    main()
