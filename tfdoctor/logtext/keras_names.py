"""The public Keras 2 names that no Keras 3 release has (keras2_only.json, read from the wheels
by tools/keras2_only.py). An import error that names one ("cannot import name 'ImageDataGenerator'
from 'keras.preprocessing.image'") is Keras 2 code meeting Keras 3: the name itself tells it,
with no version in the report."""

from __future__ import annotations

import functools
import json
from pathlib import Path

_TABLE = Path(__file__).with_name("keras2_only.json")
WHOLE_MODULE = "*"


@functools.cache
def _removed() -> dict[str, frozenset[str]]:
    table = json.loads(_TABLE.read_text(encoding="utf-8"))
    return {module: frozenset(names) for part in ("keras", "tensorflow.keras") for module, names in table[part].items()}


def _module_gone(module: str) -> bool:
    """The module, or a package above it, is gone from Keras 3."""
    removed = _removed()
    parts = module.split(".")
    return any(WHOLE_MODULE in removed.get(".".join(parts[:end]), ()) for end in range(2, len(parts) + 1))


def keras2_only(module: str, name: str = "") -> bool:
    """`module.name` (or `module` itself, without a name) is Keras 2 API that Keras 3 lacks."""
    if _module_gone(module):
        return True
    return bool(name) and (name in _removed().get(module, ()) or _module_gone(f"{module}.{name}"))
