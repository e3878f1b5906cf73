"""The public Keras 2 names that no Keras 3 release has (keras2_only.json, read from the wheels
by tools/keras2_only.py). An import error that names one ("cannot import name 'ImageDataGenerator'
from 'keras.preprocessing.image'") is Keras 2 code meeting Keras 3: the name itself tells it,
with no version in the report."""

from __future__ import annotations

import functools
import json
from pathlib import Path

_TABLE = Path(__file__).with_name("keras2_only.json")


@functools.cache
def _removed() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """(modules gone, module -> names gone), keras.* and tensorflow.keras.* together."""
    table = json.loads(_TABLE.read_text(encoding="utf-8"))
    parts = [table[part] for part in ("keras", "tensorflow.keras")]
    return (frozenset(module for part in parts for module in part["modules"]),
            {module: frozenset(names) for part in parts for module, names in part["names"].items()})


def keras2_only(module: str, name: str = "") -> bool:
    """`module.name` (or `module` itself, without a name) is public Keras 2 API that no Keras 3
    has: exactly, since older Keras 2 releases kept private modules under some of the same dotted
    names (keras.dtensor's dtensor_api), whose names are not this story."""
    modules, names = _removed()
    return name in names.get(module, ()) if name else module in modules
