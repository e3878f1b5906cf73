"""The long fuzz run over every command (issue 22 class 7): the generators and the property of
tests/hostile/test_fuzz_commands.py (which runs a short fixed-seed set in CI), with random seeds, for
as long as asked. Prints the cases run (per target and per command), and how many were hangs (no end within HANG_S s),
tracebacks, exit 3 (an exception escaping a command), other exit codes and invalid JSON under
--json, with the first few failing cases of each kind.

    python benchmarks/fuzz_long.py [--minutes 10] [--seed N] [--cases N] [--trace FILE]

Hypothesis keeps a tree of every choice it made within one run, so one endless run grew to
gigabytes; here each round is a run of ROUND cases with its own seed, and the progress lines
give the harness's peak memory.

A case that passes the HANG_S bound on a busy machine may only be slow: each one is kept (its
command line, standard input and the files it wrote) and run again alone at the end, with its
wall and processor time; a hang is a case that passes the bound again.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO)]

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from hostile import test_fuzz_commands as fz  # noqa: E402

ROUND = 100
"""Cases in one hypothesis run (a round); its choice tree is dropped at the round's end."""


def keep_case(drawn: tuple[list[str], bytes], tmp: Path) -> tuple[list[str], bytes, dict[Path, bytes]]:
    """The case as it ran: its files are rewritten by the next case of the same kind."""
    argv, stdin = drawn
    files = {path: path.read_bytes() for path in tmp.iterdir() if path.is_file() and str(path) in " ".join(argv)}
    return argv, stdin, files


def timed(argv: list[str], stdin: bytes) -> tuple[float, float, "fz.Outcome"]:
    """Wall and processor time (this process and its children) of one invocation."""
    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    wall0, cpu0 = time.monotonic(), cpu()
    outcome = fz.invoke(argv, stdin)
    return time.monotonic() - wall0, cpu() - cpu0, outcome


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TimeUp(BaseException):
    """Ends hypothesis' run (a BaseException: hypothesis does not treat it as a failure)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases (and --minutes)")
    parser.add_argument("--trace", default=None,
                        help="append each case's argv to this file before it runs (the one a dead run died in)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    tmp = Path(tempfile.mkdtemp(prefix="tfdoctor-fuzz-"))
    os.chdir(tmp)  # `collect -o FILE` and friends write here, not in the repository
    pool = fz.make_pool(tmp / "pool", fz.base_snapshot())
    counts: collections.Counter = collections.Counter()
    per_target: collections.Counter = collections.Counter()
    per_command: collections.Counter = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    end = time.monotonic() + args.minutes * 60
    slowest = [0.0, None]
    peak_seen = [peak_mb()]

    def done() -> bool:
        return time.monotonic() >= end or (args.cases is not None and counts["cases"] >= args.cases)

    def harness_error(where: str) -> None:
        """A failure of the generators or of this harness, not of tfdoctor: recorded with its
        traceback, and the case not handed back to hypothesis (whose replay of a failing case
        would fail again on its own, printing a drawn value nested thousands deep)."""
        import traceback

        counts["harness"] += 1
        text = f"{where}: {traceback.format_exc(limit=-6)}"
        examples["harness"].append(text[-1500:])
        print(f"harness: {text[-1500:]}", file=sys.stderr, flush=True)

    @settings(max_examples=ROUND, database=None, deadline=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def case(data):
        if done():
            raise TimeUp
        target = data.draw(st.sampled_from(fz.TARGETS))
        try:
            drawn = fz.draw_case(data, target, tmp, pool)
        except Exception:  # noqa: BLE001 - recorded, see harness_error
            harness_error(f"drawing a {target} case")
            return
        drawn_peak = peak_mb()
        if drawn_peak > peak_seen[0] + 100:
            print(f"memory: peak {drawn_peak:.0f} MB drawing a {target} case (the harness's own)",
                  file=sys.stderr, flush=True)
        if args.trace:
            with open(args.trace, "a", encoding="utf-8", errors="backslashreplace") as trace:
                trace.write(f"{counts['cases']} {drawn[0]!r}\n")
        started = time.monotonic()
        try:
            outcome = fz.invoke(*drawn)
        except Exception:  # noqa: BLE001 - invoke catches what the command raises: this is its own
            harness_error(f"running {drawn[0][:4]!r}")
            return
        took = time.monotonic() - started
        if peak_mb() > max(peak_seen[0], drawn_peak) + 100:  # a command that takes memory is named
            print(f"memory: peak {peak_mb():.0f} MB running {outcome.argv[:8]!r} ({len(drawn[1])} bytes in)",
                  file=sys.stderr, flush=True)
        peak_seen[0] = max(peak_seen[0], peak_mb())
        if any(p.startswith("hang") for p in outcome.problems):
            kept.append(keep_case(drawn, tmp))
        if took > slowest[0]:
            slowest[:] = [took, outcome.argv[:6]]
        counts["cases"] += 1
        per_target[target] += 1
        per_command[outcome.argv[0] if outcome.argv else "(none)"] += 1
        for problem in outcome.problems:
            kind = problem.split(":", 1)[0].split(" ")[0]
            counts[kind] += 1
            if len(examples[kind]) < 3:
                examples[kind].append(f"{outcome.argv!r}: {problem[:600]}")
            print(f"{kind}: {outcome.argv!r}: {problem[:300]}", file=sys.stderr, flush=True)
        if counts["cases"] % 200 == 0:
            print(f"... {counts['cases']} cases, peak {peak_mb():.0f} MB, {dict(counts)}", file=sys.stderr, flush=True)

    kept: list[tuple[list[str], bytes, dict[Path, bytes]]] = []
    started = time.monotonic()
    rounds = 0
    while not done():
        rounds += 1
        try:
            hypothesis_seed(seed + rounds)(case)()
        except TimeUp:
            break
        except Exception:  # noqa: BLE001 - hypothesis itself (the property never raises)
            if done():
                break  # the end stopped a case half drawn: hypothesis calls that flaky
            harness_error(f"round {rounds}")
    minutes = (time.monotonic() - started) / 60
    print(f"seed {seed}, {minutes:.1f} min, per target: {dict(per_target)}")
    print(f"per command: {dict(per_command.most_common())}")
    missing = sorted(set(fz.ALL_COMMANDS) - set(per_command))
    if missing:
        print(f"commands not run: {', '.join(missing)}")
    print(f"cases {counts['cases']}, hangs {counts['hang']}, tracebacks {counts['traceback']}, "
          f"exit 3 {counts['exit3']}, other exit codes {counts['exit']}, invalid JSON {counts['json']}"
          f"{', harness errors ' + str(counts['harness']) if counts['harness'] else ''}")
    if kept:
        print(f"{len(kept)} case(s) passed the {fz.HANG_S:g} s bound in the run; each run again alone:")
        for argv, stdin, files in kept:
            for path, content in files.items():
                path.write_bytes(content)
            wall, cpu, outcome = timed(argv, stdin)
            verdict = "a hang again" if outcome.problems and outcome.problems[0].startswith("hang") else (
                f"ended, exit {outcome.code}, problems {outcome.problems or 'none'}")
            print(f"  {argv[:6]!r} ({len(stdin)} bytes in, {sum(map(len, files.values()))} bytes of files): "
                  f"{verdict} in {wall:.1f} s wall, {cpu:.1f} s processor")
    print(f"peak memory of the harness {peak_mb():.0f} MB")
    print(f"slowest case {slowest[0]:.1f} s (bound {fz.HANG_S:g} s): {slowest[1]!r}")
    for kind, found in examples.items():
        for line in found:
            print(f"  {kind}: {line}")


if __name__ == "__main__":
    main()
