"""Progress while tfdoctor waits on a child: the stage the child last wrote into its result file,
shown on the progress console (a spinner on a terminal, one line per stage elsewhere; see
tfdoctor.render.progress) as "<what it does> in a child process… N s (limit)"."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from rich.text import Text

from tfdoctor.child.files import read_json_file


class ChildStatus:
    """Follows one key of a child's result document (`key`) and words it with
    `describe(stage, document)`; `limit(stage, document, elapsed)` gives the seconds to show,
    those its bound counts, and the bound (a timeout; a budget and what is left of it). The
    document is the child's latest, read bounded as untrusted input."""

    def __init__(self, console: Any | None, describe: Callable[[str | None, dict], str],
                 limit: Callable[[str | None, dict, float], tuple[float, str]], key: str = "stage") -> None:
        self.active = bool(console is not None and console.is_terminal)
        self.describe, self.limit, self.key = describe, limit, key
        self.stage: str | None = None
        self.document: dict = {}
        self._status = None
        if self.active:
            assert console is not None
            self._status = console.status(self._text(0.0), spinner="dots")
            self._status.start()

    def _text(self, elapsed: float) -> Text:
        """Plain text, never markup: the stage is the child's word (issue 28)."""
        doing = self.describe(self.stage, self.document)
        shown, bound = self.limit(self.stage, self.document, elapsed)
        return Text(f"{doing[0].upper()}{doing[1:]} in a child process… {shown:.0f} s ({bound})")

    def tick(self, result_path: Path, elapsed: float) -> str | None:
        """Read the child's stage (bounded: the file is untrusted), show it, and return it."""
        document, _error = read_json_file(result_path)
        if isinstance(document, dict):
            self.document = document
        stage = document.get(self.key) if isinstance(document, dict) else self.stage
        self.stage = stage if isinstance(stage, str) else self.stage
        if self._status is not None:
            self._status.update(self._text(elapsed))
        return self.stage

    def follow(self, result_path: Path, elapsed: float) -> bool:
        """`tick` for run_child when the status is only shown: never asks to stop the child."""
        self.tick(result_path, elapsed)
        return False

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
