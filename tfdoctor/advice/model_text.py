"""What model.corrupt and model.custom-objects say of a model a pasted text failed to load
(tfdoctor.logtext.model_errors read it): the finding's evidence, title and fix, the probe that
would confirm it named. Rule modules import no other rule module; this one builds no finding."""

from __future__ import annotations

from typing import Any, NamedTuple

from tfdoctor.advice.probe_evidence import probe_cmd
from tfdoctor.facts.pasted_log import TextModelError
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.model import Remediation


class Reported(NamedTuple):
    evidence: dict[str, Any]
    title: str
    fix: Remediation


def reported(s: Snapshot, kind: str) -> Reported | None:
    """What the finding says of the text's model errors of this kind, or None without one."""
    errors = [e for e in (s.log.model_errors if s.log is not None else []) if e.kind == kind]
    if not errors:
        return None
    first = errors[0]
    evidence = {"source": "the pasted text", "said": [f"line {e.line}: {e.said}" for e in errors]}
    if kind == "corrupt":
        return Reported(evidence, f"The text's model file is not a whole HDF5 or .keras file (\"{first.said}\")",
                        _whole_file(s))
    return Reported({**evidence, "names": sorted({e.name for e in errors if e.name})},
                    f"The text's model needs a custom object Keras does not know: {first.name}", _custom(s, first))


def _whole_file(s: Snapshot) -> Remediation:
    return Remediation(
        "The file is not the model: a Git LFS pointer (a few hundred bytes of text: run `git lfs pull` in "
        "the repository), an error page saved under its name, or a download or copy that stopped early. "
        "Compare its size with the original, fetch it again, then examine it",
        ("ls -l MODEL_FILE", probe_cmd(s, "--model", "MODEL_FILE")))


def _custom(s: Snapshot, error: TextModelError) -> Remediation:
    name = (error.name or "CustomObject").split(".")[-1]
    return Remediation(
        f"Load the model with the code that defines {name}: import it and pass it in custom_objects, or "
        "register it (@keras.saving.register_keras_serializable() in Keras 3)",
        (probe_cmd(s, "--model", "mymodels:load"),),
        code=(f'keras.models.load_model(PATH, custom_objects={{"{name}": {name}}})',))
