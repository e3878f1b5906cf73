"""Peak memory and time of `tfdoctor check --log` and `tfdoctor triage` on large pastes (issue 28,
classes 1 and 2).
Prints its figures; asserts nothing (a busy machine would make a wall-clock assert fail).

    python benchmarks/paste_memory.py [--runs N] [--only NAME...]

Each case is one `tfdoctor check --no-runtime --no-probes --json --log ...` process, started by
a fresh wrapper so that its peak resident set size (getrusage of the waited-for children) is its
own; the log arrives as `yes | tfdoctor ...` would send it (a pipe from a producer process) or as
a file:

* `yes 8 MB`, `yes 64 MB`: "y\\n" lines on standard input (64 MB is also the read bound);
* `training log 50 MB`: a file of TensorFlow's start-up lines, tensorflow-metal's device lines,
  Keras progress bars (Keras 2's `\\r`-redrawn ones and their final lines, Keras 3's) and a
  warning and an error at the end, each template copied from a real log (the sources below);
* `adversarial 1 MB`: lines of 8 KB made of what the cleaning passes used to take quadratic time
  on (runs of backticks and spaces in inline code, digits after a Jupyter prefix, an unterminated
  terminal title), with an error the signatures know at the end;
* `training log 50 MB --keep-log`: the same, its text kept in the report (1 MiB of it);
* `no log`: the same command without --log, for what tfdoctor costs on its own;
* `triage JSON Lines 216 MB`: `tfdoctor triage FILE --json` on an issue export of two lines, each
  one report whose body is 18 MB of undecodable bytes (108 MB of JSON escapes a line): a line
  longer than the reader keeps is passed unread, so memory follows the longest line kept.

Run it with PYTHONPATH pointing at another tree to measure that tree (e.g. the main branch).

Templates: TensorFlow start-up and Metal lines from tensorflow/tensorflow#50196 and #61092
(tests/data/logs/SOURCES.json), Keras progress bars as keras/utils/progbar.py (Keras 2) and
keras/src/utils/progbar.py (Keras 3) print them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MB = 1_000_000

TF_START = [
    ("2023-03-30 13:41:43.720528: I tensorflow/core/platform/cpu_feature_guard.cc:193] This TensorFlow "
     "binary is optimized with oneAPI Deep Neural Network Library (oneDNN) to use the following CPU "
     "instructions in performance-critical operations:  AVX2 FMA"),
    "To enable them in other operations, rebuild TensorFlow with the appropriate compiler flags.",
    "Metal device set to: Apple M1 Pro",
    "",
    "systemMemory: 16.00 GB",
    "maxCacheSize: 5.33 GB",
    "",
    ("2023-03-30 13:41:43.905436: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:305] "
     "Could not identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have been "
     "built with NUMA support."),
    ("2023-03-30 13:41:43.905571: I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:271] "
     "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) -> "
     "physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)"),
    ("2023-03-30 13:41:44.101248: I tensorflow/core/grappler/optimizers/custom_graph_optimizer_registry.cc:114] "
     "Plugin optimizer for device_type GPU is enabled."),
]
ERROR_AT_END = [
    ("WARNING:absl:At this time, the v2.11+ optimizer `tf.keras.optimizers.Adam` runs slowly on M1/M2 "
     "Macs, please use the legacy Keras optimizer instead, located at `tf.keras.optimizers.legacy.Adam`."),
    "Traceback (most recent call last):",
    '  File "/Users/ada/train.py", line 41, in <module>',
    "    model.fit(train, epochs=50)",
    "error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
]
STEPS = 1875


def keras2_epoch(epoch: int, epochs: int) -> str:
    """One epoch as Keras 2 writes it to a terminal: the bar redrawn after `\\r`, then the final line."""
    lines = [f"Epoch {epoch}/{epochs}"]
    bars = []
    for step in range(1, STEPS + 1, 25):
        done = 30 * step // STEPS
        bar = "=" * max(done - 1, 0) + (">" if done < 30 else "=") + "." * (30 - done)
        bars.append(f"{step:4d}/{STEPS} [{bar}] - ETA: {(STEPS - step) // 200}s - loss: 0.{9000 - step:04d}"
                    f" - accuracy: 0.{1000 + step:04d}")
    lines.append("\r".join(bars))
    lines.append(f"{STEPS}/{STEPS} [==============================] - 9s 4ms/step - loss: 0.2921 - "
                 f"accuracy: 0.9167 - val_loss: 0.1412 - val_accuracy: 0.9581")
    return "\n".join(lines)


def keras3_epoch(epoch: int, epochs: int) -> str:
    """One epoch's final line as Keras 3 prints it."""
    return (f"Epoch {epoch}/{epochs}\n{STEPS}/{STEPS} \u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501"
            "\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501 5s 2ms/step - accuracy: 0.9178 - "
            "loss: 0.2896 - val_accuracy: 0.9608 - val_loss: 0.1333")


def training_log(path: Path, size: int) -> None:
    """A training log of about `size` bytes: runs of start-up, epochs, and the error at the end."""
    with open(path, "w", encoding="utf-8") as handle:
        written, run = 0, 0
        while written < size:
            chunk = "\n".join(TF_START) + "\n"
            for epoch in range(1, 51):
                chunk += (keras2_epoch if run % 2 == 0 else keras3_epoch)(epoch, 50) + "\n"
            handle.write(chunk)
            written += len(chunk.encode())
            run += 1
        handle.write("\n".join(ERROR_AT_END) + "\n")


def adversarial_log(path: Path, size: int) -> None:
    """Lines of 8 KB the cleaning passes used to take time quadratic in (their length), then an error."""
    width = 8000
    kinds = ["`a" + "`" * (width - 3) + "b", "`a" + " " * (width - 3) + "b", "[I " + "1" * (width - 4) + "x",
             "\x1b]" * (width // 2)]
    with open(path, "w", encoding="utf-8") as handle:
        written, n = 0, 0
        while written < size:
            line = kinds[n % len(kinds)] + "\n"
            handle.write(line)
            written += len(line)
            n += 1
        handle.write("\n".join(ERROR_AT_END) + "\n")


PRODUCER = ("import sys\nn = int(sys.argv[1]); block = b'y\\n' * 32768\nout = sys.stdout.buffer\n"
            "while n > 0:\n    out.write(block[:n]); n -= len(block)\nout.flush()\n")
WRAPPER = ("import json, resource, subprocess, sys, time\nargs = json.loads(sys.argv[1])\n"
           "producer = subprocess.Popen(args['producer'], stdout=subprocess.PIPE) if args['producer'] else None\n"
           "stdin = producer.stdout if producer else subprocess.DEVNULL\nstart = time.perf_counter()\n"
           "run = subprocess.run(args['command'], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
           "seconds = time.perf_counter() - start\nif producer: producer.kill(); producer.wait()\n"
           "kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
           "kb = kb // 1024 if sys.platform == 'darwin' else kb\n"
           "doc = json.loads(run.stdout); log = (doc.get('snapshot') or {}).get('log') or {}\n"
           "print(json.dumps({'seconds': seconds, 'peak_kb': kb, 'code': run.returncode,"
           " 'lines': log.get('lines'), 'kept': log.get('kept_lines'), 'matches': len(log.get('matches', [])),"
           " 'read': log.get('read_bytes'), 'notes': log.get('notes', []), 'unread': doc.get('unread')}))\n")


def measure(log: str | None, producer_bytes: int | None, *extra: str) -> dict:
    """One run of the check command (or of triage, when `extra` starts with "triage") in a fresh
    wrapper (so the peak RSS is this run's)."""
    if extra[:1] == ("triage",):
        command = [sys.executable, "-m", "tfdoctor", "triage", str(log), "--json"]
    else:
        command = [sys.executable, "-m", "tfdoctor", "check", "--no-runtime", "--no-probes", "--json", "-q", *extra]
        if log is not None:
            command += ["--log", log]
    producer = [sys.executable, "-c", PRODUCER, str(producer_bytes)] if producer_bytes else None
    out = subprocess.run([sys.executable, "-c", WRAPPER, json.dumps({"command": command, "producer": producer})],
                         capture_output=True, text=True, check=True, env={**os.environ, "NO_COLOR": "1"})
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="case names (prefixes) to run")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}; tfdoctor from "
          f"{os.environ.get('PYTHONPATH') or 'this tree'}")
    with tempfile.TemporaryDirectory() as tmp:
        training, adversarial = Path(tmp, "train.log"), Path(tmp, "adversarial.log")
        export = Path(tmp, "issues.jsonl")
        cases = {"no log": (None, None, ()), "yes 8 MB": ("-", 8 * MB, ()), "yes 64 MB": ("-", 64 * MB, ()),
                 "training log 50 MB": (str(training), None, ()),
                 "training log 50 MB --keep-log": (str(training), None, ("--keep-log",)),
                 "adversarial 1 MB": (str(adversarial), None, ()),
                 "triage JSON Lines 216 MB": (str(export), None, ("triage",))}
        for name, (log, produced, extra) in cases.items():
            if args.only is not None and not any(name.startswith(o) for o in args.only):
                continue
            if log == str(training) and not training.exists():
                training_log(training, 50 * MB)
            if log == str(adversarial) and not adversarial.exists():
                adversarial_log(adversarial, MB)
            if log == str(export) and not export.exists():
                body = (b"\xff" * 18 * MB).decode("utf-8", "replace")
                export.write_text(json.dumps({"number": 1, "body": body}) + "\n" + json.dumps(body) + "\n")
            runs = [measure(log, produced, *extra) for _ in range(args.runs)]
            peak = statistics.median(r["peak_kb"] for r in runs) / 1024
            seconds = [r["seconds"] for r in runs]
            last = runs[-1]
            size = f"{Path(log).stat().st_size / MB:.1f} MB file" if log not in (None, "-") else (
                f"{produced / MB:.0f} MB on stdin" if produced else "")
            print(f"{name:<30} peak RSS {peak:6.1f} MB   time median {statistics.median(seconds):6.2f} s "
                  f"(min {min(seconds):.2f}, max {max(seconds):.2f}, n={len(runs)})  {size}")
            if extra[:1] == ("triage",):
                print(f"{'':<30} exit {last['code']}; not read: {last['unread']}")
            elif log is not None:
                print(f"{'':<30} read {last['read']} bytes, {last['lines']} lines, {last['kept']} kept, "
                      f"{last['matches']} matches; exit {last['code']}; notes: {last['notes']}")


if __name__ == "__main__":
    main()
