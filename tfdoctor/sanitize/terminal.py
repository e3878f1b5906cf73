"""Untrusted text made harmless for a terminal (issue 22, class 3).

A pasted log, a snapshot, TensorFlow's exception text or a linted file's name may hold control
sequences: a title change (OSC 0), a hyperlink (OSC 8), a clipboard write (OSC 52), a reset
(ESC c), cursor moves and colours (CSI), device control strings (DCS), or their 8-bit (C1) forms.
`neutralise` removes every one of them, whole, and turns any other control character (C0 except
newline and tab, DEL, C1) into U+FFFD, so what is left prints as the characters it shows.
tfdoctor's own colours are added by rich after this, from styles, never from the text.

`escape` is the other half (issue 28, class 8): text from the environment put into rich console
markup prints exactly as itself, with no tag, no emoji and no lost backslash.
"""

from __future__ import annotations

import re

_ST = r"(?:\x1b\\|\x07|\x9c)"
"""String terminator: ESC \\, BEL (xterm's OSC form) or the 8-bit ST."""
_SEQUENCES = re.compile(
    # OSC, DCS, SOS, PM, APC (7- and 8-bit introducers) up to their terminator, or to the end of
    # the text when unterminated (a terminal would swallow everything after it).
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:" + _ST + r"|(?=\x1b)|$)"
    # CSI: ESC [ or 8-bit CSI, parameter bytes, intermediate bytes, one final byte.
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    # nF escape (ESC ( B, charset designation) and every two-character escape (ESC c, ESC 7...).
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""What is left: C0 except \\t and \\n (\\r handled before), DEL, C1."""
_ANY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_C1_OR_DEL = re.compile(r"[\x7f-\x9f]")


def neutralise(text: str) -> str:
    """`text` with every terminal control sequence removed and every other control character
    (but newline and tab) replaced by U+FFFD; CRLF and lone CR become a newline (a CR would let
    a line overwrite the one before it)."""
    if not isinstance(text, str):
        text = str(text)
    if not _ANY.search(text):  # the common case: one scan, nothing copied
        return text
    text = _SEQUENCES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("\ufffd", text)


def json_safe(text: str) -> str:
    """JSON text (as json.dumps writes it with ensure_ascii=False) with DEL and the C1 controls,
    which JSON leaves raw, written as \\u escapes: the same document, nothing a terminal acts on
    (C0 controls are always escaped by json.dumps)."""
    return _C1_OR_DEL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_TAG = re.compile(r"(?<!\\)(\\*)(\[[a-z#/@][^[]*?])")
"""What rich's markup parser takes for a tag, with the backslashes before it (rich/markup.py
RE_TAGS): k backslashes before it print as k // 2, and an odd k prints the tag as text. A match
starts at a run's first backslash only (from each of a long run's backslashes it would scan the
rest of the run: quadratic)."""
_BEFORE_BRACKET = re.compile(r"(?<!\\)\\+(?=\[)")
LITERAL_OPEN, LITERAL_CLOSE = "[none]", "[/none]"
"""What `escape` puts around the text: a style that changes nothing, so that the text is always
followed by a tag and its trailing backslashes are known to be escapes."""


def escape(text: str) -> str:
    """`text` as rich console markup that prints exactly as `text`, wherever it is put in a line
    of markup (rich.markup.escape is lossy: `a\\[b` prints `a[b`, a trailing `\\\\` before a tag
    prints one backslash). Emoji codes (`:fire:`) are the console's to leave alone:
    tfdoctor's consoles are made with emoji=False."""
    text = str(text)
    parts, position = [LITERAL_OPEN], 0
    for found in _TAG.finditer(text):
        parts.append(_between_tags(text[position:found.start()]))
        parts.append(found.group(1) * 2 + "\\" + found.group(2))  # k backslashes, then the tag as text
        position = found.end()
    rest = text[position:]
    kept = rest.rstrip("\\")
    parts.append(_between_tags(kept) + "\\" * (2 * (len(rest) - len(kept))))  # a tag follows
    parts.append(LITERAL_CLOSE)
    return "".join(parts)


def _between_tags(chunk: str) -> str:
    """Text with no tag in it: rich turns the first `\\[` of a run of backslashes before a
    bracket into `[`, so one more backslash keeps them all."""
    return _BEFORE_BRACKET.sub(lambda found: found.group() + "\\", chunk)
