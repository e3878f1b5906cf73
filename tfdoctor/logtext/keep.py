"""Keep a pasted log as a fact: read it as a stream, recognise it block by block, and keep only
what the snapshot needs, redacted.

The recognising runs on the unredacted text (so paths still match); what is kept in the snapshot
(tfdoctor.facts.pasted_log) is the lines around each match and how the log was read, with home
paths, user and host names and credentials removed; the log's own text (head and tail) only with
`keep_log`. Memory is bounded by what is kept and one block (tfdoctor.logtext.scan), not by the
log's length.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import fields, replace

from tfdoctor.facts.pasted_log import (
    DEFAULT_LIMIT,
    KEEP_LOG_CHARS,
    MAX_LINE,
    MAX_MATCHES,
    LogRead,
    LogTextFacts,
    LogTextMatch,
)
from tfdoctor.logtext.catalog import SIGNATURES
from tfdoctor.logtext.reader import Reading, read_log, read_log_bytes
from tfdoctor.logtext.scan import scan
from tfdoctor.logtext.signature import LogMatch, Recogniser
from tfdoctor.logtext.growth import GrowthReader
from tfdoctor.logtext.model_errors import ModelErrorReader
from tfdoctor.logtext.outcomes import OutcomeReader
from tfdoctor.logtext.speeds import SpeedReader
from tfdoctor.logtext.window import Window
from tfdoctor.sanitize.redact import Identity, mask_secrets, redact

TENSORFLOW_WORDS = re.compile(r"tensorflow|\bkeras\b|\btf\.|^[ \t]{0,20}\d{1,9}/\d{1,9}[ \t]{1,4}\[[=>.]{1,200}\][ \t]{1,4}-[ \t]",
                              re.IGNORECASE | re.MULTILINE)
"""Words that say a text is about TensorFlow, and Keras' own progress bar ("300/300 [=====] - 3s
10ms/step - loss: ..."): one search per block of the text as it is read."""
NVIDIA_WORDS = re.compile(
    r"\b(?:GeForce|Quadro|Tesla[ \t]{0,2}[KPVTMA]\d{1,3}|Titan[ \t]{0,2}(?:Xp?|V|RTX)|(?:RTX|GTX)[ \t]{0,2}[A2-9]?\d{3,4}"
    r"|NVIDIA-SMI|XLA_GPU|CUDA(?:[ \t]{0,2}(?:toolkit|version|/[ \t]{0,2}cuDNN(?:[ \t]{1,2}version)?))?[ \t]{0,3}[-_:=]?[ \t]{0,3}"
    r"v?(?:[7-9]|1[0-3])\.\d)", re.IGNORECASE)
"""Words that say a text's machine has an NVIDIA GPU or a CUDA toolkit: a GPU model ("GeForce",
"RTX 3070ti", "Tesla T4"), nvidia-smi's table, a CUDA release as reporters and templates state it
("CUDA 11.1", "cuda11.2", "CUDA/cuDNN version: 11.1 / 8.0", "cudatoolkit 11.8", "/usr/local/cuda-11.0"),
the XLA_GPU device TensorFlow 2.0-2.3 lists where XLA found a CUDA GPU its own GPU device skipped.
TensorFlow's own "Cuda compute capability" and its source paths (stream_executor/cuda/) name no
release (one search per block, as TENSORFLOW_WORDS)."""
GPU_WANTED_WORDS = re.compile(
    r"\b(?:i|we)(?:'ve(?:[ \t]got)?|[ \t](?:do[ \t])?(?:have|own)(?:[ \t]got)?)[ \t](?:an?[ \t]|the[ \t])?"
    r"(?:(?!no\b|not\b)\w{1,12}[ \t])?gpus?\b|\bmy[ \t](?:\w{1,12}[ \t])?gpus?\b"
    r"|\bgpus?[ \t](?:is|isn't|are|aren't|was|wasn't)[ \t](?:not[ \t])?(?:being[ \t])?"
    r"(?:used|detected|recogni[sz]ed|found|utili[sz]ed)\b"
    r"|\b(?:use|using|utili[sz]e)[ \t](?:the[ \t]|my[ \t])?gpus?\b", re.IGNORECASE)
"""A writer's words that say their machine has a GPU they want used: "I have a GPU", "we've got an
NVIDIA GPU", "my GPU", "the GPU is not detected", "to use the GPU"; not "I have no GPU" (one
search per block, as TENSORFLOW_WORDS)."""
FAILURE_WORDS = re.compile(
    r"Traceback \(most recent call last\)|^[ \t]{0,40}[\w.]{0,200}(?:Error|Exception):|[Ss]egmentation fault|[Bb]us error|"
    r"Abort trap|Illegal instruction|illegal hardware instruction|terminating (?:with|due to) uncaught exception|"
    r"Fatal Python error|exit code -?[1-9]|[Kk]ernel (?:died|appears to have died|crashed)|"
    r"\bNS[A-Z][A-Za-z]{0,60}Exception\b|"
    r"OP_REQUIRES failed at [^\s:]{1,200}:\d{1,6} : (?!Out of range|OUT_OF_RANGE)|^-{75}\n\w{0,60}(?:Error|Exception)\b|"
    r"(?i:\bmemory[ \t]leak|\bleak(?:s|ing|ed)?[ \t](?:memory|ram)\b|\bquit[ \t]unexpectedly\b|\bcrash(?:es|ed|ing)\b|"
    r"\b(?:ran|runs?|running)[ \t]out[ \t]of[ \t](?:gpu[ \t])?memory\b|"
    r"\b(?:eats?|eating|ate|uses?|using|used|consum(?:es|ed|ing)|tak(?:es|ing)|fill(?:s|ed|ing)?)[ \t](?:up[ \t])?"
    r"all[ \t](?:of[ \t])?(?:the[ \t]|my[ \t])?(?:memory|ram|swap)\b)",
    re.MULTILINE)
"""What says a text shows something failing: Python's traceback and exception lines, crash signals
as shells and IDEs print them, aborts, Objective-C's exceptions named anywhere (NSException,
NSInvalidArgumentException: raised, never logged in passing; a report often names only the type),
an op that failed (op_kernel.cc's "OP_REQUIRES failed at %s:%d : %s"; not "Out of range: End of
sequence", which ends every pass over a dataset), IPython's traceback header (a rule of 75
dashes, then the exception's name) cut before its "Traceback", and a writer's words for a crash or
for memory used up ("crashes", macOS's "Python quit unexpectedly", "a memory leak", "eating up all
memory"), which is all a title or a report without its paste may say (one search per block, as
TENSORFLOW_WORDS)."""
NOTEBOOK_WORDS = re.compile(
    r"\bjupyter|\bipykernel\b|\.ipynb\b|<ipython-input-\d|\bCell[ \t]In[ \t]?\[\d{1,6}\]|^In[ \t]\[\d{1,6}\]:",
    re.IGNORECASE | re.MULTILINE)
"""Words that say the text comes from a Jupyter notebook: Jupyter or its kernel package named, a
notebook file, IPython's own traceback markers ("<ipython-input-3-...>", "Cell In[3], line 1")
and prompts ("In [1]:") (one search per block, as TENSORFLOW_WORDS)."""
IMPORTS_ELSEWHERE_WORDS = re.compile(
    r"\b(?:i|we)[ \t](?:can|could)[ \t](?:successfully[ \t])?[`'\"]?import[ \t]{1,3}[`'\"]?(?:tensorflow|tf)\b"
    r"|\bimport(?:ing)?[ \t]{1,3}[`'\"]?tensorflow(?:[ \t]as[ \t]tf)?[`'\"]?[ \t](?:works|worked|succeeds|is[ \t]fine)\b"
    r"|\bworks?[ \t](?:fine[ \t]|perfectly[ \t]|well[ \t])?(?:in|from|on)[ \t](?:the[ \t]|my[ \t]|a[ \t])?"
    r"(?:terminal|shell|console|command[ \t-]line|python[ \t](?:prompt|shell|interpreter|console|repl))\b",
    re.IGNORECASE)
"""A writer's words that say TensorFlow imports somewhere ("I can import tensorflow", "import
tensorflow works", "it works in the terminal"): beside a notebook's "No module named
'tensorflow'", two interpreters, and the notebook's kernel is the other one; not "I can't
import tensorflow" (one search per block, as TENSORFLOW_WORDS)."""
TEXT_WORDS = {"names_tensorflow": TENSORFLOW_WORDS, "shows_failure": FAILURE_WORDS,
              "names_nvidia_gpu": NVIDIA_WORDS, "wants_gpu": GPU_WANTED_WORDS,
              "runs_in_notebook": NOTEBOOK_WORDS, "imports_elsewhere": IMPORTS_ELSEWHERE_WORDS}
"""LogTextFacts' flags about the whole text as read, each from its words: searched block by block
until found, so each costs at most one pass over the text."""


def read(path: str | os.PathLike[str], limit: int = DEFAULT_LIMIT, identity: Identity | None = None,
         redacted: bool = True, keep_log: bool = False) -> LogTextFacts:
    """Read and recognise a log file ("-" for standard input); never raises. `redacted=False`
    (collect --no-redact) keeps home paths and names; credentials are masked either way.
    `keep_log` keeps the log's text too (--keep-log)."""
    return from_reading(read_log(path, limit), identity, redacted, keep_log)


def from_bytes(data: bytes, source: str, limit: int = DEFAULT_LIMIT, identity: Identity | None = None,
               redacted: bool = True, keep_log: bool = False) -> LogTextFacts:
    """The same for text already in memory (what `tfdoctor run` recorded, a triaged report)."""
    return from_reading(read_log_bytes(data, source, limit), identity, redacted, keep_log)


def from_reading(reading: Reading, identity: Identity | None = None, redacted: bool = True,
                 keep_log: bool = False) -> LogTextFacts:
    """Recognise the text as it is read (unredacted, so paths still match) and keep the lines
    around each match, redacted."""
    who = identity or (Identity.current() if redacted else None)

    def clean(text: str) -> str:
        return redact(text, who) if redacted else mask_secrets(text)

    recogniser = Recogniser(SIGNATURES)
    window = Window(KEEP_LOG_CHARS if keep_log else 0, clean)
    flags = dict.fromkeys(TEXT_WORDS, False)
    speeds, outcomes, growth, models = SpeedReader(), OutcomeReader(), GrowthReader(), ModelErrorReader()
    for block in scan(window.pieces(reading.pieces), recogniser):
        window.block(block)
        speeds.feed_block(block.lines.text, block.lines.first)
        outcomes.feed_block(block.lines.text, block.lines.first)
        growth.feed_block(block.lines.text, block.lines.first)
        models.feed_block(block.lines.text, block.lines.first)
        for flag, words in TEXT_WORDS.items():
            flags[flag] = flags[flag] or bool(words.search(block.lines.text))
    log = reading.read
    matches = recogniser.matches()[:MAX_MATCHES] if not log.binary and not log.error else []
    excerpt, log.kept_lines = window.excerpt(matches)
    text = None
    if keep_log and log.lines:
        text, log.kept_lines = window.text()
    read = {f.name: getattr(log, f.name) for f in fields(LogRead)}
    read.update(source=clean(log.source), notes=[clean(n) for n in log.notes])
    return LogTextFacts(**read, excerpt=clean(excerpt), matches=[_match(m, clean) for m in matches],
                        redacted=redacted, text=clean(text) if text is not None else None,
                        **{flag: found and not log.binary for flag, found in flags.items()},
                        timings=[] if log.binary else speeds.kept,
                        outcomes=[] if log.binary else [replace(o, said=clean(o.said)) for o in outcomes.kept],
                        growth=[] if log.binary else [replace(g, said=clean(g.said)) for g in growth.kept],
                        model_errors=[] if log.binary else [replace(e, said=clean(e.said)) for e in models.kept])


def _match(m: LogMatch, clean: Callable[[str], str]) -> LogTextMatch:
    return LogTextMatch(m.code, m.variant, m.stage, m.line, clean(m.text)[:MAX_LINE],
                        {k: clean(v)[:MAX_LINE] for k, v in m.fields.items()}, m.count, list(m.sources))
