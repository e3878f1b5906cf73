"""The probe run: which devices, which workloads at which sizes, in what order, what to skip for
lack of time, the retry at a larger size when the GPU is not clearly faster, and one measurement
(set-up, timing, placement, agreement with the CPU) recorded as plain data as it goes.

Runs inside the diagnosed interpreter: standard library and tensorflow (passed in as `tf`),
Python 3.8+. tfdoctor.inside.probes.run.run_probes drives it.
"""

from __future__ import annotations

import math
import time
import traceback

from tfdoctor.inside.probes.agreement import agreement
from tfdoctor.inside.probes.timing import Budget, time_it
from tfdoctor.inside.shared import probe_stats
from tfdoctor.inside.shared.probe_config import MAX_SIZE, RETRY_FACTOR, SCHEMA
from tfdoctor.inside.shared.probe_record import (
    describe,
    finite_or_none,
    new_run,
    on_device,
    sanitize,
    short_device,
    text,
)
from tfdoctor.inside.shared.workloads import KINDS

__all__ = ["Prober"]


class Prober(object):
    """One probe run for a resolved configuration: `run()` measures the plan and returns
    `result`, the plain-data document that `on_result` also gets after every step."""

    def __init__(self, tf, cfg, progress, on_result):
        self.tf = tf
        self.cfg = cfg
        self.progress = progress
        self.on_result = on_result
        self.budget = Budget(cfg["budget_s"])
        clock = time.get_clock_info("perf_counter")
        self.resolution = float(clock.resolution)
        self.min_repeat_s = max(cfg["min_repeat_s"], 1000.0 * self.resolution)
        self.result = {
            "schema": SCHEMA,
            "outcome": "ok",
            "message": "",
            "complete": False,
            "config": cfg,
            "tf_version": str(getattr(tf, "__version__", "")) or None,
            "devices": [],
            "gpus": [],
            "runs": [],
            "messages": [],
            "current": None,
            "elapsed_s": None,
            "budget_s": cfg["budget_s"],
            "budget_exhausted": False,
            "timer": "time.perf_counter",
            "timer_resolution_s": self.resolution,
            "error": None,
        }
        self.references = {}

    # -- reporting

    def say(self, message):
        self.result["messages"].append(message)
        try:
            self.progress(message)
        except Exception:  # noqa: BLE001 - a broken progress sink must not stop the probes
            pass

    def publish(self):
        self.result["elapsed_s"] = round(self.budget.elapsed(), 4)
        if self.on_result is not None:
            try:
                self.on_result(sanitize(self.result))
            except Exception:  # noqa: BLE001
                pass

    def set_current(self, workload, device, size, phase):
        self.result["current"] = {"workload": workload, "device": device, "size": size,
                                  "phase": phase}
        self.publish()

    # -- devices

    def devices(self):
        tf = self.tf
        found = []
        gpus = []
        for handle in tf.config.list_logical_devices():
            kind = str(handle.device_type).upper()
            name = short_device(handle.name)
            if kind == "CPU" and name == "CPU:0":
                found.append(name)
            elif kind == "GPU":
                gpus.append(name)
        if "CPU:0" not in found:
            found.insert(0, "CPU:0")
        self.result["gpus"] = gpus
        wanted = self.cfg["devices"]
        chosen = ([d for d in found if d.startswith("CPU")] if wanted in ("cpu", "all") else [])
        if wanted in ("gpu", "all"):
            chosen += gpus
        self.result["devices"] = chosen
        return chosen

    # -- the plan

    def run(self):
        cfg = self.cfg
        devices = self.devices()
        gpus = [d for d in devices if d.startswith("GPU")]
        if cfg["devices"] == "gpu" and not gpus:
            self.say("no GPU to probe (TensorFlow lists none)")
        retrying = cfg["retry"] and not cfg["sweep"] and bool(gpus) and "CPU:0" in devices
        plan = []
        for workload in cfg["workloads"]:
            if cfg["sweep"]:
                sizes = sorted(set(cfg["sweep_sizes"].get(workload) or [cfg["sizes"][workload]]))
            else:
                sizes = [cfg["sizes"][workload]]
            plan.append((workload, sizes))
        # Measurements still to come, for sharing the budget: the planned ones, plus, while
        # retries are possible, one CPU and one GPU measurement per GPU and workload. Every
        # workload is measured at its size before any retry at a larger size, so a slow GPU's
        # retry cannot starve the workloads after it.
        pending = sum(len(sizes) for _, sizes in plan) * len(devices)
        reserve = (1 + len(gpus)) * len(plan) if retrying else 0
        for workload, sizes in plan:
            role = "sweep" if cfg["sweep"] else "main"
            for size in sizes:
                if cfg["sweep"] and not self.fits(workload, size, devices):
                    self.skip(workload, size, devices, role,
                              "budget: the sweep stops before size %d (estimated to take longer "
                              "than the %.1f s left)" % (size, self.budget.left()))
                    pending -= len(devices)
                    continue
                for device in devices:
                    self.measure(workload, size, device, role, pending + reserve)
                    pending -= 1
                self.references.pop((workload, size), None)  # inputs and reference outputs
        if retrying:
            for workload, sizes in plan:
                reserve -= 1 + len(gpus)
                self.retry(workload, sizes[0], gpus, reserve)
        self.result["current"] = None
        self.result["complete"] = True
        skipped = [r for r in self.result["runs"] if r.get("skipped")]
        self.result["budget_exhausted"] = any("budget" in (r["skipped"] or "") for r in skipped)
        self.result["message"] = "%d measurement(s) in %.1f s%s" % (
            len([r for r in self.result["runs"] if r.get("timing")]), self.budget.elapsed(),
            "; %d skipped" % len(skipped) if skipped else "")
        self.publish()
        return self.result

    def find(self, workload, size, device):
        for run in self.result["runs"]:
            if run["workload"] == workload and run["size"] == size and run["device"] == device \
                    and run.get("timing"):
                return run
        return None

    def retry(self, workload, size, gpus, later):
        """Measure `workload` once more at a larger size on the CPU and on every GPU that ran it
        correctly but was not clearly faster than the CPU."""
        cpu = self.find(workload, size, "CPU:0")
        if cpu is None:
            return
        losers = []
        for gpu in gpus:
            run = self.find(workload, size, gpu)
            if run is None or not run.get("on_device") or not (run.get("agreement") or {}).get("ok"):
                continue
            decision = probe_stats.compare(cpu["timing"]["per_call_s"], run["timing"]["per_call_s"])
            if decision["decision"] != probe_stats.FASTER:
                losers.append(gpu)
        larger = size * int(self.cfg["retry_factor"].get(workload, RETRY_FACTOR[workload]))
        if not losers or larger > MAX_SIZE[workload]:
            return
        targets = ["CPU:0"] + losers
        if not self.fits(workload, larger, targets):
            self.skip(workload, larger, targets, "retry",
                      "budget: size %d was estimated to take longer than the %.1f s left"
                      % (larger, self.budget.left()))
            return
        self.say("%s: the GPU is not clearly faster at size %d; measuring size %d"
                 % (workload, size, larger))
        left = len(targets)
        for device in targets:
            self.measure(workload, larger, device, "retry", left + later)
            left -= 1
        self.references.pop((workload, larger), None)

    def estimate(self, workload, size, device):
        """Seconds a measurement of `workload` at `size` on `device` should take, extrapolated
        from the largest smaller size measured there (work is proportional to WORK); None
        without one."""
        best = None
        for run in self.result["runs"]:
            if run["workload"] == workload and run["device"] == device and run.get("timing") \
                    and run["size"] <= size and (best is None or run["size"] > best["size"]):
                best = run
        if best is None:
            return None
        kind = KINDS[workload]
        ratio = kind.work(size) / kind.work(best["size"])
        timing = best["timing"]
        per_call = timing["median_s"] * ratio
        warm = max(timing["warmup_s"][1:] or timing["warmup_s"]) * ratio
        return warm * self.cfg["warmup"] + max(per_call, self.min_repeat_s) * (self.cfg["min_repeats"] + 1)

    def fits(self, workload, size, devices):
        total = 0.0
        for device in devices:
            total += self.estimate(workload, size, device) or 0.0
        return total <= self.budget.left()

    def skip(self, workload, size, devices, role, reason):
        for device in devices:
            self.result["runs"].append(new_run(workload, device, size, role, skipped=reason))
        self.say("%s size %d skipped: %s" % (workload, size, reason))
        self.publish()

    # -- one measurement

    def workload_at(self, workload, size):
        key = (workload, size)
        if key not in self.references:
            self.references[key] = {"kind": KINDS[workload](self.tf, size, self.cfg["seed"]),
                                    "outputs": None}
        return self.references[key]

    def measure(self, workload, size, device, role, pending):
        cfg = self.cfg
        run = new_run(workload, device, size, role)
        self.result["runs"].append(run)
        if self.budget.left() <= 0:
            run["skipped"] = "budget: %.1f s used up before this measurement" % cfg["budget_s"]
            self.say("%s size %d on %s skipped: budget used up" % (workload, size, device))
            self.publish()
            return run
        allowance = self.budget.left() / max(1, pending)
        started = time.perf_counter()
        phase = "setup"
        try:
            self.set_current(workload, device, size, phase)
            entry = self.workload_at(workload, size)
            kind = entry["kind"]
            run["shape"] = kind.shape
            run["flops"] = kind.flops
            run["samples"] = kind.samples
            prepared = kind.prepare("/" + device)
            run["inputs"] = prepared.inputs
            if kind.training_step:
                run["optimizer"] = kind.optimizer_name
            phase = "warmup"
            self.set_current(workload, device, size, phase)
            self.say("%s %s on %s: warming up" % (workload, kind.shape.split(" float32")[0], device))
            timing, last, losses = self.time_it(prepared, started + allowance)
            run["timing"] = timing
            if kind.training_step:
                run["loss_first"] = finite_or_none(losses[0]) if losses else None
                run["loss_last"] = finite_or_none(losses[-1]) if losses else None
                run["loss_finite"] = bool(losses) and all(math.isfinite(v) for v in losses)
            med = timing["median_s"]
            run["gflops"] = kind.flops / med / 1e9 if med > 0 else None
            run["samples_per_s"] = kind.samples / med if (kind.samples and med > 0) else None
            phase = "verify"
            self.set_current(workload, device, size, phase)
            placed, detail = kind.placement("/" + device, last)
            run["placed_on"] = placed
            run["placement"] = detail
            run["on_device"] = on_device(placed, device)
            run["agreement"] = self.agreement(workload, size, device, entry, last)
            self.say(self.summary_line(run))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 - one failing measurement must not stop the others
            run["error"] = describe(exc)
            run["error_type"] = "%s.%s" % (type(exc).__module__, type(exc).__name__)
            run["error_phase"] = phase
            run["error_traceback"] = [text(line.rstrip(), 300) for line in
                                      traceback.format_exception_only(type(exc), exc)][-3:]
            self.say("%s size %d on %s failed while %s: %s" % (workload, size, device,
                                                                 phase, text(describe(exc), 300)))
        run["duration_s"] = round(time.perf_counter() - started, 4)
        self.publish()
        return run

    def time_it(self, prepared, run_deadline):
        return time_it(prepared, self.cfg, self.budget, self.min_repeat_s, run_deadline)

    def agreement(self, workload, size, device, entry, last):
        """Agreement of `device`'s result with the CPU's (tfdoctor.inside.probes.agreement)."""
        return agreement(self.tf, self.cfg["tolerance"], workload, device, entry, last)

    def summary_line(self, run):
        t = run["timing"]
        parts = ["%s size %d on %s: median %.3g ms (IQR %.2g ms, %d repeats of %d calls)" % (
            run["workload"], run["size"], run["device"], t["median_s"] * 1e3, t["iqr_s"] * 1e3,
            len(t["repeats_s"]), t["number"])]
        training_step = KINDS[run["workload"]].training_step
        if run.get("gflops") and not training_step:
            parts.append("%.0f GFLOP/s" % run["gflops"])
        if run.get("samples_per_s") and training_step:
            parts.append("%.0f samples/s" % run["samples_per_s"])
        parts.append("first call %.3g ms" % (t["first_call_s"] * 1e3))
        if run.get("on_device") is False:
            parts.append("ran on %s" % short_device(run.get("placed_on")))
        agreement = run.get("agreement")
        if agreement and not agreement["ok"]:
            parts.append("DISAGREES with the CPU")
        return ", ".join(parts)
