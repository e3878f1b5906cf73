"""Keep a pasted log as a fact: read it bounded, recognise it, and keep a redacted excerpt.

The recognising runs on the unredacted text (so paths still match); what is kept in the
snapshot (tfdoctor.facts.pasted_log) is the head, the tail and the lines around each match,
with home paths, user and host names and credentials removed.
"""

from __future__ import annotations

import os
from dataclasses import fields
from typing import Any, Iterable

from tfdoctor.facts.pasted_log import (AROUND, DEFAULT_LIMIT, EXCERPT_CHARS, HEAD_LINES, MAX_LINE,
                                       MAX_MATCHES, TAIL_LINES, LogRead, LogTextFacts,
                                       LogTextMatch)
from tfdoctor.logtext.reader import LogText, read_log, read_log_bytes
from tfdoctor.logtext.catalog import recognise
from tfdoctor.logtext.signature import LogMatch
from tfdoctor.sanitize.redact import Identity, mask_secrets, redact


def read(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT,
         identity: Identity | None = None, redacted: bool = True) -> LogTextFacts:
    """Read and recognise a log file ("-" for standard input); never raises. `redacted=False`
    (collect --no-redact) keeps home paths and names; credentials are masked either way."""
    return from_logtext(read_log(path, limit), identity=identity, redacted=redacted)


def from_bytes(data: bytes, source: str, limit: int = DEFAULT_LIMIT,
               identity: Identity | None = None, redacted: bool = True) -> LogTextFacts:
    """The same for text already in memory (what `tfdoctor run` recorded)."""
    return from_logtext(read_log_bytes(data, source, limit), identity=identity, redacted=redacted)


def from_logtext(log: LogText, identity: Identity | None = None, redacted: bool = True) -> LogTextFacts:
    """Recognise the text (unredacted, so paths still match) and keep a redacted excerpt."""
    who = identity or (Identity.current() if redacted else None)

    def clean(text: str) -> str:
        return redact(text, who) if redacted else mask_secrets(text)

    matches = recognise(log.text)[:MAX_MATCHES] if not log.binary and not log.error else []
    lines = log.text.splitlines() if log.text.strip() else []
    read = {f.name: getattr(log, f.name) for f in fields(LogRead)}
    read.update(source=clean(log.source), notes=[clean(n) for n in log.notes])
    return LogTextFacts(**read, excerpt=clean(excerpt(lines, matches)),
                        matches=[_match(m, clean) for m in matches], redacted=redacted)


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
