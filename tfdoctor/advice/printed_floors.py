"""What a pasted log proves of an installed version that the snapshot does not list (a report that
names TensorFlow's version but not NumPy's). NumPy's error for a name it removed ("module 'numpy'
has no attribute 'object'", "`np.float_` was removed in the NumPy 2.0 release") and the warning
just before it come from its own __getattr__, which has them from the release that removed the
name on: the NumPy that ran is that release or a later one. Held against TensorFlow's pins, that
floor can show the NumPy outside them (compat.pin-violation, compat.numpy-abi): the cause the
log's own finding is a symptom of. (NumPy 2's refusal of a NumPy 1.x module names its version
outright; the report's readers take that as the version.)
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.requirements import Requirement

from tfdoctor.advice.log_evidence import matches_of
from tfdoctor.codes import LOG_NUMPY_ABI
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.facts.versions import admits_from

REMOVED_NAME = ("numpy-removed-name", "numpy-future-scalar")
"""NumPy's error for a name it removed, and its warning just before it."""


@dataclass(frozen=True)
class PrintedFloor:
    """An installed distribution known from a message to be `version` or later."""

    name: str
    version: str
    line: int
    """The log's line that proves it."""

    @property
    def label(self) -> str:
        return f"{self.name} {self.version} or later"

    def meets(self, req: Requirement) -> bool | None:
        """False where no version from the floor up meets `req`; None where the range holds both."""
        return None if admits_from(str(req.specifier), self.version) else False


def printed_floors(s: Snapshot) -> dict[str, PrintedFloor]:
    """Per distribution the snapshot does not list, the floor its log proves (the first message)."""
    if s.package("numpy") is not None:
        return {}
    for match in matches_of(s, LOG_NUMPY_ABI):
        if match.variant in REMOVED_NAME and match.fields.get("removed_in"):
            return {"numpy": PrintedFloor("numpy", match.fields["removed_in"], match.line)}
    return {}
