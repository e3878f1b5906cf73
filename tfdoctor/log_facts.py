"""A pasted error log as a fact of the snapshot: what was read, what was recognised, redacted.

`tfdoctor check --log FILE` and `collect --log` keep the log next to the environment's facts so
the rules (checks/log_*.py) can diagnose the two together, on this machine or anywhere a
snapshot is sent. Only a bounded, redacted excerpt is kept (the head, the tail and the lines
around each match, a few KB): home paths, user and host names and credentials never reach the
snapshot. The recognising itself is tfdoctor.logtext's; this module only turns its result into
plain data and offers the rules the few helpers they share (rule modules never import each
other).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from tfdoctor.redact import Identity, mask_secrets, redact

if TYPE_CHECKING:  # the signatures are compiled only when a log is read, not with every snapshot
    from tfdoctor.logtext import LogMatch, LogText

DEFAULT_LIMIT = 8 * 1024 * 1024
"""tfdoctor.logtext.DEFAULT_LIMIT (a test keeps them equal)."""

HEAD_LINES = 15
TAIL_LINES = 30
AROUND = 3
"""Lines kept before and after each match."""
EXCERPT_CHARS = 8000
MAX_LINE = 300
MAX_MATCHES = 60


@dataclass
class LogTextMatch:
    """One recognised message: its code, the fields read from it and where it is."""

    code: str
    variant: str
    stage: str
    """install, import or training."""
    line: int
    """1-based line of the log where it starts."""
    text: str
    """The matched line (redacted)."""
    fields: dict[str, str] = field(default_factory=dict)
    count: int = 1
    sources: list[str] = field(default_factory=list)
    """The public threads the signature's real message comes from."""


@dataclass
class LogTextFacts:
    """A log given with --log (or recorded by `tfdoctor run`): how it was read and what it says."""

    source: str
    """"-" for standard input, the file name (redacted), or "run: CMD"."""
    size: int | None = None
    read_bytes: int = 0
    skipped_bytes: int = 0
    """Bytes in the middle of a log larger than the limit that were not read."""
    gap_after_line: int | None = None
    encoding: str = "utf-8"
    replaced: int = 0
    binary: bool = False
    error: str | None = None
    """Why nothing could be read (missing file, a directory, permission)."""
    lines: int = 0
    notes: list[str] = field(default_factory=list)
    excerpt: str = ""
    """The head, the tail and the lines around each match, redacted and bounded."""
    matches: list[LogTextMatch] = field(default_factory=list)
    redacted: bool = True

    @property
    def empty(self) -> bool:
        return not self.binary and not self.error and self.lines == 0

    def of(self, *codes: str) -> list[LogTextMatch]:
        """The matches of these codes, in the order of the log."""
        return [m for m in self.matches if m.code in codes]

    def summary(self) -> str:
        """One line: what was read and what was left out."""
        if self.error:
            return f"{self.source}: {self.error}"
        if self.binary:
            return f"{self.source}: a binary file, not a log ({self.size} bytes); nothing read"
        parts = [f"{self.source}: {self.read_bytes} bytes, {self.lines} lines read ({self.encoding})"]
        if self.skipped_bytes:
            parts.append(f"{self.skipped_bytes} bytes in the middle skipped after line {self.gap_after_line}")
        if self.replaced:
            parts.append(f"{self.replaced} undecodable characters replaced")
        return "; ".join(parts)


def read(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT,
         identity: Identity | None = None, redacted: bool = True) -> LogTextFacts:
    """Read and recognise a log file ("-" for standard input); never raises. `redacted=False`
    (collect --no-redact) keeps home paths and names; credentials are masked either way."""
    from tfdoctor.logtext import read_log

    return from_logtext(read_log(path, limit), identity=identity, redacted=redacted)


def from_bytes(data: bytes, source: str, limit: int = DEFAULT_LIMIT,
               identity: Identity | None = None, redacted: bool = True) -> LogTextFacts:
    """The same for text already in memory (what `tfdoctor run` recorded)."""
    from tfdoctor.logtext import read_log_bytes

    return from_logtext(read_log_bytes(data, source, limit), identity=identity, redacted=redacted)


def from_logtext(log: LogText, identity: Identity | None = None, redacted: bool = True) -> LogTextFacts:
    """Recognise the text (unredacted, so paths still match) and keep a redacted excerpt."""
    from tfdoctor.logtext import recognise

    who = identity or (Identity.current() if redacted else None)

    def clean(text: str) -> str:
        return redact(text, who) if redacted else mask_secrets(text)

    matches = recognise(log.text)[:MAX_MATCHES] if not log.binary and not log.error else []
    lines = log.text.splitlines() if log.text.strip() else []
    return LogTextFacts(
        source=clean(log.source), size=log.size, read_bytes=log.read_bytes,
        skipped_bytes=log.skipped_bytes, gap_after_line=log.gap_after_line, encoding=log.encoding,
        replaced=log.replaced, binary=log.binary, error=log.error, lines=len(lines),
        notes=[clean(n) for n in log.notes], excerpt=clean(excerpt(lines, matches)),
        matches=[_match(m, clean) for m in matches], redacted=redacted,
    )


def _match(m: LogMatch, clean: Any) -> LogTextMatch:
    return LogTextMatch(m.code, m.variant, m.stage, m.line, clean(m.text)[:MAX_LINE],
                        {k: clean(v)[:MAX_LINE] for k, v in m.fields.items()}, m.count, list(m.sources))


def excerpt(lines: list[str], matches: Iterable[LogMatch]) -> str:
    """The lines worth keeping: head, tail, and a few around each match, with "..." for gaps;
    bounded by EXCERPT_CHARS (the tail, where the final error is, is kept first)."""
    keep: set[int] = set(range(min(HEAD_LINES, len(lines))))
    keep |= set(range(max(0, len(lines) - TAIL_LINES), len(lines)))
    for m in matches:
        keep |= set(range(max(0, m.line - 1 - AROUND), min(len(lines), m.line + AROUND)))
    out: list[str] = []
    previous = -1
    for i in sorted(keep):
        if i != previous + 1:
            out.append("...")
        line = lines[i]
        out.append(line if len(line) <= MAX_LINE else line[:MAX_LINE] + "...")
        previous = i
    text = "\n".join(out)
    if len(text) > EXCERPT_CHARS:
        text = "...\n" + text[-EXCERPT_CHARS:].split("\n", 1)[-1]
    return text


# ---------------------------------------------------------------------------------------------
# what the log rules share (checks/log_*.py import no other rule module)


def matches_of(snapshot: Any, *codes: str) -> list[LogTextMatch]:
    """The snapshot's log matches of these codes (none without a log)."""
    log = getattr(snapshot, "log", None)
    return log.of(*codes) if log is not None else []


def evidence(snapshot: Any, match: LogTextMatch, **facts: Any) -> dict[str, Any]:
    """What every log finding shows: the matched line and where, the fields read from it, the
    log's source, the public thread the message was taken from, and the environment facts that
    changed the answer (`facts`)."""
    log = snapshot.log
    out: dict[str, Any] = {"log": log.source, "line": match.line, "matched": match.text,
                           "stage": match.stage}
    out.update({f"log_{k}": v for k, v in match.fields.items()})
    if match.count > 1:
        out["occurrences"] = match.count
    if log.skipped_bytes:
        out["log_skipped_bytes"] = log.skipped_bytes
    out["signature_source"] = match.sources[0] if match.sources else None
    out.update({k: v for k, v in facts.items() if v is not None})
    return out
