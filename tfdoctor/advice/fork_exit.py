"""Apple's 2020-21 ML Compute fork of TensorFlow (tfdoctor.knowledge.eras): the way out of it to
the plugin era, and whether a text shows the fork failing the person who pasted it. The fork
installed (checks/compat_era.py) and the fork seen only in a text (checks/log_era.py) say both
alike."""

from __future__ import annotations

from tfdoctor import codes
from tfdoctor.advice.installs import APPLE_PLUGIN_PAGE, move_python
from tfdoctor.advice.log_evidence import matches_of, said
from tfdoctor.derived import Derived
from tfdoctor.facts.archnames import ARM64
from tfdoctor.facts.snapshot import Snapshot
from tfdoctor.knowledge import best_pair, eras
from tfdoctor.model import Remediation


def plugin_era_way(s: Snapshot, d: Derived, what: str) -> tuple[Remediation, tuple[str, ...]]:
    """The remediation that leaves the fork (`what` names it), and the pair it recommends: a new
    environment with TensorFlow and tensorflow-metal, or where no pair fits this Mac yet (the
    plugin needs macOS 12), the pair to install once it does."""
    arch = d.hardware_arch or ARM64
    python, commands, reqs = move_python(s, d.matrix, arch) if d.matrix is not None else (None, [], ())
    text = (f"{what} is Apple's 2020-21 fork of TensorFlow {eras.FORK_BASE} on ML Compute "
            "(tensorflow_macos 0.1alpha): it has no tensorflow-metal, and Apple no longer maintains it. "
            "Move to the plugin era")
    if reqs:
        text += f": a Python {python} environment with {' + '.join(reqs)}"
    else:  # no pair fits this Mac (tensorflow-metal needs macOS 12): an empty venv would not help
        commands = []
        why = best_pair.recommended_install(d.matrix, python, arch, d.macos).reason if d.matrix and python else ""
        text += (": TensorFlow with tensorflow-metal (python -m pip install tensorflow tensorflow-metal)"
                 + (f", once this Mac can run it ({why})" if why else ""))
    text += ", and remove `mlcompute.set_mlc_device(...)` from the code"
    return Remediation(text, tuple(commands), APPLE_PLUGIN_PAGE, code=eras.WITHOUT_MLCOMPUTE), tuple(reqs)


def fork_in_play(s: Snapshot, d: Derived) -> bool:
    """The fork is installed, or the text shows it: what ran on the GPU was ML Compute, not a plugin."""
    return d.fork or bool(matches_of(s, codes.LOG_MLCOMPUTE_FORK))


def fork_failed(s: Snapshot) -> bool:
    """Whether the text shows the fork failing: an error of the fork's own, or any failure at all
    (a traceback, a crash): the fork gets no fixes, so leaving it is the way out. An empty GPU
    list printed is not one: the fork lists no GPU by design (it runs on it through ML Compute),
    and working setups of it show exactly that; its writer saying the GPU cannot be found or used
    is: that complaint is the fork's design, and the plugin era answers it."""
    seen = matches_of(s, codes.LOG_MLCOMPUTE_FORK)
    complaint = any(said(match) for match in matches_of(s, codes.LOG_NO_GPU_LISTED))
    return any(eras.is_fork_failure(match.text) for match in seen) or bool(s.log and s.log.shows_failure) or complaint
