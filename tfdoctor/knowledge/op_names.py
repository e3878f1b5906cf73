"""What an op name typed by a user means: a real op as TensorFlow spells it, found as typed or,
when the case alone differs from exactly one op, in TensorFlow's case; else no op, with the
nearest real spellings to suggest (a typo must never be answered as an op without a GPU kernel)."""

from __future__ import annotations

import difflib
import functools
from collections import defaultdict
from dataclasses import dataclass
from typing import Optional

from tfdoctor.knowledge.kernels import DEFAULT_DEVICE_OPS, ops_of_every_release
from tfdoctor.knowledge.tensorflow_ops import bundled_ops

SUGGESTIONS = 4
SIMILARITY = 0.6
"""difflib's default cutoff: `matmull` finds MatMul, `NoSuchOp` finds NoOp."""


@dataclass(frozen=True)
class OpName:
    """One name as the user typed it (`asked`), the op it names (`op`, None when it names none)
    and, for none, the real ops spelled most like it."""

    asked: str
    op: Optional[str]
    suggestions: tuple[str, ...] = ()

    @property
    def respelled(self) -> bool:
        return self.op is not None and self.op != self.asked


@dataclass(frozen=True)
class KnownOps:
    """The op names tfdoctor knows, and the TensorFlow release whose registry they come from."""

    tensorflow: str
    names: frozenset[str]

    @functools.cached_property
    def _by_case(self) -> dict[str, list[str]]:
        folded: dict[str, list[str]] = defaultdict(list)
        for name in sorted(self.names):
            folded[name.casefold()].append(name)
        return folded

    def resolve(self, asked: str) -> OpName:
        if asked in self.names:
            return OpName(asked, asked)
        same_but_case = self._by_case.get(asked.casefold(), [])
        if len(same_but_case) == 1:
            return OpName(asked, same_but_case[0])
        return OpName(asked, None, self._near(asked))

    def _near(self, asked: str) -> tuple[str, ...]:
        """The closest spellings, ignoring case; internal ops (`_MklMatMul`) only for a name that
        starts with an underscore too, as a user rarely means one."""
        internal = asked.startswith("_")
        pool = [key for key in self._by_case if key.startswith("_") == internal]
        close = difflib.get_close_matches(asked.casefold(), pool, n=SUGGESTIONS, cutoff=SIMILARITY)
        return tuple(name for key in close for name in self._by_case[key])[:SUGGESTIONS]


def known_ops() -> KnownOps:
    """TensorFlow's registry, plus the ops tensorflow-metal has kernels for or TensorFlow runs on
    every device; OpListMissing (tfdoctor.knowledge.tensorflow_ops) when the list is missing."""
    registry = bundled_ops()
    return KnownOps(registry.tensorflow, registry.ops | ops_of_every_release() | DEFAULT_DEVICE_OPS)
