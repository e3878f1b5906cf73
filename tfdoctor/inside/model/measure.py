"""Speed and memory of the model: inference and training-step time on each device (first call
apart, autoranged repeats closed by a read-back, the probes' statistics), the batch sweep, and
the process's memory across training steps.

Standard library and TensorFlow only; Python 3.8+.
"""

from __future__ import annotations

import os
import sys
import time

from tfdoctor.inside.model.calls import place, read_back
from tfdoctor.inside.model.inputs import synthetic_batch
from tfdoctor.inside.model.ops import LayerNames
from tfdoctor.inside.model.state import Budget, describe, is_oom, stage_error, write
from tfdoctor.inside.shared import probe_stats


def process_memory():
    """(bytes, what): the macOS footprint (includes Metal's unified-memory buffers), else the
    resident set from /proc, else the peak RSS from getrusage."""
    if sys.platform == "darwin":
        try:
            import ctypes
            libc = ctypes.CDLL("/usr/lib/libSystem.B.dylib")
            buf = ctypes.create_string_buffer(512)
            if libc.proc_pid_rusage(os.getpid(), 2, buf) == 0:  # RUSAGE_INFO_V2
                return int.from_bytes(buf.raw[72:80], "little"), "phys_footprint"
        except Exception:  # noqa: BLE001
            pass
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE"), "rss"
    except (OSError, ValueError, IndexError):
        pass
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (peak if sys.platform == "darwin" else peak * 1024), "peak_rss"


MIN_MEMORY_STEPS = 9
"""Steps the leak rule (tfdoctor.gather.model_memory.memory_trend) needs: three warm-up steps and six
to judge."""


def memory_series(tf, calls, device, steps, budget, describe):
    result = {"device": device, "steps": [], "source": None, "error": None}
    step = calls.call("train", device)
    short = device.strip("/")
    try:
        if budget.left() <= 0:
            result["stopped"] = "budget"
            return result
        for i in range(int(steps)):
            if budget.left() <= 0 and i >= MIN_MEMORY_STEPS:
                result["stopped"] = "budget"
                break
            loss = float(step().numpy())
            rss, source = process_memory()
            result["source"] = source
            entry = {"step": i, "process_bytes": rss, "loss": loss}
            try:
                info = tf.config.experimental.get_memory_info(short)
                entry["device_current"] = int(info["current"])
                entry["device_peak"] = int(info["peak"])
            except Exception:  # noqa: BLE001 - not every device and TF version says
                pass
            result["steps"].append(entry)
    except Exception as exc:  # noqa: BLE001
        result["error"] = describe(exc)
        result["oom"] = is_oom(exc)
    return result


# --- measuring ---------------------------------------------------------------------------------


MIN_REPEATS = 3
"""Repeats a side the rank test needs to decide at all (p = 1/20 with 3 and 3)."""


def timed(tf, call, budget, cfg, first=None, total=None):
    """First call apart, then autoranged repeats closed by a read-back (workloads' method).
    `first`: the first call's cost when the call was already made (then it is not repeated).
    Repeats go on while `budget` (this measurement's share) lasts, and up to MIN_REPEATS while
    `total` (the whole probe's budget) does."""
    started = time.perf_counter()
    read_back(tf, call())
    if first is None:
        first = time.perf_counter() - started
        read_back(tf, call())
    number = 1
    while True:
        started = time.perf_counter()
        for _ in range(number):
            out = call()
        read_back(tf, out)
        took = time.perf_counter() - started
        if took >= cfg["repeat_s"] or number >= 1024 or budget.left() < took * 4:
            break
        number *= 2
    times = [took / number]
    total = total or budget
    while len(times) < cfg["repeats"] and (budget.left() > took * 1.5 or (
            len(times) < MIN_REPEATS and total.left() > took)):
        started = time.perf_counter()
        for _ in range(number):
            out = call()
        read_back(tf, out)
        times.append((time.perf_counter() - started) / number)
    result = {"first_call_s": first, "number": number, "times_s": times}
    result.update(probe_stats.summary(times))
    return result


def measure_speed(tf, calls, devices, budget, cfg, fraction=1.0):
    """Inference and training step on each device, each within its share of `fraction` of
    what is left of the budget."""
    speed = {"inference": {}, "train_step": {}, "verdicts": {}}
    jobs = [(kind, device) for kind in ("inference", "train") for device in devices]
    mine = Budget(budget.left() * fraction)
    for index, (kind, device) in enumerate(jobs):
        name = "inference" if kind == "inference" else "train_step"
        share = Budget(mine.left() / (len(jobs) - index))
        if budget.left() <= 0:
            speed[name][device] = {"skipped": "budget"}
            continue
        try:
            call = calls.call(kind, device)
            if call is None:
                continue
            read_back(tf, call())
            speed[name][device] = timed(tf, call, share, cfg, calls.first[(kind, device)],
                                        budget)
        except Exception as exc:  # noqa: BLE001
            speed[name][device] = {"error": describe(exc), "oom": is_oom(exc)}
            stage_error("speed", exc, LayerNames(calls.model))
        write("speed")
    for kind in ("inference", "train_step"):
        cpu = speed[kind].get("/CPU:0", {}).get("times_s")
        gpu = speed[kind].get("/GPU:0", {}).get("times_s")
        if cpu and gpu:
            speed["verdicts"][kind] = probe_stats.compare(cpu, gpu)
    return speed


def sweep(tf, model, cfg, devices, budget, calls):
    """Inference at each batch size of cfg["sweep"] on each device, with the function traced
    for any batch: where the GPU starts to win."""
    rows = []
    fn = calls.function("inference")
    for batch in cfg["sweep"]:
        if budget.left() <= 0:
            rows.append({"batch": batch, "skipped": "budget"})
            continue
        bundle = synthetic_batch(tf, model, int(batch), [], cfg["seed"])
        row = {"batch": batch}
        for device in devices:
            xs = place(tf, device, bundle["inputs"])

            def call():
                with tf.device(device):
                    return fn(*xs)
            try:
                row[device] = timed(tf, call, Budget(budget.left() / len(devices)), cfg)
            except Exception as exc:  # noqa: BLE001
                row[device] = {"error": describe(exc)}
        rows.append(row)
    return rows
