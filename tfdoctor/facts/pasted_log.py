"""A pasted error log as a fact of the snapshot: what was read, what was recognised, redacted.

`tfdoctor check --log FILE` and `collect --log` keep the log next to the environment's facts so
the rules (checks/log_*.py) can diagnose the two together, on this machine or anywhere a
snapshot is sent. A log is not kept whole: only the lines around each match (a few KB, redacted)
and how it was read; the text itself (its head and tail, up to KEEP_LOG_CHARS) only when the user
asks for it (`--keep-log`). Home paths, user and host names and credentials never reach the
snapshot, and what was never kept cannot leak. This module is the plain data;
tfdoctor.logtext.keep reads, recognises and redacts the log into it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_LIMIT = 64 * 1024 * 1024
"""Bytes of a log read at most: a larger file is read as its first and last halves of this, and
standard input still going after this many bytes is left unread."""

AROUND = 8
"""Lines kept before and after each match: a traceback's last frames, a message's own lines."""
EXCERPT_CHARS = 8000
MAX_LINE = 300
MAX_MATCHES = 60
KEEP_LOG_CHARS = 1 << 20
"""Characters of the log's own text kept with --keep-log: its head and its tail, half each."""


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
class TextTiming:
    """A duration the text gives for a run on one device (tfdoctor.logtext.speeds reads them)."""

    device: str
    """"GPU" or "CPU"."""
    seconds: float
    per: str
    """"step", "sample", "epoch", or "" (the whole run)."""
    line: int
    said: str
    """The figure as written: "8ms/step", "56 minutes/epoch"."""


@dataclass
class TextOutcome:
    """A result the text gives for a run on one device (tfdoctor.logtext.outcomes reads them)."""

    device: str
    """"GPU" or "CPU"."""
    right: bool
    """True: it trained or computed right ("converges", "works fine"); False: wrong ("loss: nan")."""
    line: int
    said: str
    """The words that say it: "the loss becomes nan", "converges"."""


@dataclass
class TextGrowth:
    """What a text says of its process's memory growing (tfdoctor.logtext.growth reads it)."""

    line: int
    said: str
    """The words ("memory usage keeps increasing every epoch") or the sizes ("1771 MB → 2377 MB → 2984 MB")."""
    sizes_mb: list[float]
    """The sizes in MB, where figures say it (empty for words)."""


@dataclass
class TextModelError:
    """A model that failed to load, as a text shows it (tfdoctor.logtext.model_errors reads it)."""

    kind: str
    """"corrupt" (not a whole HDF5 or .keras file) or "custom-objects" (a name Keras does not know)."""
    line: int
    said: str
    name: str | None = None
    """The custom object Keras could not find ("TrigPosEmbedding"), for "custom-objects"."""


@dataclass
class LogRead:
    """How a log was read (a file, standard input, a command's output): what was taken and what was
    left out. tfdoctor.logtext.reader fills it for the text it returns; the snapshot keeps it."""

    source: str
    """"-" for standard input, the file name (redacted in a snapshot), or "run: CMD"."""
    size: int | None = None
    """Bytes in the whole input (None when standard input ended before we knew)."""
    read_bytes: int = 0
    skipped_bytes: int = 0
    """Bytes in the middle of a log larger than the limit that were not read."""
    gap_after_line: int | None = None
    """The skipped bytes lie after this line (1-based), when any were skipped."""
    encoding: str = "utf-8"
    replaced: int = 0
    """Characters that could not be decoded and were replaced with U+FFFD."""
    binary: bool = False
    error: str | None = None
    """Why nothing could be read (missing file, a directory, permission)."""
    lines: int = 0
    notes: list[str] = field(default_factory=list)
    cut_after: int | None = None
    """Standard input had not ended after this many bytes and was left unread from there."""
    kept_lines: int = 0
    """Lines of the log the snapshot keeps (around the matches; with --keep-log, its text)."""

    @property
    def empty(self) -> bool:
        return not self.binary and not self.error and self.lines == 0

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
        if self.cut_after is not None:
            parts.append(f"cut after {self.cut_after} bytes (the input had not ended)")
        if self.lines:
            parts.append(f"{self.kept_lines} lines kept, {self.lines - self.kept_lines} left out")
        if self.empty:
            parts.append("empty")
        return "; ".join(parts)


@dataclass
class LogTextFacts(LogRead):
    """A log given with --log (or recorded by `tfdoctor run`): how it was read and what it says."""

    excerpt: str = ""
    """The lines around each match ("..." between them), redacted, at most EXCERPT_CHARS."""
    matches: list[LogTextMatch] = field(default_factory=list)
    redacted: bool = True
    text: str | None = None
    """The log's text as read, redacted, only with --keep-log: all of it up to KEEP_LOG_CHARS,
    else its head and tail with the lines around each match between ("..." where lines are left
    out)."""

    names_tensorflow: bool = False
    """Whether the text, all of it as read (not only what was kept), names TensorFlow or Keras: a
    message any program prints (a CPU crash, NumPy's ABI check) in a text that never does is
    another project's (tfdoctor.logtext.keep.TENSORFLOW_WORDS)."""
    shows_failure: bool = False
    """Whether the text, all of it as read, shows something failing: a Python traceback or
    exception line, a crash signal, an abort (tfdoctor.logtext.keep.FAILURE_WORDS). A report that
    shows none describes a setup, a question or a benchmark."""
    names_nvidia_gpu: bool = False
    """Whether the text, all of it as read, says its machine has an NVIDIA GPU or a CUDA toolkit:
    a GPU model, a CUDA release, nvidia-smi's table (tfdoctor.logtext.keep.NVIDIA_WORDS). There a
    CUDA library TensorFlow could not open costs the GPU; elsewhere the same line is what every
    machine without one prints."""
    wants_gpu: bool = False
    """Whether the text, in its writer's words, says the machine has a GPU they want used ("I have
    a GPU", "my GPU", "the GPU is not detected", "to use the GPU"; tfdoctor.logtext.keep.GPU_WANTED_WORDS).
    A report about a CUDA library TensorFlow could not open then asks why that GPU is lost."""
    runs_in_notebook: bool = False
    """Whether the text comes from a Jupyter notebook: Jupyter named, a notebook file, IPython's
    traceback markers or prompts (tfdoctor.logtext.keep.NOTEBOOK_WORDS)."""
    imports_elsewhere: bool = False
    """Whether the text, in its writer's words, says TensorFlow imports somewhere ("I can import
    tensorflow", "it works in the terminal"; tfdoctor.logtext.keep.IMPORTS_ELSEWHERE_WORDS): beside
    "No module named 'tensorflow'", the interpreter that failed is another one."""
    timings: list[TextTiming] = field(default_factory=list)
    """The durations the text gives for runs on the GPU and on the CPU (tfdoctor.logtext.speeds):
    the first few per device and unit."""
    outcomes: list[TextOutcome] = field(default_factory=list)
    """The results the text gives for runs on the GPU and on the CPU (tfdoctor.logtext.outcomes):
    the first few per device and verdict."""
    growth: list[TextGrowth] = field(default_factory=list)
    """What the text says of its memory growing as it runs (tfdoctor.logtext.growth): the first few."""
    model_errors: list[TextModelError] = field(default_factory=list)
    """A model the text failed to load, and why (tfdoctor.logtext.model_errors): the first few."""

    def of(self, *codes: str) -> list[LogTextMatch]:
        """The matches of these codes, in the order of the log."""
        return [m for m in self.matches if m.code in codes]
