"""The reference facts compat_matrix.json and the binary readers are checked against, kept in
the repository (tests/data/reference/, with where they come from in its SOURCES.md): a test
never depends on a folder beside the clone."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parents[1] / "data" / "reference"
TF_WHEELS = FOLDER / "tf_wheels_2026-11.json.gz"
"""The wheels' own facts (records, pairs, the TensorFlow minor table, ...), read 2026-11-21."""
METAL_BINARIES = FOLDER / "metal_binaries_2026-11.json.gz"
"""What tensorflow-metal's binaries say (load checks, kernel tables), read 2026-11-23."""


def load_reference(path: Path) -> dict[str, Any]:
    return json.loads(gzip.decompress(path.read_bytes()))


def unpacked_reference(path: Path, folder: Path) -> Path:
    """The reference as a plain JSON file in `folder`, for a tool that is given a path."""
    target = folder / path.name.removesuffix(".gz")
    target.write_bytes(gzip.decompress(path.read_bytes()))
    return target
