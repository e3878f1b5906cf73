"""The op names TensorFlow registers, as one real wheel's op registry lists them.

Read from tensorflow_ops.json (package data, written by tools/tensorflow_ops.py, which records the
wheel, the method and the date in it), so `tfdoctor ops` can tell an op without a Metal kernel
from a name TensorFlow does not have: the kernel table only knows ops that have a GPU kernel.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from dataclasses import dataclass

DATA = "tensorflow_ops.json"


class OpListMissing(RuntimeError):
    """tensorflow_ops.json is missing or unreadable: tfdoctor's installation is broken."""


@dataclass(frozen=True)
class TensorFlowOps:
    """Every op one TensorFlow release registers (`tensorflow`: its distribution and version)."""

    tensorflow: str
    ops: frozenset[str]


@functools.lru_cache(maxsize=1)
def bundled_ops() -> TensorFlowOps:
    """The bundled list, read once; OpListMissing when it cannot be read."""
    try:
        text = importlib.resources.files(__package__).joinpath(DATA).read_text(encoding="utf-8")
        raw = json.loads(text)
        return TensorFlowOps(str(raw["tensorflow"]), frozenset(str(name) for name in raw["ops"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OpListMissing(f"tfdoctor's list of TensorFlow ops ({DATA}) cannot be read: {exc}") from exc
