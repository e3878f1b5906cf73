"""Find the checks: built-in and third-party ones register alike, in the `tfdoctor.checks`
entry-point group. An entry point names a Check or a list of Checks."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import entry_points

from tfdoctor.model import Check

ENTRY_POINT_GROUP = "tfdoctor.checks"


@dataclass(frozen=True)
class LoadFailure:
    """A registered entry point that could not be turned into checks."""

    entry_point: str
    error: str


def load_checks() -> tuple[list[Check], list[LoadFailure]]:
    """Every registered check, in report order, and the entry points that failed to load."""
    checks: dict[str, Check] = {}
    failures: list[LoadFailure] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        label = f"{ep.name} = {ep.value}"
        try:
            loaded = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the doctor
            failures.append(LoadFailure(label, f"{type(exc).__name__}: {exc}"))
            continue
        items = loaded if isinstance(loaded, (list, tuple)) else [loaded]
        for item in items:
            if not isinstance(item, Check):
                failures.append(LoadFailure(label, f"not a tfdoctor.model.Check: {item!r}"))
            elif item.name not in checks:  # one distribution may be seen twice on sys.path
                checks[item.name] = item
    return sorted(checks.values(), key=lambda c: (c.order, c.name)), failures
