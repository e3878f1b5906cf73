"""tfdoctor.logtext.keras_names and its table, keras2_only.json (tools/keras2_only.py): the public
Keras 2 names no Keras 3 release has, read from the registry's wheels."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

from tfdoctor.logtext.keras_names import keras2_only

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import keras2_only as tool  # noqa: E402

TABLE = json.loads((REPO / "tfdoctor" / "logtext" / "keras2_only.json").read_text(encoding="utf-8"))


def test_the_table_says_which_wheels_it_was_read_from():
    assert TABLE["sources"][0] == f"keras-{tool.KERAS2}-py3-none-any.whl"
    keras3 = [name for name in TABLE["sources"][1:] if name.startswith("keras-3.")]
    assert "keras-3.0.0-py3-none-any.whl" in keras3 and len(keras3) == len(TABLE["sources"]) - 1
    assert TABLE["method"] and TABLE["generated"]


@pytest.mark.parametrize("module, name, gone", [
    ("keras.preprocessing.image", "ImageDataGenerator", True),  # keras-team/keras#19365
    ("keras.preprocessing.text", "", True),                     # the whole module
    ("keras.preprocessing", "text", True),
    ("tensorflow.keras.layers.experimental.preprocessing", "", True),  # below a removed module
    ("keras.preprocessing.sequence", "pad_sequences", False),   # Keras 3 has it
    ("keras.layers", "Dense", False),
    ("tensorflow.keras.preprocessing.image", "ImageDataGenerator", False),  # Keras 3's tf.keras shim keeps it
    ("keras.engine", "", False),       # Keras 2.13-2.15 have no keras.engine either
    # Keras 2.9-2.12's private keras/dtensor/dtensor_api.py: not a public name of 2.15's keras.dtensor
    ("keras.dtensor", "dtensor_api", False),
    ("keras.dtensor", "", True),
    ("keras", "", False),
])
def test_a_name_is_keras2_only_when_no_keras3_has_it(module, name, gone):
    assert keras2_only(module, name) is gone


def _wheel(files: dict[str, str]) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    buffer.seek(0)
    return buffer


def test_the_tool_reads_each_layout_and_keeps_a_name_a_later_keras3_restored():
    keras2 = tool.layouts(_wheel({
        "keras/api/_v2/keras/utils/__init__.py": "from keras.src.utils import to_ordinal\n",
        "keras/utils/__init__.py": "from keras.src.utils.np_utils import to_ordinal\nfrom keras.src.x import pack_x_y\n",
        "keras/wrappers/__init__.py": "from keras.src import scikit_learn\n",
        "keras/src/utils/__init__.py": "from .a import private\n"}))
    first = tool.layouts(_wheel({"keras/utils/__init__.py": "from keras.src.utils import other\n",
                                 "keras/_tf_keras/keras/utils/__init__.py": "from keras.src.utils import to_ordinal\n"}))
    later = tool.layouts(_wheel({"keras/api/utils/__init__.py": "from keras.src.utils import pack_x_y as pack_x_y\n",
                                 "keras/api/_tf_keras/keras/utils/__init__.py": ""}))
    assert tool.removed(keras2[0], [first[0], later[0]], "") == {
        "modules": ["keras.wrappers"],
        "names": {"keras": ["wrappers"], "keras.utils": ["to_ordinal"], "keras.wrappers": ["scikit_learn"]}}
    assert tool.removed(keras2[1], [first[1], later[1]], "tensorflow.") == {"modules": [], "names": {}}
