"""How a command `tfdoctor run` supervised ran and ended: facts of the snapshot, kept apart from
the supervision code (tfdoctor.gather.supervised_run) so that loading a snapshot imports no process tooling."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class OpPlacement:
    """How often TensorFlow placed an op on a device during the run."""

    op: str
    device: str
    """"CPU", "GPU", ... (the device type of the placement)."""
    count: int = 1


@dataclass
class RunFacts:
    """How the supervised command ran and ended."""

    argv: list[str]
    """The command as given, credentials masked (--api-key=<redacted>)."""
    outcome: str
    """"exited" (see returncode), "signal" (killed by `signal`), "timeout" (hung past the
    limit and killed), "not-found", "not-executable" or "failed-to-start"."""
    returncode: int | None = None
    signal: str | None = None
    message: str = ""
    wall_s: float = 0.0
    timeout_s: float | None = None
    killed_after_grace: bool = False
    """The command ignored SIGTERM at the timeout and was killed with SIGKILL."""
    forwarded: list[str] = field(default_factory=list)
    """Signals tfdoctor received and passed on to the command's process group."""
    peak_rss_bytes: int | None = None
    """Largest sampled resident memory of the whole process tree (None: not sampled)."""
    peak_processes: int = 0
    leftovers_killed: int = 0
    """Processes of the run still alive after the command ended (killed by tfdoctor)."""
    output_bytes: int = 0
    recorded_bytes: int = 0
    placement: bool = False
    cpu_ops: list[OpPlacement] = field(default_factory=list)
    """Ops placed on the CPU (with placement logging on), most frequent first."""
    gpu_ops: list[OpPlacement] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == "exited" and self.returncode == 0

    def ended(self) -> str:
        """How it ended, in words."""
        if self.outcome == "exited":
            return f"exited with status {self.returncode}"
        if self.outcome == "signal":
            return f"killed by {self.signal}"
        if self.outcome == "timeout":
            how = "SIGKILL after ignoring SIGTERM" if self.killed_after_grace else "SIGTERM"
            return f"still running after {self.timeout_s:g} s: stopped with {how}"
        return self.message or self.outcome
