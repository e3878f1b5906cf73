"""What a text shows of a model that failed to load, in the messages of the code that loads it.

- Not a whole model file: h5py's "Unable to open file (file signature not found)" (HDF5 found no
  HDF5 header: a Git LFS pointer of a few hundred bytes, an HTML error page saved under the
  model's name) or "(truncated file: eof = ...)" (a download or copy that stopped early; h5py 3.10+
  with HDF5 1.14 says "Unable to synchronously open file"), and zipfile's "File is not a zip file"
  for a .keras archive. HDF5 and zip files are not only models: these count only in a text that
  loads one or names Keras or TensorFlow.
- A name Keras cannot rebuild: Keras 2's "Unknown layer: X" (and loss, metric, activation ...
  function) and Keras 3's "Could not locate class 'X'" / "Could not locate function 'X'". Keras'
  own model classes (Functional, Sequential), config keys ("Unknown layer:name") and its registry's
  names ("Unknown optimizer: Custom>Adam") missing say the file was saved by another Keras, not
  that a custom object is missing: not read.
checks/model_health.py turns what is kept into model.corrupt and model.custom-objects, as reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tfdoctor.facts.pasted_log import TextModelError
from tfdoctor.logtext.devices import LONGEST
from tfdoctor.logtext.scan import lines_with

MAX_KEPT = 4
"""Errors kept: the first ones."""

_CORRUPT = re.compile(r"Unable to (?:synchronously )?open file \((?:file signature not found|truncated file[^)\n]{0,200})\)"
                      r"|\bFile is not a zip file\b")
_CUSTOM = re.compile(r"\bUnknown (?:layer|loss|metric|activation|optimizer|initializer|regularizer|constraint)"
                     r"(?: function)?:[ \t]{0,3}'?(?P<name>[A-Za-z_][\w.]{0,100})"
                     r"|\bCould not locate (?:class|function) '(?P<located>[A-Za-z_][\w.]{0,100})'")
_KERAS_OWN = frozenset({"Functional", "Sequential", "Model", "InputLayer", "name", "layers", "config", "class_name"})
"""Keras' own classes and its config's keys: named as unknown, they say the file was saved by another
Keras (tf.keras against standalone Keras, Keras 3 against 2), not that a custom object is missing."""
_LOADING = re.compile(r"load_model|load_weights|hdf5_format|saving_lib|saving_api|legacy_h5_format|\bkeras\b|tensorflow",
                      re.IGNORECASE)
"""What says the text loads a model, or is about Keras at all (the HDF5 or zip file is then most
likely its model's; the fix, a whole copy of the file, is the same for its data)."""
_CANDIDATE = re.compile(r"Unable to (?:synchronously )?open file|File is not a zip file|Unknown [a-z]{4,11}"
                        r"(?: function)?:|Could not locate (?:class|function)")


@dataclass
class ModelErrorReader:
    """Fed a text's blocks in order, keeps the model-loading errors it shows."""

    last_line: int = 0
    loads_a_model: bool = False
    kept: list[TextModelError] = field(default_factory=list)
    corrupt: list[TextModelError] = field(default_factory=list)
    """File errors seen before the text showed it loads a model: kept once it does."""

    def feed_block(self, text: str, first: int) -> None:
        self.loads_a_model = self.loads_a_model or bool(_LOADING.search(text))
        for number, line in lines_with(text, first, _CANDIDATE, self.last_line):
            self.last_line = number
            self.feed(number, line)
        if self.loads_a_model:
            self.kept.extend(self.corrupt[:MAX_KEPT - len(self.kept)])
            self.corrupt = []

    def feed(self, number: int, line: str) -> None:
        if len(line) > LONGEST or len(self.kept) + len(self.corrupt) >= MAX_KEPT:
            return
        custom = _CUSTOM.search(line)
        name = (custom.group("name") or custom.group("located")) if custom else None
        registered = custom is not None and line[custom.end():custom.end() + 1] == ">"  # "Custom>Adam": Keras' own
        if name and name.split(".")[-1] not in _KERAS_OWN and not registered:
            self.kept.append(TextModelError("custom-objects", number, custom.group(0), name))
            return
        corrupt = _CORRUPT.search(line)
        if corrupt:
            self.corrupt.append(TextModelError("corrupt", number, corrupt.group(0)))
